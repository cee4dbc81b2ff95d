"""The seeded uniform-random policy: every legal action equally likely."""

from __future__ import annotations

import numpy as np

from cahoots_envs.core.policy import BasePolicy


class RandomPolicy(BasePolicy):
    """Picks uniformly among the legal actions with its own seeded ``Generator``."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError("random policy asked to act with an all-zero action mask")
        return int(legal[self.rng.integers(legal.size)])

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        masks = np.asarray(action_masks) > 0
        if not masks.any(axis=-1).all():
            raise ValueError("random policy asked to act with an all-zero action mask")
        # one uniform draw per action, the illegal ones pushed below every legal one
        u = self.rng.random(masks.shape)
        u[~masks] = -1.0
        return u.argmax(axis=-1).astype(np.int64)
