"""``SeatEnv``: a gymnasium env in which one learning seat plays against an opponent pool.

>>> from cahoots_envs.training import SeatEnv
>>> env = SeatEnv("kansas_city-v1", opponents="random")
>>> obs, info = env.reset(seed=0)
>>> obs, reward, terminated, truncated, info = env.step(int(env.action_masks().argmax()))

The learner's seat is drawn each episode (or fixed with ``learner_seat``); every other seat gets
a policy drawn from the pool each episode. Observations are the learner's own flat observation;
``action_masks()`` serves MaskablePPO, and ``info["action_mask"]`` carries the same mask at reset
and every step (Gymnasium's vector envs pass infos on, not methods). Infos hold numbers only,
the same keys at every step (CONTRACT §7): ``learner_seat``, ``score``, ``phase`` (an index into
``env.phase_names``), ``outcome`` and ``is_success`` (0.0 / False until the game is over),
``illegal_action`` and ``action_mask``; the opponents' names are ``env.opponent_names``.

Once the episode is over the mask is never empty: it is the placeholder mask, whose one legal
action is ``PLACEHOLDER_ACTION`` (0), so that a masked sampler in a vector env can draw the action
that Gymnasium's autoreset step then ignores (the env resets instead). Before 0.3 it was all zero;
read ``terminated`` / ``truncated`` for the end of an episode, not the mask. Rewards follow the env's ``reward_mode`` for the learner's
seat, summed since its last decision (see ``tables.py``). For a cooperative game,
``team=True`` lets the learner play every seat (one shared policy) for the team's reward.
"""

from __future__ import annotations

import difflib
import functools
import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ParamSpec

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from cahoots_envs.core.aec import ILLEGAL_ACTION_REWARD
from cahoots_envs.core.driver import RewardRule, fill_mask, fill_observation
from cahoots_envs.core.frame import RENDER_FPS, FrameRenderer, require_pillow
from cahoots_envs.core.game import GAME_OVER, action_id, phase_indices, phase_names
from cahoots_envs.core.layout import OBS_DTYPE
from cahoots_envs.core.parallel import PLACEHOLDER_ACTION
from cahoots_envs.core.policy import Policy
from cahoots_envs.core.text import short_repr
from cahoots_envs.errors import IllegalActionError
from cahoots_envs.evaluation.tables import TEAM, Table, advance, reseed
from cahoots_envs.policies.envinfo import EnvInfo, env_info
from cahoots_envs.registry import game_spec, seat_env_id
from cahoots_envs.training.pool import OpponentPool

Opponents = OpponentPool | Policy | str | Sequence[Policy]
P = ParamSpec("P")


def unknown_arguments_error(owner: str, env_id: str, unknown: Sequence[str],
                            arguments: Sequence[str], options_as_keywords: bool = False
                            ) -> ValueError:
    """The one-line error for keywords that ``owner`` (a seat env) does not take: each one is
    neither an argument of ``owner`` nor an option of ``env_id``'s game (the message lists both
    and suggests a close match), or a game option given where ``owner`` wants it in
    ``options={...}``. ``options_as_keywords``: ``owner`` takes the game options as keywords too
    (the Gymnasium ids)."""

    spec = game_spec(env_id)  # an unknown id is the first thing to hear about
    game_options = [o.name for o in spec.rules.OPTIONS]
    problems = []
    for name in unknown:
        if name in game_options and not options_as_keywords:
            problems.append(f"{name!r} is a game option of {spec.env_id}: {owner} takes it in "
                            f"options={{{name!r}: ...}}")
            continue
        close = difflib.get_close_matches(name, [*arguments, *game_options], n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        problems.append(f"unknown option or argument {short_repr(name)}: neither an argument "
                        f"of {owner} nor a game option of {spec.env_id}{hint}")
    where = "" if options_as_keywords else " (in options={...})"
    return ValueError(f"{'; '.join(problems)}. {owner} takes {', '.join(arguments)}; the game "
                      f"options of {spec.env_id}{where}: {', '.join(game_options)}")


def seat_env_arguments(init: Callable[P, None]) -> Callable[P, None]:
    """Decorates a seat env's ``__init__(self, env_id, ...)``: a keyword it does not take raises
    ``unknown_arguments_error`` (one line naming the env's arguments and the game's options)
    rather than Python's ``TypeError``; the signature stays as written (type checkers see it)."""
    arguments = [name for name in inspect.signature(init).parameters if name != "self"]

    @functools.wraps(init)
    def checked(*args: P.args, **kwargs: P.kwargs) -> None:
        unknown = [name for name in kwargs if name not in arguments]
        if unknown:
            owner = type(args[0]).__name__ if args else "seat env"
            env_id = args[1] if len(args) > 1 else kwargs.get("env_id")
            if isinstance(env_id, str):
                raise unknown_arguments_error(owner, env_id, unknown, arguments)
        init(*args, **kwargs)

    return checked


def make_pool(env_id: str, options: Mapping[str, Any] | None, opponents: Opponents,
              seed: int | None = None) -> OpponentPool | list[Policy]:
    """An ``OpponentPool`` from a pool, a policy, or a spec string; a sequence of policies stays a
    fixed seating (one per other seat, clockwise from the learner)."""
    if isinstance(opponents, OpponentPool):
        return opponents
    if isinstance(opponents, str):
        return OpponentPool.from_specs(env_id, options, {opponents: 1.0}, seed=seed)
    if isinstance(opponents, Sequence):
        return [p for p in opponents if not isinstance(p, str)]
    return OpponentPool.single(opponents, getattr(opponents, "name", "opponent"))


def illegal_learner_action(action: int, game: int, others: int, num_actions: int,
                           phase: str | None = None) -> str:
    """The message of a learner's action that is not legal in game ``game`` (``others``: how
    many more games got one), for ``SeatVecEnv`` and the batched seat envs."""
    what = f"action {action}" + (f" (out of range 0..{num_actions - 1})"
                                 if not 0 <= action < num_actions else "")
    where = f"game {game}" + (f" (phase {phase!r})" if phase is not None else "")
    more = f" (and {others} other games)" if others else ""
    return (f"learner {what} is illegal in {where}{more}; no game changed (pass the action "
            "masks to the learner)")


class TableMaker:
    """Deals new tables: a game from the seeded generator, a learner seat, opponents."""

    def __init__(self, info: EnvInfo, opponents: OpponentPool | list[Policy],
                 learner_seat: int | None, team: bool) -> None:
        n = info.options["num_players"]
        if team and not info.game_cls.COOPERATIVE:
            raise ValueError(f"team mode is for cooperative games; {info.env_id} is competitive")
        if learner_seat is not None and not 0 <= learner_seat < n:
            raise ValueError(f"learner_seat {learner_seat} is not a seat of a {n}-player game")
        if isinstance(opponents, list) and len(opponents) != n - 1 and not team:
            raise ValueError(f"a fixed seating needs {n - 1} opponents, got {len(opponents)}")
        self.info = info
        self.num_players = n
        self.opponents = opponents
        self.learner_seat = learner_seat
        self.team = team
        self.reward_rule = RewardRule.of(info.game_cls, info.options)

    def deal(self, rng: np.random.Generator, deal: Mapping[str, Any] | None = None,
             learner_seat: int | None = None) -> Table:
        n = self.num_players
        game = self.info.game_cls(self.info.options, np.random.default_rng(rng.integers(2**63)), deal)
        if self.team:
            return Table(game, TEAM, [None] * n, ["learner"] * n, self.reward_rule)
        seat = learner_seat if learner_seat is not None else self.learner_seat
        if seat is None:
            seat = int(rng.integers(n))
        policies: list[Policy | None] = [None] * n
        names = ["learner"] * n
        for rel in range(1, n):
            other = (seat + rel) % n
            if isinstance(self.opponents, list):
                policy = self.opponents[rel - 1]
                names[other] = getattr(policy, "name", f"opponent_{rel}")
            else:
                entry = self.opponents.sample(rng)
                policy, names[other] = entry.policy, entry.name
            policies[other] = policy
        return Table(game, seat, policies, names, self.reward_rule)

    def all_policies(self) -> list[Policy]:
        if isinstance(self.opponents, list):
            return list(self.opponents)
        return [e.policy for e in self.opponents.entries()]


def seat_setup(
    env_id: str, options: Mapping[str, Any] | None, opponents: Opponents,
    learner_seat: int | None, team: bool, seed: int | None,
) -> tuple[EnvInfo, TableMaker, spaces.Box, spaces.Discrete]:
    """What ``SeatEnv`` and ``SeatVecEnv`` both build: the resolved env, the table maker with its
    opponents, and the learner's observation and action spaces."""
    game_options = dict(options or {})
    info = env_info(env_id, game_options)
    maker = TableMaker(info, make_pool(env_id, game_options, opponents, seed), learner_seat, team)
    low, high = info.layout.bounds()
    return (info, maker, spaces.Box(low=low, high=high, dtype=OBS_DTYPE),
            spaces.Discrete(info.num_actions))


class SeatEnv(gym.Env):
    """One learner seat against opponents drawn per episode (see the module docstring).

    ``opponents``: an ``OpponentPool``, a ``Policy``, a spec (``"random"``, ``"heuristic"``,
    ``"zoo:..."``, a path), or a list of N-1 policies seated clockwise from the learner.
    ``reset(options={"deal": ..., "learner_seat": ...})`` plays a scripted deal.
    An illegal action ends the episode with reward -1 as the protected AEC env does
    (``illegal_action="raise"`` raises ``IllegalActionError`` instead); with masks it never happens.
    """

    # gymnasium's attribute: 'ansi' the spectator table as text, 'rgb_array' the learner seat's
    # table as an image frame (core/frame.py; the referee's with team=True)
    metadata: dict[str, Any] = {"render_modes": ["ansi", "rgb_array"],  # noqa: RUF012
                                "render_fps": RENDER_FPS}

    @seat_env_arguments
    def __init__(
        self,
        env_id: str,
        options: Mapping[str, Any] | None = None,
        opponents: Opponents = "random",
        learner_seat: int | None = None,
        team: bool = False,
        seed: int | None = None,
        render_mode: str | None = None,
        illegal_action: str = "terminate",
    ) -> None:
        super().__init__()
        if illegal_action not in ("terminate", "raise"):
            raise ValueError(f"illegal_action={illegal_action!r}; use 'terminate' or 'raise'")
        self.illegal_action = illegal_action
        self.info, self.maker, self.observation_space, self.action_space = seat_setup(
            env_id, options, opponents, learner_seat, team, seed)
        self.env_id = self.info.env_id
        self.options = self.info.options
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode={short_repr(render_mode)}; use None, 'ansi' or "
                             "'rgb_array'")
        self.render_mode = render_mode
        self._frames: FrameRenderer | None = None
        if render_mode == "rgb_array":
            require_pillow(self.env_id)
            self._frames = FrameRenderer(self.info.spec, self.options["num_players"])
        self.table: Table | None = None
        self._ended = False
        self._obs = np.zeros(self.info.layout.size, OBS_DTYPE)
        self._mask = np.zeros(self.info.num_actions, np.int8)
        self._placeholder = np.zeros(self.info.num_actions, np.int8)
        self._placeholder[PLACEHOLDER_ACTION] = 1
        self._mask_now: np.ndarray = self._placeholder  # the mask _info last filled
        self.phase_names: tuple[str, ...] = phase_names(self.info.game_cls)
        self._phase_index = phase_indices(self.info.game_cls)
        if seed is not None:
            self.np_random, _ = gym.utils.seeding.np_random(seed)

    @property
    def pool(self) -> OpponentPool | list[Policy]:
        return self.maker.opponents

    @property
    def game(self) -> Any:
        return None if self.table is None else self.table.game

    @property
    def phase(self) -> str | None:
        """The current phase's name (``phase_names[info["phase"]]``; None before reset)."""
        g = self.game
        return None if g is None else (GAME_OVER if g.is_over else g.phase)

    @property
    def opponent_names(self) -> tuple[str, ...]:
        """This episode's opponents by name, clockwise from the learner (empty before reset and
        in team mode)."""
        t = self.table
        if t is None or t.learner == TEAM:
            return ()
        n = len(t.names)
        return tuple(t.names[(t.learner + rel) % n] for rel in range(1, n))

    def reset(self, *, seed: int | None = None,
              options: Mapping[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:
            # reproducible episodes: the opponents' own generators restart with the env's seed
            for i, policy in enumerate(self.maker.all_policies()):
                reseed(policy, seed * 7919 + i + 1)
        options = dict(options or {})
        unknown = set(options) - {"deal", "learner_seat"}
        if unknown:
            raise ValueError(f"unknown reset option(s) {sorted(unknown)}; "
                             "SeatEnv.reset understands 'deal' and 'learner_seat'")
        for _ in range(1000):
            table = self.maker.deal(self.np_random, options.get("deal"), options.get("learner_seat"))
            advance([table], self.info)
            if not table.game.is_over:
                break
            # the game ended before the learner's first decision: nothing to learn, deal again
        else:
            raise RuntimeError("every deal ended before the learner could move")
        self.table = table
        self._ended = False
        return self._observe(), self._info(illegal=False)

    def _observe(self) -> np.ndarray:
        assert self.table is not None
        return fill_observation(self.table.game, self.table.obs_seat, self._obs).copy()

    def _info(self, illegal: bool) -> dict[str, Any]:
        t = self.table
        assert t is not None
        g = t.game
        over = g.is_over
        return {
            "learner_seat": t.learner,
            "score": float(g.scores[t.reward_seat]),
            "phase": self._phase_index[GAME_OVER if over else g.phase],
            "outcome": float(g.outcome()[t.reward_seat]) if over else 0.0,
            "is_success": bool(t.won()) if over else False,
            "illegal_action": illegal,
            "action_mask": self._refresh_mask().copy(),
        }

    def _refresh_mask(self) -> np.ndarray:
        """The learner's legal actions now as int8, filled once per reset or step (``_info``
        calls it) and kept for ``action_masks()``: the placeholder mask once it is over."""
        assert self.table is not None
        if self._ended or self.table.game.is_over:
            self._mask_now = self._placeholder
        else:
            self._mask_now = fill_mask(self.table.game, self._mask)
        return self._mask_now

    def action_masks(self) -> np.ndarray:
        """Legal actions of the learner now; once the episode is over, the placeholder mask
        (only ``PLACEHOLDER_ACTION`` legal; the reset that follows ignores it): never empty."""
        if self.table is None:
            raise RuntimeError("call reset() before action_masks()")
        return self._mask_now.astype(bool)

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        t = self.table
        if t is None:
            raise RuntimeError("call reset() before step()")
        g = t.game
        if self._ended or g.is_over:
            raise RuntimeError("the episode is over; call reset()")
        given = action
        action = action_id(given)  # what gymnasium's Discrete accepts, bools excepted
        if action is None:
            raise IllegalActionError(
                f"learner action {short_repr(given)} is not an action id; step() takes a Python "
                "int, a numpy integer or a 0-d integer array (not a bool, float or string)"
            )
        legal = g.legal_actions()
        if action not in legal:
            if self.illegal_action == "raise" or not 0 <= action < self.info.num_actions:
                shown = ", ".join(f"{a} ({g.action_to_str(a)})" for a in legal[:20])
                raise IllegalActionError(
                    f"learner cannot play action {action} in phase {g.phase!r}; legal: {shown}"
                    + (f" and {len(legal) - 20} more" if len(legal) > 20 else "")
                )
            # like the protected AEC env (TerminateIllegalWrapper): the learner loses, game over
            self._ended = True
            info = self._info(illegal=True)
            return self._obs.copy(), ILLEGAL_ACTION_REWARD, True, False, info
        g.apply(action)
        advance([t], self.info)
        reward = t.collect()
        return self._observe(), reward, g.is_over, False, self._info(illegal=False)

    def render(self) -> str | np.ndarray | None:
        """``'ansi'``: the spectator table as text; ``'rgb_array'``: the learner seat's table
        (the referee's when one learner plays every seat, ``team=True``) as an HxWx3 ``uint8``
        frame. None before reset."""
        if self.table is None:
            return None
        if self._frames is not None:
            t = self.table
            return self._frames.frame(t.game, None if t.learner == TEAM else t.learner)
        return self.table.game.render()


# the SeatEnv arguments a Gymnasium id takes as keywords, beside the game's options
SEAT_ARGUMENTS = ("opponents", "learner_seat", "team", "seed", "illegal_action", "render_mode")


def split_seat_kwargs(env_id: str, kwargs: Mapping[str, Any], arguments: Sequence[str],
                      owner: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """A Gymnasium entry point's keywords, parted into the seat env's ``arguments`` and the
    game's options (``options={...}`` and the options given as keywords), the options checked;
    anything else is one line (``unknown_arguments_error``) naming ``owner``'s arguments and the
    game's options."""

    spec = game_spec(env_id)
    known = {*arguments, "options", *(o.name for o in spec.rules.OPTIONS)}
    unknown = [k for k in kwargs if k not in known]
    if unknown:  # a misspelt seat-env argument is not just "an unknown game option"
        raise unknown_arguments_error(owner, env_id, unknown, (*arguments, "options"),
                                      options_as_keywords=True)
    rest = dict(kwargs)
    seat = {k: rest.pop(k) for k in arguments if k in rest}
    options = rest.pop("options", None)
    if options is not None and not isinstance(options, dict):
        raise ValueError(f"options= takes a dict of game options, got {type(options).__name__}")
    game_options = {**(options or {}), **rest}
    spec.resolve_options(dict(game_options))  # one line naming what is wrong, before any deal
    return seat, game_options


def make_seat_env(env_id: str, **kwargs: Any) -> SeatEnv:
    """Gymnasium's entry point for a game's seat env (``registry.SEAT_ENTRY_POINT``, registered
    by name): ``gymnasium.make("cahoots_envs/<game>_seat-v1", **kwargs)`` takes the ``SeatEnv``
    arguments (``opponents``, ``learner_seat``, ``team``, ``seed``, ``illegal_action``,
    ``render_mode``), ``options={...}`` and the game's options as keywords (``num_players``,
    ...); anything else is one line naming both kinds."""

    seat, game_options = split_seat_kwargs(env_id, kwargs, SEAT_ARGUMENTS,
                                           seat_env_id(game_spec(env_id)))
    return SeatEnv(env_id, game_options, **seat)
