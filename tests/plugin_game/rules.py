"""High Card — the engine: a tiny trick-taking game for 2 or 3 players.

Deck: 3 suits (R, G, B) x ranks 1-6 = 18 cards, notation ``<rank><suit>`` (``5R``); a card's id
is ``suit * 6 + rank - 1``, so card sets are int bitmasks over 18 bits. Each hand deals 4 cards
to every seat from a shuffle; the rest is a face-down stock nobody sees and nobody uses. Follow
suit if able; the highest card of the led suit takes the trick (1 point); the winner leads next.
The option ``hands`` sets how many hands a game has; the highest total wins.

Only the shared layers (``cahoots_envs.core``) are used: this is what a third-party game looks
like.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from cahoots_envs.core.cards import bits, mask_of
from cahoots_envs.core.game import (
    Game,
    deal_per_seat,
    deal_seat,
    parse_deals,
    zero_sum_outcome,
)
from cahoots_envs.core.options import Option, OptionSet, common_options

SUITS = "RGB"
RANKS = 6
DECK_SIZE = len(SUITS) * RANKS  # 18
HAND_SIZE = 4
MAX_HANDS = 5
FULL_MASK = (1 << DECK_SIZE) - 1
SUIT_MASKS = tuple(((1 << RANKS) - 1) << (RANKS * s) for s in range(len(SUITS)))
PHASE_PLAY = "play"

# a parsed per-hand deal: (start_player or None, hands as id masks per seat or None)
ParsedDeal = tuple[int | None, tuple[int, ...] | None]


def suit_of(card: int) -> int:
    return card // RANKS


def rank_of(card: int) -> int:
    """The rank 1..6 of a card id."""
    return card % RANKS + 1


def card_str(card: int) -> str:
    return f"{rank_of(card)}{SUITS[suit_of(card)]}"


def cards_str(mask: int) -> str:
    """A card set in notation, by id (suit R first, then G, then B; ascending rank)."""
    return " ".join(card_str(c) for c in bits(mask)) or "-"


def parse_card(text: Any, where: str = "deal") -> int:
    t = text.strip().upper() if isinstance(text, str) else ""
    if len(t) == 2 and t[0] in "123456" and t[1] in SUITS:
        return SUITS.index(t[1]) * RANKS + int(t[0]) - 1
    raise ValueError(
        f"{where}: unknown High Card card {text!r}; cards are a rank 1-6 and a suit R, G or B, "
        "e.g. 5R"
    )


def parse_deal(deal: Mapping[str, Any], num_players: int, where: str = "deal") -> ParsedDeal:
    """Validate one hand's scripted deal without touching any state (CONTRACT §5).

    Keys: ``start_player`` (a seat) and ``hands`` (one list of 4 cards per seat); either may be
    left out. Returns the start player and the hands as card-id masks (``None`` where left out).
    The inverse of ``deal_record``."""
    if not isinstance(deal, Mapping):  # bad input is a ValueError (CONTRACT §5)
        keys = ", ".join(HighCard.DEAL_KEYS)
        raise ValueError(f"{where} must be a dict with keys {keys}")  # noqa: TRY004
    unknown = sorted(str(k) for k in set(deal) - set(HighCard.DEAL_KEYS))
    if unknown:
        raise ValueError(f"{where}: unknown deal key(s) {unknown}; high_card deals accept "
                         f"{', '.join(HighCard.DEAL_KEYS)}")
    try:
        start = deal_seat(deal, "start_player", num_players)
        if "hands" not in deal or deal["hands"] is None:
            return start, None
        raw = deal_per_seat(deal, "hands", num_players, f"hands of {HAND_SIZE} cards")
    except ValueError as err:  # the shared helpers say "deal:"; name the hand
        raise ValueError(str(err).replace("deal:", f"{where}:", 1)) from None
    used = 0
    masks = []
    for seat, hand in enumerate(raw):
        if isinstance(hand, str) or not isinstance(hand, (list, tuple)) or len(hand) != HAND_SIZE:
            got = f"{len(hand)} cards" if isinstance(hand, (list, tuple)) else repr(hand)
            raise ValueError(f"{where}: seat {seat} has {got}; every seat holds a list of "
                             f"{HAND_SIZE} cards, e.g. ['1R', '4G', '6G', '2B']")
        mask = 0
        for text in hand:
            card = parse_card(text, where)
            if (used | mask) >> card & 1:
                raise ValueError(f"{where}: {card_str(card)} is dealt twice (seat {seat}); the "
                                 f"deck has one of each of the {DECK_SIZE} cards")
            mask |= 1 << card
        used |= mask
        masks.append(mask)
    return start, tuple(masks)


def deal_record(start_player: int, hands: Sequence[int]) -> dict[str, Any]:
    """One hand's deal in the scripted-deal format (the exact inverse of ``parse_deal``)."""
    return {
        "start_player": int(start_player),
        "hands": [[card_str(c) for c in bits(mask)] for mask in hands],
    }


def trick_winner(trick: Sequence[tuple[int, int]]) -> int:
    """The seat that played the highest card of the led suit."""
    led = suit_of(trick[0][1])
    best_seat, best = trick[0]
    for seat, card in trick[1:]:
        if suit_of(card) == led and card > best:
            best_seat, best = seat, card
    return best_seat


class HighCard(Game):
    NAME = "high_card"
    TITLE = "High Card (test game)"
    PHASES = (PHASE_PLAY,)
    VERSION = 0
    PLAYER_COUNTS = (2, 3)
    DEFAULT_PLAYERS = 2
    OPTIONS = OptionSet(
        common_options((2, 3), 2)
        + (
            Option(
                "hands", 1,
                "number of hands in a game; hand k+1 is led first by the seat after hand k's "
                "first leader, and the highest total wins",
                int_range=(1, MAX_HANDS), policy_may_differ=True,
            ),
        )
    )
    DEAL_KEYS = ("start_player", "hands")
    CLONED_LISTS = ("hands", "trick", "tricks_won", "voids", "scores")
    CLONED_NESTED_LISTS = ("hand_scores",)
    TEST_VARIANTS = ({"hands": 3},)

    # ---- declared ---------------------------------------------------------------------------
    @classmethod
    def num_actions(cls, options: Mapping[str, Any]) -> int:
        return DECK_SIZE

    @classmethod
    def max_game_length(cls, options: Mapping[str, Any]) -> int:
        return int(options["hands"]) * int(options["num_players"]) * HAND_SIZE

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
        n = int(options["num_players"])
        num_hands = int(options["hands"])
        # validate every hand's deal before any state is built
        parsed = parse_deals(deal, num_hands, lambda d: parse_deal(d, n), n, "start_player")
        first = parsed[0][0] if parsed else None
        self.num_players = n
        self.num_hands = num_hands
        self.rng = rng
        self._scripted: tuple[ParsedDeal, ...] = tuple(parsed)
        self.scores: list[int] = [0] * n  # type: ignore[assignment]
        self.hand_scores: list[list[int]] = []  # tricks per seat of each finished hand
        self.tricks_done = 0  # tricks completed in the whole game
        self.deals: list[dict[str, Any]] = []
        self.is_over = False
        if first is None:
            first = int(rng.integers(n))
        self._start_hand(first)

    def _start_hand(self, leader: int) -> None:
        """Deal hand ``len(self.deals)`` (scripted where given, else from the RNG)."""
        n = self.num_players
        k = len(self.deals)
        scripted = self._scripted[k][1] if k < len(self._scripted) else None
        if scripted is None:
            order = self.rng.permutation(DECK_SIZE).tolist()
            hands = [mask_of(order[s * HAND_SIZE : (s + 1) * HAND_SIZE]) for s in range(n)]
        else:
            hands = list(scripted)
        dealt = 0
        for m in hands:
            dealt |= m
        self.hands = hands
        self.stock = FULL_MASK & ~dealt  # face down, never used
        self.first_leader = leader
        self.trick: list[tuple[int, int]] = []  # (seat, card id) in order of play
        self.taken = 0  # cards of the tricks completed this hand (public)
        self.tricks_won = [0] * n
        self.voids = [0] * n  # suits (bits) a seat has shown it lacks this hand (public)
        self.tricks_played = 0
        self.last_trick: tuple[tuple[int, int], ...] = ()
        self.last_winner = -1
        self.current_player = leader
        self.deals.append(deal_record(leader, hands))

    # ---- state queries -----------------------------------------------------------------------
    @property
    def phase(self) -> str:
        return PHASE_PLAY

    def led_suit(self) -> int:
        """The suit of the current trick (-1 before the lead)."""
        return suit_of(self.trick[0][1]) if self.trick else -1

    def played(self) -> int:
        """Every card played this hand (completed tricks and the current one)."""
        mask = self.taken
        for _, card in self.trick:
            mask |= 1 << card
        return mask

    def legal_actions(self) -> list[int]:
        hand = self.hands[self.current_player]
        if self.trick:
            follow = hand & SUIT_MASKS[self.led_suit()]
            if follow:
                return list(bits(follow))
        return list(bits(hand))

    # ---- transitions --------------------------------------------------------------------------
    def apply(self, action: int) -> None:
        seat = self.current_player
        card = int(action)
        n = self.num_players
        if self.trick and suit_of(card) != self.led_suit():
            self.voids[seat] |= 1 << self.led_suit()  # failed to follow: holds none of it
        self.hands[seat] &= ~(1 << card)
        self.trick.append((seat, card))
        if len(self.trick) < n:
            self.current_player = (seat + 1) % n
            return
        winner = trick_winner(self.trick)
        self.tricks_won[winner] += 1
        self.scores[winner] += 1
        self.taken = self.played()
        self.last_trick = tuple(self.trick)
        self.last_winner = winner
        self.trick = []
        self.tricks_played += 1
        self.tricks_done += 1
        if self.tricks_played < HAND_SIZE:
            self.current_player = winner
            return
        self.hand_scores.append(list(self.tricks_won))
        if len(self.hand_scores) == self.num_hands:
            self.is_over = True
            self.current_player = -1
            return
        self._start_hand((self.first_leader + 1) % n)

    def outcome(self) -> list[float]:
        return zero_sum_outcome([float(s) for s in self.scores])

    # ---- notation ----------------------------------------------------------------------------
    def action_to_str(self, action: int) -> str:
        if not 0 <= int(action) < DECK_SIZE:
            raise ValueError(f"action {action} is out of range 0..{DECK_SIZE - 1}")
        return f"play {card_str(int(action))}"

    # ---- copies and checks -------------------------------------------------------------------
    def card_locations(self) -> list[str]:
        cards = list(bits(self.stock)) + list(bits(self.taken)) + [c for _, c in self.trick]
        for hand in self.hands:
            cards.extend(bits(hand))
        return sorted(card_str(c) for c in cards)

    def resample_hidden(self, observer: int, rng: np.random.Generator) -> HighCard:
        """Re-deal the other seats' hands and the stock, keeping every hand's size and every
        void a seat has shown this hand (a seat that failed to follow a suit gets none of it).
        The observer's hand, the trick and the taken cards are what it sees."""
        twin = self.clone()
        others = [s for s in range(self.num_players) if s != observer]
        pool = list(bits(self.stock))
        for s in others:
            pool.extend(bits(self.hands[s]))
        sizes = [self.hands[s].bit_count() for s in others]
        allowed = [FULL_MASK & ~self._void_cards(s) for s in others]
        # exact uniform re-deal by rejection, else random valid swaps from the true deal
        for _ in range(50):
            order = rng.permutation(len(pool)).tolist()
            shuffled = [pool[i] for i in order]
            masks, at = [], 0
            for size in sizes:
                masks.append(mask_of(shuffled[at : at + size]))
                at += size
            if all(m & ~a == 0 for m, a in zip(masks, allowed)):
                break
        else:
            masks = self._swap_redeal(others, allowed, rng)
        hidden, dealt = self.stock, 0
        for s, m in zip(others, masks):
            hidden |= self.hands[s]
            dealt |= m
            twin.hands[s] = m
        twin.stock = hidden & ~dealt
        return twin

    def _void_cards(self, seat: int) -> int:
        mask = 0
        for suit in bits(self.voids[seat]):
            mask |= SUIT_MASKS[suit]
        return mask

    def _swap_redeal(self, others: list[int], allowed: list[int],
                     rng: np.random.Generator) -> list[int]:
        """Random swaps between hidden places (other hands and the stock, index ``len(others)``)
        that keep every void; starts from the true, consistent deal."""
        places = [self.hands[s] for s in others] + [self.stock]
        ok = allowed + [FULL_MASK]
        for _ in range(200):
            a, b = (int(x) for x in rng.choice(len(places), 2, replace=False))
            if not places[a] or not places[b]:
                continue
            ca = list(bits(places[a]))[int(rng.integers(places[a].bit_count()))]
            cb = list(bits(places[b]))[int(rng.integers(places[b].bit_count()))]
            if ok[a] >> cb & 1 and ok[b] >> ca & 1:
                places[a] ^= (1 << ca) | (1 << cb)
                places[b] ^= (1 << ca) | (1 << cb)
        return places[: len(others)]
