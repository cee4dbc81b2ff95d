"""The PettingZoo parallel API over the AEC env (``parallel_env()``, ``make_parallel``).

These are turn-based games: at every parallel step one seat moves. Every agent gets its
observation each step (the seats not to move have all-zero masks, or with ``idle_action`` one
placeholder move, see below); ``step(actions)`` needs an entry for the agent to move
(``env.agent_to_move``; its seat index is in every info as ``active_agent``, -1 once the game is
over) and ignores the others' entries. Rewards are the AEC env's rewards of that step for every
agent; the rewards a deal itself pays (cahoots_coop in points mode: goals met at setup) are added
to the first step's. A deal that ends the game before any move (cahoots_coop) leaves no agents
after ``reset``, and its rewards are in the reset's infos as ``deal_reward`` (every info has that
key: 0.0 at every other step). ``state()`` and ``state_space`` are the AEC env's.

Infos hold numbers only, the same keys at every step (CONTRACT §7): ``score``, ``phase`` (an
index into ``env.phase_names``), ``active_agent`` and ``deal_reward``, so a client (TorchRL,
Gymnasium's vector envs) can build its specs from ``reset()``.

``idle_action``: samplers that draw an action for every agent from its mask (TorchRL's masked
actors, a batched masked categorical) need a legal move for the seats not on turn. With
``idle_action=k`` (an action id of the game; ``PLACEHOLDER_ACTION``, 0, is always one and is
the seat envs' placeholder too), every seat not to move, and every
seat once the game is over, sees a mask whose one legal action is ``k``; ``step`` ignores what
those seats play. Observations, spaces, action ids and rewards are unchanged, so a saved policy
plays across this option. Default None: today's all-zero masks. The AEC env has no such seats
and refuses the option.

It is PettingZoo's ``turn_based_aec_to_parallel`` wrapper with those points made definite and
clear errors for a missing action or a step after the end.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo.utils.conversions import turn_based_aec_to_parallel_wrapper

from cahoots_envs.core.aec import CardGameEnv
from cahoots_envs.core.text import short_repr
from cahoots_envs.errors import EnvNotResetError, IllegalActionError

# the placeholder action of a seat that has no move (CONTRACT §7, seats not on turn): legal only
# so that a sampler drawing from every mask can draw it, and ignored by the step that follows.
# The parallel env uses it with ``idle_action=PLACEHOLDER_ACTION``; the seat envs' mask once an
# episode is over is this one action.
PLACEHOLDER_ACTION = 0


class CardGameParallelEnv(turn_based_aec_to_parallel_wrapper):
    """A ``CardGameEnv`` seen through PettingZoo's parallel API (see the module docstring)."""

    def __init__(self, aec_env: CardGameEnv, idle_action: int | None = None) -> None:
        super().__init__(aec_env)
        self.aec_env: CardGameEnv = aec_env
        self.agents: list[str] = []
        self._deal_rewards: dict[str, float] = {}
        self._reset_done = False
        self.idle_action: int | None = None
        self._idle_mask: np.ndarray | None = None
        if idle_action is not None:
            n = aec_env.num_actions
            if (isinstance(idle_action, (bool, np.bool_))
                    or not isinstance(idle_action, (int, np.integer))
                    or not 0 <= idle_action < n):
                raise ValueError(
                    f"{aec_env.env_id}: idle_action={short_repr(idle_action)}: it names the "
                    f"placeholder move of the seats not on turn, an action id from 0 to {n - 1} "
                    "(0 is always one), or None for all-zero masks")
            self.idle_action = int(idle_action)
            self._idle_mask = np.zeros(n, np.int8)
            self._idle_mask[self.idle_action] = 1

    @property
    def phase_names(self) -> tuple[str, ...]:
        """The names ``infos[agent]["phase"]`` indexes (the game's phases, then ``game_over``)."""
        return self.aec_env.phase_names

    @property
    def phase(self) -> str | None:
        """The current phase's name (``game_over`` at the end, None before reset)."""
        return self.aec_env.phase

    def _mover_index(self) -> int:
        aec = self.aec_env
        return aec.agent_name_mapping[aec.agent_selection] if aec.agents else -1

    def _observe_all(self) -> dict[str, Any]:
        """Every agent's observation; with ``idle_action``, the seats not to move (all of them
        once the game is over) get the placeholder mask."""
        aec = self.aec_env
        observations = {a: aec.observe(a) for a in aec.agents}
        if self._idle_mask is not None:
            mover = aec.agent_selection if aec.agents and not (
                aec.terminations[aec.agent_selection] or aec.truncations[aec.agent_selection]
            ) else None
            for a, obs in observations.items():
                if a != mover:
                    observations[a] = {**obs, "action_mask": self._idle_mask.copy()}
        return observations

    # the space dicts are the AEC env's (PettingZoo's wrapper warns that they are deprecated)
    @property
    def observation_spaces(self) -> dict[str, spaces.Space]:  # type: ignore[override]
        return self.aec_env.observation_spaces

    @property
    def action_spaces(self) -> dict[str, spaces.Space]:  # type: ignore[override]
        return self.aec_env.action_spaces

    @property
    def agent_to_move(self) -> str | None:
        """The agent whose action the next ``step`` plays (None before reset and at the end)."""
        return self.aec_env.agent_selection if self.agents else None

    def reset(self, seed: int | None = None,
              options: Mapping[str, Any] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        self.aec_env.reset(seed=seed, options=options)
        aec = self.aec_env
        self.agents = list(aec.agents)
        # as PettingZoo's wrapper: no observation for an agent a deal has already ended
        observations = {a: obs for a, obs in self._observe_all().items()
                        if not (aec.terminations[a] or aec.truncations[a])}
        infos = {a: dict(i) for a, i in aec.infos.items()}
        self._deal_rewards = {a: r for a, r in aec._cumulative_rewards.items() if r}
        self._reset_done = True
        over = aec.game is not None and aec.game.is_over
        for a, info in infos.items():
            info["active_agent"] = -1 if over else self._mover_index()
            info["deal_reward"] = float(aec._cumulative_rewards[a]) if over else 0.0
        if over:
            self.agents = []
            self._deal_rewards = {}
        return observations, infos

    def step(self, actions: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, float],
                                                       dict[str, bool], dict[str, bool],
                                                       dict[str, Any]]:
        aec = self.aec_env
        if not self._reset_done:
            raise EnvNotResetError(f"{aec.env_id}: call reset() before step()")
        if not self.agents:
            raise IllegalActionError(f"{aec.env_id}: the game is over; call reset() to play again")
        mover = aec.agent_selection
        if not isinstance(actions, Mapping) or mover not in actions:
            raise IllegalActionError(
                f"{mover} is to move: step() takes a dict of actions with an entry for {mover} "
                f"(the other agents' entries are ignored), got {short_repr(actions)}")
        aec.step(actions[mover])
        rewards = dict(aec.rewards)
        for a, r in self._deal_rewards.items():
            rewards[a] = rewards.get(a, 0.0) + r
        self._deal_rewards = {}
        terminations = dict(aec.terminations)
        truncations = dict(aec.truncations)
        infos = {a: dict(i) for a, i in aec.infos.items()}
        observations = self._observe_all()
        # once the game is over, every agent leaves the AEC loop (its dead steps)
        while aec.agents and (aec.terminations[aec.agent_selection]
                              or aec.truncations[aec.agent_selection]):
            aec.step(None)
        active = self._mover_index()
        for info in infos.values():
            info["active_agent"] = active
            info["deal_reward"] = 0.0
        self.agents = list(aec.agents)
        return observations, rewards, terminations, truncations, infos

    def __str__(self) -> str:
        return str(self.aec_env)


def parallel_factory(spec: Any) -> Any:
    """The ``parallel_env`` of a game module (PettingZoo's convention next to ``env``)."""

    def parallel_env(idle_action: int | None = None, **options: Any) -> CardGameParallelEnv:
        """The parallel API over the protected env (see ``cahoots_envs.core.parallel``);
        ``idle_action``: the placeholder move of the seats not on turn (None: all-zero masks)."""
        return CardGameParallelEnv(CardGameEnv(spec, protected=True, **options), idle_action)

    return parallel_env
