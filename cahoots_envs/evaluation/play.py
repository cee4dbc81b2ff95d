"""Playing tournaments: the schedule of seats and seeds, one game, and the worker processes."""

from __future__ import annotations

import itertools
import json
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cahoots_envs.evaluation.report import TournamentResult, summarise
from cahoots_envs.evaluation.results import GameResult


# ---- schedule -----------------------------------------------------------------------------------
def lineup_for_game(policies: Sequence[str], num_players: int, game: int, cooperative: bool) -> list[str]:
    """The policy spec in each seat of game ``game`` (see the package docstring)."""
    p = len(policies)
    n = num_players
    if cooperative:
        return [policies[game % p]] * n
    if p <= n:
        base = [policies[i % p] for i in range(n)]
        combo_index = 0
    else:
        combos = list(itertools.combinations(range(p), n))
        combo_index = (game // n) % len(combos)
        base = [policies[i] for i in combos[combo_index]]
    shift = game % n
    return [base[(s + shift) % n] for s in range(n)]


def field_lineup(candidates: Sequence[str], field: str, num_players: int, game: int) -> list[str]:
    """Game ``game`` of a candidates-against-a-field tournament: candidate ``(game // N) mod C``
    in seat ``game mod N``, the field in every other seat."""
    n = num_players
    candidate = candidates[(game // n) % len(candidates)]
    return [candidate if s == game % n else field for s in range(n)]


def game_seed(seed: int, game: int, stream: int = 0) -> int:
    key = [seed, game] if stream == 0 else [seed, game, stream]
    return int(np.random.SeedSequence(key).generate_state(1, dtype=np.uint32)[0] >> 1)


# ---- playing --------------------------------------------------------------------------------------
_POLICY_CACHE: dict[tuple[str, str, str], Any] = {}
_OBJECTS: dict[str, Any] = {}  # policy objects of the running tournaments, by _ObjectRef key


@dataclass(frozen=True)
class _ObjectRef:
    """A policy object in a task: tasks name it, and each worker gets the objects once."""

    key: str


def _install_objects(objects: dict[str, Any]) -> None:
    _OBJECTS.update(objects)


def _policy(spec: Any, env_id: str, options: Mapping[str, Any], seed: int) -> Any:
    """A policy seeded for this game and seat; built-in bots are cheap to rebuild, saved policies
    are loaded once per process and re-seeded; a policy object is used as it is (re-seeded)."""
    from cahoots_envs.policies.loading import load_policy

    if not isinstance(spec, str):
        policy = _OBJECTS[spec.key] if isinstance(spec, _ObjectRef) else spec
        if hasattr(policy, "rng"):
            policy.rng = np.random.default_rng(seed)
        return policy
    if spec in ("random", "heuristic"):
        return load_policy(spec, env_id, options, seed=seed)
    key = (spec, env_id, json.dumps(options, sort_keys=True, default=str))
    policy = _POLICY_CACHE.get(key)
    if policy is None:
        policy = load_policy(spec, env_id, options, seed=seed)
        _POLICY_CACHE[key] = policy
    if hasattr(policy, "rng"):
        policy.rng = np.random.default_rng(seed)
    return policy


def play_game(
    env_id: str,
    options: Mapping[str, Any],
    lineup: Sequence[Any],
    seed: int,
    game_index: int = 0,
    policy_seeds: Sequence[int] | None = None,
    log_path: str | Path | None = None,
    labels: Sequence[str] | None = None,
) -> GameResult:
    """One game between the policies of ``lineup`` (one spec or policy object per seat);
    ``labels`` names them in the result and the log (default: the specs, or the objects'
    ``name``)."""
    from cahoots_envs.gamelog import GameRecorder
    from cahoots_envs.registry import make_raw

    env = make_raw(env_id, **dict(options))
    n = len(env.possible_agents)
    if len(lineup) != n:
        raise ValueError(f"lineup has {len(lineup)} policies for {n} seats")
    game_options = env.options
    seeds = policy_seeds or [seed + 1 + s for s in range(n)]
    policies = [_policy(spec, env.env_id, game_options, seeds[s]) for s, spec in enumerate(lineup)]
    if labels is None:
        labels = [spec if isinstance(spec, str) else str(getattr(policy, "name", policy))
                  for spec, policy in zip(lineup, policies)]
    recorder = GameRecorder(env, players=list(labels)) if log_path else None
    if recorder is not None:
        recorder.reset(seed=seed)
    else:
        env.reset(seed=seed)
    turns = 0
    game = env.game
    while not game.is_over:
        seat = game.current_player
        obs = env.observe(env.possible_agents[seat])
        policy = policies[seat]
        if getattr(policy, "needs_infoset", False):  # a search bot: its seat's information set
            from cahoots_envs.search import Infoset

            action = int(policy.act_infoset(Infoset(game, seat, env.spec, env.options,
                                                    obs["observation"], obs["action_mask"])))
        else:
            action = int(policy.act(obs["observation"], obs["action_mask"]))
        if recorder is not None:
            recorder.step(action)
        else:
            env.step(action)
        turns += 1
        game = env.game
    if recorder is not None and log_path is not None:
        recorder.save(log_path)
    return GameResult(
        game=game_index,
        seed=seed,
        lineup=list(labels),
        scores=[float(s) for s in game.scores],
        outcome=[float(x) for x in game.outcome()],
        turns=turns,
        won=bool(game.winning_seats()) if game.COOPERATIVE else None,
    )


def _run_one(task: tuple[str, dict[str, Any], list[Any], int, int, list[int], str | None,
                         list[str]]) -> GameResult:
    env_id, options, lineup, seed, index, policy_seeds, log_path, labels = task
    return play_game(env_id, options, lineup, seed, index, policy_seeds, log_path, labels)


def run_tournament(
    env_id: str,
    policies: Sequence[Any],
    num_games: int,
    seed: int = 0,
    options: Mapping[str, Any] | None = None,
    workers: int = 1,
    progress: bool = False,
    log_dir: str | Path | None = None,
    on_result: Callable[[GameResult], None] | None = None,
    field: Any = None,
) -> TournamentResult:
    """Play ``num_games`` games between ``policies`` (specs or policy objects) on ``env_id``,
    or with ``field`` (a spec or policy object) each of ``policies`` in one seat against the
    field in every other seat (see the package docstring)."""
    from cahoots_envs.registry import make_raw

    if not policies:
        raise ValueError("give at least one policy")
    if num_games < 1:
        raise ValueError("num_games must be at least 1")
    sources = named_sources(list(policies), field)
    names = list(sources)
    candidates, field_name = (names[:-1], names[-1]) if field is not None else (names, None)
    options = dict(options or {})
    raw = make_raw(env_id, **options)  # validates env id and options early
    n = len(raw.possible_agents)
    cooperative = bool(raw.game_cls.COOPERATIVE)
    if field is not None and cooperative:
        raise ValueError(f"{raw.env_id} is cooperative: every seat plays for one team, so a "
                         "field does not apply; evaluate the team policies without it")
    across, _ = check_sources(sources, raw.env_id, dict(raw.options))
    if log_dir is not None:
        make_log_dir(Path(log_dir))
    objects, refs = object_refs(sources)
    tasks = []
    for g in range(num_games):
        if field_name is not None:
            lineup = field_lineup(candidates, field_name, n, g)
        else:
            lineup = lineup_for_game(names, n, g, cooperative)
        log_path = str(Path(log_dir) / f"game_{g:05d}.jsonl") if log_dir is not None else None
        tasks.append((raw.env_id, options, [refs[name] for name in lineup], game_seed(seed, g), g,
                      [game_seed(seed, g, 1 + s) for s in range(n)], log_path, lineup))
    results = play_tasks(tasks, workers, objects, progress_bar(num_games, progress, raw.env_id),
                          on_result)
    result = summarise(raw.env_id, options, names, seed, results, field_policy=field_name)
    if across:
        result.meta["option_differences"] = across
    return result


def check_sources(sources: Mapping[str, Any], env_id: str, game_options: Mapping[str, Any],
                   leave_out: bool = False) -> tuple[dict[str, dict[str, list[Any]]], dict[str, str]]:
    """Load every spec once, before any worker starts, so a bad spec fails first. Returns the
    saved policies that play across an option they were trained without (a setting such as the
    difficulty: loading allows it), ``{name: {option: [trained, now]}}``, and, with
    ``leave_out``, those that may not play these options at all, ``{name: why}`` (without it
    their ``IncompatiblePolicyError`` is raised)."""
    from cahoots_envs.errors import IncompatiblePolicyError
    from cahoots_envs.policies.loading import load_policy

    across: dict[str, dict[str, list[Any]]] = {}
    refused: dict[str, str] = {}
    for name, source in sources.items():
        try:
            policy = (load_policy(source, env_id, dict(game_options), seed=0)
                      if isinstance(source, str) else source)
        except IncompatiblePolicyError as exc:
            if not leave_out:
                raise
            refused[name] = str(exc)
            continue
        differences = getattr(policy, "option_differences", None) or {}
        if differences:
            across[name] = {k: list(v) for k, v in differences.items()}
    return across, refused


def object_refs(sources: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The policy objects among ``sources`` under keys unique to this run (each worker gets them
    once), and what a task names each source by: its spec, or an ``_ObjectRef``."""
    token = uuid.uuid4().hex
    objects = {f"{token}:{name}": source for name, source in sources.items()
               if not isinstance(source, str)}
    refs = {name: source if isinstance(source, str) else _ObjectRef(f"{token}:{name}")
            for name, source in sources.items()}
    return objects, refs


def play_tasks(tasks: list[Any], workers: int, objects: dict[str, Any], bar: Any,
                on_result: Callable[[GameResult], None] | None) -> list[GameResult]:
    """Every task's game (in worker processes when ``workers`` > 1), in the order they finish."""
    results: list[GameResult] = []
    _install_objects(objects)
    try:
        for r in _imap(tasks, workers, objects):
            results.append(r)
            if on_result is not None:
                on_result(r)
            if bar is not None:
                bar.update(1)
    finally:
        for key in objects:
            _OBJECTS.pop(key, None)
        if bar is not None:
            bar.close()
    return results


def named_sources(policies: list[Any], field: Any) -> dict[str, Any]:
    """Each policy (then the field) under a unique name: a spec as written, an object by its
    ``name`` (else its repr), numbered on a clash; a spec given twice is refused."""
    out: dict[str, Any] = {}
    specs: set[str] = set()
    for i, source in enumerate([*policies, *([] if field is None else [field])]):
        is_field = field is not None and i == len(policies)
        if isinstance(source, str):
            if source in specs and not is_field:
                raise ValueError(
                    f"policy {source!r} is given twice; seats are filled by rotation, so give "
                    f"each policy once, or put one policy against copies of another with a "
                    f"field (cahoots eval <env> <policy> --field {source})")
            specs.add(source)
            base = source
        elif callable(getattr(source, "act", None)):
            base = str(getattr(source, "name", None) or repr(source))
        else:
            raise TypeError(f"{source!r} is not a policy spec or an object with "
                             "act(observation, action_mask)")
        name, k = base, 2
        while name in out:
            name = f"{base}#{k}"
            k += 1
        out[name] = source
    return out


def make_log_dir(path: Path) -> None:
    if path.exists() and not path.is_dir():
        raise ValueError(f"the log folder {path} is a file; give a folder (it is made if "
                         "missing) for one game_NNNNN.jsonl per game")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ValueError(f"cannot make the log folder {path}: {exc.strerror or exc}; give a "
                         "folder that can be written") from None


def progress_bar(total: int, enabled: bool, label: str) -> Any:
    if not enabled:
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(total=total, desc=label.split("/", 1)[-1], unit="game", dynamic_ncols=True)


def _imap(tasks: list[Any], workers: int, objects: dict[str, Any] | None = None
          ) -> Iterable[GameResult]:
    if workers <= 1 or len(tasks) <= 1:
        for t in tasks:
            yield _run_one(t)
        return
    import multiprocessing

    chunk = max(1, min(16, len(tasks) // (workers * 4)))
    with multiprocessing.get_context().Pool(workers, initializer=_install_objects,
                                            initargs=(dict(objects or {}),)) as pool:
        yield from pool.imap_unordered(_run_one, tasks, chunksize=chunk)


def default_workers() -> int:
    import os

    return max(1, min(4, (os.cpu_count() or 2) - 1))
