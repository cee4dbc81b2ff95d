"""A game's whole face: ``GameSpec`` names everything that is about one game.

Shared layers (the AEC adapter, seat envs, logs, the CLI, docs, policies) reach a game only
through its spec, never by importing the game's modules. Each game folder builds its spec in
``games/<game>/spec.py``; a third-party package builds one the same way and publishes it through
the ``cahoots_envs.games`` entry-point group (see ``docs/architecture.md``).

Required members (checked when the spec is built, with one line naming what is missing):

- ``rules``: the engine, a ``Game`` subclass. It carries the game's declared nature (``NAME``,
  ``VERSION``, ``PLAYER_COUNTS``, ``OPTIONS``, ``DEAL_KEYS``, ...), its deal parser and, next to
  it, its deal record (every game keeps ``game.deals``: each hand's deal in the scripted-deal
  format, recorded when it is dealt).
- ``encoder``: a module (or object) with ``build_layout(num_players) -> Layout`` and
  ``encode(game, seat, out)``.
- ``text``: a module (or object) with ``headline(game)``, ``render(game)`` (the spectator
  table), ``seat_view(game, seat)`` (what one seat may see), ``public_action(game, action,
  viewer)`` (how a viewer sees the action the seat to move takes), ``narrate(before, after)``
  (lines on what a step completed) and ``MOVE_EXAMPLES`` (a few moves in the notation).
- ``bot``: the rule-based bot, ``bot(options, seed=None) -> Policy``.
- ``doc_page``: the file whose module docstring is the game's doc page (rules summary, options,
  observation index table, action table, rewards, version history).

Optional members (``None`` when a game lacks them): ``world_sampler`` (search, see
``core/search.py``), ``state_layout`` (the global state: an object with ``state_kinds(options)
-> {segment: "public" | "seats" | "private"}``, see ``core/state.py``), ``batched`` (the batched
engine). Asking for one a game lacks
through ``spec.require(name)`` raises ``NotAvailableError`` saying so, where it is used.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cahoots_envs.core.game import Game
from cahoots_envs.core.layout import Layout
from cahoots_envs.errors import NotAvailableError

NAMESPACE = "cahoots_envs"

ENCODER_MEMBERS = ("build_layout", "encode")
TEXT_MEMBERS = ("headline", "render", "seat_view", "public_action", "narrate", "MOVE_EXAMPLES")
RULES_MEMBERS = ("NAME", "TITLE", "VERSION", "PLAYER_COUNTS", "DEFAULT_PLAYERS", "OPTIONS",
                 "DEAL_KEYS")
OPTIONAL_MEMBERS = ("world_sampler", "state_layout", "batched")


# the registry installs its lookup here, so that a pickled spec (a subprocess worker's env) is
# found again by id without core importing the layer above it
SPEC_LOOKUP: list[Callable[[str], GameSpec]] = []


def spec_by_id(env_id: str) -> GameSpec:
    """The registered spec of ``env_id`` (how a pickled ``GameSpec`` comes back)."""
    if not SPEC_LOOKUP:
        raise RuntimeError("no game registry loaded; import cahoots_envs first")
    return SPEC_LOOKUP[0](env_id)


def _missing(obj: Any, members: tuple[str, ...]) -> list[str]:
    return [m for m in members if not hasattr(obj, m)]


@dataclass(frozen=True)
class GameSpec:
    """Everything about one game, declared once (see the module docstring)."""

    rules: type[Game]
    encoder: Any
    text: Any
    bot: Callable[..., Any]
    doc_page: Path
    world_sampler: Any = None
    state_layout: Any = None
    batched: Any = None
    extras: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        where = getattr(self.rules, "NAME", repr(self.rules))
        if not (isinstance(self.rules, type) and issubclass(self.rules, Game)):
            raise TypeError(f"GameSpec for {where}: rules must be a Game subclass, got {self.rules!r}")
        problems = [f"rules.{m}" for m in _missing(self.rules, RULES_MEMBERS)]
        problems += [f"encoder.{m}" for m in _missing(self.encoder, ENCODER_MEMBERS)]
        problems += [f"text.{m}" for m in _missing(self.text, TEXT_MEMBERS)]
        if not callable(self.bot):
            problems.append("bot (a callable bot(options, seed=None))")
        if problems:
            raise TypeError(f"GameSpec for {where} lacks required member(s): {', '.join(problems)}")
        if not str(self.rules.NAME).isidentifier():
            raise ValueError(f"game name {self.rules.NAME!r} must be a Python identifier")
        # the engine reaches its encoder and text through the spec, never by a module path
        self.rules.bind(self.encoder, self.text)

    # a spec holds modules: copies share it, and pickles (subprocess workers) look it up again
    def __copy__(self) -> GameSpec:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> GameSpec:
        return self

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return spec_by_id, (self.env_id,)

    # ---- identity ---------------------------------------------------------------------------
    @property
    def name(self) -> str:
        return str(self.rules.NAME)

    @property
    def version(self) -> int:
        return int(self.rules.VERSION)

    @property
    def title(self) -> str:
        return str(self.rules.TITLE)

    @property
    def env_id(self) -> str:
        """The canonical id, e.g. ``cahoots_envs/kansas_city-v1``."""
        return f"{NAMESPACE}/{self.name}-v{self.version}"

    # ---- declared per options ---------------------------------------------------------------
    def resolve_options(self, options: dict[str, Any]) -> dict[str, Any]:
        return self.rules.OPTIONS.resolve(options, self.env_id)

    def layout(self, options: dict[str, Any]) -> Layout:
        return self.rules.layout(options)

    def doc(self) -> str:
        """The doc page: the docstring of ``doc_page``, read without importing it."""
        import ast

        tree = ast.parse(self.doc_page.read_text())
        return ast.get_docstring(tree, clean=False) or ""

    # ---- optional members -------------------------------------------------------------------
    def require(self, member: str) -> Any:
        """An optional member, or ``NotAvailableError`` ("<member> is not available for <game>")."""
        if member not in OPTIONAL_MEMBERS and member not in self.extras:
            known = ", ".join(OPTIONAL_MEMBERS + tuple(self.extras))
            raise ValueError(f"unknown game member {member!r}; optional members: {known}")
        value = self.extras.get(member) if member in self.extras else getattr(self, member)
        if value is None:
            raise NotAvailableError(f"{member.replace('_', ' ')} is not available for {self.name}")
        return value

    def has(self, member: str) -> bool:
        return (self.extras.get(member) if member in self.extras
                else getattr(self, member, None)) is not None
