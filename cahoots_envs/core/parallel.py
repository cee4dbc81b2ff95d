"""The PettingZoo parallel API over the AEC env (``parallel_env()``, ``make_parallel``).

These are turn-based games: at every parallel step one seat moves. Every agent gets its
observation each step (the seats not to move have all-zero masks); ``step(actions)`` needs an
entry for the agent to move (``env.agent_to_move``, also in every info as ``active_agent``) and
ignores the others' entries. Rewards are the AEC env's rewards of that step for every agent; the
rewards a deal itself pays (cahoots_coop in points mode: goals met at setup) are added to the
first step's. A deal that ends the game before any move (cahoots_coop) leaves no agents after
``reset``, and its rewards are in the reset's infos as ``deal_reward``. ``state()`` and
``state_space`` are the AEC env's.

It is PettingZoo's ``turn_based_aec_to_parallel`` wrapper with those points made definite and
clear errors for a missing action or a step after the end.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gymnasium import spaces
from pettingzoo.utils.conversions import turn_based_aec_to_parallel_wrapper

from cahoots_envs.core.aec import CardGameEnv
from cahoots_envs.core.text import short_repr
from cahoots_envs.errors import EnvNotResetError, IllegalActionError


class CardGameParallelEnv(turn_based_aec_to_parallel_wrapper):
    """A ``CardGameEnv`` seen through PettingZoo's parallel API (see the module docstring)."""

    def __init__(self, aec_env: CardGameEnv) -> None:
        super().__init__(aec_env)
        self.aec_env: CardGameEnv = aec_env
        self.agents: list[str] = []
        self._deal_rewards: dict[str, float] = {}
        self._reset_done = False

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
        observations, infos = super().reset(seed=seed, options=options)
        aec = self.aec_env
        infos = {a: dict(i) for a, i in infos.items()}
        self._deal_rewards = {a: r for a, r in aec._cumulative_rewards.items() if r}
        self._reset_done = True
        if aec.game is not None and aec.game.is_over:
            self.agents = []
            for a, info in infos.items():
                info["deal_reward"] = aec._cumulative_rewards[a]
            self._deal_rewards = {}
            return observations, infos
        for info in infos.values():
            info["active_agent"] = aec.agent_selection
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
        observations = {a: aec.observe(a) for a in aec.agents}
        # once the game is over, every agent leaves the AEC loop (its dead steps)
        while aec.agents and (aec.terminations[aec.agent_selection]
                              or aec.truncations[aec.agent_selection]):
            aec.step(None)
        for info in infos.values():
            info["active_agent"] = aec.agent_selection if aec.agents else None
        self.agents = list(aec.agents)
        return observations, rewards, terminations, truncations, infos

    def __str__(self) -> str:
        return str(self.aec_env)


def parallel_factory(spec: Any) -> Any:
    """The ``parallel_env`` of a game module (PettingZoo's convention next to ``env``)."""

    def parallel_env(**options: Any) -> CardGameParallelEnv:
        """The parallel API over the protected env (see ``cahoots_envs.core.parallel``)."""
        return CardGameParallelEnv(CardGameEnv(spec, protected=True, **options))

    return parallel_env
