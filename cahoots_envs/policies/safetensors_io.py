"""A small, strict reader and writer of the safetensors format (numpy only).

The format is a little-endian u64 header length, a JSON header naming each tensor's dtype, shape
and byte range, then the raw bytes. Reading it never executes anything from the file, and it
needs no torch, so a saved policy plays with the core dependencies alone. Files written here load
with the ``safetensors`` library and the other way round (tested).
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np

DTYPES = {
    "F64": np.float64, "F32": np.float32, "F16": np.float16,
    "I64": np.int64, "I32": np.int32, "I16": np.int16, "I8": np.int8,
    "U64": np.uint64, "U32": np.uint32, "U16": np.uint16, "U8": np.uint8, "BOOL": np.bool_,
}
NAMES = {np.dtype(v): k for k, v in DTYPES.items()}
MAX_HEADER = 100_000_000


class SafetensorsError(ValueError):
    """The bytes are not a well-formed safetensors file (corrupt, truncated or something else)."""


def write(path: str | Path, tensors: dict[str, np.ndarray], metadata: dict[str, str]) -> None:
    header: dict[str, object] = {"__metadata__": {str(k): str(v) for k, v in metadata.items()}}
    chunks, at = [], 0
    for name in sorted(tensors):
        array = np.ascontiguousarray(tensors[name])
        if array.dtype not in NAMES:
            raise ValueError(f"tensor {name}: dtype {array.dtype} cannot be stored")
        data = array.astype(array.dtype.newbyteorder("<"), copy=False).tobytes()
        header[name] = {"dtype": NAMES[array.dtype], "shape": list(array.shape),
                        "data_offsets": [at, at + len(data)]}
        chunks.append(data)
        at += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)  # the library pads the header to 8 bytes
    Path(path).write_bytes(struct.pack("<Q", len(text)) + text + b"".join(chunks))


def read(path: str | Path) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    """Tensors and the string metadata of a safetensors file; ``SafetensorsError`` if malformed."""
    raw = Path(path).read_bytes()
    where = f"{path}: not a valid safetensors file"
    if len(raw) < 8:
        raise SafetensorsError(f"{where} (only {len(raw)} bytes; truncated?)")
    (size,) = struct.unpack("<Q", raw[:8])
    if size > min(MAX_HEADER, len(raw) - 8):
        raise SafetensorsError(f"{where} (header length {size} runs past the end of the file: "
                               "truncated or not a safetensors file)")
    try:
        header = json.loads(raw[8 : 8 + size].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SafetensorsError(f"{where} (header is not JSON: {exc})") from None
    if not isinstance(header, dict):
        raise SafetensorsError(f"{where} (header is not a JSON object)")
    data = raw[8 + size :]
    metadata = header.pop("__metadata__", None) or {}
    if not isinstance(metadata, dict) or not all(isinstance(v, str) for v in metadata.values()):
        raise SafetensorsError(f"{where} (__metadata__ must map strings to strings)")
    tensors: dict[str, np.ndarray] = {}
    for name, info in header.items():
        try:
            dtype = np.dtype(DTYPES[info["dtype"]]).newbyteorder("<")
            shape = tuple(int(s) for s in info["shape"])
            begin, end = (int(x) for x in info["data_offsets"])
        except (KeyError, TypeError, ValueError):
            raise SafetensorsError(f"{where} (bad header entry for tensor {name!r})") from None
        count = int(np.prod(shape)) if shape else 1
        if not 0 <= begin <= end <= len(data) or end - begin != count * dtype.itemsize:
            raise SafetensorsError(
                f"{where} (tensor {name!r} needs bytes {begin}..{end} of {len(data)}: truncated?)"
            )
        tensors[name] = np.frombuffer(data[begin:end], dtype=dtype).reshape(shape).copy()
    return tensors, metadata
