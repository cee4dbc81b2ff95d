"""Scripted Texas Euchre deals and the protected env that plays them, shared by the rule,
rulebook and public-history tests: deal builders, scenario tables and their facts."""

from __future__ import annotations

from collections import Counter
from typing import Any

from cahoots_envs import texas_euchre_v1
from cahoots_envs.games.texas_euchre.rules import RANK_NAMES, SUITS, card_str
from tests.scenario import run_table

DECK = [r + s for r in RANK_NAMES for s in SUITS]  # sorted by card index


def make_deal(hands: list[list[str]], pile_top: list[str] = (), dealer: int = 0) -> dict:  # type: ignore[assignment]
    """A full scripted deal: the given hands, ``pile_top`` on top of the draw pile, and every
    other card below it in card-index order (two decks with 6 players)."""
    decks = 2 if len(hands) == 6 else 1
    rest = Counter(DECK * decks)
    rest.subtract(c for h in hands for c in h)
    rest.subtract(pile_top)
    assert min(rest.values()) >= 0, f"test deal places too many of {rest.most_common()[-1]}"
    below = [c for c in DECK for _ in range(rest[c])]
    return {"dealer": dealer, "hands": hands, "draw_pile": list(pile_top) + below}


def new_env(deal: dict, **options: Any) -> Any:
    env = texas_euchre_v1.env(num_players=len(deal["hands"]), **options)
    env.reset(seed=0, options={"deal": deal})
    return env


def hand(env: Any, seat: int) -> list[str]:
    return [card_str(c) for c in env.unwrapped.game.sorted_hand(seat)]


FACTS = {
    "hand": lambda env, v: hand(env, v[0]) == v[1],
    "stake_points": lambda env, v: env.unwrapped.game.stake_points == v,
    "pile": lambda env, v: len(env.unwrapped.game.draw_pile) == v,
    "tricks_won": lambda env, v: env.unwrapped.game.tricks_won == v,
    "scores": lambda env, v: env.unwrapped.game.scores == v,
    "round_points": lambda env, v: env.unwrapped.game.round_points[-1] == v,
}


def run(env: Any, table: list[tuple]) -> None:
    run_table(env, table, FACTS)


def thrown_round(
    final_hands: list[list[str]], stake_cards: list[str], dealer: int
) -> tuple[dict, list[tuple]]:
    """A deal and the draw-phase table of a round in which every player discards its stake card
    on its first turn and draws the last card of ``final_hands[seat]``; the first player throws
    down on its second turn and the others discard nothing on the final lap."""
    n = len(final_hands)
    first = (dealer + 1) % n
    order = [(first + k) % n for k in range(n)]
    hands = [h[:-1] + [stake_cards[s]] for s, h in enumerate(final_hands)]
    deal = make_deal(hands, [final_hands[s][-1] for s in order], dealer)
    table = [(s, f"discard {stake_cards[s]}") for s in order]
    table.append((first, "throw down", {"phase": "final_lap", "to_move": order[1]}))
    table += [(s, "discard none") for s in order[1:]]
    table[-1] = (order[-1], "discard none", {"phase": "play", "to_move": first})
    return deal, table


def trick_rows(leader: int, n: int, tricks: list[tuple[str, int]]) -> list[tuple]:
    """Rows for ``tricks``: (cards in play order from the leader, expected winner); the winner
    must lead the next trick."""
    rows: list[tuple] = []
    for k, (cards, winner) in enumerate(tricks):
        seats = [(leader + i) % n for i in range(n)]
        for i, (seat, card) in enumerate(zip(seats, cards.split())):
            last_of_round = k == len(tricks) - 1
            facts = {"to_move": winner} if i == n - 1 and not last_of_round else {}
            rows.append((seat, f"play {card}", facts))
        leader = winner
    return rows


# 4 players, dealer 3: seat 0 starts. The pile starts AC AD AH AS, then 5C 5D 5H 5S 6C ...
HANDS_4P = [
    ["2C", "3C", "4C", "QC", "KC"],
    ["2D", "3D", "4D", "QD", "KD"],
    ["2H", "3H", "4H", "QH", "KH"],
    ["2S", "3S", "4S", "QS", "KS"],
]
DEAL_4P = make_deal(HANDS_4P, ["AC", "AD", "AH", "AS"], dealer=3)
