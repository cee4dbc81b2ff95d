"""Play and print one seeded game between random bots: ``python -m cahoots_envs.demo [env] [seed]``."""

from __future__ import annotations

import sys

import numpy as np

import cahoots_envs


def main(argv: list[str]) -> None:
    env_id = argv[0] if argv else "kansas_city-v0"
    seed = int(argv[1]) if len(argv) > 1 else 0
    env = cahoots_envs.make(env_id, render_mode="ansi")
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    steps = 0
    while not env.unwrapped.game.is_over:
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
        steps += 1
    print(env.render())
    print(f"{steps} decisions; final scores: "
          + ", ".join(f"{a} {env.infos[a]['score']:g}" for a in env.possible_agents))


if __name__ == "__main__":
    main(sys.argv[1:])
