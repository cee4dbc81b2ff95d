"""Behaviour cloning before self-play: the learner starts as a copy of a teacher (the heuristic).

``collect_demonstrations`` plays teacher-only games (batched like the seat envs) and records every
decision: the mover's observation, mask and action, and the return that seat went on to earn
(the env's ``RewardRule``, times ``reward_scale``). ``behaviour_clone`` fits an SB3 maskable
actor-critic to them: cross-entropy on the teacher's actions (masked) plus a value regression on
the returns, so PPO's first updates start from a sensible critic instead of undoing the actor.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from cahoots_envs.core.driver import RewardRule
from cahoots_envs.core.layout import OBS_DTYPE
from cahoots_envs.core.policy import Policy
from cahoots_envs.policies.envinfo import env_info


@dataclass
class Demonstrations:
    observations: np.ndarray  # (n, obs) float32
    masks: np.ndarray  # (n, actions) bool
    actions: np.ndarray  # (n,) int64
    returns: np.ndarray  # (n,) float32

    def __len__(self) -> int:
        return len(self.actions)


def collect_demonstrations(env_id: str, options: Mapping[str, Any] | None, teacher: Policy,
                           games: int, seed: int = 0, reward_scale: float = 1.0,
                           batch: int = 128) -> Demonstrations:
    info = env_info(env_id, options)
    cls, opts = info.game_cls, info.options
    size, n_actions = info.layout.size, info.num_actions
    reward_rule = RewardRule.of(cls, opts)
    team = cls.COOPERATIVE
    rng = np.random.default_rng(seed)
    obs_rows: list[np.ndarray] = []
    mask_rows: list[np.ndarray] = []
    act_rows: list[np.ndarray] = []
    ret_rows: list[np.ndarray] = []
    for start in range(0, games, batch):
        live = [cls(opts, np.random.default_rng(rng.integers(2**63)), None)
                for _ in range(min(batch, games - start))]
        # per game: (row index, seat, the seat's score when it decided)
        pending: list[list[tuple[int, int, float]]] = [[] for _ in live]
        base = sum(len(a) for a in act_rows)
        rows = 0
        game_obs: list[np.ndarray] = []
        game_masks: list[np.ndarray] = []
        game_acts: list[np.ndarray] = []
        while True:
            movers = [i for i, g in enumerate(live) if not g.is_over]
            if not movers:
                break
            obs = np.zeros((len(movers), size), OBS_DTYPE)
            masks = np.zeros((len(movers), n_actions), bool)
            for k, i in enumerate(movers):
                g = live[i]
                g.encode(g.current_player, obs[k])
                masks[k, g.legal_actions()] = True
            actions = teacher.act_batch(obs, masks)
            for k, i in enumerate(movers):
                g = live[i]
                seat = 0 if team else g.current_player
                pending[i].append((base + rows + k, seat, reward_rule.value(g, seat)))
                g.apply(int(actions[k]))
            rows += len(movers)
            game_obs.append(obs)
            game_masks.append(masks)
            game_acts.append(np.asarray(actions, np.int64))
        returns = np.zeros(rows, np.float32)
        for g, decisions in zip(live, pending):
            final = reward_rule.values(g)
            for row, seat, value in decisions:
                # the return from a decision on: the same rewards the AEC env would pay
                returns[row - base] = (final[seat] - value) * reward_scale
        obs_rows.append(np.concatenate(game_obs))
        mask_rows.append(np.concatenate(game_masks))
        act_rows.append(np.concatenate(game_acts))
        ret_rows.append(returns)
    return Demonstrations(np.concatenate(obs_rows), np.concatenate(mask_rows),
                          np.concatenate(act_rows), np.concatenate(ret_rows))


def behaviour_clone(policy: Any, demos: Demonstrations, epochs: int = 4, batch_size: int = 512,
                    learning_rate: float = 1e-3, value_coef: float = 0.5, seed: int = 0,
                    log: Any = print) -> dict[str, float]:
    """Fit an SB3 ``MaskableActorCriticPolicy`` to ``demos``; returns the final accuracy/losses."""
    import torch

    gen = torch.Generator().manual_seed(seed)
    obs = torch.as_tensor(demos.observations)
    masks = torch.as_tensor(demos.masks)
    actions = torch.as_tensor(demos.actions)
    returns = torch.as_tensor(demos.returns)
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    n = len(demos)
    policy.set_training_mode(True)
    stats: dict[str, float] = {}
    for epoch in range(epochs):
        order = torch.randperm(n, generator=gen)
        total_nll = total_v = correct = 0.0
        for start in range(0, n, batch_size):
            idx = order[start : start + batch_size]
            values, log_prob, _ = policy.evaluate_actions(obs[idx], actions[idx],
                                                          action_masks=masks[idx].numpy())
            nll = -log_prob.mean()
            v_loss = torch.nn.functional.mse_loss(values.flatten(), returns[idx])
            loss = nll + value_coef * v_loss
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            optimizer.step()
            total_nll += float(nll.detach()) * len(idx)
            total_v += float(v_loss.detach()) * len(idx)
            with torch.no_grad():
                dist = policy.get_distribution(obs[idx], action_masks=masks[idx].numpy())
                correct += float((dist.distribution.probs.argmax(-1) == actions[idx]).sum())
        stats = {"nll": total_nll / n, "value_mse": total_v / n, "accuracy": correct / n}
        log(f"behaviour cloning epoch {epoch + 1}/{epochs}: " +
            ", ".join(f"{k} {v:.3f}" for k, v in stats.items()))
    policy.set_training_mode(False)
    return stats
