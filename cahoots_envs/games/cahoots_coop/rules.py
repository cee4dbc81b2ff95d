"""Cahoots (cooperative goal cards, Gamewright) — the rules, in the words of
docs/rules/cahoots_coop.md (section numbers below refer to it).

Number cards are kinds 0..27: ``kind = colour * 7 + (number - 1)`` with colours G green, O orange,
P pink, V purple; the deck holds two copies of each kind (§1.3). A hand is a sorted list of kinds,
a pile a list of kinds (bottom first), the draw pile a list whose *end* is its top. Goals are
indices into the goal list of ``goals.json`` (§1.9); the goal deck is a list whose end is its top.
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from cahoots_envs.core.game import Game, deal_per_seat, deal_seat, split_deals
from cahoots_envs.core.options import Option, OptionSet, common_options
from cahoots_envs.games.cahoots_coop.goals import (
    KINDS,
    MULTICOLOUR_MODES,
    NUMBERS,
    PILES,
    Goal,
    load_goals,
    satisfied_table,
)

COLOURS = "GOPV"
COLOUR_NAMES = ("green", "orange", "pink", "purple")
COPIES = 2
DECK_SIZE = KINDS * COPIES  # 56
HAND_SIZE = 4
PHASE_PLAY = "play"
PHASE_TALK = "talk"
DIFFICULTIES = ("beginner", "normal", "expert", "insane")
# §1.1 setup step 4: goals by player count and difficulty (1 player uses the 2-3 row, A6)
GOALS_BY_DIFFICULTY = {
    "beginner": (15, 12), "normal": (18, 15), "expert": (21, 18), "insane": (24, 21),
}
GOALS = load_goals()
NUM_GOAL_CARDS = len(GOALS)
GOAL_INDEX = {g.id: i for i, g in enumerate(GOALS)}
# MATCHES[k]: bit mask of the top kinds a card of kind k may be played on (same colour or number)
MATCHES = [
    sum(1 << t for t in range(KINDS) if t // NUMBERS == k // NUMBERS or t % NUMBERS == k % NUMBERS)
    for k in range(KINDS)
]

# table talk (§1.1 Communication, §1.7): the vocabularies of the rulebooks, each a tuple of
# (word, what it names: a pile or a visible goal); "say nothing" is always allowed too
TALK_MODES = ("none", "spanish", "dutch")
VOCABULARIES: dict[str, tuple[tuple[str, str], ...]] = {
    "none": (),
    # [ES] which pile I would like to play on, which goal the team should go for next
    "spanish": (("wish", "pile"), ("aim", "goal")),
    # [NL] don't play on that pile, I have the right card for that pile, I can complete this goal
    "dutch": (("avoid", "pile"), ("have", "pile"), ("can complete", "goal")),
}
# the signals that must be true when said (the action mask enforces them): a fact about the hand
TRUE_SIGNALS = frozenset({"have", "can complete"})
TALK_BASE = KINDS * PILES  # the first talk action: say nothing; then 4 per word (pile or slot)
SAY_NOTHING = "say nothing"

LOSS_NO_PLAY = "no legal play"  # §1.6 loss 1
LOSS_OUT_OF_CARDS = "every card played"  # §1.6 loss 2


# one shared string per card kind: deal records and notation reuse them instead of new strings
CARD_NAMES = tuple(f"{kind % NUMBERS + 1}{COLOURS[kind // NUMBERS]}" for kind in range(KINDS))


def card_str(kind: int) -> str:
    return CARD_NAMES[kind]


def parse_card(text: str) -> int:
    text = str(text).strip().upper()
    if len(text) == 2 and text[0] in "1234567" and text[1] in COLOURS:
        return COLOURS.index(text[1]) * NUMBERS + int(text[0]) - 1
    raise ValueError(
        f"unknown Cahoots card {text!r}: cards are a number 1-7 and a colour "
        "G (green), O (orange), P (pink) or V (purple), e.g. 5G"
    )


def talk_actions(talk: str) -> int:
    """How many talk actions a vocabulary has: say nothing, and 4 per word (piles or slots)."""
    words = VOCABULARIES[talk]
    return 1 + PILES * len(words) if words else 0


def goals_in_game(options: Mapping[str, Any]) -> int:
    """G of §1.4 step 1: the table by player count and difficulty, unless ``num_goals`` is set."""
    if options["num_goals"] is not None:
        return int(options["num_goals"])
    row = 1 if options["num_players"] == 4 else 0
    return GOALS_BY_DIFFICULTY[options["difficulty"]][row]


def signal_true(word: str, target: int, hand: Sequence[int], tops: Sequence[int],
                satisfied: Sequence[int]) -> bool:
    """Whether ``word`` about ``target`` (a pile, or a visible goal's id) is true of ``hand`` on
    ``tops``: "have" needs a card that may go on the pile, "can complete" a play of the hand that
    meets the goal; every other word is an opinion, always allowed."""
    if word == "have":
        top = tops[target]
        return any(MATCHES[k] >> top & 1 for k in hand)
    if word == "can complete":
        for p in range(PILES):
            code = 0
            for q in range(PILES):
                code = code * KINDS + (0 if q == p else tops[q])
            place = KINDS ** (PILES - 1 - p)
            for k in hand:
                if MATCHES[k] >> tops[p] & 1 and satisfied[code + k * place] >> target & 1:
                    return True
        return False
    return True


def signal_str(talk: str, word: int, target: int) -> str:
    """A signal in the notation: ``say nothing``, ``wish pile 2``, ``aim SUM_15`` (Spanish),
    ``avoid pile 2``, ``have pile 2``, ``can complete SUM_15`` (Dutch)."""
    if word == 0:
        return SAY_NOTHING
    name, names = VOCABULARIES[talk][word - 1]
    return f"{name} pile {target}" if names == "pile" else f"{name} {GOALS[target].id}"


def talk_problem(options: Mapping[str, Any]) -> str | None:
    """Why ``options`` cannot have table talk (one line), or None: talk needs 2 players or more
    and hidden hands."""
    talk = options.get("talk", "none")
    if talk == "none":
        return None
    if options["num_players"] == 1:
        return (f"talk={talk!r} needs 2 or more players (nobody hears a solo player); use "
                "talk='none' with num_players=1")
    if options.get("open_hands"):
        return (f"talk={talk!r} cannot be combined with open_hands=True: Lil Cahoots shows every "
                "hand, so the restricted signals say nothing new; use one or the other")
    return None


class CahootsCoop(Game):
    NAME = "cahoots_coop"
    VERSION = 1
    VERSION_NOTES: ClassVar[dict[int, str]] = {1: (
        "v1: the observation adds the public play history: each seat's last two plays (card, "
        "pile, the card it covered, whether it completed a goal), every card each seat has "
        "played, the goals each seat completed and the goals the latest play completed"
    )}
    REPLAYS_FROM = 0  # the rules are those of v0
    TITLE = "Cahoots (cooperative goal cards)"
    PHASES = (PHASE_PLAY, PHASE_TALK)
    PLAYER_COUNTS = (1, 2, 3, 4)
    DEFAULT_PLAYERS = 3
    OPTIONS = OptionSet(
        common_options(PLAYER_COUNTS, DEFAULT_PLAYERS)
        + (
            Option(
                "difficulty", "normal",
                "number of goals (§1.4): 15/18/21/24 with 1–3 players, 12/15/18/21 with 4",
                choices=DIFFICULTIES, policy_may_differ=True,
            ),
            Option(
                "num_goals", None, "play with this many goals instead (overrides `difficulty`)",
                choices=(None,), int_range=(1, NUM_GOAL_CARDS), policy_may_differ=True,
            ),
            Option(
                "multicolour_mode", "union",
                "goals naming several colours (§1.10 A2): `'union'` pools them (Spanish/English "
                "rules), `'disjunctive'` needs the goal to hold for one of them alone (Dutch)",
                choices=MULTICOLOUR_MODES,
            ),
            Option(
                "open_hands", False,
                "Lil / Mini Cahoots (§1.8): every hand is visible to every player",
                choices=(False, True),
            ),
            Option(
                "talk", "none",
                "table talk (§1.1, §1.7): `'none'` (Mum's the word), `'spanish'` (which pile I "
                "would like to play on, which goal to go for), `'dutch'` (don't play on that "
                "pile, I have the right card for that pile, I can complete this goal); a talk "
                "decision follows each play (see Table talk)",
                choices=TALK_MODES,
            ),
        ),
        combined=talk_problem,  # make() refuses talk that no game could be dealt with
    )
    DEAL_KEYS = ("start_player", "hands", "piles", "draw_pile", "goals")
    goal_cards: ClassVar[tuple[Goal, ...]] = GOALS  # the goal list (§1.9)
    CLONED_LISTS = (
        "tops", "draw_pile", "box", "played", "goal_deck", "visible", "completed",
        "last_completed", "scores", "plays",
    )
    CLONED_NESTED_LISTS = ("hands", "piles")
    COOPERATIVE = True
    # table talk: a game without talk reads these class defaults (see ``__init__``); with talk,
    # ``signals`` holds every talk decision as (seat, plays made before it, word: 0 for "say
    # nothing", else 1 + its index in the vocabulary, target: the pile, or the goal's id, or -1)
    talk: str = "none"
    signals: tuple[tuple[int, int, int, int], ...] = ()
    talking: bool = False  # the seat to move makes its talk decision (after its play)
    TEST_VARIANTS = (
        {"num_players": 2, "open_hands": True, "multicolour_mode": "disjunctive"},
        {"num_players": 4, "difficulty": "insane", "open_hands": True},
        {"num_players": 3, "num_goals": 4},  # short games: random play wins some
        {"reward_mode": "points"},
        {"talk": "spanish"},
        {"num_players": 2, "talk": "dutch", "difficulty": "beginner"},
    )
    # the strength table: the team's win rate at these difficulties (one network plays both:
    # difficulty changes the number of goals only, not the observation layout or the actions)
    STRENGTH_VARIANTS = ({"difficulty": "beginner"}, {"difficulty": "normal"})

    # ---- declared ---------------------------------------------------------------------------
    @classmethod
    def num_actions(cls, options: Mapping[str, Any]) -> int:
        return KINDS * PILES + talk_actions(options.get("talk", "none"))

    @classmethod
    def max_game_length(cls, options: Mapping[str, Any]) -> int:
        plays = DECK_SIZE - PILES  # one card per turn, four start on the piles (§1.6)
        return plays * 2 if options.get("talk", "none") != "none" else plays  # a talk each

    @classmethod
    def full_deck(cls, options: Mapping[str, Any]) -> list[str]:
        return sorted(card_str(k) for k in range(KINDS) for _ in range(COPIES))

    # ---- a game ------------------------------------------------------------------------------
    def __init__(
        self,
        options: Mapping[str, Any],
        rng: np.random.Generator,
        deal: Mapping[str, Any] | Sequence[Mapping[str, Any]] | None,
    ) -> None:
        n = options["num_players"]
        talk = options.get("talk", "none")
        if talk != "none":
            # only a game with talk holds these three: a game without keeps its 29 attributes
            problem = talk_problem(options)
            if problem:
                raise ValueError(problem)
            self.talk = talk
            self.signals = ()
            self.talking = False
        self.num_players = n
        self.rng = rng
        self.mode = options["multicolour_mode"]
        self.open_hands = bool(options["open_hands"])
        self.satisfied = satisfied_table(GOALS, self.mode)
        scripted = split_deals(deal, 1)  # one hand: a dict, or a list of one
        start, hands, piles, draw_pile, goals = self._parse_deal(scripted[0] if scripted else {})
        # §1.4: fill whatever the deal left out from a shuffle of the cards not yet placed
        remaining = [COPIES] * KINDS
        for cards in (hands or []) + [piles or [], draw_pile or []]:
            for k in cards:
                remaining[k] -= 1
        rest = [k for k in range(KINDS) for _ in range(remaining[k])]
        rest = [rest[i] for i in rng.permutation(len(rest))]
        if hands is None:
            hands = [rest[s * HAND_SIZE : (s + 1) * HAND_SIZE] for s in range(n)]
            rest = rest[n * HAND_SIZE :]
        if piles is None:
            piles, rest = rest[:PILES], rest[PILES:]
        if draw_pile is None:
            draw_pile, rest = rest, []
        self.hands = [sorted(h) for h in hands]
        self.piles = [[k] for k in piles]
        self.tops = list(piles)
        self.draw_pile = draw_pile[::-1]  # the end of the list is the top
        # a scripted draw pile shorter than the undealt cards leaves the rest out of the game
        self.box = sorted(rest)
        self.played = [0] * KINDS  # every card on the piles, covered or not (public, §1.7)
        for k in piles:
            self.played[k] += 1
        self.cards_in_hands = n * HAND_SIZE
        if goals is None:
            order = rng.permutation(NUM_GOAL_CARDS)
            goals = [int(g) for g in order[: goals_in_game(options)]]
        self.num_goals = len(goals)
        dealt_goals = tuple(goals)  # the goal deck as dealt, before setup completes any
        # §1.4 step 3: the goal deck, top first in the deal; four are turned face up
        self.goal_deck = goals[::-1]
        self.visible = [self.goal_deck.pop() if self.goal_deck else -1 for _ in range(PILES)]
        self.completed: list[int] = []  # goal indices in the order completed
        self.last_completed: list[int] = []  # goals completed by the latest play (or setup)
        self.scores = [0.0] * n
        self.is_over = False
        self.won = False
        self.loss_reason = ""
        self.loser = -1  # the seat that could not play (loss 1)
        # the public play history (§1.7): every play in order as (seat, kind, pile, covered
        # kind, bit mask of the goals it completed); a bit set over (seat, kind) in two
        # planes: bit seat * KINDS + kind once the seat has played a card of that kind, bit
        # (num_players + seat) * KINDS + kind once it has played both; and the goals each
        # seat's plays completed, bit seat * NUM_GOAL_CARDS + goal. (29 instance attributes, as
        # in v0: with a 30th CPython 3.11 stops sharing the instance dicts' keys and every
        # attribute access slows down; so ``turns`` and ``last_play`` are read from ``plays``.)
        self.plays: list[tuple[int, int, int, int, int]] = []
        self.played_by = 0
        self.completed_by = 0
        # §1.4 step 4 / A4: goals met by the starting piles are set aside, replacements checked
        self.completed_at_setup = self._resolve_goals()
        # they are completed goals like any other (CONTRACT §4: score = goals completed); the
        # adapter pays them at reset in points mode
        self.scores = [float(self.completed_at_setup)] * n
        start_player = int(rng.integers(n)) if start is None else start
        self.current_player = start_player
        self.start_player = start_player
        self.history: list[int] = []
        self.deals: list[dict[str, Any]] = [
            self.deal_record(start_player, self.hands, piles, draw_pile, dealt_goals)
        ]
        self._check_end()

    def _parse_deal(self, deal: Mapping[str, Any]) -> tuple[
        int | None, list[list[int]] | None, list[int] | None, list[int] | None, list[int] | None
    ]:
        """Validate a scripted deal (CONTRACT §5) without touching any state."""
        n = self.num_players
        start = deal_seat(deal, "start_player", n)
        counts = [0] * KINDS

        def cards_of(key: str, raw: Any, size: int | None, what: str) -> list[int]:
            if isinstance(raw, str) or not isinstance(raw, (list, tuple)):
                # CONTRACT §3: every malformed deal is a ValueError
                raise ValueError(f"deal: {what} must be a list of cards, got {raw!r}")  # noqa: TRY004
            if size is not None and len(raw) != size:
                raise ValueError(f"deal: {what} has {len(raw)} cards; it must have {size}")
            cards = []
            for text in raw:
                k = parse_card(text)
                counts[k] += 1
                if counts[k] > COPIES:
                    raise ValueError(
                        f"deal: card {card_str(k)} appears {counts[k]} times (in {key}); "
                        f"the deck has {COPIES} of each"
                    )
                cards.append(k)
            return cards

        hands = None
        if "hands" in deal:
            raw = deal_per_seat(deal, "hands", n, "hands")
            hands = [cards_of("hands", h, HAND_SIZE, f"the hand of seat {s}")
                     for s, h in enumerate(raw)]
        piles = cards_of("piles", deal["piles"], PILES, "piles") if "piles" in deal else None
        draw_pile = None
        if "draw_pile" in deal:
            draw_pile = cards_of("draw_pile", deal["draw_pile"], None, "draw_pile")
        # §1.4 step 2: the keys left out are dealt from the cards the deal did not place
        missing = [(what, size) for what, size, given in
                   (("hands", n * HAND_SIZE, hands), ("piles", PILES, piles)) if given is None]
        spare = DECK_SIZE - sum(counts)
        need = sum(size for _, size in missing)
        if spare < need:
            names = " and ".join(what for what, _ in missing)
            raise ValueError(
                f"deal: the scripted cards leave {spare} card{'' if spare == 1 else 's'}; "
                f"the {names} left out need {need}"
            )
        goals = None
        if "goals" in deal:
            raw = deal["goals"]
            if isinstance(raw, str) or not isinstance(raw, (list, tuple)) or not raw:
                raise ValueError("deal: goals must be a non-empty list of goal ids, top first")
            goals = []
            for gid in raw:
                key = str(gid).strip().upper()
                if key not in GOAL_INDEX:
                    raise ValueError(
                        f"deal: unknown goal {gid!r}; goals are ids such as SUM_15 or "
                        "THREE_GREEN (see docs/rules/cahoots_coop.md §1.9)"
                    )
                if GOAL_INDEX[key] in goals:
                    raise ValueError(f"deal: goal {key} appears twice (there is one of each)")
                goals.append(GOAL_INDEX[key])
        return start, hands, piles, draw_pile, goals

    def deal_record(
        self, start: int, hands: Sequence[Sequence[int]], piles: Sequence[int],
        draw_pile: Sequence[int], goals: Sequence[int],
    ) -> dict[str, Any]:
        """The deal in the scripted-deal format (the inverse of ``_parse_deal``): ``draw_pile``
        and ``goals`` top first, the goals as dealt (before setup completes any)."""
        return {
            "start_player": int(start),
            "hands": [[card_str(k) for k in h] for h in hands],
            "piles": [card_str(k) for k in piles],
            "draw_pile": [card_str(k) for k in draw_pile],
            "goals": [self.goal_cards[g].id for g in goals],
        }

    # ---- state queries -----------------------------------------------------------------------
    @property
    def phase(self) -> str:
        return PHASE_TALK if self.talking else PHASE_PLAY

    @property
    def turns(self) -> int:
        """Plays made so far."""
        return len(self.plays)

    @property
    def last_play(self) -> tuple[int, int, int] | None:
        """(seat, kind, pile) of the latest play."""
        return self.plays[-1][:3] if self.plays else None

    @property
    def goals_left(self) -> int:
        return self.num_goals - len(self.completed)

    def satisfied_goals(self) -> int:
        """Bit mask (bit i = goal i of the goal list) of the goals the current tops satisfy."""
        t = self.tops
        return self.satisfied[((t[0] * KINDS + t[1]) * KINDS + t[2]) * KINDS + t[3]]

    def has_play(self, seat: int) -> bool:
        tops = 0
        for t in self.tops:
            tops |= 1 << t
        return any(MATCHES[k] & tops for k in self.hands[seat])

    def legal_actions(self) -> list[int]:
        """§1.5: a card matching the top of a pile in colour or number; id = kind * 4 + pile.
        In a talk decision: say nothing, or a signal of the vocabulary that is true now."""
        if self.talking:
            return self.talk_legal()
        t0, t1, t2, t3 = self.tops
        legal = []
        previous = -1
        for k in self.hands[self.current_player]:
            if k == previous:
                continue  # both copies of a kind are the same action
            previous = k
            m = MATCHES[k]
            base = k * PILES
            if m >> t0 & 1:
                legal.append(base)
            if m >> t1 & 1:
                legal.append(base + 1)
            if m >> t2 & 1:
                legal.append(base + 2)
            if m >> t3 & 1:
                legal.append(base + 3)
        return legal

    def talk_legal(self) -> list[int]:
        """The talk actions of the seat to move: say nothing (``TALK_BASE``), and each word of
        the vocabulary on each pile or visible goal slot, where it is true (``signal_true``)."""
        legal = [TALK_BASE]
        hand = self.hands[self.current_player]
        for i, (word, names) in enumerate(VOCABULARIES[self.talk]):
            base = TALK_BASE + 1 + i * PILES
            for t in range(PILES):
                target = t if names == "pile" else self.visible[t]
                if target >= 0 and signal_true(word, target, hand, self.tops, self.satisfied):
                    legal.append(base + t)
        return legal

    def signal_of(self, action: int) -> tuple[int, int]:
        """(word: 0 for say nothing, else 1 + its vocabulary index; target: pile, goal id or -1)
        of a talk action, read in the current state (a goal slot names the goal showing)."""
        code = action - TALK_BASE
        if code == 0:
            return 0, -1
        i, t = divmod(code - 1, PILES)
        return i + 1, t if VOCABULARIES[self.talk][i][1] == "pile" else self.visible[t]

    # ---- transitions --------------------------------------------------------------------------
    def apply(self, action: int) -> None:
        if self.talking:
            self._say(action)
            return
        self.history.append(action)
        seat = self.current_player
        kind, pile = divmod(action, PILES)
        hand = self.hands[seat]
        hand.remove(kind)
        covered = self.tops[pile]
        # §1.5 effect 1: the card covers the top; covered cards stay public
        self.piles[pile].append(kind)
        self.tops[pile] = kind
        self.played[kind] += 1
        # effect 2: draw back to 4 while the draw pile lasts
        if self.draw_pile:
            insort(hand, self.draw_pile.pop())
        else:
            self.cards_in_hands -= 1
        # effect 3: cascading goal resolution; every seat scores the team's goals
        done = self._resolve_goals()
        mask = 0
        if done:
            for s in range(self.num_players):
                self.scores[s] += done
            for g in self.last_completed:
                mask |= 1 << g
            self.completed_by |= mask << (seat * NUM_GOAL_CARDS)
        self.plays.append((seat, kind, pile, covered, mask))
        bit = 1 << (seat * KINDS + kind)
        self.played_by |= bit << self.num_players * KINDS if self.played_by & bit else bit
        self.current_player = (seat + 1) % self.num_players
        self._check_end()
        if self.talk != "none" and not self.is_over:
            # the player who just played (and drew) makes a talk decision before the next turn
            self.talking = True
            self.current_player = seat

    def _say(self, action: int) -> None:
        """A talk decision: recorded as a public signal; the turn passes clockwise (whether the
        next player can play was checked after the play: hands do not change meanwhile)."""
        self.history.append(action)
        seat = self.current_player
        word, target = self.signal_of(action)
        self.signals = (*self.signals, (seat, len(self.plays), word, target))
        self.talking = False
        self.current_player = (seat + 1) % self.num_players

    def _resolve_goals(self) -> int:
        """§1.5 step 3 / A4: complete every visible goal the tops satisfy, refill the row from
        the goal deck, and repeat until nothing changes (the tops do not change meanwhile)."""
        satisfied = self.satisfied_goals()
        visible = self.visible
        done: list[int] = []
        while True:
            hit = [slot for slot in range(PILES) if visible[slot] >= 0 and satisfied >> visible[slot] & 1]
            if not hit:
                break
            for slot in hit:
                done.append(visible[slot])
                visible[slot] = self.goal_deck.pop() if self.goal_deck else -1
        self.completed.extend(done)
        self.last_completed = done
        return len(done)

    def _check_end(self) -> None:
        """§1.6: win when every goal is completed; loss 2 when every card is played with goals
        left; loss 1 when the player to move holds cards but has no legal play."""
        if not self.goals_left:
            self._finish(won=True, reason="")
        elif not self.cards_in_hands:
            self._finish(won=False, reason=LOSS_OUT_OF_CARDS)
        elif not self.has_play(self.current_player):
            self._finish(won=False, reason=LOSS_NO_PLAY)

    def _finish(self, won: bool, reason: str) -> None:
        self.is_over = True
        self.won = won
        self.loss_reason = reason
        self.loser = self.current_player if reason == LOSS_NO_PLAY else -1
        self.current_player = -1

    def outcome(self) -> list[float]:
        """Cooperative: +1 to every seat for a win, 0 for a loss (§1.6)."""
        return [1.0 if self.won else 0.0] * self.num_players

    # ---- notation ----------------------------------------------------------------------------
    def action_to_str(self, action: int) -> str:
        top = TALK_BASE + talk_actions(self.talk)
        if not 0 <= action < top:
            raise ValueError(f"action {action} is out of range 0..{top - 1}")
        if action >= TALK_BASE:
            word, target = self.signal_of(action)
            if action > TALK_BASE and target < 0:
                return f"{VOCABULARIES[self.talk][word - 1][0]} slot {(action - TALK_BASE - 1) % PILES}"
            return signal_str(self.talk, word, target)
        kind, pile = divmod(action, PILES)
        return f"play {card_str(kind)} on {pile}"

    # ---- copies and checks -------------------------------------------------------------------
    def card_locations(self) -> list[str]:
        cards: list[int] = []
        for zone in self.hands + self.piles + [self.draw_pile, self.box]:
            cards.extend(zone)
        return sorted(card_str(k) for k in cards)

    def resample_hidden(self, observer: int, rng: np.random.Generator) -> CahootsCoop:
        """Re-deal what ``observer`` cannot see (§1.7): the other hands (unless hands are open),
        the draw pile and the cards out of the game, keeping every size; and the goal deck,
        drawn afresh from the goals neither visible nor completed."""
        twin = self.clone()
        n = self.num_players
        hidden_seats = [] if self.open_hands else [s for s in range(n) if s != observer]
        pool = list(self.draw_pile) + list(self.box)
        for s in hidden_seats:
            pool.extend(self.hands[s])
        pool = [pool[i] for i in rng.permutation(len(pool))]
        at = 0
        for s in hidden_seats:
            size = len(self.hands[s])
            twin.hands[s] = sorted(pool[at : at + size])
            at += size
        twin.draw_pile = pool[at : at + len(self.draw_pile)]
        twin.box = sorted(pool[at + len(self.draw_pile) :])
        seen = set(self.completed) | {g for g in self.visible if g >= 0}
        unseen = [g for g in range(NUM_GOAL_CARDS) if g not in seen]
        picked = rng.permutation(len(unseen))[: len(self.goal_deck)]
        twin.goal_deck = [unseen[i] for i in picked]
        return twin
