"""Shared numba helpers of the batched engines: a per-game random stream and bit tricks.

Every game of a batch owns one ``uint64`` generator state (``rng_state[i]``); the generator is
SplitMix64 (a Weyl sequence through a 64-bit mixer: one add, three xor-shifts and two multiplies
a draw, every state valid, period 2**64). ``seed_states`` fills the states from one seed through
numpy's ``SeedSequence``, so a seed gives the same batch on every platform and nearby seeds give
unrelated streams. Each game draws only from its own state, so game ``i``'s later deals continue
its own stream whatever the other games do.

The kernels' helpers are ``@numba.njit(inline="always")`` so that a step kernel which loops over
all games compiles them into its own body. This module imports numba, the only module of
``cahoots_envs.core`` that does: only ``cahoots_envs.vector`` and the games' ``batched.py`` modules
import it (``import cahoots_envs`` and ``cahoots_envs.core`` never do).
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = [
    "lowest_bit_index",
    "next_u64",
    "nth_set_bit",
    "popcount64",
    "randint",
    "seed_states",
    "shuffle",
    "split_outcome",
]

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_U30 = np.uint64(30)
_U27 = np.uint64(27)
_U31 = np.uint64(31)
_ZERO = np.uint64(0)
_ONE = np.uint64(1)
_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)
_U1 = np.uint64(1)
_U2 = np.uint64(2)
_U4 = np.uint64(4)
_U56 = np.uint64(56)


def seed_states(seed: int | None, n: int) -> np.ndarray:
    """``n`` generator states (``uint64[n]``) from ``seed`` (a non-negative int, or None for
    fresh entropy from the operating system). Plain Python: called once per ``reset``."""
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))
                             or seed < 0):
        raise ValueError(f"a seed is a non-negative int or None, got {seed!r}")
    if n < 0:
        raise ValueError(f"the number of states must be >= 0, got {n}")
    sequence = np.random.SeedSequence(None if seed is None else int(seed))
    return sequence.generate_state(max(n, 1), np.uint64)[:n].copy()


@numba.njit(inline="always", cache=True)
def next_u64(state: np.ndarray, i: int) -> np.uint64:
    """The next 64 random bits of game ``i``'s stream (advances ``state[i]``)."""
    s = state[i] + _GOLDEN
    state[i] = s
    z = (s ^ (s >> _U30)) * _MIX1
    z = (z ^ (z >> _U27)) * _MIX2
    return z ^ (z >> _U31)


@numba.njit(inline="always", cache=True)
def randint(state: np.ndarray, i: int, k: int) -> np.int64:
    """A uniform int in ``[0, k)`` from game ``i``'s stream, unbiased (draws below
    ``2**64 mod k`` are rejected; ``k >= 1``)."""
    kk = np.uint64(k)
    # 2**64 mod k, computed without a 2**64 constant: (2**64 - k) mod k
    threshold = (_ZERO - kk) % kk
    r = next_u64(state, i)
    while r < threshold:
        r = next_u64(state, i)
    return np.int64(r % kk)


@numba.njit(inline="always", cache=True)
def shuffle(arr: np.ndarray, state: np.ndarray, i: int) -> None:
    """Shuffle the 1-d array ``arr`` in place (Fisher–Yates) with game ``i``'s stream."""
    for j in range(arr.shape[0] - 1, 0, -1):
        k = randint(state, i, j + 1)
        tmp = arr[j]
        arr[j] = arr[k]
        arr[k] = tmp


@numba.njit(inline="always", cache=True)
def popcount64(x: np.uint64) -> np.int64:
    """The number of set bits of the 64-bit word ``x``."""
    v = np.uint64(x)
    v = v - ((v >> _U1) & _M1)
    v = (v & _M2) + ((v >> _U2) & _M2)
    v = (v + (v >> _U4)) & _M4
    return np.int64((v * _H01) >> _U56)


@numba.njit(inline="always", cache=True)
def lowest_bit_index(x: np.uint64) -> np.int64:
    """The index (0..63) of the lowest set bit of ``x``; -1 when ``x`` is 0."""
    v = np.uint64(x)
    if v == _ZERO:
        return np.int64(-1)
    return popcount64((v & (_ZERO - v)) - _ONE)


@numba.njit(inline="always", cache=True)
def nth_set_bit(x: np.uint64, n: int) -> np.int64:
    """The index of the ``n``-th lowest set bit of ``x`` (``n`` from 0); -1 when ``x`` has at
    most ``n`` set bits."""
    v = np.uint64(x)
    for _ in range(n):
        if v == _ZERO:
            return np.int64(-1)
        v &= v - _ONE
    return lowest_bit_index(v)


@numba.njit(inline="always", cache=True)
def split_outcome(scores: np.ndarray, at: int, n: int, rw: np.ndarray) -> None:
    """The zero-sum outcome of the final ``scores[at : at + n]`` into ``rw[:n]``: the best
    (ties share) split +1, the others split -1; ``rw`` is left as it is when every seat ties."""
    best = scores[at]
    for s in range(1, n):
        best = max(best, scores[at + s])
    k = 0
    for s in range(n):
        if scores[at + s] == best:
            k += 1
    if k < n:
        for s in range(n):
            rw[s] = 1.0 / k if scores[at + s] == best else -1.0 / (n - k)
