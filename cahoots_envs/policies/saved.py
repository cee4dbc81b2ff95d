"""Saved policies: safetensors weights + JSON metadata, checked against the env on load.

A saved policy is one ``.safetensors`` file whose header metadata holds the policy's JSON
metadata (key ``cahoots_policy``); a copy of that JSON is written next to it (same stem,
``.json``) for people and for ``list_policies``. The file is data only: loading parses a JSON
header and raw float arrays and never executes anything from the file. Pickle-based files
(``torch.save`` checkpoints, ``.pkl``, SB3 ``.zip``) are refused; an SB3 ``.zip`` (exported next
to each trained policy for SB3 users) loads only with an explicit ``trusted=True``.

Metadata: ``format``/``format_version``, ``env_id``, ``env_version``, ``game_options``,
``layout_fingerprint``, ``observation_size``, ``num_actions``, ``architecture``, ``training``
(config and seed), ``evaluation`` (measured results), ``package_version``, ``created``, ``name``,
``description``.
"""

from __future__ import annotations

import datetime as _dt
import json
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

import numpy as np

from cahoots_envs.core.policy import BasePolicy
from cahoots_envs.errors import IncompatiblePolicyError
from cahoots_envs.policies import safetensors_io
from cahoots_envs.policies.envinfo import EnvInfo, env_info
from cahoots_envs.policies.network import MLPPolicy

FORMAT = "cahoots-policy"
FORMAT_VERSION = 1
METADATA_KEY = "cahoots_policy"


class PolicyFileError(ValueError):
    """A policy file that cannot be loaded: corrupt, truncated, missing or not a policy."""


class UntrustedPolicyError(PolicyFileError):
    """A pickle-based file (which could run code when loaded) was refused."""


def _package_version() -> str:
    from cahoots_envs import __version__

    return __version__


def metadata_for(
    policy: MLPPolicy,
    info: EnvInfo,
    *,
    name: str = "",
    description: str = "",
    training: Mapping[str, Any] | None = None,
    evaluation: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "name": name,
        "description": description,
        **info.describe(),
        "architecture": policy.architecture(),
        "training": dict(training or {}),
        "evaluation": dict(evaluation or {}),
        "package_version": _package_version(),
        "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
    }


def save_policy(
    policy: MLPPolicy,
    path: str | Path,
    env_id: str,
    options: Mapping[str, Any] | None = None,
    weights_dtype: str = "float32",
    **meta: Any,
) -> dict[str, Any]:
    """Write ``policy`` to ``path`` (``.safetensors``) and its metadata to the ``.json`` next to
    it; returns the metadata. ``meta``: ``name``, ``description``, ``training``, ``evaluation``.
    ``weights_dtype="float16"`` halves the file (the zoo's choice; inference is float32)."""
    if weights_dtype not in ("float32", "float16"):
        raise ValueError(f"weights_dtype {weights_dtype!r}: use 'float32' or 'float16'")
    info = env_info(env_id, options)
    if policy.input_size != info.layout.size or policy.output_size != info.num_actions:
        raise IncompatiblePolicyError(
            f"network maps {policy.input_size} -> {policy.output_size}, but {info.env_id} has "
            f"{info.layout.size} observation entries and {info.num_actions} actions"
        )
    path = Path(path)
    if path.suffix != ".safetensors":
        path = path.with_suffix(".safetensors")
    path.parent.mkdir(parents=True, exist_ok=True)
    metadata = metadata_for(policy, info, **meta)
    metadata["architecture"]["weights_dtype"] = weights_dtype
    text = json.dumps(metadata, indent=2, sort_keys=True, default=_jsonable)
    tensors = {k: v.astype(weights_dtype) for k, v in policy.tensors().items()}
    safetensors_io.write(path, tensors, {METADATA_KEY: text})
    path.with_suffix(".json").write_text(text + "\n")
    return json.loads(text)


def _jsonable(value: Any) -> Any:
    if isinstance(value, (np.integer, np.floating)):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"cannot store {type(value).__name__} in policy metadata")


def read_metadata(path: str | Path) -> dict[str, Any]:
    """The metadata embedded in a saved policy (``PolicyFileError`` if the file is not one)."""
    _, metadata = _read(Path(path))
    return metadata


def _refuse_unsafe(path: Path, head: bytes) -> None:
    """Refuse zip archives (torch.save, SB3): they hold pickles."""
    if head.startswith(b"PK\x03\x04"):
        try:
            names = set(zipfile.ZipFile(path).namelist())
        except zipfile.BadZipFile:
            names = set()
        kind = ("an SB3 model .zip" if "policy.pth" in names
                else "a torch.save archive" if any(n.endswith("data.pkl") for n in names)
                else "a zip archive")
        hint = (" Load it with load_policy(..., trusted=True) only if you trust its source."
                if kind.startswith("an SB3") else "")
        raise UntrustedPolicyError(
            f"{path}: refused: {kind} is pickle-based and could run code when loaded; "
            f"saved policies are .safetensors files.{hint}"
        )


def _looks_like_pickle(head: bytes) -> bool:
    # protocol 2+ pickles open with PROTO <version>; checked only once safetensors parsing failed,
    # since a safetensors header length may begin with the same byte
    return len(head) >= 2 and head[0] == 0x80 and 2 <= head[1] <= 5


def _read(path: Path) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    if path.is_dir():
        path = path / "policy.safetensors"
    elif path.suffix == ".json":
        path = path.with_suffix(".safetensors")
    if not path.is_file():
        raise PolicyFileError(f"{path}: no such policy file")
    with path.open("rb") as f:
        head = f.read(8)
    _refuse_unsafe(path, head)
    try:
        tensors, raw_meta = safetensors_io.read(path)
    except safetensors_io.SafetensorsError as exc:
        if _looks_like_pickle(head):
            raise UntrustedPolicyError(
                f"{path}: refused: this is a pickle, which could run code when loaded; "
                "saved policies are .safetensors files"
            ) from None
        raise PolicyFileError(str(exc)) from None
    if METADATA_KEY not in raw_meta:
        raise PolicyFileError(f"{path}: a safetensors file without cahoots policy metadata")
    try:
        metadata = json.loads(raw_meta[METADATA_KEY])
    except json.JSONDecodeError as exc:
        raise PolicyFileError(f"{path}: policy metadata is not valid JSON ({exc})") from None
    if not isinstance(metadata, dict) or metadata.get("format") != FORMAT:
        raise PolicyFileError(f"{path}: metadata does not describe a {FORMAT} file")
    if metadata.get("format_version") != FORMAT_VERSION:
        raise PolicyFileError(
            f"{path}: format version {metadata.get('format_version')} is not supported "
            f"(this package reads version {FORMAT_VERSION})"
        )
    return tensors, metadata


def check_compatible(metadata: Mapping[str, Any], info: EnvInfo, source: str = "policy") -> None:
    """Raise ``IncompatiblePolicyError`` listing every difference between ``metadata`` and the env."""
    want = info.describe()
    problems = []
    if metadata.get("env_id") != want["env_id"]:
        problems.append(f"it was trained on {metadata.get('env_id')}, not {want['env_id']}")
    else:
        if metadata.get("env_version") != want["env_version"]:
            problems.append(f"env version {metadata.get('env_version')} != {want['env_version']}")
        saved_opts = dict(metadata.get("game_options", {}))
        # an option the policy does not record was added later; the policy played its default
        for key, option in info.game_cls.OPTIONS.by_name.items():
            if key in want["game_options"] and key not in saved_opts:
                saved_opts[key] = option.default
        for key in sorted(set(saved_opts) | set(want["game_options"])):
            a, b = saved_opts.get(key, "<absent>"), want["game_options"].get(key, "<absent>")
            if a != b:
                problems.append(f"option {key}={a!r} in the policy but {key}={b!r} in the env")
        if metadata.get("layout_fingerprint") != want["layout_fingerprint"]:
            problems.append(
                f"observation layout fingerprint {metadata.get('layout_fingerprint')} != "
                f"{want['layout_fingerprint']} (the observation encoding changed)"
            )
        if metadata.get("observation_size") != want["observation_size"]:
            problems.append(
                f"observation size {metadata.get('observation_size')} != {want['observation_size']}"
            )
        if metadata.get("num_actions") != want["num_actions"]:
            problems.append(f"action count {metadata.get('num_actions')} != {want['num_actions']}")
    if problems:
        raise IncompatiblePolicyError(
            f"{source} cannot play {want['env_id']} with options {want['game_options']}: "
            + "; ".join(problems)
        )


class SavedPolicy(MLPPolicy):
    """An ``MLPPolicy`` loaded from a file, with its ``metadata``."""

    name = "saved"
    metadata: dict[str, Any]


def load_saved_policy(
    path: str | Path,
    env_id: str,
    options: Mapping[str, Any] | None = None,
    seed: int | None = None,
    deterministic: bool = True,
    trusted: bool = False,
) -> BasePolicy:
    """Load a saved policy and check it against ``env_id``/``options``."""
    path = Path(path)
    info = env_info(env_id, options)
    if path.suffix == ".zip":
        if not trusted:
            _refuse_unsafe(path, b"PK\x03\x04")
        return load_sb3_zip(path, info, seed=seed, deterministic=deterministic)
    tensors, metadata = _read(path)
    check_compatible(metadata, info, source=str(path))
    try:
        policy = cast(SavedPolicy, SavedPolicy.from_tensors(
            tensors, metadata["architecture"], deterministic=deterministic, seed=seed
        ))
    except (KeyError, TypeError, ValueError) as exc:
        raise PolicyFileError(f"{path}: weights do not match the declared architecture: {exc}") from None
    if policy.input_size != info.layout.size or policy.output_size != info.num_actions:
        raise IncompatiblePolicyError(
            f"{path}: network maps {policy.input_size} -> {policy.output_size}, but "
            f"{info.env_id} has {info.layout.size} observation entries and {info.num_actions} actions"
        )
    policy.metadata = metadata
    return policy


# ---- SB3 export (pickle-based: trusted sources only) --------------------------------------
class SB3Policy(BasePolicy):
    """A MaskablePPO model loaded from an SB3 ``.zip`` (only with ``trusted=True``)."""

    name = "sb3"

    def __init__(self, model: Any, deterministic: bool = True) -> None:
        self.model = model
        self.deterministic = deterministic

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        actions, _ = self.model.predict(
            np.asarray(observations, np.float32), action_masks=np.asarray(action_masks) > 0,
            deterministic=self.deterministic,
        )
        return np.asarray(actions, np.int64)


def load_sb3_zip(path: Path, info: EnvInfo, seed: int | None = None,
                 deterministic: bool = True) -> SB3Policy:
    from sb3_contrib import MaskablePPO

    sidecar = path.with_suffix(".json")
    if sidecar.is_file():
        check_compatible(json.loads(sidecar.read_text()), info, source=str(path))
    model = MaskablePPO.load(path, device="cpu")
    obs_shape = model.observation_space.shape
    n_actions = int(getattr(model.action_space, "n", -1))
    if obs_shape != (info.layout.size,) or n_actions != info.num_actions:
        raise IncompatiblePolicyError(
            f"{path}: model maps {obs_shape} -> {n_actions} actions, but {info.env_id} has "
            f"{info.layout.size} observation entries and {info.num_actions} actions"
        )
    if seed is not None:
        model.set_random_seed(seed)
    return SB3Policy(model, deterministic=deterministic)


def export_sb3_zip(model: Any, path: str | Path, metadata: Mapping[str, Any]) -> Path:
    """Save an SB3 model as ``.zip`` with our metadata as the ``.json`` next to it."""
    path = Path(path).with_suffix(".zip")
    model.save(path)
    path.with_suffix(".json").write_text(json.dumps(dict(metadata), indent=2, sort_keys=True) + "\n")
    return path
