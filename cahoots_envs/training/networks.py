"""The networks the training algorithms build (torch, the ``train`` extra, imported in the
functions): ``mlp``, ``build_network`` (actor and critic), ``masked_logits`` and
``critic_value_head`` (the critic as a saved policy's value head). A new kind of
network, or a new head, goes here beside them.
"""

from __future__ import annotations

import itertools
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cahoots_envs.policies.network import ValueHead
    from cahoots_envs.training.actors import ScoringActor
    from cahoots_envs.training.config import TrainConfig


def mlp(sizes: list[int], activation: str) -> Any:
    from torch import nn  # torch: the train extra (this module loads without it)

    act = {"tanh": nn.Tanh, "relu": nn.ReLU}[activation]
    layers: list[Any] = []
    for a, b in itertools.pairwise(sizes):
        layers += [nn.Linear(a, b), act()]
    return nn.Sequential(*layers)


def masked_logits(logits: Any, masks: Any) -> Any:
    """``logits`` with the illegal moves' (``masks`` 0) set to ``-inf``."""
    import torch  # the train extra

    return logits.masked_fill(~torch.as_tensor(masks).bool(), float("-inf"))


def build_network(obs_size: int, num_actions: int, arch: list[int], activation: str,
                  scorer: ScoringActor | None = None) -> Any:
    """Actor and critic, two MLPs on the observation; the actor laid out as SB3's
    (``mlp_extractor.policy_net`` + ``action_net``), so ``MLPPolicy.from_sb3`` copies it and
    ``imitation.behaviour_clone`` fits it (the methods it calls are here). With ``scorer`` the
    actor is its action-scoring network instead (``net.scorer``; the per-move features it reads
    are computed from the observation as it goes) and the critic stays the MLP."""
    import torch  # the train extra
    from torch import nn

    class Extractor(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            if scorer is None:
                self.policy_net = mlp([obs_size, *arch], activation)
            self.value_net = mlp([obs_size, *arch], activation)

    class ActorCritic(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.mlp_extractor = Extractor()
            if scorer is None:
                self.action_net = nn.Linear(arch[-1], num_actions)
            self.value_head = nn.Linear(arch[-1], 1)
            for m in self.modules():  # SB3's initialisation: orthogonal, small policy output
                if isinstance(m, nn.Linear):
                    nn.init.orthogonal_(m.weight, 2 ** 0.5)
                    nn.init.zeros_(m.bias)
            if scorer is None:
                nn.init.orthogonal_(self.action_net.weight, 0.01)
            else:
                self.scorer = scorer.net  # its own initialisation (or the clone's weights)
            nn.init.orthogonal_(self.value_head.weight, 1.0)

        def logits(self, obs: Any) -> Any:
            if scorer is not None:
                return self.scorer(obs, scorer.features(obs.detach().numpy()))
            return self.action_net(self.mlp_extractor.policy_net(obs))

        def predict_values(self, obs: Any) -> Any:
            return self.value_head(self.mlp_extractor.value_net(obs))

        def get_distribution(self, obs: Any, action_masks: Any) -> Any:
            logits = masked_logits(self.logits(obs), action_masks)
            return SimpleNamespace(distribution=torch.distributions.Categorical(logits=logits))

        def evaluate_actions(self, obs: Any, actions: Any, action_masks: Any) -> Any:
            logp = torch.log_softmax(masked_logits(self.logits(obs), action_masks), -1)
            chosen = logp.gather(1, actions.long()[:, None])[:, 0]
            entropy = -(logp.exp() * logp.nan_to_num(neginf=0.0)).sum(-1)
            return self.predict_values(obs), chosen, entropy

        def set_training_mode(self, mode: bool) -> None:
            self.train(mode)

    return ActorCritic()


def critic_value_head(net: Any, config: TrainConfig) -> ValueHead:
    """The critic of ``net`` (SB3's ``MlpPolicy`` or ``build_network``'s) as a value head on the
    observation, its ``target`` naming what it learnt: the discounted return of the seat's
    training rewards (gamma, the env's ``reward_mode``, ``reward_scale``). For end-of-game
    rewards that is the outcome discounted by the seat's remaining steps. Reads the weights
    only: training and its randomness are untouched."""
    from cahoots_envs.policies.network import ValueHead

    mode = config.env_options.get("reward_mode", "win")
    return ValueHead.from_sb3(net, f"discounted return, gamma={config.ppo.gamma}, "
                                   f"reward_mode={mode}, reward_scale={config.reward_scale}")
