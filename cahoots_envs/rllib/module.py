"""``MaskedPPOTorchRLModule``: RLlib's default PPO module with the legal-move mask applied.

The same design as RLlib's example ``ActionMaskingTorchRLModule``
(``ray.rllib.examples.rl_modules.classes.action_masking_rlm``), written against the current
base class (``DefaultPPOTorchRLModule``: the example's ``PPOTorchRLModule`` is deprecated in ray
2.60 and warns when imported). The observation space is a ``Dict`` with ``observations`` (what
the networks see) and ``action_mask`` (1 legal, 0 not; float32); the networks are built for
``observations`` alone, and every forward pass adds ``max(log(mask), FLOAT_MIN)`` to the action
logits, so an illegal move gets probability 0 when sampling and never wins an argmax. The value
function sees the observation only.

The actor is the encoder's actor MLP followed by the ``pi`` head: ``cahoots_envs.rllib.export``
copies exactly those layers into the numpy ``MLPPolicy`` of our saved-policy format.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import torch
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.core.columns import Columns
from ray.rllib.utils.torch_utils import FLOAT_MIN

OBS_KEY = "observations"
MASK_KEY = "action_mask"


class MaskedPPOTorchRLModule(DefaultPPOTorchRLModule):
    """PPO's default torch module on ``Dict(observations, action_mask)`` with masked logits."""

    def __init__(self, *args: Any, observation_space: gym.Space | None = None,
                 **kwargs: Any) -> None:
        if not (isinstance(observation_space, gym.spaces.Dict)
                and set(observation_space.spaces) == {OBS_KEY, MASK_KEY}):
            raise ValueError(
                "MaskedPPOTorchRLModule needs a Dict observation space with the keys "
                f"{OBS_KEY!r} and {MASK_KEY!r} (CahootsMultiAgentEnv's), got {observation_space}")
        self._space_with_mask = observation_space
        # the networks (built in setup) see the observations alone
        super().__init__(*args, observation_space=observation_space[OBS_KEY], **kwargs)

    def setup(self) -> None:
        super().setup()
        # outside the networks the module takes (and is specified by) the Dict space, so that
        # RLModuleSpec.from_module(...) builds a like module, e.g. for frozen snapshots
        self.observation_space = self._space_with_mask

    # ---- forward passes ------------------------------------------------------------------
    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, inner = split_mask(batch)
        return masked(super()._forward(inner, **kwargs), mask)

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, inner = split_mask(batch)
        return masked(super()._forward_train(inner, **kwargs), mask)

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> Any:
        _, inner = split_mask(batch)
        return super().compute_values(inner, embeddings)


def split_mask(batch: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """(the action mask, a shallow copy of ``batch`` whose ``obs`` is the observations alone);
    ``batch`` itself is left as it is."""
    obs = batch[Columns.OBS]
    if not isinstance(obs, dict) or OBS_KEY not in obs or MASK_KEY not in obs:
        raise ValueError(f"expected observations as a dict with {OBS_KEY!r} and {MASK_KEY!r}, "
                         f"got {type(obs).__name__}: is the env a CahootsMultiAgentEnv?")
    inner = dict(batch)
    inner[Columns.OBS] = obs[OBS_KEY]
    return obs[MASK_KEY], inner


def masked(outputs: dict[str, Any], mask: Any) -> dict[str, Any]:
    """Add ``max(log(mask), FLOAT_MIN)`` to the action logits: illegal moves drop out."""
    outputs[Columns.ACTION_DIST_INPUTS] = (outputs[Columns.ACTION_DIST_INPUTS]
                                           + torch.clamp(torch.log(mask), min=FLOAT_MIN))
    return outputs
