"""Labelling throughput: searched positions per second on one core (``label_positions``).

    python benchmarks/bench_labelling.py                       # every row, every blueprint
    python benchmarks/bench_labelling.py --rows kansas_city --games 4 --blueprints heuristic

Per row (the rows of ``search_strength.py``), the positions are every decision with 2 to
``max_candidates`` legal moves (the ones a labelling run searches) of ``--games`` seeded
heuristic games, every seat; they are labelled in one ``label_positions`` call at the game's
shipped search settings over each blueprint (``heuristic``: the game's rule-based bot, its
compiled batch kernel where it has one; ``zoo``: the game's zoo network, one forward pass for
all rows of a ply; ``zoo+heuristic``: the zoo network deciding the positions' default moves and
the heuristic playing the rollouts, as the expert-iteration recipes label and as ``search``
plays in the competitive games), after a warm-up call on a few positions (kernels compiled), on the path a
search bot would take (``path``: the engine, or the reference game one position at a time where
the game's heuristic searches faster there, ``HEURISTIC_BATCHED = False``). One process,
one thread (BLAS limited to one): labels per second of wall time, and per CPU-second of the
process (the per-core figure on a shared machine, where wall time counts other jobs' turns).
The worlds and rollouts per label are printed, and the CPU time the world sampler alone takes
on the same positions and seeds (with Python's cyclic collector paused, as a search runs), as
a share (drawing the worlds is part of every label). ``--parts`` also prints, per row, each
part's share of the labelling call's CPU time, from timers around the search's methods:
drawing the worlds, loading them into the engine (building their histories, the engine's reset,
dealing copied games their current hands where the worlds share earlier hands, and the replay),
copying rows, the rollouts.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from search_strength import ROWS

# ``zoo+heuristic``: the zoo network as the blueprint (its move the default), the heuristic
# playing the rollouts, as the expert-iteration recipes label and as ``search`` plays in the
# competitive games
BLUEPRINTS = ("heuristic", "zoo", "zoo+heuristic")


def positions(row: str, games: int, seed: int) -> list[Any]:
    """Every searchable decision (2..max_candidates legal moves) of ``games`` seeded heuristic
    games of ``row``."""
    import numpy as np

    import cahoots_envs
    from cahoots_envs.search import SearchPolicy

    env_id, options = ROWS[row]
    spec = cahoots_envs.game_spec(env_id)
    opts = spec.resolve_options(options)
    most = SearchPolicy(env_id, opts).settings["max_candidates"]
    found = []
    for g in range(games):
        game = spec.rules(opts, np.random.default_rng(seed + g), None)
        bot = spec.bot(opts, seed=seed + g)
        while not game.is_over:
            if 2 <= len(game.legal_actions()) <= most:
                found.append(game.clone())
            game.apply(int(bot.act(*_observe(game, spec, opts))))
    return found


def _observe(game: Any, spec: Any, opts: dict[str, Any]) -> tuple[Any, Any]:
    from cahoots_envs.search import Infoset

    info = Infoset(game, game.current_player, spec, opts)
    return info.observation, info.action_mask


def sampling_seconds(row: str, found: list[Any], labels: list[Any], seed: int) -> float:
    """The world sampler's time alone: the worlds the labels drew, drawn again."""
    import numpy as np

    import cahoots_envs
    from cahoots_envs.search import Infoset
    from cahoots_envs.search.label import position_seed
    from cahoots_envs.search.rounds import gc_paused

    env_id, options = ROWS[row]
    spec = cahoots_envs.game_spec(env_id)
    opts = spec.resolve_options(options)
    fresh = [game.clone() for game in found]  # a sampler's per-game caches start empty
    start = time.process_time()
    with gc_paused():  # as a search draws them
        for p, (game, label) in enumerate(zip(fresh, labels)):
            info = Infoset(game, game.current_player, spec, opts)
            s = position_seed(seed, p)
            for k in range(len(label.values)):
                info.sample(np.random.default_rng([s, k]))
    return time.process_time() - start


# the parts ``--parts`` times: (label, owner, method, outermost only); a part's time excludes
# the parts called inside it, and an outermost-only part counts only outside the others (the
# engine's ``step`` on the lockstep path; inside a default ``step_histories`` it is the replay's)
PARTS = (
    ("drawing the worlds", "search", "next_worlds", False),
    ("loading them (histories)", "rollouts", "load", False),
    ("loading them (reset)", "engine", "reset", False),
    ("loading them (dealing current hands)", "engine", "deal_current", False),
    ("loading them (replay)", "engine", "step_histories", False),
    ("copying rows", "engine", "copy_rows", False),
    ("rollouts (play_out)", "engine", "play_out", False),
    ("rollouts (lockstep steps)", "engine", "step", True),
)


def timed_parts(env_id: str) -> tuple[dict[str, float], Any]:
    """CPU seconds per part of a labelling call (``PARTS``), filled in by timers wrapped around
    those methods of the search's classes, each part's time without the parts called inside it;
    returns the totals and a function that unwraps them. A lockstep rollout's policy calls are
    in none of the parts."""
    import cahoots_envs
    from cahoots_envs.search.engine import EngineRollouts
    from cahoots_envs.search.rounds import PositionSearch
    from cahoots_envs.vector.engine import engine_class

    owners = {"search": PositionSearch, "rollouts": EngineRollouts,
              "engine": engine_class(cahoots_envs.game_spec(env_id))}
    totals: dict[str, float] = {}
    inner: list[float] = []  # per part being timed now: the time of the parts inside it so far
    saved = []
    for label, owner, name, outermost in PARTS:
        cls = owners[owner]
        original = getattr(cls, name)

        def timed(*args: Any, _f: Any = original, _label: str = label,
                  _outermost: bool = outermost, **kwargs: Any) -> Any:
            if _outermost and inner:  # inside another part: that part's time
                return _f(*args, **kwargs)
            inner.append(0.0)
            begin = time.process_time()
            try:
                return _f(*args, **kwargs)
            finally:
                spent = time.process_time() - begin
                totals[_label] = totals.get(_label, 0.0) + spent - inner.pop()
                if inner:
                    inner[-1] += spent

        saved.append((cls, name, cls.__dict__.get(name)))
        setattr(cls, name, timed)

    def unwrap() -> None:
        for cls, name, own in saved:
            if own is None:
                delattr(cls, name)
            else:
                setattr(cls, name, own)

    return totals, unwrap


def labelling(row: str, blueprint: str) -> tuple[str, dict[str, Any], Any, dict[str, Any]]:
    """What ``label_positions`` takes for ``row`` over ``blueprint`` (one of ``BLUEPRINTS``):
    the env id, the resolved options, the loaded blueprint (None: the heuristic) and the knobs
    (``rollout: heuristic`` for ``zoo+heuristic``)."""
    import cahoots_envs

    env_id, options = ROWS[row]
    opts = cahoots_envs.game_spec(env_id).resolve_options(options)
    policy = None
    knobs: dict[str, Any] = {"rollout": "heuristic"} if blueprint == "zoo+heuristic" else {}
    if blueprint != "heuristic":
        policy = cahoots_envs.load_policy(f"zoo:{env_id.split('-')[0]}", env_id, opts, seed=0)
    return env_id, opts, policy, knobs


def measure(row: str, blueprint: str, found: list[Any], seed: int, parts: bool = False) -> str:
    from cahoots_envs.search import label_positions

    env_id, opts, policy, knobs = labelling(row, blueprint)
    label_positions(env_id, opts, found[:4], policy, seed=seed + 1, blueprint_name=blueprint,
                    **knobs)
    totals, unwrap = timed_parts(env_id) if parts else ({}, None)
    start, cpu = time.perf_counter(), time.process_time()
    try:
        labels = label_positions(env_id, opts, found, policy, seed=seed, blueprint_name=blueprint,
                                 **knobs)
    finally:
        if unwrap is not None:
            unwrap()
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    if parts:
        shares = ", ".join(f"{label} {totals[label] / cpu:.0%}" for label, *_ in PARTS
                           if totals.get(label))
        print(f"{row} over {blueprint}, share of the CPU time: {shares}; the rest "
              f"{1 - sum(totals.values()) / cpu:.0%}", file=sys.stderr)
    searched = [x for x in labels if x.searched]
    worlds = sum(len(x.values) for x in searched) / max(len(searched), 1)
    rollouts = sum(x.values.size for x in searched) / max(len(searched), 1)
    sampling = sampling_seconds(row, found, labels, seed)
    return (f"| {row} | {blueprint} | {labels[0].path} | {len(labels)} "
            f"| {worlds:.1f} / {rollouts:.0f} "
            f"| {wall:.2f} / {cpu:.2f} | {rate(len(labels) / wall)} | {rate(len(labels) / cpu)} "
            f"| {sampling / cpu:.0%} |")


def rate(x: float) -> str:
    """A rate, whole above 10 and to a tenth below (0.4 and 2.2 labels a second differ)."""
    return f"{x:.0f}" if x >= 10 else f"{x:.1f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", nargs="+", default=list(ROWS), choices=list(ROWS))
    parser.add_argument("--blueprints", nargs="+", default=list(BLUEPRINTS), choices=BLUEPRINTS)
    parser.add_argument("--games", type=int, default=2, help="seeded games per row (default 2)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--parts", action="store_true",
                        help="also print (to stderr) each part's share of the CPU time: "
                             "drawing the worlds, loading them, the rollouts (timers around "
                             "them cost a little)")
    args = parser.parse_args(argv)
    print("| row | blueprint | path | labels | worlds / rollouts per label "
          "| seconds (wall / CPU) | labels/s (wall) | labels per CPU-second "
          "| world sampling (share of CPU) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for row in args.rows:
        found = positions(row, args.games, args.seed)
        for blueprint in args.blueprints:
            print(measure(row, blueprint, found, args.seed, args.parts), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
