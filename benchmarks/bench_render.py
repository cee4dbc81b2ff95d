"""Image frames (``render_mode="rgb_array"``): milliseconds per frame per game, and the AEC and
parallel envs' speed with rendering off in two checkouts (it must not move).

    python benchmarks/bench_render.py [--games 3]              # ms per frame per game
    git worktree add /tmp/before <commit>
    python benchmarks/bench_render.py --compare /tmp/before . [--rounds 6] [--games 40]
    python benchmarks/bench_render.py --png docs [--steps 22]      # the doc pages' frames

Frames: ``--games`` seeded games of random legal play per env (default players) through the
protected AEC env with ``render_mode="rgb_array"``, one ``render()`` after every step (the
referee's table), each timed with ``time.perf_counter``; prints the median and mean ms per frame
and the frame size. ``--compare``: a fixed amount of work per env (``--games`` seeded games of
random legal play, the same moves in both checkouts), rendering off, through the AEC env (with
``last()`` every step) and through the parallel env, timed with ``time.process_time`` in one
process per checkout and round, the two checkouts alternating which runs first; prints the
median seconds and the after/before ratio as a Markdown table.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

GAMES = ("kansas_city", "texas_euchre", "cahoots_tricks", "cahoots_coop")

def random_game(env, seed: int, after_step=None) -> None:
    """One game of random legal moves (seeded) on an AEC env; ``after_step()`` after each."""
    import numpy as np
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    for _ in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        if after_step is not None:
            after_step()


def work(tree: str, games: int) -> None:
    """One checkout's fixed work (``--compare``), rendering off: prints env, AEC s, parallel s."""
    sys.path.insert(0, tree)
    import numpy as np

    import cahoots_envs
    assert cahoots_envs.__file__.startswith(tree), cahoots_envs.__file__
    for name in GAMES:
        env = cahoots_envs.make(name)
        random_game(env, 10_000)  # warm-up: first-use costs (imports, caches) are not measured
        start = time.process_time()
        for g in range(games):
            random_game(env, g)
        aec = time.process_time() - start
        penv = cahoots_envs.make_parallel(name)
        start = time.process_time()
        for g in range(games):
            rng = np.random.default_rng(g)
            obs, _ = penv.reset(seed=g)
            while penv.agents:
                mover = next(a for a, o in obs.items() if o["action_mask"].any())
                mask = obs[mover]["action_mask"]
                obs, *_ = penv.step({mover: int(rng.choice(np.flatnonzero(mask)))})
        print(name, aec, time.process_time() - start, flush=True)


def frames(games: int) -> None:
    import cahoots_envs
    print("| game | players | frame (H x W) | ms per frame, median | mean | frames |")
    print("|---|---:|---|---:|---:|---:|")
    for name in GAMES:
        env = cahoots_envs.make(name, render_mode="rgb_array")
        times: list[float] = []
        shapes: set[tuple[int, ...]] = set()

        def timed_frame(env=env, times=times, shapes=shapes) -> None:
            start = time.perf_counter()
            frame = env.render()
            times.append(time.perf_counter() - start)
            shapes.add(frame.shape)

        for g in range(games):
            random_game(env, g, timed_frame)
        (shape,) = shapes
        print(f"| {name} | {len(env.possible_agents)} | "
              f"{shape[0]} x {shape[1]} | {1000 * statistics.median(times):.1f} | "
              f"{1000 * statistics.mean(times):.1f} | {len(times)} |")


def frame_title(env_id: str, steps: int) -> str:
    return (f"{env_id}: render_mode='rgb_array' frame, the referee's table after {steps} random "
            "legal moves (seed 1)")


def pngs(folder: Path, steps: int) -> None:
    """One frame per game (seed 1, ``steps`` random legal moves in; the referee's table), as the
    doc pages show them: a 256-colour PNG, ``frame_<game>.png``."""
    import numpy as np
    from PIL import Image
    from PIL.PngImagePlugin import PngInfo

    import cahoots_envs
    for name in GAMES:
        env = cahoots_envs.make(name, render_mode="rgb_array")
        env.reset(seed=1)
        rng = np.random.default_rng(1)
        for _ in range(steps):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                break
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        path = folder / f"frame_{name}.png"
        info = PngInfo()  # the docs' charts carry a title naming the env id (test_current_ids)
        info.add_text("Title", frame_title(env.unwrapped.env_id, steps))
        Image.fromarray(env.render()).quantize(256).save(path, optimize=True, pnginfo=info)
        print(f"wrote {path} ({path.stat().st_size // 1024} KiB)")


def compare(before: Path, after: Path, rounds: int, games: int) -> None:
    trees = {"before": before.resolve(), "after": after.resolve()}
    runs: dict[tuple[str, str, str], list[float]] = {}
    for r in range(rounds):
        order = ["before", "after"] if r % 2 == 0 else ["after", "before"]
        for which in order:
            out = subprocess.run([sys.executable, __file__, "--work", str(trees[which]),
                                  "--games", str(games)], capture_output=True, text=True,
                                 check=True, cwd="/", env={"OMP_NUM_THREADS": "1",
                                                           "PATH": "/usr/bin"})
            for line in out.stdout.split("\n"):
                if line.strip():
                    name, aec, par = line.split()
                    runs.setdefault((name, "AEC", which), []).append(float(aec))
                    runs.setdefault((name, "parallel", which), []).append(float(par))
    print(f"{games} games of random legal play per env, rendering off; median CPU seconds of "
          f"{rounds} rounds")
    print("| env | API | before (s) | after (s) | after/before |")
    print("|---|---|---:|---:|---:|")
    for name in GAMES:
        for api in ("AEC", "parallel"):
            b = statistics.median(runs[(name, api, "before")])
            a = statistics.median(runs[(name, api, "after")])
            print(f"| {name} | {api} | {b:.3f} | {a:.3f} | {a / b:.3f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=None,
                        help="games per env (default 3 for frames, 40 for --compare)")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"),
                        help="two checkouts: the envs' speed with rendering off")
    parser.add_argument("--png", type=Path, metavar="FOLDER",
                        help="write one frame per game there (the doc pages' frame_<game>.png)")
    parser.add_argument("--steps", type=int, default=22, help="moves before --png's frame")
    parser.add_argument("--work", metavar="TREE", help=argparse.SUPPRESS)  # --compare's worker
    parser.add_argument("--rounds", type=int, default=6, help="rounds of --compare (default 6)")
    args = parser.parse_args()
    if args.work:
        work(args.work, args.games)
    elif args.png:
        pngs(args.png, args.steps)
    elif args.compare:
        compare(*args.compare, rounds=args.rounds, games=args.games or 40)
    else:
        frames(args.games or 3)


if __name__ == "__main__":
    main()
