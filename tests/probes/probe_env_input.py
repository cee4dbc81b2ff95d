"""Fire bad input at every env and count how it is refused.

For every registered game, each of its player counts and declared test variants (and the test
game ``high_card`` when run from the repository), in the raw and the protected env:

- ``step junk``: random games in which, at random decisions, the agent to move is given junk
  actions of many kinds (floats, bools, strings, None, lists, arrays of other shapes and dtypes,
  out-of-range ids, huge strings, NaN, objects); the raw env also gets masked-out ids;
- ``step after end``: junk actions once an agent is dead or the AEC loop is over;
- ``bad deal``: ``reset(options={"deal": ...})`` with junk deals and real deal records with one
  key broken (wrong types, missing or extra cards, bad seats, wrong lengths);
- ``bad reset``: reset options that are not a mapping, unknown deal keys, bad seeds;
- ``bad option``: ``make`` with junk values for every option and unknown options;
- ``option combination``: ``make`` with every value each option accepts alone, singly and in
  pairs, at the case's player count: refused there (one ``ValueError`` line) or accepted and
  then dealt by ``reset``; a combination ``make`` accepts and ``reset`` refuses (the cooperative
  game's table talk with 1 player or open hands, before it was checked at ``make``) fails;
- ``unknown agent``: ``observe`` / ``action_mask`` with names that are not agents;
- ``notation``: ``action_to_str`` with junk ids, ``str_to_action`` with junk text;
- ``before reset``: every call that needs a game, on a fresh env;
- ``seat env args``: ``SeatEnv``, ``SeatVecEnv``, ``BatchedSeatVecEnv`` and the Gymnasium id
  ``cahoots_envs/<game>_seat-vN`` built with misspelt arguments and options, unknown keywords and
  (for the classes, which take them in ``options=``) game options as keywords: the message must
  also name the entry point's arguments and the game's options, on one line;
- ``vec step junk``: ``VectorGames.step``, ``SeatVecEnv.step`` and ``BatchedSeatVecEnv.step``
  given junk batches (floats such as 3.9, numeric strings, bools, other shapes, ragged lists,
  scalars) and batches with one masked-out or out-of-range id; each env's state (its arrays,
  its games and its generators) compared before and after;
- ``state junk``: ``state_layout.observation_from_state`` with states of the wrong type, dtype
  or length and seats that are not seats.

The seat-env and batched probes need stable-baselines3 (the ``train`` extra) and, for the batched
envs, numba (the ``fast`` extra); without them those probes are left out (the output says so).

Every probe expects one exception type (``IllegalActionError`` for ``step``, ``EnvNotResetError``
before ``reset``, ``ValueError`` otherwise) with a non-empty message of at most 2,000 characters,
and, where there is a state, that state unchanged: every agent's observation and mask, the agent
to move, rewards, terminations, infos, the rendered table, the deal records and the state of
the env's and the game's generators, compared before and after. A probe that raises nothing is
counted as accepted (a mutated deal can still be a valid deal); any other exception type is
counted as unexpected and listed.

    python tests/probes/probe_env_input.py [--games 8] [--seed 0] [--markdown] [--envs NAMES]
        [--verbose]

``--envs`` keeps the named games only (comma-separated, e.g. ``--envs kansas_city,high_card``):
a smaller run, for the test suite (``tests/test_probes.py``) and for a look at one game.

Exits 1 when any probe raised an unexpected exception type, gave no or an overlong message, or
changed the state after refusing.
"""

from __future__ import annotations

import argparse
import copy
import sys
import time
import warnings
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np

import cahoots_envs
from cahoots_envs import EnvNotResetError, IllegalActionError

MAX_MESSAGE = 2000
CATEGORIES = ["step junk", "step after end", "bad deal", "bad reset", "bad option",
              "option combination", "unknown agent", "notation", "before reset",
              "seat env args", "vec step junk", "state junk", "policy spec", "game spec"]
STATELESS = ("bad option", "option combination", "seat env args", "state junk",
             "policy spec")  # no env state


# ---- the envs ---------------------------------------------------------------------------------

def register_test_game() -> None:
    """Register the test game when run from a checkout (it is not part of the package)."""
    root = Path(__file__).resolve().parents[2]
    if (root / "tests" / "plugin_game").is_dir():
        sys.path.insert(0, str(root))
        try:
            from tests.plugin_game.spec import SPEC
        except ImportError:
            return
        if SPEC.name not in {s.name for s in cahoots_envs.registered_games()}:
            cahoots_envs.register_game(SPEC)


def cases() -> list[tuple[str, dict[str, Any]]]:
    out = []
    for spec in cahoots_envs.registered_games():
        for n in spec.rules.PLAYER_COUNTS:
            out.append((spec.name, {"num_players": n}))
        for variant in spec.rules.TEST_VARIANTS:
            out.append((spec.name, dict(variant)))
    return out


def case_label(game: str, opts: dict[str, Any]) -> str:
    return game + "(" + ", ".join(f"{k}={v}" for k, v in opts.items()) + ")"


def make(game: str, protected: bool, **opts: Any) -> Any:
    return cahoots_envs.make(game, **opts) if protected else cahoots_envs.make_raw(game, **opts)


# ---- state fingerprints -------------------------------------------------------------------------

def rng_state(rng: Any) -> str:
    return "none" if rng is None else repr(rng.bit_generator.state)


def fingerprint(env: Any) -> tuple:
    """Everything observable about the env, and its generators' states."""
    u = env.unwrapped
    game = u.game
    if game is None:
        return ("not reset", rng_state(u._rng))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        views = tuple(
            (a, u.observe(a)["observation"].tobytes(), u.observe(a)["action_mask"].tobytes())
            for a in u.possible_agents
        )
    return (
        views, u.agent_selection, tuple(u.agents), repr(u.rewards), repr(u._cumulative_rewards),
        repr(u.terminations), repr(u.truncations), repr(u.infos), game.render(),
        repr(game.deals), game.phase, game.is_over, repr(game.scores),
        rng_state(u._rng), rng_state(getattr(game, "rng", None)),
    )


# ---- junk ---------------------------------------------------------------------------------------

def short_repr(value: Any, limit: int) -> str:
    text = repr(value[:limit] if isinstance(value, (str, list)) else value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


class Opaque:
    def __repr__(self) -> str:
        return "<Opaque>"


def junk_values(n: int) -> list[Any]:
    """Values of many kinds; ``n`` is the number of actions (ids 0..n-1)."""
    return [
        None, True, False, np.bool_(True), np.array(True), 1.0, 0.0, 5.0, -1.0, float("nan"),
        float("inf"), np.float64(1), np.float32(2), np.float16(0), np.array(1.0), 1 + 0j,
        "0", "1", "", "play", "x" * 100_000, b"1", bytearray(b"1"), [0], [1], (0,), {0},
        {0: 1}, {"a": 1}, np.array([0]), np.array([[1]]), np.array([0, 1]), np.zeros(0, int),
        np.array(0, dtype=object), np.array("1"), slice(0, 1), range(1), Opaque(), object(),
        Exception("x"), type, len, -1, -(2**63), 2**63, 2**70, -(2**70), n, n + 1, 10**9,
        np.int64(-1), np.uint64(2**64 - 1), np.int8(-128), np.array(n), np.array(-1),
    ]


def junk_for_step(n: int, rng: np.random.Generator, k: int) -> list[Any]:
    pool = junk_values(n)
    return [pool[i] for i in rng.choice(len(pool), size=min(k, len(pool)), replace=False)]


def junk_deals(env: Any) -> Iterator[tuple[str, Any]]:
    """(description, deal): junk deals, then real deal records (of the env's current game) with
    one key broken."""
    for deal in [5, "deal", [5], [[1]], (1, 2), [{}, 5], {"no_such_key": 1},
                 [{"no_such_key": 1}], [{}] * 1000, {(1, 2): 3}, {None: 1}]:
        yield f"junk {short_repr(deal, 30)}", deal
    u = env.unwrapped
    real = copy.deepcopy(u.game.deals[0])
    keys = list(u.game_cls.DEAL_KEYS)
    bad_values: list[Any] = [None, 5, -1, 99, 1.5, True, "x", "", [], [None], [[]], [5],
                             [["??"]], {"a": 1}, Opaque(), float("nan"), ["x" * 100_000],
                             np.array([1, 2])]
    for key in keys:
        for value in bad_values:
            yield f"{key}={short_repr(value, 30)}", {**real, key: value}
        value = real.get(key)
        if isinstance(value, list) and value:
            yield f"{key}: one entry short", {**real, key: value[:-1]}
            yield f"{key}: one entry too many", {**real, key: value + value[:1]}
            if isinstance(value[0], list) and value[0]:
                moved = [list(v) for v in value]
                moved[-1].append(moved[0].pop())
                yield f"{key}: a card moved to another seat", {**real, key: moved}
                dup = [list(v) for v in value]
                dup[0][-1] = dup[-1][0]
                yield f"{key}: a card duplicated", {**real, key: dup}
                lost = [list(v) for v in value]
                lost[0] = lost[0][:-1]
                yield f"{key}: a card lost", {**real, key: lost}
                yield f"{key}: bad card names", {**real, key: [[str(c).lower() + "?" for c in v]
                                                              for v in value]}
                yield f"{key}: ints for cards", {**real, key: [[1, 2, 3] for v in value]}
            elif isinstance(value[0], str):
                yield f"{key}: a bad entry", {**real, key: value[:-1] + ["ZZ"]}
                yield f"{key}: one entry repeated", {**real, key: [value[0]] * len(value)}
        if len(keys) > 1:
            yield f"{key} left out", {k: v for k, v in real.items() if k != key}
    yield "whole-game list, hand 2 broken", [real, {**real, keys[-1]: None}]
    yield "whole-game list of 10,000 hands", [real] * 10_000


def junk_options(game_cls: Any) -> Iterator[tuple[str, Any]]:
    values: list[Any] = [None, True, 1.5, -1, 0, 10**9, "", "x" * 10_000, [], {}, Opaque(),
                         float("nan"), np.array([1, 2]), "4", 4.0]
    for option in game_cls.OPTIONS:
        for value in values:
            yield option.name, value
    yield "no_such_option", 1
    yield "render_mode", "gif"
    yield "render_mode", 5


# ---- the probe ----------------------------------------------------------------------------------

class Tally:
    def __init__(self) -> None:
        self.counts: dict[str, Counter] = defaultdict(Counter)
        self.unexpected: Counter = Counter()  # one line per kind of failure, counted over envs
        self.example: dict[str, str] = {}
        self.accepted: Counter = Counter()
        self.longest: Counter = Counter()

    def probe(self, category: str, label: str, env: Any | None,
              expected: type[BaseException] | tuple[type[BaseException], ...],
              what: str, call: Callable[..., Any], *args: Any,
              state: Callable[[], Any] | None = None,
              message_names: tuple[str, ...] = (), **kwargs: Any) -> bool:
        """Run ``call(*args, **kwargs)``; True when it raised ``expected`` (and then the state of
        ``env``, or what ``state()`` returns, is checked unchanged, and the message checked to
        name every word of ``message_names`` on one line)."""
        c = self.counts[category]
        c["probes"] += 1
        if state is None and env is not None:
            state = lambda: fingerprint(env)
        before = state() if state is not None else None
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                call(*args, **kwargs)
        except expected as e:
            message = str(e)
            c["refused"] += 1
            self.longest[category] = max(self.longest[category], len(message))
            if not message.strip() or len(message) > MAX_MESSAGE:
                c["bad message"] += 1
                size = "no" if not message.strip() else f"over {MAX_MESSAGE:,} characters of"
                self.note(f"{category}: {size} message for {what}", f"{label}: {len(message)}")
            elif message_names:
                lacking = [w for w in message_names if w not in message]
                if lacking or "\n" in message:
                    c["bad message"] += 1
                    self.note(f"{category}: message for {what} lacks "
                              f"{'a line break' if not lacking else 'the names'}",
                              f"{label}: lacks {lacking[:3]}: {message[:100]}")
            if state is not None:
                if state() == before:
                    c["unchanged"] += 1
                else:
                    c["changed"] += 1
                    self.note(f"{category}: state changed by refused {what}", label)
            return True
        except Exception as e:  # noqa: BLE001 - counting is the point
            c["unexpected"] += 1
            self.note(f"{category}: {type(e).__name__} for {what}", f"{label}: {str(e)[:100]}")
            return False
        c["accepted"] += 1
        self.accepted[f"{category}: {what}"] += 1
        return False

    def note(self, line: str, example: str) -> None:
        self.unexpected[line] += 1
        self.example.setdefault(line, example)

    def failed(self) -> bool:
        return any(c["unexpected"] or c["changed"] or c["bad message"] for c in self.counts.values())


def kind(value: Any) -> str:
    """A short name for a junk value (for the list of unexpected outcomes)."""
    text = type(value).__name__
    if isinstance(value, np.ndarray):
        text += f"[{value.dtype}, shape {value.shape}]"
    elif isinstance(value, (int, float, np.generic)):
        text += f"({value!r})"[:40]
    return text


def play_random(env: Any, rng: np.random.Generator, steps: int) -> None:
    for _ in range(steps):
        if not env.agents or env.terminations[env.agent_selection]:
            return
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))


def probe_combinations(tally: Tally, label: str, game: str, game_cls: Any,
                       opts: dict[str, Any]) -> None:
    """``make`` with each value an option accepts alone (its choices other than the default),
    singly and in pairs, over ``opts`` (the case's player count): refused there, or accepted and
    then dealt; accepted by ``make`` and refused by ``reset`` is a failure."""
    values = [(o.name, v) for o in game_cls.OPTIONS
              if o.choices and o.name not in opts and o.name != "reward_mode"
              for v in o.choices if not (v == o.default and type(v) is type(o.default))]
    combos = [dict([x]) for x in values] + [
        dict([x, y]) for i, x in enumerate(values) for y in values[i + 1:] if x[0] != y[0]]
    for combo in combos:
        what = ", ".join(f"{k}={v!r}" for k, v in combo.items())
        given = {**opts, **combo}
        if tally.probe("option combination", label, None, ValueError, what, make, game, False,
                       **given):
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                make(game, False, **given).reset(seed=0)
        except Exception as e:  # noqa: BLE001 - counting is the point
            tally.counts["option combination"]["unexpected"] += 1
            tally.note(f"option combination: {what} accepted by make(), refused by reset() "
                       f"({type(e).__name__})", f"{label}: {str(e)[:100]}")


def probe_case(tally: Tally, game: str, opts: dict[str, Any], games: int, seed: int) -> None:
    game_cls = cahoots_envs.game_spec(game).rules
    for protected in (False, True):
        label = case_label(game, opts) + (" protected" if protected else " raw")
        rng = np.random.default_rng(seed)

        fresh = make(game, protected, **dict(opts, render_mode="ansi"))
        u = fresh.unwrapped
        agent0 = fresh.possible_agents[0]
        before_reset: list[tuple[str, Callable[..., Any], tuple]] = [
            ("step(0)", fresh.step, (0,)), ("step(None)", fresh.step, (None,)),
            ("observe", fresh.observe, (agent0,)), ("last()", fresh.last, ()),
            ("agent_iter()", fresh.agent_iter, ()), ("render()", fresh.render, ()),
            ("action_mask()", u.action_mask, (agent0,)), ("legal_actions()", u.legal_actions, ()),
            ("action_to_str(0)", u.action_to_str, (0,)), ("str_to_action", u.str_to_action, ("x",)),
            ("result()", u.result, ()), ("clone().observe", u.clone().observe, (agent0,)),
        ]
        for what, call, args in before_reset:
            tally.probe("before reset", label, fresh, EnvNotResetError, what, call, *args)

        if not protected:  # raw and protected envs take their options alike: probe them once
            for name, value in junk_options(game_cls):
                tally.probe("bad option", label, None, ValueError, f"{name}={kind(value)}",
                            make, game, protected, **{**opts, name: value})
            probe_combinations(tally, label, game, game_cls, opts)

        env = make(game, protected, **opts)
        n = env.unwrapped.num_actions
        for g in range(games):
            env.reset(seed=seed * 1000 + g)
            if g == 0:
                # bad resets, deals, agents and notation in the middle of a game
                play_random(env, rng, int(rng.integers(0, 8)))
                env = probe_calls(tally, label, env, n)
                env.reset(seed=seed * 1000 + g)
            while env.agents and not env.terminations[env.agent_selection]:
                if rng.random() < 0.3:
                    for value in junk_for_step(n, rng, 6):
                        tally.probe("step junk", label, env, IllegalActionError,
                                    f"step({kind(value)})", env.step, value)
                    legal = env.unwrapped.legal_actions()
                    masked = sorted(set(range(n)) - set(legal))
                    if masked and not protected:
                        tally.probe("step junk", label, env, IllegalActionError,
                                    "step(masked-out id)", env.step, int(rng.choice(masked)))
                play_random(env, rng, 1)
            # dead agents and the finished loop
            while env.agents:
                junk = next(v for v in junk_for_step(n, rng, 3) if v is not None)
                tally.probe("step after end", label, env, ValueError,
                            f"step({kind(junk)}) for a dead agent", env.step, junk)
                env.step(None)
            for value in junk_for_step(n, rng, 3) + [0, None]:
                tally.probe("step after end", label, env, ValueError,
                            f"step({kind(value)}) after the loop", env.step, value)


def probe_calls(tally: Tally, label: str, env: Any, n: int) -> Any:
    """Bad reset options, seeds and deals, unknown agents, bad notation; returns the env to go
    on with (a copy of the env from before an accepted deal)."""
    for options in [5, "deal", ["deal"], 1.5, Opaque(), {"deal": 5}, {"deal": "x"}]:
        tally.probe("bad reset", label, env, ValueError, f"options={kind(options)}",
                    env.reset, options=options)
    for bad_seed in [1.5, "x", -1, [0.5], Opaque(), float("nan"), np.float64(2)]:
        tally.probe("bad reset", label, env, ValueError, f"seed={kind(bad_seed)}",
                    env.reset, seed=bad_seed)
    for what, deal in list(junk_deals(env)):
        copy_before = env.unwrapped.clone()
        if not tally.probe("bad deal", label, env, ValueError, f"deal {what}",
                           env.reset, options={"deal": deal}):
            env = copy_before  # accepted (a valid deal) or broke: go on from the copy
    for agent in ["player_99", "nobody", "", 0, None, ["player_0"], Opaque(), "x" * 100_000]:
        tally.probe("unknown agent", label, env, ValueError, f"observe({kind(agent)})",
                    env.observe, agent)
        if agent is not None:  # action_mask(None) is the mask of the agent to move
            tally.probe("unknown agent", label, env, ValueError, f"action_mask({kind(agent)})",
                        env.unwrapped.action_mask, agent)
    for value in junk_values(n):
        if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)) \
                and 0 <= value < n:
            continue
        tally.probe("notation", label, env, ValueError, f"action_to_str({kind(value)})",
                    env.unwrapped.action_to_str, value)
    for text in ["dance a jig", "", "x" * 1_000_000, 5, None, b"play", ["play"],
                 "play " * 10_000, "\x00", "pass pass pass"]:
        tally.probe("notation", label, env, ValueError, f"str_to_action({kind(text)})",
                    env.unwrapped.str_to_action, text)
    return env


# ---- seat envs, batched steps, the global state ---------------------------------------------------

def misspellings(name: str) -> list[str]:
    """A few near misses of ``name``: one letter dropped, doubled, swapped; capitalised."""
    out = [name[:-1], name + name[-1], name.capitalize()]
    if len(name) > 3:
        out.append(name[0] + name[2] + name[1] + name[3:])
    return [m for m in out if m != name]


def seat_entry_points(game: str) -> list[tuple[str, Callable[..., Any], bool]]:
    """(name, factory(**kwargs), takes the game options as keywords) of each seat env that can
    be built here: the classes and the Gymnasium id."""
    import gymnasium

    from cahoots_envs.registry import game_spec, seat_env_id
    from cahoots_envs.training import SeatEnv

    gym_id = seat_env_id(game_spec(game))
    out: list[tuple[str, Callable[..., Any], bool]] = [
        ("SeatEnv", lambda **kw: SeatEnv(game, **kw), False),
        (gym_id, lambda **kw: gymnasium.make(gym_id, **kw), True),
    ]
    try:
        from cahoots_envs.training import SeatVecEnv
        out.append(("SeatVecEnv", lambda **kw: SeatVecEnv(game, 2, **kw), False))
        from cahoots_envs.training.batched_seat_env import BatchedSeatVecEnv
        if game_spec(game).has("batched"):
            out.append(("BatchedSeatVecEnv", lambda **kw: BatchedSeatVecEnv(game, 2, **kw), False))
    except ImportError:
        pass
    return out


SEAT_ARGUMENTS = ("opponents", "learner_seat", "team", "seed")


def probe_seat_arguments(tally: Tally, game: str, opts: dict[str, Any]) -> None:
    """Unknown and misspelt keywords to every seat env of ``game``; the message must name the
    entry point's arguments and the game's options."""
    game_cls = cahoots_envs.game_spec(game).rules
    option_names = [o.name for o in game_cls.OPTIONS]
    label = case_label(game, opts)
    for owner, factory, options_as_keywords in seat_entry_points(game):
        names = (*SEAT_ARGUMENTS, *option_names)
        wrong = [m for name in names for m in misspellings(name)] + ["x", "opponent", "colour"]
        if not options_as_keywords:
            wrong += option_names  # a game option given where options={...} is wanted
        entry = "gymnasium.make(<game>_seat id)" if options_as_keywords else owner
        for keyword in wrong:
            given = dict(opts) if options_as_keywords else {"options": dict(opts)}
            what = (f"{entry}(a game option as keyword)" if keyword in option_names
                    and not options_as_keywords else f"{entry}(unknown keyword)")
            tally.probe("seat env args", f"{label} {keyword}=", None, ValueError, what,
                        factory, message_names=(keyword, *SEAT_ARGUMENTS, *option_names),
                        **given, **{keyword: 1})


def vec_junk(n: int, legal: np.ndarray, num_actions: int) -> Iterator[tuple[str, Any]]:
    """(description, actions) for a batch of ``n`` games whose legal actions are ``legal``."""
    yield "floats +0.9", legal + 0.9
    yield "float array of ids", legal.astype(np.float64)
    yield "numeric strings", legal.astype(str)
    yield "list of numeric strings", [str(a) for a in legal]
    yield "list with a float", [*legal.tolist()[:-1], float(legal[-1])]
    yield "bools", legal.astype(bool)
    yield "object array", legal.astype(object)
    yield "shape (n, 1)", legal.reshape(n, 1)
    yield "one short", legal[:-1]
    yield "one too many", np.append(legal, legal[:1])
    yield "ragged list", [[1, 2], [3]] + [0] * (n - 2)
    yield "0-d int", np.array(legal[0])
    for value in (None, 3, 3.9, "3", "x" * 100_000, Opaque(), np.nan):
        yield f"scalar {kind(value)}", value
    for value in (-1, num_actions, 2**62, -(2**62)):
        bad = legal.copy()
        bad[n // 2] = value
        yield f"one id {value}", bad
    yield "one id 2**64-1 (uint64)", np.append(legal[:-1].astype(np.uint64), np.uint64(2**64 - 1))


def arrays_state(*objects: Any) -> Callable[[], Any]:
    """A state function: every numpy array and generator held by ``objects`` (and the engine
    of a batched env)."""
    def state() -> Any:
        out = []
        for obj in objects:
            for key, value in sorted(vars(obj).items()):
                if isinstance(value, np.ndarray):
                    out.append((key, value.dtype.str, value.shape, value.tobytes()))
                elif isinstance(value, np.random.Generator):
                    out.append((key, rng_state(value)))
        return out
    return state


def probe_vec_steps(tally: Tally, game: str, opts: dict[str, Any], seed: int) -> list[str]:
    """Junk batches for VectorGames, SeatVecEnv and BatchedSeatVecEnv; returns what was left
    out (and why)."""
    label = case_label(game, opts)
    skipped = []
    envs: list[tuple[str, Any, Callable[[], Any], Callable[[], np.ndarray]]] = []
    n = 4
    spec = cahoots_envs.game_spec(game)
    try:
        from cahoots_envs.training import SeatVecEnv
        venv = SeatVecEnv(game, n, options=opts, opponents="random", seed=seed)
        venv.reset()

        def tables(v: Any = venv) -> Any:
            return ([(t.game.render(), repr(t.game.deals), rng_state(getattr(t.game, "rng", None)))
                     for t in v.tables], arrays_state(v)())
        envs.append(("SeatVecEnv", venv, tables, venv.action_masks))
    except ImportError:
        skipped.append("SeatVecEnv (no stable-baselines3)")
    if spec.has("batched"):
        try:
            from cahoots_envs import vector
            vec = vector.make(game, n, seed=seed, **opts)
            vec.reset()
            envs.append(("VectorGames", vec, arrays_state(vec, vec.engine),
                         lambda v=vec: v.engine.mask.astype(bool)))
            from cahoots_envs.training.batched_seat_env import BatchedSeatVecEnv
            bvenv = BatchedSeatVecEnv(game, n, options=opts, opponents="random", seed=seed)
            bvenv.reset()
            envs.append(("BatchedSeatVecEnv", bvenv, arrays_state(bvenv, bvenv.engine),
                         bvenv.action_masks))
        except ImportError as e:
            skipped.append(f"batched envs ({e.name or e})")
        except ValueError as e:  # an option value the batched engine does not play
            skipped.append(f"{label} batched: {str(e)[:60]}")
    for owner, env, state, masks in envs:
        mask = masks()
        legal = mask.argmax(axis=1)
        num_actions = mask.shape[1]
        junk = list(vec_junk(n, legal, num_actions))
        masked = np.flatnonzero(~mask[n // 2])
        if masked.size:
            bad = legal.copy()
            bad[n // 2] = masked[0]
            junk.append(("one masked-out id", bad))
        for what, actions in junk:
            tally.probe("vec step junk", f"{label} {owner}", None, IllegalActionError,
                        f"{owner}.step({what})", env.step, actions, state=state)
    return skipped


def probe_state(tally: Tally, game: str, opts: dict[str, Any]) -> None:
    """``observation_from_state`` with junk states and seats."""
    env = cahoots_envs.make(game, **opts)
    if not cahoots_envs.game_spec(game).has("state_layout"):
        return
    env.reset(seed=0)
    layout, good = env.unwrapped.state_layout, env.unwrapped.state()
    n = len(env.possible_agents)
    label = case_label(game, opts)
    states: list[tuple[str, Any]] = [
        ("one entry too many", np.append(good, 0)), ("one entry short", good[:-1]),
        ("empty", good[:0]), ("a batch of two", np.stack([good, good])),
        ("list", good.tolist()), ("bools", good.astype(bool)), ("strings", good.astype(str)),
        ("objects", good.astype(object)), ("complex", good.astype(complex)), ("None", None),
        ("a string", "x" * 100_000), ("a number", 1.5), ("the observation", env.observe(
            env.agents[0])["observation"]), ("Opaque", Opaque()),
    ]
    for what, state in states:
        tally.probe("state junk", label, None, ValueError, f"state {what}",
                    layout.observation_from_state, state, 0)
    for seat in (-1, n, 1.0, True, "0", None, np.float64(0), [0], 2**70):
        tally.probe("state junk", label, None, ValueError, f"seat {kind(seat)}",
                    layout.observation_from_state, good, seat)


def bad_policy_specs(game: str) -> list[str]:
    """Policy specs that name nothing or ask for what cannot be had: overlong names, a NUL byte,
    search settings given twice, out of range or beyond what a decision can finish."""
    long = "x" * 300
    return [
        long, "zoo:" + long, "search:" + long, f"search@worlds=2:runs/{long}/p.json",
        "zoo:a\x00b", "heur\x00istic", "", " ", "zoo:", "zoo:../x", "search@:heuristic",
        "search@worlds=10,worlds=20:heuristic", "search@gate=1,gate=1:heuristic",
        "search@worlds=10001:heuristic", "search@max_worlds=1000000000:heuristic",
        "search@max_rollouts=100001:heuristic", "search@worlds=0:heuristic",
        "search@worlds=-3:heuristic", "search@worlds=2.5:heuristic",
        "search@time_limit=0:heuristic", "search@time_limit=-1:heuristic",
        "search@time_limit=nan:heuristic", "search@time_limit=inf:heuristic",
        "search@gate=nan:heuristic", "search@gate=-1:heuristic",
        "search@max_candidates=-2:heuristic", "search@no_such_knob=1:heuristic",
        f"search@worlds={'9' * 5000}:heuristic", "random@seed=1", "search@worlds=2:search",
    ]


def probe_policy_specs(tally: Tally, game: str, opts: dict[str, Any]) -> None:
    """``load_policy`` with specs that cannot load: one ``ValueError`` line each (naming what
    is allowed), before any search or file read starts."""
    from cahoots_envs.errors import NotAvailableError

    label = case_label(game, opts)
    env_id = cahoots_envs.game_spec(game).env_id
    # a game without a world sampler (the test game) refuses every search spec as such
    expected = ValueError if cahoots_envs.game_spec(game).has("world_sampler") else (
        ValueError, NotAvailableError)
    for spec in bad_policy_specs(game):
        tally.probe("policy spec", label, None, expected, f"load_policy({short_repr(spec, 40)})",
                    cahoots_envs.load_policy, spec, env_id, opts)


def probe_game_specs(tally: Tally) -> None:
    """``register_game`` with one field of a valid spec (the test game's rules under a new name)
    broken: a ``GameSpecError`` line each, and no registry touched."""
    import dataclasses

    import gymnasium
    import pettingzoo

    from cahoots_envs import GameSpecError, registry

    base = next((s for s in cahoots_envs.registered_games() if s.name == "high_card"), None)
    if base is None:
        return

    def registries() -> tuple[Any, ...]:
        return (list(registry._SPECS.items()), dict(pettingzoo.aec_registry),
                dict(pettingzoo.parallel_registry), dict(gymnasium.registry))

    bad_rules = [("VERSION", v) for v in (-1, 1.5, "1", None, True, 10**30)]
    bad_rules += [("PLAYER_COUNTS", v) for v in ((), (0,), (2, 2), (-1, 3), "23", None, (2.5,))]
    bad_rules += [("DEFAULT_PLAYERS", v) for v in (7, None, "2")]
    bad_rules += [("NAME", v) for v in ("", "a b", "a-b", None, 5, "1game")]
    bad_rules += [("TITLE", v) for v in ("", None, 3)]
    bad_rules += [("COOPERATIVE", v) for v in ("yes", 1.0, None)]
    bad_rules += [("POINTS_SIGN", v) for v in (0, 2, "1")]
    bad_rules += [("OPTIONS", v) for v in (None, (), "num_players")]
    for where, value in bad_rules:
        name = f"probe_{abs(hash((where, repr(value)))) % 10**8}"
        rules = type(name, (base.rules,), {"NAME": name})
        spec = dataclasses.replace(base, rules=rules)
        setattr(rules, where, value)  # the rules may change after their spec is built
        tally.probe("game spec", f"register_game({where}={short_repr(value, 20)})", None,
                    GameSpecError, f"{where} {kind(value)}", cahoots_envs.register_game, spec,
                    state=registries, message_names=(where,))


def table(tally: Tally, markdown: bool) -> str:
    head = ["probe", "probes", "refused as expected", "state unchanged", "accepted",
            "unexpected exception", "bad message", "longest message"]
    rows = []
    total: Counter = Counter()
    for cat in CATEGORIES:
        c = tally.counts[cat]
        total.update(c)
        with_state = cat not in STATELESS
        rows.append([cat, c["probes"], c["refused"],
                     f"{c['unchanged']}/{c['refused']}" if with_state else "-",
                     c["accepted"], c["unexpected"], c["bad message"], tally.longest[cat]])
    rows.append(["total", total["probes"], total["refused"],
                 (f"{total['unchanged']}/"
                  f"{total['refused'] - sum(tally.counts[c]['refused'] for c in STATELESS)}"),
                 total["accepted"], total["unexpected"], total["bad message"],
                 max(tally.longest.values(), default=0)])
    cells = [[str(x) for x in r] for r in rows]
    if markdown:
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        lines += ["| " + " | ".join(r) + " |" for r in cells]
        return "\n".join(lines)
    widths = [max(len(h), *(len(r[i]) for r in cells)) for i, h in enumerate(head)]
    out = ["  ".join(h.ljust(w) for h, w in zip(head, widths))]
    out += ["  ".join(x.ljust(w) for x, w in zip(r, widths)) for r in cells]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=8, help="random games per env (default 8)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    parser.add_argument("--verbose", action="store_true", help="also list the accepted probes")
    parser.add_argument("--envs", default="",
                        help="comma-separated game names to probe (default: every registered game)")
    args = parser.parse_args(argv)
    register_test_game()
    tally = Tally()
    start = time.perf_counter()
    all_cases = cases()
    if args.envs:
        wanted = set(args.envs.split(","))
        unknown = wanted - {game for game, _ in all_cases}
        if unknown:
            parser.error(f"--envs: no registered game {', '.join(sorted(unknown))}")
        all_cases = [(game, opts) for game, opts in all_cases if game in wanted]
    skipped: list[str] = []
    for game, opts in all_cases:
        probe_case(tally, game, opts, args.games, args.seed)
        probe_state(tally, game, opts)
        try:
            probe_seat_arguments(tally, game, opts)
        except ImportError as e:  # gymnasium is a dependency; stable-baselines3 is not
            skipped.append(f"seat env args ({e.name or e})")
        skipped += probe_vec_steps(tally, game, opts, args.seed)
        probe_policy_specs(tally, game, opts)
    probe_game_specs(tally)
    seconds = time.perf_counter() - start
    print(f"probe_env_input.py --games {args.games} --seed {args.seed}: {len(all_cases)} envs "
          f"(games x player counts x test variants), raw and protected; {date.today()}, "
          f"{seconds:.0f} s")
    print(table(tally, args.markdown))
    if skipped:
        print("\nleft out: " + "; ".join(sorted(set(skipped))))
    if args.verbose and tally.accepted:
        print("\naccepted (no error raised):")
        for line, count in tally.accepted.most_common():
            print(f"  {count:5d}  {line}")
    if tally.unexpected:
        print("\nunexpected outcomes:")
        for line, count in tally.unexpected.most_common():
            print(f"  {count:5d}  {line}  (e.g. {tally.example[line]})")
    return 1 if tally.failed() else 0


if __name__ == "__main__":
    sys.exit(main())
