"""What each member of a game's face must offer, as ``typing.Protocol``s.

A game's ``GameSpec`` (``core/spec.py``) names its members: an encoder, a text module, a bot
and, where the game has them, a world sampler and a state layout. Each member's protocol here is
checked twice: by mypy where a game builds its spec (``GameSpec(encoder=encoder, ...)`` with a
module that lacks ``final_summary`` is a type error), and when the spec is built or registered
(``members(Text)`` names every member; one line of ``GameSpecError`` names each one missing).
The batched engine's face is the base class it subclasses, ``core/batched.py``'s
``BatchedEngine``: the spec holds it as a path, imported and checked (``issubclass``) only when
``vector`` loads it.

The game's parameters are typed ``Any``: each game's functions take its own rules class, which
a protocol over ``Game`` could not accept (parameters are contravariant).

A game in progress reaches its face through ``Game.face``: the spec that built it
(``GameSpec.new_game``), else the registered spec of its rules class (``registered_face``:
games built directly, ``KansasCity(options, rng, deal)``). Nothing is stored on a class.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import numpy as np

    from cahoots_envs.core.layout import Layout
    from cahoots_envs.core.policy import BasePolicy


class Encoder(Protocol):
    """A seat's observation (``games/<game>/encoder.py``)."""

    def build_layout(self, num_players: int) -> Layout:
        """The observation layout; ``GameSpec.layout`` gives it under the spec's env id."""

    def encode(self, game: Any, seat: int, out: np.ndarray) -> None:
        """Write what ``seat`` may know into the zeroed buffer ``out``, relative to it."""


class Text(Protocol):
    """The game in words (``games/<game>/text.py``): for people, never for policies."""

    def headline(self, game: Any) -> str:
        """One line: the hand, the phase, who is to move."""

    def render(self, game: Any) -> str:
        """The spectator table (every hand shown)."""

    def seat_view(self, game: Any, seat: int) -> str:
        """What ``seat`` may see now."""

    def public_action(self, game: Any, action: int, viewer: int) -> str:
        """How ``viewer`` sees the action the seat to move takes (before it is applied)."""

    def narrate(self, before: Any, after: Any) -> list[str]:
        """Short lines on what a step completed (tricks, hands, goals)."""

    @property
    def MOVE_EXAMPLES(self) -> Sequence[str]:
        """A few moves in the notation."""

    def final_summary(self, game: Any, seat: int | None = None) -> str:
        """The end of a game: scores and who won (``seat``: the person playing)."""

    @property
    def VERBS(self) -> Mapping[str, str]:
        """Every word a move begins with, lower case, and its kind: ``"cards"`` (the cards, and
        pile, it names follow), ``"hand"`` (several cards of one's own hand follow: a pass, a
        discard) or ``"word"`` (a move of fixed words: ``no upgrade``)."""

    @property
    def NOT_CARDS(self) -> Sequence[str]:
        """The notation's other words that are not cards, upper case (``ON``, ``NONE``)."""

    def summarise_moves(self, verb: str, moves: list[str]) -> str | None:
        """How a long move list sums up the legal ``moves`` of ``verb``; None for the shared
        form (``<verb> ... (<n> ways, e.g. <first>)``)."""


class Bot(Protocol):
    """The rule-based bot: ``bot(options, seed=None)`` gives a policy."""

    def __call__(self, options: Mapping[str, Any], seed: int | None = None) -> BasePolicy: ...


class WorldSampler(Protocol):
    """Worlds for search from what one seat knows (``games/<game>/search.py``, see
    ``core/search.py``)."""

    def knowledge(self, game: Any, seat: int) -> tuple[Any, ...]:
        """Everything ``seat`` knows now, canonical and hashable."""

    def sample_world(self, game: Any, seat: int, rng: np.random.Generator) -> Any:
        """A world consistent with what ``seat`` knows."""

    @property
    def FastBot(self) -> Callable[..., Any]:
        """The rule-based bot reading the game state: ``FastBot(options, seed=None)``."""

    def value(self, game: Any, seat: int) -> float:
        """The seat's expected payoff from here."""

    def worth_searching(self, game: Any, seat: int) -> bool:
        """Whether a decision of ``seat`` is searched at all."""

    @property
    def DEFAULTS(self) -> Mapping[str, Any]:
        """The game's search settings."""


class StateLayout(Protocol):
    """The global state's segments (``games/<game>/state.py``, see ``core/state.py``)."""

    def state_kinds(self, options: Mapping[str, Any]) -> dict[str, str]:
        """Each observation segment's kind: ``public``, ``seats`` or ``private``."""

    def undrawn_piles(self, options: Mapping[str, Any]) -> tuple[str, ...]:
        """The game's attributes holding cards still to be drawn, in an order no seat knows (the
        state must not show that order; the shared tests reorder them)."""


class View(Protocol):
    """The game as plain data for the browser view (``games/<game>/view.py``): what one seat may
    see, as JSON-able dicts, lists, strs, ints, floats, bools and None; never a fact the seat's
    observation hides. A view may also declare ``LAYOUT`` (optional, not checked): how image
    frames (``core/frame.py``) lay the table out, the data of the browser's
    ``web/static/games/<game>.js``; without it the frames infer a layout from the table."""

    def table(self, game: Any, seat: int | None) -> dict[str, Any]:
        """The view model of ``seat`` (``None``: the referee's, every hand shown)."""


class GameFace(Protocol):
    """What a game in progress reaches through ``Game.face`` (a ``GameSpec``)."""

    @property
    def encoder(self) -> Encoder: ...

    @property
    def text(self) -> Text: ...

    def layout(self, options: Mapping[str, Any]) -> Layout: ...


def members(protocol: type) -> tuple[str, ...]:
    """The names a protocol requires (its methods, properties and annotated attributes), in the
    order it declares them."""
    names = [name for name in vars(protocol) if not name.startswith("_")]
    names += [name for name in vars(protocol).get("__annotations__", {})
              if not name.startswith("_") and name not in names]
    return tuple(names)


# the registry installs its lookup here (rules class -> its registered spec, or None), so that a
# game built directly finds its face without core importing the layer above it
RULES_LOOKUP: list[Callable[[type], GameFace | None]] = []


def registered_face(rules: type) -> GameFace:
    """The registered spec of ``rules`` or of the nearest registered class it derives from (a
    test double subclassing a game finds that game's)."""
    if RULES_LOOKUP:
        for klass in rules.__mro__:
            face = RULES_LOOKUP[0](klass)
            if face is not None:
                return face
    raise RuntimeError(f"{getattr(rules, 'NAME', rules.__name__)}: no registered GameSpec holds "
                       "these rules; build the game with spec.new_game(options, rng, deal)")
