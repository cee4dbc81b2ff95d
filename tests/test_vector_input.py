"""What the batched engine and the batched seat env do with input they cannot use, and the note
that the first use compiles the kernels (issue 23's probe findings). Kept apart from
``test_vector.py``, whose numba kernels numba caches by that file's time stamp: an edit here
recompiles nothing."""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
import pytest

from cahoots_envs import vector
from cahoots_envs.errors import IllegalActionError
from tests.test_vector import FirstLegal, high_card  # noqa: F401 (a fixture)


# ---- the compile notice --------------------------------------------------------------------------
def _fresh_kernel() -> Any:
    """A new uncached njit function: its first call compiles (a fraction of a second)."""
    return numba.njit(lambda x: x + 1)


def _play_until_a_game_ends(vec: vector.VectorGames) -> None:
    """Every kernel of High Card's engine run once (reset, step, a finished game's deal)."""
    out = vec.reset()
    rng = np.random.default_rng(0)
    while not out.finished.size:
        out = vec.step(vector.random_legal_actions(out.mask, rng))


def test_a_compile_is_announced_once_per_game(monkeypatch: pytest.MonkeyPatch,
                                              caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(vector, "_compile_announced", set())
    with caplog.at_level("WARNING", logger="cahoots_envs.vector"):
        with vector.compile_notice("some_game"):
            _fresh_kernel()(1)
            _fresh_kernel()(1)
        with vector.compile_notice("some_game"):
            _fresh_kernel()(1)
        with vector.compile_notice("other_game", active=False):
            _fresh_kernel()(1)
        _fresh_kernel()(1)  # outside any notice
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 1 and "\n" not in lines[0]
    assert "compiling the batched kernels of some_game" in lines[0]
    assert vector.COMPILE_TIME in lines[0] and "caches them on disk" in lines[0]


def test_the_first_reset_and_step_announce_a_compile_and_warm_kernels_say_nothing(
        high_card: str, monkeypatch: pytest.MonkeyPatch,  # noqa: F811 (the fixture)
        caplog: pytest.LogCaptureFixture) -> None:
    _play_until_a_game_ends(vector.make(high_card, num_envs=2, seed=0))
    monkeypatch.setattr(vector, "_compile_announced", set())
    caplog.clear()  # a notice of the warm-up (a cold on-disk cache) is not this test's
    with caplog.at_level("WARNING", logger="cahoots_envs.vector"):
        vec = vector.make(high_card, num_envs=2, seed=0)
        _play_until_a_game_ends(vec)  # the kernels are compiled: silent
        assert not caplog.records
        step = vec.engine.step
        monkeypatch.setattr(vec.engine, "step", lambda a: (_fresh_kernel()(1), step(a)))
        out = vec.step(vector.random_legal_actions(vec.engine.mask, np.random.default_rng(0)))
        assert not caplog.records  # only the first reset and step are watched
        vec = vector.make(high_card, num_envs=2, seed=0)
        reset = vec.engine.reset
        monkeypatch.setattr(vec.engine, "reset", lambda *a: (_fresh_kernel()(1), reset(*a)))
        out = vec.reset()
        vec.step(vector.random_legal_actions(out.mask, np.random.default_rng(0)))
    assert [r.getMessage().split(" with ")[0] for r in caplog.records] == [
        "cahoots_envs.vector: compiling the batched kernels of high_card"]


# ---- the batched seat env ----------------------------------------------------------------------
def test_seat_env_names_its_arguments_and_the_game_options(high_card: str) -> None:  # noqa: F811
    pytest.importorskip("stable_baselines3")
    from cahoots_envs.training.batched_seat_env import BatchedSeatVecEnv

    with pytest.raises(ValueError, match=r"^unknown option or argument 'opponent': neither an "
                       r"argument of BatchedSeatVecEnv nor a game option of .*high_card-v0 \(did "
                       r"you mean 'opponents'\?\)\. BatchedSeatVecEnv takes env_id, num_envs, "
                       r"options, opponents, .*reward_scale; the game options .*: num_players") as e:
        BatchedSeatVecEnv(high_card, 2, opponent="random")
    assert "\n" not in str(e.value)


def test_seat_env_takes_what_vector_games_take_and_refuses_the_rest(
        high_card: str) -> None:  # noqa: F811
    pytest.importorskip("stable_baselines3")
    from cahoots_envs.training.batched_seat_env import BatchedSeatVecEnv

    venv = BatchedSeatVecEnv(high_card, 3, options={"num_players": 3}, opponents=FirstLegal(),
                             seed=0)
    obs = venv.reset()
    masks = venv.action_masks()
    legal = masks.argmax(axis=1)
    before = venv.engine.state.copy()

    def unchanged() -> bool:
        return (np.array_equal(venv.engine.obs, obs) and np.array_equal(venv.action_masks(), masks)
                and np.array_equal(venv.engine.state, before))

    for junk in (legal + 0.9, legal.astype(str), [*legal.tolist()[:2], "1"], legal.astype(bool),
                 legal.reshape(3, 1), legal[:2], str(legal[0]), None, [[1, 2], [3]], 3.0):
        with pytest.raises(IllegalActionError, match=r"learners: step takes an int array of "
                           r"shape \(3,\).*no game changed"):
            venv.step(junk)
        assert unchanged()
    illegal = legal.copy()
    illegal[1] = int(np.flatnonzero(~masks[1])[0])
    illegal[2] = 99
    with pytest.raises(IllegalActionError, match=r"learner action \d+ is illegal in game 1 "
                       r"\(and 1 other games\); no game changed"):
        venv.step(illegal)
    assert unchanged()
    venv.step(legal.tolist())  # a list of ints is an integer array
    assert not np.array_equal(venv.engine.state, before)


def test_the_old_batched_seat_env_path_names_the_new_one() -> None:
    """``BatchedSeatVecEnv`` moved to ``training/`` (vector ranks below training); the old path
    says where it went instead of importing upward."""
    with pytest.raises(ImportError, match=r"^cahoots_envs\.vector\.seat_env\.BatchedSeatVecEnv "
                       r"moved: use from cahoots_envs\.training\.batched_seat_env import "
                       r"BatchedSeatVecEnv$"):
        from cahoots_envs.vector.seat_env import BatchedSeatVecEnv  # noqa: F401
