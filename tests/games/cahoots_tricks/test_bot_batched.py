"""The Cahoots (competitive) heuristic bot's compiled batch path (``bot_batched.py``) against the
bot itself: on observations of real games of every player count and test variant, the kernel
rates the same moves best as ``best_actions``, and ``act_batch`` makes the moves, and the draws
from the generator, of ``act`` on each row in order."""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
import pytest

from cahoots_envs.games.cahoots_tricks import bot_batched
from cahoots_envs.games.cahoots_tricks.bot import HeuristicPolicy
from cahoots_envs.games.cahoots_tricks.rules import (
    KEEP_BASE,
    NUM_ACTIONS,
    PHASES,
    PLAY_BASE,
    CahootsTricks,
)
from tests.bot_kernel_checks import (
    check_act_batch_is_the_row_loop,
    check_batches_of_256,
    check_bot_import_skips_numba,
    check_forced_and_small_batches,
    check_without_numba,
)
from tests.conftest import options_id

VARIANTS = [{"num_players": n} for n in CahootsTricks.PLAYER_COUNTS] + [
    dict(v) for v in CahootsTricks.TEST_VARIANTS]


def collect(options: dict[str, Any], games: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Every decision of ``games`` games in which a heuristic bot and random players alternate
    seats: the observations (float32) and action masks (int8) of the seat to move."""
    opts = CahootsTricks.OPTIONS.resolve(dict(options))
    size = CahootsTricks.layout(opts).size
    bot = HeuristicPolicy(opts, seed=seed)
    rng = np.random.default_rng(seed)
    observations, masks = [], []
    for g in range(games):
        game = CahootsTricks(opts, np.random.default_rng([seed, g]), None)
        while not game.is_over:
            seat = game.current_player
            obs = np.zeros(size, np.float32)
            game.encode(seat, obs)
            mask = np.zeros(NUM_ACTIONS, np.int8)
            mask[game.legal_actions()] = 1
            observations.append(obs)
            masks.append(mask)
            if (seat + g) % 2:
                game.apply(bot.act(obs, mask))
            else:
                game.apply(int(rng.choice(np.flatnonzero(mask))))
    return np.array(observations), np.array(masks)


@cache
def rows_of(index: int) -> tuple[np.ndarray, np.ndarray]:
    return collect(VARIANTS[index], games=4, seed=100 + index)


def kernel_sets(bot: HeuristicPolicy, obs: np.ndarray, masks: np.ndarray) -> list[list[int]]:
    """The kernel's best moves per row (a forced row: its one legal action)."""
    counts, moves = bot_batched.best_sets(obs, masks, bot.num_players, bot.face_value,
                                          *bot_batched.kernel_offsets(bot.layout))
    return [[int(m.argmax())] if c == bot_batched.FORCED else [int(a) for a in row[:c]]
            for c, row, m in zip(counts, moves, masks)]


@pytest.mark.parametrize("index", range(len(VARIANTS)), ids=[options_id(v) for v in VARIANTS])
def test_kernel_rates_the_moves_best_actions_rates(index: int) -> None:
    obs, masks = rows_of(index)
    bot = HeuristicPolicy(VARIANTS[index], seed=0)
    # every decision phase of the variant is in the rows (the draft only with face value)
    phase = bot.layout.views(obs)["phase"].argmax(axis=1)
    expected = 3 if bot.face_value and bot.options["point_split"] == "draft" else 2
    assert len(np.unique(phase)) == expected, [PHASES[p] for p in np.unique(phase)]
    got = kernel_sets(bot, obs, masks)
    ties = 0
    for i, (o, m) in enumerate(zip(obs, masks)):
        assert got[i] == bot.best_actions(o, m), (i, got[i])
        ties += len(got[i]) > 1
    assert ties > 20  # the draws among ties are exercised too


@pytest.mark.parametrize("index", range(len(VARIANTS)), ids=[options_id(v) for v in VARIANTS])
def test_act_batch_makes_the_row_loops_moves_and_draws(index: int) -> None:
    obs, masks = rows_of(index)
    # batches of several sizes, the kernel's (>= 8 rows) and the row loop's, one after another
    check_act_batch_is_the_row_loop(lambda: HeuristicPolicy(VARIANTS[index], seed=7),
                                    bot_batched, obs, masks, [0, 256, 264, 267, 367, len(obs)])


def test_small_batches_forced_moves_and_other_dtypes() -> None:
    obs, masks = rows_of(0)
    # one legal action (each verb): taken as it is, with no draw
    forced = masks[:16].copy()
    forced[:] = 0
    for i, a in enumerate(range(PLAY_BASE + 3, NUM_ACTIONS, 7)[:16]):
        forced[i, a] = 1
    # 0 and 7 rows (the row loop), float masks and float64 observations (the row loop)
    check_forced_and_small_batches(lambda: HeuristicPolicy(VARIANTS[0], seed=3), obs, masks,
                                   forced, (0, 7))


def test_without_numba_act_batch_is_the_row_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    obs, masks = rows_of(1)
    check_without_numba(monkeypatch, HeuristicPolicy, bot_batched,
                        lambda: HeuristicPolicy(VARIANTS[1], seed=4), obs[:50], masks[:50])


def test_batches_the_bot_cannot_decide_are_refused_in_one_line() -> None:
    obs, masks = rows_of(0)
    bot = HeuristicPolicy(VARIANTS[0], seed=0)
    bad = masks[:10].copy()
    bad[3] = 0
    with pytest.raises(ValueError, match="^row 3 of the batch: the action mask has no legal"):
        bot.act_batch(obs[:10], bad)
    bad = masks[:10].copy()
    bad[5, KEEP_BASE] = bad[5, PLAY_BASE] = 1
    with pytest.raises(ValueError, match="^row 5 of the batch: the action mask allows actions "
                       "of two phases"):
        bot.act_batch(obs[:10], bad)
    with pytest.raises(ValueError, match=r"observations \[rows, \d+\] and action masks"):
        bot.act_batch(obs[:10, :-1], masks[:10])
    with pytest.raises(ValueError, match=r"observations \[rows, \d+\] and action masks"):
        bot.act_batch(obs[0], masks[0])


def test_importing_the_bot_does_not_import_numba() -> None:
    check_bot_import_skips_numba("cahoots_envs.games.cahoots_tricks.bot")


@pytest.mark.slow
@pytest.mark.parametrize("index", range(len(VARIANTS)), ids=[options_id(v) for v in VARIANTS])
def test_sweep_kernel_against_the_bot(index: int) -> None:
    """Many more games: about 20 000 rows per player count, 10 000 per other variant."""
    four = CahootsTricks.OPTIONS.resolve(VARIANTS[index])["num_players"] == 4
    games = (130 if four else 175) // (1 if index < len(CahootsTricks.PLAYER_COUNTS) else 2)
    obs, masks = collect(VARIANTS[index], games=games, seed=9000 + index)
    bot = HeuristicPolicy(VARIANTS[index], seed=11)
    assert kernel_sets(bot, obs, masks) == [bot.best_actions(o, m) for o, m in zip(obs, masks)]
    check_batches_of_256(lambda: HeuristicPolicy(VARIANTS[index], seed=11), obs, masks)
