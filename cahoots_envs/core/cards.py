"""Card sets as Python int bitmasks (bit i = card id i) and fast writers into observation buffers."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np


def bits(mask: int) -> Iterator[int]:
    """The set bits of ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def mask_of(ids: list[int] | tuple[int, ...]) -> int:
    m = 0
    for i in ids:
        m |= 1 << i
    return m


def write_bits(out: np.ndarray, offset: int, mask: int, value: float = 1.0) -> None:
    """Set ``out[offset + i] = value`` for every bit i of ``mask`` (the rest is left alone)."""
    while mask:
        low = mask & -mask
        out[offset + low.bit_length() - 1] = value
        mask ^= low


def write_bitfield(out: np.ndarray, field: int) -> None:
    """Write every bit of ``field`` (bit i -> ``out[i]``) over the whole of ``out`` in one go.

    Encoders OR all their 0/1 entries into one Python int at their layout offsets and call
    this once: one C-level unpack instead of hundreds of numpy item assignments.
    """
    size = out.shape[0]
    raw = np.frombuffer(field.to_bytes((size + 7) // 8, "little"), dtype=np.uint8)
    out[:] = np.unpackbits(raw, count=size, bitorder="little")
