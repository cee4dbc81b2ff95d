"""Kansas City: The Trick-Taking Game — the rules, in the words of docs/rules/kansas_city.md.

Cards are ids 0..55: ``id = suit * 8 + (rank - 1)`` with suits A..G and ranks 1..8. Card sets are
int bitmasks. An upgraded card keeps its id (its printed face, known only to its owner) but lives
in ``upgraded[seat]`` and plays as a trump of its rank.
"""

from __future__ import annotations

import itertools
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

SUITS = "ABCDEFG"
RANKS = 8
DECK_SIZE = 56
FULL_DECK = (1 << DECK_SIZE) - 1
PASS_SIZE = 3
SUIT_MASKS = [0xFF << (8 * s) for s in range(7)]
RANK_MASKS = [sum(1 << (s * 8 + r) for s in range(7)) for r in range(RANKS)]
FOURS = RANK_MASKS[3]
HAND_SIZE = {4: 14, 5: 11}
TRICK_LIMIT = {4: 3, 5: 2}  # 5 points per trick up to the limit (§4.4)
MAX_HANDS = 10

CARD_BACKS = ("ranks", "hidden")

PHASE_PASS, PHASE_PLAY, PHASE_UPGRADE = "pass", "play", "upgrade"
PHASES = (PHASE_PASS, PHASE_PLAY, PHASE_UPGRADE)

# pass actions index 3-subsets of the (sorted) hand by position
PASS_COMBOS = {n: list(itertools.combinations(range(n), PASS_SIZE)) for n in HAND_SIZE.values()}


# one shared string per card: deal records and notation reuse them instead of new strings
CARD_NAMES = tuple(f"{card % 8 + 1}{SUITS[card // 8]}" for card in range(DECK_SIZE))


# the names of the cards of suit ``s`` whose ranks are the bits of ``byte``: ``SUIT_BYTE_NAMES[s][byte]``
SUIT_BYTE_NAMES = tuple(tuple(tuple(CARD_NAMES[8 * s + r] for r in range(RANKS) if byte >> r & 1)
                              for byte in range(256)) for s in range(7))


def mask_names(mask: int) -> list[str]:
    """The names of the cards of a card mask, in card order."""
    names: list[str] = []
    for s in range(7):
        byte = mask >> (8 * s) & 255
        if byte:
            names.extend(SUIT_BYTE_NAMES[s][byte])
    return names


class MaskedDeal(dict):  # type: ignore[type-arg]
    """A deal record (a plain dict of the scripted-deal format to every reader) that keeps its
    hands as card masks too (``masks``), which a trusted batched engine reads instead of the
    names: the world sampler's records (``search._record``)."""

    __slots__ = ("masks",)

    masks: list[int]


def card_str(card: int) -> str:
    return CARD_NAMES[card]


def parse_card(text: str) -> int:
    text = text.strip().upper()
    if len(text) == 2 and text[0] in "12345678" and text[1] in SUITS:
        return SUITS.index(text[1]) * 8 + int(text[0]) - 1
    raise ValueError(f"unknown Kansas City card {text!r}: cards are a rank 1-8 and a suit A-G, e.g. 4B")


def ranks_of(mask: int) -> int:
    """8-bit mask of the ranks present in a card set."""
    mask |= mask >> 32  # fold the 7 suit bytes onto the lowest one
    mask |= mask >> 16
    mask |= mask >> 8
    return mask & 0xFF


def trick_points(tricks: int, num_players: int) -> int:
    """The scoring chart of §4.4 (without the 4s)."""
    limit = TRICK_LIMIT[num_players]
    if tricks <= limit:
        return 5 * tricks
    return 5 if tricks == limit + 1 else 0


def hands_in_game(options: Mapping[str, Any]) -> int:
    hands = options["hands"]
    return options["num_players"] if hands == "per_player" else int(hands)


class KansasCity(Game):
    NAME = "kansas_city"
    VERSION = 1
    VERSION_NOTES: ClassVar[dict[int, str]] = {
        1: "v1: the observation adds every public fact (per relative seat its known voids, the "
        "face cards and trump ranks it played this hand, the ranks it passed and its hand size; "
        "the last completed trick with its leader and winner; who leads next; no phase once the "
        "game is over), and the option `card_backs='hidden'` offers backs without ranks (K1)"
    }
    REPLAYS_FROM = 0  # the rules are those of v0
    TITLE = "Kansas City: The Trick-Taking Game"
    PHASES = PHASES
    PLAYER_COUNTS = (4, 5)
    DEFAULT_PLAYERS = 4
    OPTIONS = OptionSet(
        common_options((4, 5), 4)
        + (
            Option(
                "hands", 3, "hands in a game (§4.4): 3, or `'per_player'` for the longer game",
                int_range=(1, MAX_HANDS), choices=("per_player",), policy_may_differ=True,
            ),
            Option(
                "card_backs", "ranks",
                "what a card's back shows (K1): `'ranks'`: the trump symbol and the card's rank, "
                "so the ranks in every hand and in every pass are public (the printed game); "
                "`'hidden'`: the trump symbol only, so the ranks of others' cards in hand and of "
                "passes between others are private (trump ranks, plays, voids, hand sizes and "
                "captured 4s stay public)",
                choices=CARD_BACKS,
            ),
        )
    )
    DEAL_KEYS = ("dealer", "hands", "set_aside")
    CLONED_LISTS = (
        "scores", "hands", "upgraded", "pending_pass", "passed", "received", "tricks_won",
        "fours_captured", "captured", "trumps_played", "trick", "upgrade_queue",
        "own_trumps_played", "voids", "played_by",
    )
    CLONED_NESTED_LISTS = ("hand_scores",)
    TEST_VARIANTS = (
        {"hands": "per_player", "num_players": 5},
        {"reward_mode": "points"},
        {"num_players": 4, "card_backs": "hidden"},
        {"num_players": 5, "card_backs": "hidden", "hands": 2},
    )

    # ---- declared ---------------------------------------------------------------------------
    @classmethod
    def pass_actions(cls, num_players: int) -> int:
        return len(PASS_COMBOS[HAND_SIZE[num_players]])

    @classmethod
    def num_actions(cls, options: Mapping[str, Any]) -> int:
        return cls.pass_actions(options["num_players"]) + DECK_SIZE + RANKS + DECK_SIZE + 1

    @classmethod
    def max_game_length(cls, options: Mapping[str, Any]) -> int:
        n = options["num_players"]
        h = HAND_SIZE[n]
        return hands_in_game(options) * (n + h * n + (h - 1) * (n - 1))

    @classmethod
    def full_deck(cls, options: Mapping[str, Any]) -> list[str]:
        return sorted(card_str(c) for c in range(DECK_SIZE))

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
        self.play_base = self.pass_actions(n)
        self.trump_base = self.play_base + DECK_SIZE
        self.upgrade_base = self.trump_base + RANKS
        self.no_upgrade = self.upgrade_base + DECK_SIZE
        self.hands_total = hands_in_game(options)
        # K1's alternative: backs without ranks (the encoder and the seat view hide others' ranks)
        self.hidden_backs = options["card_backs"] == "hidden"
        # the last completed trick (seat, card, as trump) and its winner; kept into the next
        # hand's pass phase, until the next trick is completed
        self.last_trick: tuple[tuple[int, int, bool], ...] = ()
        self.last_winner = -1
        # every hand's deal validated before any state is built; the dealer rotates (K8)
        self._scripted = tuple(
            (dealer, None if hands is None else tuple(hands), set_aside)
            for dealer, hands, set_aside in parse_deals(deal, self.hands_total, self._parse_deal, n)
        )
        self.rng = rng
        self.scores = [0.0] * n
        self.hand_scores: list[list[int]] = []
        self.is_over = False
        self.history: list[int] = []
        self.deals: list[dict[str, Any]] = []
        dealt = self._scripted[0] if self._scripted else None
        dealer = dealt[0] if dealt and dealt[0] is not None else int(rng.integers(n))
        self.hand_number = 0
        self._start_hand(dealer, dealt[1] if dealt else None, dealt[2] if dealt else None)

    def _parse_deal(self, deal: Mapping[str, Any]) -> tuple[int | None, list[int] | None, int | None]:
        """Validate a scripted deal (CONTRACT §5) without touching any state."""
        n = self.num_players
        dealer = deal_seat(deal, "dealer", n)
        if "set_aside" in deal and n != 5:
            raise ValueError("deal: set_aside is only for 5 players (4 players deal every card)")
        hands: list[int] | None = None
        seen = 0
        if "hands" in deal:
            raw = deal_per_seat(deal, "hands", n, "hands")
            hands = []
            for seat, hand in enumerate(raw):
                if not isinstance(hand, (list, tuple)) or len(hand) != self.hand_size:
                    got = len(hand) if isinstance(hand, (list, tuple)) else type(hand).__name__
                    raise ValueError(
                        f"deal: seat {seat} has {got} cards; {n} players hold {self.hand_size} each"
                    )
                mask = 0
                for text in hand:
                    card = parse_card(str(text))
                    if seen >> card & 1:
                        raise ValueError(f"deal: card {card_str(card)} dealt twice (the deck has one of each)")
                    seen |= 1 << card
                    mask |= 1 << card
                hands.append(mask)
        set_aside: int | None = None
        if "set_aside" in deal:
            set_aside = parse_card(str(deal["set_aside"]))
            if seen >> set_aside & 1:
                raise ValueError(f"deal: set_aside {card_str(set_aside)} is also in a hand")
        return dealer, hands, set_aside

    def deal_record(self, dealer: int, hands: Sequence[int], set_aside: int) -> dict[str, Any]:
        """A hand as dealt (before passing) in the scripted-deal format: the inverse of
        ``_parse_deal`` (``set_aside`` is -1 with 4 players)."""
        record: dict[str, Any] = {
            "dealer": int(dealer),
            "hands": [[card_str(c) for c in bits(h)] for h in hands],
        }
        if set_aside >= 0:
            record["set_aside"] = card_str(set_aside)
        return record

    def _start_hand(
        self, dealer: int, hands: Sequence[int] | None, set_aside: int | None
    ) -> None:
        """§4.2: deal, then every player chooses 3 cards to pass left."""
        n = self.num_players
        self.dealer = dealer
        if hands is None:
            placed = 0 if set_aside is None else 1 << set_aside
            rest = [c for c in range(DECK_SIZE) if not placed >> c & 1]
            order = self.rng.permutation(len(rest))
            cards = [rest[i] for i in order]
            hands = []
            for seat in range(n):
                mask = 0
                for c in cards[seat * self.hand_size : (seat + 1) * self.hand_size]:
                    mask |= 1 << c
                hands.append(mask)
            if n == 5 and set_aside is None:
                set_aside = cards[-1]
        elif n == 5 and set_aside is None:
            dealt = 0
            for h in hands:
                dealt |= h
            set_aside = (FULL_DECK & ~dealt).bit_length() - 1
        self.hands = list(hands)
        self.set_aside = -1 if set_aside is None else set_aside
        self.deals.append(self.deal_record(dealer, self.hands, self.set_aside))
        self.upgraded = [0] * n
        self.pending_pass = [0] * n
        self.passed = [0] * n
        self.received = [0] * n
        self.tricks_won = [0] * n
        self.fours_captured = [0] * n
        self.captured = [0] * n
        self.played = 0  # face-up (non-upgraded) cards played this hand
        # upgraded cards each seat played this hand: the faces stay hidden from everyone else
        self.own_trumps_played = [0] * n
        self.trumps_played = [0] * RANKS
        # public history per seat: face cards played into completed tricks, and the suits it is
        # known to lack (it failed to follow them, K9), 7-bit masks
        self.played_by = [0] * n
        self.voids = [0] * n
        self.trick: list[tuple[int, int, bool]] = []  # (seat, card id, played as trump)
        self.tricks_played = 0
        self.upgrade_queue: list[int] = []
        self.trick_leader_next = (dealer + 1) % n  # K8: the dealer's left leads trick 1
        self._phase = PHASE_PASS
        self.passes_chosen = 0
        self.current_player = (dealer + 1) % n

    # ---- state queries -----------------------------------------------------------------------
    @property
    def phase(self) -> str:
        return self._phase

    def blocked_ranks(self) -> int:
        """Ranks of every unplayed upgraded trump on the table (§4.3, K2, K3)."""
        all_up = 0
        for m in self.upgraded:
            all_up |= m
        return ranks_of(all_up)

    def upgradable(self, seat: int) -> int:
        """Cards of ``seat`` that may be upgraded now."""
        blocked = self.blocked_ranks()
        hand = self.hands[seat]
        for r in bits(blocked):
            hand &= ~RANK_MASKS[r]
        return hand

    def playable(self, seat: int) -> tuple[int, int]:
        """(face cards, trump ranks) ``seat`` may play into the current trick (§4.3, K9)."""
        hand = self.hands[seat]
        trumps = ranks_of(self.upgraded[seat])
        if not self.trick:
            return hand, trumps
        _, led_card, led_trump = self.trick[0]
        if led_trump:
            return (0, trumps) if trumps else (hand, 0)
        follow = hand & SUIT_MASKS[led_card // 8]
        if follow:
            return follow, 0
        return hand, trumps

    def sorted_hand(self, seat: int) -> list[int]:
        return list(bits(self.hands[seat]))

    def legal_actions(self) -> list[int]:
        seat = self.current_player
        if self._phase == PHASE_PLAY:
            faces, trumps = self.playable(seat)
            base = self.play_base
            legal = [base + c for c in bits(faces)]
            tb = self.trump_base
            legal.extend(tb + r for r in bits(trumps))
            return legal
        if self._phase == PHASE_UPGRADE:
            ub = self.upgrade_base
            legal = [ub + c for c in bits(self.upgradable(seat))]
            legal.append(self.no_upgrade)
            return legal
        return list(range(self.play_base))

    # ---- transitions --------------------------------------------------------------------------
    def apply(self, action: int) -> None:
        self.history.append(action)
        seat = self.current_player
        if self._phase == PHASE_PLAY:
            trick = self.trick
            if action >= self.trump_base:
                rank = action - self.trump_base
                # a player holds at most one trump per rank (K3), so the rank names the card
                column = (self.upgraded[seat] >> rank) & 0x0101010101010101
                card = rank + (column & -column).bit_length() - 1
                self.upgraded[seat] &= ~(1 << card)
                is_trump = True
            else:
                card = action - self.play_base
                self.hands[seat] &= ~(1 << card)
                is_trump = False
            if trick and not trick[0][2]:
                led_suit = trick[0][1] >> 3
                if is_trump or card >> 3 != led_suit:
                    self.voids[seat] |= 1 << led_suit  # failed to follow: void for the hand (K9)
            trick.append((seat, card, is_trump))
            if len(self.trick) == self.num_players:
                self._finish_trick()
            else:
                self.current_player = (seat + 1) % self.num_players
        elif self._phase == PHASE_UPGRADE:
            if action != self.no_upgrade:
                card = action - self.upgrade_base
                self.hands[seat] &= ~(1 << card)
                self.upgraded[seat] |= 1 << card
            self._next_upgrader()
        else:
            self.choose_pass(seat, action)

    def choose_pass(self, seat: int, action: int) -> None:
        """§4.2 / K7: secret choices; the cards change hands once everyone has chosen."""
        hand = self.sorted_hand(seat)
        chosen = 0
        for pos in PASS_COMBOS[self.hand_size][action]:
            chosen |= 1 << hand[pos]
        self.hands[seat] &= ~chosen
        self.pending_pass[seat] = chosen
        self.passes_chosen += 1
        n = self.num_players
        if self.passes_chosen < n:
            self.current_player = (seat + 1) % n
            return
        for giver in range(n):
            receiver = (giver + 1) % n
            self.hands[receiver] |= self.pending_pass[giver]
            self.received[receiver] = self.pending_pass[giver]
            self.passed[giver] = self.pending_pass[giver]
        self.pending_pass = [0] * n
        self._phase = PHASE_PLAY
        self.current_player = (self.dealer + 1) % n  # K8: the dealer's left leads

    def trick_winner(self) -> int:
        """Highest trump if any trump was played, else the highest card of the led suit."""
        trumps = [(card & 7, seat) for seat, card, is_trump in self.trick if is_trump]
        if trumps:
            return max(trumps)[1]
        led_suit = self.trick[0][1] // 8
        return max((card & 7, seat) for seat, card, _ in self.trick if card // 8 == led_suit)[1]

    def _finish_trick(self) -> None:
        winner = self.trick_winner()
        cards = 0
        for seat, card, is_trump in self.trick:
            cards |= 1 << card
            if is_trump:
                self.own_trumps_played[seat] |= 1 << card
                self.trumps_played[card & 7] += 1
            else:
                self.played |= 1 << card
                self.played_by[seat] |= 1 << card
        self.last_trick = tuple(self.trick)
        self.last_winner = winner
        self.captured[winner] |= cards
        self.tricks_won[winner] += 1
        self.fours_captured[winner] += (cards & FOURS).bit_count()  # K6: upgraded 4s count
        self.trick = []
        self.tricks_played += 1
        if self.tricks_played == self.hand_size:
            self._score_hand()
            return
        # upgrade step: losers clockwise from the winner's left (§4.3, K4)
        n = self.num_players
        self.upgrade_queue = [(winner + k) % n for k in range(n - 1, 0, -1)]
        self.trick_leader_next = winner
        self._phase = PHASE_UPGRADE
        self._next_upgrader()

    def _next_upgrader(self) -> None:
        """Move to the next loser who has a card to upgrade; a player whose only option is
        'no upgrade' is not asked (the decision is forced)."""
        while self.upgrade_queue:
            seat = self.upgrade_queue.pop()
            if self.upgradable(seat):
                self.current_player = seat
                return
        self._phase = PHASE_PLAY
        self.current_player = self.trick_leader_next

    def _score_hand(self) -> None:
        n = self.num_players
        points = [
            trick_points(self.tricks_won[s], n) + 2 * self.fours_captured[s] for s in range(n)
        ]
        self.hand_scores.append(points)
        for s in range(n):
            self.scores[s] += points[s]
        self.hand_number += 1
        if self.hand_number == self.hands_total:
            self.is_over = True
            self.current_player = -1
            self._phase = PHASE_PLAY
            return
        # K8: the deal rotates clockwise; a whole-game deal scripts the hand
        scripted = self._scripted[self.hand_number] if self.hand_number < len(self._scripted) else None
        self._start_hand(
            (self.dealer + 1) % n, scripted[1] if scripted else None, scripted[2] if scripted else None
        )

    def outcome(self) -> list[float]:
        return zero_sum_outcome(self.scores)

    # ---- notation ----------------------------------------------------------------------------
    def action_to_str(self, action: int) -> str:
        if not 0 <= action <= self.no_upgrade:
            raise ValueError(f"action {action} is out of range 0..{self.no_upgrade}")
        if action < self.play_base:
            seat = self.current_player
            hand = self.sorted_hand(seat) if self._phase == PHASE_PASS and seat >= 0 else []
            combo = PASS_COMBOS[self.hand_size][action]
            if len(hand) == self.hand_size:
                return "pass " + " ".join(card_str(hand[p]) for p in combo)
            return f"pass #{action}"
        if action < self.trump_base:
            return f"play {card_str(action - self.play_base)}"
        if action < self.upgrade_base:
            return f"play {action - self.trump_base + 1}T"
        if action < self.no_upgrade:
            return f"upgrade {card_str(action - self.upgrade_base)}"
        return "no upgrade"

    # ---- copies and checks -------------------------------------------------------------------
    def card_locations(self) -> list[str]:
        cards: list[int] = []
        zones = self.hands + self.upgraded + self.pending_pass + self.captured
        for zone in zones:
            cards.extend(bits(zone))
        cards.extend(card for _, card, _ in self.trick)
        if self.set_aside >= 0:
            cards.append(self.set_aside)
        return sorted(card_str(c) for c in cards)

    def resample_hidden(self, observer: int, rng: np.random.Generator) -> KansasCity:
        """A copy in which every card whose face ``observer`` cannot see is re-dealt: others'
        hands and pending passes, their upgraded trumps, held or already played (in a finished
        trick, the last trick or the current one). The ranks of upgraded trumps are public, so
        those cards keep their rank; with ranked backs (§4.5) every card keeps its rank, with
        ``card_backs='hidden'`` a card in another hand may be replaced by any hidden card. A seat
        never receives a card of a suit it is known to lack (K9). Cards the observer passed stay
        put. The new faces are relabelled consistently everywhere (hands, trumps, passes, captured
        cards, tricks)."""
        twin = self.clone()
        mapping = self._relabelling(observer, rng)
        if not mapping:
            return twin

        def relabel(mask: int) -> int:
            moved = mask & hidden
            if not moved:
                return mask
            mask &= ~moved
            for c in bits(moved):
                mask |= 1 << mapping[c]
            return mask

        hidden = 0
        for c in mapping:
            hidden |= 1 << c
        for zone in ("hands", "upgraded", "pending_pass", "passed", "received", "captured",
                     "own_trumps_played"):
            setattr(twin, zone, [relabel(m) for m in getattr(twin, zone)])
        twin.trick = [(s, mapping.get(c, c), t) for s, c, t in twin.trick]
        if self.tricks_played:  # the last trick is this hand's (else the previous hand's)
            twin.last_trick = tuple((s, mapping.get(c, c), t) for s, c, t in twin.last_trick)
        return twin

    def _relabelling(self, observer: int, rng: np.random.Generator) -> dict[int, int]:
        """A new face for every card hidden from ``observer`` (see ``resample_hidden``): slots
        are filled most constrained first, each with a random card it allows; after a dead end
        the draw starts again, and after a few the cards stay where they are (the empty map)."""
        n = self.num_players
        known = self.passed[observer] | self.pending_pass[observer]
        # (card now there, cards allowed there)
        slots: list[tuple[int, int]] = []
        for s in range(n):
            if s == observer:
                continue
            lacking = 0
            for suit in bits(self.voids[s]):
                lacking |= SUIT_MASKS[suit]
            for c in bits((self.hands[s] | self.pending_pass[s]) & ~known):
                allowed = FULL_DECK if self.hidden_backs else RANK_MASKS[c & 7]
                slots.append((c, allowed & ~lacking))
            for c in bits((self.upgraded[s] | self.own_trumps_played[s]) & ~known):
                slots.append((c, RANK_MASKS[c & 7]))  # a trump: its rank is public
        for s, c, is_trump in self.trick:
            if is_trump and s != observer and not known >> c & 1:
                slots.append((c, RANK_MASKS[c & 7]))
        pool = 0
        for c, _ in slots:
            pool |= 1 << c
        slots.sort(key=lambda slot: (slot[1] & pool).bit_count())
        for _ in range(20):
            left = pool
            mapping: dict[int, int] = {}
            draws = rng.random(len(slots))
            for (c, allowed), x in zip(slots, draws):
                choice = left & allowed
                if not choice:
                    break
                options = list(bits(choice))
                new = options[int(x * len(options))]
                left &= ~(1 << new)
                mapping[c] = new
            else:
                return mapping
        return {}
