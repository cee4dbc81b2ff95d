"""Training configs: YAML validated into typed dataclasses.

An unknown key or a value of the wrong type is a ``ConfigError`` naming the key (dotted path,
e.g. ``ppo.n_stepz``) and the closest known key. Every field has a default except ``env_id``.
Each game's tuned config ships in the package, ``cahoots_envs/configs/<game>.yaml`` (``configs/``
in a source checkout links there); ``load_config`` takes a path or such a bare name
(``kansas_city``).
"""

from __future__ import annotations

import dataclasses
import difflib
import itertools
import math
import os
import types
import typing
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union

from cahoots_envs.envinfo import env_info
from cahoots_envs.policies.loading import load_policy
from cahoots_envs.registry import game_spec

CONFIG_DIR = Path(__file__).resolve().parent.parent / "configs"  # the packaged configs
MAX_CONFIG_BYTES = 256 * 1024  # a config file may hold at most this (a real one: about 2 KiB)
MAX_CONFIG_DEPTH = 32  # mappings and lists inside one another (a real config: 3)
MAX_CONFIG_VALUES = 100_000  # values, counting each alias (*name) as what it repeats (real: ~60)


class ConfigError(ValueError):
    """A config that cannot be found, or a key that is unknown, missing or of the wrong type."""


def packaged_configs() -> list[str]:
    """The names of the configs shipped in the package (``kansas_city``, ...)."""
    return sorted(p.stem for p in CONFIG_DIR.glob("*.yaml"))


def resolve_config(name: str | Path) -> Path:
    """The config file for ``name``: an existing file, else a packaged config named by its bare
    name (``kansas_city`` or ``kansas_city.yaml``) or, for a recipe's stage in a subfolder, by
    its path in the package's configs (``expert_iteration/kansas_city``, or as a source
    checkout names it, ``configs/expert_iteration/kansas_city.yaml``: the command a zoo entry
    records works where the package is installed); a ``ConfigError`` saying which exist if
    neither."""
    path = Path(name)
    if path.is_file():
        return path
    text = str(name)
    stem = text.removesuffix(".yaml")
    known = packaged_configs()
    if stem in known and path.parent == Path("."):
        return CONFIG_DIR / f"{stem}.yaml"
    parts = Path(stem).parts[1:] if Path(stem).parts[:1] == ("configs",) else Path(stem).parts
    if len(parts) == 2 and ".." not in parts and not path.is_absolute() and \
            (CONFIG_DIR / parts[0] / f"{parts[1]}.yaml").is_file():
        return CONFIG_DIR / parts[0] / f"{parts[1]}.yaml"
    if path.is_dir():
        raise ConfigError(f"config {text} is a folder; give a YAML file, or --resume {text} "
                          "to continue the run in a run folder")
    close = difflib.get_close_matches(path.stem, known, 1)
    hint = f"did you mean {close[0]}? " if close else ""
    raise ConfigError(f"no config file {text}; {hint}give a YAML file or a packaged config: "
                      f"{', '.join(known)} (e.g. --config {known[0] if known else 'FILE'})")


@dataclass
class PPOConfig:
    """MaskablePPO hyperparameters (sb3-contrib names)."""

    learning_rate: float = 3e-4
    n_steps: int = 128  # rollout length per game slot; the rollout is n_steps * n_envs
    batch_size: int = 1024
    n_epochs: int = 4
    gamma: float = 0.995
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    net_arch: list[int] = field(default_factory=lambda: [256, 256])  # actor and critic each
    activation: str = "tanh"  # tanh or relu


@dataclass
class PoolConfig:
    """Opponent pool: a weight per group; a group without policies is never drawn."""

    random: float = 1.0
    heuristic: float = 1.0  # dropped with a warning while the game has no heuristic bot
    snapshots: float = 2.0  # frozen copies of the learner, split evenly
    latest: float = 1.0  # the current learner itself
    policies: dict[str, float] = field(default_factory=dict)  # spec ("zoo:...", path) -> weight
    snapshot_every: int = 50_000  # learner steps between snapshots
    max_snapshots: int = 10  # oldest dropped beyond this
    # how snapshot seats are filled: "rollout" (one snapshot, drawn uniformly at each rollout's
    # start, plays every snapshot seat of that rollout: one batched forward pass a round) or
    # "seat" (a snapshot drawn per seat and episode: one forward pass per snapshot a round; the
    # default, so that a config written before this key means what it meant)
    snapshot_draw: str = "seat"


@dataclass
class EvalConfig:
    """Periodic evaluation: the learner (greedy) in one seat, seats rotated."""

    every: int = 50_000  # learner steps between evaluations
    games: int = 200  # per opponent, per evaluation
    final_games: int = 1000  # per opponent, at the end of the run
    opponents: list[str] = field(default_factory=lambda: ["random", "heuristic"])


@dataclass
class PretrainConfig:
    """Behaviour cloning from a teacher before self-play (``games: 0`` turns it off)."""

    teacher: str = "heuristic"  # a load_policy spec
    games: int = 0  # teacher-only games to imitate
    epochs: int = 4
    batch_size: int = 512
    learning_rate: float = 1e-3
    value_coef: float = 0.5  # the critic is fitted to the teacher games' returns too
    # true: a teacher that breaks ties at random and lists its tied moves
    # (``act_batch_with_ties``) is imitated with soft targets: the cross-entropy to the uniform
    # distribution over its tied moves, so the clone learns the set, not the coin; false (the
    # default, as before this key): its played moves only
    soft_targets: bool = False
    # share of the seats that a uniformly random player takes in the teacher's games (engine:
    # batched; competitive games): only the teacher's seats are imitated, and they then include
    # positions that weaker opponents bring about (the teacher alone never reaches them)
    random_seats: float = 0.0


@dataclass
class TrainConfig:
    """One self-play training run."""

    env_id: str
    env_options: dict[str, Any] = field(default_factory=dict)
    seed: int = 0
    total_timesteps: int = 500_000  # learner decisions
    n_envs: int = 32  # games played side by side in one seat VecEnv
    # "batched": the numba engine (BatchedSeatVecEnv, evaluations and cloning games on
    # cahoots_envs.vector; numba comes with the train extra), several times faster; "reference"
    # (the default, so that a config written before this key means what it meant): the Python
    # engine (SeatVecEnv)
    engine: str = "reference"
    learner_seat: int | None = None  # None: a random seat each game
    team: bool = False  # cooperative games: one shared policy plays every seat
    reward_scale: float = 1.0  # multiplies training rewards (env_options.reward_mode sets their kind)
    torch_threads: int = 1
    checkpoint_every: int = 100_000  # MaskablePPO: learner steps between checkpoints
    # expert iteration and every-seat PPO: minutes between checkpoints (0: every iteration)
    checkpoint_minutes: float = 0.0
    checkpoint_keep: int = 3  # checkpoints kept in checkpoints/resume/ (older ones removed)
    progress_bar: bool = True
    description: str = ""
    ppo: PPOConfig = field(default_factory=PPOConfig)
    pool: PoolConfig = field(default_factory=PoolConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)
    pretrain: PretrainConfig = field(default_factory=PretrainConfig)
    # the training algorithm (cahoots_envs.training.algorithms); "maskable_ppo", the default,
    # reads ppo, pool and pretrain above
    algorithm: str = "maskable_ppo"
    # other algorithms' own sections, by name, as the dataclasses they registered (a config
    # writes them as top-level keys: ``my_algo: {...}``)
    sections: dict[str, Any] = field(default_factory=dict)

    def game_options(self) -> dict[str, Any]:
        """``env_options`` less ``render_mode``: the game's own options, as the batched engine
        and search take them."""
        return {k: v for k, v in self.env_options.items() if k != "render_mode"}

    def as_written(self) -> dict[str, Any]:
        """The config as a run's ``config.yaml`` holds it: ``ppo`` and ``pool`` in the section
        of its algorithm (``sections: {maskable_ppo: {ppo: ..., pool: ...}}``)."""
        data = to_dict(self)
        own = data["sections"].setdefault(self.algorithm, {})
        own.update({key: data.pop(key) for key in ALGORITHM_KEYS})
        return data


# settings a config writes in its algorithm's section (``maskable_ppo: {ppo: {...}}``), loaded
# as the config's own; at its top level (the layout before 0.3.0) with a DeprecationWarning
ALGORITHM_KEYS = ("ppo", "pool")


# name -> an algorithm's config section: its dataclass, or a function importing it
SECTIONS: dict[str, type | typing.Callable[[], type]] = {}


def register_section(name: str, section: type | typing.Callable[[], type]) -> None:
    """A top-level config key ``name`` whose mapping is validated into dataclass ``section``
    (or the dataclass the function ``section`` returns, called when a config names the section)
    and kept in ``config.sections[name]`` (how an algorithm adds its settings)."""
    if isinstance(section, type) and not dataclasses.is_dataclass(section) or \
            not callable(section):
        raise ValueError(f"a config section is a dataclass, got {section!r}")
    if name in {f.name for f in dataclasses.fields(TrainConfig)}:
        raise ValueError(f"{name!r} is a config key already")
    SECTIONS[name] = section


def section_class(name: str) -> type:
    """The dataclass of the registered config section ``name`` (imported on first use)."""
    section = SECTIONS[name]
    if not dataclasses.is_dataclass(section):
        section = section()
        if not (isinstance(section, type) and dataclasses.is_dataclass(section)):
            raise ConfigError(f"{name}: its algorithm registered {section!r} as the section, "
                              "not a dataclass")
        SECTIONS[name] = section
    return section  # type: ignore[return-value]


def _type_name(tp: Any) -> str:
    return getattr(tp, "__name__", None) or str(tp).replace("typing.", "")


def _convert(value: Any, tp: Any, key: str) -> Any:
    origin = typing.get_origin(tp)
    if dataclasses.is_dataclass(tp):
        if not isinstance(value, dict):
            raise ConfigError(f"{key}: expected a mapping of {_type_name(tp)} fields, got {value!r}")
        return from_dict(tp, value, key + ".")
    if origin in (Union, types.UnionType):
        args = typing.get_args(tp)
        if value is None and type(None) in args:
            return None
        errors = []
        for arg in args:
            if arg is type(None):
                continue
            try:
                return _convert(value, arg, key)
            except ConfigError as exc:
                errors.append(str(exc))
        raise ConfigError(f"{key}: {value!r} is not {' or '.join(map(_type_name, args))}")
    if origin is list:
        (item,) = typing.get_args(tp)
        if not isinstance(value, list):
            raise ConfigError(f"{key}: expected a list, got {value!r}")
        return [_convert(v, item, f"{key}[{i}]") for i, v in enumerate(value)]
    if origin is dict:
        kt, vt = typing.get_args(tp)
        if not isinstance(value, dict):
            raise ConfigError(f"{key}: expected a mapping, got {value!r}")
        return {_convert(k, kt, f"{key} key"): _convert(v, vt, f"{key}.{k}") for k, v in value.items()}
    if tp is Any:
        return value
    if tp is bool:
        if not isinstance(value, bool):
            raise ConfigError(f"{key}: expected true or false, got {value!r}")
        return value
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{key}: expected an int, got {value!r}")
        return value
    if tp is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(f"{key}: expected a number, got {value!r}")
        return float(value)
    if tp is str:
        if not isinstance(value, str):
            raise ConfigError(f"{key}: expected a string, got {value!r}")
        return value
    raise ConfigError(f"{key}: unsupported field type {tp}")


def from_dict(cls: Any, data: dict[str, Any], prefix: str = "") -> Any:
    """Build dataclass ``cls`` from ``data``, checking every key and type."""
    hints = typing.get_type_hints(cls)
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - names, key=str)
    if unknown:
        guesses = [difflib.get_close_matches(str(k), names, 1) for k in unknown]
        hint = "; ".join(f"did you mean {prefix + g[0]}?" for g in guesses if g)
        raise ConfigError(
            f"unknown config key{'s' if len(unknown) > 1 else ''} "
            f"{', '.join(prefix + str(k) for k in unknown)}; {hint + ' ' if hint else ''}"
            f"{prefix.rstrip('.') or 'top-level'} keys are {', '.join(sorted(names))}"
        )
    kwargs = {}
    for f in dataclasses.fields(cls):
        if f.name in data:
            kwargs[f.name] = _convert(data[f.name], hints[f.name], prefix + f.name)
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise ConfigError(f"missing config key {prefix + f.name}")
    return cls(**kwargs)


def load_config(path: str | Path) -> TrainConfig:
    """The config in YAML file ``path``, or the packaged config of that name (``kansas_city``)."""
    path = resolve_config(path)
    data = read_yaml(path)
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: a config is a mapping of keys, got {type(data).__name__}")
    return config_from_dict(data)


def config_from_dict(data: dict[str, Any]) -> TrainConfig:
    """A checked ``TrainConfig`` from a config's mapping (the algorithms' sections included)."""
    data = dict(data)
    written = data.pop("sections", None) or {}  # as to_dict writes them (a run's config.yaml)
    if not isinstance(written, dict):
        raise ConfigError(f"sections: expected a mapping, got {written!r}")
    own = algorithm_settings(data, written := dict(written))
    sections = {name: from_dict(section_class(name), _mapping(data.pop(name), name), name + ".")
                for name in list(SECTIONS) if name in data}
    for name, value in written.items():
        if name not in SECTIONS:
            raise ConfigError(f"sections.{name}: no algorithm registered that section; "
                              f"sections: {', '.join(sorted(SECTIONS)) or 'none'}")
        sections[name] = from_dict(section_class(name), _mapping(value, name), name + ".")
    config = from_dict(TrainConfig, data)
    config.sections = sections
    for key, value in own.items():
        setattr(config, key, value)
    check(config)
    return config


def algorithm_settings(data: dict[str, Any], written: dict[str, Any]) -> dict[str, Any]:
    """``ALGORITHM_KEYS`` taken out of the section of the config's algorithm (``<name>:`` or,
    in a run's config.yaml, ``sections: {<name>: ...}``; both mappings changed in place), as
    the dataclasses ``TrainConfig`` keeps them in; given at the top level instead (left there),
    a DeprecationWarning."""
    name = data.get("algorithm", "maskable_ppo")
    own: dict[str, Any] = {}
    if not isinstance(name, str):
        return own  # from_dict says what is wrong with it
    old = [key for key in ALGORITHM_KEYS if key in data]
    hints = typing.get_type_hints(TrainConfig)
    for where, mapping in (("", data), ("sections.", written)):
        if name not in mapping:
            continue
        section = dict(_mapping(mapping[name], where + name))
        for key in ALGORITHM_KEYS:
            if key in section:
                if key in data:
                    raise ConfigError(f"{key} is given twice, at the top level and in {where}"
                                      f"{name}; keep the one in {name}")
                own[key] = _convert(section.pop(key), hints[key], f"{where}{name}.{key}")
        if name not in SECTIONS and section:
            raise ConfigError(f"unknown config key{'s' if len(section) > 1 else ''} "
                              f"{', '.join(f'{name}.{k}' for k in section)}; {name}'s section "
                              f"holds {' and '.join(ALGORITHM_KEYS)}")
        if name in SECTIONS:
            mapping[name] = section
        else:  # an algorithm without settings of its own: nothing left to keep
            del mapping[name]
    if old:
        warnings.warn(f"config: {' and '.join(old)} at the top level of a config is deprecated; "
                      f"write {'them' if len(old) > 1 else 'it'} in the algorithm's own section "
                      f"({name}: {{{', '.join(f'{k}: ...' for k in old)}}})", DeprecationWarning,
                      stacklevel=4)
    return own


def _mapping(value: Any, key: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ConfigError(f"{key}: expected a mapping of settings, got {value!r}")
    return value


def read_yaml(path: Path) -> Any:
    """The YAML document in ``path``; a ``ConfigError`` of one line for a file that is not one
    (unreadable, over ``MAX_CONFIG_BYTES``, not UTF-8, not YAML), or that nests deeper than
    ``MAX_CONFIG_DEPTH`` or holds more than ``MAX_CONFIG_VALUES`` values: both are found in the
    parser's events, before anything is built (building recurses once per level, and an alias
    of an alias of ... repeats a value exponentially often)."""
    import yaml  # pyyaml: the train extra (configs built from a mapping need none)

    try:
        with path.open("rb") as f:
            raw = f.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise ConfigError(f"cannot read config {path}: {exc.strerror or exc}") from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise ConfigError(f"{path} holds more than {MAX_CONFIG_BYTES // 1024} KiB, and a config is "
                          "a short YAML file (about 2 KiB); give the config file")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: byte {exc.start} is not UTF-8 text; a config is a YAML text "
                          "file (e.g. configs/kansas_city.yaml)") from None
    try:
        _check_size(yaml.parse(text, Loader=yaml.SafeLoader), path)
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML: {_yaml_problem(exc)}") from None


def _check_size(events: Any, path: Path) -> None:
    """Refuse a document nested too deep or too large (see ``read_yaml``), event by event."""
    import yaml  # the train extra

    sizes: dict[str, int] = {}  # anchor -> the values under it, aliases expanded
    open_: list[list[Any]] = []  # [anchor, values so far] of each mapping and list not yet closed
    for event in events:
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            open_.append([event.anchor, 1])
            if len(open_) > MAX_CONFIG_DEPTH:
                raise ConfigError(
                    f"{path}: line {event.start_mark.line + 1}: nested more than "
                    f"{MAX_CONFIG_DEPTH} levels deep; a config nests a few (e.g. ppo: "
                    "{net_arch: [256, 256]})")
            continue
        if isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            anchor, count = open_.pop()
        elif isinstance(event, yaml.ScalarEvent):
            anchor, count = event.anchor, 1
        elif isinstance(event, yaml.AliasEvent):
            anchor, count = None, sizes.get(event.anchor, 1)
        else:
            continue
        if anchor is not None:
            sizes[anchor] = count
        if open_:
            open_[-1][1] += count
            count = open_[-1][1]
        if count > MAX_CONFIG_VALUES:
            raise ConfigError(
                f"{path}: line {event.start_mark.line + 1}: more than {MAX_CONFIG_VALUES:,} values "
                "(aliases counted as what they repeat); a config holds a few dozen")


def _yaml_problem(exc: Exception) -> str:
    """A YAML error on one line: what is wrong, and where."""
    problem = getattr(exc, "problem", None)
    mark = getattr(exc, "problem_mark", None)
    if not problem:  # a character the reader refuses: no mark, a position
        position = getattr(exc, "position", None)
        return str(exc).split("\n")[0] + ("" if position is None else f" (character {position})")
    context = getattr(exc, "context", None)
    where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
    return f"{where}{problem}" + (f" ({context})" if context else "")


GIB = 1024**3
# a network's training memory per parameter: float32 weights, gradients and Adam's two moments
BYTES_PER_PARAMETER = 4 * 4
# the algorithms that draw the learner's opponents from ``pool``
POOL_ALGORITHMS = ("maskable_ppo", "every_seat_ppo")


def available_memory() -> int | None:
    """Bytes of memory this machine has available now (``MemAvailable`` in ``/proc/meminfo``,
    else the physical memory), or None where neither can be read."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_PHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (OSError, ValueError, AttributeError):
        return None


def mlp_parameters(sizes: list[int]) -> int:
    """The weights and biases of a chain of dense layers of ``sizes`` (inputs first)."""
    return sum(a * b + b for a, b in itertools.pairwise(sizes))


def check_memory(needs: dict[str, tuple[int, str]], fix: str,
                 available: int | None = None) -> None:
    """``ConfigError`` when the parts of a run in ``needs`` (``{part: (bytes, how estimated)}``)
    add up to more memory than this machine has available, with the estimate; ``fix``: what to
    lower."""
    available = available_memory() if available is None else available
    total = sum(nbytes for nbytes, _ in needs.values())
    if available is None or total <= available:
        return
    parts = "; ".join(f"{part} {nbytes / GIB:,.1f} GiB ({how})"
                      for part, (nbytes, how) in needs.items())
    raise ConfigError(f"this run needs about {total / GIB:,.1f} GiB of memory ({parts}), more "
                      f"than the {available / GIB:,.1f} GiB this machine has available; {fix}")


def check_env(config: TrainConfig) -> Any:
    """The env of ``env_id`` and ``env_options`` resolved (``EnvInfo``), or a ``ConfigError``
    naming the key and what it accepts."""

    try:
        game_spec(config.env_id)
    except ValueError as e:  # RetiredEnvError included
        raise ConfigError(f"env_id: {e}") from None
    try:
        return env_info(config.env_id, config.game_options())
    except ValueError as e:
        raise ConfigError(f"env_options: {e}") from None


def check_with_env(config: TrainConfig) -> None:
    """What can be checked only with the env known: the learner's seat, the pool, the policies
    the run loads (each loaded as the run will: a network for another player count, say, is
    refused here) and the memory the network and the rollouts need."""

    info = check_env(config)
    players = int(info.game_options["num_players"])
    if config.learner_seat is not None and not 0 <= config.learner_seat < players:
        raise ConfigError(f"learner_seat must be a seat from 0 to {players - 1} of "
                          f"{config.env_id}'s {players} players (or null: a random seat each "
                          f"game), got {config.learner_seat}")
    p = config.pool
    weights = [p.random, p.heuristic, p.snapshots, p.latest, *p.policies.values()]
    # every-seat PPO plays pool games only where the network does not hold every seat
    self_play = getattr(config.sections.get(config.algorithm), "self_play_share", 0.0)
    if config.algorithm in POOL_ALGORITHMS and not config.team and self_play < 1 and \
            not any(weights):
        raise ConfigError("pool: every weight is 0 (random, heuristic, snapshots, latest, "
                          "policies), so no opponent can be drawn; give one a weight > 0")
    specs = {f"pool.policies[{k!r}]": k for k, w in p.policies.items() if w > 0}
    specs.update({f"eval.opponents[{i}]": spec for i, spec in enumerate(config.eval.opponents)
                  if spec not in ("random", "heuristic")})  # left out where the game lacks them
    if config.pretrain.games > 0:
        specs["pretrain.teacher"] = config.pretrain.teacher
    for key, spec in specs.items():
        try:
            load_policy(spec, config.env_id, config.game_options())
        except (ValueError, OSError) as e:
            raise ConfigError(f"{key}: {e}") from None
    sizes = [info.layout.size, *config.ppo.net_arch]
    parameters = mlp_parameters(sizes + [info.num_actions]) + mlp_parameters(sizes + [1])
    row = info.layout.size + info.num_actions + 8  # observation, mask, reward, value, ...
    check_memory({
        "network": (parameters * BYTES_PER_PARAMETER,
                    (f"{parameters:,} parameters of ppo.net_arch {config.ppo.net_arch} x 4 bytes "
                    "x 4: weights, gradients, Adam's moments")),
        "rollouts": (config.n_envs * config.ppo.n_steps * row * 4,
                     (f"n_envs {config.n_envs:,} x ppo.n_steps {config.ppo.n_steps:,} x "
                     f"{row:,} numbers of an observation and its mask x 4 bytes")),
    }, "lower ppo.net_arch, n_envs or ppo.n_steps")


def check(config: TrainConfig) -> None:
    """Checks beyond types: values that cannot work."""
    positive = {
        "reward_scale": config.reward_scale,
        "total_timesteps": config.total_timesteps, "n_envs": config.n_envs,
        "ppo.n_steps": config.ppo.n_steps, "ppo.batch_size": config.ppo.batch_size,
        "ppo.n_epochs": config.ppo.n_epochs, "pool.snapshot_every": config.pool.snapshot_every,
        "eval.every": config.eval.every, "checkpoint_every": config.checkpoint_every,
        "checkpoint_keep": config.checkpoint_keep,
        "torch_threads": config.torch_threads, "eval.games": config.eval.games,
        "eval.final_games": config.eval.final_games, "pretrain.epochs": config.pretrain.epochs,
        "pretrain.batch_size": config.pretrain.batch_size,
        "pool.max_snapshots": config.pool.max_snapshots,
        "ppo.learning_rate": config.ppo.learning_rate,
        "pretrain.learning_rate": config.pretrain.learning_rate,
        "ppo.clip_range": config.ppo.clip_range, "ppo.max_grad_norm": config.ppo.max_grad_norm,
    }
    for key, value in positive.items():
        if not value > 0 or not math.isfinite(value):  # NaN fails both
            raise ConfigError(f"{key} must be positive, got {value}")
    at_least_zero = {
        "pretrain.games": config.pretrain.games, "checkpoint_minutes": config.checkpoint_minutes,
        "ppo.ent_coef": config.ppo.ent_coef,
        "ppo.vf_coef": config.ppo.vf_coef, "pretrain.value_coef": config.pretrain.value_coef,
        "pool.random": config.pool.random, "pool.heuristic": config.pool.heuristic,
        "pool.snapshots": config.pool.snapshots, "pool.latest": config.pool.latest,
        **{f"pool.policies[{k!r}]": w for k, w in config.pool.policies.items()},
    }
    for key, value in at_least_zero.items():
        if not value >= 0 or not math.isfinite(value):
            raise ConfigError(f"{key} must be 0 or more, got {value}")
    for key, value in {"ppo.gamma": config.ppo.gamma,
                       "ppo.gae_lambda": config.ppo.gae_lambda}.items():
        if not 0.0 <= value <= 1.0:
            raise ConfigError(f"{key} must be in [0, 1], got {value}")
    if any(not isinstance(w, int) or w <= 0 for w in config.ppo.net_arch) or not config.ppo.net_arch:
        raise ConfigError(f"ppo.net_arch must list positive layer sizes, e.g. [256, 256]; got "
                          f"{config.ppo.net_arch}")
    if config.seed < 0:  # as --seed: numpy's generators take seeds from 0
        raise ConfigError(f"seed must be 0 or more, got {config.seed}")
    choices = {"engine": (config.engine, ("batched", "reference")),
               "pool.snapshot_draw": (config.pool.snapshot_draw, ("rollout", "seat"))}
    for key, (choice, allowed) in choices.items():
        if choice not in allowed:
            raise ConfigError(f"{key}: {choice!r} is not one of {', '.join(map(repr, allowed))}")
    if not 0.0 <= config.pretrain.random_seats < 1.0:
        raise ConfigError(f"pretrain.random_seats: {config.pretrain.random_seats} is not in [0, 1)")
    if config.pretrain.random_seats > 0 and config.engine != "batched":
        raise ConfigError("pretrain.random_seats needs engine: batched")
    if config.ppo.activation not in ("tanh", "relu"):
        raise ConfigError(f"ppo.activation: {config.ppo.activation!r} is not 'tanh' or 'relu'")
    check_with_env(config)
    for section in config.sections.values():  # what a section can check only beside the env
        hook = getattr(section, "check_config", None)
        if hook is not None:
            hook(config)


def to_dict(config: TrainConfig) -> dict[str, Any]:
    return dataclasses.asdict(config)
