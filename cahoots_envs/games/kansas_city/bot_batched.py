"""The Kansas City heuristic bot (``bot.py``) over a whole batch of observations in one numba call.

``HeuristicPolicy.act_batch`` calls ``decide_batch`` when numba is installed and the batch is big
enough; ``bot.py`` stays the reference, and the kernel chooses exactly what its ``decide`` chooses
on each row. The bot is deterministic (ties are broken by card order, never at random), so the
kernel returns the action itself and no random draw is involved.

The kernel reads only what the bot reads: the layout's ``hand``, ``trick``, ``trick_leader``,
``tricks_won`` and ``phase`` segments (their offsets are read once from the bot's layout, in
``kernel_params``) and the action mask. A row on which the reference would do something the
kernel does not model (no legal action where one is needed, a legal action outside the phase's
range, a trick without its leader, a negative trick entry, a phase or trick count that is not a
reasonable number) comes back as ``FALLBACK``, and ``decide_batch`` decides that row with the
reference ``decide`` (which raises what it raises there). This module imports numba: only
``bot.py`` imports it, lazily, inside ``act_batch``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numba
import numpy as np

from cahoots_envs.core.numba_kernels import lowest_bit_index
from cahoots_envs.games.kansas_city.rules import DECK_SIZE, RANKS

if TYPE_CHECKING:
    from cahoots_envs.games.kansas_city.bot import HeuristicPolicy

__all__ = ["FALLBACK", "decide_batch", "decide_row", "kernel_params", "pick_play", "pick_upgrade"]

FALLBACK = -1  # a row the kernel leaves to the reference ``decide``

# ``params`` entries: the game's shape and action ranges, then the layout's offsets
(P_N, P_HS, P_LIMIT, P_PB, P_TB, P_UB, P_NU, P_NA, P_OBS,
 P_HAND, P_TRICK, P_TL, P_TW, P_PHASE) = range(14)
TRICK_WIDTH = DECK_SIZE + RANKS  # per relative seat: the face card (56) or the trump rank (8)
SUITS = 7
TRUMP_KEY = 1 << 20  # above every face card's key when leading: trumps lead first


def kernel_params(policy: HeuristicPolicy) -> tuple[np.ndarray, np.ndarray]:
    """The kernel's constants for ``policy``'s game: ``params`` (``int64``, the ``P_*``
    entries: the bot's action ranges and its layout's offsets) and ``combos`` (``int64[h, h, h]``:
    the pass action of the sorted hand positions ``a < b < c``, -1 elsewhere)."""
    offsets = policy.layout.offsets
    params = np.zeros(14, np.int64)
    params[P_N] = policy.num_players
    params[P_HS] = policy.hand_size
    params[P_LIMIT] = policy.limit
    params[P_PB] = policy.play_base
    params[P_TB] = policy.trump_base
    params[P_UB] = policy.upgrade_base
    params[P_NU] = policy.no_upgrade
    params[P_NA] = policy.no_upgrade + 1
    params[P_OBS] = policy.layout.size
    params[P_HAND] = offsets["hand"]
    params[P_TRICK] = offsets["trick"]
    params[P_TL] = offsets["trick_leader"]
    params[P_TW] = offsets["tricks_won"]
    params[P_PHASE] = offsets["phase"]
    h = policy.hand_size
    combos = np.full((h, h, h), -1, np.int64)
    for (a, b, c), action in policy.combo_index.items():
        combos[a, b, c] = action
    return params, combos


def decide_batch(policy: HeuristicPolicy, observations: np.ndarray,
                 action_masks: np.ndarray) -> np.ndarray | None:
    """``policy``'s move on every row (``int64[N]``), exactly as ``policy.decide`` row by row;
    None when the arrays are not a batch of this layout (``[N, obs]`` and ``[N, actions]``), for
    the caller's row loop to handle as the reference does."""
    if policy._kernel_params is None:
        policy._kernel_params = kernel_params(policy)
    params, combos = policy._kernel_params
    obs = np.asarray(observations)
    masks = np.asarray(action_masks)
    rows = obs.shape[0] if obs.ndim == 2 else -1
    if obs.shape != (rows, params[P_OBS]) or masks.shape != (rows, params[P_NA]):
        return None
    if obs.dtype not in (np.float32, np.float64):
        obs = obs.astype(np.float64)  # the values the reference compares, exactly (ints < 2**53)
    if masks.dtype != np.int8:
        masks = (masks != 0).view(np.int8)  # legal = nonzero, as ``np.flatnonzero`` reads it
    actions = _decide_rows(np.ascontiguousarray(obs), np.ascontiguousarray(masks), params, combos)
    for i in np.flatnonzero(actions == FALLBACK):
        actions[i] = policy.decide(observations[i], action_masks[i])
    return actions


# ---- the kernel ------------------------------------------------------------------------------
@numba.njit(cache=True)
def _decide_rows(obs: np.ndarray, masks: np.ndarray, p: np.ndarray,
                 combos: np.ndarray) -> np.ndarray:
    """``HeuristicPolicy.decide`` on every row (``decide_row``). The scratch arrays are
    allocated once for the batch."""
    out = np.empty(obs.shape[0], np.int64)
    hand = np.empty(DECK_SIZE, np.int64)
    lengths = np.empty(SUITS, np.int64)
    for i in range(obs.shape[0]):
        out[i] = decide_row(obs[i], masks[i], p, combos, hand, lengths)
    return out


@numba.njit(cache=True)
def decide_row(row: np.ndarray, mask: np.ndarray, p: np.ndarray, combos: np.ndarray,
               hand: np.ndarray, lengths: np.ndarray) -> int:
    """``HeuristicPolicy.decide`` on one row (``FALLBACK`` where the kernel leaves it to the
    reference): the phase is the argmax of the one-hot (pass when all zero); under the limit
    while the own tricks won (truncated to an int) are fewer than the limit. ``hand``
    (``int64[56]``) and ``lengths`` (``int64[7]``) are scratch."""
    o = p[P_PHASE]
    if np.isnan(row[o]) or np.isnan(row[o + 1]) or np.isnan(row[o + 2]):
        return FALLBACK  # np.argmax would pick the first NaN
    phase = 0
    for k in range(1, 3):
        if row[o + k] > row[o + phase]:  # strict: the first maximum, as np.argmax
            phase = k
    if phase == 0:
        return _choose_pass(row, mask, p, combos, hand, lengths)
    tricks = row[p[P_TW]]
    if not (-1e9 < tricks < 1e9):
        return FALLBACK  # NaN, inf or a huge count: left to the reference's int()
    won = int(tricks)  # truncated toward zero, as int() does
    need = won < p[P_LIMIT]
    if phase == 2:
        return _choose_upgrade(row, mask, p, need, hand, lengths)
    return _choose_play(row, mask, p, need, won, hand, lengths)


@numba.njit(cache=True)
def _read_hand(row: np.ndarray, p: np.ndarray, hand: np.ndarray, lengths: np.ndarray) -> int:
    """The own hand into ``hand`` (ascending card ids, as ``np.flatnonzero`` gives them) and its
    suit lengths into ``lengths``; returns the number of cards."""
    lengths[:] = 0
    k = 0
    for c in range(DECK_SIZE):
        if row[p[P_HAND] + c] != 0:
            hand[k] = c
            k += 1
            lengths[c // 8] += 1
    return k


@numba.njit(cache=True)
def _first_legal(mask: np.ndarray) -> int:
    for a in range(mask.shape[0]):
        if mask[a] != 0:
            return a
    return FALLBACK  # legal[0] of an empty mask: the reference raises


# ---- Pass ------------------------------------------------------------------------------------
@numba.njit(cache=True)
def _pass_key(card: int, strong: bool, lengths: np.ndarray) -> int:
    """The sort key of a card in the pass order (smaller passes first): a strong hand passes its
    highest cards (rank descending, then card id), otherwise the lowest cards of the shortest
    suits (suit length, then rank; equal keys keep hand order)."""
    if strong:
        return (7 - card % 8) * 64 + card
    return lengths[card // 8] * 8 + card % 8


@numba.njit(cache=True)
def _choose_pass(row: np.ndarray, mask: np.ndarray, p: np.ndarray, combos: np.ndarray,
                 hand: np.ndarray, lengths: np.ndarray) -> int:
    """Pass: with a strong hand (more than four 7s and 8s) the three highest cards, otherwise the
    lowest cards of the shortest suits: the first three positions of the stable sort by
    ``_pass_key``, as a pass action. A hand of another size passes the first legal action."""
    size = _read_hand(row, p, hand, lengths)
    if size != p[P_HS]:
        return _first_legal(mask)
    high = 0
    for k in range(size):
        if hand[k] % 8 >= 6:
            high += 1
    strong = high > 4
    first = second = third = -1
    for j in range(3):
        best = -1
        best_key = 0
        for pos in range(size):
            if pos == first or pos == second:
                continue
            key = _pass_key(hand[pos], strong, lengths)
            if best < 0 or key < best_key:  # strict: an equal key keeps the earlier position
                best = pos
                best_key = key
        if j == 0:
            first = best
        elif j == 1:
            second = best
        else:
            third = best
    # the three positions in ascending order index the combinations
    a, b, c = min(first, second, third), 0, max(first, second, third)
    b = first + second + third - a - c
    return combos[a, b, c]


# ---- Upgrade ---------------------------------------------------------------------------------
@numba.njit(cache=True)
def _choose_upgrade(row: np.ndarray, mask: np.ndarray, p: np.ndarray, need: bool,
                    hand: np.ndarray, lengths: np.ndarray) -> int:
    """Upgrade: while under the limit, the last card of a suit (a void makes later trumping
    possible), else a 7 or 8; the highest rank of the group, ties to the lowest card id. At the
    limit, upgrade nothing."""
    if not need:
        return p[P_NU]
    _read_hand(row, p, hand, lengths)
    options = np.uint64(0)
    for a in range(mask.shape[0]):
        if mask[a] == 0 or a == p[P_NU]:
            continue
        card = a - p[P_UB]
        if card < 0 or card >= DECK_SIZE:
            return FALLBACK  # not an upgrade action: left to the reference
        options |= np.uint64(1) << np.uint64(card)
    return pick_upgrade(p[P_UB], p[P_NU], options, lengths)


@numba.njit(cache=True)
def pick_upgrade(ub: int, nu: int, options: np.uint64, lengths: np.ndarray) -> int:
    """``_choose_upgrade``'s choice under the limit among the upgradable cards ``options``
    (card ids as bits; ``lengths``: the own hand's suit lengths), visited in ascending id: a
    later card replaces the best only with a strictly higher rank. The engine's state-reading
    bot (``batched._decide_state``) chooses here too."""
    single = -1
    high = -1
    x = options
    while x != 0:
        card = int(lowest_bit_index(x))
        x &= x - np.uint64(1)
        if lengths[card // 8] == 1 and (single < 0 or card % 8 > single % 8):
            single = card
        if card % 8 >= 6 and (high < 0 or card % 8 > high % 8):
            high = card
    if single >= 0:
        return ub + single
    if high >= 0:
        return ub + high
    return nu


# ---- Play ------------------------------------------------------------------------------------
@numba.njit(cache=True)
def _first_set(row: np.ndarray, off: int, size: int) -> int:
    """The first nonzero entry of ``row[off : off + size]``, or -1."""
    for k in range(size):
        if row[off + k] != 0:
            return k
    return -1


@numba.njit(cache=True)
def _trick_state(row: np.ndarray, p: np.ndarray) -> tuple[int, int, int, bool, bool]:
    """``HeuristicPolicy.trick_state``: (led suit or -1 for a trump lead or an empty trick, best
    trump rank or -1, best rank of the led suit or -1, whether the trick holds a 4), and whether
    the row is one the kernel models."""
    n = p[P_N]
    trick = p[P_TRICK]
    played = 0
    for rel in range(n):
        for k in range(TRICK_WIDTH):
            x = row[trick + rel * TRICK_WIDTH + k]
            if x < 0:
                return -1, -1, -1, False, False  # a row sum could cancel: left to the reference
            if x != 0:
                played += 1
                break
    if played == 0:
        return -1, -1, -1, False, True
    leader = _first_set(row, p[P_TL], n)
    if leader < 0:
        return -1, -1, -1, False, False
    led_index = _first_set(row, trick + leader * TRICK_WIDTH, TRICK_WIDTH)
    if led_index < 0:
        return -1, -1, -1, False, False
    led_suit = led_index // 8 if led_index < DECK_SIZE else -1
    best_trump = -1
    best_led = -1
    has_four = False
    for rel in range(n):
        idx = _first_set(row, trick + rel * TRICK_WIDTH, TRICK_WIDTH)
        if idx < 0:
            continue  # not played yet
        if idx >= DECK_SIZE:
            best_trump = max(best_trump, idx - DECK_SIZE)
            has_four |= idx - DECK_SIZE == 3
        else:
            has_four |= idx % 8 == 3
            if idx // 8 == led_suit:
                best_led = max(best_led, idx % 8)
    return led_suit, best_trump, best_led, has_four, True


@numba.njit(cache=True)
def _choose_play(row: np.ndarray, mask: np.ndarray, p: np.ndarray, need: bool, won: int,
                 hand: np.ndarray, lengths: np.ndarray) -> int:
    """Play (each option is a face card of a suit and rank, or a trump of a rank; ``cheap``
    below is the key (is trump, rank): face cards before trumps, then low ranks first):

    - leading under the limit: the highest trump if any, else the highest card of the longest
      suit; leading at the limit: the cheapest card (lead low, keep trumps);
    - following: while under the limit, or at it when the trick holds a 4 (one more trick still
      scores), the cheapest card that wins; else under the limit dump the cheapest loser, at the
      limit duck with the highest face card that loses (a losing trump only without one); with
      no loser at all, the cheapest card.

    Options are visited in action order and only a strictly better key replaces the best, so
    ties go to the lowest action, as Python's ``min`` and ``max`` do."""
    pb = p[P_PB]
    tb = p[P_TB]
    faces = np.uint64(0)
    trumps = np.uint64(0)
    for a in range(mask.shape[0]):
        if mask[a] != 0:
            if a < pb or a >= p[P_UB]:
                return FALLBACK  # not a play: left to the reference
            if a < tb:
                faces |= np.uint64(1) << np.uint64(a - pb)
            else:
                trumps |= np.uint64(1) << np.uint64(a - tb)
    if faces == 0 and trumps == 0:
        return FALLBACK  # min/max of no option: the reference raises
    led_suit, best_trump, best_led, has_four, modelled = _trick_state(row, p)
    if not modelled:
        return FALLBACK
    leading = best_trump < 0 and best_led < 0 and led_suit < 0
    if leading and need:
        _read_hand(row, p, hand, lengths)
    want = need or (has_four and won == p[P_LIMIT])
    return pick_play(pb, tb, faces, trumps, need, want, leading, lengths, led_suit, best_trump,
                     best_led)


@numba.njit(cache=True)
def pick_play(pb: int, tb: int, faces: np.uint64, trumps: np.uint64, need: bool, want: bool,
              leading: bool, lengths: np.ndarray, led_suit: int, best_trump: int,
              best_led: int) -> int:
    """``_choose_play``'s choice among the legal face cards ``faces`` (card ids as bits) and
    trumps ``trumps`` (ranks as bits), visited in action order (play ``pb + card``, then trump
    ``tb + rank``): ``lengths`` (the own hand's suit lengths) is read only when leading under the
    limit; ``want``: a winner is wanted (under the limit, or at it with a 4 in the trick). The
    engine's state-reading bot (``batched._decide_state``) chooses here too."""
    best_lead, best_lead_key = -1, 0  # leading under the limit
    cheapest, cheapest_key = -1, 0  # any option
    winner, winner_key = -1, 0  # the cheapest winner
    loser, loser_key = -1, 0  # the cheapest loser
    duck, duck_key = -1, 0  # the highest loser, face cards first
    for kind in range(2):  # the face cards, then the trumps: action order
        x = faces if kind == 0 else trumps
        trump = kind == 1
        while x != 0:
            b = int(lowest_bit_index(x))
            x &= x - np.uint64(1)
            if trump:
                a = tb + b
                suit = -1
                rank = b
            else:
                a = pb + b
                suit = b // 8
                rank = b % 8
            cheap = (8 if trump else 0) + rank
            if cheapest < 0 or cheap < cheapest_key:
                cheapest, cheapest_key = a, cheap
            if leading:
                if need:
                    lead = TRUMP_KEY + rank if trump else lengths[suit] * 8 + rank
                    if best_lead < 0 or lead > best_lead_key:
                        best_lead, best_lead_key = a, lead
                continue
            if trump:
                wins = rank > best_trump
            else:
                wins = best_trump < 0 and suit == led_suit and rank > best_led
            if wins:
                if winner < 0 or cheap < winner_key:
                    winner, winner_key = a, cheap
            else:
                if loser < 0 or cheap < loser_key:
                    loser, loser_key = a, cheap
                low = (0 if trump else 8) + rank
                if duck < 0 or low > duck_key:
                    duck, duck_key = a, low
    if leading:
        return best_lead if need else cheapest
    if want and winner >= 0:
        return winner
    if loser >= 0:
        return loser if need else duck
    return cheapest
