"""The strength tables (``cahoots strength``): a saved policy measured, and published to the zoo.

Every row plays ``games`` games at the policy's own options (its player count included) over
each option set its game declares in ``STRENGTH_VARIANTS`` (``core/spec.py``: the cooperative
game's difficulties; ``({},)``, the policy's options alone, for the others):

- competitive games: the heuristic bot against random opponents, the policy against random
  opponents and the policy against heuristic opponents, each in one seat rotated over the games
  (seat ``g % N`` in game ``g``), with the win share (a k-way tie for the win counts 1/k) and its
  95% confidence interval (``evaluation.matches.seat_matches``);
- cooperative games: a team of the policy, a team of heuristic bots and a team of random bots,
  the team's win rate and mean goals (``evaluation.matches.team_matches``).

The seeds are fixed by ``seed``: the heuristic bot plays from ``seed + 1`` and the random one
from ``seed + 2`` (one of each for all three competitive rows, in that order; a cooperative
variant's from ``seed + 1`` and ``seed``), the rows' deals from ``seed``, ``seed + 3`` and
``seed + 4`` (every cooperative row from ``seed``), so a seed gives the same table every time.

``publish`` copies the policy into the zoo (``cahoots_envs/policies/zoo/<game>.safetensors``)
with float16 weights, measures exactly that copy and records the results in its metadata
(``evaluation.strength``, beside the ``training_run`` results of the run that trained it). The
copy is measured from a temporary folder and written to the zoo only when the table is done.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import platform
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cahoots_envs.core.spec import variant_label
from cahoots_envs.core.threads import limit_blas_threads
from cahoots_envs.envinfo import env_info
from cahoots_envs.errors import IncompatiblePolicyError
from cahoots_envs.evaluation.matches import seat_matches, team_matches
from cahoots_envs.policies import loading
from cahoots_envs.policies.network import MLPPolicy
from cahoots_envs.policies.saved import check_compatible, read_metadata, save_policy
from cahoots_envs.policies.scoring import ActionScoringPolicy
from cahoots_envs.registry import game_spec

DEFAULT_GAMES = 2000
DEFAULT_SEED = 12345


def policy_file(spec: str) -> Path:
    """The ``.safetensors`` file of ``spec``: ``zoo:<name>``, a saved policy's ``.safetensors``,
    its ``.json`` or a run folder holding ``policy.safetensors`` (``ValueError`` if none)."""
    path = loading.zoo_path(spec[4:]) if spec.startswith("zoo:") else Path(spec)
    try:  # a name the system cannot look up (too long, a NUL byte) names no file
        if path.is_dir():
            path = path / "policy.safetensors"
        elif path.suffix == ".json":
            path = path.with_suffix(".safetensors")
        found = path.is_file()
    except (OSError, ValueError):
        found = False
    if not found:
        text = str(path)
        shown = repr(text) if len(text) <= 80 else f"{text[:60]!r}... ({len(text)} characters)"
        raise ValueError(f"no saved policy {shown}; give a .safetensors file, its .json, a run "
                         "folder holding policy.safetensors, or zoo:<name>")
    return path


def game_variants(env_id: str) -> list[dict[str, Any]]:
    """The option sets the game of ``env_id`` declares for its strength table."""
    return [dict(v) for v in env_info(env_id).game_cls.STRENGTH_VARIANTS]


@dataclass
class Plan:
    """A checked strength run: what ``run`` measures and where it publishes."""

    game: str  # the game's name (the zoo entry's name when published)
    path: Path  # the policy file
    meta: dict[str, Any]
    variants: list[dict[str, Any]]
    publish_to: Path | None = None


def _writable_problem(dest: Path) -> str:
    folder = dest.parent
    if not folder.is_dir():
        return f"the zoo folder {folder} does not exist"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"the zoo folder {folder} is not writable"
    for path in (dest, dest.with_suffix(".json")):
        if path.exists() and not (path.is_file() and os.access(path, os.W_OK)):
            return f"{path} exists and cannot be overwritten"
    return ""


def plan(game: str, policy: str | None = None, variants: Sequence[Mapping[str, Any]] | None = None,
         publish: bool = False) -> Plan:
    """Check everything a strength run needs before any game is played: the game, the policy
    (``zoo:<game>`` when ``None``) and that it is a policy for this game, every variant (the
    game's ``STRENGTH_VARIANTS`` unless given) and that the policy may play it, and, with
    ``publish``, that the zoo entry can be written. Raises ``ValueError`` (or
    ``IncompatiblePolicyError``) saying what is wrong; writes nothing."""
    spec = game_spec(game)
    name = spec.name
    spec_text = policy if policy is not None else f"zoo:{name}"
    try:
        path = policy_file(spec_text)
    except ValueError as exc:
        if policy is None:
            raise ValueError(f"no POLICY given and {exc}") from None
        raise
    meta = read_metadata(path)
    trained = str(meta["env_id"]).split("/")[-1].rpartition("-v")[0]
    if trained != name:
        raise ValueError(f"{spec_text} is a policy for {meta['env_id']}, not {spec.env_id}; give "
                         f"a {name} policy (e.g. zoo:{name}) or measure it as "
                         f"'cahoots strength {trained} {spec_text}'")
    env_id, options = meta["env_id"], meta["game_options"]
    chosen = [dict(v) for v in variants] if variants is not None else game_variants(env_id)
    if not chosen:
        raise ValueError("no variant to measure")
    labels = [variant_label(v) for v in chosen]
    twice = sorted({label for label in labels if labels.count(label) > 1})
    if twice:
        raise ValueError(f"variant {twice[0]} is given twice; each variant is one row")
    for variant in chosen:  # the one loaded policy plays every variant
        check_compatible(meta, env_info(env_id, {**options, **variant}), source=str(path))
    publish_to = None
    if publish:
        publish_to = loading.ZOO_DIR / f"{name}.safetensors"
        problem = _writable_problem(publish_to)
        if problem:
            raise ValueError(f"cannot publish: {problem}")
    return Plan(name, path, meta, chosen, publish_to)


def measure(path: str | Path, games: int, seed: int,
            variants: Sequence[Mapping[str, Any]] | None = None) -> dict[str, Any]:
    """The strength table of the policy at ``path``: ``{"meta", "results", "policy"}``.
    ``variants``: the option sets measured (the game's ``STRENGTH_VARIANTS`` when ``None``);
    a competitive game measured at its own options alone (``[{}]``) keeps its three rows at the
    top of ``results``, else they go under ``results["variants"][label]``; a cooperative game's
    go under ``results["team"][label]``."""
    meta = read_metadata(path)
    env_id, options = meta["env_id"], meta["game_options"]
    chosen = [dict(v) for v in variants] if variants is not None else game_variants(env_id)
    policy = loading.load_policy(str(path), env_id, options, seed=seed)
    results: dict[str, Any] = {"games_per_row": games, "seats": "rotated (seat g % N in game g)",
                               "confidence": "95%, normal approximation",
                               "policy": "greedy (argmax)",
                               "measured": _dt.date.today().isoformat(),
                               "machine": f"{platform.machine()}, {os.cpu_count()} CPUs"}
    # one BLAS thread: the networks multiply small matrices, and a multi-threaded OpenBLAS on a
    # busy 2-core machine measured a table 4 to 7 times slower (with the same results)
    limit_blas_threads(1)
    t0 = time.time()
    _measure_rows(results, meta, path, policy, games, seed, chosen)
    results["seconds"] = round(time.time() - t0, 1)
    return {"meta": meta, "results": results, "policy": policy}


def _measure_rows(results: dict[str, Any], meta: Mapping[str, Any], path: str | Path,
                  policy: Any, games: int, seed: int, chosen: list[dict[str, Any]]) -> None:
    env_id, options = meta["env_id"], meta["game_options"]
    if env_info(env_id, options).game_cls.COOPERATIVE:
        rows = {}
        for variant in chosen:
            opts = {**options, **variant}
            # the same network: a variant keeps the layout and actions (checked by ``plan``)
            check_compatible(meta, env_info(env_id, opts), source=str(path))
            heuristic = loading.load_policy("heuristic", env_id, opts, seed=seed + 1)
            rows[variant_label(variant)] = {
                "policy_team": team_matches(env_id, policy, games, opts, seed=seed).as_dict(),
                "heuristic_team": team_matches(env_id, heuristic, games, opts, seed=seed).as_dict(),
                "random_team": team_matches(env_id, loading.load_policy("random", env_id, opts,
                                                                        seed=seed),
                                            games, opts, seed=seed).as_dict(),
            }
        results["team"] = rows
    elif chosen == [{}]:
        results.update(_seat_rows(env_id, policy, options, games, seed))
    else:
        results["variants"] = {}
        for variant in chosen:
            opts = {**options, **variant}
            check_compatible(meta, env_info(env_id, opts), source=str(path))
            results["variants"][variant_label(variant)] = _seat_rows(env_id, policy, opts, games,
                                                                     seed)


def _seat_rows(env_id: str, policy: Any, options: Mapping[str, Any], games: int,
               seed: int) -> dict[str, Any]:
    """The three competitive rows; the heuristic and random bots carry their draws from row to
    row (the order is part of the table's seeds)."""
    heuristic = loading.load_policy("heuristic", env_id, options, seed=seed + 1)
    rand = loading.load_policy("random", env_id, options, seed=seed + 2)
    return {
        "heuristic_vs_random": seat_matches(env_id, heuristic, rand, games, options,
                                            seed=seed).as_dict(),
        "policy_vs_random": seat_matches(env_id, policy, rand, games, options,
                                         seed=seed + 3).as_dict(),
        "policy_vs_heuristic": seat_matches(env_id, policy, heuristic, games, options,
                                            seed=seed + 4).as_dict(),
    }


def fmt(r: Mapping[str, Any]) -> str:
    return f"{r['win_rate']:.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}]"


def markdown(meta: Mapping[str, Any], results: Mapping[str, Any]) -> str:
    """The table rows (Markdown) of ``results``, as in the README's strength tables."""
    env = meta["env_id"].split("/")[1]
    n = meta["game_options"].get("num_players")
    if "team" in results:
        return "\n".join(
            f"| {env} ({n}p, {d}) | team wins (mean goals) | random team {fmt(r['random_team'])} "
            f"({r['random_team']['mean_score']:.1f}) | heuristic team {fmt(r['heuristic_team'])} "
            f"({r['heuristic_team']['mean_score']:.1f}) | policy team {fmt(r['policy_team'])} "
            f"({r['policy_team']['mean_score']:.1f}) | {results['games_per_row']} |"
            for d, r in results["team"].items()
        )
    groups = results["variants"].items() if "variants" in results else [(None, results)]
    return "\n".join(
        f"| {env} ({n}p{'' if label is None else f', {label}'}) | chance 1/N = {1 / n:.3f} | "
        f"heuristic vs random {fmt(r['heuristic_vs_random'])} | policy vs random "
        f"{fmt(r['policy_vs_random'])} | policy vs heuristic {fmt(r['policy_vs_heuristic'])} | "
        f"{results['games_per_row']} |"
        for label, r in groups
    )


def _zoo_copy(policy: Any, meta: Mapping[str, Any], dest: Path, name: str,
              evaluation: Mapping[str, Any]) -> None:
    if not isinstance(policy, (MLPPolicy, ActionScoringPolicy)):
        raise IncompatiblePolicyError(f"{name}: only a network policy can be published to the zoo")
    save_policy(policy, dest, meta["env_id"], meta["game_options"], weights_dtype="float16",
                name=name, description=meta.get("description", ""),
                training=dict(meta.get("training") or {}), evaluation=dict(evaluation))


def run(checked: Plan, games: int = DEFAULT_GAMES, seed: int = DEFAULT_SEED,
        say: Callable[[str], None] = print) -> dict[str, Any]:
    """Measure (and publish) as ``checked`` says; prints the results as JSON, the table rows in
    Markdown and, when published, the zoo file. Returns ``measure``'s dict."""
    if checked.publish_to is None:
        out = measure(checked.path, games, seed, checked.variants)
        _report(out, say)
        return out
    dest, name = checked.publish_to, checked.game
    with tempfile.TemporaryDirectory(prefix="cahoots_strength_") as folder:
        # the zoo stores float16 weights: copy first, then measure exactly what ships
        copy = Path(folder) / dest.name
        meta = checked.meta
        source = loading.load_policy(str(checked.path), meta["env_id"], meta["game_options"])
        # re-publishing a zoo entry keeps the results of the run that trained it
        trained = dict(meta.get("evaluation") or {})
        _zoo_copy(source, meta, copy, name, {"training_run": trained.get("training_run", trained)})
        out = measure(copy, games, seed, checked.variants)
        _report(out, say)
        measured = out["meta"]
        _zoo_copy(out["policy"], measured, dest, name,
                  {"strength": out["results"], **(measured.get("evaluation") or {})})
    say(f"published {dest} ({dest.stat().st_size // 1024} KB)")
    return out


def _report(out: Mapping[str, Any], say: Callable[[str], None]) -> None:
    say(json.dumps(out["results"], indent=2))
    say(markdown(out["meta"], out["results"]))
