"""The engine interface every game implements (pure Python, no gymnasium/pettingzoo).

The adapter in ``core/aec.py`` drives any ``Game`` through this interface; the shared test suite
checks every game through it (card accounting, hidden-information leak test, max length).
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
from typing_extensions import Self

from cahoots_envs.core.face import GameFace, registered_face
from cahoots_envs.core.layout import Layout
from cahoots_envs.core.options import OptionSet
from cahoots_envs.core.text import short_repr

GAME_OVER = "game_over"  # the phase name the envs report once a game is over


def phase_names(rules: type[Game]) -> tuple[str, ...]:
    """The phase names of a game in the order the envs' ``infos["phase"]`` indexes them: the
    game's ``PHASES``, then ``"game_over"``."""
    return (*rules.PHASES, GAME_OVER)


def phase_indices(rules: type[Game]) -> dict[str, int]:
    """Each phase name's index in ``phase_names(rules)``: what every env reports as
    ``infos["phase"]`` (look up ``GAME_OVER`` once the game is over)."""
    return {name: i for i, name in enumerate(phase_names(rules))}


class Game(abc.ABC):
    """One game in progress. Seats are ints 0..N-1, clockwise.

    Class attributes declare the game's nature as data; instances hold one game's state.
    All randomness comes from the ``rng`` given at construction (a seeded Generator).
    """

    NAME: ClassVar[str]  # "kansas_city"
    TITLE: ClassVar[str]
    VERSION: ClassVar[int] = 0
    # what each version changed, by version: ``make("<game>-v<old>")`` quotes every later note
    VERSION_NOTES: ClassVar[dict[int, str]] = {}
    # the oldest version whose game logs still replay (the rules have not changed since)
    REPLAYS_FROM: ClassVar[int] = 0
    PLAYER_COUNTS: ClassVar[tuple[int, ...]]
    DEFAULT_PLAYERS: ClassVar[int]
    OPTIONS: ClassVar[OptionSet]  # includes the common options (num_players, render/reward mode)
    DEAL_KEYS: ClassVar[tuple[str, ...]]
    # the names ``phase`` takes while the game runs, in a fixed order; the envs report a phase
    # by its index into ``phase_names(rules)``: these, then ``GAME_OVER`` (CONTRACT §7)
    PHASES: ClassVar[tuple[str, ...]]
    COOPERATIVE: ClassVar[bool] = False
    POINTS_SIGN: ClassVar[int] = 1  # -1 where rulebook points are bad (texas_euchre)
    # option sets (besides each player count) that the shared test suite also runs
    TEST_VARIANTS: ClassVar[tuple[dict[str, Any], ...]] = ()
    # the option sets a strength table measures, one row (group) each, over the policy's own
    # options (``cahoots strength``; only options a saved policy may play across)
    STRENGTH_VARIANTS: ClassVar[tuple[dict[str, Any], ...]] = ({},)
    # mutable state copied by ``clone``: lists, and lists of lists (everything else is immutable)
    CLONED_LISTS: ClassVar[tuple[str, ...]] = ()
    CLONED_NESTED_LISTS: ClassVar[tuple[str, ...]] = ()

    num_players: int
    current_player: int  # seat to move; -1 once the game is over
    is_over: bool
    scores: list[float]  # cumulative rulebook points per seat (coop: goals completed)
    # every hand's deal so far in the scripted-deal format (CONTRACT §5), recorded by the engine
    # as it deals: ``deals[-1]`` is the current hand's; a whole-game deal is this list
    deals: list[dict[str, Any]]
    # every action applied since the first deal, in order, all hands (replaying ``deals`` and
    # ``history`` through a fresh game gives this game again; see ``core/search.py``)
    history: list[int]

    # ---- declared per options -------------------------------------------------------------
    @classmethod
    @abc.abstractmethod
    def num_actions(cls, options: Mapping[str, Any]) -> int: ...

    @classmethod
    def layout(cls, options: Mapping[str, Any]) -> Layout:
        """The observation layout, as the registered spec of these rules gives it
        (``spec.layout``)."""
        return registered_face(cls).layout(options)

    @property
    def face(self) -> GameFace:
        """The game's spec (its encoder and text): the one that built it (``spec.new_game``),
        else the registered spec of its rules class (``core/face.py``), looked up once and kept
        on this game (its clones share it). Never stored on the class: a second spec over the
        same rules changes nothing here."""
        face = self.__dict__.get("_face")
        if face is None:  # encode and render run per step: the registry is asked once per game
            face = self.__dict__["_face"] = registered_face(type(self))
        return face

    @face.setter
    def face(self, face: GameFace) -> None:
        self.__dict__["_face"] = face

    @classmethod
    @abc.abstractmethod
    def max_game_length(cls, options: Mapping[str, Any]) -> int:
        """An upper bound on the number of decisions in one game."""

    @classmethod
    def chance_after_deal(cls, options: Mapping[str, Any]) -> bool:
        """Whether chance still acts after the deals (then the deals and the actions alone do
        not fix a game: its ``rng`` does too). False unless a game says otherwise."""
        return False

    @classmethod
    @abc.abstractmethod
    def full_deck(cls, options: Mapping[str, Any]) -> list[str]:
        """Every card of the game in notation, with multiplicity (for card accounting)."""

    # ---- one game -------------------------------------------------------------------------
    @abc.abstractmethod
    def __init__(
        self, options: Mapping[str, Any], rng: np.random.Generator, deal: Mapping[str, Any] | None
    ) -> None:
        """Deal a new game (from ``deal`` where given, see CONTRACT §5). A malformed deal raises
        ``ValueError`` before any state is built."""

    @property
    @abc.abstractmethod
    def phase(self) -> str: ...

    @property
    def hand_index(self) -> int:
        """Index of the current hand (0 for single-hand games): ``len(deals) - 1``."""
        return len(self.deals) - 1

    @abc.abstractmethod
    def legal_actions(self) -> list[int]:
        """The legal action ids of the seat to move, ascending; never empty while not over."""

    @abc.abstractmethod
    def apply(self, action: int) -> None:
        """Play a legal action (the adapter checks legality first)."""

    @abc.abstractmethod
    def outcome(self) -> list[float]:
        """Final payoff per seat for ``reward_mode='win'`` (see ``zero_sum_outcome``)."""

    def winning_seats(self) -> list[int]:
        """The seats that won the finished game: a positive payoff (ties share; a full tie has
        none; a cooperative team: every seat or none)."""
        return [s for s, x in enumerate(self.outcome()) if x > 0]

    def encode(self, seat: int, out: np.ndarray) -> None:
        """Write ``seat``'s observation into the zeroed buffer ``out``: only what that seat may
        know, relative to it (itself first, then the others clockwise)."""
        self.face.encoder.encode(self, seat, out)

    @abc.abstractmethod
    def action_to_str(self, action: int) -> str: ...

    def str_to_action(self, text: str) -> int:
        """Parse notation; ``ValueError`` (naming the legal actions) if not legal now."""
        return self.parse_legal(text)

    def render(self) -> str:
        """A table in the notation (spectator view)."""
        return self.face.text.render(self)

    def clone(self, rng: np.random.Generator | None = None) -> Self:
        """An independent copy: fields named in ``CLONED_LISTS`` / ``CLONED_NESTED_LISTS`` are
        copied, the generator too; all other fields must be immutable (ints, strs, tuples).

        ``rng`` gives the copy that generator instead of a copy of this game's (cheaper, and what
        search wants: a rollout's chance events come from its own seeded stream)."""
        twin = object.__new__(type(self))
        twin.__dict__.update(self.__dict__)
        for name in self.CLONED_LISTS:
            setattr(twin, name, list(getattr(self, name)))
        for name in self.CLONED_NESTED_LISTS:
            setattr(twin, name, [list(inner) for inner in getattr(self, name)])
        twin.deals = list(self.deals)  # the deal records themselves are never changed
        if "history" in self.__dict__:  # games written before search kept none
            twin.history = list(self.history)
        twin.rng = copy_generator(self.rng) if rng is None else rng  # type: ignore[attr-defined]
        return twin

    @abc.abstractmethod
    def card_locations(self) -> list[str]:
        """Every card the game holds anywhere (hands, piles, tricks, ...), in notation."""

    @abc.abstractmethod
    def resample_hidden(self, observer: int, rng: np.random.Generator) -> Game:
        """A copy in which every card ``observer`` cannot see is re-dealt at random, consistently
        with everything ``observer`` can see. Used by the leak test."""

    # ---- shared helpers -------------------------------------------------------------------
    def legal_strings(self) -> list[str]:
        return [self.action_to_str(a) for a in self.legal_actions()]

    def parse_legal(self, text: str) -> int:
        """Default ``str_to_action``: match the normalised text against the legal actions."""
        if not isinstance(text, str):
            raise ValueError(f"a move in notation is a str, got {short_repr(text)}")  # noqa: TRY004
        wanted = normalise_action_text(text)
        legal = self.legal_actions()
        for a in legal:
            if normalise_action_text(self.action_to_str(a)) == wanted:
                return a
        raise ValueError(
            f"{short_repr(text)} is not a legal action now; legal: "
            + describe_actions(self, legal, with_ids=False)
        )


def deal_seat(deal: Mapping[str, Any], key: str, num_players: int) -> int | None:
    """``deal[key]`` as a seat (``dealer``, ``start_player``), None when left out (CONTRACT §5)."""
    value = deal.get(key)
    if value is None:
        return None
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or not 0 <= value < num_players:
        raise ValueError(f"deal: {key} must be a seat 0..{num_players - 1}, got {value!r}")
    return int(value)


def deal_per_seat(deal: Mapping[str, Any], key: str, num_players: int, what: str) -> list[Any]:
    """``deal[key]`` as a list with one entry per seat (``hands``, ``identities``)."""
    raw = deal[key]
    if isinstance(raw, str) or not isinstance(raw, (list, tuple)) or len(raw) != num_players:
        raise ValueError(f"deal: {key} must be a list of {num_players} {what}, one per seat")
    return list(raw)


def split_deals(deal: Mapping[str, Any] | Sequence[Mapping[str, Any]] | None,
                max_hands: int) -> list[Mapping[str, Any]]:
    """A scripted deal as a list of per-hand deals (CONTRACT §7, whole-game deals): one dict is
    the first hand's deal; a list holds one deal per hand, in order (hands after the list are
    dealt from the RNG)."""
    if deal is None:
        return []
    if isinstance(deal, Mapping):
        return [deal]
    if isinstance(deal, (list, tuple)) and all(isinstance(d, Mapping) for d in deal):
        if not 1 <= len(deal) <= max_hands:
            raise ValueError(f"deal: a whole-game deal holds 1 to {max_hands} hands' deals "
                             f"(one dict per hand), got {len(deal)}")
        return list(deal)
    raise ValueError("deal must be a dict (the first hand's deal) or a list of dicts (one per hand)")


def parse_deals(
    deal: Mapping[str, Any] | Sequence[Mapping[str, Any]] | None,
    max_hands: int,
    parse_one: Callable[[Mapping[str, Any]], tuple[Any, ...]],
    num_players: int,
    seat_key: str = "dealer",
) -> list[tuple[Any, ...]]:
    """Validate a scripted deal hand by hand, before any state is built (``split_deals``).

    ``parse_one`` parses one hand's deal into a tuple whose first item is the hand's rotating
    seat (``seat_key``: the dealer, or the start player) or None where left out. A later hand's
    seat must be the one the rotation gives (one seat clockwise a hand); where the first hand
    leaves its seat out, the first later hand that names one fixes it. A whole-game deal's error
    names the hand ("deal of hand 3: ...")."""
    whole_game = not isinstance(deal, Mapping)
    parsed: list[tuple[Any, ...]] = []
    for k, one in enumerate(split_deals(deal, max_hands)):
        try:
            parsed.append(tuple(parse_one(one)))
        except ValueError as e:
            if not whole_game:
                raise
            raise ValueError(f"deal of hand {k + 1}: {str(e).removeprefix('deal: ')}") from None
    named = [(k, p[0]) for k, p in enumerate(parsed) if p[0] is not None]
    if named:
        k0, s0 = named[0]
        for k, seat in named[1:]:
            expected = (s0 + k - k0) % num_players
            if seat != expected:
                raise ValueError(
                    f"deal of hand {k + 1}: {seat_key} must be seat {expected}, got {seat} (it "
                    f"moves one seat clockwise a hand: hand {k0 + 1}'s {seat_key} is seat {s0})"
                )
        if parsed[0][0] is None:
            parsed[0] = ((s0 - k0) % num_players, *parsed[0][1:])
    return parsed


def copy_generator(rng: np.random.Generator) -> np.random.Generator:
    """A generator in the same state (cheaper than ``copy.deepcopy``)."""
    twin = np.random.Generator(type(rng.bit_generator)())
    twin.bit_generator.state = rng.bit_generator.state
    return twin


LEGAL_SHOWN = 20  # legal moves an error message lists before it gives only their count


def describe_actions(game: Game, actions: Sequence[int], limit: int = LEGAL_SHOWN,
                     with_ids: bool = True) -> str:
    """``actions`` for an error message, at most ``limit`` of them, then the count:
    ``0 (pass 1A 2A 4A), 1 (pass 1A 2A 7A), … and 344 more; 364 legal moves``."""
    shown = ", ".join(
        f"{a} ({game.action_to_str(a)})" if with_ids else game.action_to_str(a)
        for a in actions[:limit]
    )
    if len(actions) > limit:
        shown += f", … and {len(actions) - limit} more; {len(actions)} legal moves"
    return shown or "none"


def action_id(action: Any) -> int | None:
    """``action`` as an action id where it is of a type ``gymnasium.spaces.Discrete`` accepts
    (a Python int, a numpy integer scalar, a 0-d integer array), bools excepted; else None.
    The range is not checked."""
    if type(action) is int:
        return action
    if isinstance(action, (bool, np.bool_)):
        return None
    if isinstance(action, (int, np.integer)):
        return int(action)
    if isinstance(action, np.ndarray) and action.shape == () and np.issubdtype(action.dtype, np.integer):
        return int(action)
    return None


def normalise_action_text(text: str) -> str:
    """Case- and spacing-insensitive form; card lists compare in any order."""
    words = text.strip().upper().split()
    if len(words) > 2 and words[0] in ("PASS", "DISCARD"):
        return " ".join([words[0]] + sorted(words[1:]))
    return " ".join(words)


def zero_sum_outcome(scores: list[float], higher_is_better: bool = True) -> list[float]:
    """Winners (best score, ties share) split +1, the others split -1; a full tie gives 0."""
    n = len(scores)
    best = max(scores) if higher_is_better else min(scores)
    winners = [s == best for s in scores]
    k = sum(winners)
    if k == n:
        return [0.0] * n
    return [1.0 / k if w else -1.0 / (n - k) for w in winners]
