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
- ``unknown agent``: ``observe`` / ``action_mask`` with names that are not agents;
- ``notation``: ``action_to_str`` with junk ids, ``str_to_action`` with junk text;
- ``before reset``: every call that needs a game, on a fresh env.

Every probe expects one exception type (``IllegalActionError`` for ``step``, ``EnvNotResetError``
before ``reset``, ``ValueError`` otherwise) with a non-empty message of at most 2,000 characters,
and, where there is a state, that state unchanged: every agent's observation and mask, the agent
to move, rewards, terminations, infos, the rendered table, the deal records and the state of
the env's and the game's generators, compared before and after. A probe that raises nothing is
counted as accepted (a mutated deal can still be a valid deal); any other exception type is
counted as unexpected and listed.

    python benchmarks/probe_env_input.py [--games 8] [--seed 0] [--markdown]

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
              "unknown agent", "notation", "before reset"]


# ---- the envs ---------------------------------------------------------------------------------

def register_test_game() -> None:
    """Register the test game when run from a checkout (it is not part of the package)."""
    root = Path(__file__).resolve().parents[1]
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

    def probe(self, category: str, label: str, env: Any | None, expected: type[BaseException],
              what: str, call: Callable[..., Any], *args: Any, **kwargs: Any) -> bool:
        """Run ``call(*args, **kwargs)``; True when it raised ``expected`` (and then the state of
        ``env`` is checked unchanged)."""
        c = self.counts[category]
        c["probes"] += 1
        before = fingerprint(env) if env is not None else None
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
            if env is not None:
                if fingerprint(env) == before:
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


def table(tally: Tally, markdown: bool) -> str:
    head = ["probe", "probes", "refused as expected", "state unchanged", "accepted",
            "unexpected exception", "bad message", "longest message"]
    rows = []
    total: Counter = Counter()
    for cat in CATEGORIES:
        c = tally.counts[cat]
        total.update(c)
        with_state = cat not in ("bad option",)
        rows.append([cat, c["probes"], c["refused"],
                     f"{c['unchanged']}/{c['refused']}" if with_state else "-",
                     c["accepted"], c["unexpected"], c["bad message"], tally.longest[cat]])
    rows.append(["total", total["probes"], total["refused"],
                 f"{total['unchanged']}/{total['refused'] - tally.counts['bad option']['refused']}",
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
    args = parser.parse_args(argv)
    register_test_game()
    tally = Tally()
    start = time.perf_counter()
    all_cases = cases()
    for game, opts in all_cases:
        probe_case(tally, game, opts, args.games, args.seed)
    seconds = time.perf_counter() - start
    print(f"probe_env_input.py --games {args.games} --seed {args.seed}: {len(all_cases)} envs "
          f"(games x player counts x test variants), raw and protected; {date.today()}, "
          f"{seconds:.0f} s")
    print(table(tally, args.markdown))
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
