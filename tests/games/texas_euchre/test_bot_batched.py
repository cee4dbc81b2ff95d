"""The Texas Euchre heuristic bot's compiled ``act_batch`` against its row-by-row ``act``.

Rows come from reference games (``rules.TexasEuchre``) of heuristic and random players, every
player count and test variant, from every phase. On the same rows in the same order, the batch
must equal a row loop of ``act`` on a second bot with the same seed (and ``best_actions``);
the kernel itself must decide every real row. Batches under ``BATCH_MIN_ROWS`` go row by row;
a mask with one legal action, bool and float masks, other dtypes, and perturbed
observations (odd counts, NaN, empty hands and masks: rows that ``act`` raises on or leaves to
its Python arithmetic) are checked too. ``-m slow`` sweeps 25,000 rows per case.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from cahoots_envs.core.layout import OBS_DTYPE
from cahoots_envs.games import texas_euchre
from cahoots_envs.games.texas_euchre.bot import BATCH_MIN_ROWS, HeuristicPolicy
from cahoots_envs.games.texas_euchre.rules import DECKS, FACES, HAND_SIZE, PHASES, TexasEuchre

pytest.importorskip("numba")
from cahoots_envs.games.texas_euchre import bot_batched  # after the skip: it needs numba
from tests.conftest import options_id

CASES = [{"num_players": n} for n in TexasEuchre.PLAYER_COUNTS] + [
    dict(v) for v in TexasEuchre.TEST_VARIANTS
]
Rows = tuple[dict[str, Any], np.ndarray, np.ndarray]


def collect(given: dict[str, Any], rows: int, seed: int) -> Rows:
    """``rows`` (observation, mask) pairs of the seats to move in reference games where the
    heuristic plays half the seats (which half changes every game) and random play the rest."""
    options = TexasEuchre.OPTIONS.resolve(given)
    rng = np.random.default_rng(seed)
    player = HeuristicPolicy(options, seed=seed)
    size = TexasEuchre.layout(options).size
    n_actions = TexasEuchre.num_actions(options)
    obs = np.zeros((rows, size), OBS_DTYPE)
    masks = np.zeros((rows, n_actions), np.int8)
    game, games = TexasEuchre(options, rng, None), 0
    for i in range(rows):
        if game.is_over:
            game, games = TexasEuchre(options, rng, None), games + 1
        seat = game.current_player
        game.encode(seat, obs[i])
        masks[i, game.legal_actions()] = 1
        if (seat + games) % 2:
            action = int(rng.choice(np.flatnonzero(masks[i])))
        else:
            action = player.act(obs[i], masks[i])
        game.apply(action)
    return options, obs, masks


@pytest.fixture(scope="module", params=CASES, ids=options_id)
def rows(request: pytest.FixtureRequest) -> Rows:
    return collect(request.param, 1500, seed=len(options_id(request.param)))


class Spy:
    """Wraps the kernel: counts its calls and the rows it leaves to ``act``."""

    def __init__(self) -> None:
        self.calls: list[int] = []
        self.left: int = 0
        self.kernel = bot_batched.decide

    def __call__(self, observations: np.ndarray, *args: Any) -> np.ndarray:
        out: np.ndarray = self.kernel(observations, *args)
        self.calls.append(len(observations))
        self.left += int(np.sum(out == bot_batched.FALLBACK))
        return out


@pytest.fixture
def spy(monkeypatch: pytest.MonkeyPatch) -> Iterator[Spy]:
    watcher = Spy()
    monkeypatch.setattr(bot_batched, "decide", watcher)
    assert HeuristicPolicy._batched_module() is bot_batched
    yield watcher


def row_loop(options: dict[str, Any], obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
    bot = HeuristicPolicy(options, seed=11)
    return np.array([bot.act(o, m) for o, m in zip(obs, masks)], dtype=np.int64)


def in_batches(bot: HeuristicPolicy, obs: np.ndarray, masks: np.ndarray,
               rng: np.random.Generator) -> np.ndarray:
    """``act_batch`` over consecutive batches: 256 rows, then 8 to 300 (the last one takes
    what is left, never under ``BATCH_MIN_ROWS``)."""
    out, at = [], 0
    while at < len(obs):
        size = 256 if at == 0 else int(rng.integers(BATCH_MIN_ROWS, 300))
        if len(obs) - at - size < BATCH_MIN_ROWS:
            size = len(obs) - at
        out.append(bot.act_batch(obs[at : at + size], masks[at : at + size]))
        at += size
    return np.concatenate(out)


def check_rows(options: dict[str, Any], obs: np.ndarray, masks: np.ndarray, spy: Spy) -> None:
    bot = HeuristicPolicy(options, seed=11)
    expected = row_loop(options, obs, masks)
    got = in_batches(bot, obs, masks, np.random.default_rng(0))
    assert got.dtype == np.int64
    wrong = np.flatnonzero(got != expected)
    assert not len(wrong), (len(wrong), "rows differ, first", wrong[0], got[wrong[0]],
                            expected[wrong[0]])
    assert spy.calls and sum(spy.calls) == len(obs) and spy.left == 0
    assert masks[np.arange(len(obs)), got].all()
    reference = HeuristicPolicy(options, seed=11)
    for i in range(0, len(obs), 13):
        assert reference.best_actions(obs[i], masks[i]) == [got[i]]
    # the bot draws nothing at random: both streams are where they started
    assert bot.rng.bit_generator.state == HeuristicPolicy(options, seed=11).rng.bit_generator.state


# ---- real rows ---------------------------------------------------------------------------------
def test_batch_equals_the_row_loop(rows: Rows, spy: Spy) -> None:
    options, obs, masks = rows
    n = options["num_players"]
    phases = np.bincount(obs[:, TexasEuchre.layout(options).slice("phase")].argmax(1),
                         minlength=len(PHASES))
    assert (phases > 30).all(), phases  # every phase, often
    expected = row_loop(options, obs, masks)
    throw = 1 << HAND_SIZE[n]
    kinds = {"throw": expected == throw, "discard none": expected == 0,
             "discard": (expected > 0) & (expected < throw), "play": expected > throw}
    assert all(hit.sum() > 10 for hit in kinds.values()), {k: v.sum() for k, v in kinds.items()}
    check_rows(options, obs, masks, spy)


def test_one_legal_action_is_played(rows: Rows, spy: Spy) -> None:
    options, obs, masks = rows
    obs, masks = obs[:400], masks[:400]
    rng = np.random.default_rng(1)
    only = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
    single = np.zeros_like(masks)
    single[np.arange(len(masks)), only] = 1
    got = HeuristicPolicy(options).act_batch(obs, single)
    assert np.array_equal(got, only)
    assert np.array_equal(got, row_loop(options, obs, single)) and spy.left == 0


def test_small_batches_go_row_by_row(rows: Rows, spy: Spy) -> None:
    options, obs, masks = rows
    bot = HeuristicPolicy(options)
    assert bot.act_batch(obs[:0], masks[:0]).shape == (0,)
    for size in range(1, BATCH_MIN_ROWS + 2):
        part = slice(100, 100 + size)
        got = bot.act_batch(obs[part], masks[part])
        assert np.array_equal(got, row_loop(options, obs[part], masks[part]))
    assert spy.calls == [BATCH_MIN_ROWS, BATCH_MIN_ROWS + 1]


def test_mask_dtypes_and_other_rows(spy: Spy) -> None:
    options, obs, masks = collect({"num_players": 6, "reverse": True}, 400, seed=5)
    expected = row_loop(options, obs, masks)
    bot = HeuristicPolicy(options)
    for m in (masks.astype(bool), masks.astype(np.float32), masks.astype(np.int64)):
        assert np.array_equal(bot.act_batch(obs, m), expected)
    # rows from a strided view and a list of rows decide alike
    doubled = np.repeat(obs, 2, axis=0)[::2]
    assert np.array_equal(bot.act_batch(doubled, masks), expected)
    assert np.array_equal(bot.act_batch(list(obs), list(masks)), expected)
    assert len(spy.calls) == 5
    # another dtype, or rows that are not the layout's, go row by row
    assert np.array_equal(bot.act_batch(obs.astype(np.float64), masks), expected)
    assert np.array_equal(bot.act_batch(obs[:, :-1], masks), expected)  # reverse unread
    assert len(spy.calls) == 5


def test_without_numba_it_plays_row_by_row(rows: Rows, monkeypatch: pytest.MonkeyPatch) -> None:
    options, obs, masks = rows
    monkeypatch.setattr(HeuristicPolicy, "_batched", None)
    monkeypatch.setitem(sys.modules, "numba", None)  # what an absent package looks like
    monkeypatch.delitem(sys.modules, bot_batched.__name__)
    monkeypatch.delattr(texas_euchre, "bot_batched")
    assert HeuristicPolicy._batched_module() is None and HeuristicPolicy._batched is False
    got = HeuristicPolicy(options).act_batch(obs[:50], masks[:50])
    assert np.array_equal(got, row_loop(options, obs[:50], masks[:50]))


# ---- perturbed rows ----------------------------------------------------------------------------
def perturb(options: dict[str, Any], obs: np.ndarray, masks: np.ndarray,
            rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Real rows with the entries the bot reads redrawn: hands of 0..H cards, often high ones
    (the throw-down rules), two copies of a face, odd counts, NaN and infinities now and then;
    any phase entries; stakes at the throw-down threshold (others' least stake twice ours plus
    0.2, give or take 0.01) and NaN stakes; seen counts around the unseen test's 0.5 and trick
    rows at random; masks of any density, empty now and then."""
    n = options["num_players"]
    h = HAND_SIZE[n]
    view = TexasEuchre.layout(options)
    obs, masks = obs.copy(), masks.copy()
    rows = len(obs)
    hand = np.zeros((rows, FACES), obs.dtype)
    for i in range(rows):
        k = int(rng.integers(0, h + 1)) if rng.random() < 0.3 else h
        lowest = 0 if rng.random() < 0.4 else int(rng.choice([20, 24, 28, 32]))
        np.add.at(hand[i], rng.integers(lowest, FACES, size=k), 1.0)
        if rng.random() < 0.1:
            hand[i, rng.integers(FACES)] = rng.choice([0.4, 0.5, 1.5, 2.5, 0.6, -0.4, -1.0,
                                                      np.nan, np.inf, 3.0, 9.0])
    obs[:, view.slice("hand")] = hand
    phase = np.eye(len(PHASES), dtype=obs.dtype)[rng.integers(len(PHASES), size=rows)]
    odd = rng.random(rows) < 0.15
    phase[odd] = rng.choice([0.0, 0.5, 1.0, np.nan], size=(int(odd.sum()), len(PHASES)))
    obs[:, view.slice("phase")] = phase
    stakes = rng.integers(0, 60, size=(rows, n)) / 100.0
    own = rng.integers(0, 20, size=rows)
    edge = rng.random(rows) < 0.5
    stakes[edge, 0] = own[edge] / 100.0
    stakes[edge, 1:] = (2 * own[edge, None] + 20 + rng.integers(-1, 2, size=(int(edge.sum()), 1))
                        + rng.integers(0, 2, size=(int(edge.sum()), n - 1)) * 10) / 100.0
    nan = rng.random(rows) < 0.1
    stakes[nan, rng.integers(n, size=int(nan.sum()))] = np.nan
    obs[:, view.slice("stake_points")] = stakes
    seen = rng.choice([0.0, 1.0, 2.0, 0.4, 0.5, 0.6, 1.5], size=(rows, FACES)) * (
        rng.random((rows, FACES)) < 0.5)
    obs[:, view.slice("seen")] = np.minimum(seen, DECKS[n])
    trick = np.zeros((rows, n, FACES), obs.dtype)
    for i in range(rows):
        for rel in range(n):
            if rng.random() < 0.4:
                trick[i, rel, rng.integers(FACES)] = 1
    obs[:, view.slice("trick")] = trick.reshape(rows, n * FACES)
    masks[:] = rng.random(masks.shape) < rng.choice([0.05, 0.3, 0.9], size=(rows, 1))
    masks[rng.random(rows) < 0.02] = 0
    return obs, masks


def reference_or_error(options: dict[str, Any], obs: np.ndarray,
                       masks: np.ndarray) -> tuple[np.ndarray, list[type[BaseException] | None]]:
    bot = HeuristicPolicy(options)
    actions, errors = np.full(len(obs), -1, np.int64), []
    for i, (o, m) in enumerate(zip(obs, masks)):
        try:
            actions[i] = bot.act(o, m)
            errors.append(None)
        except (IndexError, ValueError) as e:
            errors.append(type(e))
    return actions, errors


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # act casts NaN counts to int
@pytest.mark.parametrize("options", CASES, ids=options_id)
def test_perturbed_rows_decide_or_raise_alike(options: dict[str, Any], spy: Spy) -> None:
    options, obs, masks = collect(options, 600, seed=9)
    obs, masks = perturb(options, obs, masks, np.random.default_rng(3))
    expected, errors = reference_or_error(options, obs, masks)
    ok = np.array([e is None for e in errors])
    assert 0 < (~ok).sum() < len(obs) // 5
    bot = HeuristicPolicy(options)
    got = bot.act_batch(obs[ok], masks[ok])
    assert np.array_equal(got, expected[ok])
    with pytest.raises(errors[int(np.argmin(ok))]):  # the first row act raises on
        bot.act_batch(obs, masks)
    assert spy.left >= (~ok).sum()  # the rows act raises on are left to it


# ---- the slow sweep ----------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("options", CASES, ids=options_id)
def test_sweep(options: dict[str, Any], spy: Spy) -> None:
    options, obs, masks = collect(options, 25_000, seed=2024)
    check_rows(options, obs, masks, spy)
