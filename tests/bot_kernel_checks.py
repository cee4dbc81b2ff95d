"""Checks a heuristic bot with a compiled batch path (``bot_batched.py``: a ``_batch_kernel``
and a ``_kernel`` cache on the bot class) must pass against its own row loop; each game's
``tests/games/<game>/test_bot_batched.py`` calls them on rows of its games.

- ``check_act_batch_is_the_row_loop``: batches of several sizes (the kernel's and the row
  loop's), bool masks and read-only, non-contiguous observations give ``act``'s moves row by
  row, and the same draws from the generator;
- ``check_forced_and_small_batches``: rows with one legal move are taken without a draw;
  batches below the kernel's size and float64 rows take the row loop;
- ``check_batches_of_256``: a long run of rows decided 256 at a time, the same;
- ``check_without_numba``: with numba missing, ``act_batch`` is the row loop;
- ``check_bot_import_skips_numba``: importing the bot does not import numba.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from itertools import pairwise
from types import ModuleType
from typing import Any

import numpy as np
import pytest


def row_loop(bot: Any, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
    return np.array([bot.act(o, m) for o, m in zip(obs, masks)], np.int64)


def same_generators(a: Any, b: Any) -> bool:
    return bool(a.rng.bit_generator.state == b.rng.bit_generator.state)


def check_act_batch_is_the_row_loop(make: Callable[[], Any], kernel: ModuleType,
                                    obs: np.ndarray, masks: np.ndarray,
                                    cuts: list[int]) -> None:
    """Two bots from ``make`` (the same seed): one decides the batches ``obs[lo:hi]`` for
    consecutive ``cuts``, the other each row with ``act``; then 64 rows again with bool masks
    and observations that are read-only and not contiguous."""
    batched, looped = make(), make()
    assert type(batched)._batch_kernel() is kernel
    for lo, hi in pairwise(cuts):
        chosen = batched.act_batch(obs[lo:hi], masks[lo:hi])
        assert chosen.dtype == np.int64 and chosen.shape == (hi - lo,)
        expected = row_loop(looped, obs[lo:hi], masks[lo:hi])
        assert (chosen == expected).all(), lo + int(np.flatnonzero(chosen != expected)[0])
        assert same_generators(batched, looped)
    wide = np.zeros((64, obs.shape[1] + 1), np.float32)
    wide[:, :-1] = obs[:64]
    wide.flags.writeable = False
    chosen = batched.act_batch(wide[:, :-1], masks[:64].astype(bool))
    assert (chosen == row_loop(looped, obs[:64], masks[:64])).all()
    assert same_generators(batched, looped)


def check_forced_and_small_batches(make: Callable[[], Any], obs: np.ndarray,
                                   masks: np.ndarray, forced: np.ndarray,
                                   small: tuple[int, ...]) -> None:
    """``forced``: one legal action per row of ``obs[:len(forced)]``, taken as it is with no
    draw; batches of ``small`` rows, and 40 float64 rows with float32 masks, decided as the
    row loop decides them (float64 rows are rated in float64 by the bot, which can change its
    ties: not the kernel's)."""
    batched, looped = make(), make()
    rows = len(forced)
    chosen = batched.act_batch(obs[:rows], forced)
    assert (chosen == forced.argmax(axis=1)).all()
    assert (chosen == row_loop(looped, obs[:rows], forced)).all()
    assert same_generators(batched, looped)
    for size in small:
        now = batched.act_batch(obs[:size], masks[:size])
        assert (now == row_loop(looped, obs[:size], masks[:size])).all()
    wide = obs[:40].astype(np.float64)
    chosen = batched.act_batch(wide, masks[:40].astype(np.float32))
    assert (chosen == row_loop(looped, wide, masks[:40])).all()
    assert same_generators(batched, looped)


def check_batches_of_256(make: Callable[[], Any], obs: np.ndarray, masks: np.ndarray) -> None:
    batched, looped = make(), make()
    chosen = np.concatenate([batched.act_batch(obs[lo : lo + 256], masks[lo : lo + 256])
                             for lo in range(0, len(obs), 256)])
    assert (chosen == row_loop(looped, obs, masks)).all()
    assert same_generators(batched, looped)


def check_without_numba(monkeypatch: pytest.MonkeyPatch, bot_class: type, kernel: ModuleType,
                        make: Callable[[], Any], obs: np.ndarray, masks: np.ndarray) -> None:
    """With numba missing (the kernel's module unimported, the bot's cache empty),
    ``act_batch`` on ``obs`` is the row loop and the bot remembers that numba is missing."""
    monkeypatch.setitem(sys.modules, "numba", None)  # what an absent package looks like
    monkeypatch.delitem(sys.modules, kernel.__name__)
    package, _, name = kernel.__name__.rpartition(".")
    monkeypatch.delattr(sys.modules[package], name)
    monkeypatch.setattr(bot_class, "_kernel", None)
    batched, looped = make(), make()
    assert (batched.act_batch(obs, masks) == row_loop(looped, obs, masks)).all()
    assert bot_class._kernel is False and same_generators(batched, looped)


def check_bot_import_skips_numba(module: str) -> None:
    code = (f"import sys; from {module} import HeuristicPolicy; import cahoots_envs; "
            "print('numba' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "False"
