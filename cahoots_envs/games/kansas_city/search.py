"""Kansas City's world sampler, fast bot and value for decision-time search.

See ``cahoots_envs/core/search.py`` for the interface. What a seat knows (``knowledge``): its own
cards every hand (dealt, passed, received, upgraded), the public log of the game (every face-up
play, every trump played by rank, every upgrade by seat and rank, who declined, who was skipped in
an upgrade step, the voids shown, the set-aside card) and, with ranked backs, every hand's and
every pass's rank profile. What it does not know, and the sampler re-deals: the faces of the
others' cards in hand, of their upgraded trumps (held or played, K5) and which of their cards they
passed between themselves (and with ``card_backs='hidden'`` the ranks of their hand cards too).

The sampler works hand by hand on the whole game. A hand's unknown cards go into "slots": each
upgrade another seat made (rank public, its suit not one the seat had shown void in before the
upgrade) and each card another seat still holds (of its public rank with ranked backs; never of a
suit it has shown void in; with hidden backs of a rank it could not upgrade where it was skipped in
an upgrade step). The cards this seat passed and that were not played face up go only to its left
neighbour. Slots are filled most-constrained-first with uniform random choices, restarting after a
dead end (a randomized bipartite matching after many dead ends: never the true cards). Then each
other seat's pass is drawn among the cards its left neighbour held after the exchange (with the
pass's public rank profile), which fixes every deal, and the hidden actions (the others' passes and
upgrades) are written with the sampled cards. The world's state is the real state with every hidden
card overwritten; replaying its deals and actions gives the same state.

Only the current hand is drawn anew for each world. The hands before it are filled once per plan
(a seat's knowledge at one position) and shared by every world sampled from it: nothing in the
current hand depends on an earlier hand's hidden cards (the scores are public, and the previous
hand's last trick, shown until one is completed, shows another seat's upgraded trump by rank
only), so each world is as likely as before in everything a search reads, at half the sampling
work and a shared deal record per earlier hand that the engine's loader parses once (measured:
docs/lab/search_engine_cost.md).
"""

from __future__ import annotations

import copy
import math
from collections import OrderedDict
from collections.abc import Mapping
from types import ModuleType
from typing import Any

import numpy as np

from cahoots_envs.core.policy import optional_kernel
from cahoots_envs.core.search import LazyWorld, RolloutParts
from cahoots_envs.games.kansas_city.rules import (
    CARD_NAMES,
    DECK_SIZE,
    FULL_DECK,
    HAND_SIZE,
    PASS_COMBOS,
    PASS_SIZE,
    PHASE_PASS,
    PHASE_PLAY,
    PHASE_UPGRADE,
    RANK_MASKS,
    RANKS,
    SUIT_MASKS,
    TRICK_LIMIT,
    KansasCity,
    MaskedDeal,
    mask_names,
)

# search settings (knobs of ``cahoots_envs.search.SearchPolicy``): a play or upgrade decision has
# at most 14 moves and a rollout to the end of the hand costs about a millisecond at the start of a
# hand, much less later
DEFAULTS: dict[str, Any] = {
    "worlds": 8,
    "max_worlds": 16,
    "max_rollouts": 120,
    "max_candidates": 14,
    "gate": 2.0,
}

# what plain ``search`` plays (core/search.py): the shipped network decides the moves search
# leaves alone and the default, the rule-based bot plays the rollouts. Over the heuristic
# blueprint on the same 500 deals against 3 heuristic bots (docs/lab/search_over_zoo.md): +0.055, 0.929 against 0.874.
# The network it was measured over, not today's zoo:kansas_city (its third stage): search over
# that one read -0.004 (-0.033 to +0.025) on the same 500 deals (docs/lab/kansas_city_recipe.md),
# so the default kept its blueprint
DEFAULT_SEARCH = "search@rollout=heuristic:zoo:kansas_city_stage2"

# the spread of one player's points in one hand around the table's mean, between heuristic bots
# (150 games each; the seats' points are negatively correlated, which this spread includes)
HAND_SPREAD = {4: 5.4, 5: 2.8}

COMBO_INDEX = {h: {c: i for i, c in enumerate(PASS_COMBOS[h])} for h in HAND_SIZE.values()}
SUIT_OF_MASK = [sum(SUIT_MASKS[s] for s in range(7) if m >> s & 1) for m in range(128)]
RANK_SET_MASK = [sum(RANK_MASKS[r] for r in range(RANKS) if m >> r & 1) for m in range(256)]
# positions whose plans are kept: labelling and many-table search revisit hundreds of positions
# in rounds (600 positions labelled: 5-10% less CPU at 1024 than at 16, measured 2026-12-01)
CACHE_SIZE = 1024
FILL_TRIES = 40  # sequential fills before the matching fallback
MATCH_TRIES = 20
# the seed of the one filling of the earlier hands' hidden cards that the worlds sampled from one
# plan share (``_earlier``)
EARLIER_SEED = 0


# ---- the public log: a replay of the game, seat-independent ------------------------------------
class _HandLog:
    """One hand as replayed: the true deal and passes (private to their owners: a plan reads only
    the seat's own and, with ranked backs, their rank profiles), the (seat, action) steps, each
    trick's winner, and the upgrade steps' skipped seats and declines with the blocked ranks."""

    __slots__ = ("dealer", "dealt", "declines", "earlier", "passes", "plans", "set_aside", "skips",
                 "steps", "winners")

    def __init__(self, game: KansasCity) -> None:
        # per seat, once the hand is over (nothing changes its log then): its plan, and the
        # filling of the hands up to it (``_Plan``, ``_earlier``), shared by later positions
        self.plans: dict[int, _HandPlan] = {}
        self.earlier: dict[int, tuple[list[int], list[dict[str, Any]], list[int]]] = {}
        self.dealer = game.dealer
        self.set_aside = game.set_aside
        self.dealt = list(game.hands)
        self.passes: list[int] | None = None
        self.steps: list[tuple[int, int]] = []
        self.winners: list[int] = []
        self.skips: list[tuple[int, int, int]] = []  # (time, seat, blocked ranks)
        self.declines: list[tuple[int, int, int]] = []  # (step, seat, blocked ranks)


def _options(game: KansasCity) -> dict[str, Any]:
    return {"num_players": game.num_players, "hands": game.hands_total,
            "card_backs": "hidden" if game.hidden_backs else "ranks"}


class _Replay:
    """A replay of a game's public log in progress: the rules replaying it (``g``, dealt the
    game's deals), the hand logs so far, the seats still to be asked in the current upgrade
    step, and the actions replayed. ``extended`` continues a copy with more actions, so a game's
    next position costs only its new actions (a search bot's decisions, labelling's positions
    of one game in order)."""

    __slots__ = ("deals", "g", "history", "logs", "queue")

    def __init__(self, game: KansasCity) -> None:
        self.deals = list(game.deals)  # the game's records, kept alive (``_replay``'s key)
        self.g = KansasCity(_options(game), np.random.default_rng(0), game.deals)
        self.logs = [_HandLog(self.g)]
        self.queue: list[int] = []
        self.history: list[int] = []

    def extended(self, actions: list[int]) -> _Replay:
        """A copy with ``actions`` replayed after this one's (the finished hands' logs shared:
        nothing changes them)."""
        twin = object.__new__(_Replay)
        twin.deals = self.deals
        twin.g = self.g.clone()
        last = copy.copy(self.logs[-1])
        for name in ("steps", "winners", "skips", "declines"):
            setattr(last, name, list(getattr(last, name)))
        last.plans, last.earlier = {}, {}  # a hand in play: nothing cached for it
        twin.logs = [*self.logs[:-1], last]
        twin.queue = list(self.queue)
        twin.history = list(self.history)
        twin.run(actions)
        return twin

    def _skip_to(self, log: _HandLog, time: int) -> None:
        g, queue = self.g, self.queue
        nxt = g.current_player if g.phase == PHASE_UPGRADE and len(g.deals) == len(self.logs) \
            else -1
        blocked = g.blocked_ranks()
        while queue and queue[0] != nxt:
            log.skips.append((time, queue.pop(0), blocked))
        if queue:
            queue.pop(0)

    def run(self, actions: list[int]) -> None:
        g, logs = self.g, self.logs
        n = g.num_players
        for action in actions:
            log = logs[-1]
            i = len(log.steps)
            seat, phase = g.current_player, g.phase
            log.steps.append((seat, action))
            if phase == PHASE_UPGRADE and action == g.no_upgrade:
                log.declines.append((i, seat, g.blocked_ranks()))
            g.apply(action)
            if phase == PHASE_PASS and g.phase == PHASE_PLAY:
                log.passes = list(g.passed)
            elif phase == PHASE_PLAY and (not g.trick or len(g.deals) > len(logs)):
                log.winners.append(g.last_winner)
                if len(g.deals) == len(logs) and not g.is_over:
                    self.queue = [(g.last_winner + k) % n for k in range(1, n)]
                    self._skip_to(log, i + 1)
            elif phase == PHASE_UPGRADE:
                self._skip_to(log, i + 1)
            if len(g.deals) > len(logs):
                logs.append(_HandLog(g))
        self.history.extend(actions)


def _replay(game: KansasCity) -> list[_HandLog]:
    """The game's hand logs: from the cached replay of its deals when that replayed a prefix of
    its history (extended by the rest), else replayed from the start."""
    # keyed by the deal records themselves (a game's copies share them; the replay keeps them
    # alive, so their ids are not reused while cached)
    key = (game.num_players, game.hidden_backs, game.hands_total, tuple(map(id, game.deals)))
    history = game.history
    replay = _replays.get(key)
    if replay is not None and all(a is b for a, b in zip(replay.deals, game.deals)) and \
            len(replay.history) <= len(history) and \
            history[: len(replay.history)] == replay.history:
        if len(replay.history) < len(history):
            replay = replay.extended(history[len(replay.history):])
    else:
        replay = _Replay(game)
        replay.run(list(history))
    _remember(_replays, key, replay)
    return replay.logs


# ---- a seat's plan: what it knows, as slots and templates ---------------------------------------
class _HandPlan:
    """What a seat knows of one hand, ready for sampling: the slots of unknown cards, the passes
    to draw, the action template with holes, and where each upgraded card is now."""

    __slots__ = (
        "captured", "dealer", "declines", "events", "exchanged", "faceup_by_seat", "forced",
        "held", "holes", "knowledge", "last_trick", "needs", "own_dealt", "own_pass", "packed",
        "pass_specs", "pending_seats", "played", "pool", "received", "set_aside", "slots",
        "template", "trick", "upgrades",
    )
    dealer: int
    set_aside: int
    exchanged: bool
    own_dealt: int
    own_pass: int
    received: int
    template: list[int]
    holes: list[tuple[int, int, int]]
    events: list[tuple[int, int, int]]
    upgrades: tuple[tuple[int, ...], ...]
    faceup_by_seat: list[int]
    trick: tuple[tuple[int, int, bool], ...]
    last_trick: tuple[int, tuple[tuple[int, int, bool], ...]] | None
    pool: int
    slots: list[tuple[int, int]]
    declines: list[tuple[int, int]]
    forced: list[tuple[int, list[int]]]
    needs: list[tuple[int, int, list[int]]]
    pass_specs: list[tuple[int, tuple[tuple[int, int], ...] | None]]
    pending_seats: tuple[int, ...]
    held: list[list[int]]
    played: list[list[int]]
    captured: list[tuple[int, list[int]]]
    knowledge: tuple[Any, ...]
    packed: np.ndarray | None  # the compiled sampler's copy (``search_kernel.pack``), made once


def _suits_lacking(voids: int) -> int:
    return SUIT_OF_MASK[voids]


def _hand_plan(game: KansasCity, seat: int, log: _HandLog, current: bool) -> _HandPlan:
    n = game.num_players
    me, left, right = seat, (seat + 1) % n, (seat - 1) % n
    hidden = game.hidden_backs
    play_base, trump_base, upgrade_base, no_upgrade = (
        game.play_base, game.trump_base, game.upgrade_base, game.no_upgrade)
    hp = _HandPlan()
    hp.packed = None
    hp.dealer, hp.set_aside = log.dealer, log.set_aside
    steps = log.steps
    exchanged = log.passes is not None
    hp.exchanged = exchanged
    hp.own_dealt = log.dealt[me]
    if exchanged:
        assert log.passes is not None
        hp.own_pass, hp.received = log.passes[me], log.passes[right]
    else:  # the pass phase of the current hand: the seat's own choice, if made, is pending
        hp.own_pass, hp.received = (game.pending_pass[me] if current else 0), 0
    template: list[int] = []
    # (position, 0, seat): the seat's pass; (position, 1, event): the upgraded card
    holes: list[tuple[int, int, int]] = []
    events: list[tuple[int, int, int]] = []  # another seat's upgrade: (seat, rank, suits void then)
    public: list[tuple[int, int]] = []
    faceup = 0
    by_seat = [0] * n
    voids = [0] * n
    live: dict[int, int] = {}  # rank -> the unplayed trump: own card id, or -1 - event
    trick: list[tuple[int, int, bool]] = []  # (seat, card / own card / -1 - event, as trump)
    completed: list[tuple[int, tuple[tuple[int, int, bool], ...]]] = []
    later: list[list[tuple[int, int]]] = [[] for _ in range(n)]  # (step, rank) of cards leaving
    for i, (s, a) in enumerate(steps):
        if a < play_base:
            if s == me:
                template.append(a)
                public.append((s, a))
            else:
                holes.append((len(template), 0, s))
                template.append(-1)
                public.append((s, -1))
            continue
        public.append((s, a) if s == me or a < upgrade_base or a == no_upgrade
                      else (s, -2 - ((a - upgrade_base) & 7)))
        if a >= upgrade_base:
            if a == no_upgrade:
                template.append(a)
                continue
            card = a - upgrade_base
            later[s].append((i, card & 7))
            if s == me:
                live[card & 7] = card
                template.append(a)
            else:
                live[card & 7] = -1 - len(events)
                holes.append((len(template), 1, len(events)))
                template.append(-1)
                events.append((s, card & 7, voids[s]))
            continue
        template.append(a)
        if a >= trump_base:
            entry = (s, live.pop(a - trump_base), True)
        else:
            card = a - play_base
            faceup |= 1 << card
            by_seat[s] |= 1 << card
            later[s].append((i, card & 7))
            entry = (s, card, False)
        if trick and not trick[0][2]:
            led = trick[0][1] >> 3
            if entry[2] or entry[1] >> 3 != led:
                voids[s] |= 1 << led
        trick.append(entry)
        if len(trick) == n:
            completed.append((log.winners[len(completed)], tuple(trick)))
            trick = []
    hp.template, hp.holes, hp.events, hp.faceup_by_seat = template, holes, events, by_seat
    hp.trick = tuple(trick)
    hp.last_trick = completed[-1] if completed else None
    sa = 1 << log.set_aside if log.set_aside >= 0 else 0
    if exchanged:
        restricted = hp.own_pass & ~faceup  # passed to the left neighbour, not yet seen again
        pool = (FULL_DECK & ~(hp.own_dealt | hp.received | faceup | sa)) | restricted
    else:
        restricted = 0
        pool = FULL_DECK & ~(hp.own_dealt | sa)
    hp.pool = pool
    ev_slots: list[tuple[int, int]] = []  # (cards allowed, event id)
    for ev, (s, r, lacking) in enumerate(events):
        allowed = RANK_MASKS[r] & ~_suits_lacking(lacking) & pool
        if s != left:
            allowed &= ~restricted
        ev_slots.append((allowed, ev))
    groups: list[tuple[int, int, int]] = []  # held cards: (cards allowed, seat, how many)
    declines: list[tuple[int, int]] = []
    profiles: list[tuple[int, ...]] = []
    if current:
        skip_ranks = [(1 << RANKS) - 1] * n
        if hidden:
            for _, s, blocked in log.skips:
                skip_ranks[s] &= blocked
            for step, s, blocked in log.declines:
                if s == me:
                    continue
                # the seat had a card it could upgrade; if none of its later cards is one, it
                # still holds one
                if all(blocked >> r & 1 for t, r in later[s] if t > step):
                    declines.append((s, FULL_DECK & ~RANK_SET_MASK[blocked]))
            if game.phase == PHASE_UPGRADE and game.current_player != me:  # asked now
                declines.append((game.current_player,
                                 FULL_DECK & ~RANK_SET_MASK[game.blocked_ranks()]))
        for s in range(n):
            if s == me:
                continue
            held = game.hands[s] | game.pending_pass[s]
            base = FULL_DECK & ~_suits_lacking(voids[s]) & RANK_SET_MASK[skip_ranks[s]] & pool
            if s != left:
                base &= ~restricted
            if hidden:
                count = held.bit_count()
                if count:
                    groups.append((base, s, count))
                profiles.append((count,))
            else:
                counts = tuple((held & RANK_MASKS[r]).bit_count() for r in range(RANKS))
                groups.extend((base & RANK_MASKS[r], s, c) for r, c in enumerate(counts) if c)
                profiles.append(counts)
    # every slot, most constrained first (a stable sort: ties keep their order)
    slots = ev_slots + [(allowed, -1 - s) for allowed, s, c in groups for _ in range(c)]
    slots.sort(key=lambda slot: slot[0].bit_count())
    assert len(slots) == pool.bit_count(), "kansas_city sampler: slots and unknown cards differ"
    hp.slots, hp.declines = slots, declines
    # the cards the seat passed that are still unseen go first, each to a slot of the left
    # neighbour that allows it (filling the slots first would strand them)
    forced = [(1 << c, [i for i, (allowed, _) in enumerate(slots) if allowed >> c & 1])
              for c in range(DECK_SIZE) if restricted >> c & 1]
    forced.sort(key=lambda f: len(f[1]))
    hp.forced = forced
    # a seat that was asked to upgrade and declined holds a card of a rank it could upgrade
    hp.needs = [(s, need, [i for i, (_, target) in enumerate(slots) if target == -1 - s])
                for s, need in declines]
    # passes to draw after the exchange: each other seat's but the right neighbour's (received)
    specs: list[tuple[int, tuple[tuple[int, int], ...] | None]] = []
    if exchanged:
        assert log.passes is not None
        for s in range(n):
            if s not in (me, right):
                specs.append((s, None if hidden else tuple(
                    (RANK_MASKS[r], (log.passes[s] & RANK_MASKS[r]).bit_count())
                    for r in range(RANKS) if log.passes[s] & RANK_MASKS[r])))
    hp.pass_specs = specs
    hp.pending_seats = () if exchanged else tuple(s for s, _ in steps if s != me)
    # where each event's card is now, and what each trick took
    held_ev: list[list[int]] = [[] for _ in range(n)]
    for ref in live.values():
        if ref < 0:
            held_ev[events[-1 - ref][0]].append(-1 - ref)
    played_ev: list[list[int]] = [[] for _ in range(n)]
    captured: list[tuple[int, list[int]]] = [(0, []) for _ in range(n)]
    for winner, cards in completed:
        known, evs = captured[winner]
        for s, c, _ in cards:
            if c >= 0:
                known |= 1 << c
            else:
                evs.append(-1 - c)
                played_ev[s].append(-1 - c)
        captured[winner] = (known, evs)
    hp.held, hp.played, hp.captured = held_ev, played_ev, captured
    hp.upgrades = tuple(e[:2] for e in events)
    rank_info: tuple[Any, ...] = ()
    if not hidden:
        dealt_ranks = tuple(tuple((d & RANK_MASKS[r]).bit_count() for r in range(RANKS))
                            for d in log.dealt)
        pass_ranks = tuple((s, tuple((RANK_MASKS.index(m), c) for m, c in p or ()))
                           for s, p in specs)
        rank_info = (dealt_ranks, pass_ranks)
    hp.knowledge = (log.dealer, log.set_aside, hp.own_dealt, hp.own_pass, hp.received,
                    exchanged, tuple(public), rank_info, tuple(profiles), tuple(declines),
                    tuple(tuple(k) for k in log.skips) if hidden else ())
    return hp


def _finished_plan(game: KansasCity, seat: int, log: _HandLog) -> _HandPlan:
    """``_hand_plan`` of a hand that is over, made once per seat and kept on its log."""
    hp = log.plans.get(seat)
    if hp is None:
        hp = log.plans[seat] = _hand_plan(game, seat, log, False)
    return hp


class _Plan:
    __slots__ = ("earlier", "game", "hands", "knowledge", "length", "logs")

    def __init__(self, game: KansasCity, seat: int, logs: list[_HandLog]) -> None:
        self.earlier: tuple[list[int], list[dict[str, Any]], list[int]] | None = None
        self.game = game
        self.length = len(game.history)
        self.logs = logs
        self.hands = [_finished_plan(game, seat, log) for log in logs[:-1]]
        self.hands.append(_hand_plan(game, seat, logs[-1], True))
        self.knowledge = (
            "kansas_city", game.num_players, game.hands_total, game.hidden_backs, seat,
            tuple(hp.knowledge for hp in self.hands),
        )


_replays: OrderedDict[tuple[Any, ...], _Replay] = OrderedDict()  # the latest per game's deals
_plan_cache: OrderedDict[tuple[int, int], _Plan] = OrderedDict()


def _remember(cache: OrderedDict[Any, Any], key: Any, value: Any) -> None:
    cache[key] = value
    if len(cache) > CACHE_SIZE:
        cache.popitem(last=False)


def clear_caches() -> None:
    _replays.clear()
    _plan_cache.clear()


def _plan(game: KansasCity, seat: int) -> _Plan:
    """The seat's plan, cached per game object and length (a plan reads the state only for what
    the seat may know, so a copy with other hidden cards gets its own, equal, plan)."""
    key = (id(game), seat)
    plan = _plan_cache.get(key)
    if plan is not None and plan.game is game and plan.length == len(game.history):
        return plan
    plan = _Plan(game, seat, _replay(game))
    _remember(_plan_cache, key, plan)
    return plan


def hand_start(game: KansasCity) -> int:
    """How many actions the game had before the current hand's deal (public): a world's
    actions from there on are the current hand's (``core/search.py``)."""
    return len(game.history) - len(_replay(game)[-1].steps)


def knowledge(game: KansasCity, seat: int) -> tuple[Any, ...]:
    """Everything ``seat`` knows: its own cards each hand, the public log (the others' passes and
    upgrades without their cards), the rank profiles where backs show ranks, the constraints."""
    return _plan(game, seat).knowledge


# ---- sampling -----------------------------------------------------------------------------------
def _nth_bit(mask: int, k: int) -> int:
    """The lowest set bit of ``mask`` after dropping its ``k`` lowest ones (as a one-bit mask)."""
    for _ in range(k):
        mask &= mask - 1
    return mask & -mask


def _pick(mask: int, draws: list[float]) -> int:
    """``len(draws)`` distinct cards of ``mask`` drawn uniformly with ``draws``, as a mask."""
    out = 0
    size = mask.bit_count()
    for x in draws:
        low = _nth_bit(mask, int(x * size))
        out |= low
        mask ^= low
        size -= 1
    return out


def _held_ok(held: list[int], hp: _HandPlan) -> bool:
    return all(held[s] & need for s, need in hp.declines)


def _pass_draws(hp: _HandPlan) -> int:
    """How many uniform numbers the passes of a hand's sampling read (``_complete``)."""
    return PASS_SIZE * (len(hp.pass_specs) if hp.exchanged else len(hp.pending_seats))


def _fill(hp: _HandPlan, n: int, rng: np.random.Generator) -> tuple[list[int], list[int]]:
    """A card for every upgrade event and the cards every seat holds (masks). The work goes in
    units, first each decline's "holds a card it could upgrade" (a random held slot of the seat
    gets such a card), then each forced card (to a random slot that allows it), then slot by slot
    (most constrained first), each a uniform choice among the cards left that it allows. After a
    dead end the draw starts again with the unit that failed moved to the front. Each try draws
    its numbers from ``rng`` (``2 * units``), unit ``u`` reading numbers ``2u`` and ``2u + 1``
    (``search_kernel.fill`` reads the same)."""
    slots, forced, needs = hp.slots, hp.forced, hp.needs
    units = ([(2, k) for k in range(len(needs))] + [(1, k) for k in range(len(forced))]
             + [(0, i) for i in range(len(slots))])
    for _ in range(FILL_TRIES):
        left = hp.pool
        cards = [0] * len(slots)
        held = [0] * n
        draws = rng.random(2 * len(units)).tolist()
        dead = -1
        for u, (kind, k) in enumerate(units):
            x = draws[2 * u]
            if kind == 0:
                if cards[k]:
                    continue
                choice = left & slots[k][0]
                if not choice:
                    dead = u
                    break
                low = _nth_bit(choice, int(x * choice.bit_count()))
                i = k
            elif kind == 1:
                low, candidates = forced[k]
                if not left & low:
                    continue
                free = [i for i in candidates if not cards[i]]
                if not free:
                    dead = u
                    break
                i = free[int(x * len(free))]
            else:
                s, need, own = needs[k]
                if held[s] & need:
                    continue
                free = [i for i in own if not cards[i] and left & slots[i][0] & need]
                if not free:
                    dead = u
                    break
                i = free[int(x * len(free))]
                choice = left & slots[i][0] & need
                low = _nth_bit(choice, int(draws[2 * u + 1] * choice.bit_count()))
            cards[i] = low
            left ^= low
            target = slots[i][1]
            if target < 0:
                held[-1 - target] |= low
        if dead >= 0:
            units.insert(0, units.pop(dead))
            continue
        if _held_ok(held, hp):
            ev_cards = [-1] * len(hp.events)
            for (_, target), c in zip(slots, cards):
                if target >= 0:
                    ev_cards[target] = c.bit_length() - 1
            return ev_cards, held
    return _match(hp, n, rng)


def _match(hp: _HandPlan, n: int, rng: np.random.Generator) -> tuple[list[int], list[int]]:
    """After many dead ends: a randomized perfect matching of slots and cards (augmenting
    paths); the true assignment is one, so one exists."""
    slots = hp.slots
    ev_cards = [-1] * len(hp.events)
    held = [0] * n
    for _ in range(MATCH_TRIES):
        owner: dict[int, int] = {}  # card -> slot
        assigned = [-1] * len(slots)

        def augment(si: int, seen: set[int], owner: dict[int, int] = owner,
                    assigned: list[int] = assigned) -> bool:
            options = [c for c in range(DECK_SIZE) if slots[si][0] >> c & 1]
            for k in rng.permutation(len(options)):
                c = options[int(k)]
                if c in seen:
                    continue
                seen.add(c)
                if c not in owner or augment(owner[c], seen):
                    owner[c] = si
                    assigned[si] = c
                    return True
            return False

        for si in rng.permutation(len(slots)):
            augment(int(si), set())
        held = [0] * n
        for (_, target), c in zip(slots, assigned):
            if target >= 0:
                ev_cards[target] = c
            else:
                held[-1 - target] |= 1 << c
        if _held_ok(held, hp):
            break
    # every hard constraint holds; at worst a decline's "had a card it could upgrade" does not
    return ev_cards, held


def _load_kernel() -> ModuleType:
    """The numba twin of these inner loops (``search_kernel.py``), for core.policy.optional_kernel."""
    from cahoots_envs.games.kansas_city import search_kernel  # imports numba

    return search_kernel


def _sample_hand(hp: _HandPlan, game: KansasCity, seat: int, rng: np.random.Generator,
                 ) -> tuple[list[int], list[int], list[int], list[int], list[int]]:
    """(event cards, held cards, passes (or pending passes), dealt hands, actions): ``_fill``,
    then ``_complete`` with the passes' numbers drawn after the fill's; with numba in compiled
    calls (``search_kernel.fill`` and ``complete``: the same numbers drawn in the same order,
    the same cards)."""
    kernel = optional_kernel(_load_kernel)
    if kernel is None:
        ev_cards, held = _fill(hp, game.num_players, rng)
        return _complete(hp, game, seat, ev_cards, held, rng.random(_pass_draws(hp)).tolist())
    if hp.packed is None:
        hp.packed = kernel.pack(hp, game, seat)
    packed = hp.packed
    out = np.empty(packed[kernel.H_OUT], np.int64)
    size = 2 * (len(hp.needs) + len(hp.forced) + len(hp.slots))
    stream = rng.random(size)
    status = kernel.fill(packed, stream, FILL_TRIES, out)
    while status == kernel.NEED_MORE:  # a try failed: the next try's numbers, as ``_fill`` draws
        stream = np.concatenate([stream, rng.random(size)])
        status = kernel.fill(packed, stream, FILL_TRIES, out)
    if status != kernel.DONE:  # every try failed: the matching fallback
        ev_cards, held = _match(hp, game.num_players, rng)
        return _complete(hp, game, seat, ev_cards, held, rng.random(_pass_draws(hp)).tolist())
    kernel.complete(packed, kernel.combo_table(game.hand_size), rng.random(_pass_draws(hp)), out)
    n, e = game.num_players, len(hp.events)
    flat = out.tolist()
    return (flat[:e], flat[e: e + n], flat[e + n: e + 2 * n], flat[e + 2 * n: e + 3 * n],
            flat[e + 3 * n:])


def _complete(hp: _HandPlan, game: KansasCity, seat: int, ev_cards: list[int], held: list[int],
              draws: list[float]) -> tuple[list[int], list[int], list[int], list[int], list[int]]:
    """``_sample_hand``'s result from the fill's cards: the passes drawn with ``draws``, which
    fix the dealt hands, and the action template's holes filled."""
    n = game.num_players
    right = (seat - 1) % n
    passes = [0] * n
    dealt = [0] * n
    if hp.exchanged:
        holding = list(held)  # after the exchange: face-up plays, upgrades, held cards
        for s, c in enumerate(hp.faceup_by_seat):
            holding[s] |= c
        for ev, (s, _) in enumerate(hp.upgrades):
            holding[s] |= 1 << ev_cards[ev]
        passes[seat], passes[right] = hp.own_pass, hp.received
        for k, (s, profile) in enumerate(hp.pass_specs):
            source = holding[(s + 1) % n]
            mine = draws[PASS_SIZE * k: PASS_SIZE * (k + 1)]
            if profile is None:
                passes[s] = _pick(source, mine)
            else:  # so many cards of each rank
                p = 0
                for ranks, c in profile:
                    p |= _pick(source & ranks, mine[:c])
                    mine = mine[c:]
                passes[s] = p
        for s in range(n):
            dealt[s] = hp.own_dealt if s == seat else (
                (holding[s] & ~passes[(s - 1) % n]) | passes[s])
    else:
        for s in range(n):
            dealt[s] = hp.own_dealt if s == seat else held[s]
        passes[seat] = hp.own_pass
        for k, s in enumerate(hp.pending_seats):
            passes[s] = _pick(held[s], draws[PASS_SIZE * k: PASS_SIZE * (k + 1)])
    actions = list(hp.template)
    if hp.holes:
        combos = COMBO_INDEX[game.hand_size]
        upgrade_base = game.upgrade_base
        for where, kind, arg in hp.holes:
            if kind == 0:
                hand, chosen = dealt[arg], passes[arg]
                positions = []
                pos = 0
                while hand:
                    low = hand & -hand
                    if chosen & low:
                        positions.append(pos)
                    hand ^= low
                    pos += 1
                value = combos[tuple(positions)]
            else:
                value = upgrade_base + ev_cards[arg]
            actions[where] = value
    return ev_cards, held, passes, dealt, actions


def _record(hp: _HandPlan, dealt: list[int]) -> MaskedDeal:
    """A hand's deal record (the scripted-deal format) with the hands ``dealt``, which it keeps
    as masks too (a trusted engine loads those)."""
    record = MaskedDeal(dealer=hp.dealer, hands=[mask_names(h) for h in dealt])
    record.masks = list(dealt)
    if hp.set_aside >= 0:
        record["set_aside"] = CARD_NAMES[hp.set_aside]
    return record


def _earlier(plan: _Plan, seat: int) -> tuple[list[int], list[dict[str, Any]], list[int]]:
    """The hands before the current one in one filling of their hidden cards, drawn once per
    seat and finished hand (seeded by ``EARLIER_SEED``: from what the seat knows alone, so the
    same for every position of the hand) and shared by every world sampled from them: the last
    of them's upgraded cards (by event), their deal records and their actions, one after the
    other."""
    if plan.earlier is None and len(plan.logs) > 1:  # filled once per seat and finished hand
        plan.earlier = plan.logs[-2].earlier.get(seat)
    if plan.earlier is None:
        rng = np.random.default_rng(EARLIER_SEED)
        ev_cards: list[int] = []
        deals: list[dict[str, Any]] = []
        actions: list[int] = []
        for hp in plan.hands[:-1]:
            ev_cards, _, _, dealt, hand_actions = _sample_hand(hp, plan.game, seat, rng)
            deals.append(_record(hp, dealt))
            actions.extend(hand_actions)
        plan.earlier = (ev_cards, deals, actions)
        if len(plan.logs) > 1:
            plan.logs[-2].earlier[seat] = plan.earlier
    return plan.earlier


def sample_world(game: KansasCity, seat: int, rng: np.random.Generator) -> LazyWorld:
    """A world consistent with everything ``seat`` knows (module docstring), drawn with ``rng``:
    the current hand's hidden cards drawn anew, the earlier hands' as the plan fills them once
    (``_earlier``). Its history is the shared earlier hands, then its current hand
    (``RolloutParts``: the batched engine's loader replays the shared hands once); its game is
    made on first access (``_world_game``: the reference path plays it), before ``game`` moves
    on."""
    plan = _plan(game, seat)
    ev_prev, earlier_deals, earlier_actions = _earlier(plan, seat)
    hp = plan.hands[-1]
    ev_cards, held, passes, dealt, acts = _sample_hand(hp, game, seat, rng)
    parts = RolloutParts((earlier_deals, earlier_actions), _record(hp, dealt), acts)
    seed = int(rng.integers(2**63))
    length = len(game.history)

    def make() -> KansasCity:
        if len(game.history) != length or game.is_over:
            raise RuntimeError("a Kansas City world's game is made from the game it was sampled "
                               "from on first access, and that game has moved on: read "
                               "world.game before applying more actions to it")
        return _world_game(game, seat, seed, plan, ev_cards, held, passes, ev_prev,
                           parts.history())

    return LazyWorld(make, parts.history, parts=lambda: parts)


def _world_game(game: KansasCity, seat: int, seed: int, plan: _Plan, ev_cards: list[int],
                held: list[int], passes: list[int], ev_prev: list[int],
                history: tuple[list[dict[str, Any]], list[int]]) -> KansasCity:
    """The world's game: ``game`` with the hidden cards the world drew (``sample_world``), a
    fresh generator seeded ``seed`` and the world's ``history``."""
    n = game.num_players
    hp = plan.hands[-1]
    world = game.clone(rng=np.random.default_rng(seed))

    def faces(evs: list[int]) -> int:
        mask = 0
        for ev in evs:
            mask |= 1 << ev_cards[ev]
        return mask

    for s in range(n):
        if s == seat:
            continue
        if hp.exchanged:
            world.hands[s] = held[s]
        else:
            world.pending_pass[s] = passes[s]
            world.hands[s] = held[s] & ~passes[s]
        world.upgraded[s] = faces(hp.held[s])
        world.own_trumps_played[s] = faces(hp.played[s])
    if hp.exchanged:
        world.passed = passes
        world.received = [passes[(s - 1) % n] for s in range(n)]
    world.captured = [known | faces(evs) for known, evs in hp.captured]
    world.trick = [(s, c if c >= 0 else ev_cards[-1 - c], t) for s, c, t in hp.trick]
    if hp.last_trick is not None:
        world.last_trick = tuple((s, c if c >= 0 else ev_cards[-1 - c], t)
                                 for s, c, t in hp.last_trick[1])
    elif len(plan.hands) > 1:  # the previous hand's last trick, shown until one is completed
        last = plan.hands[-2].last_trick
        assert last is not None
        world.last_trick = tuple((s, c if c >= 0 else ev_prev[-1 - c], t) for s, c, t in last[1])
    world.deals, world.history = history
    world._scripted = ()  # never the true game's scripted later hands
    return world


# ---- the fast bot ---------------------------------------------------------------------------
class FastBot:
    """The heuristic bot (``bot.HeuristicPolicy``, same choices) read from the game state: the
    seat's own hand, its tricks won, the current trick and its legal moves."""

    def __init__(self, options: Mapping[str, Any], seed: int | None = None) -> None:
        n = int(options["num_players"])
        self.hand_size = HAND_SIZE[n]
        self.limit = TRICK_LIMIT[n]
        self.combo_index = COMBO_INDEX[self.hand_size]
        self.rng = np.random.default_rng(seed)  # the bot is deterministic: never drawn from

    def act_state(self, game: KansasCity) -> int:
        seat = game.current_player
        hand = game.hands[seat]
        phase = game.phase
        if phase == PHASE_PASS:
            return self._pass(hand)
        won = game.tricks_won[seat]
        if phase == PHASE_UPGRADE:
            return self._upgrade(game, seat, hand, won < self.limit)
        return self._play(game, seat, hand, won)

    def _pass(self, mask: int) -> int:
        hand = _cards(mask)
        if len(hand) != self.hand_size:
            return 0
        lengths = _lengths(hand)
        if sum(1 for c in hand if c & 7 >= 6) > 4:
            order = sorted(range(len(hand)), key=lambda p: (-(hand[p] & 7), hand[p]))
        else:
            order = sorted(range(len(hand)), key=lambda p: (lengths[hand[p] >> 3], hand[p] & 7))
        return self.combo_index[tuple(sorted(order[:3]))]

    def _upgrade(self, game: KansasCity, seat: int, hand: int, need: bool) -> int:
        if not need:
            return game.no_upgrade
        lengths = _lengths(_cards(hand))
        options = _cards(game.upgradable(seat))
        singletons = [c for c in options if lengths[c >> 3] == 1]
        if singletons:
            return game.upgrade_base + max(singletons, key=lambda c: (c & 7, -c))
        high = [c for c in options if c & 7 >= 6]
        if high:
            return game.upgrade_base + max(high, key=lambda c: (c & 7, -c))
        return game.no_upgrade

    def _play(self, game: KansasCity, seat: int, hand: int, won: int) -> int:
        need = won < self.limit
        faces, trumps = game.playable(seat)
        play_base, trump_base = game.play_base, game.trump_base
        # each option as (action, is_trump, suit, rank), in action order
        options = [(play_base + c, False, c >> 3, c & 7) for c in _cards(faces)]
        options.extend((trump_base + r, True, -1, r) for r in _cards(trumps))
        trick = game.trick
        if not trick:
            if need:
                lengths = _lengths(_cards(hand))
                return max(options, key=lambda o: (o[1], o[3] if o[1] else 0,
                                                   lengths[o[2]] if o[2] >= 0 else 0, o[3]))[0]
            return min(options, key=lambda o: (o[1], o[3]))[0]
        led_suit = -1 if trick[0][2] else trick[0][1] >> 3
        best_trump = best_led = -1
        has_four = False
        for _, card, is_trump in trick:
            rank = card & 7
            has_four |= rank == 3
            if is_trump:
                best_trump = max(best_trump, rank)
            elif card >> 3 == led_suit:
                best_led = max(best_led, rank)
        winners: list[tuple[int, bool, int, int]] = []
        losers: list[tuple[int, bool, int, int]] = []
        for o in options:
            wins = o[3] > best_trump if o[1] else (
                best_trump < 0 and o[2] == led_suit and o[3] > best_led)
            (winners if wins else losers).append(o)
        if (need or (has_four and won == self.limit)) and winners:
            return min(winners, key=lambda o: (o[1], o[3]))[0]
        if losers:
            if need:
                return min(losers, key=lambda o: (o[1], o[3]))[0]
            return max(losers, key=lambda o: (not o[1], o[3]))[0]
        return min(options, key=lambda o: (o[1], o[3]))[0]


def _cards(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _lengths(hand: list[int]) -> list[int]:
    lengths = [0] * 7
    for c in hand:
        lengths[c >> 3] += 1
    return lengths


# ---- value and when to search -----------------------------------------------------------------
_NODES, _WEIGHTS = np.polynomial.hermite_e.hermegauss(24)
_NODES_W = tuple(zip(_NODES.tolist(), (_WEIGHTS / _WEIGHTS.sum()).tolist()))


def win_chance(scores: list[float], seat: int, spread: float) -> float:
    """P(``seat`` ends with the strictly highest score) when every seat's final score is its
    score now plus an independent normal with standard deviation ``spread``:
    E_z[prod over the others of Phi((mine - theirs) / spread + z)], by Gauss-Hermite."""
    mine = scores[seat]
    gaps = [(mine - x) / spread for t, x in enumerate(scores) if t != seat]
    total = 0.0
    for z, w in _NODES_W:
        p = w
        for d in gaps:
            p *= 0.5 * (1.0 + math.erf((d + z) * 0.7071067811865476))
        total += p
    return total


def value(game: KansasCity, seat: int) -> float:
    """The seat's payoff once the game is over; before, its expected ``outcome()`` (+1 to the
    winner, -1/(N-1) to each other seat) if each remaining hand adds an independent normal to
    every score, with the spread of one seat's hand points around the table mean in heuristic
    play (``HAND_SPREAD``): P(win) - (1 - P(win)) / (N - 1). Scores are the cumulative ones, so at
    a hand boundary the hands left are exactly the ones still to deal."""
    if game.is_over:
        return float(game.outcome()[seat])
    n = game.num_players
    left = game.hands_total - game.hand_number
    p = win_chance(game.scores, seat, HAND_SPREAD[n] * math.sqrt(left))
    return p - (1.0 - p) / (n - 1)


def worth_searching(game: KansasCity, seat: int) -> bool:
    """Plays and upgrades are searched; passes (364 or 165 moves) are left to the bot."""
    return not game.is_over and game.phase != PHASE_PASS
