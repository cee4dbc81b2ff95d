"""Kansas City's world sampler (``search.py``) drawing one hand's hidden cards in compiled calls.

``search._sample_hand`` calls ``fill`` and ``complete`` when numba is installed; ``search.py``'s
``_fill`` and ``_complete`` stay the reference and the path without numba. The kernels read the
same uniform numbers, drawn in the same order, and make the same choices, so they give the same
cards, passes and actions and leave the generator where the reference does
(``tests/games/kansas_city/test_search.py`` compares them); the matching fallback after every
try failed stays in Python. The hand plan arrives packed in one int64 array (``pack``: header
fields, then sections). This module imports numba: only ``search.py`` imports it, lazily, and it
imports nothing of ``search.py`` (no import cycle).
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from cahoots_envs.core.numba_kernels import lowest_bit_index, nth_set_bit, popcount64
from cahoots_envs.games.kansas_city.rules import PASS_COMBOS, PASS_SIZE, RANKS, KansasCity

# the packed hand plan (``pack``): header fields, then the sections at the offsets the header
# gives
(H_N, H_SEAT, H_POOL, H_SLOTS, H_FORCED, H_NEEDS, H_DECLINES, H_EVENTS, H_EXCHANGED, H_OWN_PASS,
 H_RECEIVED, H_OWN_DEALT, H_PASSES, H_TEMPLATE, H_HOLES, H_UPGRADE_BASE, H_OUT,
 O_ALLOWED, O_TARGET, O_FCARD, O_FCOUNT, O_FCANDS, O_NSEAT, O_NNEED, O_NCOUNT, O_NOWN, O_DSEAT,
 O_DNEED, O_FACEUP, O_EVSEAT, O_PSEAT, O_PPROF, O_PRANKS, O_PCOUNTS, O_TEMPLATE, O_HOLES,
 HEADER) = range(37)
DONE, NEED_MORE, EXHAUSTED = 0, 1, 2  # ``fill``'s status


COMBO_TABLES: dict[int, np.ndarray] = {}


def combo_table(hand_size: int) -> np.ndarray:
    """The pass action of each set of hand positions, indexed by the positions' bit set."""
    table = COMBO_TABLES.get(hand_size)
    if table is None:
        table = np.full(1 << hand_size, -1, np.int64)
        for index, combo in enumerate(PASS_COMBOS[hand_size]):
            table[sum(1 << p for p in combo)] = index
        COMBO_TABLES[hand_size] = table
    return table


def padded(profile: tuple[tuple[int, int], ...] | None) -> list[tuple[int, int]]:
    """A pass's rank profile as ``RANKS`` (rank mask, count) pairs, zeros after its own."""
    pairs = list(profile or ())
    return pairs + [(0, 0)] * (RANKS - len(pairs))


def pack(hp: Any, game: KansasCity, seat: int) -> np.ndarray:
    """``search._HandPlan`` ``hp`` of ``seat`` as the kernels read it: one int64 array."""
    n, slots = game.num_players, hp.slots
    specs = hp.pass_specs if hp.exchanged else [(s, None) for s in hp.pending_seats]
    sections: list[list[int]] = [
        [allowed for allowed, _ in slots],
        [target for _, target in slots],
        [card for card, _ in hp.forced],
        [len(c) for _, c in hp.forced],
        [i for _, c in hp.forced for i in c + [0] * (len(slots) - len(c))],
        [s for s, _, _ in hp.needs],
        [need for _, need, _ in hp.needs],
        [len(own) for _, _, own in hp.needs],
        [i for _, _, own in hp.needs for i in own + [0] * (len(slots) - len(own))],
        [s for s, _ in hp.declines],
        [need for _, need in hp.declines],
        list(hp.faceup_by_seat),
        [s for s, _ in hp.upgrades],
        [s for s, _ in specs],
        [-1 if profile is None else len(profile) for _, profile in specs],
        [m for _, profile in specs for m, _ in padded(profile)],
        [c for _, profile in specs for _, c in padded(profile)],
        list(hp.template),
        [x for hole in hp.holes for x in hole],
    ]
    header = [0] * HEADER
    header[H_N], header[H_SEAT], header[H_POOL] = n, seat, hp.pool
    header[H_SLOTS], header[H_FORCED], header[H_NEEDS] = len(slots), len(hp.forced), len(hp.needs)
    header[H_DECLINES], header[H_EVENTS] = len(hp.declines), len(hp.events)
    header[H_EXCHANGED], header[H_OWN_PASS] = int(hp.exchanged), hp.own_pass
    header[H_RECEIVED], header[H_OWN_DEALT] = hp.received, hp.own_dealt
    header[H_PASSES], header[H_TEMPLATE], header[H_HOLES] = (
        len(specs), len(hp.template), len(hp.holes))
    header[H_UPGRADE_BASE] = game.upgrade_base
    header[H_OUT] = len(hp.events) + 3 * n + len(hp.template)
    at = HEADER
    for k, section in enumerate(sections):
        header[O_ALLOWED + k] = at
        at += len(section)
    return np.array(header + [x for section in sections for x in section], np.int64)


__all__ = ["combo_table", "complete", "fill", "pack"]


@numba.njit(inline="always", cache=True)
def _nth_bit(mask: int, k: int) -> int:
    """The ``k``-th lowest card of ``mask`` (from 0), as a one-bit mask."""
    return np.int64(1) << nth_set_bit(np.uint64(mask), k)


@numba.njit(cache=True)
def _pick(mask: int, draws: np.ndarray, at: int, count: int) -> int:
    """``search._pick`` with ``draws[at : at + count]``."""
    out = 0
    size = popcount64(np.uint64(mask))
    for j in range(count):
        low = _nth_bit(mask, int(draws[at + j] * size))
        out |= low
        mask ^= low
        size -= 1
    return out


@numba.njit(cache=True)
def _free_slots(plan: np.ndarray, at: int, count: int, cards: np.ndarray, left: int,
                o_allowed: int, need: int, free: np.ndarray) -> int:
    """Into ``free``: the slots listed at ``plan[at : at + count]`` not filled yet that allow
    one of the cards ``left & need``; returns how many."""
    m = 0
    for j in range(count):
        c = plan[at + j]
        if cards[c] == 0 and left & plan[o_allowed + c] & need:
            free[m] = c
            m += 1
    return m


@numba.njit(cache=True)
def fill(plan: np.ndarray, stream: np.ndarray, tries: int, out: np.ndarray) -> int:
    """``search._fill`` of the packed hand plan ``plan``, try ``t`` reading the numbers
    ``stream[2 * units * t : 2 * units * (t + 1)]`` (``_fill`` draws each try's in turn). On
    success ``out`` (int64, ``plan[H_OUT]`` long) holds the event cards, then the held cards
    (``complete`` writes the rest). Returns ``DONE``, ``NEED_MORE`` (a try failed and
    ``stream`` ends before the next try's numbers: call again with them appended; the tries
    start over from the first) or ``EXHAUSTED`` (every try failed: the caller falls back to
    the matching)."""
    n = plan[H_N]
    n_slots, n_forced, n_needs = plan[H_SLOTS], plan[H_FORCED], plan[H_NEEDS]
    o_allowed, o_target = plan[O_ALLOWED], plan[O_TARGET]
    o_fcard, o_fcount, o_fcands = plan[O_FCARD], plan[O_FCOUNT], plan[O_FCANDS]
    o_nseat, o_nneed, o_ncount, o_nown = plan[O_NSEAT], plan[O_NNEED], plan[O_NCOUNT], \
        plan[O_NOWN]
    units = n_needs + n_forced + n_slots
    size = 2 * units
    kinds = np.empty(units, np.int64)
    keys = np.empty(units, np.int64)
    u = 0
    for k in range(n_needs):
        kinds[u], keys[u] = 2, k
        u += 1
    for k in range(n_forced):
        kinds[u], keys[u] = 1, k
        u += 1
    for k in range(n_slots):
        kinds[u], keys[u] = 0, k
        u += 1
    cards = np.zeros(n_slots, np.int64)
    held = np.zeros(n, np.int64)
    free = np.empty(max(n_slots, 1), np.int64)
    done = False
    for t in range(tries):
        base = t * size
        if base + size > stream.shape[0]:
            return NEED_MORE
        left = plan[H_POOL]
        cards[:] = 0
        held[:] = 0
        dead = -1
        for u in range(units):
            kind, k = kinds[u], keys[u]
            x = stream[base + 2 * u]
            if kind == 0:
                if cards[k] != 0:
                    continue
                choice = left & plan[o_allowed + k]
                if choice == 0:
                    dead = u
                    break
                low = _nth_bit(choice, int(x * popcount64(choice)))
                i = k
            else:  # a forced card (1) or a decline's need (2): a slot among those listed
                if kind == 1:
                    need = plan[o_fcard + k]  # one card
                    if left & need == 0:
                        continue
                    at, count = o_fcands + k * n_slots, plan[o_fcount + k]
                else:
                    need = plan[o_nneed + k]
                    if held[plan[o_nseat + k]] & need:
                        continue
                    at, count = o_nown + k * n_slots, plan[o_ncount + k]
                m = _free_slots(plan, at, count, cards, left, o_allowed, need, free)
                if m == 0:
                    dead = u
                    break
                i = free[int(x * m)]
                choice = left & plan[o_allowed + i] & need
                low = choice if kind == 1 else _nth_bit(
                    choice, int(stream[base + 2 * u + 1] * popcount64(choice)))
            cards[i] = low
            left ^= low
            slot_target = plan[o_target + i]
            if slot_target < 0:
                held[-1 - slot_target] |= low
        if dead >= 0:  # the unit that failed goes first
            kind, k = kinds[dead], keys[dead]
            for v in range(dead, 0, -1):
                kinds[v], keys[v] = kinds[v - 1], keys[v - 1]
            kinds[0], keys[0] = kind, k
            continue
        done = True
        for d in range(plan[H_DECLINES]):
            if held[plan[plan[O_DSEAT] + d]] & plan[plan[O_DNEED] + d] == 0:
                done = False
                break
        if done:
            break
    if not done:
        return EXHAUSTED
    for i in range(n_slots):
        if plan[o_target + i] >= 0:
            out[plan[o_target + i]] = lowest_bit_index(cards[i])
    out[plan[H_EVENTS]: plan[H_EVENTS] + n] = held
    return DONE


@numba.njit(cache=True)
def complete(plan: np.ndarray, combos: np.ndarray, draws: np.ndarray, out: np.ndarray) -> None:
    """``search._complete`` after ``fill``: from the event cards and held cards in ``out``, the
    passes drawn with ``draws`` (the numbers ``_complete`` reads, drawn after the fill's), the
    dealt hands and the actions, written after them in ``out``."""
    n, seat, events = plan[H_N], plan[H_SEAT], plan[H_EVENTS]
    held = out[events: events + n]
    passes = out[events + n: events + 2 * n]
    dealt = out[events + 2 * n: events + 3 * n]
    actions = out[events + 3 * n:]
    passes[:] = 0
    right = (seat - 1) % n
    if plan[H_EXCHANGED]:
        holding = held.copy()
        for s in range(n):
            holding[s] |= plan[plan[O_FACEUP] + s]
        for ev in range(events):
            holding[plan[plan[O_EVSEAT] + ev]] |= np.int64(1) << out[ev]
        passes[seat], passes[right] = plan[H_OWN_PASS], plan[H_RECEIVED]
        for k in range(plan[H_PASSES]):
            s = plan[plan[O_PSEAT] + k]
            source = holding[(s + 1) % n]
            start = PASS_SIZE * k
            profile = plan[plan[O_PPROF] + k]
            if profile < 0:
                passes[s] = _pick(source, draws, start, PASS_SIZE)
            else:  # so many cards of each rank
                p = 0
                for r in range(profile):
                    count = plan[plan[O_PCOUNTS] + k * RANKS + r]
                    p |= _pick(source & plan[plan[O_PRANKS] + k * RANKS + r], draws, start,
                               count)
                    start += count
                passes[s] = p
        for s in range(n):
            dealt[s] = plan[H_OWN_DEALT] if s == seat else (
                (holding[s] & ~passes[(s - 1) % n]) | passes[s])
    else:
        for s in range(n):
            dealt[s] = plan[H_OWN_DEALT] if s == seat else held[s]
        passes[seat] = plan[H_OWN_PASS]
        for k in range(plan[H_PASSES]):
            s = plan[plan[O_PSEAT] + k]
            passes[s] = _pick(held[s], draws, PASS_SIZE * k, PASS_SIZE)
    o_template = plan[O_TEMPLATE]
    for j in range(plan[H_TEMPLATE]):
        actions[j] = plan[o_template + j]
    o_holes = plan[O_HOLES]
    for h in range(plan[H_HOLES]):
        where, kind, arg = plan[o_holes + 3 * h], plan[o_holes + 3 * h + 1], \
            plan[o_holes + 3 * h + 2]
        if kind == 0:
            hand, chosen = dealt[arg], passes[arg]
            key = 0
            pos = 0
            while hand:
                low = hand & -hand
                if chosen & low:
                    key |= 1 << pos
                hand ^= low
                pos += 1
            actions[where] = combos[key]
        else:
            actions[where] = plan[H_UPGRADE_BASE] + out[arg]
