"""The learning steps the training algorithms share: ``ppo_update`` (PPO's clipped update on
flat arrays of transitions) and ``crossed`` (the schedule of evaluations and snapshots).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cahoots_envs.training.checkpoint import stop_point
from cahoots_envs.training.config import PPOConfig


def ppo_update(net: Any, optimizer: Any, obs: np.ndarray, masks: np.ndarray,
               actions: np.ndarray, old_logps: np.ndarray, advantages: np.ndarray,
               returns: np.ndarray, s: PPOConfig, generator: Any) -> dict[str, float]:
    """PPO's clipped update of ``net`` (``evaluate_actions(obs, actions, masks)``, as
    ``networks.build_network``'s) on the transitions given (one row each: the observation,
    mask, action, its log-probability when played, its advantage and return), ``s.n_epochs``
    passes in minibatches of ``s.batch_size`` drawn with ``generator``; the mean losses."""
    import torch  # torch: the train extra (the algorithms' config sections load without it)

    obs_t, masks_t = torch.from_numpy(obs), torch.from_numpy(masks)
    actions_t, old_logp = torch.from_numpy(actions), torch.from_numpy(old_logps)
    advs = torch.from_numpy(advantages.astype(np.float32))
    rets = torch.from_numpy(returns.astype(np.float32))
    size = len(advs)
    stats = {"policy_loss": 0.0, "value_loss": 0.0, "entropy": 0.0, "clip_fraction": 0.0}
    updates = 0
    for _ in range(s.n_epochs):
        order = torch.randperm(size, generator=generator)
        for start in range(0, size, s.batch_size):
            stop_point("update")
            idx = order[start:start + s.batch_size]
            values, logp, entropy = net.evaluate_actions(obs_t[idx], actions_t[idx], masks_t[idx])
            a = advs[idx]
            a = (a - a.mean()) / (a.std() + 1e-8) if len(idx) > 1 else a
            ratio = torch.exp(logp - old_logp[idx])
            clipped = torch.clamp(ratio, 1 - s.clip_range, 1 + s.clip_range)
            policy_loss = -torch.min(ratio * a, clipped * a).mean()
            value_loss = torch.nn.functional.mse_loss(values[:, 0], rets[idx])
            loss = policy_loss + s.vf_coef * value_loss - s.ent_coef * entropy.mean()
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), s.max_grad_norm)
            optimizer.step()
            updates += 1
            stats["policy_loss"] += float(policy_loss.detach())
            stats["value_loss"] += float(value_loss.detach())
            stats["entropy"] += float(entropy.detach().mean())
            stats["clip_fraction"] += float(((ratio - 1).abs() > s.clip_range).float().mean())
    return {k: v / max(updates, 1) for k, v in stats.items()} | {"transitions": float(size)}


def crossed(steps: int, before: int, every: int) -> bool:
    """Whether going from ``before`` steps to ``steps`` passed a multiple of ``every``."""
    return steps // every != before // every
