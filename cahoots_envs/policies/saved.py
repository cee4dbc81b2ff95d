"""Saved policies: safetensors weights + JSON metadata, checked against the env on load.

A saved policy is one ``.safetensors`` file whose header metadata holds the policy's JSON
metadata (key ``cahoots_policy``); a copy of that JSON is written next to it (same stem,
``.json``) for people and for ``list_policies``. The file is data only: the ``safetensors``
library (its numpy interface: no torch) parses a JSON header and raw float arrays and never
executes anything from the file; every way a file can be malformed, and weights that are not
finite (NaN, inf), raise ``PolicyFileError`` naming the file. Pickle-based files
(``torch.save`` checkpoints, ``.pkl``, SB3 ``.zip``) are refused; an SB3 ``.zip`` (exported next
to each trained policy for SB3 users) loads only with an explicit ``trusted=True``.

Metadata: ``format``/``format_version``, ``env_id``, ``env_version``, ``game_options``,
``layout_fingerprint``, ``observation_size``, ``num_actions``, ``architecture``, ``training``
(config and seed), ``evaluation`` (measured results), ``package_version``, ``created``, ``name``,
``description``.

Loading checks the metadata against the env (``check_compatible``): an option declared
``policy_may_differ`` (a setting such as the number of hands or the difficulty) may differ from the
training options, and the loaded policy records it in ``option_differences`` (``{option:
(trained, now)}``, also in ``metadata["option_differences"]``); any other difference is refused
with ``IncompatiblePolicyError`` saying why.
"""

from __future__ import annotations

import datetime as _dt
import json
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

import numpy as np
from safetensors import safe_open
from safetensors.numpy import save_file

from cahoots_envs._version import __version__
from cahoots_envs.core.policy import BasePolicy
from cahoots_envs.errors import IncompatiblePolicyError
from cahoots_envs.policies.envinfo import EnvInfo, env_info
from cahoots_envs.policies.network import MLPPolicy
from cahoots_envs.policies.scoring import ARCHITECTURE_TYPE as SCORING_TYPE
from cahoots_envs.policies.scoring import COMPUTED_KEYS, ActionScoringPolicy

FORMAT = "cahoots-policy"
FORMAT_VERSION = 1
METADATA_KEY = "cahoots_policy"
# a policy's weights; inference is float32 whatever the file holds
WEIGHT_DTYPES = (np.dtype(np.float16), np.dtype(np.float32))
# the networks a file may hold, by ``architecture["type"]`` (a file without one holds an MLP)
NetworkPolicy = MLPPolicy | ActionScoringPolicy
ARCHITECTURE_TYPES = ("mlp", SCORING_TYPE)
# what loading reads from the metadata, and its JSON type
METADATA_TYPES: dict[str, type] = {
    "env_id": str, "env_version": int, "game_options": dict, "layout_fingerprint": str,
    "observation_size": int, "num_actions": int, "architecture": dict,
}


class PolicyFileError(ValueError):
    """A policy file that cannot be loaded: corrupt, truncated, missing or not a policy."""


class UntrustedPolicyError(PolicyFileError):
    """A pickle-based file (which could run code when loaded) was refused."""


def metadata_for(
    policy: NetworkPolicy,
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
        "package_version": __version__,
        "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
    }


def save_policy(
    policy: NetworkPolicy,
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
    if isinstance(policy, ActionScoringPolicy):
        try:
            policy.check_layout(info.layout, info.num_actions)
        except ValueError as exc:
            raise IncompatiblePolicyError(f"cannot save for {info.env_id}: {exc}") from None
    path = Path(path)
    if path.suffix != ".safetensors":
        path = path.with_suffix(".safetensors")
    path.parent.mkdir(parents=True, exist_ok=True)
    metadata = metadata_for(policy, info, **meta)
    metadata["architecture"]["weights_dtype"] = weights_dtype
    text = json.dumps(metadata, indent=2, sort_keys=True, default=_jsonable)
    with np.errstate(over="ignore"):  # refused just below, naming the tensor
        tensors = {k: v.astype(weights_dtype) for k, v in policy.tensors().items()}
    for name, tensor in tensors.items():  # after the cast: float16 overflows to inf past 65504
        _check_finite(path, name, tensor, f"as {weights_dtype}")
    save_file(tensors, str(path), metadata={METADATA_KEY: text})
    path.with_suffix(".json").write_text(text + "\n")
    return json.loads(text)


def _check_finite(path: Path, name: str, tensor: np.ndarray, how: str = "") -> None:
    bad = ~np.isfinite(tensor)
    if bad.any():
        kinds = [k for k, n in (("NaN", np.isnan(tensor).sum()),
                                ("inf", np.isinf(tensor).sum())) if n]
        where = f" {how}" if how else ""
        raise PolicyFileError(
            f"{path}: tensor {name!r}{where} has {int(bad.sum())} non-finite values "
            f"({' and '.join(kinds)}); a policy with such weights plays nonsense"
        )


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
    _, metadata = read_policy_file(path, tensors=False)
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


def read_safetensors(
    path: str | Path, tensors: bool = True
) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    """The tensors (each read once from the memory-mapped file: the file is never held twice)
    and the string metadata of a safetensors file, through the ``safetensors`` library; every
    failure is a ``PolicyFileError`` naming the file. ``tensors=False`` reads the header only."""
    path = Path(path)
    try:
        with path.open("rb") as f:
            head = f.read(8)
    except OSError as exc:
        raise PolicyFileError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    _refuse_unsafe(path, head)
    try:
        with safe_open(str(path), framework="np") as f:
            raw_meta = f.metadata() or {}
            out = {name: f.get_tensor(name) for name in f.keys()} if tensors else {}  # noqa: SIM118
    except Exception as exc:  # noqa: BLE001  # SafetensorError, TypeError (dtype), OSError, ...
        if _looks_like_pickle(head):
            raise UntrustedPolicyError(
                f"{path}: refused: this is a pickle, which could run code when loaded; "
                "saved policies are .safetensors files"
            ) from None
        detail = str(exc).removeprefix("Error while deserializing header: ") or type(exc).__name__
        if "not fully covered" in detail:
            detail += " (truncated, or bytes after the last tensor)"
        elif "invalid JSON" in detail:
            detail = f"header is not JSON as the format wants it: {detail}"
        raise PolicyFileError(f"{path}: not a valid safetensors file ({detail})") from None
    return out, raw_meta


def read_policy_file(
    path: str | Path, tensors: bool = True
) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The weights (finite floats, else ``PolicyFileError``) and the parsed metadata of a saved
    policy: a ``.safetensors`` file, its ``.json``, or a folder holding ``policy.safetensors``."""
    path = Path(path)
    if path.is_dir():
        path = path / "policy.safetensors"
    elif path.suffix == ".json":
        path = path.with_suffix(".safetensors")
    if not path.is_file():
        raise PolicyFileError(f"{path}: no such policy file")
    weights, raw_meta = read_safetensors(path, tensors)
    for name, tensor in weights.items():
        if tensor.dtype not in WEIGHT_DTYPES:
            raise PolicyFileError(
                f"{path}: tensor {name!r} holds {tensor.dtype} values; a policy's weights are "
                "float16 or float32"
            )
        _check_finite(path, name, tensor)
    if METADATA_KEY not in raw_meta:
        raise PolicyFileError(f"{path}: a safetensors file without cahoots policy metadata")
    try:
        metadata = json.loads(raw_meta[METADATA_KEY])
    except (ValueError, RecursionError) as exc:
        raise PolicyFileError(f"{path}: policy metadata is not valid JSON ({exc})") from None
    if not isinstance(metadata, dict) or metadata.get("format") != FORMAT:
        raise PolicyFileError(f"{path}: metadata does not describe a {FORMAT} file")
    if metadata.get("format_version") != FORMAT_VERSION:
        raise PolicyFileError(
            f"{path}: format version {metadata.get('format_version')} is not supported "
            f"(this package reads version {FORMAT_VERSION})"
        )
    for key, kind in METADATA_TYPES.items():
        if not isinstance(metadata.get(key), kind) or isinstance(metadata.get(key), bool):
            raise PolicyFileError(
                f"{path}: policy metadata {key!r} is "
                + (f"{type(metadata[key]).__name__}, not {kind.__name__}" if key in metadata
                   else "missing")
            )
    kind = metadata["architecture"].get("type", "mlp")
    if kind not in ARCHITECTURE_TYPES:
        raise PolicyFileError(f"{path}: architecture type {kind!r} unknown; known: "
                              f"{', '.join(ARCHITECTURE_TYPES)}")
    return weights, metadata


def check_compatible(
    metadata: Mapping[str, Any], info: EnvInfo, source: str = "policy"
) -> dict[str, tuple[Any, Any]]:
    """Raise ``IncompatiblePolicyError`` listing every difference between ``metadata`` and the env
    that the policy cannot play across; return the ones it may (options declared
    ``policy_may_differ``) as ``{option: (trained, now)}``."""
    want = info.describe()
    problems: list[str] = []
    accepted: dict[str, tuple[Any, Any]] = {}
    if metadata.get("env_id") != want["env_id"]:
        trained = str(metadata.get("env_id"))
        base, _, version = trained.rpartition("-v")
        if base == want["env_id"].rpartition("-v")[0] and version.isdigit() \
                and int(version) < info.version:
            from cahoots_envs.registry import retired_message

            problems.append(f"it was trained on {trained}, a retired version ("
                            f"{retired_message(info.spec, int(version))})")
        else:
            problems.append(f"it was trained on {trained}, not {want['env_id']}")
    else:
        if metadata.get("env_version") != want["env_version"]:
            problems.append(f"env version {metadata.get('env_version')} != {want['env_version']}")
        declared = info.game_cls.OPTIONS.by_name
        saved_opts = dict(metadata.get("game_options", {}))
        # an option the policy does not record was added later; the policy played its default
        for key, option in declared.items():
            if key in want["game_options"] and key not in saved_opts:
                saved_opts[key] = option.default
        settings = [o.name for o in declared.values()
                    if o.policy_may_differ and o.name in want["game_options"]]
        other_count = False
        for key in sorted(set(saved_opts) | set(want["game_options"])):
            a, b = saved_opts.get(key, "<absent>"), want["game_options"].get(key, "<absent>")
            if a == b:
                continue
            declared_as = declared.get(key)
            if declared_as is not None and declared_as.policy_may_differ and key in saved_opts:
                accepted[key] = (a, b)
                continue
            what = f"option {key}={a!r} in the policy but {key}={b!r} in the env"
            if key == "num_players":
                other_count = True
                problems.append(f"{what}: {_player_count_reason(metadata, want)}")
            elif declared_as is None:
                problems.append(f"{what}: the env has no such option" if b == "<absent>" else
                                f"{what}: an option the policy does not know")
            else:
                across = (f"a saved policy may play across {', '.join(settings)} only"
                          if settings else f"{info.game} has no option a saved policy may play "
                          "across")
                problems.append(f"{what}: {key} is a rule variant, and the policy was trained "
                                f"under the other rules ({across})")
        # another player count changes the layout, its size and perhaps the action count: said
        # once, in the num_players line
        if metadata.get("layout_fingerprint") != want["layout_fingerprint"] and not other_count:
            problems.append(
                f"observation layout fingerprint {metadata.get('layout_fingerprint')} != "
                f"{want['layout_fingerprint']} (the observation encoding changed)"
            )
        if metadata.get("observation_size") != want["observation_size"] and not other_count:
            problems.append(
                f"observation size {metadata.get('observation_size')} != {want['observation_size']}"
            )
        if metadata.get("num_actions") != want["num_actions"] and not other_count:
            problems.append(f"action count {metadata.get('num_actions')} != {want['num_actions']}")
        if not other_count:
            problems.extend(_computed_problems(metadata, info))
    if problems:
        raise IncompatiblePolicyError(
            f"{source} cannot play {want['env_id']} with options {want['game_options']}: "
            + "; ".join(problems)
        )
    return accepted


def _computed_problems(metadata: Mapping[str, Any], info: EnvInfo) -> list[str]:
    """What is wrong with an action-scoring network's ``computed_features`` record (the game,
    player count, feature set and width its features are computed with) for the env ``info``:
    one line per field. None for a network without computed features, nor for a record that is
    malformed on its own terms (a field missing, a feature set its game does not offer): building
    the network refuses those as a ``PolicyFileError``."""
    from cahoots_envs.registry import game_spec

    architecture = metadata.get("architecture")
    record = architecture.get("computed_features") if isinstance(architecture, Mapping) else None
    if not isinstance(record, Mapping) or any(key not in record for key in COMPUTED_KEYS):
        return []
    game, name, size, players = (record[key] for key in ("game", "name", "size", "num_players"))
    try:
        if name not in game_spec(str(game)).extras.get("play_features", {}):
            return []
    except (KeyError, TypeError, ValueError):  # an unknown game, an unhashable name
        return []
    problems = []
    want = info.describe()["game_options"]["num_players"]
    if game != info.spec.name:
        problems.append(f"computed_features game {game!r} != {info.spec.name!r}")
    if type(players) is not int or players != want:
        problems.append(f"computed_features num_players {players!r} != {want} (the env's "
                        f"player count, which the features are computed for)")
    offered = info.spec.extras.get("play_features", {})
    if name not in offered:
        problems.append(f"computed_features {name!r} are not offered by {info.spec.name} "
                        f"(offered: {', '.join(offered) or 'none'})")
    if not problems:  # the width the named features have in this env
        sample = np.zeros((1, info.layout.size), np.float32)
        width = np.shape(offered[name](sample, want, info.num_actions))[-1]
        if type(size) is not int or size != width:
            problems.append(f"computed_features size {size!r} != {width} (what {name} computes "
                            f"for {want} players)")
    return problems


def _player_count_reason(metadata: Mapping[str, Any], want: Mapping[str, Any]) -> str:
    trained, now = metadata.get("observation_size"), want["observation_size"]
    if trained != now:
        text = (f"another player count changes the observation size ({now} entries here; the "
                f"policy was trained on {trained})")
    else:
        text = "another player count changes what the observation's entries mean"
    if metadata.get("num_actions") != want["num_actions"]:
        text += (f" and the action count ({want['num_actions']} here, "
                 f"{metadata.get('num_actions')} in the policy)")
    return text


class SavedPolicy(MLPPolicy):
    """An ``MLPPolicy`` loaded from a file, with its ``metadata``."""

    name = "saved"
    metadata: dict[str, Any]
    # options it plays with that differ from its training options: {option: (trained, now)}
    option_differences: dict[str, tuple[Any, Any]]


class SavedActionScoringPolicy(ActionScoringPolicy):
    """An ``ActionScoringPolicy`` loaded from a file, with its ``metadata``."""

    name = "saved"
    metadata: dict[str, Any]
    option_differences: dict[str, tuple[Any, Any]]


def network_from_tensors(tensors: dict[str, np.ndarray], architecture: dict[str, Any], *,
                         saved: bool = False, **kwargs: Any) -> NetworkPolicy:
    """The network a saved file's tensors and ``architecture`` describe, its ``type`` picking
    the class (an MLP, or an action-scoring network); ``saved``: the classes that carry the
    file's metadata. ``kwargs``: ``deterministic``, ``seed``."""
    if architecture.get("type", "mlp") == SCORING_TYPE:
        return (SavedActionScoringPolicy if saved else ActionScoringPolicy).from_tensors(
            tensors, architecture, **kwargs)
    return (SavedPolicy if saved else MLPPolicy).from_tensors(tensors, architecture, **kwargs)


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
    tensors, metadata = read_policy_file(path)
    differences = check_compatible(metadata, info, source=str(path))
    try:
        policy = cast(SavedPolicy | SavedActionScoringPolicy, network_from_tensors(
            tensors, metadata["architecture"], saved=True, deterministic=deterministic, seed=seed))
        if isinstance(policy, ActionScoringPolicy):
            policy.check_layout(info.layout, info.num_actions)
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise PolicyFileError(f"{path}: weights do not match the declared architecture: {exc}") from None
    if policy.input_size != info.layout.size or policy.output_size != info.num_actions:
        raise IncompatiblePolicyError(
            f"{path}: network maps {policy.input_size} -> {policy.output_size}, but "
            f"{info.env_id} has {info.layout.size} observation entries and {info.num_actions} actions"
        )
    policy.option_differences = differences
    if differences:
        metadata["option_differences"] = {k: list(v) for k, v in differences.items()}
    policy.metadata = metadata
    return policy


# ---- SB3 export (pickle-based: trusted sources only) --------------------------------------
class SB3Policy(BasePolicy):
    """A MaskablePPO model loaded from an SB3 ``.zip`` (only with ``trusted=True``)."""

    name = "sb3"

    def __init__(self, model: Any, deterministic: bool = True) -> None:
        self.model = model
        self.deterministic = deterministic
        self.option_differences: dict[str, tuple[Any, Any]] = {}

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
    differences: dict[str, tuple[Any, Any]] = {}
    if sidecar.is_file():
        differences = check_compatible(json.loads(sidecar.read_text()), info, source=str(path))
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
    policy = SB3Policy(model, deterministic=deterministic)
    policy.option_differences = differences
    return policy


def export_sb3_zip(model: Any, path: str | Path, metadata: Mapping[str, Any]) -> Path:
    """Save an SB3 model as ``.zip`` with our metadata as the ``.json`` next to it."""
    path = Path(path).with_suffix(".zip")
    model.save(path)
    path.with_suffix(".json").write_text(json.dumps(dict(metadata), indent=2, sort_keys=True) + "\n")
    return path
