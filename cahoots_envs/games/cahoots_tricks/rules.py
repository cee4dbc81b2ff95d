"""Cahoots (Mayday Games), the competitive trick-taking game — the rules, in the words of
docs/rules/cahoots_tricks.md (section numbers below refer to it).

Cards of the same suit and value are indistinguishable, so a card is its *type*:
``type = suit * 5 + value - 4`` with suits S H D C U R (spades, hearts, diamonds, clubs, cups,
stars) and values 4..8, 30 types in all. A zone (a hand, the trick on the table, a point pile) is
an int in which type t owns bits ``2t`` and ``2t + 1`` and holds its count in unary: bit ``2t``
means "at least one", bit ``2t + 1`` "two" (no type has more than two copies). Cards present in a
zone are therefore ``zone & EVEN_BITS``, and card accounting counts the set bits.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from cahoots_envs.core.game import (
    Game,
    deal_per_seat,
    deal_seat,
    split_deals,
    zero_sum_outcome,
)
from cahoots_envs.core.options import Option, OptionSet, common_options

SUITS = "SHDCUR"
VALUES = (4, 5, 6, 7, 8)
NUM_TYPES = len(SUITS) * len(VALUES)  # 30
COPIES = {4: 1, 5: 2, 6: 2, 7: 2, 8: 1}  # §2.1: 4, 5, 5, 6, 6, 7, 7, 8 per suit
TRICKS = 11  # §2.4
HAND_SIZE = 12
POINTS_PER_TRICK = 4
EVEN_BITS = sum(1 << (2 * t) for t in range(NUM_TYPES))

# §2.1: the identity structure is forced; the labelling of the rulebook's example (A1)
IDENTITY_CARDS = ("SHR", "CHU", "CDR", "SDU")
IDENTITY_MASKS = tuple(sum(1 << SUITS.index(s) for s in card) for card in IDENTITY_CARDS)

PHASE_PLAY, PHASE_KEEP_KILL, PHASE_DRAFT = "play", "keep_kill", "draft"
PHASES = (PHASE_PLAY, PHASE_KEEP_KILL, PHASE_DRAFT)

# action ids: one block of 30 card types per verb
PLAY_BASE, KEEP_BASE, KILL_BASE, TAKE_BASE = 0, NUM_TYPES, 2 * NUM_TYPES, 3 * NUM_TYPES
NUM_ACTIONS = 4 * NUM_TYPES
VERBS = ("play", "keep", "kill", "take")

TYPE_VALUE = tuple(t % 5 + 4 for t in range(NUM_TYPES))
TYPE_SUIT = tuple(t // 5 for t in range(NUM_TYPES))


# one shared string per card type: deal records and notation reuse them instead of new strings
CARD_NAMES = tuple(f"{TYPE_VALUE[t]}{SUITS[TYPE_SUIT[t]]}" for t in range(NUM_TYPES))


def card_str(t: int) -> str:
    return CARD_NAMES[t]


def parse_card(text: str) -> int:
    text = text.strip().upper()
    if len(text) == 2 and text[0] in "45678" and text[1] in SUITS:
        return SUITS.index(text[1]) * 5 + int(text[0]) - 4
    raise ValueError(
        f"unknown Cahoots card {text!r}: cards are a value 4-8 and a suit "
        "S (spades), H (hearts), D (diamonds), C (clubs), U (cups) or R (stars), e.g. 8S"
    )


def add_card(zone: int, t: int) -> int:
    low = 1 << (2 * t)
    return zone | (low << 1) if zone & low else zone | low


def remove_card(zone: int, t: int) -> int:
    """Remove one card of type ``t`` (which must be in ``zone``)."""
    high = 1 << (2 * t + 1)
    return zone ^ high if zone & high else zone ^ (1 << (2 * t))


def zone_of(counts: Mapping[int, int]) -> int:
    zone = 0
    for t, c in counts.items():
        for _ in range(c):
            zone = add_card(zone, t)
    return zone


def zone_types(zone: int) -> list[int]:
    """Every card of a zone as its type, with multiplicity, ascending."""
    out = []
    while zone:
        low = zone & -zone
        out.append((low.bit_length() - 1) >> 1)
        zone ^= low
    return out


def deck_counts(num_players: int) -> dict[int, int]:
    """The cards dealt into hands: §2.2, with 3 players one 5 and one 7 of each suit are removed."""
    counts = {t: COPIES[TYPE_VALUE[t]] for t in range(NUM_TYPES)}
    if num_players == 3:
        for t in RESERVE_TYPES:
            counts[t] -= 1
    return counts


RESERVE_TYPES = tuple(s * 5 + v - 4 for s in range(len(SUITS)) for v in (5, 7))


def snake_order(winners: list[int]) -> list[int]:
    """Who receives each of the 4 point cards: W1, W2, …, Wk, Wk, …, W1, … (§2.5, A3)."""
    lap = winners + winners[::-1]
    return [lap[i % len(lap)] for i in range(POINTS_PER_TRICK)]


class ParsedDeal(dict):  # type: ignore[type-arg]
    """A deal record (a plain dict of the scripted-deal format to every reader) that keeps what
    ``CahootsTricks._parse_deal`` makes of it too (``fields``: start player, identities, hand
    zones, reserve), which a trusted batched engine reads instead of parsing the names: the
    world sampler's records (``search.sample_world``)."""

    __slots__ = ("fields",)

    fields: tuple[int | None, list[int] | None, list[int] | None, list[int] | None]


@dataclass(frozen=True, eq=False)
class CompletedTrick:
    """A trick once it is over; all of it is public. Never changed once made, and equal only to
    itself, so that the encoder can cache by identity what it derives from it."""

    plays: tuple[tuple[int, int], ...]  # (seat, type) in play order: lap 1, then lap 2
    kept: tuple[int, ...]  # per seat, the card it kept
    killed: tuple[int, ...]  # per seat, the card it killed
    winning_suits: int  # suit mask
    winners: tuple[int, ...]  # the scoring winners, clockwise from the start player
    points: tuple[int, ...]  # per seat, the points it got from the trick, in thirds


class CahootsTricks(Game):
    NAME = "cahoots_tricks"
    VERSION = 1
    VERSION_NOTES: ClassVar[dict[int, str]] = {
        1: "v1: the observation holds every public fact: the cards each seat played and killed "
        "this game, the last completed trick (each seat's plays by lap, keep and kill picks, the "
        "winning suits, the scoring winners and the points each seat got), and no phase once "
        "the game is over"
    }
    REPLAYS_FROM = 0  # the rules are those of v0
    TITLE = "Cahoots (competitive trick-taking, Mayday Games)"
    PHASES = PHASES
    PLAYER_COUNTS = (3, 4)
    DEFAULT_PLAYERS = 4
    OPTIONS = OptionSet(
        common_options((3, 4), 4)
        + (
            Option(
                "scoring", "cards",
                "`'cards'`: 1 point per point card (§2.3); `'face_value'`: the scoring variant, "
                "a point card counts its value (§2.5)",
                choices=("cards", "face_value"),
            ),
            Option(
                "point_split", "draft",
                "face-value variant only (§2.5): `'draft'`: the scoring winners take the point "
                "cards one at a time in snake order (`take 6S`); `'random'`: dealt out at random",
                choices=("draft", "random"),
            ),
            Option(
                "three_way_split", "snake",
                "three scoring winners (A3): `'snake'`: the point cards go out in snake order, "
                "1, 1 and 2 (the winner last clockwise from the start player gets 2); `'even'`: "
                "each gets a third of the trick's points",
                choices=("snake", "even"),
            ),
        )
    )
    DEAL_KEYS = ("start_player", "identities", "hands", "reserve")
    CLONED_LISTS = (
        "scores", "points_thirds", "point_cards", "known", "hands", "reserve",
        "identities", "identity_suits", "trick", "suit_totals", "kept_now", "killed_now",
        "kill_order", "winners", "draft_order", "thirds_before",
    )
    TEST_VARIANTS = (
        {"scoring": "face_value"},
        {"scoring": "face_value", "num_players": 3, "reward_mode": "points"},
        {"scoring": "face_value", "point_split": "random", "three_way_split": "even"},
        {"three_way_split": "even", "num_players": 3, "reward_mode": "points"},
    )

    # ---- declared ---------------------------------------------------------------------------
    @classmethod
    def num_actions(cls, options: Mapping[str, Any]) -> int:
        return NUM_ACTIONS

    @classmethod
    def max_game_length(cls, options: Mapping[str, Any]) -> int:
        n = options["num_players"]
        return TRICKS * (2 * n + 2 * n + POINTS_PER_TRICK)

    @classmethod
    def full_deck(cls, options: Mapping[str, Any]) -> list[str]:
        return sorted(card_str(t) for t in range(NUM_TYPES) for _ in range(COPIES[TYPE_VALUE[t]]))

    @classmethod
    def chance_after_deal(cls, options: Mapping[str, Any]) -> bool:
        return options["point_split"] == "random"  # point cards are shared out at random (§2.5)

    # ---- a game ------------------------------------------------------------------------------
    def __init__(
        self,
        options: Mapping[str, Any],
        rng: np.random.Generator,
        deal: Mapping[str, Any] | Sequence[Mapping[str, Any]] | None,
    ) -> None:
        n = options["num_players"]
        self.num_players = n
        self.face_value = options["scoring"] == "face_value"
        self.draft = options["point_split"] == "draft"
        self.even_three_way = options["three_way_split"] == "even"
        self.rng = rng
        scripted = split_deals(deal, 1)  # one hand: a dict, or a list of one
        start, identities, hands, reserve = self._parse_deal(scripted[0] if scripted else {})
        # §2.2: identity cards dealt at random, face up; with 3 players one is unused (A7)
        if identities is None:
            identities = [int(i) for i in rng.permutation(len(IDENTITY_CARDS))[:n]]
        if hands is None:
            cards = zone_types(zone_of(deck_counts(n)))
            order = rng.permutation(len(cards))
            hands = []
            for seat in range(n):
                hand = 0
                for i in order[seat * HAND_SIZE : (seat + 1) * HAND_SIZE]:
                    hand = add_card(hand, cards[i])
                hands.append(hand)
        if n == 3 and reserve is None:
            reserve = [RESERVE_TYPES[i] for i in rng.permutation(len(RESERVE_TYPES))]
        if start is None:
            start = int(rng.integers(n))  # A4: a random dealer holds the start marker
        self.history: list[int] = []
        self.deals: list[dict[str, Any]] = [self.deal_record(start, identities, hands, reserve)]
        self.identities = identities
        self.identity_suits = [IDENTITY_MASKS[i] for i in identities]
        self.hands = hands
        self.reserve = reserve or []  # face down, top first
        self.start_player = start
        self.trick_number = 1
        self.scores = [0.0] * n
        self.points_thirds = [0] * n  # exact scores, in thirds of a point (three_way_split='even')
        self.point_cards = [0] * n
        self.known = [0] * n  # cards each hand is publicly known to hold (kept, not played since)
        # public tallies of this game, one byte per card type, in rows of 30 bytes (the
        # encoder copies them as they are): row 0 counts the plays of every card; then per
        # seat s, row 1 + s its keeps, row 1 + n + s its plays, row 1 + 2n + s its kills
        self.tallies = 0
        self.last_trick: CompletedTrick | None = None  # the last completed trick (public)
        self.thirds_before = [0] * n  # points_thirds when the current trick began
        self.killed = 0  # every card killed this game (they are point cards now)
        self.reserve_drawn = 0  # reserve cards added to point cards (revealed)
        self.discard = 0  # the kept cards of the last trick (§2.4)
        self.is_over = False
        self.last_result = ""
        self._new_trick()

    def _parse_deal(
        self, deal: Mapping[str, Any]
    ) -> tuple[int | None, list[int] | None, list[int] | None, list[int] | None]:
        """Validate a scripted deal (CONTRACT §5) without touching any state."""
        n = self.num_players
        start = deal_seat(deal, "start_player", n)
        identities: list[int] | None = None
        if "identities" in deal:
            raw = deal_per_seat(deal, "identities", n, "identity cards")
            identities = []
            for seat, card in enumerate(raw):
                letters = (
                    "".join(sorted(str(s).strip().upper() for s in card))
                    if isinstance(card, (list, tuple, str))
                    else ""
                )
                match = [i for i, c in enumerate(IDENTITY_CARDS) if "".join(sorted(c)) == letters]
                if not match:
                    raise ValueError(
                        f"deal: seat {seat}'s identity {card!r} is not an identity card; the four "
                        f"cards are {', '.join(IDENTITY_CARDS)} (any order)"
                    )
                if match[0] in identities:
                    raise ValueError(f"deal: identity card {IDENTITY_CARDS[match[0]]} dealt twice")
                identities.append(match[0])
        available = deck_counts(n)
        hands: list[int] | None = None
        if "hands" in deal:
            raw = deal_per_seat(deal, "hands", n, "hands")
            hands = []
            used: dict[int, int] = {}
            for seat, hand in enumerate(raw):
                if not isinstance(hand, (list, tuple)) or len(hand) != HAND_SIZE:
                    got = len(hand) if isinstance(hand, (list, tuple)) else type(hand).__name__
                    raise ValueError(
                        f"deal: seat {seat} has {got} cards; every player is dealt {HAND_SIZE}"
                    )
                zone = 0
                for text in hand:
                    t = parse_card(str(text))
                    used[t] = used.get(t, 0) + 1
                    if used[t] > available[t]:
                        raise ValueError(
                            f"deal: card {card_str(t)} dealt {used[t]} times; the {n}-player deck "
                            f"has {available[t]}"
                        )
                    zone = add_card(zone, t)
                hands.append(zone)
        reserve: list[int] | None = None
        if "reserve" in deal:
            if n != 3:
                raise ValueError("deal: reserve is only for 3 players (4 players deal every card)")
            raw = deal["reserve"]
            if not isinstance(raw, (list, tuple)):
                raise ValueError("deal: reserve must be a list of cards, top first")
            reserve = [parse_card(str(text)) for text in raw]
            if sorted(reserve) != sorted(RESERVE_TYPES):
                raise ValueError(
                    "deal: the reserve must be exactly one 5 and one 7 of each suit (12 cards), "
                    f"got {' '.join(card_str(t) for t in reserve)}"
                )
        return start, identities, hands, reserve

    def deal_record(
        self, start: int, identities: Sequence[int], hands: Sequence[int],
        reserve: Sequence[int] | None,
    ) -> dict[str, Any]:
        """The deal in the scripted-deal format (the inverse of ``_parse_deal``)."""
        record: dict[str, Any] = {
            "start_player": int(start),
            "identities": [list(IDENTITY_CARDS[i]) for i in identities],
            "hands": [[card_str(t) for t in zone_types(h)] for h in hands],
        }
        if self.num_players == 3:
            record["reserve"] = [card_str(t) for t in reserve or ()]
        return record

    def _new_trick(self) -> None:
        self.trick: list[tuple[int, int]] = []  # (seat, type) in play order
        self.suit_totals = [0] * len(SUITS)
        self.trick_pool = 0  # trick cards not yet picked in keep/kill
        self.kept_now = [-1] * self.num_players
        self.killed_now = [-1] * self.num_players
        self.kill_order: list[int] = []
        self.winning_suits = 0
        self.winners: list[int] = []
        self.point_pool = 0
        self.draft_order: list[int] = []
        self.picks = 0  # keep/kill picks made this trick, or draft picks
        self._phase = PHASE_PLAY
        self.current_player = self.start_player

    # ---- state queries -----------------------------------------------------------------------
    @property
    def phase(self) -> str:
        return self._phase

    @property
    def keep_kill_pass(self) -> int:
        """1 or 2 during keep/kill (§2.3 Phase 3)."""
        return 1 if self.picks < self.num_players else 2

    def leaders(self, totals: list[int] | None = None) -> tuple[int, list[int]]:
        """(winning suits mask, scoring winners clockwise from the start player) for ``totals``
        (§2.3 Phase 2): the suits with the highest total win; the players whose identity card
        shows the most winning suits are the scoring winners."""
        totals = self.suit_totals if totals is None else totals
        best = max(totals)
        if best == 0:
            return 0, []
        won = 0
        for s in range(len(SUITS)):
            if totals[s] == best:
                won |= 1 << s
        n = self.num_players
        most, winners = 0, []
        for k in range(n):
            seat = (self.start_player + k) % n
            m = (self.identity_suits[seat] & won).bit_count()
            if m > most:
                most, winners = m, [seat]
            elif m == most:
                winners.append(seat)
        return won, winners

    def legal_actions(self) -> list[int]:
        if self._phase == PHASE_PLAY:
            zone = self.hands[self.current_player] & EVEN_BITS
            base = PLAY_BASE
        elif self._phase == PHASE_KEEP_KILL:
            zone = self.trick_pool & EVEN_BITS
            if self.picks >= self.num_players:
                # pass 2: the opposite status to this player's pass-1 card
                base = KILL_BASE if self.killed_now[self.current_player] < 0 else KEEP_BASE
            else:
                legal = []
                while zone:
                    low = zone & -zone
                    legal.append(KEEP_BASE + ((low.bit_length() - 1) >> 1))
                    zone ^= low
                return legal + [a + NUM_TYPES for a in legal]
        else:
            zone = self.point_pool & EVEN_BITS
            base = TAKE_BASE
        legal = []
        while zone:
            low = zone & -zone
            legal.append(base + ((low.bit_length() - 1) >> 1))
            zone ^= low
        return legal

    def _forced_action(self) -> int:
        """The only legal action, or -1 if the player to move has a real choice."""
        if self._phase == PHASE_PLAY:
            zone = self.hands[self.current_player] & EVEN_BITS
            base = PLAY_BASE
        elif self._phase == PHASE_KEEP_KILL:
            if self.picks < self.num_players:
                return -1
            zone = self.trick_pool & EVEN_BITS
            base = KILL_BASE if self.killed_now[self.current_player] < 0 else KEEP_BASE
        else:
            zone = self.point_pool & EVEN_BITS
            base = TAKE_BASE
        if zone & (zone - 1):
            return -1
        return base + ((zone.bit_length() - 1) >> 1)

    # ---- transitions --------------------------------------------------------------------------
    def apply(self, action: int) -> None:
        self.history.append(action)
        self._apply_one(action)
        # a decision with a single legal action is made for the player: it has no choice in it
        while not self.is_over:
            forced = self._forced_action()
            if forced < 0:
                return
            self._apply_one(forced)

    def _apply_one(self, action: int) -> None:
        seat = self.current_player
        n = self.num_players
        if self._phase == PHASE_PLAY:
            self.play(seat, action - PLAY_BASE)
            if len(self.trick) == 2 * n:
                self.resolve()
            else:
                self.current_player = (seat + 1) % n
        elif self._phase == PHASE_KEEP_KILL:
            if action < KILL_BASE:
                self.keep_or_kill(seat, action - KEEP_BASE, keep=True)
            else:
                self.keep_or_kill(seat, action - KILL_BASE, keep=False)
            self.picks += 1
            if self.picks == 2 * n:
                self.score_trick()
            else:
                self.current_player = (self.start_player + self.picks) % n
        else:
            self.take(seat, action - TAKE_BASE)

    def play(self, seat: int, t: int) -> None:
        """§2.3 Phase 1: any card from hand, face up; no suit to follow."""
        self.hands[seat] = remove_card(self.hands[seat], t)
        if self.known[seat] >> (2 * t) & 1:
            self.known[seat] = remove_card(self.known[seat], t)
        self.trick.append((seat, t))
        self.suit_totals[TYPE_SUIT[t]] += TYPE_VALUE[t]
        one = 1 << (8 * t)
        self.tallies += one + (one << (8 * NUM_TYPES * (1 + self.num_players + seat)))
        self.trick_pool = add_card(self.trick_pool, t)

    def resolve(self) -> None:
        """§2.3 Phase 2, then keep/kill starts with the start player."""
        self.winning_suits, self.winners = self.leaders()
        self._phase = PHASE_KEEP_KILL
        self.picks = 0
        self.current_player = self.start_player

    def keep_or_kill(self, seat: int, t: int, keep: bool) -> None:
        """§2.3 Phase 3: take one remaining trick card and keep it (face up) or kill it."""
        self.trick_pool = remove_card(self.trick_pool, t)
        if keep:
            self.kept_now[seat] = t
        else:
            self.killed_now[seat] = t
            self.kill_order.append(t)
            self.tallies += 1 << (8 * (NUM_TYPES * (1 + 2 * self.num_players + seat) + t))

    def score_trick(self) -> None:
        """Kept cards go to their owners' hands; the killed cards (and with 3 players the top
        reserve card) are the trick's 4 point cards, shared by the scoring winners."""
        n = self.num_players
        # §2.4: hands empty before keep/kill = the last trick (trick 11)
        last_trick = any(self.hands[s] == 0 for s in range(n))
        for seat in range(n):
            t = self.kept_now[seat]
            self.tallies += 1 << (8 * (NUM_TYPES * (1 + seat) + t))
            if last_trick:
                self.discard = add_card(self.discard, t)  # §2.4: the last kept cards are discarded
            else:
                self.hands[seat] = add_card(self.hands[seat], t)
                self.known[seat] = add_card(self.known[seat], t)
        cards = list(self.kill_order)
        for t in cards:
            self.killed = add_card(self.killed, t)
        if self.reserve:
            top = self.reserve.pop(0)
            self.reserve_drawn = add_card(self.reserve_drawn, top)
            cards.append(top)
        winners = self.winners
        order = snake_order(winners)
        self.last_result = (
            "won by " + "".join(SUITS[s] for s in range(len(SUITS)) if self.winning_suits >> s & 1)
            + ", scoring " + ", ".join(f"player_{w}" for w in winners)
        )
        if len(winners) == 3 and self.even_three_way:
            # A3 alternative: a third of the trick's points each; the cards only mark the points
            worth = sum(TYPE_VALUE[t] for t in cards) if self.face_value else POINTS_PER_TRICK
            for seat, t in zip(order, cards):
                self.point_cards[seat] = add_card(self.point_cards[seat], t)
            for seat in winners:
                self._score(seat, worth, thirds=True)
        elif self.face_value and self.draft and len(winners) > 1:
            # §2.5: the winners draft the point cards in snake order from the start player
            for t in cards:
                self.point_pool = add_card(self.point_pool, t)
            self.draft_order = order
            self.picks = 0
            self._phase = PHASE_DRAFT
            self.current_player = order[0]
            return
        else:
            if self.face_value and len(winners) > 1:
                cards = [cards[i] for i in self.rng.permutation(len(cards))]  # point_split='random'
            for seat, t in zip(order, cards):
                self.point_cards[seat] = add_card(self.point_cards[seat], t)
                self._score(seat, TYPE_VALUE[t] if self.face_value else 1)
        self._end_trick()

    def take(self, seat: int, t: int) -> None:
        """§2.5 draft: take one point card; it scores its face value."""
        self.point_pool = remove_card(self.point_pool, t)
        self.point_cards[seat] = add_card(self.point_cards[seat], t)
        self._score(seat, TYPE_VALUE[t])
        self.picks += 1
        if self.picks == len(self.draft_order):
            self._end_trick()
        else:
            self.current_player = self.draft_order[self.picks]

    def _score(self, seat: int, points: int, thirds: bool = False) -> None:
        self.points_thirds[seat] += points if thirds else 3 * points
        self.scores[seat] = self.points_thirds[seat] / 3

    def _end_trick(self) -> None:
        """§2.3 Next trick: if every hand holds 2 or more cards the start marker moves left."""
        n = self.num_players
        self.last_trick = CompletedTrick(
            tuple(self.trick), tuple(self.kept_now), tuple(self.killed_now), self.winning_suits,
            tuple(self.winners),
            tuple(a - b for a, b in zip(self.points_thirds, self.thirds_before)),
        )
        self.thirds_before = list(self.points_thirds)
        if any(self.hands[s].bit_count() < 2 for s in range(n)):
            self.is_over = True
            self.current_player = -1
            self._phase = PHASE_PLAY
            return
        self.trick_number += 1
        self.start_player = (self.start_player + 1) % n
        self._new_trick()

    def outcome(self) -> list[float]:
        # §2.4: highest total wins, ties share (interpretation); compared exactly in thirds
        return zero_sum_outcome([float(p) for p in self.points_thirds])

    # ---- notation ----------------------------------------------------------------------------
    def action_to_str(self, action: int) -> str:
        if not 0 <= action < NUM_ACTIONS:
            raise ValueError(f"action {action} is out of range 0..{NUM_ACTIONS - 1}")
        return f"{VERBS[action // NUM_TYPES]} {card_str(action % NUM_TYPES)}"

    # ---- copies and checks -------------------------------------------------------------------
    def card_locations(self) -> list[str]:
        zones = (
            self.hands + self.point_cards
            + [self.trick_pool, self.point_pool, self.discard] + self.reserve_zone()
        )
        cards: list[int] = []
        for zone in zones:
            cards.extend(zone_types(zone))
        # cards picked this trick and not yet moved (keep/kill is still in progress)
        if self._phase == PHASE_KEEP_KILL:
            cards.extend(t for t in self.kept_now if t >= 0)
            cards.extend(self.kill_order)
        return sorted(card_str(t) for t in cards)

    def reserve_zone(self) -> list[int]:
        zone = 0
        for t in self.reserve:
            zone = add_card(zone, t)
        return [zone]

    def resample_hidden(self, observer: int, rng: np.random.Generator) -> CahootsTricks:
        """Re-deal every card ``observer`` cannot see: the other players' hand cards that are not
        publicly known (kept cards stay with their keepers), and the order of the reserve."""
        twin = self.clone()
        hidden: list[int] = []
        sizes = {}
        for s in range(self.num_players):
            if s == observer:
                continue
            unknown = zone_types(self.hands[s])
            for t in zone_types(self.known[s]):
                unknown.remove(t)
            sizes[s] = len(unknown)
            hidden.extend(unknown)
            twin.hands[s] = self.known[s]
        order = rng.permutation(len(hidden))
        at = 0
        for s, size in sizes.items():
            for i in order[at : at + size]:
                twin.hands[s] = add_card(twin.hands[s], hidden[i])
            at += size
        twin.reserve = [self.reserve[i] for i in rng.permutation(len(self.reserve))]
        return twin
