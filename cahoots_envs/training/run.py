"""Run plumbing shared by every training algorithm (MaskablePPO, RLlib's PPO and any registered
one): the run folder, the evaluations during training and at the end (the trained policy beside
the clone it started from, on the same games), the saved policy, the learning curve and the
next-step commands.

An algorithm (``cahoots_envs.training.algorithms``) trains and hands back a ``Trained``; this
module does the rest, the same way for every algorithm.
"""

from __future__ import annotations

import csv
import dataclasses
import datetime as _dt
import json
import os
import shlex
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from cahoots_envs.core.policy import Policy
from cahoots_envs.core.threads import limit_blas_threads  # noqa: F401 (its old home was here)
from cahoots_envs.evaluation.matches import (
    MatchResult,
    batched_available,
    play_matches,
)
from cahoots_envs.policies.envinfo import env_info
from cahoots_envs.policies.loading import builtin_specs, load_policy
from cahoots_envs.policies.network import MLPPolicy
from cahoots_envs.policies.saved import (
    METADATA_KEY,
    network_from_tensors,
    read_safetensors,
    save_policy,
)
from cahoots_envs.policies.scoring import ActionScoringPolicy
from cahoots_envs.training.config import ConfigError

# the policy a run's self-play started from (its behaviour clone), a saved policy
CLONE = Path("checkpoints") / "cloned.safetensors"


class EvalSettings(Protocol):
    @property
    def opponents(self) -> list[str]: ...
    @property
    def games(self) -> int: ...
    @property
    def final_games(self) -> int: ...


class RunConfig(Protocol):
    """What the run plumbing reads of a run's config: ``TrainConfig`` (``cahoots train``) and
    ``RLlibTrainConfig`` (``python -m cahoots_envs.rllib.train``) both offer it."""

    @property
    def env_id(self) -> str: ...
    @property
    def env_options(self) -> dict[str, Any]: ...
    @property
    def seed(self) -> int: ...
    @property
    def description(self) -> str: ...
    @property
    def team(self) -> bool: ...  # a cooperative game: the policy plays every seat
    @property
    def engine(self) -> str: ...  # "batched" or "reference": where evaluations play
    @property
    def eval(self) -> EvalSettings: ...


class CsvLog:
    """A CSV file rewritten with every row, so it is complete whenever the run stops (rows it
    held already, e.g. before ``--resume``, are kept)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.rows: list[dict[str, Any]] = []
        if path.is_file():
            with path.open() as f:
                self.rows = list(csv.DictReader(f))

    def add(self, *rows: dict[str, Any]) -> None:
        self.rows += rows
        fields = list(dict.fromkeys(k for r in self.rows for k in r))
        with self.path.open("w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=fields)
            writer.writeheader()
            writer.writerows(self.rows)


@dataclass
class Trained:
    """What an algorithm hands back to the run: the trained policy (acting from observations),
    the learner steps taken, the seconds it trained, a one-line description of the algorithm
    (recorded in the saved policy), more training metadata, and what to do once the policy is
    saved (``export``: e.g. SB3's zip beside it, given the saved metadata) and at the very end
    (``close``)."""

    learner: MLPPolicy | ActionScoringPolicy  # what the saved-policy format holds
    timesteps: int
    seconds: float
    description: str
    metadata: dict[str, Any] = field(default_factory=dict)
    export: Callable[[dict[str, Any]], object] | None = None
    close: Callable[[], None] | None = None


def config_dict(config: RunConfig) -> dict[str, Any]:
    """The config as written to ``config.yaml`` and recorded in the saved policy."""
    return dataclasses.asdict(config)  # type: ignore[call-overload]


def run_name(config: RunConfig, tag: str) -> str:
    """``<env>__<algorithm tag>__<seed>__<time>`` (MaskablePPO's tag is ``maskableppo``,
    RLlib's ``rllib_ppo``)."""
    env = config.env_id.split("/")[-1]
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    return f"{env}__{tag}__{config.seed}__{stamp}"


def new_run_dir(runs_dir: Path, name: str) -> Path:
    """A run folder of its own under ``runs_dir``: ``name``, or ``name-2``, ``name-3``, ... where
    another run already holds it (two runs of one config and seed started in the same second,
    from a script or a sweep, would otherwise write into one folder and overwrite each other's
    policy, checkpoints and logs). Made here, so that a second process cannot take it too."""
    runs_dir.mkdir(parents=True, exist_ok=True)
    k = 1
    while True:
        path = runs_dir / (name if k == 1 else f"{name}-{k}")
        try:
            path.mkdir()
        except FileExistsError:
            k += 1
            continue
        return path


def available_opponents(config: RunConfig, wanted: list[str]) -> list[str]:
    have = builtin_specs(config.env_id)
    out = []
    for spec in wanted:
        if spec in ("random", "heuristic") and spec not in have:
            warnings.warn(f"{config.env_id} has no {spec} bot yet; left out", stacklevel=2)
            continue
        out.append(spec)
    return out


class Evaluator:
    """Greedy learner against each evaluation opponent; rows go to ``eval.csv``, each with the
    CPU seconds this process has trained so far (``cpu_seconds``: its CPU time since the run
    started, less the time spent in these evaluations; Ray's remote workers are not counted), so
    curves can be drawn by CPU minute on any machine load."""

    def __init__(self, config: RunConfig, run_dir: Path) -> None:
        self.config = config
        self.log = CsvLog(run_dir / "eval.csv")
        self.specs = [] if config.team else available_opponents(config, config.eval.opponents)
        self._cpu_start = time.process_time()
        self._eval_cpu = 0.0
        self.cpu_before = 0.0  # training CPU seconds of the run before a --resume

    def training_cpu(self) -> float:
        """CPU seconds the run has trained since it started (across ``--resume``), evaluations
        left out."""
        return self.cpu_before + time.process_time() - self._cpu_start - self._eval_cpu

    def opponents(self, seed: int) -> dict[str, Any]:
        """The evaluation opponents, loaded afresh for each evaluation and seeded by it: two
        policies evaluated with the same seed meet the same deals and the same opponents' draws
        (the same games, as far as their own moves allow)."""
        if self.config.team:
            return {"team": None}
        env_id, options = self.config.env_id, self.config.env_options
        return {spec: load_policy(spec, env_id, options, seed=seed + 7) for spec in self.specs}

    def evaluate(self, learner: Policy, games: int, seed: int) -> dict[str, MatchResult]:
        started = time.process_time()
        try:
            return self._evaluate(learner, games, seed)
        finally:
            self._eval_cpu += time.process_time() - started

    def _evaluate(self, learner: Policy, games: int, seed: int) -> dict[str, MatchResult]:
        env_id, options = self.config.env_id, self.config.env_options
        results = {}
        for name, opponent in self.opponents(seed).items():
            results[name] = play_matches(env_id, learner, opponent, games, options, seed=seed,
                                         engine=self.config.engine)
        return results

    def record(self, steps: int, results: dict[str, MatchResult]) -> None:
        cpu = round(self.training_cpu(), 1)
        self.log.add(*({**r.eval_row(steps, name), "cpu_seconds": cpu} for name, r in results.items()))

    def check(self, learner: Policy, steps: int, seed: int) -> str:
        """One curve check: ``evaluate`` with ``eval.games``, ``record`` at ``steps``; returns
        the line to print (``vs heuristic 0.412, ...``)."""
        results = self.evaluate(learner, self.config.eval.games, seed=seed)
        self.record(steps, results)
        return ", ".join(f"vs {k} {r.win_rate:.3f}" for k, r in results.items())


def steps_label(steps: float) -> str:
    """A step count for an axis tick: ``500``, ``50k``, ``1.5M``."""
    for scale, suffix in ((1e6, "M"), (1e3, "k")):
        if abs(steps) >= scale:
            return f"{steps / scale:.4g}{suffix}"
    return f"{steps:.4g}"


# (steps, mean episode reward) columns of the algorithms' progress.csv: SB3's, this package's
# RLlib trainer's
PROGRESS_COLUMNS = (("time/total_timesteps", "rollout/ep_rew_mean"),
                    ("env_steps", "episode_return_mean"))


def plot_learning_curve(run_dir: Path, config: RunConfig) -> Path | None:
    """Win rate per evaluation opponent and mean episode reward against learner steps."""
    try:
        import matplotlib  # the train extra (a curve is drawn where it is installed)

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    eval_csv = run_dir / "eval.csv"
    if eval_csv.is_file():
        with eval_csv.open() as f:
            rows = list(csv.DictReader(f))
        for name in dict.fromkeys(r["opponent"] for r in rows):
            sel = [r for r in rows if r["opponent"] == name]
            x = [int(r["timesteps"]) for r in sel]
            y = [float(r["win_rate"]) for r in sel]
            lo = [float(r["ci_low"]) for r in sel]
            hi = [float(r["ci_high"]) for r in sel]
            ax1.plot(x, y, marker="o", label=f"vs {name}")
            ax1.fill_between(x, lo, hi, alpha=0.2)
    if not config.team:
        n = env_info(config.env_id, config.env_options).options["num_players"]
        ax1.axhline(1.0 / n, color="grey", linestyle="--", label="chance 1/N")
        ax1.axhline(1.5 / n, color="grey", linestyle=":", label="1.5/N")
    ax1.set_xlabel("learner steps")
    ax1.set_ylabel("win share (95% CI)")
    title = f"{config.env_id}: evaluation"
    ax1.set_title(title)
    ax1.legend()
    curve: list[tuple[int, float]] = []
    for progress in sorted(run_dir.glob("progress*.csv")):  # progress_until_*.csv: before --resume
        with progress.open() as f:
            for r in csv.DictReader(f):
                for steps, reward in PROGRESS_COLUMNS:
                    if r.get(reward) and r.get(steps):
                        curve.append((int(r[steps]), float(r[reward])))
    if curve:
        curve.sort()
        ax2.plot([x for x, _ in curve], [y for _, y in curve])
    ax2.set_xlabel("learner steps")
    ax2.set_ylabel("mean episode reward (training pool)")
    ax2.set_title("training reward")
    from matplotlib.ticker import FuncFormatter, MaxNLocator  # matplotlib: the train extra

    for ax in (ax1, ax2):  # at most 6 step ticks, written 50k / 1.5M: the labels never touch
        ax.xaxis.set_major_locator(MaxNLocator(nbins=5, integer=True, min_n_ticks=2))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _pos: steps_label(x)))
    fig.tight_layout()
    out = run_dir / "learning_curve.png"
    fig.savefig(out, dpi=100, metadata={"Title": title})  # the docs' tests read it
    plt.close(fig)
    return out


def load_clone(run_dir: Path) -> MLPPolicy | ActionScoringPolicy | None:
    """The policy a run's self-play started from (``pretrain``), if the run cloned one: an MLP,
    or an action-scoring network (expert iteration's ``network``)."""

    path = run_dir / CLONE
    if not path.is_file():
        return None
    tensors, meta = read_safetensors(path)
    clone = network_from_tensors(tensors, json.loads(meta[METADATA_KEY])["architecture"])
    clone.name = "cloned"
    return clone


def overlap_note(before: MatchResult, after: MatchResult) -> str:
    """How the trained policy's row compares with the clone's on the same games."""
    apart = after.ci_low > before.ci_high or after.ci_high < before.ci_low
    return (f"change {after.win_rate - before.win_rate:+.3f}; the 95% intervals "
            + ("do not overlap" if apart else "overlap: not a clear change"))


def check_engine(config: RunConfig) -> None:
    """``engine: batched`` needs numba and a game with a batched engine: one line saying what
    to do otherwise, before any work starts."""
    if config.engine != "batched" or batched_available(config.env_id, config.env_options):
        return
    try:
        import numba  # noqa: F401
    except ImportError:
        raise ConfigError("engine: batched needs numba: pip install 'cahoots-envs[train]' (or "
                          "[fast]), or set engine: reference in the config") from None
    raise ConfigError(f"engine: batched: {config.env_id} has no batched engine; set engine: "
                      "reference in the config")


def planned_steps(steps: int, rollout: int) -> int:
    """The learner steps ``learn(steps)`` really takes: whole rollouts of ``rollout`` steps."""
    return -(-max(steps, 0) // rollout) * rollout


def next_steps(config: RunConfig, run_dir: Path) -> list[str]:
    """What to do with a finished run, as commands with its real paths."""
    lines = ["", "next (in the virtual environment, e.g. after: source .venv/bin/activate):"]
    if any(run_dir.rglob("events.out.tfevents*")):  # an algorithm that writes TensorBoard logs
        lines.append(f"  tensorboard --logdir {shlex.quote(str(run_dir))}     "
                     "# curves at http://localhost:6006")
    if (run_dir / "learning_curve.png").is_file():
        lines.append(f"  learning curve: {run_dir / 'learning_curve.png'}")
    return lines + policy_commands(config.env_id, config.env_options, run_dir / "policy.safetensors",
                                   team=config.team, fields=config.eval.opponents,
                                   games=config.eval.final_games)


def policy_commands(env_id: str, env_options: dict[str, Any], policy_path: Path, *, team: bool,
                    fields: list[str], games: int) -> list[str]:
    """The ``cahoots eval`` / ``cahoots play`` lines for a run's saved policy (every trainer's
    next steps, RLlib's too): evaluations that compare like with like with the run's final
    check (one seat against the field in every other seat; a team in a cooperative game)."""
    env = env_id.split("/")[-1]
    policy = shlex.quote(str(policy_path))
    players = env_options.get("num_players")
    options = [] if players is None else ["-n", str(players)]
    for key, value in env_options.items():
        if key not in ("num_players", "reward_mode", "render_mode"):  # the last two: not seen
            text = str(value).lower() if isinstance(value, bool) or value is None else str(value)
            options += ["-o", shlex.quote(f"{key}={text}")]
    opts = "".join(f" {o}" for o in options)
    lines = []
    if team:  # a cooperative game: every seat plays the policy (a team against the game)
        lines.append(f"  cahoots eval {env}{opts} {policy} heuristic --games {games}     "
                     "# its team's win rate beside the heuristic team's")
    else:  # one seat against the field in every other seat, as the run's final check
        for field_spec in fields:
            lines.append(f"  cahoots eval {env}{opts} {policy} --field {shlex.quote(field_spec)} "
                         f"--games {games}     # one seat vs {field_spec} in the others, like "
                         "the check above (other deals: expect a figure within its interval)")
    lines.append(f"  cahoots play {env}{opts} --opponents {policy}     # play against it")
    return lines


def check_runs_dir(runs_dir: Path) -> None:
    """The folder run folders go in can be made and written (``ConfigError`` if not)."""
    if runs_dir.exists() and not runs_dir.is_dir():
        raise ConfigError(f"--runs-dir {runs_dir} is a file; give a folder (made if missing)")
    existing = runs_dir
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir() or not os.access(existing, os.W_OK | os.X_OK):
        raise ConfigError(f"--runs-dir {runs_dir}: cannot write in {existing}; give a folder "
                          "you can write to")


def start(config: RunConfig, run_dir: Path, fresh: bool = False) -> Path:
    """Before an algorithm starts: the engine it needs, the run folder (with ``fresh``, one of
    its own: ``new_run_dir``), the config echoed. Returns the folder."""
    import yaml  # pyyaml: the train extra

    check_engine(config)
    if fresh:
        run_dir = new_run_dir(run_dir.parent, run_dir.name)
    else:
        run_dir.mkdir(parents=True, exist_ok=True)
    print(f"run folder: {run_dir}", flush=True)
    written = getattr(config, "as_written", None)  # TrainConfig's layout (config.as_written)
    data = written() if written is not None else config_dict(config)
    (run_dir / "config.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    return run_dir


def finish(config: RunConfig, run_dir: Path, trained: Trained, evaluator: Evaluator,
           command: str) -> dict[str, Any]:
    """After an algorithm: the final check (``eval.final_games`` per opponent, and the clone it
    started from on the same games), the saved policy with both in its metadata, the
    algorithm's exports, the learning curve."""
    learner = trained.learner
    results = evaluator.evaluate(learner, config.eval.final_games, seed=config.seed + 10**9)
    evaluator.record(trained.timesteps, results)
    evaluation = {
        name: {**r.as_dict(), "opponent": name, "seats": "rotated", "deterministic": True}
        for name, r in results.items()
    }
    clone = load_clone(run_dir)
    before: dict[str, MatchResult] = {}
    if clone is not None:  # the same games (the same seed: the same deals) for the clone
        before = evaluator.evaluate(clone, config.eval.final_games, seed=config.seed + 10**9)
        for name, r in before.items():
            evaluation[name]["before_self_play"] = r.as_dict()
    training = {
        "algorithm": trained.description,
        "command": command,
        "config": config_dict(config),
        "seed": config.seed,
        "timesteps": trained.timesteps,
        "train_seconds": round(trained.seconds, 1),
        "run": run_dir.name,
        **trained.metadata,
    }
    meta = save_policy(learner, run_dir / "policy.safetensors", config.env_id,
                       config.env_options, name=run_dir.name,
                       description=config.description, training=training, evaluation=evaluation)
    if trained.export is not None:
        trained.export(meta)
    plot_learning_curve(run_dir, config)
    if trained.close is not None:
        trained.close()
    return {"run_dir": str(run_dir), "results": results, "before": before, "metadata": meta,
            "timesteps": trained.timesteps, "seconds": trained.seconds}


def result_lines(out: dict[str, Any]) -> list[str]:
    """What every trainer prints at the end of a run (``out``: what ``finish`` returned): the
    run folder, the saved policy, the final check and, beside it, the clone it started from."""
    run_dir = Path(out["run_dir"])
    lines = [f"\nrun folder: {run_dir}", f"saved policy: {run_dir / 'policy.safetensors'}"]
    for name, r in out["results"].items():
        what = "team win rate" if name == "team" else f"win share in one seat vs {name} opponents"
        lines.append(f"{what}: {r}")
        if name in out["before"]:
            b = out["before"][name]
            lines.append(f"  the clone it started from, same games: {b.win_rate:.3f} "
                         f"[{b.ci_low:.3f}, {b.ci_high:.3f}]; {overlap_note(b, r)}")
    return lines
