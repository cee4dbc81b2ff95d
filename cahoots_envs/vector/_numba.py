"""The batched engines' shared numba helpers, now ``cahoots_envs.core.numba_kernels``: re-exported
here for code that imports them from their former home (imports numba, as that module does)."""

from __future__ import annotations

from cahoots_envs.core.numba_kernels import (
    lowest_bit_index,
    next_u64,
    nth_set_bit,
    popcount64,
    randint,
    seed_states,
    shuffle,
)

__all__ = [
    "lowest_bit_index",
    "next_u64",
    "nth_set_bit",
    "popcount64",
    "randint",
    "seed_states",
    "shuffle",
]
