"""The Cahoots (cooperative) heuristic bot's compiled batch path (``bot_batched.py``) against the
bot itself: on observations of real games of every player count, both difficulties and the
options that change what the bot reads (open hands, the multicolour mode, a short goal count
that games win), the kernel rates the same moves best as ``best_actions``, and ``act_batch``
makes the moves, and the draws from the generator, of ``act`` on each row in order."""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
import pytest

from cahoots_envs.games.cahoots_coop import bot_batched
from cahoots_envs.games.cahoots_coop.bot import HeuristicPolicy
from cahoots_envs.games.cahoots_coop.rules import TALK_BASE, CahootsCoop
from tests.bot_kernel_checks import (
    check_act_batch_is_the_row_loop,
    check_batches_of_256,
    check_bot_import_skips_numba,
    check_forced_and_small_batches,
    check_without_numba,
    row_loop,
    same_generators,
)
from tests.conftest import options_id

VARIANTS = [
    {"num_players": 1, "difficulty": "beginner"},
    {"num_players": 1, "difficulty": "normal", "multicolour_mode": "disjunctive"},
    {"num_players": 2, "difficulty": "beginner"},
    {"num_players": 2, "difficulty": "normal", "open_hands": True,
     "multicolour_mode": "disjunctive"},
    {"num_players": 3, "difficulty": "beginner", "open_hands": True},
    {"num_players": 3, "difficulty": "normal", "multicolour_mode": "disjunctive"},
    {"num_players": 4, "difficulty": "beginner", "multicolour_mode": "disjunctive"},
    {"num_players": 4, "difficulty": "normal", "open_hands": True},
    {"num_players": 4, "difficulty": "insane", "open_hands": True},
    {"num_players": 3, "num_goals": 4},  # short games: the bot wins some (its winning play)
    {"num_players": 1, "num_goals": 6, "open_hands": True},
]
SHORT = [i for i, v in enumerate(VARIANTS) if "num_goals" in v]


def collect(options: dict[str, Any], games: int, seed: int,
            ) -> tuple[np.ndarray, np.ndarray, int]:
    """Every decision of ``games`` games played two plays in three by the heuristic bot (so
    that the endgame, where goals are won, is reached) and the rest at random: the observations
    (float32) and action masks (int8) of the seat to move, and how many games the team won."""
    opts = CahootsCoop.OPTIONS.resolve(dict(options))
    size = CahootsCoop.layout(opts).size
    bot = HeuristicPolicy(opts, seed=seed)
    rng = np.random.default_rng(seed)
    observations, masks, won = [], [], 0
    for g in range(games):
        game = CahootsCoop(opts, np.random.default_rng([seed, g]), None)
        while not game.is_over:
            obs, mask = np.zeros(size, np.float32), np.zeros(TALK_BASE, np.int8)
            game.encode(game.current_player, obs)
            mask[game.legal_actions()] = 1
            observations.append(obs)
            masks.append(mask)
            at_random = len(masks) % 3 == 0
            game.apply(int(rng.choice(np.flatnonzero(mask))) if at_random else bot.act(obs, mask))
        won += game.won
    return np.array(observations), np.array(masks), won


@cache
def rows_of(index: int) -> tuple[np.ndarray, np.ndarray, int]:
    return collect(VARIANTS[index], games=6, seed=100 + index)


def kernel_sets(bot: HeuristicPolicy, obs: np.ndarray, masks: np.ndarray) -> list[list[int]]:
    """The kernel's best moves per row (a forced row: its one legal action)."""
    counts, moves = bot_batched.best_sets(obs, masks, bot.num_players,
                                          *bot_batched.kernel_args(bot.layout))
    return [[int(m.argmax())] if c == bot_batched.FORCED else [int(a) for a in row[:c]]
            for c, row, m in zip(counts, moves, masks)]


@pytest.mark.parametrize("index", range(len(VARIANTS)), ids=[options_id(v) for v in VARIANTS])
def test_kernel_rates_the_moves_best_actions_rates(index: int) -> None:
    obs, masks, _ = rows_of(index)
    bot = HeuristicPolicy(VARIANTS[index], seed=0)
    got = kernel_sets(bot, obs, masks)
    ties = unique = 0
    for i, (o, m) in enumerate(zip(obs, masks)):
        assert got[i] == bot.best_actions(o, m), (i, got[i])
        ties += len(got[i]) > 1
        unique += len(got[i]) == 1 and m.sum() > 1
    assert ties > 10 and unique > 50  # draws among ties and clear choices are both exercised


def test_short_games_are_won_so_the_winning_play_is_rated() -> None:
    """The variants with few goals win games: the bot's winning play (the first play that
    completes the last goals, taken without rating the rest) is among the rows compared."""
    assert all(rows_of(i)[2] > 0 for i in SHORT)


@pytest.mark.parametrize("index", range(0, len(VARIANTS), 2),
                         ids=[options_id(v) for v in VARIANTS[::2]])
def test_act_batch_makes_the_row_loops_moves_and_draws(index: int) -> None:
    obs, masks, _ = rows_of(index)
    # batches of several sizes, the kernel's (>= 2 rows) and the row loop's, one after another
    quarter = len(obs) // 4
    assert quarter >= 16
    check_act_batch_is_the_row_loop(lambda: HeuristicPolicy(VARIANTS[index], seed=7),
                                    bot_batched, obs, masks,
                                    [0, quarter, quarter + 1, quarter + 3, 2 * quarter, len(obs)])


def test_act_batch_with_ties_gives_the_bots_tied_sets() -> None:
    obs, masks, _ = rows_of(3)
    batched, looped = HeuristicPolicy(VARIANTS[3], seed=5), HeuristicPolicy(VARIANTS[3], seed=5)
    chosen, ties = batched.act_batch_with_ties(obs, masks)
    assert ties.shape == masks.shape and ties.dtype == np.bool_
    for i, (o, m) in enumerate(zip(obs, masks)):
        assert np.flatnonzero(ties[i]).tolist() == looped.best_actions(o, m), i
        assert ties[i, chosen[i]]
    assert (chosen == row_loop(HeuristicPolicy(VARIANTS[3], seed=5), obs, masks)).all()
    assert (ties.sum(axis=1) > 1).any()


def test_forced_moves_float64_rows_and_talk_take_the_row_loop_or_no_draw() -> None:
    obs, masks, _ = rows_of(2)
    # one legal action per row: taken as it is, with no draw
    forced = np.zeros_like(masks[:16])
    for i, m in enumerate(masks[:16]):
        forced[i, np.flatnonzero(m)[-1]] = 1
    # 0 and 1 rows (the row loop), float masks and float64 observations (the row loop)
    check_forced_and_small_batches(lambda: HeuristicPolicy(VARIANTS[2], seed=3), obs, masks,
                                   forced, (0, 1))
    # with table talk the bot decides row by row (the kernel has no talk convention)
    options = CahootsCoop.OPTIONS.resolve({"num_players": 2, "talk": "dutch",
                                           "difficulty": "beginner"})
    env_obs, env_masks = [], []
    game = CahootsCoop(options, np.random.default_rng(1), None)
    size, width = CahootsCoop.layout(options).size, CahootsCoop.num_actions(options)
    talker = HeuristicPolicy(options, seed=0)
    while not game.is_over and len(env_obs) < 40:
        o = np.zeros(size, np.float32)
        game.encode(game.current_player, o)
        m = np.zeros(width, np.int8)
        m[game.legal_actions()] = 1
        env_obs.append(o)
        env_masks.append(m)
        game.apply(talker.act(o, m))
    talk_obs, talk_masks = np.array(env_obs), np.array(env_masks)
    assert (talk_masks[:, TALK_BASE:].any(axis=1)).any()
    a, b = HeuristicPolicy(options, seed=9), HeuristicPolicy(options, seed=9)
    assert (a.act_batch(talk_obs, talk_masks) == row_loop(b, talk_obs, talk_masks)).all()
    assert same_generators(a, b)


def test_without_numba_act_batch_is_the_row_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    obs, masks, _ = rows_of(1)
    check_without_numba(monkeypatch, HeuristicPolicy, bot_batched,
                        lambda: HeuristicPolicy(VARIANTS[1], seed=4), obs[:50], masks[:50])


def test_batches_the_kernel_cannot_decide_are_refused_in_one_line() -> None:
    obs, masks, _ = rows_of(0)
    bot = HeuristicPolicy(VARIANTS[0], seed=0)
    bad = masks[:10].copy()
    bad[3] = 0
    with pytest.raises(ValueError, match="^row 3 of the batch: the action mask has no legal"):
        bot.act_batch(obs[:10], bad)
    counts, _ = bot_batched.best_sets(obs[:2], np.ones((2, TALK_BASE + 3), np.int8),
                                      bot.num_players, *bot_batched.kernel_args(bot.layout))
    assert counts.tolist() == [bot_batched.TALK] * 2
    assert "\n" not in bot_batched.PROBLEMS[bot_batched.TALK]


def test_importing_the_bot_does_not_import_numba() -> None:
    check_bot_import_skips_numba("cahoots_envs.games.cahoots_coop.bot")


@pytest.mark.slow
@pytest.mark.parametrize("index", range(len(VARIANTS)), ids=[options_id(v) for v in VARIANTS])
def test_sweep_kernel_against_the_bot(index: int) -> None:
    """Many more games: about 10 000 rows per variant."""
    obs, masks, _ = collect(VARIANTS[index], games=120, seed=9000 + index)
    bot = HeuristicPolicy(VARIANTS[index], seed=11)
    assert kernel_sets(bot, obs, masks) == [bot.best_actions(o, m) for o, m in zip(obs, masks)]
    check_batches_of_256(lambda: HeuristicPolicy(VARIANTS[index], seed=11), obs, masks)
