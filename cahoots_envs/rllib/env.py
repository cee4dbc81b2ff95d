"""``CahootsMultiAgentEnv``: any registered game as an RLlib ``MultiAgentEnv``.

>>> from cahoots_envs.rllib import CahootsMultiAgentEnv
>>> env = CahootsMultiAgentEnv({"env_id": "texas_euchre-v1", "options": {"num_players": 4}})
>>> obs, infos = env.reset(seed=0)          # {agent to move: {"observations", "action_mask"}}

**Spaces.** Every agent's observation is ``Dict({"observations": Box(float32),
"action_mask": Box(0, 1, float32)})``, the layout that RLlib's action-masking RLModule
(``ActionMaskingTorchRLModule``) reads: the game's observation under ``observations`` and its
legal-move mask, cast to float32, under ``action_mask``. The action space is a ``Discrete`` whose
``sample()`` (with no mask given) draws a legal move of that agent while it is to move, so RLlib's
env pre-check and its random-action sampling play legal moves; an illegal action raises
``IllegalActionError`` (the unprotected env), since masking makes one a bug.

**Turns.** The game is turn-based: ``reset`` and ``step`` return an observation for the agent to
move only, and ``step`` takes that agent's action. Each agent's rewards (``reward_mode`` of the
game options: ``"win"`` by default) are summed while others move and paid with its next
observation. When the game ends every agent gets its final observation (an all-zero mask), its
outstanding reward and ``terminateds[agent] = True``, with ``terminateds["__all__"] = True``.

``reward_scale`` multiplies every reward (points rewards are large for PPO's value function).

**Bots.** ``bots`` puts policies (``load_policy`` specs: ``"random"``, ``"heuristic"``,
``"zoo:<name>"``, a saved policy's path, ``"search"``) at the table, played inside the env: the
learning agents are ``player_0 .. player_{L-1}`` (``L`` = players - bots) and the bots take the
remaining places. With ``rotate_seats=True`` the places turn around the table by an offset drawn
each game from the seeded generator, so agent ``player_k`` sits in seat ``(k + offset) % N`` (its
``infos`` say which: ``seat``); without it ``player_k`` is seat ``k``.

**Seeds.** ``reset(seed=s)`` deals exactly the game ``cahoots_envs.make_raw(env_id,
**options).reset(seed=s)`` deals; ``reset()`` continues the generator. Seat offsets and bots draw
from their own generators derived from the same seed. A game that ends before any learning agent
has moved (a deal that finishes the cooperative game at once, or bots ending it) is dealt again
from the continuing generator, since RLlib needs an observation from ``reset``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from cahoots_envs.core.policy import BasePolicy
from cahoots_envs.policies.loading import load_policy
from cahoots_envs.registry import list_envs, make_raw

Dicts = dict[Any, Any]  # RLlib's MultiAgentDict: agent id -> value
ENV_CONFIG_KEYS = ("env_id", "options", "bots", "rotate_seats", "reward_scale")
REDEALS = 1000  # games ending before a learning agent moves, in a row, before giving up


class LegalActions(spaces.Discrete):
    """A ``Discrete`` action space whose ``sample()`` without a mask draws a legal move.

    ``legal_mask`` returns the mask (int8) of the agent this space belongs to, or ``None`` when
    that agent is not to move (then ``sample`` draws from every action, like ``Discrete``). The
    callable stays with the env: a pickled copy (what RLlib sends to learners) is a plain
    ``Discrete`` of the same size that samples from every action."""

    def __init__(self, n: int, legal_mask: Callable[[], np.ndarray | None] | None = None,
                 seed: int | None = None) -> None:
        super().__init__(n, seed=seed)
        self._legal_mask = legal_mask

    def sample(self, mask: Any = None, probability: Any = None) -> np.int64:
        if mask is None and probability is None and self._legal_mask is not None:
            legal = self._legal_mask()
            if legal is not None and legal.any():
                mask = legal.astype(np.int8)
        return super().sample(mask=mask, probability=probability)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_legal_mask"] = None
        return state

    def __repr__(self) -> str:
        return f"LegalActions({self.n})"


def env_config_error(config: Mapping[str, Any]) -> str | None:
    """What is wrong with an env config (one line), or ``None`` when it is usable."""
    unknown = sorted(set(config) - set(ENV_CONFIG_KEYS), key=str)
    if unknown:
        return (f"unknown env config key(s) {', '.join(map(str, unknown))}; the keys are "
                f"{', '.join(ENV_CONFIG_KEYS)}")
    if not isinstance(config.get("env_id"), str):
        return (f"env config needs env_id, an env id such as 'texas_euchre-v1' (got "
                f"{config.get('env_id')!r}); ids: {', '.join(list_envs())}")
    if not isinstance(config.get("options", {}) or {}, Mapping):
        return f"env config options must be a mapping of game options, got {config['options']!r}"
    bots = config.get("bots", []) or []
    if isinstance(bots, str) or not isinstance(bots, Sequence) or not all(
            isinstance(b, str) for b in bots):
        return f"env config bots must be a list of policy specs (e.g. ['heuristic']), got {bots!r}"
    if not isinstance(config.get("rotate_seats", False), bool):
        return f"env config rotate_seats must be true or false, got {config['rotate_seats']!r}"
    scale = config.get("reward_scale", 1.0)
    if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not scale > 0:
        return f"env config reward_scale must be a positive number, got {scale!r}"
    return None


class CahootsMultiAgentEnv(MultiAgentEnv):
    """A registered game as a turn-based RLlib ``MultiAgentEnv`` (see the module docstring).

    ``config`` (RLlib's ``env_config``): ``env_id`` (required), ``options`` (game options),
    ``bots`` (policy specs played inside the env), ``rotate_seats`` (bool), ``reward_scale``
    (multiplies every reward; default 1)."""

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        super().__init__()
        config = dict(config or {})
        problem = env_config_error(config)
        if problem:
            raise ValueError(problem)
        self.aec = make_raw(config["env_id"], **dict(config.get("options") or {}))
        self.env_id: str = self.aec.env_id
        self.options: dict[str, Any] = dict(self.aec.options)
        self.num_players = len(self.aec.possible_agents)
        bot_specs = list(config.get("bots") or [])
        if len(bot_specs) >= self.num_players:
            raise ValueError(f"{len(bot_specs)} bots leave no seat to learn in a "
                             f"{self.num_players}-player game; give at most "
                             f"{self.num_players - 1}")
        self.bot_specs = bot_specs
        self.bots: list[BasePolicy] = [
            load_policy(spec, self.env_id, self.options, seed=i)
            for i, spec in enumerate(bot_specs)
        ]
        self.rotate_seats = bool(config.get("rotate_seats", False))
        self.reward_scale = float(config.get("reward_scale", 1.0))
        learners = self.num_players - len(bot_specs)
        self.possible_agents = [f"player_{k}" for k in range(learners)]
        self.agents = list(self.possible_agents)
        size, n_actions = self.aec.layout.size, self.aec.num_actions
        low, high = self.aec.layout.bounds()
        observation = spaces.Dict({
            "observations": spaces.Box(low=low, high=high, shape=(size,), dtype=np.float32),
            "action_mask": spaces.Box(0.0, 1.0, (n_actions,), dtype=np.float32),
        })
        self.observation_spaces = dict.fromkeys(self.possible_agents, observation)
        self.action_spaces = {
            agent: LegalActions(n_actions, self._mask_source(k))
            for k, agent in enumerate(self.possible_agents)
        }
        self.observation_space = observation  # the old API's single space: the same for all
        self.action_space = spaces.Discrete(n_actions)
        self._offset = 0
        self._side_rng = np.random.default_rng()
        self._pending = np.zeros(self.num_players)
        self._started = False

    # ---- seats -----------------------------------------------------------------------------
    def seat_of(self, slot: int) -> int:
        """The game seat of place ``slot`` (agents first, then bots) in the current game."""
        return (slot + self._offset) % self.num_players

    def slot_of(self, seat: int) -> int:
        return (seat - self._offset) % self.num_players

    def _mask_source(self, slot: int) -> Callable[[], np.ndarray | None]:
        def legal_mask() -> np.ndarray | None:
            game = self.aec.game
            if not self._started or game is None or game.is_over:
                return None
            seat = self.seat_of(slot)
            if game.current_player != seat:
                return None
            return np.asarray(self.aec.action_mask(self.aec.possible_agents[seat]))
        return legal_mask

    # ---- the gymnasium / RLlib API ---------------------------------------------------------
    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[Dicts, Dicts]:
        super().reset(seed=seed, options=options)
        if seed is not None:
            self._side_rng = np.random.default_rng(np.random.SeedSequence([seed, 1]))
            for i, bot in enumerate(self.bots):
                if hasattr(bot, "rng"):
                    bot.rng = np.random.default_rng(np.random.SeedSequence([seed, 2, i]))
        for _ in range(REDEALS):
            self.aec.reset(seed=seed)
            seed = None  # a deal again continues the generator
            self._offset = (int(self._side_rng.integers(self.num_players))
                            if self.rotate_seats else 0)
            self._pending = np.zeros(self.num_players)
            self._collect()
            self._started = True
            self._play_bots()
            if not self.aec.game.is_over:
                self.agents = list(self.possible_agents)
                agent = self._to_move()  # what the deal paid comes with its next observation
                return {agent: self._observe(agent)}, {agent: self._info(agent)}
        raise RuntimeError(f"{self.env_id}: {REDEALS} deals in a row ended before a learning "
                           "agent could move")

    def step(  # type: ignore[override]  # gymnasium's single-agent signature
            self, action_dict: Dicts) -> tuple[Dicts, Dicts, Dicts, Dicts, Dicts]:
        game = self.aec.game
        if not self._started or game is None:
            raise RuntimeError(f"{self.env_id}: call reset() before step()")
        if game.is_over:
            raise RuntimeError(f"{self.env_id}: the game is over; call reset()")
        agent = self._to_move()
        if agent not in action_dict:
            raise ValueError(f"{self.env_id}: {agent} is to move, but the actions are for "
                             f"{sorted(map(str, action_dict))}")
        self.aec.step(action_dict[agent])
        self._collect()
        self._play_bots()
        if self.aec.game.is_over:
            agents = [str(a) for a in self.possible_agents]
            obs = {a: self._observe(a) for a in agents}
            rewards = {a: float(self._pending[self.seat_of(k)]) for k, a in enumerate(agents)}
            self._pending[:] = 0.0
            infos = {a: self._info(a) for a in agents}
            terminateds = {**dict.fromkeys(agents, True), "__all__": True}
            truncateds = {**dict.fromkeys(agents, False), "__all__": False}
            return obs, rewards, terminateds, truncateds, infos
        agent = self._to_move()
        seat = self.seat_of(self._slot(agent))
        reward = float(self._pending[seat])
        self._pending[seat] = 0.0
        return ({agent: self._observe(agent)}, {agent: reward}, {"__all__": False},
                {"__all__": False}, {agent: self._info(agent)})

    def render(self) -> str | None:  # type: ignore[override]
        return self.aec.render()

    def close(self) -> None:
        self.aec.close()

    # ---- internals ---------------------------------------------------------------------------
    def _slot(self, agent: str) -> int:
        return int(agent.rpartition("_")[2])

    def _to_move(self) -> str:
        slot = self.slot_of(self.aec.game.current_player)
        return str(self.possible_agents[slot])

    def _collect(self) -> None:
        """Add the last AEC step's rewards (or the deal's) to each seat's outstanding sum."""
        for seat, name in enumerate(self.aec.possible_agents):
            self._pending[seat] += self.reward_scale * self.aec.rewards.get(name, 0.0)

    def _play_bots(self) -> None:
        """Let the bots move until a learning agent is to move or the game is over."""
        learners = len(self.possible_agents)
        game = self.aec.game
        while not game.is_over:
            slot = self.slot_of(game.current_player)
            if slot < learners:
                return
            bot = self.bots[slot - learners]
            name = self.aec.agent_selection
            if getattr(bot, "needs_infoset", False):
                from cahoots_envs.search import infoset

                action = bot.act_infoset(infoset(self.aec, name))  # type: ignore[attr-defined]
            else:
                obs = self.aec.observe(name)
                action = bot.act(obs["observation"], obs["action_mask"])
            self.aec.step(int(action))
            self._collect()
            game = self.aec.game

    def _observe(self, agent: str) -> dict[str, np.ndarray]:
        raw = self.aec.observe(self.aec.possible_agents[self.seat_of(self._slot(agent))])
        return {"observations": raw["observation"],
                "action_mask": raw["action_mask"].astype(np.float32)}

    def _info(self, agent: str) -> dict[str, Any]:
        seat = self.seat_of(self._slot(agent))
        info = dict(self.aec.infos.get(self.aec.possible_agents[seat], {}))
        info["seat"] = seat
        return info


def make_env(config: Mapping[str, Any] | None = None) -> CahootsMultiAgentEnv:
    """The env creator RLlib calls with its ``env_config`` (``EnvContext``)."""
    return CahootsMultiAgentEnv(config)


__all__ = ["CahootsMultiAgentEnv", "LegalActions", "env_config_error", "make_env"]
