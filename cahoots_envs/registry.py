"""The game registry: env ids, ``make``, ``list_envs``, and registering games (CONTRACT §1).

Every game, built in or not, is a ``GameSpec`` (``core/spec.py``) registered here; PettingZoo's
own registry gets each id too, so ``pettingzoo.make("aec", "cahoots_envs/<game>-v<N>")`` and
``pettingzoo.make("parallel", ...)`` work, and Gymnasium's gets the single-seat env of each game
as ``cahoots_envs/<game>_seat-v<N>`` (``gymnasium.make``; see ``training/seat_env.py``).

- The built-in games are listed once, in ``BUILTIN_GAMES`` (``module:attribute`` of each spec).
- Games published by other packages are found through the entry-point group
  ``cahoots_envs.games`` (each entry point names a ``GameSpec``), so ``pip install`` of such a
  package is all it takes; a broken one (whatever it raises, ``SystemExit`` included; only
  ``KeyboardInterrupt`` goes through) is skipped with a warning naming it and the error, and
  leaves nothing registered.
- ``register_game(spec)`` adds a game at run time; ``unregister_game(name)`` undoes it (also in
  PettingZoo's registry). Registering checks the whole spec first (``GameSpec.check``: one line
  per problem, before any registry is touched) and is all or nothing: if anything fails midway,
  this registry, PettingZoo's and Gymnasium's ``cahoots_envs/`` ids are put back as they were.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from importlib.metadata import entry_points
from typing import Any

import gymnasium
import pettingzoo

from cahoots_envs.core.face import RULES_LOOKUP
from cahoots_envs.core.spec import NAMESPACE, SPEC_LOOKUP, GameSpec
from cahoots_envs.core.text import short_repr
from cahoots_envs.errors import RetiredEnvError

ENTRY_POINT_GROUP = "cahoots_envs.games"

# the one list of built-in games: the same mechanism as a plugin's entry point
BUILTIN_GAMES = (
    "cahoots_envs.games.kansas_city.spec:SPEC",
    "cahoots_envs.games.texas_euchre.spec:SPEC",
    "cahoots_envs.games.cahoots_tricks.spec:SPEC",
    "cahoots_envs.games.cahoots_coop.spec:SPEC",
)

_SPECS: dict[str, GameSpec] = {}
# game name -> version of every registered game (a live view kept in step with the registry)
GAMES: dict[str, int] = {}


def _load_reference(reference: str) -> GameSpec:
    module_name, _, attribute = reference.partition(":")
    value = getattr(importlib.import_module(module_name), attribute or "SPEC")
    if not isinstance(value, GameSpec):
        raise TypeError(f"{reference} is a {type(value).__name__}, not a cahoots_envs GameSpec")
    return value


def _id_registries() -> tuple[dict[str, Any], ...]:
    """The other registries ``register_game`` writes to (ids under ``cahoots_envs/``)."""
    return pettingzoo.aec_registry, pettingzoo.parallel_registry, gymnasium.registry


@contextmanager
def _all_or_nothing() -> Iterator[None]:
    """If the block raises anything, put every game registry back as it was before it: this
    one, ``GAMES``, and PettingZoo's and Gymnasium's ``cahoots_envs/`` ids (others' ids are left
    alone); then the error goes on."""
    specs, games = dict(_SPECS), dict(GAMES)
    ids = [{k: v for k, v in r.items() if k.startswith(NAMESPACE + "/")} for r in _id_registries()]
    try:
        yield
    except BaseException:
        _SPECS.clear()
        _SPECS.update(specs)
        GAMES.clear()
        GAMES.update(games)
        for live, saved in zip(_id_registries(), ids):
            for key in [k for k in live if k.startswith(NAMESPACE + "/")]:
                del live[key]
            live.update(saved)
        raise


def register_game(spec: GameSpec, *, replace: bool = False) -> str:
    """Register ``spec``'s game (and its id in PettingZoo's registry); returns the env id.

    The whole spec is checked first (``spec.check()`` raises ``GameSpecError``, one line per
    problem) and a second game under a registered name raises ``ValueError`` unless
    ``replace=True``, before any registry is touched; should anything fail while registering,
    every registry is put back as it was."""
    if not isinstance(spec, GameSpec):
        raise TypeError(f"register_game takes a GameSpec, got {type(spec).__name__}")
    spec.check()  # again: the rules class may have changed since the spec was built
    name = spec.name
    if name in _SPECS and _SPECS[name] is not spec and not replace:
        raise ValueError(
            f"a game named {name!r} is already registered ({_SPECS[name].env_id}); "
            "unregister_game() it first or pass replace=True"
        )
    with _all_or_nothing(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo warns when an id is overridden
        if name in _SPECS:
            _unregister_pettingzoo(_SPECS[name].env_id)
        _SPECS[name] = spec
        GAMES[name] = spec.version
        for api in ("aec", "parallel"):
            pettingzoo.register(api, spec.env_id, entry_point=_Factory(spec.env_id, api))
            for old in range(spec.version):  # so pettingzoo.make(<retired id>) says what to use
                pettingzoo.register(api, f"{NAMESPACE}/{name}-v{old}",
                                    entry_point=_Factory(f"{NAMESPACE}/{name}-v{old}", api))
        # by name: the seat env lives in training/, above this module (imported at make time)
        # ... and its vector entry point (the batched engine) beside it
        gymnasium.register(seat_env_id(spec), entry_point=SEAT_ENTRY_POINT,
                           vector_entry_point=SEAT_VECTOR_ENTRY_POINT,
                           kwargs={"env_id": spec.env_id})
    return spec.env_id


def unregister_game(name_or_id: str) -> GameSpec:
    """Remove a registered game (by name or env id) from this registry and PettingZoo's."""
    spec = game_spec(name_or_id)
    with _all_or_nothing():
        del _SPECS[spec.name]
        del GAMES[spec.name]
        _unregister_pettingzoo(spec.env_id)
    return spec


def _unregister_pettingzoo(env_id: str) -> None:
    name, _, version = env_id.rpartition("-v")
    for v in range(int(version) + 1):
        pettingzoo.aec_registry.pop(f"{name}-v{v}", None)
        pettingzoo.parallel_registry.pop(f"{name}-v{v}", None)
    gymnasium.registry.pop(f"{name}_seat-v{version}", None)


SEAT_ENTRY_POINT = "cahoots_envs.training.seat_env:make_seat_env"
SEAT_VECTOR_ENTRY_POINT = "cahoots_envs.training.seat_vector_env:make_seat_vector_env"


def seat_env_id(spec: GameSpec) -> str:
    """The Gymnasium id of a game's single-seat env, e.g. ``cahoots_envs/kansas_city_seat-v1``."""
    return f"{NAMESPACE}/{spec.name}_seat-v{spec.version}"


class _Factory:
    """PettingZoo's entry point for one id: builds the protected env (``make``) or its parallel
    view (``make_parallel``)."""

    def __init__(self, env_id: str, api: str = "aec") -> None:
        self.env_id = env_id
        self.api = api

    def __call__(self, **options: Any) -> Any:
        return (make if self.api == "aec" else make_parallel)(self.env_id, **options)


def builtin_games() -> list[GameSpec]:
    """The specs of the games shipped in this package (``BUILTIN_GAMES``), in that order."""
    return [_load_reference(reference) for reference in BUILTIN_GAMES]


def registered_games() -> list[GameSpec]:
    """The spec of every registered game, in registration order."""
    return list(_SPECS.values())


def list_envs() -> list[str]:
    """Every registered env id, e.g. ``cahoots_envs/kansas_city-v1``."""
    return [spec.env_id for spec in _SPECS.values()]


def game_spec(env_id: str, *, replay: bool = False) -> GameSpec:
    """The ``GameSpec`` of ``env_id``: ``cahoots_envs/kansas_city-v1``, ``kansas_city-v1`` or
    just ``kansas_city`` all name the same game.

    An earlier version's id raises ``RetiredEnvError`` naming the current one and what changed;
    with ``replay=True`` (game logs) it is accepted while the game's rules are unchanged since
    (the rules class's ``REPLAYS_FROM``)."""
    name = env_id.split("/", 1)[1] if env_id.startswith(NAMESPACE + "/") else env_id
    game, _, version = name.partition("-v")
    spec = _SPECS.get(game)
    if spec is None and "_v" in game:  # the module style, kansas_city_v1
        game, _, version = game.rpartition("_v")
        spec = _SPECS.get(game)
    if spec is not None and version and version != str(spec.version):
        if version.isdigit() and int(version) < spec.version:
            if replay and int(version) >= spec.rules.REPLAYS_FROM:
                return spec
            raise RetiredEnvError(retired_message(spec, int(version)))
        spec = None
    if spec is None:
        raise ValueError(f"unknown env {short_repr(env_id)}; known envs: "
                         f"{', '.join(list_envs())}")
    return spec


def retired_message(spec: GameSpec, version: int) -> str:
    """Why ``<game>-v<version>`` is refused: the current id and every change since."""
    changes = "; ".join(note for v, note in sorted(spec.rules.VERSION_NOTES.items()) if v > version)
    message = (f"{spec.name}-v{version} is retired: use {spec.name}-v{spec.version} "
               f"({changes or 'a newer version'})")
    if version >= spec.rules.REPLAYS_FROM:
        message += f"; policies trained on v{version} must be retrained, its game logs still replay"
    return message



def retired_module(module_name: str) -> tuple[Callable[..., Any], Callable[..., Any],
                                               Callable[[str], Any]]:
    """``env``, ``raw_env`` and a module ``__getattr__`` for ``cahoots_envs.<game>_v<old>``, the
    module of a retired version: each raises saying which version to use and what changed."""
    env_id = module_name.rpartition(".")[2]

    def retired() -> RetiredEnvError:
        try:
            game_spec(env_id)
        except RetiredEnvError as exc:
            return exc
        raise AssertionError(f"{env_id} is expected to be retired")  # pragma: no cover

    def factory(**options: Any) -> Any:
        raise retired()

    def attribute(name: str) -> Any:
        raise AttributeError(f"module {module_name!r} has no attribute {name!r}: {retired()}")

    return factory, factory, attribute

SPEC_LOOKUP[:] = [game_spec]


def _spec_of_rules(rules: type) -> GameSpec | None:
    """The registered spec whose rules are exactly ``rules`` (a game built directly finds its
    face through this: ``core/face.py``'s ``registered_face``)."""
    spec = _SPECS.get(getattr(rules, "NAME", None))  # type: ignore[arg-type]
    return spec if spec is not None and spec.rules is rules else None


RULES_LOOKUP[:] = [_spec_of_rules]


def make(env_id: str, **options: Any) -> Any:
    """The protected env (``env()``) for ``env_id``; the ``cahoots_envs/`` prefix is optional."""
    from cahoots_envs.core.aec import CardGameEnv

    return CardGameEnv(game_spec(env_id), protected=True, **options)


def make_parallel(env_id: str, idle_action: int | None = None, **options: Any) -> Any:
    """The PettingZoo parallel env (``parallel_env()``) for ``env_id``: turn-based, see
    ``cahoots_envs.core.parallel`` (``idle_action``: the placeholder move of the seats not on
    turn; None, the default, leaves their masks all zero)."""
    from cahoots_envs.core.aec import CardGameEnv
    from cahoots_envs.core.parallel import CardGameParallelEnv

    return CardGameParallelEnv(CardGameEnv(game_spec(env_id), protected=True, **options),
                               idle_action)


def make_raw(env_id: str, **options: Any) -> Any:
    """The bare env (``raw_env()``) for ``env_id``."""
    from cahoots_envs.core.aec import CardGameEnv

    return CardGameEnv(game_spec(env_id), protected=False, **options)


def discover_games() -> None:
    """Register the built-in games, then every game published under ``ENTRY_POINT_GROUP``."""
    for reference in BUILTIN_GAMES:
        spec = _load_reference(reference)
        if spec.name not in _SPECS:
            register_game(spec)
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        try:
            # whatever its import registered before it failed goes too
            with _all_or_nothing():
                _register_plugin(entry.load())
        except KeyboardInterrupt:
            raise
        # a broken plugin must not break the package, not even one calling sys.exit()
        except BaseException as e:  # noqa: BLE001
            warnings.warn(
                f"cahoots_envs: skipping the game published as {entry.name!r} "
                f"({entry.value}) in {ENTRY_POINT_GROUP!r}: {type(e).__name__}: {e}",
                stacklevel=2,
            )


def _register_plugin(spec: Any) -> None:
    if not isinstance(spec, GameSpec):
        raise TypeError(f"it is a {type(spec).__name__}, not a GameSpec")
    if spec.name in _SPECS:
        if _SPECS[spec.name] is not spec:
            raise ValueError(f"a game named {spec.name!r} is already registered")
        return
    register_game(spec)
