"""A toy training algorithm published as another package would publish it (the entry-point
group ``cahoots_envs.algorithms``), built only on the training toolkit and the run plumbing:
``networks.build_network``, ``updates.ppo_update`` and ``crossed``, the engine
(``cahoots_envs.vector``) and ``run.Trained`` / the evaluator. It trains a real network, a
one-step PPO: the network plays every seat of ``n_envs`` games, and each decision's return is
the reward its seat earned on that move (a bandit's view of the game, but a real update)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cahoots_envs.policies.network import MLPPolicy
from cahoots_envs.training.algorithms import Algorithm
from cahoots_envs.training.networks import build_network, masked_logits
from cahoots_envs.training.run import Evaluator, Trained
from cahoots_envs.training.updates import crossed, ppo_update
from cahoots_envs.vector import make as make_vector


@dataclass
class ToyPPOConfig:
    """The toy's own config section (``toy_ppo:``): engine steps per rollout."""

    rollout_steps: int = 4


def train(config: Any, run_dir: Path, resume: bool, evaluator: Evaluator) -> Trained:
    import torch

    section = config.sections.get("toy_ppo") or ToyPPOConfig()
    torch.manual_seed(config.seed)
    generator = torch.Generator().manual_seed(config.seed)
    vec = make_vector(config.env_id, config.n_envs, seed=config.seed, **config.game_options())
    vec.reset(seed=config.seed)
    e = vec.engine
    net = build_network(e.obs.shape[1], e.mask.shape[1], list(config.ppo.net_arch),
                        config.ppo.activation)
    optimizer = torch.optim.Adam(net.parameters(), lr=config.ppo.learning_rate)
    steps, t0 = 0, time.time()
    while steps < config.total_timesteps:
        rows: list[tuple[np.ndarray, ...]] = []
        for _ in range(section.rollout_steps):
            obs, masks, mover = e.obs.astype(np.float32), e.mask != 0, e.to_move.copy()
            with torch.no_grad():
                x = torch.from_numpy(obs)
                logp = torch.log_softmax(masked_logits(net.logits(x), masks), -1)
                actions = logp.exp().multinomial(1, generator=generator)[:, 0]
                values = net.predict_values(x)[:, 0].numpy()
            e.step(actions.numpy())
            reward = e.rewards[np.arange(len(mover)), mover].astype(np.float32)
            rows.append((obs, masks, actions.numpy(), logp.gather(1, actions[:, None])[:, 0]
                         .numpy(), reward - values, reward))
        obs, masks, actions, logps, adv, ret = (np.concatenate(c) for c in zip(*rows))
        before, steps = steps, steps + len(actions)
        ppo_update(net, optimizer, obs, masks, actions, logps, adv, ret, config.ppo, generator)
        if crossed(steps, before, config.eval.every):
            evaluator.check(MLPPolicy.from_sb3(net), steps, seed=config.seed + steps)
    return Trained(learner=MLPPolicy.from_sb3(net), timesteps=steps, seconds=time.time() - t0,
                   description="one-step PPO (the toy algorithm of the tests)")


ALGORITHM = Algorithm("toy_ppo", "tests.toy_algorithm:train",
                      section="tests.toy_algorithm:ToyPPOConfig", tag="toyppo")
