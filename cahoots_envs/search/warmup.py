"""Compile ahead of time every numba kernel a game uses, into numba's on-disk cache.

A process that meets a kernel numba has not cached compiles it first (10-35 s a game on a
2-core machine with the cache cold: docs/lab/search_warmup.md), whatever a search bot's ``time_limit``
says; ``warmup(games)`` (``cahoots warmup [game ...]``) runs, per game, the code paths that
call them, so that later processes only load them:

- the batched engine: a batch of games dealt and played to their ends (and dealt again) by the
  rule-based bot's ``act_batch`` (its compiled twin; ``act_batch_with_ties`` too, which
  behaviour cloning uses), and the game's computed play features (``extras["play_features"]``,
  which the zoo networks read) on the engine's observations;
- search: one whole game of the reference game in which two search bots search every decision
  (``search_all``): one rolls out with the rule-based bot's compiled twin (the default
  ``search``), one in lockstep through its ``act_batch`` (as over a network blueprint,
  ``search:zoo:<game>``, whose rollouts' hand ends other kernels value); the world sampler's
  kernels, the engine's loader, rollout and value kernels, with every signature a game meets on
  the way (Texas Euchre and Cahoots tricks call some with a second one mid-game); then a few of
  its positions searched together (``act_infosets``, the labelling and seat-env path) by each,
  on the options search plays (``reward_mode='win'``).

Numba writes the cache next to each module (``__pycache__``) or, where the package folder is
not writable (a wheel installed as root), in the user's cache folder; ``NUMBA_CACHE_DIR`` (read
when numba is imported) puts it where it says, for every process that sets it the same way.
``warmup`` returns per game the seconds spent and how many kernels compiled and loaded: a second
run on the same cache compiles none.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from cahoots_envs.core.spec import GameSpec
from cahoots_envs.search.infoset import Infoset
from cahoots_envs.search.policy import SearchPolicy

ENGINE_GAMES = 64  # games of the warm-up batch
MAX_ENGINE_STEPS = 5_000  # steps before the batch's games must all have ended once
# the search bot's settings: a small budget (the kernels are the same at any budget) at every
# decision with a choice
SEARCH_KNOBS: dict[str, Any] = {"worlds": 2, "max_worlds": 4, "search_all": True}
TOGETHER = 4  # positions searched together at the end


def warmable(spec: GameSpec) -> bool:
    """Whether ``spec``'s game has kernels to warm: a batched engine or a world sampler."""
    return spec.has("batched") or spec.has("world_sampler")


def resolve_games(games: Sequence[str] | None) -> list[GameSpec]:
    """The specs of ``games`` (names or env ids; None: every registered game with kernels);
    ``ValueError`` (one line, naming the games that have kernels) for an unknown game or one
    without kernels, before anything compiles."""
    from cahoots_envs.registry import game_spec, registered_games

    able = [s for s in registered_games() if warmable(s)]
    if games is None:
        return able
    names = ", ".join(s.name for s in able) or "none"
    specs: list[GameSpec] = []
    for name in games:
        try:
            spec = game_spec(name)
        except ValueError as e:
            raise ValueError(f"{e}; warmup takes games with kernels: {names}") from None
        if not warmable(spec):
            raise ValueError(f"{spec.name} has no numba kernels (no batched engine, no world "
                             f"sampler): nothing to warm; games with kernels: {names}")
        if spec not in specs:
            specs.append(spec)
    return specs


def cache_location() -> str:
    """Where numba caches kernels in this process, in words."""
    from numba.core import config

    where = getattr(config, "CACHE_DIR", "")  # set from NUMBA_CACHE_DIR when numba loads
    if where:
        return f"{where} (NUMBA_CACHE_DIR)"
    return ("next to each module (__pycache__ folders of the cahoots_envs package), or the "
            "user cache folder where the package folder is not writable")


def _dispatchers() -> list[Any]:
    """Every numba dispatcher of the loaded ``cahoots_envs`` modules."""
    import sys

    from numba.core.dispatcher import Dispatcher

    found: dict[int, Any] = {}
    for name, module in list(sys.modules.items()):
        if name.startswith("cahoots_envs") and module is not None:
            for value in list(vars(module).values()):
                if isinstance(value, Dispatcher):
                    found[id(value)] = value
    return list(found.values())


@contextlib.contextmanager
def counting_compiles() -> Iterator[dict[str, int]]:
    """Counts, while active, the kernel signatures numba compiles (``compiled``: its
    ``numba:compile`` events, which a load from the on-disk cache does not raise) and loads
    from its cache (``loaded``: the dispatchers' cache hits, read at the end)."""
    from numba.core import event

    counts = {"compiled": 0, "loaded": 0}
    before = {id(d): sum(d._cache_hits.values()) for d in _dispatchers()}

    class Count(event.Listener):
        def on_start(self, ev: event.Event) -> None:
            counts["compiled"] += 1

        def on_end(self, ev: event.Event) -> None:
            pass

    with event.install_listener("numba:compile", Count()):
        yield counts
    counts["loaded"] = sum(sum(d._cache_hits.values()) - before.get(id(d), 0)
                           for d in _dispatchers())


def warmup(games: list[str] | None = None, *,
           progress: Callable[[str], None] | None = None) -> dict[str, dict[str, Any]]:
    """Compile every kernel of ``games`` (names or env ids; None: every registered game with
    kernels) into numba's on-disk cache. Returns ``{game: {"seconds": float, "compiled": int,
    "loaded": int}}``: kernel signatures compiled (0: everything was cached already) and
    loaded from the cache. ``progress`` gets one line per game as it finishes. ``ValueError``
    (one line) for an unknown game or one without kernels, ``ImportError`` without numba, both
    before any work."""
    specs = resolve_games(games)
    try:
        import numba  # noqa: F401
    except ImportError:
        raise ImportError('warmup compiles numba kernels, and numba is not installed: '
                          'pip install "cahoots-envs[fast]"') from None
    results: dict[str, dict[str, Any]] = {}
    for spec in specs:
        start = time.perf_counter()
        with counting_compiles() as counts:
            _warm_game(spec)
        seconds = time.perf_counter() - start
        results[spec.name] = {"seconds": seconds, **counts}
        if progress is not None:
            what = (f"{counts['compiled']} kernel signatures compiled"
                    if counts["compiled"] else "nothing to compile")
            progress(f"{spec.name}: {what}, {counts['loaded']} loaded from the cache, "
                     f"{seconds:.1f} s")
    return results


def _warm_game(spec: GameSpec) -> None:
    options = spec.resolve_options({})
    if spec.has("batched"):
        _warm_engine(spec, options)
    if spec.has("world_sampler"):
        _warm_search(spec, options)


def _warm_engine(spec: GameSpec, options: dict[str, Any]) -> None:
    """A batch dealt and played by the rule-based bot until every game ended once (the
    engine's reset, step and deal kernels, the bot's kernel), the play features on the way."""
    from cahoots_envs.vector import make

    vec = make(spec.name, ENGINE_GAMES, seed=0, **options)
    bot = spec.bot(options, seed=0)
    features = spec.extras.get("play_features", {})
    with_ties = getattr(bot, "act_batch_with_ties", None)
    out = vec.reset()
    ended = np.zeros(ENGINE_GAMES, np.bool_)
    for step in range(MAX_ENGINE_STEPS):
        if step == 0:
            for function in features.values():
                function(out.obs, options["num_players"], out.mask.shape[1])
            if with_ties is not None:
                with_ties(out.obs, out.mask)
        out = vec.step(bot.act_batch(out.obs, out.mask))
        ended[out.finished] = True
        if ended.all():
            break


class _Lockstep:
    """The rule-based bot behind another type: an engine's ``play_out`` (its compiled twin of
    that bot) declines it, so its rollouts run in lockstep, as a network blueprint's do."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(self.bot.act(observation, action_mask))

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        return np.asarray(self.bot.act_batch(observations, action_masks))


def _search_bots(spec: GameSpec, options: dict[str, Any], seed: int) -> list[SearchPolicy]:
    """Search bots over the game's rule-based bot on both engine paths: rollouts in one call of
    its compiled twin (``play_out``, the default ``search``), and in lockstep through its
    ``act_batch`` (the path of a network blueprint, ``search:zoo:<game>``, whose rows' hand ends
    are valued by other kernels)."""
    twin = SearchPolicy(spec.env_id, options, seed=seed, **SEARCH_KNOBS)
    lockstep = SearchPolicy(spec.env_id, options,
                            blueprint=_Lockstep(spec.bot(options, seed=seed)),
                            blueprint_name="lockstep", seed=seed, **SEARCH_KNOBS)
    return [twin, lockstep]


def _warm_search(spec: GameSpec, options: dict[str, Any]) -> None:
    """One whole reference game in which both search bots (``_search_bots``) search every
    decision (the first one's move is played), then a few of its positions searched together
    by each."""
    bots = _search_bots(spec, options, 0)
    game = spec.rules(options, np.random.default_rng(0), None)
    kept: list[Infoset] = []
    while not game.is_over:
        infoset = Infoset(game, game.current_player, spec, options)
        if len(infoset.legal) >= 2 and len(kept) < TOGETHER:
            kept.append(Infoset(game.clone(), game.current_player, spec, options))
        moves = [bot.act_infoset(infoset) for bot in bots]
        game.apply(int(moves[0]))
    for bot in _search_bots(spec, options, 1):
        bot.act_infosets(kept)
