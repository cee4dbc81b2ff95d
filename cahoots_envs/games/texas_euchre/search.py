"""Texas Euchre's world sampler for decision-time search (see ``cahoots_envs/core/search.py``).

What a seat knows (A8): its own hand as dealt and every card it drew, every discard (the stakes
are face up, so each discard turn shows exactly which cards went), who threw down, every card
played to a trick, and the sizes of the other hands and of the draw pile. It never sees another
hand, the thrower's face-down hand, what anyone else drew, or the order of the draw pile.

Per round the hidden part is a set of *slots*: each other seat's dealt hand and the cards it
drew on each of its discard turns (pile positions), and the rest of the pile. The cards the seat
saw another seat discard or play were in that seat's slots, a discard in a slot filled before
that discard turn (dealt, or drawn on an earlier turn); every card the seat never saw (the
*unseen* cards) fills the remaining slots. Every such filling is a consistent deal and no
filling is likelier than another under a uniform deal, so the sampler draws one uniformly:

- the world's state only needs the unseen cards split between the other hands (sizes public)
  and the pile (its order): one shuffle (``sample_world``'s game);
- the history (``World.deals`` / ``World.actions``, every round so far) places each seat's seen
  cards earliest deadline first, each uniformly among the free slots it may take (the count of
  choices does not depend on earlier choices, so the placement is uniform), fills the other free
  slots with that seat's unseen cards (the current round: the ones the world's hand holds) and
  recomputes the other seats' discard actions, which name positions in the hand. It is built on
  first access from a seed drawn at sampling time, so a search that only plays the world's game
  never pays for it. What the batched engine replays to load a world (``rollout_history``) is
  cheaper: the rounds before the current one filled once per decision and shared by its worlds
  (no rollout reads their hidden cards: the scores, round points and dealer are public), then
  the world's current round.

Cards are handled by face: with two decks (6 players) both copies of a face look alike in every
observation, and a scripted deal names faces only.
"""

from __future__ import annotations

import math
import random
from bisect import bisect_left, insort
from collections.abc import Mapping
from functools import partial
from typing import Any

import numpy as np

from cahoots_envs.core.cards import bits
from cahoots_envs.core.search import History, LazyWorld, RolloutParts
from cahoots_envs.games.texas_euchre.bot import FINAL_LAP_LOW, LOW, THROW_HIGH
from cahoots_envs.games.texas_euchre.rules import (
    DECKS,
    FACES,
    HAND_SIZE,
    PHASE_DRAW,
    PHASE_FINAL_LAP,
    PHASE_PLAY,
    FaceDeal,
    TexasEuchre,
    face_str,
)

FACE_NAMES = tuple(face_str(f) for f in range(FACES))
DISCARD, THROW, PLAY = 0, 1, 2

# search settings: play decisions have at most H candidates and short rollouts (the rest of the
# round's tricks); draw turns are searched among at most H + 1 candidates (``candidates``: of the
# 2^H discards, those of the k lowest cards) and roll out to the end of the round
DEFAULTS: dict[str, Any] = {
    "worlds": 8,
    "max_worlds": 32,
    "max_rollouts": 192,
    "max_candidates": 8,
    "gate": 2.0,
}

# what plain ``search`` plays (core/search.py): the shipped network decides the moves search
# leaves alone and the default, the rule-based bot plays the rollouts. Over the heuristic
# blueprint on the same 500 deals against 3 heuristic bots (docs/lab/search_over_zoo.md): +0.204, 0.719 against 0.515.
# The every-seat network it was measured over, not today's zoo:texas_euchre (its expert-iteration
# stage): search over that one read -0.015 (-0.034 to +0.004) on the same 500 deals
# (docs/lab/texas_euchre_recipe.md), so the default kept its blueprint
DEFAULT_SEARCH = "search@rollout=heuristic:zoo:texas_euchre_every_seat"
# search over the heuristic rolls out on the engine under engine='auto': with the heuristic's
# rollouts in one kernel call (play_out) a decision costs 0.78-0.88 of the reference path's
# (docs/lab/search_engine_cost.md, 2026-12-01; 1.42x before, world loading dominating)
HEURISTIC_BATCHED = True

# the value model (see ``value``): per seat and round, points with this mean and spread (heuristic
# self-play: mean 9-22, sd 12-21 over the player counts and variants), refined by the game's own
# rounds so far with this weight in rounds of prior
PRIOR_MEAN, PRIOR_SD, PRIOR_ROUNDS = 15.0, 15.0, 2.0
# softmax temperature per standard deviation of the points still to come (fitted on heuristic
# self-play games: see tests/games/texas_euchre/test_search.py)
TEMPERATURE = 1.0
# the seed of the one filling of the earlier rounds' hidden cards that the rollout histories of
# a decision's worlds share (``_Problem.earlier``)
EARLIER_SEED = 0


# ---- the public record of each round -----------------------------------------------------------
class _Round:
    """One round replayed from its deal and actions: what happened, including the hidden parts
    (dealt hands, drawn cards); ``_Problem`` keeps only what one seat may know of it."""

    __slots__ = ("actions", "complete", "deal", "dealer", "end", "events", "init", "start")

    def __init__(self, deal: Mapping[str, Any], start: int) -> None:
        self.deal = deal
        self.start = start
        self.end = start
        self.dealer = 0
        self.init: tuple[tuple[int, ...], ...] = ()
        # (kind, seat, action, discarded or played faces, drawn faces)
        self.events: list[tuple[int, int, int, tuple[int, ...], tuple[int, ...]]] = []
        self.actions: list[int] = []
        self.complete = False


_ROUND_CACHE: dict[tuple[int, int], _Round] = {}
_REPLAY_RNG = np.random.default_rng(0)  # deals the (unused) round after a replayed one


def _faces(mask: int) -> tuple[int, ...]:
    return tuple(c >> 1 for c in bits(mask))


def _replay_round(game: TexasEuchre, deal: Mapping[str, Any], start: int) -> _Round:
    """Replay one round (from ``history[start]``) on a copy of the rules, reading each turn's
    discarded and drawn cards."""
    mini = game.clone(rng=_REPLAY_RNG)
    n = game.num_players
    mini.scores = [0] * n
    mini.round_points = []
    mini.tiebreak_rank = [0] * n
    mini.round_number = 0
    mini.is_over = False
    mini._scripted = ()
    mini.deals = []
    mini.history = []
    dealer, hands, pile = mini._parse_deal(deal)
    assert dealer is not None and hands is not None and pile is not None
    mini._start_round(dealer, hands, pile)
    rd = _Round(deal, start)
    rd.dealer = dealer
    rd.init = tuple(_faces(h) for h in hands)
    throw, base = mini.throw_action, mini.play_base
    history = game.history
    events = rd.events
    for i in range(start, len(history)):
        a = history[i]
        s = mini.current_player
        if a < throw:
            # read before the move: a discard that empties the pile may end the round
            hand = list(bits(mini.hands[s]))
            gone = tuple(hand[p] >> 1 for p in bits(a))
            pile = mini.draw_pile
            drawn = tuple(sorted(c >> 1 for c in pile[len(pile) - len(gone) :]))
            mini.apply(a)
            events.append((DISCARD, s, a, gone, drawn))
        elif a == throw:
            mini.apply(a)
            events.append((THROW, s, a, (), ()))
        else:
            mini.apply(a)
            events.append((PLAY, s, a, (a - base,), ()))
        if mini.round_number:
            rd.end = i + 1
            rd.complete = True
            break
    else:
        rd.end = len(history)
    rd.actions = list(history[start : rd.end])
    return rd


def _rounds(game: TexasEuchre) -> list[_Round]:
    """Every round so far; completed rounds come from a cache (keyed by the deal record, which is
    kept alive in the entry, and checked against the actions)."""
    history, out, start = game.history, [], 0
    for deal in game.deals:
        hit = _ROUND_CACHE.get((id(deal), start))
        if hit is not None and hit.deal is deal and history[start : hit.end] == hit.actions:
            rd = hit
        else:
            rd = _replay_round(game, deal, start)
            if rd.complete:
                if len(_ROUND_CACHE) > 4096:
                    _ROUND_CACHE.clear()
                _ROUND_CACHE[(id(deal), start)] = rd
        out.append(rd)
        start = rd.end
    return out


# ---- what one seat knows, as a sampling problem ----------------------------------------------------
class _RoundProblem:
    """One round as ``seat`` knows it: its own dealt hand and draws, every other seat's seen
    cards with their deadlines, the slot counts and the unseen cards."""

    __slots__ = ("actions", "dealer", "events", "free", "own_draws", "own_init", "pile_left",
                 "slots", "tokens", "unseen")

    def __init__(self, rd: _Round, seat: int, n: int, h: int, decks: int, deck_size: int) -> None:
        self.dealer = rd.dealer
        self.own_init = rd.init[seat]
        # public events: (kind, seat, action, faces shown, own draws)
        events = []
        slots = [h] * n  # slots filled so far per seat (dealt hand, then draws)
        tokens: list[list[tuple[int, int]]] = [[] for _ in range(n)]  # (slots allowed, face)
        own_draws: list[int] = []
        drawn_total = 0
        for kind, s, a, shown, drawn in rd.events:
            if kind == DISCARD:
                k = len(shown)
                if s == seat:
                    own_draws.extend(drawn)
                    events.append((kind, s, a, shown, drawn))
                else:
                    # the action names positions in a hand this seat cannot see: left out
                    tokens[s].extend((slots[s], f) for f in shown)
                    events.append((kind, s, -1, shown, ()))
                slots[s] += k
                drawn_total += k
            else:
                if kind == PLAY and s != seat:
                    tokens[s].append((-1, shown[0]))  # any slot: fixed below
                events.append((kind, s, a, shown, ()))
        for s in range(n):
            tokens[s] = sorted((slots[s] if at < 0 else at, f) for at, f in tokens[s])
        self.events = tuple(events)
        self.own_draws = tuple(own_draws)
        self.slots = slots
        self.tokens = tokens
        self.free = [slots[s] - len(tokens[s]) for s in range(n)]
        self.free[seat] = 0
        self.pile_left = deck_size - n * h - drawn_total
        counts = [decks] * FACES
        for f in self.own_init:
            counts[f] -= 1
        for f in own_draws:
            counts[f] -= 1
        for s in range(n):
            if s != seat:
                for _, f in tokens[s]:
                    counts[f] -= 1
        self.unseen = [f for f in range(FACES) for _ in range(counts[f])]
        self.actions = rd.actions

    def key(self, seat: int) -> tuple[Any, ...]:
        return (self.dealer, self.own_init, self.events)

    def history(self, seat: int, n: int, h: int, split: list[list[int]], pile: list[int],
                rnd: random.Random) -> tuple[dict[str, Any], list[int]]:
        """The round's deal and actions with ``split[s]`` the unseen cards of seat ``s``'s free
        slots and ``pile`` the undrawn pile (faces, top first)."""
        filled: list[list[int]] = []
        for s in range(n):
            if s == seat:
                filled.append([])
                continue
            size = self.slots[s]
            slot: list[int] = [-1] * size
            free = list(range(size))
            for allowed, f in self.tokens[s]:
                at = free.pop(int(rnd.random() * bisect_left(free, allowed)))
                slot[at] = f
            mine = list(split[s])
            rnd.shuffle(mine)
            for at, f in zip(free, mine):
                slot[at] = f
            filled.append(slot)
        hands = [sorted(self.own_init) if s == seat else sorted(filled[s][:h]) for s in range(n)]
        drawn_pile: list[int] = []
        ptr = [h] * n
        actions: list[int] = []
        own = iter(self.own_draws)
        for kind, s, a, shown, _ in self.events:
            if kind != DISCARD or s == seat:
                if kind == DISCARD:
                    drawn_pile.extend(next(own) for _ in shown)
                actions.append(a)
                continue
            hand = hands[s]
            subset = 0
            for f in set(shown):
                at = bisect_left(hand, f)
                for _ in range(shown.count(f)):
                    subset |= 1 << at
                    at += 1
            actions.append(subset)
            for f in shown:
                hand.remove(f)
            k = len(shown)
            new = filled[s][ptr[s] : ptr[s] + k]
            ptr[s] += k
            drawn_pile.extend(new)
            for f in new:
                insort(hand, f)
        drawn_pile.extend(pile)
        dealt = [sorted(self.own_init) if s == seat else sorted(filled[s][:h]) for s in range(n)]
        deal = FaceDeal(dealer=self.dealer,
                        hands=[[FACE_NAMES[f] for f in hand] for hand in dealt],
                        draw_pile=[FACE_NAMES[f] for f in drawn_pile])
        deal.faces = (dealt, drawn_pile)
        return deal, actions


class _Problem:
    __slots__ = ("_earlier", "game", "rounds", "seat")

    def __init__(self, game: TexasEuchre, seat: int) -> None:
        self.game = game  # kept alive so that its id, the cache key, is not reused
        self.seat = seat
        n, h = game.num_players, game.hand_size
        self.rounds = [_RoundProblem(rd, seat, n, h, game.decks, game.deck_size)
                       for rd in _rounds(game)]
        self._earlier: History | None = None

    def earlier(self) -> History:
        """The deals and actions of the rounds before the current one in one filling of their
        hidden cards (drawn once, seeded by ``EARLIER_SEED``: from what the seat knows alone),
        which every world's ``rollout_history`` shares."""
        if self._earlier is None:
            self._earlier = _fill_rounds(self.rounds[:-1], self.seat, self.game.num_players,
                                         self.game.hand_size, random.Random(EARLIER_SEED))
        return self._earlier


_PROBLEMS: dict[tuple[int, int, int, int], _Problem] = {}


def _problem(game: TexasEuchre, seat: int) -> _Problem:
    key = (id(game), len(game.history), id(game.deals[-1]), seat)
    p = _PROBLEMS.get(key)
    if p is None or p.game is not game:
        if len(_PROBLEMS) > 64:
            _PROBLEMS.clear()
        p = _PROBLEMS[key] = _Problem(game, seat)
    return p


def hand_start(game: TexasEuchre) -> int:
    """How many actions the game had before the current round's deal (public): a world's
    actions from there on are the current round's (``core/search.py``)."""
    return _rounds(game)[-1].start


def knowledge(game: TexasEuchre, seat: int) -> tuple[Any, ...]:
    """Per round: the dealer, the seat's dealt hand and every public event (discards with their
    cards, the seat's own draws, the throw down, plays), as faces."""
    p = _problem(game, seat)
    return (seat, tuple(r.key(seat) for r in p.rounds))


# ---- worlds ----------------------------------------------------------------------------------------
def _fill_rounds(rounds: list[_RoundProblem], seat: int, n: int, h: int, rnd: random.Random,
                 ) -> History:
    """The deals and actions of finished ``rounds``, their unseen cards shuffled with ``rnd``."""
    deals: list[dict[str, Any]] = []
    actions: list[int] = []
    for rp in rounds:
        cards = list(rp.unseen)
        rnd.shuffle(cards)
        split, at = [], 0
        for s in range(n):
            split.append(cards[at : at + rp.free[s]])
            at += rp.free[s]
        deal, acts = rp.history(seat, n, h, split, cards[at:], rnd)
        deals.append(deal)
        actions.extend(acts)
    return deals, actions


def _current_round(world: TexasEuchre, problem: _Problem, rnd: random.Random,
                   ) -> tuple[dict[str, Any], list[int]]:
    """The current round's deal and actions, the unseen cards as the world's state holds them."""
    seat, n = problem.seat, world.num_players
    split = [[] if s == seat else list(_faces(world.hands[s])) for s in range(n)]
    pile = [c >> 1 for c in reversed(world.draw_pile)]
    return problem.rounds[-1].history(seat, n, world.hand_size, split, pile, rnd)


def _build_history(world: TexasEuchre, problem: _Problem, seed: int) -> History:
    """The world's whole history, every round's hidden cards its own."""
    rnd = random.Random(seed)
    deals, actions = _fill_rounds(problem.rounds[:-1], problem.seat, world.num_players,
                                  world.hand_size, rnd)
    deal, acts = _current_round(world, problem, rnd)
    return [*deals, deal], [*actions, *acts]


def _rollout_parts(world: TexasEuchre, problem: _Problem, seed: int) -> RolloutParts:
    """The earlier rounds as the decision's problem fills them for every world
    (``_Problem.earlier``: the same lists in every world), then this world's current round: a
    rollout plays only the current round and reads nothing of the earlier ones' hidden cards
    (the scores, round points and dealer are public), so the engine loads the same state for a
    third of the work (measured), and replays the shared rounds once a decision
    (``RolloutParts``)."""
    deal, acts = _current_round(world, problem, random.Random(seed))
    return RolloutParts(problem.earlier(), deal, acts)


def sample_world(game: TexasEuchre, seat: int, rng: np.random.Generator) -> LazyWorld:
    """A world drawn uniformly among the deals consistent with what ``seat`` knows (module
    docstring); its game gets a fresh generator drawn from ``rng``."""
    problem = _problem(game, seat)
    n = game.num_players
    seen = game.hands[seat] | game.played
    for st in game.stakes:
        seen |= st
    hidden = list(bits(_full_mask(game.decks) & ~seen))
    # one draw from ``rng`` seeds a fast generator for the shuffle, the world's own generator
    # and the history
    rnd = random.Random(int(rng.bit_generator.random_raw()))
    rand = rnd.random
    hidden = [c for _, c in sorted([(rand(), c) for c in hidden])]  # a uniform shuffle
    world = game.clone(rng=np.random.default_rng(rnd.getrandbits(63)))
    hands = world.hands
    at = 0
    h = game.hand_size
    for s in range(n):
        if s == seat:
            continue
        k = h - game.played_by[s].bit_count()
        mask = 0
        for c in hidden[at : at + k]:
            mask |= 1 << c
        hands[s] = mask
        at += k
    world.draw_pile = hidden[at:]
    seed = rnd.getrandbits(63)
    return LazyWorld(world, partial(_build_history, world, problem, seed),
                     parts=partial(_rollout_parts, world, problem, seed))


_FULL: dict[int, int] = {}


def _full_mask(decks: int) -> int:
    m = _FULL.get(decks)
    if m is None:
        m = _FULL[decks] = sum(1 << c for c in range(2 * FACES) if (c & 1) < decks)
    return m


# ---- the fast bot ----------------------------------------------------------------------------------
# the observation holds stake points / 100 as float32: the bot's comparisons see those values
_STAKE_F32 = [float(np.float32(p / 100.0)) for p in range(4096)]


def _stake(p: int) -> float:
    return _STAKE_F32[p] if p < 4096 else float(np.float32(p / 100.0))


class FastBot:
    """``HeuristicPolicy`` (bot.py) read from the game state: the same choice, deterministic (the
    bot breaks ties by card order). Reads the seat's own hand and public facts only."""

    def __init__(self, options: Mapping[str, Any], seed: int | None = None) -> None:
        n = int(options["num_players"])
        self.num_players = n
        self.hand_size = HAND_SIZE[n]
        self.throw_action = 1 << self.hand_size
        self.play_base = self.throw_action + 1
        self.reverse = bool(options.get("reverse", False))
        self.full = _full_mask(DECKS[n])
        self.rng = np.random.default_rng(seed)  # never drawn from: the bot has no ties

    def act_state(self, game: TexasEuchre) -> int:
        seat = game.current_player
        hand = [c >> 1 for c in bits(game.hands[seat])]
        phase = game._phase
        if phase == PHASE_PLAY:
            return self.play_base + self._play(game, seat, hand)
        ranks = [f >> 2 for f in hand]
        if phase == PHASE_DRAW and self._strong(game, seat, ranks):
            return self.throw_action
        low = FINAL_LAP_LOW if phase == PHASE_FINAL_LAP else LOW
        k = sum(r < low for r in ranks)
        hi = min(self.hand_size, len(game.draw_pile))
        lo = 0 if phase == PHASE_FINAL_LAP or hi == 0 else 1
        j = min(k, hi) if k >= lo else lo
        return (1 << j) - 1

    def _strong(self, game: TexasEuchre, seat: int, ranks: list[int]) -> bool:
        high = sum(r >= THROW_HIGH for r in ranks)
        if min(ranks) < LOW or high < len(ranks) - 2:
            return False
        if high >= len(ranks) - 1:
            return True
        points = game.stake_points
        others = min(_stake(points[s]) for s in range(self.num_players) if s != seat)
        return others > 2 * _stake(points[seat]) + 0.2

    def _play(self, game: TexasEuchre, seat: int, hand: list[int]) -> int:
        trick = game.trick
        table = [card >> 3 for _, card in trick]
        if self.reverse:
            if not table:
                return hand[-1]
            lowest = min(table)
            for f in hand:
                if f >> 2 > lowest:
                    return f
            return hand[-1]
        best = max(table) if table else -1
        if len(trick) == self.num_players - 1:
            for f in hand:
                if f >> 2 >= best:
                    return f
            return hand[0]
        known = game.hands[seat] | game.played
        for st in game.stakes:
            known |= st
        unseen = self.full & ~known
        top = (unseen.bit_length() - 1) >> 3 if unseen else -1
        floor = max(best, top + 1)
        for f in hand:
            if f >> 2 >= floor:
                return f
        return hand[0]


# ---- value and gating ------------------------------------------------------------------------------
def value(game: TexasEuchre, seat: int) -> float:
    """``outcome()[seat]`` once the game is over. Between rounds: every seat's points still to
    come are modelled as independent with a per-round mean and spread (a prior refined by the
    game's own rounds), over the rounds expected until someone reaches the target; the chance of
    ending lowest is a softmax of the negated totals (ties: the FAQ 6 rank, as a fraction of a
    point) with a temperature proportional to the spread still to come. The expected payoff of a
    win chance p is (n p - 1) / (n - 1) (``zero_sum_outcome``: a winner +1, a loser -1/(n-1))."""
    if game.is_over:
        return game.outcome()[seat]
    n = game.num_players
    past = game.round_points
    k = len(past) * n
    total = sum(sum(r) for r in past)
    squares = sum(x * x for r in past for x in r)
    w = PRIOR_ROUNDS * n
    mean = (PRIOR_MEAN * w + total) / (w + k)
    var = (PRIOR_SD**2 + PRIOR_MEAN**2) * w / (w + k) + squares / (w + k) - mean * mean
    sd = math.sqrt(max(var, 1.0))
    scores = game.scores
    # the seat that crosses first gains about mean + sd a round
    rounds = max(1.0, (game.target_score - max(scores)) / (mean + sd))
    temp = TEMPERATURE * sd * math.sqrt(rounds)
    rank = game.tiebreak_rank
    keys = [-(scores[s] + 0.5 * rank[s] / n) / temp for s in range(n)]
    top = max(keys)
    weights = [math.exp(x - top) for x in keys]
    p = weights[seat] / sum(weights)
    return (n * p - 1.0) / (n - 1)


def values_between_rounds(seats: np.ndarray, scores: np.ndarray, ranks: np.ndarray,
                          rounds_played: np.ndarray, total: np.ndarray, squares: np.ndarray,
                          target: int) -> np.ndarray:
    """``value`` of many positions between rounds at once (the batched engine's boundary
    values): row ``k`` is seat ``seats[k]`` with the scores ``scores[k]`` and the tie-break
    ranks ``ranks[k]`` (one entry per seat), after ``rounds_played[k]`` rounds whose points sum
    to ``total[k]`` with squares summing to ``squares[k]``. The same formula, in float64."""
    n = scores.shape[1]
    k = rounds_played * n
    w = PRIOR_ROUNDS * n
    mean = (PRIOR_MEAN * w + total) / (w + k)
    var = (PRIOR_SD**2 + PRIOR_MEAN**2) * w / (w + k) + squares / (w + k) - mean * mean
    sd = np.sqrt(np.maximum(var, 1.0))
    rounds = np.maximum(1.0, (target - scores.max(axis=1)) / (mean + sd))
    temp = TEMPERATURE * sd * np.sqrt(rounds)
    keys = -(scores + 0.5 * ranks / n) / temp[:, None]
    weights = np.exp(keys - keys.max(axis=1, keepdims=True))
    p = weights[np.arange(len(seats)), seats] / weights.sum(axis=1)
    return (n * p - 1.0) / (n - 1)  # type: ignore[no-any-return]


def worth_searching(game: TexasEuchre, seat: int) -> bool:
    """Every decision: tricks (at most H candidates) and draw turns (searched among
    ``candidates``: at most H + 1)."""
    return True


def candidates(options: Mapping[str, Any], legal: list[int], blueprint_move: int) -> list[int]:
    """The moves a search compares among ``legal`` (ascending): every card at a trick; at a
    draw turn the throw down, the discards of the k lowest cards for each k allowed (the hand's
    positions are in rank order; the action ``(1 << k) - 1``) and the blueprint's move. Those
    discards are the ones the heuristic chooses among, and a discard of the k lowest cards keeps
    the higher cards for the tricks and adds the least to the stake: the other 2^H - H - 1
    subsets are not searched."""
    throw = 1 << HAND_SIZE[int(options["num_players"])]
    if legal[-1] > throw:  # trick plays
        return legal
    return [a for a in legal if a == throw or a == blueprint_move or not a & (a + 1)]
