"""Kansas City: The Trick-Taking Game — the rules, in the words of docs/rules/kansas_city.md.

Cards are ids 0..55: ``id = suit * 8 + (rank - 1)`` with suits A..G and ranks 1..8. Card sets are
int bitmasks. An upgraded card keeps its id (its printed face, known only to its owner) but lives
in ``upgraded[seat]`` and plays as a trump of its rank.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

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

PHASE_PASS, PHASE_PLAY, PHASE_UPGRADE = "pass", "play", "upgrade"
PHASES = (PHASE_PASS, PHASE_PLAY, PHASE_UPGRADE)

# pass actions index 3-subsets of the (sorted) hand by position
PASS_COMBOS = {n: list(itertools.combinations(range(n), PASS_SIZE)) for n in HAND_SIZE.values()}


# one shared string per card: deal records and notation reuse them instead of new strings
CARD_NAMES = tuple(f"{card % 8 + 1}{SUITS[card // 8]}" for card in range(DECK_SIZE))


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
    TITLE = "Kansas City: The Trick-Taking Game"
    PLAYER_COUNTS = (4, 5)
    DEFAULT_PLAYERS = 4
    OPTIONS = OptionSet(
        common_options((4, 5), 4)
        + (
            Option(
                "hands", 3, "hands in a game (§4.4): 3, or `'per_player'` for the longer game",
                int_range=(1, MAX_HANDS), choices=("per_player",), policy_may_differ=True,
            ),
        )
    )
    DEAL_KEYS = ("dealer", "hands", "set_aside")
    CLONED_LISTS = (
        "scores", "hands", "upgraded", "pending_pass", "passed", "received", "tricks_won",
        "fours_captured", "captured", "trumps_played", "trick", "upgrade_queue",
        "own_trumps_played",
    )
    CLONED_NESTED_LISTS = ("hand_scores",)
    TEST_VARIANTS = ({"hands": "per_player", "num_players": 5}, {"reward_mode": "points"})

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
        # every hand's deal validated before any state is built; the dealer rotates (K8)
        self._scripted = tuple(
            (dealer, None if hands is None else tuple(hands), set_aside)
            for dealer, hands, set_aside in parse_deals(deal, self.hands_total, self._parse_deal, n)
        )
        self.rng = rng
        self.scores = [0.0] * n
        self.hand_scores: list[list[int]] = []
        self.is_over = False
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
        self.trick: list[tuple[int, int, bool]] = []  # (seat, card id, played as trump)
        self.tricks_played = 0
        self.upgrade_queue: list[int] = []
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
        seat = self.current_player
        if self._phase == PHASE_PLAY:
            if action >= self.trump_base:
                rank = action - self.trump_base
                # a player holds at most one trump per rank (K3), so the rank names the card
                column = (self.upgraded[seat] >> rank) & 0x0101010101010101
                card = rank + (column & -column).bit_length() - 1
                self.upgraded[seat] &= ~(1 << card)
                self.trick.append((seat, card, True))
            else:
                card = action - self.play_base
                self.hands[seat] &= ~(1 << card)
                self.trick.append((seat, card, False))
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
        """Permute the suits of every card whose suit ``observer`` cannot see, rank by rank
        (ranks are public, §4.5): other players' hands, pending passes and upgraded cards, and
        trumps in the current trick played by others. Cards the observer passed stay put."""
        twin = self.clone()
        known = self.passed[observer] | self.pending_pass[observer]
        slots: list[tuple[str, int, int]] = []  # (zone, seat or trick index, card)
        for s in range(self.num_players):
            if s == observer:
                continue
            for zone in ("hands", "upgraded", "pending_pass"):
                for c in bits(getattr(self, zone)[s] & ~known):
                    slots.append((zone, s, c))
        for i, (s, c, is_trump) in enumerate(self.trick):
            if is_trump and s != observer and not known >> c & 1:
                slots.append(("trick", i, c))
        by_rank: dict[int, list[int]] = {}
        for k, (_, _, c) in enumerate(slots):
            by_rank.setdefault(c & 7, []).append(k)
        for zone, where, c in slots:
            if zone != "trick":
                getattr(twin, zone)[where] &= ~(1 << c)
        for idxs in by_rank.values():
            new_cards = [slots[k][2] for k in idxs]
            order = rng.permutation(len(new_cards))
            for k, j in zip(idxs, order):
                zone, where, _ = slots[k]
                card = new_cards[j]
                if zone == "trick":
                    seat, _, _ = twin.trick[where]
                    twin.trick[where] = (seat, card, True)
                else:
                    getattr(twin, zone)[where] |= 1 << card
        return twin
