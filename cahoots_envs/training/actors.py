"""The actors the training algorithms fit besides the flat MLP: the action-scoring network
(``policies/scoring.py``), its settings as a config gives them (``network: {type:
action_scoring, ...}`` in an algorithm's section), their checks, and ``ScoringActor``, which
builds the torch twin, clones a teacher into it, and exports the numpy policy that saves and
plays. Expert iteration and every-seat PPO both take it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from cahoots_envs.envinfo import env_info
from cahoots_envs.policies.loading import load_policy
from cahoots_envs.policies.scoring import ActionScoringPolicy, computed_features, segment_offsets
from cahoots_envs.training.config import (
    BYTES_PER_PARAMETER,
    ConfigError,
    TrainConfig,
    check_memory,
    mlp_parameters,
)
from cahoots_envs.training.imitation import clone_scorer
from cahoots_envs.training.run import Evaluator


def network_problems(network: Any) -> list[str]:
    """What is wrong with a section's ``network:`` setting (empty: the flat MLP of
    ``ppo.net_arch``; ``{type: action_scoring, ...}``: see ``SCORING_DEFAULTS``), one phrase
    each; checked as the config loads."""
    problems = []
    if not isinstance(network, dict):
        problems.append(f"network is a mapping (type: action_scoring, ...), got "
                        f"{network!r}")
    elif network:
        kind = network.get("type")
        unknown = sorted(set(network) - set(SCORING_DEFAULTS) - {"type"})
        if kind != "action_scoring":
            problems.append(f"network.type must be action_scoring (or leave network out "
                            f"for the MLP of ppo.net_arch), got {kind!r}")
        elif unknown:
            problems.append(f"network: unknown keys {', '.join(unknown)}; known: type, "
                            f"{', '.join(SCORING_DEFAULTS)}")
        else:
            merged = {**SCORING_DEFAULTS, **network}
            for name in ("trunk_sizes", "head_sizes"):
                sizes = merged[name]
                if not isinstance(sizes, list) or not sizes or \
                        not all(isinstance(x, int) and x >= 1 for x in sizes):
                    problems.append(f"network.{name} is a list of sizes >= 1, got {sizes!r}")
            if not isinstance(merged["embedding_size"], int) or merged["embedding_size"] < 1:
                problems.append(f"network.embedding_size must be >= 1, got "
                                f"{merged['embedding_size']!r}")
            if merged["activation"] not in ("relu", "tanh"):
                problems.append(f"network.activation is relu or tanh, got "
                                f"{merged['activation']!r}")
            if not isinstance(merged["action_segments"], list):
                problems.append("network.action_segments is a list of layout segments")
    return problems


def check_network(config: TrainConfig, network: dict[str, Any], section: str) -> None:
    """With the env known (as the config loads): the action-scoring network's segments and
    computed features exist for it (``ConfigError``, one line, if not)."""

    if not network:
        return
    try:
        info = env_info(config.env_id, config.game_options())
    except ValueError:
        return  # the env's own error is raised where the env is checked
    settings = {**SCORING_DEFAULTS, **network}
    offsets, record, _ = scoring_inputs(info, settings, section)
    trunk, emb = [info.layout.size, *settings["trunk_sizes"]], settings["embedding_size"]
    head = [trunk[-1] + emb + len(offsets) + (record["size"] if record else 0),
            *settings["head_sizes"], 1]
    parameters = mlp_parameters(trunk) + info.num_actions * emb + mlp_parameters(head) + \
        (info.num_actions * (trunk[-1] + 1) if settings["direct"] else 0)
    check_memory({"network": (
        parameters * BYTES_PER_PARAMETER,
        (f"{parameters:,} parameters of {section}.network (trunk_sizes "
        f"{settings['trunk_sizes']}, embedding_size {emb}, head_sizes {settings['head_sizes']}) "
        "x 4 bytes x 4: weights, gradients, Adam's moments"))},
        f"lower {section}.network's trunk_sizes, embedding_size or head_sizes")


def scoring_actor(config: TrainConfig, network: dict[str, Any], section: str,
                  algorithm: str) -> ScoringActor:
    """The ``ScoringActor`` of a section's ``network:`` setting (``type`` dropped)."""

    info = env_info(config.env_id, config.game_options())
    return ScoringActor(config, info, {k: v for k, v in network.items() if k != "type"},
                        section, algorithm)


# the action-scoring network's settings (``network:``), beside ``type: action_scoring``
SCORING_DEFAULTS: dict[str, Any] = {
    "trunk_sizes": [64],
    "embedding_size": 16,
    "head_sizes": [64],
    "activation": "relu",
    "direct": True,
    "action_segments": [],
    "computed": None,  # a per-move feature set the game offers (extras["play_features"])
}


def scoring_inputs(info: Any, settings: dict[str, Any],
                   section: str) -> tuple[list[int], Any, Any]:
    """What the action-scoring network of ``settings`` reads in ``info``'s env: its segments'
    offsets, its computed-features record (None without) and their function; ``ConfigError``
    (one line, naming the config ``section``) for a segment or feature set the env lacks."""

    try:
        offsets = segment_offsets(info.layout, settings["action_segments"], info.num_actions)
        if not settings["computed"]:
            return offsets, None, None
        record = {"game": info.spec.name, "name": str(settings["computed"]), "size": 0,
                  "num_players": int(info.options["num_players"])}
        function = computed_features(record)
    except ValueError as e:
        raise ConfigError(f"{section}.network: {e}") from None
    probe = np.zeros((1, info.layout.size), np.float32)
    record["size"] = int(function(probe, info.num_actions).shape[-1])
    return offsets, record, function


class ScoringActor:
    """The action-scoring network (``ScoringNet``; exported as an ``ActionScoringPolicy``)."""

    kind = "action_scoring"

    def __init__(self, config: TrainConfig, info: Any, settings: dict[str, Any], section: str,
                 algorithm: str) -> None:
        from cahoots_envs.training.scoring import ScoringNet  # imports torch (the train extra)

        self.config, self.info = config, info
        self.section, self.algorithm = section, algorithm  # for messages and the clone's log
        s = {**SCORING_DEFAULTS, **settings}
        self.settings = s
        self.offsets, self.record, self._features = scoring_inputs(info, s, section)
        size = 0 if self.record is None else int(self.record["size"])
        self.net = ScoringNet(info.layout.size, int(info.num_actions), self.offsets,
                              s["trunk_sizes"], s["embedding_size"], s["head_sizes"],
                              s["activation"], bool(s["direct"]), size)

    def policy(self, deterministic: bool = True, seed: int | None = None) -> Any:
        from cahoots_envs.training.scoring import export_policy  # torch (the train extra)

        return export_policy(self.net, self.settings["action_segments"], self.offsets,
                             self.record, deterministic=deterministic, seed=seed)

    def load(self, policy: Any) -> None:
        import torch  # the train extra

        tensors = {k: torch.from_numpy(np.asarray(v, np.float32)) for k, v in policy.tensors().items()}
        try:
            self.net.load_state_dict(tensors)
        except RuntimeError as e:
            raise ConfigError(f"{self.section}: the policy's weights do not fit network "
                              f"{self.settings}: {str(e).splitlines()[0]}") from None

    def start(self, spec: str) -> None:
        try:
            policy = load_policy(spec, self.config.env_id, self.config.env_options,
                                 seed=self.config.seed)
        except (ValueError, OSError) as e:
            raise ConfigError(f"{self.section}.start: {e}") from None
        if not isinstance(policy, ActionScoringPolicy) or not self._starts_from(policy.computed):
            raise ConfigError(f"{self.section}.start: {spec!r} is not an action-scoring policy with "
                              f"the computed features {self.record} (or a set they begin with)")
        if policy.computed == self.record:
            self.load(policy)
            return
        self.load_widened(policy)

    def _starts_from(self, computed: Any) -> bool:
        """Whether a policy reading ``computed`` starts this network: the same record, or a
        set the game declares this one begins with (``extras["play_feature_prefixes"]``)."""
        if computed == self.record:
            return True
        if computed is None or self.record is None:
            return False
        prefixes = self.info.spec.extras.get("play_feature_prefixes", {})
        same = {k: v for k, v in computed.items() if k not in ("name", "size")} == {
            k: v for k, v in self.record.items() if k not in ("name", "size")}
        return bool(same and prefixes.get(self.record["name"]) == computed.get("name")
                    and int(computed["size"]) < int(self.record["size"]))

    def load_widened(self, policy: Any) -> None:
        """Load a policy whose computed features are the first of this network's: its first
        head layer gets zero weights for the new features, so the network scores every move as
        the policy does."""
        tensors = dict(policy.tensors())
        first = np.asarray(tensors["head.0.weight"], np.float32)
        extra = int(self.record["size"]) - int(policy.computed["size"])
        tensors["head.0.weight"] = np.concatenate(
            [first, np.zeros((first.shape[0], extra), np.float32)], axis=1)
        self.load(_Tensors(tensors))

    def pretrain(self, evaluator: Evaluator, run_dir: Path) -> dict[str, Any]:
        """The behaviour clone of ``pretrain`` (``imitation.clone_scorer``)."""
        return clone_scorer(self, evaluator, run_dir)

    def features(self, obs: np.ndarray) -> Any:
        import torch  # the train extra

        from cahoots_envs.training.scoring import features_in_chunks  # torch

        if self._features is None:
            return None
        return torch.from_numpy(features_in_chunks(self._features, obs, self.info.num_actions))

    def logits(self, obs: Any, features: Any) -> Any:
        return self.net(obs, features)


class _Tensors:
    """Weights by name, as ``ScoringActor.load`` reads a policy's."""

    def __init__(self, tensors: dict[str, np.ndarray]) -> None:
        self._tensors = tensors

    def tensors(self) -> dict[str, np.ndarray]:
        return self._tensors
