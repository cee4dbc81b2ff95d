"""A game's whole face: ``GameSpec`` names everything that is about one game.

Shared layers (the AEC adapter, seat envs, logs, the CLI, docs, policies) reach a game only
through its spec, never by importing the game's modules. The spec is the one face: its members
(``spec.encoder``, ``spec.text``, ...) are what every consumer calls, and a game in progress
reaches them through ``game.face``, the spec that built it (``spec.new_game(options, rng,
deal)``; a game built directly gets the registered spec of its rules class). Nothing is bound
on the rules class: two specs over the same rules (a test double, a variant) each keep their own
members, and building or registering one never changes how another behaves. (The other way, the
rules class as the face, would tie each game's rules to its encoder and text modules, which
import the rules: the spec, built after both, is where they meet.) Each game folder builds its spec in
``games/<game>/spec.py``; a third-party package builds one the same way and publishes it through
the ``cahoots_envs.games`` entry-point group (see ``docs/architecture.md``).

Required members (checked when the spec is built, with one line naming what is missing):

- ``rules``: the engine, a ``Game`` subclass. It carries the game's declared nature (``NAME``,
  ``VERSION``, ``PLAYER_COUNTS``, ``OPTIONS``, ``DEAL_KEYS``, ...), its deal parser and, next to
  it, its deal record (every game keeps ``game.deals``: each hand's deal in the scripted-deal
  format, recorded when it is dealt).
- ``encoder``: a module (or object) with ``build_layout(num_players) -> Layout`` and
  ``encode(game, seat, out)`` (``core/face.py``'s ``Encoder``). The layout's env id is the
  spec's (``spec.layout``; an encoder that names one takes it from ``env_id_of(rules)``). An
  encoder whose layout other options change too also has ``layout_for_options(options)``.
- ``text``: a module (or object) with ``headline(game)``, ``render(game)`` (the spectator
  table), ``seat_view(game, seat)`` (what one seat may see), ``public_action(game, action,
  viewer)`` (how a viewer sees the action the seat to move takes), ``narrate(before, after)``
  (lines on what a step completed), ``final_summary(game, seat=None)``, ``MOVE_EXAMPLES`` (a
  few moves in the notation), ``VERBS`` and ``NOT_CARDS`` (the notation's words, which ``cahoots
  play`` reads) and ``summarise_moves(verb, moves)`` (``core/face.py``'s ``Text``).
- ``bot``: the rule-based bot, ``bot(options, seed=None) -> Policy``.
- ``doc_page``: the file whose module docstring is the game's doc page (rules summary, options,
  observation index table, action table, rewards, version history).

Optional members (``None`` when a game lacks them): ``world_sampler`` (search, see
``core/search.py``; every member of ``core/face.py``'s ``WorldSampler``), ``state_layout`` (the global state: an object with ``state_kinds(options)
-> {segment: "public" | "seats" | "private"}``, see ``core/state.py``), ``batched`` (the batched
engine), ``view`` (the browser view's model of what a seat sees: ``core/face.py``'s ``View``).
Asking for one a game lacks
through ``spec.require(name)`` raises ``NotAvailableError`` saying so, where it is used.

The whole spec is checked when it is built and again by ``register_game`` before any registry is
touched (``spec.check()``, ``spec_problems(spec)``): the members above, and what the rules declare
(``NAME`` a Python identifier, ``TITLE`` a non-empty str, ``VERSION`` a non-negative int,
``VERSION_NOTES`` notes for versions 1..``VERSION``, ``REPLAYS_FROM`` from 0 to ``VERSION``,
``PLAYER_COUNTS`` distinct positive ints, ``DEFAULT_PLAYERS`` one of them, ``OPTIONS`` an
``OptionSet`` holding ``common_options(PLAYER_COUNTS, DEFAULT_PLAYERS)`` and accepting its own
defaults, ``DEAL_KEYS`` strs, ``PHASES`` a non-empty tuple of distinct strs (not ``"game_over"``), ``COOPERATIVE`` a bool, ``POINTS_SIGN`` 1 or -1,
``STRENGTH_VARIANTS`` a non-empty tuple of distinct option dicts, each setting only options a
saved policy may play across, to values they accept: the rows of the game's strength table,
``cahoots strength``), ``doc_page`` an
existing file, ``batched`` a module path, module or class (not imported until used), ``extras``
a dict of other names. Every problem is one line of ``GameSpecError`` saying what is wrong and
what is allowed.
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from cahoots_envs.core.face import Bot, Encoder, StateLayout, Text, View, WorldSampler, members
from cahoots_envs.core.game import GAME_OVER, Game
from cahoots_envs.core.layout import Layout
from cahoots_envs.core.options import OptionSet
from cahoots_envs.core.text import short_repr
from cahoots_envs.errors import GameSpecError, NotAvailableError

NAMESPACE = "cahoots_envs"

# the members each protocol of ``core/face.py`` requires (checked when a spec is built)
ENCODER_MEMBERS = members(Encoder)
TEXT_MEMBERS = members(Text)
RULES_MEMBERS = ("NAME", "TITLE", "VERSION", "PLAYER_COUNTS", "DEFAULT_PLAYERS", "OPTIONS",
                 "DEAL_KEYS", "PHASES")
OPTIONAL_MEMBERS = ("world_sampler", "state_layout", "batched", "view")
# what an optional member must offer where a game has it (``core/search.py``, ``core/state.py``)
WORLD_SAMPLER_MEMBERS = members(WorldSampler)
STATE_LAYOUT_MEMBERS = members(StateLayout)
VIEW_MEMBERS = members(View)
COMMON_OPTIONS = ("num_players", "reward_mode")
# ``batched`` as a path: "package.module" or "package.module:Class" (imported only when used)
_MODULE_PATH = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*(:[A-Za-z_]\w*)?")


# the registry installs its lookup here, so that a pickled spec (a subprocess worker's env) is
# found again by id without core importing the layer above it
SPEC_LOOKUP: list[Callable[[str], GameSpec]] = []


def env_id_of(rules: type[Game]) -> str:
    """The canonical id of ``rules``' game, e.g. ``cahoots_envs/kansas_city-v1`` (the spec's
    ``env_id``; an encoder naming its layout's id takes it from here too)."""
    return f"{NAMESPACE}/{rules.NAME}-v{int(rules.VERSION)}"


def spec_by_id(env_id: str) -> GameSpec:
    """The registered spec of ``env_id`` (how a pickled ``GameSpec`` comes back)."""
    if not SPEC_LOOKUP:
        raise RuntimeError("no game registry loaded; import cahoots_envs first")
    return SPEC_LOOKUP[0](env_id)


def _missing(obj: Any, members: tuple[str, ...]) -> list[str]:
    return [m for m in members if not hasattr(obj, m)]


def _is_int(value: Any, low: int = 0) -> bool:
    """An int (a numpy int too, never a bool) of at least ``low``."""
    return (isinstance(value, numbers.Integral) and not isinstance(value, bool)
            and int(value) >= low)


def _is_sequence(value: Any) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, (str, bytes))


MAX_VERSION = 999  # registering a game registers a retired id for every earlier version


def _version_problems(rules: type[Game]) -> list[str]:
    if not _is_int(rules.VERSION):
        return [f"VERSION must be a non-negative int, got {short_repr(rules.VERSION)}"]
    if rules.VERSION > MAX_VERSION:
        return [(f"VERSION must be at most {MAX_VERSION} (every earlier version gets a retired "
                 f"id), got {short_repr(rules.VERSION)}")]
    version = int(rules.VERSION)
    problems = []
    notes = getattr(rules, "VERSION_NOTES", {})
    if not (isinstance(notes, dict) and all(_is_int(v, 1) and v <= version
                                            and isinstance(note, str)
                                            for v, note in notes.items())):
        allowed = "empty" if version == 0 else f"a dict of {{version 1..{version}: str note}}"
        problems.append(f"VERSION_NOTES must be {allowed} (VERSION is {version}), "
                        f"got {short_repr(notes)}")
    replays_from = getattr(rules, "REPLAYS_FROM", 0)
    if not (_is_int(replays_from) and replays_from <= version):
        problems.append(f"REPLAYS_FROM must be an int from 0 to VERSION ({version}), "
                        f"got {short_repr(replays_from)}")
    return problems


def _players_problems(rules: type[Game]) -> list[str]:
    counts, default, options = rules.PLAYER_COUNTS, rules.DEFAULT_PLAYERS, rules.OPTIONS
    problems = []
    counts_ok = (_is_sequence(counts) and len(counts) > 0 and all(_is_int(n, 1) for n in counts)
                 and len(set(counts)) == len(counts))
    if not counts_ok:
        problems.append("PLAYER_COUNTS must be a non-empty sequence of distinct positive ints, "
                        f"got {short_repr(counts)}")
    declared_ok = counts_ok and _is_int(default, 1) and default in counts
    if counts_ok and not declared_ok:
        problems.append(f"DEFAULT_PLAYERS must be one of PLAYER_COUNTS {tuple(counts)}, "
                        f"got {short_repr(default)}")
    if not isinstance(options, OptionSet):
        problems.append(f"OPTIONS must be an OptionSet, got {short_repr(options)}")
        return problems
    lacking = [name for name in COMMON_OPTIONS if name not in options.by_name]
    if lacking:
        problems.append(f"OPTIONS lacks {', '.join(lacking)}: include "
                        "common_options(PLAYER_COUNTS, DEFAULT_PLAYERS)")
    seats = options.by_name.get("num_players")
    if seats is not None and declared_ok and (
            tuple(seats.choices or ()) != tuple(counts) or seats.default != default):
        problems.append(f"OPTIONS' num_players must offer PLAYER_COUNTS {tuple(counts)} with "
                        f"default DEFAULT_PLAYERS {short_repr(default)} (common_options builds "
                        f"it), got choices {seats.choices} and default {short_repr(seats.default)}")
    for option in options:
        try:
            option.validate(option.default)
        except Exception:  # noqa: BLE001 (a default its own check refuses, however it refuses)
            problems.append(f"option {option.name}'s default {short_repr(option.default)} is "
                            f"not one it accepts ({option.describe()})")
    return problems


def variant_label(variant: dict[str, Any]) -> str:
    """How a strength table names the row of ``variant``: a str value by itself
    (``{"difficulty": "beginner"}``: ``beginner``), any other as ``key=value``, joined by ", ";
    ``default`` for no option set."""
    return ", ".join(value if isinstance(value, str) else f"{key}={value!r}"
                     for key, value in variant.items()) or "default"


def _strength_problems(rules: type[Game]) -> list[str]:
    """What is wrong with ``STRENGTH_VARIANTS`` (the rules' ``OPTIONS`` is an ``OptionSet``)."""
    variants: Any = getattr(rules, "STRENGTH_VARIANTS", ({},))
    options = rules.OPTIONS.by_name
    if not (isinstance(variants, tuple) and variants
            and all(isinstance(v, dict) and all(isinstance(k, str) for k in v) for v in variants)):
        return [("STRENGTH_VARIANTS must be a non-empty tuple of option dicts, e.g. ({},) (the "
                 "policy's own options) or ({'difficulty': 'beginner'}, {'difficulty': "
                 f"'normal'}}), got {short_repr(variants)}")]
    problems = []
    for i, variant in enumerate(variants):
        for key, value in variant.items():
            option = options.get(key)
            where = f"STRENGTH_VARIANTS[{i}]"
            if option is None or key in COMMON_OPTIONS or not option.policy_may_differ:
                may = [o.name for o in rules.OPTIONS
                       if o.policy_may_differ and o.name not in COMMON_OPTIONS]
                problems.append(
                    f"{where} sets {key!r}, which is not an option a saved policy may play across "
                    f"(the one policy plays every row); such options: {', '.join(may) or 'none'}")
                continue
            try:
                option.validate(value)
            except Exception as exc:  # noqa: BLE001 (a value its own check refuses, however)
                problems.append(f"{where}: {exc}")
    labels = [variant_label(v) for v in variants]
    twice = sorted({label for label in labels if labels.count(label) > 1})
    if twice:
        problems.append(f"STRENGTH_VARIANTS names a row twice ({', '.join(twice)}); each variant "
                        "must differ from the others")
    return problems


def _rules_problems(rules: type[Game]) -> list[str]:
    """What is wrong with the declared nature of ``rules`` (whose members all exist)."""
    problems = []
    if not (isinstance(rules.NAME, str) and rules.NAME.isidentifier()):
        problems.append("NAME must be a Python identifier (a str such as 'my_game'), "
                        f"got {short_repr(rules.NAME)}")
    if not (isinstance(rules.TITLE, str) and rules.TITLE.strip()):
        problems.append(f"TITLE must be a non-empty str, got {short_repr(rules.TITLE)}")
    problems += _version_problems(rules)
    problems += _players_problems(rules)
    if isinstance(rules.OPTIONS, OptionSet):
        problems += _strength_problems(rules)
    if not (_is_sequence(rules.DEAL_KEYS) and all(isinstance(k, str) for k in rules.DEAL_KEYS)):
        problems.append(f"DEAL_KEYS must be a sequence of str, got {short_repr(rules.DEAL_KEYS)}")
    phases = rules.PHASES
    if not (isinstance(phases, tuple) and phases and all(isinstance(p, str) for p in phases)
            and len(set(phases)) == len(phases) and GAME_OVER not in phases):
        problems.append("PHASES must be a non-empty tuple of distinct str (the names the game's "
                        f"phase takes; not {GAME_OVER!r}, which the envs add), got "
                        f"{short_repr(phases)}")
    cooperative = getattr(rules, "COOPERATIVE", False)
    if not isinstance(cooperative, bool):
        problems.append(f"COOPERATIVE must be a bool, got {short_repr(cooperative)}")
    sign = getattr(rules, "POINTS_SIGN", 1)
    if isinstance(sign, bool) or sign not in (1, -1):
        problems.append(f"POINTS_SIGN must be 1 or -1, got {short_repr(sign)}")
    return problems


def spec_problems(spec: GameSpec) -> list[str]:
    """Every problem of ``spec``, one line each saying what is wrong and what is allowed (empty
    for a spec that can be registered). Reads the spec and its members, changes nothing and
    imports nothing (``batched`` stays a path until the batched engine is used)."""
    rules = spec.rules
    if not (isinstance(rules, type) and issubclass(rules, Game)):
        return [f"rules must be a Game subclass, got {short_repr(rules)}"]
    lacking = [f"rules.{m}" for m in _missing(rules, RULES_MEMBERS)]
    lacking += [f"encoder.{m}" for m in _missing(spec.encoder, ENCODER_MEMBERS)]
    lacking += [f"text.{m}" for m in _missing(spec.text, TEXT_MEMBERS)]
    if not callable(spec.bot):
        lacking.append("bot (a callable bot(options, seed=None))")
    for member, needed in (("world_sampler", WORLD_SAMPLER_MEMBERS),
                           ("state_layout", STATE_LAYOUT_MEMBERS), ("view", VIEW_MEMBERS)):
        value = getattr(spec, member)
        if value is not None:
            lacking += [f"{member}.{m}" for m in _missing(value, needed)]
    problems = [f"lacks required member(s): {', '.join(lacking)}"] if lacking else []
    if not _missing(rules, RULES_MEMBERS):
        problems += _rules_problems(rules)
    if not (isinstance(spec.doc_page, Path) and spec.doc_page.is_file()):
        problems.append("doc_page must be the path (a pathlib.Path) of an existing file, "
                        f"got {short_repr(spec.doc_page)}")
    batched = spec.batched
    if not (batched is None or isinstance(batched, (ModuleType, type))
            or (isinstance(batched, str) and _MODULE_PATH.fullmatch(batched))):
        problems.append("batched must be None, a 'package.module' or 'package.module:Class' "
                        f"path, a module or a class, got {short_repr(batched)}")
    own = {f.name for f in fields(spec)}
    if not (isinstance(spec.extras, dict)
            and all(isinstance(k, str) and k not in own for k in spec.extras)):
        problems.append("extras must be a dict whose keys are strs other than the spec's own "
                        f"members ({', '.join(sorted(own))}), got {short_repr(spec.extras)}")
    return problems


@dataclass(frozen=True)
class GameSpec:
    """Everything about one game, declared once (see the module docstring)."""

    rules: type[Game]
    encoder: Encoder
    text: Text
    bot: Bot
    doc_page: Path
    world_sampler: WorldSampler | None = None
    state_layout: StateLayout | None = None
    batched: Any = None
    view: View | None = None
    extras: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.check()  # changes nothing: the rules class is not touched

    def new_game(self, options: dict[str, Any], rng: np.random.Generator,
                 deal: Any = None) -> Game:
        """A new game of these rules (``options`` resolved) whose ``face`` is this spec."""
        game = self.rules(options, rng, deal)
        game.face = self
        return game

    def check(self) -> None:
        """Raise ``GameSpecError`` naming every problem of this spec (``spec_problems``), one
        line each; nothing is changed. Run when the spec is built and by ``register_game``
        (the rules class may have changed since)."""
        problems = spec_problems(self)
        if problems:
            name = getattr(self.rules, "NAME", None)
            where = name if isinstance(name, str) else short_repr(self.rules)
            raise GameSpecError("\n".join(f"GameSpec for {where}: {p}" for p in problems))

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
        return env_id_of(self.rules)

    # ---- declared per options ---------------------------------------------------------------
    def resolve_options(self, options: dict[str, Any]) -> dict[str, Any]:
        return self.rules.OPTIONS.resolve(options, self.env_id)

    def layout(self, options: Mapping[str, Any]) -> Layout:
        """The observation layout, under this spec's env id (the encoder's, named or not, is
        replaced: a spec over a subclass of another game's rules has its own id)."""
        for_options = getattr(self.encoder, "layout_for_options", None)
        layout = (for_options(options) if for_options is not None
                  else self.encoder.build_layout(options["num_players"]))
        if layout.env_id == self.env_id:
            return layout
        return replace(layout, env_id=self.env_id)

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
