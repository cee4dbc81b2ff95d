"""Texas Euchre — the rules, in the words of docs/rules/texas_euchre.md.

A card's *face* is ``rank * 4 + suit`` (ranks 2..A as 0..12, suits C D H S); with two decks (6
players) both copies of a face exist, so a physical card's id is ``face * 2 + copy`` and card
sets are int bitmasks over ids. Sorting by id sorts by trick rank, then suit, and keeps the two
copies of a face next to each other. The rank of card ``c`` is ``c >> 3``; suits never matter
for play (§3.1), only for naming cards.

Discard actions name a subset of the hand by *position* in the sorted hand (bit p = the p-th
card), so the action space is ``2**H`` discards + ``throw down`` + 52 ``play`` actions (§3.3).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from cahoots_envs.core.cards import bits
from cahoots_envs.core.game import (
    Game,
    deal_per_seat,
    deal_seat,
    parse_deals,
    zero_sum_outcome,
)
from cahoots_envs.core.options import Option, OptionSet, common_options

RANK_NAMES = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SUITS = "CDHS"
FACES = 52
HAND_SIZE = {3: 4, 4: 5, 5: 6, 6: 7}
DECKS = {3: 1, 4: 1, 5: 1, 6: 2}  # §3.6: a second deck for 6 players

# §3.1 / A2: point values of 2..10, J, Q, K, A
FACE_VALUES: dict[str, tuple[int, ...]] = {
    "ranked": (2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14),
    "tens_ace_low": (2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10, 1),
    "tens_ace_high": (2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10, 11),
}

PHASE_FIRST_TURN, PHASE_DRAW, PHASE_FINAL_LAP, PHASE_PLAY = "first_turn", "draw", "final_lap", "play"
PHASES = (PHASE_FIRST_TURN, PHASE_DRAW, PHASE_FINAL_LAP, PHASE_PLAY)

# discard subsets of an H-card hand, grouped by size (number of set bits)
SUBSETS_BY_SIZE = {
    h: [[s for s in range(1 << h) if s.bit_count() == k] for k in range(h + 1)]
    for h in HAND_SIZE.values()
}
# legal-action lists of the draw phase, keyed by (H, lowest k, highest k, throw down?, duplicates)
_DRAW_LEGAL: dict[tuple[int, int, int, bool, int], list[int]] = {}


# one shared string per card id: deal records and notation reuse them instead of new strings
CARD_NAMES = tuple(RANK_NAMES[(card >> 1) >> 2] + SUITS[(card >> 1) & 3] for card in range(2 * FACES))


def card_str(card: int) -> str:
    """Notation of a card id (either copy of a face reads the same)."""
    return CARD_NAMES[card]


def face_str(face: int) -> str:
    return RANK_NAMES[face >> 2] + SUITS[face & 3]


class FaceDeal(dict):  # type: ignore[type-arg]
    """A round's deal record (a plain dict of the scripted-deal format to every reader) that
    keeps its cards as faces too (``faces``: each hand's faces sorted, then the draw pile's, top
    first), which a trusted batched engine reads instead of the names: the world sampler's
    records (``search._RoundProblem.history``)."""

    __slots__ = ("faces",)

    faces: tuple[list[list[int]], list[int]]


def parse_face(text: str) -> int:
    t = str(text).strip().upper()
    if len(t) >= 2 and t[-1] in SUITS and t[:-1] in RANK_NAMES:
        return RANK_NAMES.index(t[:-1]) * 4 + SUITS.index(t[-1])
    raise ValueError(
        f"unknown Texas Euchre card {text!r}: cards are a rank 2-10, J, Q, K or A and a suit "
        "C, D, H or S, e.g. 10D or AC"
    )


def trick_winner(trick: Sequence[tuple[int, int]], reverse: bool = False) -> int:
    """§3.2.3: the highest rank takes the trick, suits are irrelevant, and among equal top ranks
    the card played last wins. Reverse (§3.6): the lowest rank, ties again to the last played."""
    best_seat, best_card = trick[0]
    best = best_card >> 3
    for seat, card in trick[1:]:
        r = card >> 3
        if (r <= best) if reverse else (r >= best):
            best_seat, best = seat, r
    return best_seat


def score_round(
    stakes: Sequence[int], tricks: Sequence[int], thrower: int, reverse: bool = False
) -> list[int]:
    """§3.2.4 (and the mirrored scoring of §3.6 when ``reverse``): points each seat takes."""
    n = len(stakes)
    hand_size = sum(tricks)
    t_min, t_max = min(tricks), max(tricks)
    points = [0] * n
    if reverse:
        # the loser is whoever has the most tricks; no all-tricks doubling (§3.6)
        for s in range(n):
            if s == thrower:
                if tricks[s] == t_max:  # tied for most counts as most
                    points[s] = 2 * stakes[s]
                elif tricks[s] != t_min:
                    points[s] = stakes[s]
            elif tricks[s] == t_max:
                points[s] = stakes[s]
        return points
    if tricks[thrower] == hand_size:
        # the thrower took every trick: everyone else doubles, the thrower scores 0
        return [0 if s == thrower else 2 * stakes[s] for s in range(n)]
    for s in range(n):
        if s == thrower:
            if tricks[s] == t_min:  # A4: tied for least counts as least
                points[s] = 2 * stakes[s]
            elif tricks[s] != t_max:  # A5 / FAQ 4: "came second" scores single
                points[s] = stakes[s]
        elif tricks[s] == t_min:  # ties for last place all take points; FAQ 3, FAQ 5
            points[s] = stakes[s]
    return points


def game_winners(scores: Sequence[int], round_points: Sequence[Sequence[int]]) -> list[int]:
    """§3.2.6: the lowest total wins. Among players tied for lowest, the one who took points most
    recently loses, and if they took points in the same round, the one who took more (FAQ 6).
    Remaining ties are broken on earlier rounds in the same way; a tie that survives every
    round shares the win."""
    low = min(scores)
    tied = [s for s, v in enumerate(scores) if v == low]
    for points in reversed(round_points):
        if len(tied) == 1:
            break
        least = min(points[s] for s in tied)
        tied = [s for s in tied if points[s] == least]
    return tied


def update_tiebreak(rank: Sequence[int], points: Sequence[int]) -> list[int]:
    """FAQ 6 as a rank per seat: the number of seats whose round points, compared from the latest
    round back, are lexicographically smaller (fewer points in the latest round where they
    differ: those seats win a tie for lowest total against this one). ``rank`` is the rank before
    the round that gave ``points``; equal ranks mean identical points in every round."""
    keys = list(zip(points, rank))
    return [sum(k < key for k in keys) for key in keys]


def max_rounds(options: Mapping[str, Any]) -> int:
    """An upper bound on the rounds of a game: every round gives someone at least the smallest
    card value (everyone discards on the first lap)."""
    v_min = min(FACE_VALUES[options["face_card_values"]])
    return int(options["num_players"] * (options["target_score"] - 1) // v_min + 1)


def _dup_mask(hand: int) -> int:
    """Bit p set where the p-th card of the sorted hand is the second copy of the same face."""
    dup, p, prev = 0, 0, -1
    while hand:
        low = hand & -hand
        face = (low.bit_length() - 1) >> 1
        if face == prev:
            dup |= 1 << p
        prev = face
        hand ^= low
        p += 1
    return dup


def _draw_legal(h: int, lo: int, hi: int, throw: bool, dup: int) -> list[int]:
    key = (h, lo, hi, throw, dup)
    legal = _DRAW_LEGAL.get(key)
    if legal is None:
        groups = SUBSETS_BY_SIZE[h]
        # two identical cards: only the subsets that take the first copy first, so every legal
        # action names a different multiset of cards
        legal = sorted(
            s for k in range(lo, hi + 1) for s in groups[k] if not ((s & dup) >> 1) & ~s
        )
        if throw:
            legal.append(1 << h)
        _DRAW_LEGAL[key] = legal
    return legal


class TexasEuchre(Game):
    NAME = "texas_euchre"
    VERSION = 1
    VERSION_NOTES: ClassVar[dict[int, str]] = {
        1: "v1: the observation adds, per relative seat, the cards it played to tricks and its "
        "latest discard this round, the last completed trick with its leader and winner, the "
        "points each seat took last round and the FAQ 6 tie-break rank"
    }
    REPLAYS_FROM = 0  # the rules are those of v0
    TITLE = "Texas Euchre"
    PHASES = PHASES
    PLAYER_COUNTS = (3, 4, 5, 6)
    DEFAULT_PLAYERS = 4
    OPTIONS = OptionSet(
        common_options((3, 4, 5, 6), 4)
        + (
            Option(
                "target_score", 100,
                "the game ends after the round in which someone reaches this score (§3.2.6, A6)",
                int_range=(1, 10_000), policy_may_differ=True,
            ),
            Option(
                "face_card_values", "ranked",
                "points of J/Q/K/A (A2): `'ranked'` 11/12/13/14, `'tens_ace_low'` 10/10/10/1, "
                "`'tens_ace_high'` 10/10/10/11 (2–10 always score their rank)",
                choices=tuple(FACE_VALUES),
            ),
            Option(
                "empty_deck_throw_down", False,
                "A3's alternative: when the pile runs out before anyone throws down, each player in "
                "turn may still throw down (`throw down`) or decline (`discard none`); the deck is "
                "exhausted only when a whole lap has declined",
                choices=(False, True),
            ),
            Option(
                "reverse", False,
                "Reverse Texas Euchre (§3.6): the lowest card takes each trick and the mirrored "
                "scoring applies",
                choices=(False, True),
            ),
        )
    )
    DEAL_KEYS = ("dealer", "hands", "draw_pile")
    CLONED_LISTS = (
        "scores", "hands", "draw_pile", "stakes", "stake_points", "trick", "tricks_won",
        "played_by", "last_discard", "last_trick", "tiebreak_rank",
    )
    CLONED_NESTED_LISTS = ("round_points",)
    POINTS_SIGN = -1  # points are bad
    TEST_VARIANTS = (
        {"reverse": True},
        {"num_players": 6, "reverse": True, "face_card_values": "tens_ace_low",
         "reward_mode": "points", "target_score": 60},
        {"num_players": 3, "empty_deck_throw_down": True},
    )

    # ---- declared ---------------------------------------------------------------------------
    @classmethod
    def num_actions(cls, options: Mapping[str, Any]) -> int:
        return (1 << HAND_SIZE[options["num_players"]]) + 1 + FACES

    @classmethod
    def max_game_length(cls, options: Mapping[str, Any]) -> int:
        # a round has at most (pile) discard turns, one throw down, n-1 final-lap turns and n*H
        # plays = deck + n decisions (+ n declines with empty_deck_throw_down); every round gives
        # someone at least the smallest card value (everyone discards on the first lap), so the
        # totals bound the number of rounds
        n = options["num_players"]
        return max_rounds(options) * (FACES * DECKS[n] + 2 * n)

    @classmethod
    def full_deck(cls, options: Mapping[str, Any]) -> list[str]:
        return sorted(face_str(f) for f in range(FACES) for _ in range(DECKS[options["num_players"]]))

    # ---- a game ------------------------------------------------------------------------------
    def __init__(
        self,
        options: Mapping[str, Any],
        rng: np.random.Generator,
        deal: Mapping[str, Any] | Sequence[Mapping[str, Any]] | None,
    ) -> None:
        n = options["num_players"]
        self.num_players = n
        self.hand_size = HAND_SIZE[n]
        self.decks = DECKS[n]
        self.deck_size = FACES * self.decks
        self.target_score = int(options["target_score"])
        self.empty_deck_throw_down = bool(options["empty_deck_throw_down"])
        self.reverse = bool(options["reverse"])
        face_values = FACE_VALUES[options["face_card_values"]]
        self.values = [face_values[c >> 3] for c in range(2 * FACES)]  # by card id
        self.throw_action = 1 << self.hand_size
        self.play_base = self.throw_action + 1
        self.rng = rng
        # every round's deal validated before any state is built; the deal passes left (§3.2.5)
        self._scripted = tuple(
            (dealer, None if hands is None else tuple(hands), None if pile is None else tuple(pile))
            for dealer, hands, pile in parse_deals(deal, max_rounds(options), self._parse_deal, n)
        )
        parsed = self._scripted[0] if self._scripted else (None, None, None)
        self.scores: list[int] = [0] * n  # type: ignore[assignment]
        self.round_points: list[list[int]] = []
        # FAQ 6 in one number per seat: how many seats rank strictly better on the round points
        # read from the latest round back (fewer points better); see ``update_tiebreak``
        self.tiebreak_rank = [0] * n
        # the last completed trick, (seat, card id) in order of play; the final trick of a round
        # stays until the next trick phase begins
        self.last_trick: list[tuple[int, int]] = []
        self.last_trick_winner = -1
        self.round_number = 0
        self.is_over = False
        self.history: list[int] = []
        self.deals: list[dict[str, Any]] = []
        dealer = parsed[0] if parsed[0] is not None else int(rng.integers(n))
        self._start_round(dealer, parsed[1], parsed[2])

    def _parse_deal(
        self, deal: Mapping[str, Any]
    ) -> tuple[int | None, list[int] | None, list[int] | None]:
        """Validate a scripted deal (CONTRACT §5) without touching any state. Returns the dealer,
        the hands as id masks and the draw pile as ids, top first."""
        unknown = sorted(set(deal) - set(self.DEAL_KEYS))
        if unknown:
            raise ValueError(
                f"unknown deal key(s) {unknown}; texas_euchre deals accept {', '.join(self.DEAL_KEYS)}"
            )
        n, h = self.num_players, self.hand_size
        dealer = deal_seat(deal, "dealer", n)
        copies = [0] * FACES
        each = "one of each card" if self.decks == 1 else "two decks: two of each card"

        def take(text: Any, where: str) -> int:
            face = parse_face(text)
            if copies[face] >= self.decks:
                raise ValueError(
                    f"deal: {face_str(face)} ({where}) is dealt more often than the deck has it "
                    f"({each})"
                )
            copies[face] += 1
            return face * 2 + copies[face] - 1

        hands: list[int] | None = None
        if "hands" in deal:
            raw = deal_per_seat(deal, "hands", n, "hands")
            hands = []
            for seat, hand in enumerate(raw):
                if not isinstance(hand, (list, tuple)) or len(hand) != h:
                    got = f"{len(hand)} cards" if isinstance(hand, (list, tuple)) else repr(hand)
                    raise ValueError(f"deal: seat {seat} has {got}; {n} players hold {h} each")
                mask = 0
                for text in hand:
                    mask |= 1 << take(text, f"hand of seat {seat}")
                hands.append(mask)
        pile: list[int] | None = None
        if "draw_pile" in deal:
            raw = deal["draw_pile"]
            size = self.deck_size - n * h
            if not isinstance(raw, (list, tuple)) or len(raw) != size:
                got = f"{len(raw)} cards" if isinstance(raw, (list, tuple)) else repr(raw)
                raise ValueError(
                    f"deal: draw_pile has {got}; with {n} players it holds the other {size} cards"
                )
            pile = [take(text, "draw pile") for text in raw]
        return dealer, hands, pile

    def deal_record(self, dealer: int, hands: Sequence[int], pile: Sequence[int]) -> dict[str, Any]:
        """A round as dealt in the scripted-deal format (the inverse of ``_parse_deal``):
        ``pile`` is the draw pile top first."""
        return {
            "dealer": int(dealer),
            "hands": [[card_str(c) for c in bits(h)] for h in hands],
            "draw_pile": [card_str(c) for c in pile],
        }

    def script_round(self, deal: Mapping[str, Any]) -> None:
        """Replace the deal of the round that has just begun (for tests and puzzles: later rounds
        are otherwise dealt from the RNG). Refused once a decision of the round has been taken."""
        if self.is_over or self.draw_turns or self.thrower >= 0:
            raise ValueError("script_round: only before the first decision of a round")
        dealer, hands, pile = self._parse_deal(deal)
        self.deals.pop()  # the round's deal record is replaced
        self._start_round(self.dealer if dealer is None else dealer, hands, pile)

    def _start_round(
        self, dealer: int, hands: Sequence[int] | None, pile: Sequence[int] | None
    ) -> None:
        """§3.2.1: deal H cards each; the rest is the face-down draw pile."""
        n, h = self.num_players, self.hand_size
        self.dealer = dealer
        if hands is None or pile is None:
            used = 0
            for m in hands or ():
                used |= m
            for c in pile or ():
                used |= 1 << c
            rest = [c for c in range(2 * FACES) if (c & 1) < self.decks and not used >> c & 1]
            order = self.rng.permutation(len(rest))
            cards = [rest[i] for i in order]
            if hands is None:
                hands = []
                for seat in range(n):
                    mask = 0
                    for c in cards[seat * h : (seat + 1) * h]:
                        mask |= 1 << c
                    hands.append(mask)
                cards = cards[n * h :]
            if pile is None:
                pile = cards
        self.hands = list(hands)
        self.draw_pile = list(pile[::-1])  # top card last, so drawing is pop()
        self.deals.append(self.deal_record(dealer, hands, pile))
        self.stakes = [0] * n  # face-up discards in front of each player (public)
        self.stake_points = [0] * n
        self.had_first_turn = 0  # seats (bits) that took their first turn this round
        self.thrower = -1
        self.throw_turn = -1  # draw turns taken this round before the throw down
        self.draw_turns = 0
        self.final_lap_left = 0
        self.empty_deck_declines = 0  # A3 alternative: players who declined to throw down
        self.trick: list[tuple[int, int]] = []  # (seat, card id) in order of play
        self.tricks_won = [0] * n
        self.tricks_played = 0
        self.played = 0  # every card played to a trick this round (ids)
        self.played_by = [0] * n  # the same, per seat
        self.last_discard = [0] * n  # the cards each seat discarded on its latest draw turn
        self._phase = PHASE_FIRST_TURN
        self.current_player = (dealer + 1) % n  # §3.2.2: the dealer's left starts

    # ---- state queries -----------------------------------------------------------------------
    @property
    def phase(self) -> str:
        return self._phase

    def sorted_hand(self, seat: int) -> list[int]:
        return list(bits(self.hands[seat]))

    def legal_actions(self) -> list[int]:
        hand = self.hands[self.current_player]
        phase = self._phase
        if phase == PHASE_PLAY:
            # A7: any card, no suit to follow; one action per face (two copies play alike)
            base = self.play_base
            legal, prev = [], -1
            while hand:
                low = hand & -hand
                face = (low.bit_length() - 1) >> 1
                if face != prev:
                    legal.append(base + face)
                    prev = face
                hand ^= low
            return legal
        # A1: discard k cards, k capped at the hand size and the draw pile; k >= 1 on ordinary
        # turns, k >= 0 on the final lap; throw down only from a player's second turn (FAQ 1)
        hi = min(self.hand_size, len(self.draw_pile))
        # k = 0 is `discard none`: on the final lap, or declining to throw down at an empty deck
        lo = 0 if phase == PHASE_FINAL_LAP or hi == 0 else 1
        dup = _dup_mask(hand) if self.decks > 1 else 0
        return list(_draw_legal(self.hand_size, lo, hi, phase == PHASE_DRAW, dup))

    # ---- transitions --------------------------------------------------------------------------
    def apply(self, action: int) -> None:
        self.history.append(action)
        if action >= self.play_base:
            self.play(action - self.play_base)
        elif action == self.throw_action:
            self.throw_down()
        else:
            self.discard(action)

    def discard(self, subset: int) -> None:
        """§3.2.2: lay the chosen cards face up in front of you (your stake), then draw as many."""
        seat = self.current_player
        hand = self.hands[seat]
        chosen = points = 0
        values = self.values
        s, m = subset, hand
        while s:
            low = m & -m
            if s & 1:
                chosen |= low
                points += values[low.bit_length() - 1]
            m ^= low
            s >>= 1
        hand ^= chosen
        pile = self.draw_pile
        for _ in range(subset.bit_count()):
            hand |= 1 << pile.pop()
        self.hands[seat] = hand
        self.stakes[seat] |= chosen
        self.last_discard[seat] = chosen
        self.stake_points[seat] += points
        self.draw_turns += 1
        n = self.num_players
        if self._phase == PHASE_FINAL_LAP:
            self.final_lap_left -= 1
            if self.final_lap_left == 0:
                self._start_tricks()
            else:
                self.current_player = (seat + 1) % n
            return
        self.had_first_turn |= 1 << seat
        nxt = (seat + 1) % n
        if not pile:
            if subset == 0:
                self.empty_deck_declines += 1
            if self.empty_deck_throw_down and self.empty_deck_declines < n:
                # A3's alternative: the next player who may throw down gets the chance; one who
                # has not had a first turn cannot (FAQ 1) and counts as declining
                while not self.had_first_turn >> nxt & 1 and self.empty_deck_declines < n - 1:
                    self.empty_deck_declines += 1
                    nxt = (nxt + 1) % n
                if self.had_first_turn >> nxt & 1:
                    self.current_player = nxt
                    self._phase = PHASE_DRAW
                    return
            # FAQ 7 / §3.2.2: the deck ran out before anyone threw down: no trick phase, every
            # player counts 0 tricks and takes the points in front of them
            self._end_round(list(self.stake_points))
            return
        self.current_player = nxt
        self._phase = PHASE_DRAW if self.had_first_turn >> nxt & 1 else PHASE_FIRST_TURN

    def throw_down(self) -> None:
        """§3.2.2 (a): the hand goes face down and freezes; everyone else gets one last turn."""
        seat = self.current_player
        self.thrower = seat
        self.throw_turn = self.draw_turns
        self.draw_turns += 1
        self.final_lap_left = self.num_players - 1
        self._phase = PHASE_FINAL_LAP
        self.current_player = (seat + 1) % self.num_players

    def _start_tricks(self) -> None:
        """§3.2.3: back at the thrower, the draw phase ends and the thrower leads."""
        self._phase = PHASE_PLAY
        self.current_player = self.thrower
        self.last_trick = []  # the previous round's final trick is now old news

    def play(self, face: int) -> None:
        seat = self.current_player
        pair = (self.hands[seat] >> (2 * face)) & 3
        card = 2 * face + (0 if pair & 1 else 1)
        self.hands[seat] ^= 1 << card
        self.played |= 1 << card
        self.played_by[seat] |= 1 << card
        trick = self.trick
        trick.append((seat, card))
        if len(trick) < self.num_players:
            self.current_player = (seat + 1) % self.num_players
            return
        winner = trick_winner(trick, self.reverse)
        self.tricks_won[winner] += 1
        self.tricks_played += 1
        self.last_trick, self.last_trick_winner = trick, winner
        self.trick = []
        if self.tricks_played == self.hand_size:
            self._end_round(score_round(self.stake_points, self.tricks_won, self.thrower, self.reverse))
        else:
            self.current_player = winner  # the winner leads the next trick

    def _end_round(self, points: list[int]) -> None:
        """§3.2.4-6: take the points; the game ends once anyone has reached the target (A6)."""
        n = self.num_players
        self.round_points.append(points)
        self.tiebreak_rank = update_tiebreak(self.tiebreak_rank, points)
        for s in range(n):
            self.scores[s] += points[s]
        self.round_number += 1
        if max(self.scores) >= self.target_score:
            self.is_over = True
            self.current_player = -1
            return
        # §3.2.5: the deal passes left; a whole-game deal scripts the round
        k = self.round_number
        scripted = self._scripted[k] if k < len(self._scripted) else (None, None, None)
        self._start_round((self.dealer + 1) % n, scripted[1], scripted[2])

    def winners(self) -> list[int]:
        return game_winners(self.scores, self.round_points)

    def outcome(self) -> list[float]:
        won = self.winners()
        return zero_sum_outcome([1.0 if s in won else 0.0 for s in range(self.num_players)])

    # ---- notation ----------------------------------------------------------------------------
    def action_to_str(self, action: int) -> str:
        if 0 <= action < self.throw_action:
            if action == 0:
                return "discard none"
            seat = self.current_player
            hand = self.sorted_hand(seat) if seat >= 0 else []
            if action.bit_length() > len(hand):
                return f"discard #{action}"
            return "discard " + " ".join(card_str(hand[p]) for p in bits(action))
        if action == self.throw_action:
            return "throw down"
        if self.play_base <= action < self.play_base + FACES:
            return f"play {face_str(action - self.play_base)}"
        raise ValueError(f"action {action} is out of range 0..{self.play_base + FACES - 1}")

    # ---- copies and checks -------------------------------------------------------------------
    def card_locations(self) -> list[str]:
        cards = list(self.draw_pile)
        for zone in self.hands + self.stakes + [self.played]:
            cards.extend(bits(zone))
        return sorted(card_str(c) for c in cards)

    def resample_hidden(self, observer: int, rng: np.random.Generator) -> TexasEuchre:
        """Re-deal every card ``observer`` has not seen: the other hands (the thrower's face-down
        hand included) and the draw pile, keeping every hand's size (A8). Stakes and played
        cards are public; the observer's own hand is its own."""
        twin = self.clone()
        pool = list(self.draw_pile)
        sizes = []
        for s in range(self.num_players):
            if s != observer:
                cards = list(bits(self.hands[s]))
                pool.extend(cards)
                sizes.append((s, len(cards)))
        order = rng.permutation(len(pool))
        shuffled = [pool[i] for i in order]
        at = 0
        for s, k in sizes:
            mask = 0
            for c in shuffled[at : at + k]:
                mask |= 1 << c
            twin.hands[s] = mask
            at += k
        twin.draw_pile = shuffled[at:]
        return twin
