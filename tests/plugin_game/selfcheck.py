"""Self-check of the High Card engine, text and bot (not a pytest file).

Run: ``.venv/bin/python -m tests.plugin_game.selfcheck [games_per_case]``.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from typing import Any

import numpy as np

from .rules import HAND_SIZE, HighCard, card_str, deal_record, parse_deal
from .spec import SPEC


def options(n: int, hands: int) -> dict[str, Any]:
    return HighCard.OPTIONS.resolve({"num_players": n, "hands": hands})


def observe(game: HighCard, seat: int) -> np.ndarray:
    out = np.zeros(SPEC.layout({"num_players": game.num_players}).size, np.float32)
    game.encode(seat, out)
    return out


def play_out(opts: dict[str, Any], seed: int, deal: Any = None,
             actions: list[int] | None = None) -> tuple[HighCard, list[int]]:
    game = SPEC.new_game(opts, np.random.default_rng(seed), deal)
    chooser = np.random.default_rng(seed + 1)
    taken: list[int] = []
    while not game.is_over:
        legal = game.legal_actions()
        a = actions[len(taken)] if actions is not None else int(chooser.choice(legal))
        assert a in legal
        game.apply(a)
        taken.append(a)
    return game, taken


def check_engine(n: int, hands: int, games: int) -> dict[str, int]:
    opts = options(n, hands)
    deck = Counter(HighCard.full_deck(opts))
    max_len = HighCard.max_game_length(opts)
    layout = SPEC.layout(opts)
    low, high = layout.bounds()
    text = SPEC.text
    rng = np.random.default_rng(1000 * n + hands)
    stats: Counter[str] = Counter()
    for g in range(games):
        game = SPEC.new_game(opts, np.random.default_rng(g), None)
        steps = 0
        while not game.is_over:
            legal = game.legal_actions()
            assert legal and legal == sorted(set(legal))
            for seat in range(n):
                obs = observe(game, seat)
                assert (obs >= low).all() and (obs <= high).all()
                view = text.seat_view(game, seat)
                assert max(len(line) for line in view.split("\n")) <= 80
            if rng.random() < 0.3:  # leak check: re-deal what an observer cannot see
                for observer in range(n):
                    before, view = observe(game, observer), text.seat_view(game, observer)
                    other = game.resample_hidden(observer, rng)
                    assert observe(other, observer).tobytes() == before.tobytes()
                    assert text.seat_view(other, observer) == view
                    assert Counter(other.card_locations()) == deck
                    if observer == game.current_player:
                        assert other.legal_actions() == legal
                    for s in range(n):
                        assert other.hands[s].bit_count() == game.hands[s].bit_count()
                        assert other._void_cards(s) & other.hands[s] == 0
                    stats["resampled"] += 1
                    stats["resample_changed"] += other.render() != game.render()
            if rng.random() < 0.1:  # clone independence
                twin = game.clone()
                snap = (game.render(), list(game.deals), game.scores[:], game.hand_scores[:],
                        json.dumps(game.rng.bit_generator.state))
                while not twin.is_over:
                    twin.apply(twin.legal_actions()[0])
                assert snap == (game.render(), list(game.deals), game.scores[:],
                                game.hand_scores[:], json.dumps(game.rng.bit_generator.state))
                stats["clones"] += 1
            prior = game.clone()
            game.apply(legal[int(rng.integers(len(legal)))])
            text.narrate(prior, game)
            steps += 1
            assert steps <= max_len
            assert Counter(game.card_locations()) == deck, "cards lost or duplicated"
        assert game.current_player == -1 and len(game.deals) == hands
        assert len(game.hand_scores) == hands and sum(game.scores) == HAND_SIZE * hands
        outcome = game.outcome()
        assert abs(sum(outcome)) < 1e-9
        stats["steps"] += steps
        stats["max_steps"] = max(stats["max_steps"], steps)
        text.final_summary(game, 0)
        # scripted deals reproduce the game: whole-game list, first hand only, JSON round trip
        _, actions = play_out(opts, g)
        ref, _ = play_out(opts, g)
        whole = json.loads(json.dumps(ref.deals))
        for deal in (whole, whole[0]):
            again, _ = play_out(opts, 10_000 + g, deal, actions if deal is whole else None)
            if deal is whole:
                assert again.deals == ref.deals and again.scores == ref.scores
            else:
                assert again.deals[0] == ref.deals[0]
        for rec in ref.deals:
            start, masks = parse_deal(rec, n)
            assert start is not None and masks is not None
            assert deal_record(start, masks) == rec
        stats["games"] += 1
    return dict(stats)


def check_bad_deals() -> list[str]:
    opts = options(2, 3)
    bad: list[Any] = [
        {"no_such_key": 1},
        {"hands": "not a list"},
        {"hands": [["??"]]},
        {"hands": [["1R", "2R", "3R"], ["4R", "5R", "6R", "1G"]]},
        {"hands": [["1R", "2R", "3R", "7R"], ["4R", "5R", "6R", "1G"]]},
        {"hands": [["1R", "2R", "3R", "4R"], ["4R", "5R", "6R", "1G"]]},
        {"start_player": 2},
        {"start_player": True},
        [{"start_player": 0}, {"start_player": 0}],
        [{}, {}, {}, {}],
        [{"start_player": 1}, {"hands": [["1R"]]}],
        "start_player",
    ]
    messages = []
    for deal in bad:
        try:
            SPEC.new_game(opts, np.random.default_rng(0), deal)
        except ValueError as err:
            messages.append(str(err))
        else:
            raise AssertionError(f"deal {deal!r} was accepted")
    # good partial deals
    g = SPEC.new_game(opts, np.random.default_rng(0), [{}, {"start_player": 1}])
    assert g.deals[0]["start_player"] == 0
    g = SPEC.new_game(opts, np.random.default_rng(0), [{}, {}, {"start_player": 0}])
    assert g.deals[0]["start_player"] == 0  # hand 3 starts two seats on: seat 0 again
    hands = [["1R", "2R", "3R", "4R"], ["5R", "6R", "1G", "2G"]]
    g = SPEC.new_game(opts, np.random.default_rng(0), {"hands": hands, "start_player": 1})
    assert g.deals == [{"start_player": 1, "hands": hands}] and g.current_player == 1
    assert g.legal_strings() == ["play 5R", "play 6R", "play 1G", "play 2G"]
    return messages


def bot_vs_random(n: int, games: int, hands: int = 1) -> float:
    """The bot's win share against random players (a win 1, a shared win 1/k, a full tie 1/n)."""
    opts = options(n, hands)
    bot = SPEC.bot(opts, seed=0)
    layout = SPEC.layout(opts)
    share = 0.0
    for g in range(games):
        game = SPEC.new_game(opts, np.random.default_rng(50_000 + g), None)
        chooser = np.random.default_rng(g)
        seat = g % n
        while not game.is_over:
            legal = game.legal_actions()
            if game.current_player == seat:
                obs = np.zeros(layout.size, np.float32)
                game.encode(seat, obs)
                mask = np.zeros(HighCard.num_actions(opts), np.int8)
                mask[legal] = 1
                a = bot.act(obs, mask)
                assert a in legal
            else:
                a = int(chooser.choice(legal))
            game.apply(a)
        outcome = game.outcome()
        if all(o == 0 for o in outcome):
            share += 1 / n
        elif outcome[seat] > 0:
            share += 1 / sum(o > 0 for o in outcome)
    return share / games


def main(argv: list[str]) -> None:
    games = int(argv[0]) if argv else 300
    assert SPEC.name == "high_card" and SPEC.env_id == "cahoots_envs/high_card-v0"
    assert "Version history" in SPEC.doc()
    for n in (2, 3):
        for hands in (1, 3):
            print(f"n={n} hands={hands}:", check_engine(n, hands, games))
    msgs = check_bad_deals()
    print(f"bad deals refused: {len(msgs)}")
    for m in msgs:
        print("  ", m)
    for n, hands, count in ((2, 1, 400), (2, 1, 4000), (2, 3, 400), (3, 1, 400), (3, 3, 400)):
        share = bot_vs_random(n, count, hands)
        print(f"bot vs random, {n}p, hands={hands}, {count} games: win share {share:.3f} "
              f"(random: {1 / n:.3f})")
    print("card notation sample:", [card_str(c) for c in (0, 5, 6, 17)])


if __name__ == "__main__":
    main(sys.argv[1:])
