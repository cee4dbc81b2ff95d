"""Cahoots (competitive) world sampler for decision-time search (see ``core/search.py``).

What a seat knows (A6): its own hand; the identity cards (dealt face up); every play, keep, kill
and draft pick (all made openly, so the whole action history is public); the scores and point
cards; the reserve cards drawn so far, in order. Hidden from it: the other hands' cards that are
not publicly known (a kept card is known to be in its keeper's hand until that seat plays a card
of its type), and the order of what is left of the reserve (its contents are public: one 5 and
one 7 of each suit less those drawn).

There is no suit to follow, so plays reveal no voids; the one constraint besides the counts comes
from forced plays. A play from a hand holding copies of one card only is made for the player and
is not in ``game.history``, so the history tells whether a 2-card hand (lap 2 of trick 10, lap 1
of trick 11) held a pair: the sampled world must agree, or its replay would need a different
number of actions. ``_play_constraints`` parses the public history to find which of those plays
were forced and turns each into a constraint on the one unknown card its player still holds.

The sampler deals the unseen cards (a canonical sorted pool) to the other seats by a uniform
shuffle, rejecting deals that break a constraint (late in the game only, with 1 unknown card per
seat), and shuffles the rest of the reserve. The sampled deal record gives each other seat its
sampled cards plus the cards it played that were not publicly known; the action history is
public and kept as it is. With ``point_split='random'`` the past random splits are public in the
world's state (scores, point cards) but a replay of its history cannot repeat them: the world's
``rng_state`` is ``None`` (tests/games/cahoots_tricks/test_search.py replays them from the true
generator's state after the deal, which only a test may read).
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import combinations
from typing import Any

import numpy as np

from cahoots_envs.core.game import zero_sum_outcome
from cahoots_envs.core.search import World
from cahoots_envs.games.cahoots_tricks.rules import (
    CARD_NAMES,
    EVEN_BITS,
    KEEP_BASE,
    KILL_BASE,
    NUM_TYPES,
    PHASE_DRAFT,
    PHASE_KEEP_KILL,
    PHASE_PLAY,
    PLAY_BASE,
    RESERVE_TYPES,
    SUITS,
    TAKE_BASE,
    TYPE_SUIT,
    TYPE_VALUE,
    CahootsTricks,
    ParsedDeal,
    add_card,
    deck_counts,
    parse_card,
    remove_card,
    snake_order,
    zone_types,
)

__all__ = ["DEFAULTS", "DEFAULT_SEARCH", "FastBot", "knowledge", "sample_world", "value", "worth_searching"]

# A rollout plays the rest of the game (one hand = the whole game): from trick 1, 11 tricks
# (~176 plies). Every decision is searched (worth_searching): 16 candidates cover every move of
# a 4-player keep/kill's first pass (8 trick cards, keep or kill), which 12 left to the bot. On
# the batched engine against 3 heuristic bots (500 games, docs/lab/search_tricks_window.md): 0.600 win share at 19.4 ms a decision, where searching from trick 8 with 12
# candidates and gate 2.0 won 0.365 (+0.236 paired); gate 1.5 costs less than 2.0 (19.4 ms
# against 21.0) and is not told apart from it in strength (+0.024, the interval holds 0).
DEFAULTS: dict[str, Any] = {
    "worlds": 8,
    "max_worlds": 24,
    "max_rollouts": 160,
    "max_candidates": 16,
    "gate": 1.5,
}

# what plain ``search`` plays (core/search.py): the shipped network decides the moves search
# leaves alone and the default, the rule-based bot plays the rollouts. Over the heuristic
# blueprint on the same 500 deals against 3 heuristic bots (docs/lab/search_over_zoo.md): +0.071, 0.671 against 0.600, with the
# tactics network of 2026-12-02
DEFAULT_SEARCH = "search@rollout=heuristic:zoo:cahoots_tricks"
SEARCH_FROM_TRICK = 1
_DECK = {n: deck_counts(n) for n in (3, 4)}
_NUM_SUITS = len(SUITS)


# ---- what a seat knows -----------------------------------------------------------------------
def _counts(zone: int) -> list[int]:
    out = [0] * NUM_TYPES
    for t in zone_types(zone):
        out[t] += 1
    return out


def _drawn(game: CahootsTricks) -> list[str]:
    """The reserve cards drawn so far, in order (each was revealed when it was drawn)."""
    if game.num_players != 3:
        return []
    return list(game.deals[0]["reserve"][: game.reserve_drawn.bit_count()])


def _unseen_pool(game: CahootsTricks, seat: int) -> list[int]:
    """The cards in the other hands that ``seat`` cannot place, sorted by type (from public
    zones only: the hand deck less the own hand, the known cards and every card out of hands)."""
    counts = dict(_DECK[game.num_players])
    out = [game.hands[seat], game.trick_pool, game.killed, game.discard]
    out += [game.known[s] for s in range(game.num_players) if s != seat]
    for zone in out:
        for t in zone_types(zone):
            counts[t] -= 1
    if game.phase == PHASE_KEEP_KILL:  # picked this trick, not yet moved
        for t in list(game.kill_order) + [t for t in game.kept_now if t >= 0]:
            counts[t] -= 1
    return [t for t in range(NUM_TYPES) for _ in range(counts[t])]


def _unknown_sizes(game: CahootsTricks) -> list[int]:
    return [game.hands[s].bit_count() - game.known[s].bit_count() for s in range(game.num_players)]


def hand_start(game: CahootsTricks) -> int:
    """0: a game is one hand, so a world's actions are all the current hand's
    (``core/search.py``)."""
    return 0


def knowledge(game: CahootsTricks, seat: int) -> tuple[Any, ...]:
    deal = game.deals[0]
    return (
        seat,
        tuple(game.identities),
        deal["start_player"],
        tuple(deal["hands"][seat]),
        tuple(game.history),
        game.hands[seat],
        tuple(game.known),
        tuple(_unknown_sizes(game)),
        tuple(_drawn(game)),
        tuple(game.point_cards),
        tuple(game.points_thirds),
    )


# ---- forced plays: a constraint on the last unknown card --------------------------------------
class _Parse:
    """State of a walk through the public history (see ``_play_constraints``)."""

    __slots__ = ("ev", "i", "known", "q", "slots", "start", "uplays")

    def __init__(self, n: int, start: int) -> None:
        self.i = 0  # next history index
        self.ev = 0  # plays so far (an event clock)
        self.q = 0  # forced/chosen guesses used
        self.start = start
        self.known = [0] * n
        self.uplays: list[list[tuple[int, int]]] = [[] for _ in range(n)]
        self.slots: list[tuple[int, int, int, bool]] = []  # seat, ev, known before, forced

    def copy(self) -> _Parse:
        twin = _Parse.__new__(_Parse)
        twin.i, twin.ev, twin.q, twin.start = self.i, self.ev, self.q, self.start
        twin.known = list(self.known)
        twin.uplays = [list(u) for u in self.uplays]
        twin.slots = list(self.slots)
        return twin


class _Branch(Exception):
    """The walk reached a 2-card play whose forcedness has not been guessed yet."""


class _Walk:
    def __init__(self, game: CahootsTricks) -> None:
        self.n = game.num_players
        self.history = game.history
        self.suits = game.identity_suits
        self.draft = game.face_value and game.draft
        self.even = game.even_three_way
        self.drawn = [parse_card(c) for c in _drawn(game)]
        tn = game.trick_number
        self.records = {tn: list(game.trick)}
        if tn == 11 and game.last_trick is not None:
            self.records[10] = list(game.last_trick.plays)
        self.end = (tn, game.phase, len(game.trick) if game.phase == PHASE_PLAY else game.picks)

    def leaders(self, totals: list[int], start: int) -> list[int]:
        best = max(totals)
        won = sum(1 << s for s in range(_NUM_SUITS) if totals[s] == best)
        most, winners = 0, []
        for k in range(self.n):
            seat = (start + k) % self.n
            m = (self.suits[seat] & won).bit_count()
            if m > most:
                most, winners = m, [seat]
            elif m == most:
                winners.append(seat)
        return winners

    def at_end(self, st: _Parse, trick: int, phase: str, index: int) -> bool:
        """The history is used up at a decision: it must be the game's current one."""
        return st.i == len(self.history) and self.end == (trick, phase, index)

    def trick(self, st: _Parse, trick: int, guesses: list[bool]) -> bool | None:
        """Walk one trick: None = inconsistent, True = ended at the current decision, False = the
        trick is over and the walk goes on. Raises ``_Branch`` at an unguessed 2-card play."""
        n, h = self.n, self.history
        start = st.start
        totals = [0] * _NUM_SUITS
        pool = 0
        for j in range(2 * n):
            s = (start + j) % n
            st.ev += 1
            two_cards = (trick == 10 and j >= n) or (trick == 11 and j < n)
            if trick == 11 and j >= n or two_cards:
                forced = True  # lap 2 of trick 11: the last card
                if two_cards:
                    if st.q == len(guesses):
                        raise _Branch
                    forced = guesses[st.q]
                    st.q += 1
                    if not forced and st.i == len(h):
                        return True if self.at_end(st, trick, PHASE_PLAY, j) else None
                record = self.records.get(trick, [])
                if j >= len(record):  # played by now: the trick's record holds it
                    return None
                t = record[j][1]
                if not forced:
                    if h[st.i] != PLAY_BASE + t:
                        return None
                    st.i += 1
                if two_cards:
                    st.slots.append((s, st.ev, st.known[s], forced))
            else:
                if st.i == len(h):
                    return True if self.at_end(st, trick, PHASE_PLAY, j) else None
                t = h[st.i] - PLAY_BASE
                if not 0 <= t < NUM_TYPES:
                    return None
                st.i += 1
            if st.known[s] >> (2 * t) & 1:
                st.known[s] = remove_card(st.known[s], t)
            else:
                st.uplays[s].append((st.ev, t))
            totals[TYPE_SUIT[t]] += TYPE_VALUE[t]
            pool = add_card(pool, t)
        winners = self.leaders(totals, start)
        kept, killed, kills = [-1] * n, [-1] * n, []
        for p in range(2 * n):
            s = (start + p) % n
            cards = pool & EVEN_BITS
            if p >= n and not cards & (cards - 1):  # pass 2, one kind of card left: forced
                t = (cards.bit_length() - 1) >> 1
                keep = killed[s] >= 0
            else:
                if st.i == len(h):
                    return True if self.at_end(st, trick, PHASE_KEEP_KILL, p) else None
                a = h[st.i]
                if not KEEP_BASE <= a < TAKE_BASE:
                    return None
                keep = a < KILL_BASE
                t = a - (KEEP_BASE if keep else KILL_BASE)
                if p >= n and keep != (killed[s] >= 0) or not pool >> (2 * t) & 1:
                    return None
                st.i += 1
            pool = remove_card(pool, t)
            if keep:
                kept[s] = t
            else:
                killed[s] = t
                kills.append(t)
        if trick < 11:
            for s in range(n):
                st.known[s] = add_card(st.known[s], kept[s])
        if self.draft and len(winners) > 1 and not (len(winners) == 3 and self.even):
            points = 0
            for t in kills + self.drawn[trick - 1 : trick]:
                points = add_card(points, t)
            for p in range(len(snake_order(winners))):
                cards = points & EVEN_BITS
                if not cards & (cards - 1):
                    t = (cards.bit_length() - 1) >> 1
                else:
                    if st.i == len(h):
                        return True if self.at_end(st, trick, PHASE_DRAFT, p) else None
                    t = h[st.i] - TAKE_BASE
                    if not 0 <= t < NUM_TYPES or not points >> (2 * t) & 1:
                        return None
                    st.i += 1
                points = remove_card(points, t)
        st.start = (start + 1) % n
        return False


_CACHE: dict[tuple[Any, ...], dict[int, list[tuple[int, bool]]]] = {}


def _play_constraints(game: CahootsTricks) -> dict[int, list[tuple[int, bool]]]:
    """Per seat, constraints ``(type, forced)`` on the one unknown card it holds: ``forced``: the
    card is of that type (its 2-card hand was a pair), else it is not. Empty before the 2-card
    plays. Read from the public history alone."""
    n = game.num_players
    tn = game.trick_number
    if game.is_over or tn < 10 or (tn == 10 and game.phase == PHASE_PLAY and len(game.trick) <= n):
        return {}
    key = (n, game.face_value, game.draft, game.even_three_way, tuple(game.identities),
           game.deals[0]["start_player"], tuple(game.history), tuple(game.trick),
           game.last_trick.plays if game.last_trick is not None else (), tuple(_drawn(game)))
    hit = _CACHE.get(key)
    if hit is not None:
        return hit
    walk = _Walk(game)
    prefix = _Parse(n, game.deals[0]["start_player"])
    for trick in range(1, 10):  # no 2-card hands before trick 10: no guesses
        if walk.trick(prefix, trick, []) is not False:
            raise ValueError("cahoots_tricks search: the history does not parse")
    found: _Parse | None = None
    stack: list[list[bool]] = [[]]
    while stack and found is None:
        guesses = stack.pop()
        st = prefix.copy()
        try:
            for trick in (10, 11):
                done = walk.trick(st, trick, guesses)
                if done is None:
                    break
                if done:
                    found = st
                    break
        except _Branch:
            stack.extend((guesses + [False], guesses + [True]))
    if found is None:
        raise ValueError("cahoots_tricks search: the history does not parse")
    sizes = _unknown_sizes(game)
    out: dict[int, list[tuple[int, bool]]] = {}
    for s, ev, known_before, forced in found.slots:
        if sizes[s] != 1:
            continue
        public = zone_types(known_before) + [t for e, t in found.uplays[s] if e >= ev]
        if len(public) == 1:  # the hand's other card is the one still unknown
            out.setdefault(s, []).append((public[0], forced))
    if len(_CACHE) > 512:
        _CACHE.clear()
    _CACHE[key] = out
    return out


# ---- sampling ------------------------------------------------------------------------------
def _fits(cards: list[int], known: int, rules: list[tuple[int, bool]], choice: bool) -> bool:
    """Whether a seat's sampled unknown ``cards`` keep its ``rules`` (on its one unknown card) and,
    with ``choice`` (it is to play now, so its play was not made for it), leave it 2 kinds."""
    if rules and not all((cards[0] == x) == forced for x, forced in rules):
        return False
    if choice:
        kinds = set(cards) | {t for t in zone_types(known)}
        return len(kinds) > 1
    return True


def _deal(pool: list[int], sizes: list[int], seats: list[int], known: list[int],
          rules: dict[int, list[tuple[int, bool]]], chooser: int,
          rng: np.random.Generator) -> list[list[int]]:
    """Deal ``pool`` to ``seats`` (``sizes[s]`` cards each), uniformly among the deals that keep
    ``rules`` and leave ``chooser`` (the seat to play, -1: none to check) a choice: by rejection
    (the constraints only bind in tricks 10-11, with 1-2 unknown cards per seat)."""
    total = len(pool)
    checked = [s for s in seats if s in rules or s == chooser]
    for _ in range(300):
        order = rng.permutation(total)
        out, at = {}, 0
        for s in seats:
            out[s] = [pool[i] for i in order[at : at + sizes[s]]]
            at += sizes[s]
        if all(_fits(out[s], known[s], rules.get(s, []), s == chooser) for s in checked):
            return [out[s] for s in seats]
    # rare: the checked seats first, each a uniform fitting choice, then the rest shuffled
    for _ in range(1000):
        left = list(pool)
        fixed: dict[int, list[int]] = {}
        for s in checked:
            picks = [list(c) for c in combinations(range(len(left)), sizes[s])
                     if _fits([left[i] for i in c], known[s], rules.get(s, []), s == chooser)]
            if not picks:
                break
            chosen = picks[int(rng.integers(len(picks)))]
            fixed[s] = [left[i] for i in chosen]
            left = [t for i, t in enumerate(left) if i not in chosen]
        else:
            order = rng.permutation(len(left))
            result, at = [], 0
            for s in seats:
                if s in fixed:
                    result.append(fixed[s])
                else:
                    result.append([left[i] for i in order[at : at + sizes[s]]])
                    at += sizes[s]
            return result
    raise ValueError("cahoots_tricks search: no deal fits what the seat knows")


def _zone(names: list[str]) -> int:
    """The zone (``rules.add_card``) holding the cards named."""
    zone = 0
    for name in names:
        zone = add_card(zone, parse_card(name))
    return zone


class _Context:
    """What every world sampled for one seat's knowledge shares (cached by that knowledge)."""

    __slots__ = ("chooser", "fields", "known", "pool", "public", "public_zones", "reserve_left",
                 "rules", "seats", "sizes", "template")

    def __init__(self, game: CahootsTricks, seat: int) -> None:
        n = game.num_players
        self.sizes = _unknown_sizes(game)
        self.seats = [s for s in range(n) if s != seat]
        self.known = list(game.known)
        self.pool = _unseen_pool(game, seat)
        self.rules = _play_constraints(game)
        # the seat to play now holds 2 kinds of card or more (else its play would have been made)
        self.chooser = -1
        if game.phase == PHASE_PLAY and not game.is_over and \
                game.hands[game.current_player].bit_count() <= 2:
            self.chooser = game.current_player
        # each seat's dealt hand = its unknown cards now + the public part: the cards it played
        # that were not known to be in its hand (= its plays - the keeps back in hand + known)
        rows = game.tallies.to_bytes(NUM_TYPES * (3 * n + 1), "little")
        self.public: dict[int, list[str]] = {}
        for s in self.seats:
            counts = _counts(game.known[s])
            played = rows[NUM_TYPES * (1 + n + s) : NUM_TYPES * (2 + n + s)]
            kept = rows[NUM_TYPES * (1 + s) : NUM_TYPES * (2 + s)]
            discarded = game.kept_now[s] if game.discard else -1  # trick 11's keeps: not in hand
            names = []
            for t in range(NUM_TYPES):
                names.extend([CARD_NAMES[t]] * (counts[t] + played[t] - kept[t] + (t == discarded)))
            self.public[s] = names
        self.template = {key: game.deals[0][key] for key in ("start_player", "identities")}
        self.template["hands"] = [list(h) if s == seat else [] for s, h in
                                  enumerate(game.deals[0]["hands"])]
        self.reserve_left: list[int] = []
        if n == 3:
            drawn = _drawn(game)
            left = list(RESERVE_TYPES)
            for c in drawn:
                left.remove(parse_card(c))
            self.reserve_left = sorted(left)
            self.template["reserve"] = drawn
        # what ``_parse_deal`` makes of the template, and each public part as a zone: a world's
        # record carries its parse (``ParsedDeal``), which a trusted engine reads
        start, identities, _, _ = game._parse_deal(
            {key: self.template[key] for key in ("start_player", "identities")})
        own = _zone(self.template["hands"][seat])
        reserve = [parse_card(c) for c in self.template["reserve"]] if n == 3 else None
        self.fields = (start, identities, own, reserve)
        self.public_zones = {s: _zone(names) for s, names in self.public.items()}


_CONTEXTS: dict[tuple[Any, ...], _Context] = {}


def sample_world(game: CahootsTricks, seat: int, rng: np.random.Generator) -> World:
    key = knowledge(game, seat)
    ctx = _CONTEXTS.get(key)
    if ctx is None:
        if len(_CONTEXTS) > 256:
            _CONTEXTS.clear()
        ctx = _CONTEXTS[key] = _Context(game, seat)
    # a fresh generator for the world (Generator(PCG64(seed)) is default_rng(seed), made faster)
    world = game.clone(rng=np.random.Generator(np.random.PCG64(int(rng.integers(2**63)))))
    dealt = _deal(ctx.pool, ctx.sizes, ctx.seats, ctx.known, ctx.rules, ctx.chooser, rng)
    template = ctx.template
    hands = list(template["hands"])
    start, identities, own, reserve = ctx.fields
    zones = [own] * len(hands)  # the hands as dealt, for the record's parse
    for s, cards in zip(ctx.seats, dealt):
        held, zone = ctx.known[s], ctx.public_zones[s]
        for t in cards:
            held = add_card(held, t)
            zone = add_card(zone, t)
        world.hands[s] = held
        zones[s] = zone
        hands[s] = ctx.public[s] + [CARD_NAMES[t] for t in cards]
    deal = ParsedDeal(template, hands=hands)
    if ctx.reserve_left:
        left = ctx.reserve_left
        order = [left[i] for i in rng.permutation(len(left))]
        world.reserve = order
        deal["reserve"] = template["reserve"] + [CARD_NAMES[t] for t in order]
        reserve = [*(reserve or ()), *order]
    deal.fields = (start, identities, zones, reserve)
    world.deals = [deal]
    return World(world, [deal], list(game.history))


# ---- the rule-based bot on the state --------------------------------------------------------
class FastBot:
    """``HeuristicPolicy`` (bot.py) computed from the game state for ``game.current_player``,
    reading only what that seat may know (identities, the trick, the winners, its legal moves),
    with the same floating-point scores and the same tie order."""

    def __init__(self, options: Mapping[str, Any], seed: int | None = None) -> None:
        opts = CahootsTricks.OPTIONS.resolve(dict(options))
        self.face_value = opts["scoring"] == "face_value"
        self.rng = np.random.default_rng(seed)

    def act_state(self, game: CahootsTricks) -> int:
        legal = game.legal_actions()
        if len(legal) == 1:
            return legal[0]
        choices = self.best(game, legal)
        return choices[int(self.rng.integers(len(choices)))]

    def best(self, game: CahootsTricks, legal: list[int] | None = None) -> list[int]:
        """The bot's best moves (``HeuristicPolicy.best_actions``) in ``game``'s state."""
        if legal is None:
            legal = game.legal_actions()
        if len(legal) == 1:
            return [legal[0]]
        seat = game.current_player
        ids = game.identity_suits
        mine = ids[seat]
        if legal[0] >= TAKE_BASE:
            scores = [float(TYPE_VALUE[a - TAKE_BASE]) for a in legal]
        elif legal[0] < KEEP_BASE:
            scores = self._play(game, legal, seat, ids, mine)
        else:
            scores = self._keep_or_kill(game, legal, seat, ids, mine)
        best = max(scores)
        return [a for a, s in zip(legal, scores) if s >= best - 1e-9]

    @staticmethod
    def _play(game: CahootsTricks, legal: list[int], seat: int, ids: list[int],
              mine: int) -> list[float]:
        totals = game.suit_totals
        theirs_suits = [k for k in range(_NUM_SUITS) if not mine >> k & 1]
        my_suits = [k for k in range(_NUM_SUITS) if mine >> k & 1]
        scores = []
        for t in legal:
            s, value = TYPE_SUIT[t], TYPE_VALUE[t]
            after = list(totals)
            after[s] += value
            top = max(after)
            share = 0.0
            if top > 0:
                won = 0
                for k in range(_NUM_SUITS):
                    if after[k] == top:
                        won |= 1 << k
                m = [(i & won).bit_count() for i in ids]
                most = max(m)
                if m[seat] >= most:
                    share = 4.0 / m.count(most)
            theirs = max(after[k] for k in theirs_suits)
            diff = max(after[k] for k in my_suits) - theirs
            margin = float(min(16, max(-16, diff))) / 16.0
            cost = value / 8.0 * (1.0 if mine >> s & 1 else 0.4)
            scores.append(share + 0.5 * margin - 0.3 * cost)
        return scores

    def _keep_or_kill(self, game: CahootsTricks, legal: list[int], seat: int, ids: list[int],
                      mine: int) -> list[float]:
        last_trick = game.trick_number == 11
        shared = 0  # suits of mine that another seat's identity card shows too
        for other in range(game.num_players):
            if other != seat:
                shared |= ids[other]
        private = mine & ~shared
        winners = game.winners
        my_share = 1.0 / max(1.0, float(len(winners))) if seat in winners else 0.0
        scores = []
        for a in legal:
            keep = a < KILL_BASE
            t = a - (KEEP_BASE if keep else KILL_BASE)
            s, value = TYPE_SUIT[t], float(TYPE_VALUE[t])
            if keep:
                score = 0.0 if last_trick else value * (
                    1.5 if private >> s & 1 else 1.0 if mine >> s & 1 else 0.3)
            else:
                score = 0.0 if mine >> s & 1 else value * 0.8
                if self.face_value:
                    score += value * my_share * 1.5
            scores.append(score)
        return scores


# ---- values and when to search ----------------------------------------------------------------
def value(game: CahootsTricks, seat: int) -> float:
    """``outcome()[seat]`` once the game is over (one hand is the whole game, so search always
    rolls out to the end); before that, the outcome if the game stopped now."""
    if game.is_over:
        return float(game.outcome()[seat])
    return float(zero_sum_outcome([float(p) for p in game.points_thirds])[seat])


def worth_searching(game: CahootsTricks, seat: int) -> bool:
    """Search from trick ``SEARCH_FROM_TRICK`` on: every play and keep/kill pick of the game
    (there is no bidding, and the identity cards are dealt). Rollouts on the batched engine make
    the whole game affordable; from trick 8 only (the window while rollouts ran on the reference
    game) the search seat won 0.365 against 3 heuristic bots, from trick 1 0.459 (at 12
    candidates and gate 2.0; docs/lab/search_tricks_window.md). On the reference path (``engine=reference``,
    ``point_split='random'``) a decision costs about five times as much."""
    return not game.is_over and game.trick_number >= SEARCH_FROM_TRICK
