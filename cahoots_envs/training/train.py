"""Training from a YAML config: the command line and the run, for every algorithm.

    cahoots train --config configs/kansas_city.yaml
    python -m cahoots_envs.training.train --config configs/kansas_city.yaml   # the same
    cahoots train --resume runs/<run>                                           # continue a run

The config's ``algorithm`` (``maskable_ppo``, the default; see
``cahoots_envs.training.algorithms``) trains; the run plumbing (``cahoots_envs.training.run``)
makes the run folder ``runs/<env>__<algorithm tag>__<seed>__<time>/`` with the config,
``eval.csv`` (periodic evaluation against random and heuristic opponents),
``learning_curve.png``, the algorithm's own files (MaskablePPO: SB3's ``progress.csv`` and
TensorBoard events, ``policy_sb3.zip``), ``checkpoints/resume/`` for ``--resume`` (every
algorithm; ``cahoots_envs.training.checkpoint``), and the final
``policy.safetensors`` + ``policy.json`` (the saved-policy format; load with
``cahoots_envs.load_policy(path, env_id)``).
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import Any

from cahoots_envs.core.arguments import OneLineParser
from cahoots_envs.core.threads import limit_blas_threads
from cahoots_envs.training.algorithms import algorithm
from cahoots_envs.training.checkpoint import FOLDER as CHECKPOINTS
from cahoots_envs.training.checkpoint import LATEST, check_resume
from cahoots_envs.training.config import ConfigError, TrainConfig, load_config, packaged_configs
from cahoots_envs.training.run import (
    Evaluator,
    check_runs_dir,
    finish,
    next_steps,
    result_lines,
    run_name,
    start,
)


def train(config: TrainConfig, run_dir: Path, resume: bool = False,
          command: str = "", fresh: bool = False) -> dict[str, Any]:
    """One run: the folder and config, the config's algorithm, then the final check, the saved
    policy and the curve (``run.finish``). ``fresh``: the run takes a folder of its own,
    ``run_dir`` or, where another run holds that, ``run_dir-2``, ``-3``, ... (the command line's
    new runs); otherwise it writes into ``run_dir`` as given. The result's ``run_dir`` says
    which."""
    train_algorithm = algorithm(config.algorithm).load()
    if resume:  # before the folder's config.yaml is written again: one line if it cannot fit
        check_resume(config, run_dir)
    run_dir = start(config, run_dir, fresh)
    evaluator = Evaluator(config, run_dir)
    trained = train_algorithm(config, run_dir, resume, evaluator)
    return finish(config, run_dir, trained, evaluator, command)


def positive_int(text: str) -> int:
    """argparse type: an int >= 1 (a run of 0 or -5 steps would train nothing and still work
    for minutes: refused before any work starts)."""
    value = _int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive int, got {text!r}")
    return value


def non_negative_int(text: str) -> int:
    value = _int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected an int >= 0, got {text!r}")
    return value


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an int, got {text!r}") from None


def main(argv: list[str] | None = None) -> int:
    """The training script: a config that cannot run (``ConfigError``) is one line on stderr and
    exit status 2, before any work starts, whether run as a script or through ``cahoots train``
    (which reports it the same way)."""
    try:
        return _main(argv)
    except ConfigError as exc:
        prog = Path(sys.argv[0]).name or "train.py"  # "cahoots train" through the CLI
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2


def _main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(description=__doc__.split("\n\n")[0],
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", help="a YAML config file, or the name of a packaged config: "
                        + ", ".join(packaged_configs()))
    parser.add_argument("--resume", metavar="RUN_DIR", help="continue a run from its checkpoint")
    parser.add_argument("--trust-checkpoint", action="store_true",
                        help="needed with --resume of a run that has only SB3's "
                             "RUN_DIR/checkpoints/model.zip (MaskablePPO runs of earlier "
                             "versions), which holds pickles that can run code when loaded; "
                             "resume only your own runs (checkpoints/resume/, safetensors + "
                             "JSON, needs no trust)")
    parser.add_argument("--runs-dir", default="runs", help="where run folders go (default runs/)")
    parser.add_argument("--total-timesteps", type=positive_int, metavar="N",
                        help="override the config's total_timesteps (a positive int)")
    parser.add_argument("--seed", type=non_negative_int, metavar="S",
                        help="override the config's seed (an int >= 0)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    pickled = Path(args.resume or ".") / "checkpoints" / "model.zip"
    own = Path(args.resume or ".") / CHECKPOINTS / LATEST  # safetensors + JSON: no trust needed
    if args.resume and pickled.exists() and not own.exists() and not args.trust_checkpoint:
        parser.error(f"--resume loads {pickled}, an SB3 checkpoint made of pickles, which can "
                     "run any code when loaded; if the run folder is your own (or you trust its "
                     "source), add --trust-checkpoint")
    if args.resume:
        run_dir = Path(args.resume)
        if not (run_dir / "config.yaml").is_file():
            raise ConfigError(
                f"--resume {args.resume}: " + ("no such folder" if not run_dir.is_dir() else
                                               "not a run folder (it has no config.yaml)")
                + f"; give a folder that a training run made, e.g. {Path(args.runs_dir) / '<run>'}")
        config = load_config(run_dir / "config.yaml")
    elif args.config:
        config = load_config(args.config)
    else:
        parser.error("give --config FILE or --resume RUN_DIR")
    if args.total_timesteps is not None:
        config.total_timesteps = args.total_timesteps
    if args.seed is not None:
        config.seed = args.seed
    if args.no_progress:
        config.progress_bar = False
    limit_blas_threads(config.torch_threads)
    if not args.resume:
        check_runs_dir(Path(args.runs_dir))  # before any work: one line if it cannot be written
        run_dir = Path(args.runs_dir) / run_name(config, algorithm(config.algorithm).tag)
    prog = ("cahoots train" if sys.argv[0].endswith("cahoots train")  # set by cahoots train
            else "python -m cahoots_envs.training.train")
    command = f"{prog} " + " ".join(shlex.quote(a) for a in (argv or sys.argv[1:]))
    out = train(config, run_dir, resume=bool(args.resume), command=command,
                fresh=not args.resume)
    print("\n".join(result_lines(out) + next_steps(config, Path(out["run_dir"]))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
