"""The Kansas City heuristic bot's compiled ``act_batch`` (``bot_batched.py``) against its row loop.

Games of random and heuristic seats, for every player count and test variant, give thousands of
(observation, mask) rows from every phase; ``act_batch`` on them (the kernel, in batches of 256
and of odd sizes) must equal ``act`` row by row on a second bot with the same seed, and
``best_actions``. The kernel itself must decide every real row (no row left to the reference),
rows it leaves (an empty or foreign mask, a finished game) must still come out as ``act``'s, and
batches under ``BATCH_KERNEL_MIN`` rows must not reach the kernel. ``-m slow`` sweeps 25,000 rows
per case.
"""

from __future__ import annotations

import sys
from functools import cache
from typing import Any

import numpy as np
import pytest

pytest.importorskip("numba")

from cahoots_envs import kansas_city_v1
from cahoots_envs.games import kansas_city
from cahoots_envs.games.kansas_city import bot_batched
from cahoots_envs.games.kansas_city.bot import HeuristicPolicy
from cahoots_envs.games.kansas_city.rules import TRICK_LIMIT, KansasCity
from tests.conftest import options_id

CASES = (
    [{"num_players": n} for n in KansasCity.PLAYER_COUNTS]
    + [dict(v) for v in KansasCity.TEST_VARIANTS]
)

ROWS = 1000  # rows per case in the default suite


@cache
def _rows(key: tuple[tuple[str, Any], ...], rows: int, seed: int
          ) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """At least ``rows`` (observation, mask) rows of the seat to move, from whole games in which
    each seat is the heuristic bot or a random player (drawn per game), and the game's
    options."""
    env = kansas_city_v1.env(**dict(key))
    options = dict(env.unwrapped.options)
    bot = HeuristicPolicy(options, seed=seed)
    rng = np.random.default_rng(seed)
    observations: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    game_index = 0
    while len(observations) < rows:
        env.reset(seed=seed * 100_000 + game_index)
        game_index += 1
        heuristic = np.asarray(rng.random(options["num_players"]) < 0.5)
        game = env.unwrapped.game
        while not game.is_over:
            obs = env.observe(env.agent_selection)
            observation, mask = obs["observation"].copy(), obs["action_mask"].copy()
            observations.append(observation)
            masks.append(mask)
            if heuristic[game.current_player]:
                action = bot.act(observation, mask)
            else:
                action = int(rng.choice(np.flatnonzero(mask)))
            env.step(action)
    return np.array(observations), np.array(masks), options


def rows_for(options: dict[str, Any], rows: int = ROWS, seed: int = 1
             ) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    return _rows(tuple(sorted(options.items())), rows, seed)


def compare(options: dict[str, Any], observations: np.ndarray, masks: np.ndarray,
            batch: int) -> np.ndarray:
    """``act_batch`` in batches of ``batch`` rows against ``act`` row by row (and
    ``best_actions``) on a second bot of the same seed, and the random streams after both."""
    fast = HeuristicPolicy(options, seed=11)
    slow = HeuristicPolicy(options, seed=11)
    got = np.concatenate([fast.act_batch(observations[i:i + batch], masks[i:i + batch])
                          for i in range(0, len(observations), batch)])
    want = np.array([slow.act(o, m) for o, m in zip(observations, masks)], np.int64)
    assert got.dtype == np.int64 and got.shape == want.shape
    wrong = np.flatnonzero(got != want)
    assert not len(wrong), (f"{len(wrong)} of {len(got)} rows differ, first at {wrong[0]}: "
                            f"kernel {got[wrong[0]]}, act {want[wrong[0]]}")
    best = [slow.best_actions(o, m)[0] for o, m in zip(observations[:200], masks[:200])]
    assert best == list(want[:200])
    assert fast.rng.bit_generator.state == slow.rng.bit_generator.state
    return got


def kernel_only(options: dict[str, Any], observations: np.ndarray,
                masks: np.ndarray) -> np.ndarray:
    """The kernel's raw answers (``FALLBACK`` where it leaves a row to the reference)."""
    bot = HeuristicPolicy(options)
    params, combos = bot_batched.kernel_params(bot)
    return bot_batched._decide_rows(observations, masks, params, combos)  # type: ignore[no-any-return]


@pytest.mark.parametrize("options", CASES, ids=options_id)
def test_kernel_matches_the_row_loop(options: dict[str, Any]) -> None:
    observations, masks, full = rows_for(options)
    got = compare(full, observations, masks, 256)
    # the kernel decided every row itself (none went back to the reference)
    assert (kernel_only(full, observations, masks) == got).all()
    # the rows cover every branch of the bot: each phase, under and at the limit
    views = KansasCity.layout(full).views(observations)
    phase = views["phase"].argmax(axis=1)
    need = views["tricks_won"][:, 0] < TRICK_LIMIT[full["num_players"]]
    leading = views["trick"].sum(axis=(1, 2)) == 0
    for ph in (1, 2):
        assert (need & (phase == ph)).any() and (~need & (phase == ph)).any()
    play = phase == 1
    assert (phase == 0).sum() >= 8 and (play & leading).any() and (play & ~leading).any()


def test_odd_batch_sizes_bool_masks_and_one_legal_action() -> None:
    options = {"num_players": 5}
    observations, masks, full = rows_for(options)
    compare(full, observations, masks, 37)
    compare(full, observations, masks.astype(bool), 64)
    # every row with a single legal action (one of its legal ones, whatever the bot prefers)
    rng = np.random.default_rng(4)
    single = np.zeros_like(masks)
    for i, mask in enumerate(masks):
        single[i, rng.choice(np.flatnonzero(mask))] = 1
    compare(full, observations, single, 256)
    assert (kernel_only(full, observations, single) != bot_batched.FALLBACK).all()


def test_small_batches_use_the_row_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    observations, masks, full = rows_for({"num_players": 4})
    calls: list[int] = []
    real = bot_batched.decide_batch

    def counted(policy: HeuristicPolicy, obs: np.ndarray, mask: np.ndarray) -> np.ndarray | None:
        calls.append(len(obs))
        return real(policy, obs, mask)

    monkeypatch.setattr(bot_batched, "decide_batch", counted)
    bot = HeuristicPolicy(full, seed=0)
    limit = HeuristicPolicy.BATCH_KERNEL_MIN
    for size in range(1, limit + 2):
        got = bot.act_batch(observations[:size], masks[:size])
        assert list(got) == [bot.act(o, m) for o, m in zip(observations[:size], masks[:size])]
    assert calls == [limit, limit + 1]


def test_without_numba_the_row_loop_decides(monkeypatch: pytest.MonkeyPatch) -> None:
    observations, masks, full = rows_for({"num_players": 4})
    monkeypatch.setitem(sys.modules, "numba", None)  # what an absent package looks like
    monkeypatch.delitem(sys.modules, bot_batched.__name__)
    monkeypatch.delattr(kansas_city, "bot_batched")
    monkeypatch.setattr(HeuristicPolicy, "_batched", None)
    compare(full, observations[:300], masks[:300], 100)
    assert HeuristicPolicy._batched is False


def test_rows_left_to_the_reference() -> None:
    """Rows the kernel does not model (a mask of another phase, an empty mask) are decided by
    ``decide``: the same moves, and the same error where ``act`` raises."""
    observations, masks, full = rows_for({"num_players": 4})
    views = KansasCity.layout(full).views(observations)
    phase = views["phase"].argmax(axis=1)
    play = np.flatnonzero(phase == 1)[:20]
    passing = np.flatnonzero(phase == 0)[:20]
    # play rows with a pass-phase mask: the reference reads pass actions as odd cards
    foreign_obs = np.concatenate([observations[play], observations[passing]])
    foreign_masks = np.concatenate([masks[passing], masks[play]])
    raw = kernel_only(full, foreign_obs, foreign_masks)
    assert (raw[:20] == bot_batched.FALLBACK).all()
    compare(full, foreign_obs, foreign_masks, 40)
    # a play row with no legal action: act raises, and so does act_batch
    empty = masks[play].copy()
    empty[3] = 0
    bot = HeuristicPolicy(full)
    with pytest.raises(ValueError) as by_act:
        bot.act(observations[play][3], empty[3])
    with pytest.raises(ValueError) as by_batch:
        bot.act_batch(observations[play], empty)
    assert str(by_batch.value) == str(by_act.value)


def test_a_wrong_kernel_answer_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """``compare`` is not blind: one changed answer of the kernel fails it."""
    observations, masks, full = rows_for({"num_players": 4})
    real = bot_batched._decide_rows

    def off_by_one(obs: np.ndarray, mask: np.ndarray, params: np.ndarray,
                   combos: np.ndarray) -> np.ndarray:
        out: np.ndarray = real(obs, mask, params, combos)
        out[len(out) // 2] += 1
        return out

    monkeypatch.setattr(bot_batched, "_decide_rows", off_by_one)
    with pytest.raises(AssertionError, match="rows differ"):
        compare(full, observations[:64], masks[:64], 64)


@pytest.mark.slow
@pytest.mark.parametrize("options", CASES, ids=options_id)
def test_kernel_matches_the_row_loop_at_length(options: dict[str, Any]) -> None:
    observations, masks, full = rows_for(options, rows=25_000, seed=7)
    got = compare(full, observations, masks, 256)
    assert (kernel_only(full, observations, masks) == got).all()
