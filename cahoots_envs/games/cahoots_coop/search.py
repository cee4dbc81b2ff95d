"""Decision-time search support for Cahoots (cooperative): the world sampler (core/search.py).

What a seat knows (§1.7): its own hand and every card it has drawn, every hand and draw with
``open_hands``, the piles and the whole play history (every action is public: the card and the
pile), the goals turned up (in the order they came up) and completed, the sizes of the hands, the
draw pile, the goal deck and the cards out of the game (``box``, only with scripted short draw
piles). Hidden: the other hands (unless open), the draw pile's contents and order, the ``box``,
and which unseen goals the goal deck holds, in which order.

``sample_world`` deals the unseen cards (two copies of each kind, less those on the piles and in
the hands the seat sees) at random to the hidden hands (their current sizes), the draw pile and
the box, with the hand of the seat to move holding a legal card (the game goes on, §1.6); then it
rebuilds each hidden hand's history backwards (before each of its plays that drew, the drawn card
is a random card of the hand after the draw; the card played goes back in), which is consistent
with every play by construction. The goal deck is a random ordered draw from the goals not yet
seen. The actions are the game's own history (all public).

With table talk the seat that must hold a legal card is the next to play (in a talk decision,
the seat after the one talking), and the true signals (``TRUE_SIGNALS``: "I have the right card
for that pile", "I can complete this goal") bind the hidden hands: a world is drawn again (its
hands' histories first, then the whole deal) until every true signal of a hidden seat holds of
that seat's hand when it was said, so the world replays legally (the signals are in its actions).
Opinions (wish, aim, avoid) bind nothing. The batched engine has no talk: on it a talk game's
world replays its plays alone and rolls out silently (``engine_options``, ``engine_actions``).
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from cahoots_envs.core.search import World
from cahoots_envs.games.cahoots_coop.bot import (
    COMPLETE_NOW,
    OWN_HAND,
    PROTECT,
    REACH_SCALE,
    STRAND,
    HeuristicPolicy,
)
from cahoots_envs.games.cahoots_coop.rules import (
    CARD_NAMES,
    COPIES,
    GOALS,
    KINDS,
    LOSS_NO_PLAY,
    MATCHES,
    NUM_GOAL_CARDS,
    PILES,
    TALK_BASE,
    TRUE_SIGNALS,
    VOCABULARIES,
    CahootsCoop,
    parse_card,
    signal_true,
)

__all__ = ["DEFAULTS", "FastBot", "engine_actions", "engine_options", "knowledge", "sample_world",
           "value", "worth_searching"]

# search the endgame: the prototype found whole-game search with few worlds worse than the bot,
# and the last laps (hands about to shrink) are where a rollout's look-ahead pays: stranding a
# teammate or running out of cards there ends the game. On the engine (2026-12-01, a team of
# three, 300 deals screened, docs/lab/search_coop_budgets.md):
# the window of 12 cards left to draw (6 before) and 4-6x the worlds and rollouts each paid on
# their own and more together (+0.06 beginner, +0.11 normal, paired by deal); the gate stays at
# 2 standard errors (1 paid a little alone but lost with these budgets, 3 lost)
ENDGAME_DRAW_PILE = 12
DEFAULTS: dict[str, Any] = {
    "worlds": 32,
    "max_worlds": 256,
    "max_rollouts": 4096,
    "max_candidates": 16,  # every decision: 4 cards x 4 piles at most
    "gate": 2.0,
}
# search over the heuristic rolls out on the engine under engine='auto': with the heuristic's
# rollouts in one kernel call (play_out, bot_batched.py) and the trusted loader reading the
# worlds' deals without building games, a decision costs 0.22-0.29 of the reference path's
# (docs/lab/search_engine_cost.md, 2026-12-01; 3.9-5.5x before, the bot deciding row by row in Python)
HEURISTIC_BATCHED = True

_CARD_INDEX = {name: k for k, name in enumerate(CARD_NAMES)}
_GOAL_IDS = tuple(g.id for g in GOALS)
_SEED_BOUND = 2**62
_FRESH = 0x5DEECE66D  # the world's own generator is seeded from the draw's seed, changed


def _parse(cards: list[str]) -> list[int]:
    return [_CARD_INDEX[c] if c in _CARD_INDEX else parse_card(c) for c in cards]


# ---- what the seat knows ---------------------------------------------------------------------
def _known_receipts(game: CahootsCoop, seat: int) -> tuple[list[int], list[list[int]], list[int]]:
    """(the seats whose hands ``seat`` sees, their dealt hands, the draws known to ``seat`` as a
    list by turn: the card, or -1 where another seat drew unseen). Draws happen on the first D
    turns, D = cards gone from the draw pile."""
    deal = game.deals[0]
    n = game.num_players
    seen = list(range(n)) if game.open_hands else [seat]
    hands = [_parse(deal["hands"][s]) if s in seen else [] for s in range(n)]
    drawn = len(deal["draw_pile"]) - len(game.draw_pile)
    pile = deal["draw_pile"]
    plays = game.plays
    draws = [_CARD_INDEX[pile[i]] if plays[i][0] in seen else -1 for i in range(drawn)]
    return seen, hands, draws


def knowledge(game: CahootsCoop, seat: int) -> tuple[Any, ...]:
    """Everything ``seat`` knows, canonical and hashable (see the module docstring)."""
    seen, hands, draws = _known_receipts(game, seat)
    deal = game.deals[0]
    revealed = game.num_goals - len(game.goal_deck)
    return (
        game.num_players, seat, game.open_hands, game.mode, game.num_goals,
        deal["start_player"], tuple(deal["piles"]), len(deal["draw_pile"]),
        tuple(game.history), game.talking, tuple(tuple(h) for h in hands), tuple(draws),
        tuple(deal["goals"][:revealed]), tuple(game.visible), tuple(game.completed),
        len(game.goal_deck), len(game.draw_pile), len(game.box),
        tuple(tuple(game.hands[s]) for s in seen), tuple(len(h) for h in game.hands),
        game.current_player, game.is_over, game.loss_reason, tuple(game.scores),
    )


def _shuffle(items: list[int], random01: Any) -> None:
    """Fisher-Yates with ``random01()`` floats (cheaper than ``random.shuffle``)."""
    for i in range(len(items) - 1, 0, -1):
        j = int(random01() * (i + 1))
        items[i], items[j] = items[j], items[i]


_WORLD_TRIES = 1000  # whole deals drawn at most for one world (true signals reject some)
_HISTORY_TRIES = 32  # a hidden hand's history drawn at most before its deal is drawn again


def _next_to_play(game: CahootsCoop) -> int:
    """The seat whose play comes next: the seat to move, or after a talk decision the next."""
    if game.talking:
        return (game.current_player + 1) % game.num_players
    return game.current_player


def _bound_signals(game: CahootsCoop, hidden: list[int]) -> dict[int, list[tuple[str, int]]]:
    """The true signals of hidden seats by the play they followed (index into ``plays``):
    (word, target)."""
    bound: dict[int, list[tuple[str, int]]] = {}
    words = VOCABULARIES[game.talk]
    for s, turn, word, target in game.signals:
        if word and s in hidden and words[word - 1][0] in TRUE_SIGNALS:
            bound.setdefault(turn - 1, []).append((words[word - 1][0], target))
    return bound


def _deal_hidden(game: CahootsCoop, seen: list[int], hidden: list[int], random01: Any,
                 ) -> tuple[dict[int, list[int]], list[int], list[int]]:
    """The unseen cards dealt to the hidden hands (the next to play holding a legal card, the
    loser none), the draw pile (its end the top) and the box."""
    mover = _next_to_play(game)
    hands = game.hands
    # the unseen cards: the deck less the piles (covered cards included) and the hands in view
    count = [COPIES - p for p in game.played]
    for s in seen:
        for k in hands[s]:
            count[k] -= 1
    pool = [k for k in range(KINDS) for _ in range(count[k])]
    sizes = [len(hands[s]) for s in hidden]
    top_mask = 0
    for t in game.tops:
        top_mask |= 1 << t
    # the seat to move holds a legal card (else the game would be over, §1.6); a seat that lost
    # for want of a play holds none
    loser = game.loser if game.is_over and game.loss_reason == LOSS_NO_PLAY else -1
    if loser in hidden:
        dead = [k for k in pool if not MATCHES[k] & top_mask]
        _shuffle(dead, random01)
        loser_hand = dead[: len(hands[loser])]
        for k in loser_hand:
            pool.remove(k)
        _shuffle(pool, random01)
        start = sum(sizes[: hidden.index(loser)])
        pool[start:start] = loser_hand
    else:
        _shuffle(pool, random01)
        if mover in hidden:
            at = hidden.index(mover)
            start = sum(sizes[:at])
            end = start + sizes[at]
            tries = 0
            while not any(MATCHES[k] & top_mask for k in pool[start:end]):
                tries += 1
                if tries < 64:  # rejection: exact, and a random hand rarely fails
                    _shuffle(pool, random01)
                    continue
                # (rare) swap a random legal card of the pool into the mover's hand
                fits = [i for i, k in enumerate(pool) if MATCHES[k] & top_mask]
                i = fits[int(random01() * len(fits))]
                pool[start], pool[i] = pool[i], pool[start]
    current: dict[int, list[int]] = {}
    at = 0
    for s, size in zip(hidden, sizes):
        current[s] = sorted(pool[at : at + size])
        at += size
    draw_size = len(game.draw_pile)
    draw_pile = pool[at : at + draw_size]  # the end of the list is the top
    box = sorted(pool[at + draw_size :])
    return current, draw_pile, box


def _histories(game: CahootsCoop, hidden: list[int], current: dict[int, list[int]],
               draws: list[int], bound: dict[int, list[tuple[str, int]]], random01: Any,
               ) -> tuple[dict[int, list[int]], list[int]] | None:
    """Each hidden hand's history, backwards from now: before a play that drew, the drawn card
    is a random card of the hand after the draw; the card played goes back into the hand. The
    dealt hidden hands and every draw; None if a true signal fails every try (``bound``)."""
    dealt: dict[int, list[int]] = {}
    if not hidden:
        return dealt, draws
    drawn = len(draws)
    turns: dict[int, list[int]] = {s: [] for s in hidden}
    for i, play in enumerate(game.plays):
        if play[0] in turns:
            turns[play[0]].append(i)
    plays = game.plays
    tops = _tops_after(game) if bound else []
    for s in hidden:
        for _ in range(_HISTORY_TRIES):
            hand = list(current[s])
            ok = True
            for i in reversed(turns[s]):
                # the hand after this play's draw said these
                if i in bound and not all(signal_true(word, target, hand, tops[i], game.satisfied)
                                          for word, target in bound[i]):
                    ok = False
                    break
                if i < drawn:
                    draws[i] = hand.pop(int(random01() * len(hand)))
                hand.append(plays[i][1])
            if ok:
                break
        else:
            return None
        hand.sort()
        dealt[s] = hand
    return dealt, draws


def _tops_after(game: CahootsCoop) -> list[list[int]]:
    """The pile tops after each play."""
    tops = [_CARD_INDEX[c] for c in game.deals[0]["piles"]]
    after = []
    for _, kind, pile, _, _ in game.plays:
        tops = list(tops)
        tops[pile] = kind
        after.append(tops)
    return after


def sample_world(game: CahootsCoop, seat: int, rng: np.random.Generator) -> World:
    """A world consistent with what ``seat`` knows, drawn with ``rng`` (module docstring)."""
    seed = int(rng.integers(_SEED_BOUND))
    random01 = random.Random(seed).random
    n = game.num_players
    seen, dealt, draws = _known_receipts(game, seat)
    hidden = [s for s in range(n) if s not in seen]
    bound = _bound_signals(game, hidden)
    for _ in range(_WORLD_TRIES):
        current, draw_pile, box = _deal_hidden(game, seen, hidden, random01)
        histories = _histories(game, hidden, current, list(draws), bound, random01)
        if histories is not None:
            break
    else:  # pragma: no cover - the true deal always qualifies; a draw this unlucky is not seen
        raise RuntimeError(f"no world consistent with the true signals found in {_WORLD_TRIES} "
                           "draws")
    for s, hand in histories[0].items():
        dealt[s] = hand
    draws = histories[1]
    # the goal deck: an ordered draw from the goals nobody has seen
    deck_size = len(game.goal_deck)
    deck: list[int] = []
    if deck_size:
        seen_goals = set(game.completed)
        seen_goals.update(game.visible)
        unseen_goals = [g for g in range(NUM_GOAL_CARDS) if g not in seen_goals]
        _shuffle(unseen_goals, random01)
        deck = unseen_goals[:deck_size]  # top first
    old = game.deals[0]
    names = CARD_NAMES
    deal = {
        "start_player": old["start_player"],
        "hands": [[names[k] for k in h] for h in dealt],
        "piles": list(old["piles"]),
        "draw_pile": [names[k] for k in draws] + [names[k] for k in reversed(draw_pile)],
        "goals": old["goals"][: game.num_goals - deck_size] + [_GOAL_IDS[g] for g in deck],
    }
    world = game.clone(rng=np.random.default_rng(seed ^ _FRESH))
    for s in hidden:
        world.hands[s] = current[s]
    world.draw_pile = draw_pile
    world.box = box
    world.goal_deck = deck[::-1]
    world.deals = [deal]
    return World(game=world, deals=[deal], actions=list(game.history))


# ---- the payoff -------------------------------------------------------------------------------
def engine_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """The options a world rolls out under on the batched engine, which has no table talk: the
    game's without talk. With talk the engine's rollouts are silent: from the searched play on,
    every seat plays the bot of the silent game (the signals said so far still shaped the world:
    it agrees with every true one). ``engine='reference'`` rolls out with talk (docs/search.md)."""
    return {**options, "talk": "none"}


def engine_actions(actions: Sequence[int]) -> list[int]:
    """A world's actions as the silent engine replays them: its plays (talk actions dropped)."""
    return [a for a in actions if a < TALK_BASE]


def value(game: CahootsCoop, seat: int) -> float:
    """The team's win (1) or loss (0) once the game is over. Cahoots is one hand, so search always
    rolls out to the end; before it, a rough estimate: the share of the goals completed."""
    if game.is_over:
        return game.outcome()[seat]
    return len(game.completed) / game.num_goals if game.num_goals else 0.0


def worth_searching(game: CahootsCoop, seat: int) -> bool:
    """The endgame only: at most ``ENDGAME_DRAW_PILE`` cards left to draw (a public count); a
    talk decision never (the blueprint's signal is played: rollouts score plays, not words)."""
    return not game.is_over and not game.talking and len(game.draw_pile) <= ENDGAME_DRAW_PILE


# ---- the fast bot -----------------------------------------------------------------------------
# The bot's reach term asks, for each goal showing, which card kinds complete it in one legal
# play. Goals are predicates on the multiset of the four tops, so the kinds that complete goal g
# when added to three tops {a, b, c} depend on that multiset alone; the kinds a play on pile p
# may use are those matching its top. ``_completers(mode, a, b, c)[g]`` is that kind mask, built
# once per multiset from the satisfied table (whose 28 entries for a + b + c + k are contiguous)
# and cached for every ordering of the three tops.
_TRIPLES = KINDS**3
PLACE = (KINDS**3, KINDS**2, KINDS, 1)  # the tops' code: sum of tops[p] * PLACE[p]
_COMPLETERS: dict[str, list[list[int] | None]] = {}


def _completers_row(table: list[int], cache: list[list[int] | None], a: int, b: int, c: int,
                    ) -> list[int]:
    """The per-goal kind masks for the tops a, b, c plus one more card (filled into ``cache``)."""
    x, y, z = sorted((a, b, c))
    key = (x * KINDS + y) * KINDS + z
    row = cache[key]
    if row is None:
        row = [0] * NUM_GOAL_CARDS
        start = key * KINDS
        for k, mask in enumerate(table[start : start + KINDS]):
            while mask:
                low = mask & -mask
                mask ^= low
                row[low.bit_length() - 1] |= 1 << k
        cache[key] = row
    cache[(a * KINDS + b) * KINDS + c] = row
    return row


def _cache_for(game: CahootsCoop) -> list[list[int] | None]:
    cache = _COMPLETERS.get(game.mode)
    if cache is None:
        cache = _COMPLETERS[game.mode] = [None] * _TRIPLES
    return cache


def _goal_kinds(table: list[int], cache: list[list[int] | None], tops: list[int],
                goals: list[int]) -> list[int]:
    """For each goal in ``goals``: the kinds that complete it in one legal play on ``tops``."""
    t0, t1, t2, t3 = tops
    rows = (
        cache[(t1 * KINDS + t2) * KINDS + t3] or _completers_row(table, cache, t1, t2, t3),
        cache[(t0 * KINDS + t2) * KINDS + t3] or _completers_row(table, cache, t0, t2, t3),
        cache[(t0 * KINDS + t1) * KINDS + t3] or _completers_row(table, cache, t0, t1, t3),
        cache[(t0 * KINDS + t1) * KINDS + t2] or _completers_row(table, cache, t0, t1, t2),
    )
    m0, m1, m2, m3 = MATCHES[t0], MATCHES[t1], MATCHES[t2], MATCHES[t3]
    r0, r1, r2, r3 = rows
    return [r0[g] & m0 | r1[g] & m1 | r2[g] & m2 | r3[g] & m3 for g in goals]


# 10 * (1 - exp(-w / REACH_SCALE)) by 2w (hidden hands: every weight is a multiple of 1/2), the
# same float the observation bot computes from w
_REACH_HALF = [10.0 * (1.0 - math.exp(-(i / 2) / REACH_SCALE)) for i in range(4 * KINDS + 1)]
_EPS = 1e-9


class FastBot:
    """``HeuristicPolicy`` read from the game state (what the seat to move may know: its hand,
    the hands with ``open_hands``, the piles, the goals showing and the public counts): the same
    scores from the same float operations, ties broken by ``rng`` exactly as the bot does (one
    ``integers(len(best))`` call when several moves tie), so a rollout with this bot plays the
    bot's game."""

    def __init__(self, options: Mapping[str, Any], seed: int | None = None) -> None:
        self.options = dict(options)
        self.num_players = int(self.options["num_players"])
        self.rng = np.random.default_rng(seed)

    def act_state(self, game: CahootsCoop) -> int:
        best = self.best_state(game)
        return best[int(self.rng.integers(len(best)))] if len(best) > 1 else best[0]

    def best_state(self, game: CahootsCoop) -> list[int]:
        """The bot's best moves (``HeuristicPolicy.best_actions``) in ``game``'s state."""
        legal = game.legal_actions()
        if len(legal) == 1:
            return legal
        if game.talking:
            return [_signal(game)]
        if game.num_players > 1 and not game.open_hands:
            if game.signals:
                return _best_hidden(game, legal, _protected(game), _next_hint(game))
            return _best_hidden(game, legal)
        return _best_general(game, legal)


def _protected(game: CahootsCoop) -> int:
    """Bit mask of the piles named by the other seats' latest signals (pile words), as
    ``HeuristicPolicy._protected`` reads them."""
    words = VOCABULARIES[game.talk]
    latest: dict[int, tuple[int, int]] = {}
    for s, _, word, target in game.signals:
        latest[s] = (word, target)
    mask = 0
    for s, (word, target) in latest.items():
        if s != game.current_player and word and words[word - 1][1] == "pile":
            mask |= 1 << target
    return mask


def _next_hint(game: CahootsCoop) -> int | None:
    """The kinds the next player's cards are among, as ``HeuristicPolicy._next_hint`` reads
    them from their latest signal (``say nothing`` in the last lap), or None."""
    n = game.num_players
    nxt = (game.current_player + 1) % n
    for s, at, word, _ in reversed(game.signals):
        if s == nxt:
            break
    else:
        return None
    since = game.plays[at:]
    if word or len(since) != n - 2:
        return None
    tops = list(game.tops)
    for _, _, pile, under, _ in reversed(since):
        tops[pile] = under
    live = 0
    for t in tops:
        live |= MATCHES[t]
    return ~live & ((1 << KINDS) - 1)


def _signal(game: CahootsCoop) -> int:
    """The bot's talk decision (``HeuristicPolicy._signal``): the pile of the lowest of its best
    plays on the tops now, named (``wish`` or ``have``); say nothing without a play."""
    tops = game.tops
    plays = [k * PILES + p for k in sorted(set(game.hands[game.current_player]))
             for p in range(PILES) if MATCHES[k] >> tops[p] & 1]
    if not plays:
        return TALK_BASE
    best = plays if len(plays) == 1 else _best_hidden(game, plays, _protected(game))
    return TALK_BASE + 1 + (PILES if game.talk == "dutch" else 0) + best[0] % PILES


def _best_hidden(game: CahootsCoop, legal: list[int], protect: int = 0,
                 hint: int | None = None) -> list[int]:
    """Hidden hands, two or more players: every weight is unseen[k] + my_hand[k] / 2, so twice
    it is a small int, a goal's weight a sum over bit planes and the reach term a table entry."""
    seat = game.current_player
    hands = game.hands
    hand = hands[seat]
    table = game.satisfied
    cache = _COMPLETERS.get(game.mode) or _cache_for(game)
    visible = 0
    for g in game.visible:
        if g >= 0:
            visible |= 1 << g
    # the unseen kinds as two bit planes, u = 2 - played - own: `one` (u >= 1), `two` (u = 2);
    # the own cards as `mine` (h >= 1), `pair` (h = 2)
    one = two = 0
    bit = 1
    on_piles = 0
    for p in game.played:
        if p == 0:
            two |= bit
        elif p == 1:
            one |= bit
        on_piles += p
        bit <<= 1
    one |= two
    mine = pair = 0
    for k in hand:
        bit = 1 << k
        if mine & bit:
            pair |= bit
        mine |= bit
        if two & bit:
            two ^= bit
        else:
            one ^= bit
    total = COPIES * KINDS - on_piles - len(hand)  # sum of unseen
    # twice the weight, 2u + h (0..4, u + h <= 2), as three bit planes: 1s, 2s and 4s
    p0 = mine & ~pair
    p1 = one & ~two | pair
    p2 = two
    next_size = len(hands[(seat + 1) % game.num_players])
    strand = next_size > 0 and total > 0
    among = -1  # the kinds the next player's cards may be (every kind without a hint)
    if hint is not None and (one & hint).bit_count() + (two & hint).bit_count():
        among = hint
    among_total = (one & among).bit_count() + (two & among).bit_count()
    goals_left = game.num_goals - len(game.completed)
    tops = game.tops
    t0, t1, t2, t3 = tops
    code0 = ((t0 * KINDS + t1) * KINDS + t2) * KINDS + t3
    best_score = -math.inf
    best: list[int] = []
    for action in legal:
        kind = action >> 2  # the action is kind * PILES + pile, PILES = 4
        pile = action & 3
        code = code0 + (kind - tops[pile]) * PLACE[pile]
        done = table[code] & visible
        count = done.bit_count()
        score = COMPLETE_NOW * count
        if done and done == visible and goals_left <= count:
            return [action]
        new_tops = list(tops)
        new_tops[pile] = kind
        a, b, c, d = new_tops
        goals = visible & ~done
        if goals:
            # the kinds that complete each goal left in one legal play: per pile, those that
            # complete it on the other three tops and match this pile's top
            r0 = cache[(b * KINDS + c) * KINDS + d] or _completers_row(table, cache, b, c, d)
            r1 = cache[(a * KINDS + c) * KINDS + d] or _completers_row(table, cache, a, c, d)
            r2 = cache[(a * KINDS + b) * KINDS + d] or _completers_row(table, cache, a, b, d)
            r3 = cache[(a * KINDS + b) * KINDS + c] or _completers_row(table, cache, a, b, c)
            m0, m1, m2, m3 = MATCHES[a], MATCHES[b], MATCHES[c], MATCHES[d]
            bit = 1 << kind
            reach = 0.0
            while goals:  # ascending goal order, as the bot sums
                low = goals & -goals
                goals ^= low
                g = low.bit_length() - 1
                km = r0[g] & m0 | r1[g] & m1 | r2[g] & m2 | r3[g] & m3
                if km:
                    # twice the weight of the kinds in km, the played card gone from the hand
                    w = (km & p0).bit_count() + 2 * (km & p1).bit_count() \
                        + 4 * (km & p2).bit_count() - (1 if km & bit else 0)
                    if w:
                        reach += _REACH_HALF[w]
            score += reach
        if strand:
            alive = MATCHES[a] | MATCHES[b] | MATCHES[c] | MATCHES[d]
            dead = (one & among & ~alive).bit_count() + (two & among & ~alive).bit_count()
            score -= STRAND * (dead / among_total) ** next_size
        if protect >> pile & 1 and not done:
            score -= PROTECT
        if score > best_score + _EPS:
            best_score = score
            best = [action]
        elif score > best_score - _EPS:
            best.append(action)
    return best


def _best_general(game: CahootsCoop, legal: list[int]) -> list[int]:
    """One player, or open hands: the bot's float weights, computed once per decision and patched
    for the card played (each kind's weight sums terms of that kind alone), each goal's weight
    summed over its kinds in ascending order, as the bot does."""
    seat = game.current_player
    n = game.num_players
    hands = game.hands
    table = game.satisfied
    cache = _cache_for(game)
    visible = 0
    goal_list = []
    for g in sorted(game.visible):
        if g >= 0:
            visible |= 1 << g
            goal_list.append(g)
    open_hands = game.open_hands and n > 1
    hand = [0] * KINDS
    for k in hands[seat]:
        hand[k] += 1
    others = [[0] * KINDS for _ in range(n - 1)]
    if open_hands:
        for rel in range(1, n):
            row = others[rel - 1]
            for k in hands[(seat + rel) % n]:
                row[k] += 1
    played = game.played
    unseen = [COPIES - hand[k] - played[k] - sum(o[k] for o in others) for k in range(KINDS)]
    next_size = len(hands[(seat + 1) % n])
    goals_left = game.num_goals - len(game.completed)
    draw_pile = len(game.draw_pile)

    def weight_of(k: int, mine: int, next_hand: list[int] | None) -> float:
        # HeuristicPolicy.best_actions' weight of kind k, in its order of operations
        w = 0.3 * unseen[k] if next_hand is not None else float(unseen[k])
        if next_hand is not None:
            w += 3.0 * next_hand[k]
        if n > 1:
            if open_hands:
                for other in others[1:]:
                    w += other[k]
            w += OWN_HAND * mine
        return w

    # the next hand: your own (after the play) with one player, the next seat's with open hands
    known_next = others[0] if open_hands else None
    base = [weight_of(k, hand[k], hand if n == 1 else known_next) for k in range(KINDS)]
    tops = game.tops
    best_score = -math.inf
    best: list[int] = []
    for action in legal:
        kind = action >> 2
        pile = action & 3
        new_tops = list(tops)
        new_tops[pile] = kind
        code = ((new_tops[0] * KINDS + new_tops[1]) * KINDS + new_tops[2]) * KINDS + new_tops[3]
        done = table[code] & visible
        score = COMPLETE_NOW * done.bit_count()
        if done and done == visible and goals_left <= done.bit_count():
            return [action]
        my_hand = list(hand)
        my_hand[kind] -= 1
        nxt = my_hand if n == 1 else known_next
        weight = list(base)
        weight[kind] = weight_of(kind, my_hand[kind], nxt)
        if visible & ~done:
            reach = 0.0
            for g, km in zip(goal_list, _goal_kinds(table, cache, new_tops, goal_list)):
                if km and not done >> g & 1:
                    w = 0.0  # the bot's sum: the kinds in ascending order (zero weights add 0.0)
                    while km:
                        low = km & -km
                        km ^= low
                        w += weight[low.bit_length() - 1]
                    if w:
                        reach += 10.0 * (1.0 - math.exp(-w / REACH_SCALE))
            score += reach
        score -= HeuristicPolicy._strand_risk(new_tops, nxt, n == 1 and draw_pile > 0, unseen,
                                              next_size)
        if score > best_score + _EPS:
            best_score = score
            best = [action]
        elif score > best_score - _EPS:
            best.append(action)
    return best
