"""The Texas Euchre heuristic bot (``bot.py``) for a whole batch in one numba call.

In the package only ``HeuristicPolicy.act_batch`` imports it (it imports numba); that method
reads the layout's offsets and passes them in as plain ints. ``bot.py`` stays the reference:
every rule here is the one of its docstring, computed the same way on the same observation
entries, so each row's action is the one ``HeuristicPolicy.act`` returns. The bot breaks every tie by card order,
never at random, so the kernel returns the action itself.

Where ``act`` would raise on a row (an empty hand, a mask with no legal action) or where its
Python arithmetic could leave what the kernel holds (a negative, non-finite or oversized card
count), the kernel returns ``FALLBACK`` and the caller runs ``act`` on that row: it raises there,
or decides, exactly as the row loop does. Observations the env writes never take that path.

Cards are faces (``rank * 4 + suit``, ranks 2..A as 0..12), as in the observation; a sorted
hand is the list of faces by count, the order of the discard positions.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["FALLBACK", "decide"]

FALLBACK = -1  # the caller decides this row with ``act``
FACES = 52
LOW = 6  # rank index of an 8: cards below it are discarded (bot.LOW)
FINAL_LAP_LOW = 7  # on the final lap the 8s go too (bot.FINAL_LAP_LOW)
THROW_HIGH = 8  # rank index of a 10 (bot.THROW_HIGH)
PHASE_FINAL_LAP, PHASE_PLAY = 2, 3  # indices in rules.PHASES
NUM_PHASES = 4


@numba.njit(cache=True)
def _sorted_hand(row: np.ndarray, off_hand: int, hand_size: int, hand: np.ndarray) -> int:
    """Write the hand's faces, ascending, each as often as its rounded count, into ``hand``;
    return how many (``np.repeat(arange(52), rint(counts))`` of ``act``). ``FALLBACK`` for an
    empty hand or one over ``hand_size`` cards, or a count that is negative or not finite."""
    n_hand = 0
    for face in range(FACES):
        count = np.rint(row[off_hand + face])
        if not (count >= 0.0 and count <= hand_size):  # NaN fails both
            return FALLBACK
        c = int(count)
        if n_hand + c > hand_size:
            return FALLBACK
        for _ in range(c):
            hand[n_hand] = face
            n_hand += 1
    if n_hand == 0:
        return FALLBACK
    return n_hand


@numba.njit(cache=True)
def _phase(row: np.ndarray, off_phase: int) -> int:
    """``np.argmax`` of the phase one-hot: the first largest entry, or the first NaN."""
    best = 0
    for p in range(NUM_PHASES):
        x = row[off_phase + p]
        if np.isnan(x):
            return p
        if x > row[off_phase + best]:
            best = p
    return best


@numba.njit(cache=True)
def _first_legal(mask: np.ndarray) -> int:
    """The lowest legal action (``np.flatnonzero(mask)[0]``); ``FALLBACK`` when none is legal
    (``act`` raises there)."""
    for a in range(mask.shape[0]):
        if mask[a] != 0:
            return a
    return FALLBACK


@numba.njit(cache=True)
def _strong(row: np.ndarray, hand: np.ndarray, n_hand: int, off_stakes: int, n: int) -> bool:
    """Draw phase, throw down: the hand is strong (all cards 10 or better but at most one, none
    below an 8), or decent (all but two) while the others' stakes are already big."""
    high = 0
    for p in range(n_hand):
        if hand[p] >> 2 >= THROW_HIGH:
            high += 1
    lowest = hand[0] >> 2  # the hand is sorted
    if high >= n_hand - 1 and lowest >= LOW:
        return True
    # the smallest stake of the others (np.min: NaN wins) against twice our own, in float64
    others = row[off_stakes + 1]
    for rel in range(2, n):
        x = row[off_stakes + rel]
        if np.isnan(x) or x < others:
            others = x
    own = np.float64(row[off_stakes])
    return high >= n_hand - 2 and lowest >= LOW and np.float64(others) > 2.0 * own + 0.2


@numba.njit(cache=True)
def _draw(row: np.ndarray, mask: np.ndarray, hand: np.ndarray, n_hand: int, phase: int,
          off_stakes: int, n: int, throw_action: int) -> int:
    """Draw phase: throw down when strong; else discard the k lowest cards (ranks below an 8,
    below a 9 on the final lap), i.e. the first k positions, with k shrunk to the largest legal
    count not above it, or grown to the smallest legal count when none is."""
    if mask[throw_action] != 0 and _strong(row, hand, n_hand, off_stakes, n):
        return throw_action
    low = FINAL_LAP_LOW if phase == PHASE_FINAL_LAP else LOW
    k = 0
    for p in range(n_hand):
        if hand[p] >> 2 < low:
            k += 1
    smallest, fitting = -1, -1  # the smallest legal count, the largest legal one <= k
    for j in range(n_hand + 1):
        if mask[(1 << j) - 1] != 0:
            if smallest < 0:
                smallest = j
            if j <= k:
                fitting = j
    if smallest < 0:
        return _first_legal(mask)
    return (1 << (fitting if fitting >= 0 else smallest)) - 1


@numba.njit(cache=True)
def _play(row: np.ndarray, hand: np.ndarray, n_hand: int, off_trick: int, off_seen: int,
          off_hand: int, n: int, copies: np.ndarray, reverse: bool, play_base: int) -> int:
    """Tricks. Reverse: the lowest card above the trick's lowest card (safe), else the highest
    card (also to lead). Otherwise, playing last: the cheapest card that wins (ties go to the
    last card played), else the lowest; earlier: the cheapest card no unseen card can beat,
    else the lowest."""
    on_table, best, lowest = 0, -1, FACES
    for rel in range(n):
        start = off_trick + rel * FACES
        for face in range(FACES):  # a relative seat's card: its first nonzero entry
            if row[start + face] != 0:
                on_table += 1
                r = face >> 2
                best = max(best, r)
                lowest = min(lowest, r)
                break
    to_come = n - 1 - on_table
    if reverse:
        if on_table == 0:
            return play_base + hand[n_hand - 1]
        for p in range(n_hand):  # the first safe card
            if hand[p] >> 2 > lowest:
                return play_base + hand[p]
        return play_base + hand[n_hand - 1]
    if to_come == 0:
        for p in range(n_hand):  # the cheapest winner
            if hand[p] >> 2 >= best:
                return play_base + hand[p]
        return play_base + hand[0]
    # the highest unseen card: copies - seen - hand > 0.5, in the observation's dtype
    top_unseen = -1
    for face in range(FACES - 1, -1, -1):
        if copies[0] - row[off_seen + face] - row[off_hand + face] > 0.5:
            top_unseen = face >> 2
            break
    for p in range(n_hand):  # the cheapest sure winner
        r = hand[p] >> 2
        if r >= best and r > top_unseen:
            return play_base + hand[p]
    return play_base + hand[0]


@numba.njit(cache=True)
def decide(observations: np.ndarray, masks: np.ndarray, off_hand: int, off_stakes: int,
           off_phase: int, off_trick: int, off_seen: int, n: int, hand_size: int,
           copies: np.ndarray, reverse: bool) -> np.ndarray:
    """Every row's action (``int64[N]``), ``FALLBACK`` where ``act`` must decide the row.

    ``observations``: ``[N, obs]`` of ``OBS_DTYPE`` (float32); ``masks``: ``uint8[N, A]``; the
    ``off_*`` ints: where the layout's ``hand``, ``stake_points``, ``phase``, ``trick`` and
    ``seen`` segments start; ``copies``: the decks, as a one-entry array of the observation's
    dtype (the unseen-card count is computed in that dtype, as ``act`` does)."""
    throw_action = 1 << hand_size
    play_base = throw_action + 1
    out = np.empty(observations.shape[0], np.int64)
    hand = np.empty(hand_size, np.int64)
    for i in range(observations.shape[0]):
        row = observations[i]
        mask = masks[i]
        n_hand = _sorted_hand(row, off_hand, hand_size, hand)
        if n_hand == FALLBACK:
            out[i] = FALLBACK
            continue
        phase = _phase(row, off_phase)
        if phase == PHASE_PLAY:
            action = _play(row, hand, n_hand, off_trick, off_seen, off_hand, n, copies, reverse,
                           play_base)
        else:
            action = _draw(row, mask, hand, n_hand, phase, off_stakes, n, throw_action)
        if action != FALLBACK and mask[action] == 0:  # never expected; stay legal
            action = _first_legal(mask)
        out[i] = action
    return out
