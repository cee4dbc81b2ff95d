"""Scripted deals of Cahoots (competitive) and the protected env that plays them, shared by the
rule and public-history tests: deal builders, trick rows and the scenario facts."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from cahoots_envs import cahoots_tricks_v1
from cahoots_envs.games.cahoots_tricks.rules import (
    RESERVE_TYPES,
    SUITS,
    CahootsTricks,
    card_str,
    parse_card,
    zone_types,
)
from tests.scenario import run_table

IDENTITIES = [["S", "H", "R"], ["C", "H", "U"], ["C", "D", "R"], ["S", "D", "U"]]
RESERVE = [card_str(t) for t in RESERVE_TYPES]  # 5S 7S 5H 7H ... top first


def deck(n: int) -> Counter:
    cards = Counter(CahootsTricks.full_deck({"num_players": n}))
    if n == 3:
        cards.subtract(RESERVE)
    return +cards


def make_deal(cards: list[list[str]], n: int = 4, start_player: int = 0, **extra: Any) -> dict:
    """Each seat holds the cards given, filled up to 12 with the lowest cards left of the deck."""
    left = deck(n)
    for hand in cards:
        left.subtract(hand)
    assert min(left.values()) >= 0, "the scenario uses a card twice"
    rest = sorted(left.elements(), key=parse_card)
    hands = []
    for seat in range(n):
        given = list(cards[seat]) if seat < len(cards) else []
        need = 12 - len(given)
        hands.append(given + rest[:need])
        rest = rest[need:]
    deal = {"start_player": start_player, "identities": IDENTITIES[:n], "hands": hands}
    if n == 3:
        deal["reserve"] = RESERVE
    deal.update(extra)
    return deal


def new_env(deal: dict, **options: Any) -> Any:
    env = cahoots_tricks_v1.env(num_players=len(deal["hands"]), **options)
    env.reset(seed=0, options={"deal": deal})
    return env


def hand(env: Any, seat: int) -> list[str]:
    return [card_str(t) for t in zone_types(env.unwrapped.game.hands[seat])]


def suits(mask: int) -> str:
    return "".join(SUITS[k] for k in range(6) if mask >> k & 1)


FACTS = {
    "scores": lambda env, v: env.unwrapped.game.scores == pytest.approx(v),
    "winning_suits": lambda env, v: suits(env.unwrapped.game.winning_suits) == v,
    "winners": lambda env, v: env.unwrapped.game.winners == v,
    "hand_sizes": lambda env, v: [h.bit_count() for h in env.unwrapped.game.hands] == v,
    "start_player": lambda env, v: env.unwrapped.game.start_player == v,
    "trick_number": lambda env, v: env.unwrapped.game.trick_number == v,
}


def run(env: Any, table: list[tuple]) -> None:
    run_table(env, table, FACTS)


def plays(cards: list[str], start: int, n: int) -> list[tuple]:
    """The card-play rows of one trick: two laps from the start player."""
    return [((start + i) % n, f"play {c}") for i, c in enumerate(cards)]


def hands_for(cards: list[str], start: int, n: int) -> list[list[str]]:
    """The hands that hold exactly the cards each seat plays in ``cards``."""
    out: list[list[str]] = [[] for _ in range(n)]
    for i, c in enumerate(cards):
        out[(start + i) % n].append(c)
    return out
