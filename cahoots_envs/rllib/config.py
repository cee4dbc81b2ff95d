"""RLlib PPO configs: multi-agent self-play on ``CahootsMultiAgentEnv``, from Python or YAML.

>>> from cahoots_envs.rllib import ppo_config
>>> config = ppo_config("texas_euchre-v1", {"num_players": 4}, mode="shared")
>>> algo = config.build_algo()

Two self-play modes, each with optional bot seats (``bots``: policies played inside the env):

- ``shared``: one policy, ``shared``, plays every learning seat, and every seat's decisions are
  learned from.
- ``snapshots``: a ``learner`` policy in one seat against frozen copies of itself in the others
  (``snapshot_1`` .. ``snapshot_{L-1}``, one per other learning seat). They start as copies of
  the learner, and every ``snapshot_every`` training iterations a callback copies the learner's
  current weights over the oldest one, so the table holds snapshots of different ages;
  ``policies_to_train`` is ``["learner"]``. Seats rotate each game (the learner meets every seat).

The YAML form (``python -m cahoots_envs.rllib.train --config configs/rllib/<game>.yaml``) is
``RLlibTrainConfig``: an unknown key or a value of the wrong type is one ``ConfigError`` line
naming the key (dotted path) and the closest known one, as for the MaskablePPO configs.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cahoots_envs.training.config import ConfigError, from_dict

MODES = ("shared", "snapshots")
ACTIVATIONS = ("tanh", "relu")
SHARED = "shared"
LEARNER = "learner"


@dataclass
class PPOSettings:
    """RLlib PPO hyperparameters (``PPOConfig.training`` names; ``lambda_`` is GAE's lambda)."""

    lr: float = 3e-4
    gamma: float = 0.995
    lambda_: float = 0.95
    clip_param: float = 0.2
    entropy_coeff: float = 0.01
    vf_loss_coeff: float = 0.5
    kl_coeff: float = 0.2
    num_epochs: int = 4
    minibatch_size: int = 1024
    train_batch_size: int = 8192  # env steps per training iteration (per learner)
    grad_clip: float = 0.5


@dataclass
class ModelSettings:
    """The MLP of each policy: ``hidden`` sizes for the actor and (separately) the critic."""

    hidden: list[int] = field(default_factory=lambda: [256, 256])
    activation: str = "tanh"  # tanh or relu (what the exported numpy policy supports)


@dataclass
class SelfPlaySettings:
    mode: str = "shared"  # shared or snapshots
    snapshot_every: int = 5  # training iterations between snapshot refreshes (snapshots mode)
    bots: list[str] = field(default_factory=list)  # load_policy specs, played inside the env


@dataclass
class ResourceSettings:
    """Where sampling and learning run: 0 env runners and 0 learners run both in the driver."""

    num_env_runners: int = 0
    num_envs_per_env_runner: int = 8
    num_cpus_per_env_runner: float = 1.0
    num_learners: int = 0
    torch_threads: int = 1  # the driver's torch threads (local learner and sampling)


@dataclass
class EvalSettings:
    """The exported (numpy, greedy) policy in one seat against each opponent, seats rotated."""

    every: int = 10  # training iterations between evaluations (0: only the final one)
    games: int = 200
    final_games: int = 1000
    opponents: list[str] = field(default_factory=lambda: ["random", "heuristic"])


@dataclass
class RLlibTrainConfig:
    """One RLlib self-play run (``python -m cahoots_envs.rllib.train``)."""

    env_id: str
    env_options: dict[str, Any] = field(default_factory=dict)
    seed: int = 0
    total_timesteps: int = 1_000_000  # env steps (decisions of the learning seats)
    reward_scale: float = 1.0  # multiplies training rewards (env_options.reward_mode: their kind)
    time_limit: float = 0.0  # seconds of training after which the run stops (0: none)
    checkpoint: bool = True  # an RLlib checkpoint of the algorithm at the end
    description: str = ""
    ppo: PPOSettings = field(default_factory=PPOSettings)
    model: ModelSettings = field(default_factory=ModelSettings)
    self_play: SelfPlaySettings = field(default_factory=SelfPlaySettings)
    resources: ResourceSettings = field(default_factory=ResourceSettings)
    eval: EvalSettings = field(default_factory=EvalSettings)

    # what the shared run plumbing (``cahoots_envs.training.run``) reads besides the fields
    @property
    def team(self) -> bool:
        """A cooperative game: the policy is evaluated as a team in every seat."""
        from cahoots_envs.policies.envinfo import env_info

        return bool(env_info(self.env_id, self.env_options).game_cls.COOPERATIVE)

    @property
    def engine(self) -> str:
        """Evaluations play on the reference engine (the RLlib environment has no numba)."""
        return "reference"


def check(config: RLlibTrainConfig) -> None:
    """Checks beyond types: values that cannot work (``ConfigError``, one line)."""
    from cahoots_envs.errors import IncompatiblePolicyError
    from cahoots_envs.policies.envinfo import env_info
    from cahoots_envs.policies.loading import load_policy

    try:
        info = env_info(config.env_id, config.env_options)
    except (ValueError, KeyError) as exc:
        raise ConfigError(f"env_id/env_options: {exc}") from None
    positive = {
        "total_timesteps": config.total_timesteps, "ppo.num_epochs": config.ppo.num_epochs,
        "ppo.minibatch_size": config.ppo.minibatch_size,
        "ppo.train_batch_size": config.ppo.train_batch_size, "ppo.lr": config.ppo.lr,
        "reward_scale": config.reward_scale,
        "self_play.snapshot_every": config.self_play.snapshot_every,
        "resources.num_envs_per_env_runner": config.resources.num_envs_per_env_runner,
        "resources.torch_threads": config.resources.torch_threads,
        "eval.games": config.eval.games, "eval.final_games": config.eval.final_games,
    }
    for key, value in positive.items():
        if value <= 0:
            raise ConfigError(f"{key} must be positive, got {value}")
    not_negative = {"time_limit": config.time_limit, "eval.every": config.eval.every,
                    "resources.num_env_runners": config.resources.num_env_runners,
                    "resources.num_learners": config.resources.num_learners,
                    "resources.num_cpus_per_env_runner": config.resources.num_cpus_per_env_runner}
    for key, value in not_negative.items():
        if value < 0:
            raise ConfigError(f"{key} must be 0 or more, got {value}")
    if config.ppo.minibatch_size > config.ppo.train_batch_size:
        raise ConfigError(f"ppo.minibatch_size {config.ppo.minibatch_size} is larger than "
                          f"ppo.train_batch_size {config.ppo.train_batch_size}")
    if config.model.activation not in ACTIVATIONS:
        raise ConfigError(f"model.activation: {config.model.activation!r} is not 'tanh' or "
                          "'relu' (what an exported policy supports)")
    if not config.model.hidden or any(h <= 0 for h in config.model.hidden):
        raise ConfigError(f"model.hidden: layer sizes must be a non-empty list of positive "
                          f"ints, got {config.model.hidden}")
    if config.self_play.mode not in MODES:
        raise ConfigError(f"self_play.mode: {config.self_play.mode!r} is not "
                          + " or ".join(repr(m) for m in MODES))
    players = info.options["num_players"]
    learners = players - len(config.self_play.bots)
    if learners < 1:
        raise ConfigError(f"self_play.bots: {len(config.self_play.bots)} bots leave no seat to "
                          f"learn in a {players}-player game")
    if config.self_play.mode == "snapshots" and learners < 2:
        raise ConfigError("self_play.mode 'snapshots' needs at least two learning seats (the "
                          f"learner and a snapshot); with {len(config.self_play.bots)} bots in a "
                          f"{players}-player game there is {learners}: use 'shared'")
    specs = [*config.self_play.bots, *config.eval.opponents]
    for spec in specs:
        try:
            load_policy(spec, info.env_id, info.options, seed=0)
        except (ValueError, IncompatiblePolicyError) as exc:
            raise ConfigError(f"policy {spec!r}: {exc}") from None


def load_config(path: str | Path) -> RLlibTrainConfig:
    """The config in YAML file ``path`` (``ConfigError``, one line, when it cannot be used)."""
    import yaml

    path = Path(path)
    if path.is_dir():
        raise ConfigError(f"config {path} is a folder; give a YAML file such as "
                          "configs/rllib/texas_euchre.yaml")
    if not path.is_file():
        here = sorted(p.stem for p in (Path(__file__).resolve().parents[1] / "configs" / "rllib")
                      .glob("*.yaml"))
        raise ConfigError(f"no config file {path}; give a YAML file, e.g. configs/rllib/"
                          f"{here[0] if here else '<game>'}.yaml (games: {', '.join(here)})")
    try:
        data = yaml.safe_load(path.read_text())
    except OSError as exc:
        raise ConfigError(f"cannot read config {path}: {exc.strerror or exc}") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML: {' '.join(str(exc).split())}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: a config is a mapping of keys, got {type(data).__name__}")
    config: RLlibTrainConfig = from_dict(RLlibTrainConfig, data)
    check(config)
    return config


def to_dict(config: RLlibTrainConfig) -> dict[str, Any]:
    return dataclasses.asdict(config)


# ---- the RLlib config ----------------------------------------------------------------------
def policy_ids(mode: str, learning_seats: int) -> list[str]:
    """The policies (RLModules) of a mode: ``shared``, or ``learner`` and its snapshots."""
    if mode == SHARED:
        return [SHARED]
    return [LEARNER] + [f"snapshot_{k}" for k in range(1, learning_seats)]


def map_shared(agent_id: Any, episode: Any = None, **kwargs: Any) -> str:
    """Every agent plays the ``shared`` policy."""
    return SHARED


def map_snapshots(agent_id: Any, episode: Any = None, **kwargs: Any) -> str:
    """``player_0`` is the learner, ``player_k`` plays ``snapshot_k`` (seats rotate each game)."""
    k = int(str(agent_id).rpartition("_")[2])
    return LEARNER if k == 0 else f"snapshot_{k}"


def set_module_weights(algorithm: Any, weights: Mapping[str, Any]) -> None:
    """Give RLModules new weights on the learners and on every env runner at once.

    The env runners get the modules' inference-only state without a weights sequence number,
    which makes them take it now: a state with the learners' current number would be skipped as
    already seen, and the frozen modules would only reach the runners with the next update."""
    group = algorithm.learner_group
    group.set_weights(dict(weights))
    state = group.get_state(components=[f"learner/rl_module/{mid}" for mid in weights],
                            inference_only=True)["learner"]["rl_module"]

    def take(runner: Any) -> None:
        runner.set_state({"rl_module": state})

    algorithm.env_runner_group.foreach_env_runner(take, local_env_runner=True)


def learner_weights(algorithm: Any) -> Any:
    return algorithm.learner_group.get_weights(module_ids=[LEARNER])[LEARNER]


def copy_learner_to_snapshots(algorithm: Any, snapshots: Sequence[str], **kwargs: Any) -> None:
    """``on_algorithm_init``: every snapshot starts as the learner's initial weights."""
    weights = learner_weights(algorithm)
    set_module_weights(algorithm, {sid: weights for sid in snapshots})


def refresh_snapshot(algorithm: Any, snapshots: Sequence[str], every: int,
                     result: Mapping[str, Any] | None = None, **kwargs: Any) -> None:
    """``on_train_result``: every ``every`` iterations the learner's weights replace the oldest
    snapshot (``snapshot_1``, then ``snapshot_2``, ..., round and round)."""
    iteration = int(algorithm.iteration)
    if not snapshots or iteration % every:
        return
    target = snapshots[(iteration // every - 1) % len(snapshots)]
    set_module_weights(algorithm, {target: learner_weights(algorithm)})


def ppo_config(
    env_id: str,
    options: Mapping[str, Any] | None = None,
    *,
    mode: str = "shared",
    bots: Sequence[str] = (),
    snapshot_every: int = 5,
    hidden: Sequence[int] = (256, 256),
    activation: str = "tanh",
    reward_scale: float = 1.0,
    seed: int | None = 0,
    ppo: PPOSettings | Mapping[str, Any] | None = None,
    resources: ResourceSettings | Mapping[str, Any] | None = None,
) -> Any:
    """An RLlib ``PPOConfig`` for self-play on ``env_id`` (see the module docstring).

    ``ppo`` and ``resources`` take ``PPOSettings`` / ``ResourceSettings`` or a dict of their
    fields; anything else can be set on the returned config (``config.training(...)``)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from cahoots_envs.policies.envinfo import env_info
    from cahoots_envs.rllib.env import CahootsMultiAgentEnv
    from cahoots_envs.rllib.module import MaskedPPOTorchRLModule

    if mode not in MODES:
        raise ValueError(f"mode {mode!r} is not " + " or ".join(repr(m) for m in MODES))
    if activation not in ACTIVATIONS:
        raise ValueError(f"activation {activation!r} is not 'tanh' or 'relu'")
    p = _settings(PPOSettings, ppo, "ppo")
    r = _settings(ResourceSettings, resources, "resources")
    info = env_info(env_id, options)
    learning_seats = info.options["num_players"] - len(bots)
    if learning_seats < 1 or (mode == "snapshots" and learning_seats < 2):
        raise ValueError(f"{len(bots)} bots in a {info.options['num_players']}-player game leave "
                         f"{learning_seats} learning seats; mode {mode!r} needs at least "
                         f"{2 if mode == 'snapshots' else 1}")
    env_config = {"env_id": info.env_id, "options": dict(options or {}), "bots": list(bots),
                  "rotate_seats": mode == "snapshots" or bool(bots), "reward_scale": reward_scale}
    ids = policy_ids(mode, learning_seats)
    model_config = {"fcnet_hiddens": list(hidden), "fcnet_activation": activation,
                    "head_fcnet_hiddens": [], "vf_share_layers": False}
    spec = MultiRLModuleSpec(rl_module_specs={
        pid: RLModuleSpec(module_class=MaskedPPOTorchRLModule, model_config=dict(model_config))
        for pid in ids})
    config = (
        PPOConfig()
        .environment(env=CahootsMultiAgentEnv, env_config=env_config)
        .env_runners(num_env_runners=r.num_env_runners,
                     num_envs_per_env_runner=r.num_envs_per_env_runner,
                     num_cpus_per_env_runner=r.num_cpus_per_env_runner)
        .learners(num_learners=r.num_learners)
        .rl_module(rl_module_spec=spec)
        .training(lr=p.lr, gamma=p.gamma, lambda_=p.lambda_, clip_param=p.clip_param,
                  entropy_coeff=p.entropy_coeff, vf_loss_coeff=p.vf_loss_coeff,
                  kl_coeff=p.kl_coeff, num_epochs=p.num_epochs, minibatch_size=p.minibatch_size,
                  train_batch_size_per_learner=p.train_batch_size, grad_clip=p.grad_clip)
        .debugging(seed=seed)
    )
    if mode == SHARED:
        config.multi_agent(policies=set(ids), policy_mapping_fn=map_shared,
                           policies_to_train=[SHARED])
    else:
        snapshots = ids[1:]
        config.multi_agent(policies=set(ids), policy_mapping_fn=map_snapshots,
                           policies_to_train=[LEARNER])
        config.callbacks(
            on_algorithm_init=functools.partial(copy_learner_to_snapshots, snapshots=snapshots),
            on_train_result=functools.partial(refresh_snapshot, snapshots=snapshots,
                                              every=snapshot_every))
    return config


def ppo_config_from(config: RLlibTrainConfig) -> Any:
    """``ppo_config`` for a YAML run config."""
    return ppo_config(config.env_id, config.env_options, mode=config.self_play.mode,
                      bots=config.self_play.bots, snapshot_every=config.self_play.snapshot_every,
                      hidden=config.model.hidden, activation=config.model.activation,
                      reward_scale=config.reward_scale, seed=config.seed, ppo=config.ppo,
                      resources=config.resources)


def trained_policy(mode: str) -> str:
    """The policy a run exports: ``shared`` or ``learner``."""
    return SHARED if mode == SHARED else LEARNER


def _settings(cls: Any, value: Any, name: str) -> Any:
    if value is None:
        return cls()
    if isinstance(value, cls):
        return value
    if isinstance(value, Mapping):
        try:
            return from_dict(cls, dict(value), name + ".")
        except ConfigError as exc:
            raise ValueError(str(exc)) from None
    raise TypeError(f"{name}: give a {cls.__name__} or a dict of its fields, got {value!r}")
