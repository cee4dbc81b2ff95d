"""The engine interface every game implements (pure Python, no gymnasium/pettingzoo).

The adapter in ``core/aec.py`` drives any ``Game`` through this interface; the shared test suite
checks every game through it (card accounting, hidden-information leak test, max length).
"""

from __future__ import annotations

import abc
import importlib
from collections.abc import Mapping
from types import ModuleType
from typing import Any, ClassVar

import numpy as np
from typing_extensions import Self

from cahoots_envs.core.layout import Layout
from cahoots_envs.core.options import OptionSet


class Game(abc.ABC):
    """One game in progress. Seats are ints 0..N-1, clockwise.

    Class attributes declare the game's nature as data; instances hold one game's state.
    All randomness comes from the ``rng`` given at construction (a seeded Generator).
    """

    NAME: ClassVar[str]  # "kansas_city"
    TITLE: ClassVar[str]
    VERSION: ClassVar[int] = 0
    PLAYER_COUNTS: ClassVar[tuple[int, ...]]
    DEFAULT_PLAYERS: ClassVar[int]
    OPTIONS: ClassVar[OptionSet]  # includes the common options (num_players, render/reward mode)
    DEAL_KEYS: ClassVar[tuple[str, ...]]
    COOPERATIVE: ClassVar[bool] = False
    _encoder_module: ClassVar[ModuleType | None] = None
    POINTS_SIGN: ClassVar[int] = 1  # -1 where rulebook points are bad (texas_euchre)
    # option sets (besides each player count) that the shared test suite also runs
    TEST_VARIANTS: ClassVar[tuple[dict[str, Any], ...]] = ()
    # mutable state copied by ``clone``: lists, and lists of lists (everything else is immutable)
    CLONED_LISTS: ClassVar[tuple[str, ...]] = ()
    CLONED_NESTED_LISTS: ClassVar[tuple[str, ...]] = ()

    num_players: int
    current_player: int  # seat to move; -1 once the game is over
    is_over: bool
    scores: list[float]  # cumulative rulebook points per seat (coop: goals completed)

    # ---- declared per options -------------------------------------------------------------
    @classmethod
    @abc.abstractmethod
    def num_actions(cls, options: Mapping[str, Any]) -> int: ...

    @classmethod
    def encoder(cls) -> ModuleType:
        """The game's encoder module, ``cahoots_envs/games/<NAME>/encoder.py``: it declares
        ``build_layout(num_players)``, ``encode(game, seat, out)`` and ``render(game)``. Imported
        on first use (it imports the rules module, so it cannot be imported with it)."""
        module = cls.__dict__.get("_encoder_module")
        if module is None:
            module = importlib.import_module(f"cahoots_envs.games.{cls.NAME}.encoder")
            cls._encoder_module = module
        return module

    @classmethod
    def layout(cls, options: Mapping[str, Any]) -> Layout:
        return cls.encoder().build_layout(options["num_players"])  # type: ignore[no-any-return]

    @classmethod
    @abc.abstractmethod
    def max_game_length(cls, options: Mapping[str, Any]) -> int:
        """An upper bound on the number of decisions in one game."""

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

    @abc.abstractmethod
    def legal_actions(self) -> list[int]:
        """The legal action ids of the seat to move, ascending; never empty while not over."""

    @abc.abstractmethod
    def apply(self, action: int) -> None:
        """Play a legal action (the adapter checks legality first)."""

    @abc.abstractmethod
    def outcome(self) -> list[float]:
        """Final payoff per seat for ``reward_mode='win'`` (see ``zero_sum_outcome``)."""

    def encode(self, seat: int, out: np.ndarray) -> None:
        """Write ``seat``'s observation into the zeroed buffer ``out``: only what that seat may
        know, relative to it (itself first, then the others clockwise)."""
        self.encoder().encode(self, seat, out)

    @abc.abstractmethod
    def action_to_str(self, action: int) -> str: ...

    def str_to_action(self, text: str) -> int:
        """Parse notation; ``ValueError`` (naming the legal actions) if not legal now."""
        return self.parse_legal(text)

    def render(self) -> str:
        """A table in the notation (spectator view)."""
        return self.encoder().render(self)  # type: ignore[no-any-return]

    def clone(self) -> Self:
        """An independent copy: fields named in ``CLONED_LISTS`` / ``CLONED_NESTED_LISTS`` are
        copied, the generator too; all other fields must be immutable (ints, strs, tuples)."""
        twin = object.__new__(type(self))
        twin.__dict__.update(self.__dict__)
        for name in self.CLONED_LISTS:
            setattr(twin, name, list(getattr(self, name)))
        for name in self.CLONED_NESTED_LISTS:
            setattr(twin, name, [list(inner) for inner in getattr(self, name)])
        twin.rng = copy_generator(self.rng)  # type: ignore[attr-defined]
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
        wanted = normalise_action_text(text)
        legal = self.legal_actions()
        for a in legal:
            if normalise_action_text(self.action_to_str(a)) == wanted:
                return a
        raise ValueError(
            f"{text!r} is not a legal action now; legal: {', '.join(self.action_to_str(a) for a in legal)}"
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


def copy_generator(rng: np.random.Generator) -> np.random.Generator:
    """A generator in the same state (cheaper than ``copy.deepcopy``)."""
    twin = np.random.Generator(type(rng.bit_generator)())
    twin.bit_generator.state = rng.bit_generator.state
    return twin


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
