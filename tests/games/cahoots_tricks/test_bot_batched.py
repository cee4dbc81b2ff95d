"""The Cahoots (competitive) heuristic bot's compiled batch path (``bot_batched.py``) against the
bot itself: on observations of real games of every player count and test variant, the kernel
rates the same moves best as ``best_actions``, and ``act_batch`` makes the moves, and the draws
from the generator, of ``act`` on each row in order."""

from __future__ import annotations

import subprocess
import sys
from functools import cache
from itertools import pairwise
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


def row_loop(bot: HeuristicPolicy, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
    return np.array([bot.act(o, m) for o, m in zip(obs, masks)], np.int64)


def same_generators(a: HeuristicPolicy, b: HeuristicPolicy) -> bool:
    return bool(a.rng.bit_generator.state == b.rng.bit_generator.state)


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
    batched = HeuristicPolicy(VARIANTS[index], seed=7)
    looped = HeuristicPolicy(VARIANTS[index], seed=7)
    assert HeuristicPolicy._batch_kernel() is bot_batched
    # batches of several sizes, the kernel's (>= 8 rows) and the row loop's, one after another
    cuts = [0, 256, 264, 267, 367, len(obs)]
    for lo, hi in pairwise(cuts):
        chosen = batched.act_batch(obs[lo:hi], masks[lo:hi])
        assert chosen.dtype == np.int64 and chosen.shape == (hi - lo,)
        expected = row_loop(looped, obs[lo:hi], masks[lo:hi])
        assert (chosen == expected).all(), lo + int(np.flatnonzero(chosen != expected)[0])
        assert same_generators(batched, looped)
    # bool masks, and observations that are read-only and not contiguous, give the same moves
    wide = np.zeros((64, obs.shape[1] + 1), np.float32)
    wide[:, :-1] = obs[:64]
    wide.flags.writeable = False
    chosen = batched.act_batch(wide[:, :-1], masks[:64].astype(bool))
    assert (chosen == row_loop(looped, obs[:64], masks[:64])).all()
    assert same_generators(batched, looped)


def test_small_batches_forced_moves_and_other_dtypes() -> None:
    obs, masks = rows_of(0)
    batched, looped = HeuristicPolicy(VARIANTS[0], seed=3), HeuristicPolicy(VARIANTS[0], seed=3)
    # one legal action (each verb): taken as it is, with no draw
    forced = masks[:16].copy()
    forced[:] = 0
    for i, a in enumerate(range(PLAY_BASE + 3, NUM_ACTIONS, 7)[:16]):
        forced[i, a] = 1
    chosen = batched.act_batch(obs[:16], forced)
    assert (chosen == forced.argmax(axis=1)).all() and (chosen == row_loop(looped, obs[:16],
                                                                           forced)).all()
    assert same_generators(batched, looped)
    # 0 and 7 rows (the row loop), float masks and float64 observations (the row loop)
    for rows in (obs[:0], obs[:7]):
        masks_now = masks[: len(rows)]
        assert (batched.act_batch(rows, masks_now) == row_loop(looped, rows, masks_now)).all()
    # (float64 rows are rated in float64 by the bot, which can change its ties: not the kernel's)
    wide = obs[:40].astype(np.float64)
    chosen = batched.act_batch(wide, masks[:40].astype(np.float32))
    assert (chosen == row_loop(looped, wide, masks[:40])).all()
    assert same_generators(batched, looped)


def test_without_numba_act_batch_is_the_row_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "numba", None)  # what an absent package looks like
    monkeypatch.delitem(sys.modules, bot_batched.__name__)
    monkeypatch.delattr(sys.modules["cahoots_envs.games.cahoots_tricks"], "bot_batched")
    monkeypatch.setattr(HeuristicPolicy, "_kernel", None)
    obs, masks = rows_of(1)
    batched, looped = HeuristicPolicy(VARIANTS[1], seed=4), HeuristicPolicy(VARIANTS[1], seed=4)
    assert (batched.act_batch(obs[:50], masks[:50]) == row_loop(looped, obs[:50],
                                                                 masks[:50])).all()
    assert HeuristicPolicy._kernel is False and same_generators(batched, looped)


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
    code = ("import sys; from cahoots_envs.games.cahoots_tricks.bot import HeuristicPolicy; "
            "import cahoots_envs; print('numba' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "False"


@pytest.mark.slow
@pytest.mark.parametrize("index", range(len(VARIANTS)), ids=[options_id(v) for v in VARIANTS])
def test_sweep_kernel_against_the_bot(index: int) -> None:
    """Many more games: about 20 000 rows per player count, 10 000 per other variant."""
    four = CahootsTricks.OPTIONS.resolve(VARIANTS[index])["num_players"] == 4
    games = (130 if four else 175) // (1 if index < len(CahootsTricks.PLAYER_COUNTS) else 2)
    obs, masks = collect(VARIANTS[index], games=games, seed=9000 + index)
    batched = HeuristicPolicy(VARIANTS[index], seed=11)
    looped = HeuristicPolicy(VARIANTS[index], seed=11)
    assert kernel_sets(batched, obs, masks) == [batched.best_actions(o, m)
                                                for o, m in zip(obs, masks)]
    chosen = np.concatenate([batched.act_batch(obs[lo : lo + 256], masks[lo : lo + 256])
                             for lo in range(0, len(obs), 256)])
    assert (chosen == row_loop(looped, obs, masks)).all()
    assert same_generators(batched, looped)
