"""The one PettingZoo AEC adapter shared by every game.

It maps seats to agent names, builds observations and masks, hands out rewards and infos,
seeds one ``numpy.random.Generator``, renders, clones, and guards against bad input.

``protected=True`` (what ``env()`` returns) gives the behaviour of PettingZoo's classic wrapper
stack (``TerminateIllegalWrapper(-1)``, ``AssertOutOfBoundsWrapper``, ``OrderEnforcingWrapper``)
without stacking three wrappers: the checks are a few attribute reads on the step path.
``protected=False`` (``raw_env()``) raises ``IllegalActionError`` for any illegal action and
leaves the state exactly as it was.
"""

from __future__ import annotations

import copy
import logging
import warnings
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from cahoots_envs.core.driver import RewardRule
from cahoots_envs.core.frame import RENDER_FPS, FrameRenderer, require_pillow
from cahoots_envs.core.game import (
    GAME_OVER,
    Game,
    action_id,
    describe_actions,
    phase_indices,
    phase_names,
)
from cahoots_envs.core.layout import OBS_DTYPE
from cahoots_envs.core.options import RENDER_MODE
from cahoots_envs.core.spec import GameSpec
from cahoots_envs.core.state import StateLayout, state_layout
from cahoots_envs.core.text import short_repr
from cahoots_envs.errors import EnvNotResetError, IllegalActionError, NotAvailableError

logger = logging.getLogger(__name__)

ILLEGAL_ACTION_REWARD = -1.0


class SetAtReset:
    """A class attribute that stands for an instance attribute ``reset`` sets: read before the
    first reset, it raises PettingZoo's ``AttributeError`` ("agents cannot be accessed before
    reset", as its order-enforcing wrapper says). A non-data descriptor, so once ``reset`` has
    set the instance's own value, that value is found first; unlike a ``__getattr__`` hook it
    leaves every other attribute read at full speed."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, obj: object, owner: type | None = None) -> Any:
        if obj is None:
            return self
        raise AttributeError(f"{self.name} cannot be accessed before reset")
# the reset option PettingZoo's api_test passes (options={"options": 1}): ignored silently
PETTINGZOO_TEST_OPTIONS = frozenset({"options"})
# arguments of the parallel env that the AEC env refuses by name (cahoots_envs.core.parallel)
PARALLEL_ONLY = ("idle_action",)
DEAL_ERROR_SHOWN = 500  # characters of a game's deal error kept in the message


class CardGameEnv(AECEnv):
    """PettingZoo AEC env around a game's ``GameSpec`` (see ``cahoots_envs.core.spec``).

    ``render_mode`` is an argument of the env, not a game option: ``options`` holds only what
    the game and its rewards depend on."""

    def __init__(self, spec: GameSpec, protected: bool = True, render_mode: str | None = None,
                 **options: Any) -> None:
        super().__init__()
        game_cls = spec.rules
        env_name = spec.env_id
        for name in PARALLEL_ONLY:
            if name in options:
                raise ValueError(
                    f"{env_name}: {name} is an option of the parallel env only (make_parallel, "
                    f"parallel_env(), pettingzoo's parallel API), where it gives the seats not on "
                    f"turn a placeholder action; in the AEC env only the agent to move acts, so "
                    f"drop {name}=")
        self.options: dict[str, Any] = game_cls.OPTIONS.resolve(options, env_name,
                                                                 also_accepted=("render_mode",))
        self.game_spec = spec
        self.game_cls = game_cls
        self.protected = protected
        try:
            self.render_mode: str | None = RENDER_MODE.validate(render_mode)
        except ValueError as e:
            raise ValueError(f"{env_name}: {e}") from None
        self._frames: FrameRenderer | None = None
        if self.render_mode == "rgb_array":
            require_pillow(env_name)
            self._frames = FrameRenderer(spec, self.options["num_players"])
        self.reward_mode: str = self.options["reward_mode"]
        self.reward_rule = RewardRule.of(game_cls, self.options)
        n = self.options["num_players"]
        self.metadata = {
            "render_modes": ["ansi", "human", "rgb_array"],
            "render_fps": RENDER_FPS,
            "name": f"{game_cls.NAME}_v{game_cls.VERSION}",
            "is_parallelizable": False,
        }
        self.env_id = env_name
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        self.layout = spec.layout(self.options)
        self.num_actions = game_cls.num_actions(self.options)
        self.max_game_length = game_cls.max_game_length(self.options)
        # infos["phase"] is an index into these names (CONTRACT §7, infos every client can stack)
        self.phase_names: tuple[str, ...] = phase_names(game_cls)
        self._phase_index = phase_indices(game_cls)
        low, high = self.layout.bounds()
        # one space object for every agent (the contract says they are the same)
        self._observation_space = spaces.Dict(
            {
                "observation": spaces.Box(low=low, high=high, dtype=OBS_DTYPE),
                "action_mask": spaces.Box(0, 1, (self.num_actions,), dtype=np.int8),
            }
        )
        self._action_space = spaces.Discrete(self.num_actions)
        # the space dicts of PettingZoo's classic envs: the same objects for every agent
        self.observation_spaces: dict[str, spaces.Space] = dict.fromkeys(
            self.possible_agents, self._observation_space)
        self.action_spaces: dict[str, spaces.Space] = dict.fromkeys(
            self.possible_agents, self._action_space)
        self._obs_size = self.layout.size
        # the global state (state() / state_space), where the game declares it
        self.state_layout: StateLayout | None = None
        if spec.has("state_layout"):
            self.state_layout = state_layout(spec.state_layout, self.layout, self.options)
        self._state_space: spaces.Box | None = None  # built on first use (see state_space)
        self._rng: np.random.Generator | None = None
        self.game: Game | None = None
        self._legal: list[int] | None = None
        self._illegal_agent: str | None = None  # set when the protected env ended the game

    # ---- spaces -------------------------------------------------------------------------
    @property
    def state_space(self) -> spaces.Box:
        """The space of ``state()``, built when first asked for: its bounds are two float
        arrays of the state's length (about 22 KB for Kansas City), which an env that never
        serves a centralised critic need not hold. A game without a global state has none
        (``AttributeError``, so ``hasattr(env, "state_space")`` says whether there is one)."""
        if self.state_layout is None:
            raise AttributeError(f"{self.env_id} declares no global state (no state_space)")
        if self._state_space is None:
            low, high = self.state_layout.bounds()
            self._state_space = spaces.Box(low=low, high=high, dtype=OBS_DTYPE)
        return self._state_space

    # set by reset(); read before it, PettingZoo's sentence (see SetAtReset). Only ``agents``:
    # a name with such a class attribute is read more slowly (CPython does not specialise the
    # read), so the per-step names (rewards, infos, ...) keep Python's own AttributeError
    agents = SetAtReset("agents")  # type: ignore[assignment]

    @property
    def num_agents(self) -> int:
        agents = self.__dict__.get("agents")
        if agents is None:
            raise AttributeError("num_agents cannot be accessed before reset")
        return len(agents)

    @property
    def phase(self) -> str | None:
        """The name of the current phase (``phase_names[infos[agent]["phase"]]``):
        ``"game_over"`` once the game is over, None before the first reset."""
        game = self.game
        if game is None:
            return None
        return GAME_OVER if game.is_over else game.phase

    @property
    def spec(self) -> GameSpec:
        """The game's ``GameSpec`` (the same object as ``game_spec``)."""
        return self.game_spec

    def observation_space(self, agent: str) -> spaces.Space:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_space

    # ---- lifecycle ------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: Mapping[str, Any] | None = None) -> None:
        deal = None
        if options is not None and not isinstance(options, Mapping):
            raise ValueError(f"{self.env_id}: reset(options=...) takes a dict such as "
                             f"{{'deal': ...}} or None, got {short_repr(options)}")
        if options:
            unknown = set(options) - {"deal"}
            if unknown:
                # reset options are free-form in PettingZoo, so unknown ones are ignored; a
                # misspelt "deal" deserves a warning, but not the {"options": 1} that
                # PettingZoo's own api_test passes on every reset (said at debug level only)
                said = (f"ignoring unknown reset option(s) {sorted(unknown)}; "
                        "reset understands options={'deal': ...}")
                if unknown <= PETTINGZOO_TEST_OPTIONS:
                    logger.debug("%s: %s", self.env_id, said)
                else:
                    warnings.warn(said, stacklevel=2)
            deal = options.get("deal")
            if deal is not None:
                # one dict (the first hand's deal) or a whole-game list, one dict per hand
                per_hand = [deal] if isinstance(deal, Mapping) else deal
                if not isinstance(per_hand, (list, tuple)) or not all(
                    isinstance(d, Mapping) for d in per_hand
                ):
                    raise ValueError(
                        f"deal must be a dict with keys {self.game_cls.DEAL_KEYS} or a list of "
                        "such dicts, one per hand"
                    )
                for k, one in enumerate(per_hand):
                    extra = set(one) - set(self.game_cls.DEAL_KEYS)
                    if extra:
                        where = "" if isinstance(deal, Mapping) else f"deal of hand {k + 1}: "
                        raise ValueError(
                            f"{where}unknown deal key(s) {sorted(extra)}; {self.game_cls.NAME} "
                            f"deals accept {', '.join(self.game_cls.DEAL_KEYS)}"
                        )
        if seed is not None:
            try:
                rng = np.random.default_rng(seed)
            except (TypeError, ValueError):
                raise ValueError(f"{self.env_id}: reset(seed=...) takes a non-negative int or None, "
                                 f"got {short_repr(seed)}") from None
        elif self._rng is None:
            rng = np.random.default_rng()
        else:
            rng = self._rng
        # build the game on a copy of the generator so a malformed deal leaves everything as it was
        trial_rng = copy.deepcopy(rng)
        try:
            game = self.game_spec.new_game(self.options, trial_rng, deal)
        except ValueError as e:
            message = str(e)
            if len(message) <= DEAL_ERROR_SHOWN or deal is None:
                raise
            # a deal error quotes the deal's own text, which can be huge
            raise ValueError(message[:DEAL_ERROR_SHOWN] + " …") from None
        self._rng = trial_rng
        self.game = game
        self._legal = None
        self._illegal_agent = None
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self._skip_agent_selection = None
        # what the deal itself earns (cahoots_coop: goals met at setup in points mode; a game
        # over at the deal in win mode) is paid at once; each agent collects it through last()
        self._values = self.reward_rule.values(game)
        for a, value in zip(self.possible_agents, self._values):
            self.rewards[a] = self._cumulative_rewards[a] = value
        self._update_infos()
        if game.is_over:
            # a deal can end the game before the first decision (cahoots_coop: every goal met by
            # the starting piles, or the first player unable to play)
            self.agent_selection = self.possible_agents[0]
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.agent_selection = self.possible_agents[game.current_player]

    def close(self) -> None:
        pass

    # ---- observing ------------------------------------------------------------------------
    def _game_or_raise(self) -> Game:
        if self.game is None:
            raise EnvNotResetError(f"{self.env_id}: call reset() before step(), observe() or render()")
        return self.game

    def legal_actions(self) -> list[int]:
        """Legal action ids of the agent to move (cached until the next step)."""
        if self._legal is None:
            game = self._game_or_raise()
            self._legal = [] if game.is_over else game.legal_actions()
        return self._legal

    def _seat(self, agent: Any) -> int:
        try:
            return self.agent_name_mapping[agent]
        except (KeyError, TypeError):
            raise ValueError(f"{self.env_id}: unknown agent {short_repr(agent)}; the agents are "
                             + ", ".join(self.possible_agents)) from None

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        self._game_or_raise()
        return super().last(observe)

    def agent_iter(self, max_iter: int = 2**63) -> Any:
        self._game_or_raise()
        return super().agent_iter(max_iter)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        game = self._game_or_raise()
        obs = np.zeros(self._obs_size, OBS_DTYPE)
        game.encode(self._seat(agent), obs)
        return {"observation": obs, "action_mask": self.action_mask(agent)}

    def action_mask(self, agent: str | None = None) -> np.ndarray:
        """The mask alone (all zeros for an agent not to move, and once the game has ended)."""
        game = self._game_or_raise()
        agent = self.agent_selection if agent is None else agent
        mask = np.zeros(self.num_actions, np.int8)
        if (self._seat(agent) == game.current_player and not game.is_over
                and self._illegal_agent is None):
            mask[self.legal_actions()] = 1
        return mask

    def state(self) -> np.ndarray:
        """The global state (``state_space``): every seat's hand and private facts, one row per
        absolute seat, and every public fact once, with seats in absolute order; never the order
        of future chance events. Its index table is on the env's doc page; ``observation_from_state``
        of ``env.state_layout`` rebuilds any seat's observation from it."""
        game = self._game_or_raise()
        if self.state_layout is None:
            raise NotAvailableError(f"global state is not available for {self.game_spec.name} "
                                    "(its GameSpec declares no state_layout)")
        return self.state_layout.encode(game, np.zeros(self.state_layout.size, OBS_DTYPE))

    # ---- stepping -------------------------------------------------------------------------
    def step(self, action: Any) -> None:
        """Play action id ``action`` for the agent to move. Accepted: what
        ``gymnasium.spaces.Discrete.contains`` accepts (Python ints, numpy integer scalars, 0-d
        integer arrays, which is what SB3's ``predict`` returns), bools excepted; anything else,
        and an id out of range, raises ``IllegalActionError`` and changes nothing, in both envs.
        A legal id of a masked-out move: see ``raw_env`` / ``env``."""
        game = self._game_or_raise()
        agent = self.agent_selection
        if not self.agents:
            raise IllegalActionError(f"{self.env_id}: the game is over and every agent has left "
                                     "the loop; call reset() to play again")
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        act = action if type(action) is int else action_id(action)
        if act is None:
            # a wrong type is always an error, in the protected env too (not an illegal move)
            raise IllegalActionError(
                f"{agent} cannot play {short_repr(action)} (a {type(action).__name__}): an action "
                f"is an id 0..{self.num_actions - 1} given as a Python int, a numpy integer or a "
                "0-d integer array (not a bool, a float or a string); the env is unchanged; "
                "legal: " + describe_actions(game, self.legal_actions())
            )
        legal = self._legal if self._legal is not None else self.legal_actions()
        if act not in legal:
            self._refuse(agent, act, legal)
            return
        game.apply(act)
        self._legal = None
        self._cumulative_rewards[agent] = 0.0
        rewards = self.rewards
        before, after = self._values, self.reward_rule.values(game)
        for i, a in enumerate(self.possible_agents):
            rewards[a] = after[i] - before[i]
        self._values = after
        if game.is_over:
            for a in self.agents:
                self.terminations[a] = True
        else:
            self.agent_selection = self.possible_agents[game.current_player]
        self._accumulate_rewards()
        self._update_infos()

    def _refuse(self, agent: str, action: int, legal: list[int]) -> None:
        in_range = 0 <= action < self.num_actions
        game = self.game
        assert game is not None
        if not in_range or not self.protected:
            what = (
                f"action {action} (out of range 0..{self.num_actions - 1})" if not in_range
                else f"action {action} ({game.action_to_str(action)!r})"
            )
            raise IllegalActionError(
                f"{agent} cannot play {what} in phase {game.phase!r}; legal: "
                + describe_actions(game, legal)
            )
        # protected env: behave like TerminateIllegalWrapper(illegal_reward=-1)
        warnings.warn(
            f"[WARNING]: Illegal move made by {agent} ({game.action_to_str(action)!r}), "
            "game terminating with current player losing.",
            stacklevel=2,
        )
        self._illegal_agent = agent
        self._cumulative_rewards[agent] = 0.0
        self.terminations = dict.fromkeys(self.agents, True)
        self.truncations = dict.fromkeys(self.agents, True)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self.rewards[agent] = ILLEGAL_ACTION_REWARD
        self._accumulate_rewards()
        self._deads_step_first()

    def _update_infos(self) -> None:
        game = self.game
        assert game is not None
        # numbers only (CONTRACT §7): the phase by its index into ``phase_names``
        phase = self._phase_index[GAME_OVER if game.is_over else game.phase]
        scores = game.scores
        self.infos = {  # the score is a float in every game (some count points in ints)
            a: {"score": float(scores[self.agent_name_mapping[a]]), "phase": phase}
            for a in self.agents
        }

    # ---- the final result ------------------------------------------------------------------
    def result(self) -> dict[str, Any]:
        """A finished game's result, also after the AEC loop has ended (when ``infos`` is
        empty): ``scores`` (rulebook points per seat), ``outcome`` (the ``reward_mode='win'``
        payoffs per seat), ``winners`` (seats; a full tie or a lost cooperative game has none),
        ``agents`` (the agent of each seat) and ``ended_by`` (``"rules"``, or
        ``"illegal_action"`` when the protected env ended the game: that agent gets -1 and
        nobody wins). Every API that reports a finished game uses these field names."""
        game = self._game_or_raise()
        agents = list(self.possible_agents)
        scores = [float(s) for s in game.scores]
        if self._illegal_agent is not None:
            outcome = [ILLEGAL_ACTION_REWARD if a == self._illegal_agent else 0.0 for a in agents]
            return {"scores": scores, "outcome": outcome, "winners": [], "agents": agents,
                    "ended_by": "illegal_action"}
        if not game.is_over:
            raise RuntimeError(f"{self.env_id}: the game is not over yet (phase {game.phase!r}); "
                               "result() reports a finished game")
        return {"scores": scores, "outcome": [float(x) for x in game.outcome()],
                "winners": game.winning_seats(), "agents": agents, "ended_by": "rules"}

    # ---- notation, rendering, cloning ---------------------------------------------------
    def action_to_str(self, action: int) -> str:
        """The notation of action id ``action`` (``ValueError`` for anything but an id
        0..num_actions-1 of an accepted type, see ``step``)."""
        game = self._game_or_raise()
        a = action_id(action)
        if a is None or not 0 <= a < self.num_actions:
            raise ValueError(f"{self.env_id}: {short_repr(action)} is not an action id "
                             f"0..{self.num_actions - 1}")
        return game.action_to_str(a)

    def str_to_action(self, text: str) -> int:
        """The action id of move ``text`` in notation, legal now (``ValueError`` otherwise)."""
        game = self._game_or_raise()
        if not isinstance(text, str):
            raise ValueError(f"{self.env_id}: str_to_action takes a move in notation (a str), "  # noqa: TRY004
                             f"got {short_repr(text)}")
        return game.str_to_action(text)

    def render(self) -> str | np.ndarray | None:
        """``'ansi'``: the spectator table as text; ``'human'``: printed; ``'rgb_array'``: the
        referee's table as an HxWx3 ``uint8`` frame (``core/frame.py``)."""
        if self.render_mode is None:
            warnings.warn("render() called without a render_mode; pass render_mode='ansi', "
                          "'human' or 'rgb_array'")
            return None
        if self._frames is not None:
            return self._frames.frame(self._game_or_raise(), None)
        text = self._game_or_raise().render()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def clone(self) -> CardGameEnv:
        """An independent env in the same state (faster than ``copy.deepcopy``; spaces shared)."""
        twin = copy.copy(self)
        if self.game is not None:
            twin.game = self.game.clone()
            # reset() gives the game the env's own generator (one object, so an unseeded reset
            # continues the stream the game drew from); the twin keeps that identity
            shared = self._rng is not None and getattr(self.game, "rng", None) is self._rng
            twin._rng = twin.game.rng if shared else copy.deepcopy(self._rng)  # type: ignore[attr-defined]
            twin.agents = self.agents[:]
            twin.rewards = dict(self.rewards)
            twin._cumulative_rewards = dict(self._cumulative_rewards)
            twin.terminations = dict(self.terminations)
            twin.truncations = dict(self.truncations)
            twin.infos = {a: dict(i) for a, i in self.infos.items()}
            twin._values = list(self._values)
            twin._legal = None
        return twin

    def __str__(self) -> str:
        return str(self.metadata["name"])


def env_factories(spec: GameSpec) -> tuple[Callable[..., CardGameEnv], Callable[..., CardGameEnv]]:
    """The ``raw_env`` / ``env`` pair of a game module (CONTRACT §1)."""

    def raw_env(**options: Any) -> CardGameEnv:
        """The bare env: illegal actions raise ``IllegalActionError`` and change nothing."""
        return CardGameEnv(spec, protected=False, **options)

    def env(**options: Any) -> CardGameEnv:
        """The protected env: an illegal action gives that agent -1 and ends the game, as
        PettingZoo's classic wrappers do; out-of-range actions and use before reset are errors."""
        return CardGameEnv(spec, protected=True, **options)

    return raw_env, env
