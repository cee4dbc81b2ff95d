"""Checkpoints every training algorithm writes as it goes, for ``cahoots train --resume <run>``.

A checkpoint is one ``.safetensors`` file in ``<run>/checkpoints/resume/``: the tensors and
arrays (weights, optimiser moments, torch generator states, data an algorithm keeps between
iterations) as safetensors tensors, and everything else (counters, numpy generator states, the
evaluation log so far, ...) as JSON in the file's header metadata. No pickle: loading one parses
a JSON header and raw arrays, as the saved-policy format does, so resuming one's own run needs
no trust flag.

- **Atomic**: written to a temporary file in the same folder, flushed and fsynced, then renamed
  over its final name; ``latest.json`` beside them (written the same way, after the checkpoint)
  names the latest complete one. A run stopped while writing leaves at most a ``.tmp`` file,
  which the next checkpoint or resume removes.
- **The last k**: ``checkpoint_keep`` (a config key) checkpoints are kept, older ones removed.
- **Checked**: each records the config's digest, the package version, the algorithm and the env;
  ``--resume`` refuses a checkpoint written under another of them with one line.

A checkpoint is only written where the run can continue exactly from it (between iterations), so
a resumed run ends bit for bit as an unstopped run of the same config and seed would have, on
one machine and software stack.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import signal
import time
from pathlib import Path
from typing import Any

import numpy as np
from safetensors import safe_open
from safetensors.numpy import save

from cahoots_envs._version import __version__
from cahoots_envs.policies.saved import network_from_tensors
from cahoots_envs.training.config import ConfigError
from cahoots_envs.training.pool import PoolEntry

FOLDER = Path("checkpoints") / "resume"
LATEST = "latest.json"
FORMAT = 1
KEY = "cahoots_checkpoint"
# config keys a resumed run may change: ``--no-progress``, and the budget (``--total-timesteps``,
# to take a stopped or finished run further; the steps before it are the same under either)
NOT_DIGESTED = ("progress_bar", "total_timesteps")


class ResumeError(ConfigError):
    """A checkpoint ``--resume`` cannot continue from (one line, saying why)."""


# ---- stops for tests ------------------------------------------------------------------------
class SimulatedStop(BaseException):
    """Raised at an armed stop point (tests): the run ends there as if killed. A
    ``BaseException``, so no ``except Exception`` of the run catches it."""


_ARMED: dict[str, list[Any]] = {}  # point -> [passes left, the signal to end the process by]
_ENV_READ = False
# "point:n" or "point:n:TERM": SIGKILL (or SIGTERM) this process at the n-th pass of point
ENV_STOP = "CAHOOTS_TEST_STOP"


def arm_stop(point: str, n: int) -> None:
    """Stop the run (``SimulatedStop``) the ``n``-th time it passes ``point`` (``"rollout"``,
    ``"update"``, ``"checkpoint-write"``, ``"checkpoint-latest"``); ``n`` 0 disarms it."""
    if n > 0:
        _ARMED[point] = [n, None]
    else:
        _ARMED.pop(point, None)


def stop_point(point: str) -> None:
    """A place where a test may stop the run: an armed stop (``arm_stop``) raises
    ``SimulatedStop``; ``CAHOOTS_TEST_STOP=point:n`` in the environment kills the process with
    SIGKILL there (``point:n:TERM``: SIGTERM), a subprocess test's kill at a seeded point."""
    global _ENV_READ
    if not _ENV_READ:
        _ENV_READ = True
        name, count, how = [*os.environ.get(ENV_STOP, "").split(":"), "", ""][:3]
        if name:
            _ARMED[name] = [int(count or 1), signal.SIGTERM if how == "TERM" else signal.SIGKILL]
    armed = _ARMED.get(point)
    if armed is None:
        return
    armed[0] -= 1
    if armed[0] > 0:
        return
    del _ARMED[point]
    if armed[1] is not None:
        os.kill(os.getpid(), armed[1])
        time.sleep(5)  # SIGTERM's default action ends the process before this returns
    raise SimulatedStop(point)


# ---- what a checkpoint records --------------------------------------------------------------
def config_digest(config: Any) -> str:
    """sha256 of the config as JSON (keys sorted), less the keys that change nothing computed."""
    data = {k: v for k, v in dataclasses.asdict(config).items() if k not in NOT_DIGESTED}
    text = json.dumps(data, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def identity(config: Any) -> dict[str, str]:
    return {"algorithm": config.algorithm, "env_id": config.env_id,
            "config_digest": config_digest(config), "package_version": __version__}


# ---- torch and numpy state as tensors and JSON ----------------------------------------------
def module_tensors(prefix: str, module: Any) -> dict[str, np.ndarray]:
    return {f"{prefix}/{k}": v.detach().cpu().numpy().copy() for k, v in module.state_dict().items()}


def load_module(prefix: str, module: Any, tensors: dict[str, np.ndarray]) -> None:
    import torch  # torch: the train extra (checkpoints of numpy state need none)

    own = {k[len(prefix) + 1:]: torch.from_numpy(v.copy()) for k, v in tensors.items()
           if k.startswith(prefix + "/")}
    module.load_state_dict(own, strict=True)


def optimizer_state(prefix: str, optimizer: Any) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """A torch optimiser's state: its per-parameter tensors, and its param groups as JSON."""
    state = optimizer.state_dict()
    tensors: dict[str, np.ndarray] = {}
    kinds: dict[str, dict[str, str]] = {}
    for index, values in state["state"].items():
        for key, value in values.items():
            if hasattr(value, "detach"):
                tensors[f"{prefix}/{index}/{key}"] = value.detach().cpu().numpy().copy()
                kinds.setdefault(str(index), {})[key] = "tensor"
            else:
                kinds.setdefault(str(index), {})[key] = json.dumps(value)
    return tensors, {"param_groups": state["param_groups"], "state": kinds}


def load_optimizer(prefix: str, optimizer: Any, tensors: dict[str, np.ndarray],
                   meta: dict[str, Any]) -> None:
    import torch  # the train extra

    state: dict[int, dict[str, Any]] = {}
    for index, keys in meta["state"].items():
        state[int(index)] = {
            key: (torch.from_numpy(tensors[f"{prefix}/{index}/{key}"].copy()) if kind == "tensor"
                  else json.loads(kind))
            for key, kind in keys.items()}
    groups = [{k: tuple(v) if k == "betas" else v for k, v in g.items()}
              for g in meta["param_groups"]]
    optimizer.load_state_dict({"state": state, "param_groups": groups})


def torch_rng_tensors(prefix: str, generator: Any) -> dict[str, np.ndarray]:
    """torch's global generator and ``generator``'s state (uint8 tensors)."""
    import torch  # the train extra

    return {f"{prefix}/global": torch.get_rng_state().numpy().copy(),
            f"{prefix}/generator": generator.get_state().numpy().copy()}


def load_torch_rng(prefix: str, generator: Any, tensors: dict[str, np.ndarray]) -> None:
    import torch  # the train extra

    torch.set_rng_state(torch.from_numpy(tensors[f"{prefix}/global"].copy()))
    generator.set_state(torch.from_numpy(tensors[f"{prefix}/generator"].copy()))


def numpy_generators(obj: Any, depth: int = 3) -> list[np.random.Generator]:
    """Every ``numpy.random.Generator`` an object holds (in its attributes, lists and dicts, a
    few levels deep), in a fixed order: a policy's draws (a bot's ties, a random policy, a
    sampling network) continue from their state after a resume."""
    found: list[np.random.Generator] = []
    seen: set[int] = set()

    def walk(value: Any, left: int) -> None:
        if id(value) in seen:
            return
        seen.add(id(value))
        if isinstance(value, np.random.Generator):
            found.append(value)
            return
        if left == 0 or isinstance(value, (str, bytes, int, float, np.ndarray)):
            return
        if isinstance(value, dict):
            for k in sorted(value, key=str):
                walk(value[k], left - 1)
        elif isinstance(value, (list, tuple)):
            for v in value:
                walk(v, left - 1)
        elif hasattr(value, "__dict__") and not isinstance(value, type):
            for k in sorted(vars(value)):
                walk(vars(value)[k], left - 1)

    walk(obj, depth)
    return found


def generator_states(obj: Any) -> list[dict[str, Any]]:
    return [dict(g.bit_generator.state) for g in numpy_generators(obj)]


def set_generator_states(obj: Any, states: list[dict[str, Any]]) -> None:
    generators = numpy_generators(obj)
    if len(generators) != len(states):
        raise ResumeError(f"the checkpoint holds {len(states)} generator states where the run "
                          f"has {len(generators)}; start a new run")
    for g, s in zip(generators, states):
        g.bit_generator.state = s


# ---- files ----------------------------------------------------------------------------------
def _write_atomic(path: Path, data: bytes, point: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("wb") as f:
        f.write(data[: len(data) // 2])
        stop_point(point)  # a stop here leaves half a temporary file, never a broken checkpoint
        f.write(data[len(data) // 2:])
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    try:
        fd = os.open(path.parent, os.O_RDONLY)
    except OSError:  # a folder that cannot be opened (some platforms): the rename stands
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class Checkpoints:
    """A run's checkpoints: ``save`` writes one, ``load`` reads the latest for ``--resume``."""

    def __init__(self, config: Any, run_dir: Path) -> None:
        self.config = config
        self.folder = run_dir / FOLDER
        self.keep = int(getattr(config, "checkpoint_keep", 3))
        self.minutes = float(getattr(config, "checkpoint_minutes", 0.0))
        self._last = time.monotonic()

    def due(self, last: bool = False) -> bool:
        """Time for a checkpoint: every iteration (``checkpoint_minutes`` 0), else once that
        many minutes passed since the last one; always at the last iteration."""
        return last or self.minutes <= 0 or time.monotonic() - self._last >= 60 * self.minutes

    def save(self, iteration: int, tensors: dict[str, np.ndarray], state: dict[str, Any]) -> Path:
        self.folder.mkdir(parents=True, exist_ok=True)
        for stale in self.folder.glob("*.tmp"):
            stale.unlink()
        record = {"format": FORMAT, **identity(self.config), "iteration": iteration,
                  "created": time.strftime("%Y-%m-%dT%H:%M:%S"), "state": state}
        arrays = {k: np.ascontiguousarray(v) for k, v in tensors.items()}
        if not arrays:
            arrays = {"_": np.zeros(0, np.uint8)}
        data = save(arrays, metadata={KEY: json.dumps(record)})
        name = f"checkpoint-{iteration:06d}.safetensors"
        _write_atomic(self.folder / name, data, "checkpoint-write")
        stop_point("checkpoint-latest")  # written, not yet named the latest: the previous one is
        latest = {"file": name, "iteration": iteration, "created": record["created"]}
        _write_atomic(self.folder / LATEST, json.dumps(latest, indent=1).encode(), "latest-write")
        done = sorted(self.folder.glob("checkpoint-*.safetensors"))
        for old in done[:-self.keep] if self.keep > 0 else []:
            if old.name != name:
                old.unlink()
        self._last = time.monotonic()
        return self.folder / name

    def load(self) -> tuple[dict[str, np.ndarray], dict[str, Any]] | None:
        """The latest complete checkpoint's tensors and record (``None`` if there is none yet);
        ``ResumeError`` if it was written under another config, version, algorithm or env."""

        for stale in self.folder.glob("*.tmp"):
            stale.unlink()
        latest = self.folder / LATEST
        if not latest.is_file():
            return None
        try:
            name = json.loads(latest.read_text())["file"]
            path = self.folder / name
            with safe_open(str(path), framework="numpy") as f:
                record = json.loads(f.metadata()[KEY])
                tensors = {k: f.get_tensor(k) for k in f.keys()}  # noqa: SIM118
        except (OSError, KeyError, ValueError, TypeError) as e:
            raise ResumeError(f"--resume: {latest} does not name a readable checkpoint ({e}); "
                              "start a new run") from None
        check_identity(record, self.config, path)
        return tensors, record


def check_identity(record: dict[str, Any], config: Any, path: Path) -> None:
    if record.get("format") != FORMAT:
        raise ResumeError(f"--resume: {path} is checkpoint format {record.get('format')}, this "
                          f"version reads format {FORMAT}; start a new run")
    ours = identity(config)
    what = {"algorithm": "algorithm", "env_id": "env", "package_version": "cahoots-envs version",
            "config_digest": "config (its digest)"}
    for key, name in what.items():
        if record.get(key) != ours[key]:
            raise ResumeError(f"--resume: {path} was written with another {name} "
                              f"({record.get(key)} here {ours[key]}); resume it with what wrote "
                              "it, or start a new run")


def check_resume(config: Any, run_dir: Path) -> None:
    """Before a resumed run touches its folder: its latest checkpoint fits ``config``."""
    Checkpoints(config, run_dir).load()


# ---- the run's logs -------------------------------------------------------------------------
def logs_state(evaluator: Any, progress: Any) -> dict[str, Any]:
    """What the run plumbing keeps across a resume: the evaluation log and the progress rows so
    far (``progress``: None where SB3's logger keeps them), and the CPU seconds trained
    (``eval.csv``'s ``cpu_seconds`` go on from there)."""
    return {"eval_rows": evaluator.log.rows,
            "progress_rows": progress.rows if progress is not None else [],
            "training_cpu": evaluator.training_cpu()}


def restore_logs(evaluator: Any, progress: Any, state: dict[str, Any] | None) -> None:
    """``eval.csv`` and ``progress.csv`` as they were at the checkpoint (rows written after it,
    by the stopped run, are dropped: the resumed run writes them again); with no checkpoint,
    empty, as a new run's."""
    state = state or {}
    for log, key in ((evaluator.log, "eval_rows"), (progress, "progress_rows")):
        if log is None:
            continue
        log.rows = []
        rows = state.get(key, [])
        if rows:
            log.add(*rows)
        elif log.path.is_file():
            log.path.unlink()
    evaluator.cpu_before = float(state.get("training_cpu", 0.0))


# ---- the batched engine's games in flight ---------------------------------------------------
def engine_state(prefix: str, engine: Any) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """A batched engine's games in flight, read from its attributes: every writable numpy array
    (the games' state rows and their random streams), every dict of per-game ``bytearray`` (a long
    game's spilled history), and its plain numbers and flags. Constants come along; setting
    them again changes nothing."""
    tensors: dict[str, np.ndarray] = {}
    plain: dict[str, Any] = {}
    spilled: dict[str, list[int]] = {}
    for name, value in sorted(vars(engine).items()):
        if isinstance(value, np.ndarray):
            if value.flags.writeable:  # a read-only one is a constant table: never changes
                tensors[f"{prefix}/{name}"] = value.copy()
        elif isinstance(value, (bool, int, float, str)) or value is None:
            plain[name] = value
        elif isinstance(value, dict) and all(isinstance(v, bytearray) for v in value.values()):
            spilled[name] = sorted(value)
            for i in value:
                tensors[f"{prefix}/{name}/{i}"] = np.frombuffer(bytes(value[i]), np.uint8).copy()
        elif isinstance(value, dict) and name.startswith("_") and value:
            raise ResumeError(f"{type(engine).__name__}.{name} holds state a checkpoint cannot "
                              "save (scripted deals): checkpoints take dealt games only")
    return tensors, {"plain": plain, "spilled": spilled}


def restore_engine(prefix: str, engine: Any, tensors: dict[str, np.ndarray],
                   meta: dict[str, Any]) -> None:
    """Puts ``engine_state``'s arrays back, in place where the shapes agree (views into them
    and arrays the caller holds stay valid), as new arrays where a buffer had grown."""
    start = prefix + "/"
    for key, value in tensors.items():
        name = key[len(start):]
        if not key.startswith(start) or "/" in name:
            continue
        own = getattr(engine, name)
        if own.shape == value.shape and own.dtype == value.dtype:
            own[...] = value
        else:
            setattr(engine, name, value.copy())
    for name, value in meta["plain"].items():
        setattr(engine, name, value)
    for name, rows in meta["spilled"].items():
        setattr(engine, name, {i: bytearray(tensors[f"{prefix}/{name}/{i}"].tobytes())
                               for i in rows})


# ---- network policies (the opponent pool's snapshots) ---------------------------------------
def policy_tensors(prefix: str, policy: Any) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """A numpy network policy (an MLP or an action-scoring network) as the saved-policy format
    holds it: its tensors, its architecture as JSON."""
    return ({f"{prefix}/{k}": np.asarray(v).copy() for k, v in policy.tensors().items()},
            policy.architecture())


def policy_from(prefix: str, tensors: dict[str, np.ndarray], architecture: dict[str, Any]) -> Any:
    start = prefix + "/"
    own = {k[len(start):]: v for k, v in tensors.items() if k.startswith(start)}
    return network_from_tensors(own, architecture)


# ---- the opponent pool and who sits at each table -------------------------------------------
def _fixed_policies(pool: Any) -> list[Any]:
    """The pool's policies that are not the learner's (bots, zoo and file policies): built
    again from the config on resume, their generators' states restored."""
    return [e.policy for g, es in pool.groups.items() if g not in ("snapshots", "latest")
            for e in es]


def seating_state(prefix: str, pool: Any, rotation: Any, latest: Any,
                  seated: list[Any]) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The pool's learner-made part and the policies at the tables (``seated``, in the order a
    seat machinery indexes them): bots by their place in the pool, ``latest`` and the snapshot
    rotation by name, snapshots by their weights (also those the pool dropped that still sit at
    a table in flight), and the generators of the pool's bots and of the rotation."""
    snapshots: dict[str, Any] = {}

    def named(policy: Any) -> dict[str, Any]:
        if rotation is not None and policy is rotation:
            return {"kind": "rotation"}
        if latest is not None and policy is latest:
            return {"kind": "latest"}
        for group, entries in pool.groups.items():
            for k, entry in enumerate(entries):
                if entry.policy is policy and group != "snapshots":
                    return {"kind": "pool", "group": group, "index": k}
        snapshots[policy.name] = policy
        return {"kind": "snapshot", "name": policy.name}

    meta: dict[str, Any] = {
        "seated": [named(policy) for policy in seated],
        "pool_snapshots": [named(e.policy)["name"] for e in pool.groups.get("snapshots", [])
                           if e.policy is not rotation],
        "rotation": [named(p)["name"] for _, p in rotation.snapshots] if rotation else [],
        "rotation_active": (named(rotation.active)["name"]
                            if rotation is not None and rotation.active is not None else None),
        "rotation_rng": rotation.draw_rng.bit_generator.state if rotation is not None else None,
        "pool_rng": generator_states(_fixed_policies(pool)),
    }
    tensors: dict[str, np.ndarray] = {}
    meta["snapshots"] = {}
    for name, policy in snapshots.items():
        arrays, meta["snapshots"][name] = policy_tensors(f"{prefix}/{name}", policy)
        tensors |= arrays
    return tensors, meta


def restore_seating(prefix: str, meta: dict[str, Any], tensors: dict[str, np.ndarray],
                    pool: Any, rotation: Any, latest: Any) -> list[Any]:
    """``seating_state`` put back into a pool built afresh from the config; returns the seated
    policies in their order."""

    snapshots = {}
    for name, architecture in meta["snapshots"].items():
        snapshots[name] = policy_from(f"{prefix}/{name}", tensors, architecture)
        snapshots[name].name = name
    if rotation is not None:
        rotation.snapshots = [(name, snapshots[name]) for name in meta["rotation"]]
        if meta["rotation_active"] is not None:
            rotation.active_name = meta["rotation_active"]
            rotation.active = snapshots[rotation.active_name]
        if rotation.snapshots:
            pool.groups["snapshots"] = [PoolEntry("snapshots", rotation, "snapshots")]
        rotation.draw_rng.bit_generator.state = meta["rotation_rng"]
    elif meta["pool_snapshots"]:
        pool.groups["snapshots"] = [PoolEntry(name, snapshots[name], "snapshots")
                                    for name in meta["pool_snapshots"]]
    set_generator_states(_fixed_policies(pool), meta["pool_rng"])

    def policy(seat: dict[str, Any]) -> Any:
        if seat["kind"] == "rotation":
            return rotation
        if seat["kind"] == "latest":
            return latest
        if seat["kind"] == "pool":
            return pool.groups[seat["group"]][seat["index"]].policy
        return snapshots[seat["name"]]

    return [policy(seat) for seat in meta["seated"]]
