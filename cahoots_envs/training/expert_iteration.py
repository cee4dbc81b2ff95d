"""Expert iteration: the network learns from search over itself (``algorithm:
expert_iteration``; its settings are the config's ``expert_iteration`` section, the network's
shape ``ppo.net_arch``/``ppo.activation`` in it; the optional behaviour clone ``pretrain``;
``total_timesteps`` counts the positions labelled over the whole run).

One iteration:

1. **Positions the network reaches.** ``n_envs`` games on the batched engine: in a share
   (``self_play_share``) the network plays every seat, in the others one seat (rotated) against
   ``opponent`` in the rest. The network samples its moves (its masked softmax, so the positions
   spread); with ``random_share``, that share of the one-seat games has random bots in the
   other seats instead, so positions come from games against random players too. Each of its
   decisions with 2..``max_moves`` legal moves is kept with chance
   ``take`` as a reference game (``engine.game(i)``: the deals and every action so far), with
   its observation and mask, until ``positions`` are kept (with ``only_searched``, only those
   the game's search bot would search: its ``worth_searching``).
2. **Labels.** ``cahoots_envs.search.label_positions`` searches them all together on the engine
   with the ``search`` knobs, the current network (greedy) as the blueprint: its move is the
   search's default and, with ``rollout: blueprint``, it plays the rollouts (one forward pass a
   ply for all rows); ``rollout: heuristic`` rolls out with the game's rule-based bot instead
   (cheaper). With ``matched_rollouts``, the positions from games against random bots are
   rolled out with random bots at the other seats (``SeatedRoller``; the ``rollout`` player at
   the searching seat). Every label carries each legal move's mean rollout value.
3. **Learning from the values, not the choices.** For each searched position the target is the
   network's own distribution there, tilted by the values:
   ``target(a) ∝ pi_old(a) * exp((Q(a) - max Q) / beta)`` over the legal moves (the policy that
   maximises ``E[Q] - beta * KL(pi || pi_old)``; ``beta`` in value units, the games' values are
   win chances). Where the search sees no difference the network keeps its own preferences; where
   one move is clearly better the target moves toward it, as far as the evidence goes. The actor
   is fitted by cross-entropy to the targets of the last ``window`` iterations' labels for
   ``epochs`` passes. A network that copied the search's choices instead learned mostly the
   blueprint's habits (docs/training.md, expert iteration).
4. The new network is evaluated (``eval``) and becomes the next iteration's blueprint.

The network is the flat MLP of ``ppo.net_arch``/``ppo.activation`` (the saved policy is its
actor, an ``MLPPolicy``), or, with ``network: {type: action_scoring, ...}``, an action-scoring
network (``policies/scoring.py``: a score per move from a trunk over the observation, the
move's embedding, its entries in ``action_segments`` and the ``computed`` per-move features the
game offers, e.g. the cooperative game's ``lookahead``). Both act with numpy. ``start`` names a
saved policy of that kind to begin from (``zoo:<game>``, a policy file); else the behaviour
clone of ``pretrain`` (or a fresh network when ``pretrain.games`` is 0).
"""

from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cahoots_envs.core.game import Game
from cahoots_envs.envinfo import env_info
from cahoots_envs.policies.loading import load_policy
from cahoots_envs.policies.network import MLPPolicy
from cahoots_envs.search import SeatedRoller, label_positions
from cahoots_envs.search.policy import check_knobs
from cahoots_envs.training.actors import check_network, network_problems, scoring_actor
from cahoots_envs.training.checkpoint import (
    Checkpoints,
    generator_states,
    load_module,
    load_optimizer,
    load_torch_rng,
    logs_state,
    module_tensors,
    optimizer_state,
    restore_logs,
    set_generator_states,
    stop_point,
    torch_rng_tensors,
)
from cahoots_envs.training.config import ConfigError, TrainConfig
from cahoots_envs.training.imitation import pretrain
from cahoots_envs.training.networks import build_network, masked_logits
from cahoots_envs.training.run import CsvLog, Evaluator, Trained, check_engine
from cahoots_envs.training.updates import crossed
from cahoots_envs.vector import make as make_vector

DESCRIPTION = "expert iteration (search over the network labels its own positions)"
SECTION = "expert_iteration"
ROLLOUTS = ("blueprint", "heuristic")
LABEL_VALUES = ("selection", "unbiased")


@dataclass
class ExpertIterationConfig:
    """Expert iteration's own settings (``expert_iteration:`` in a config)."""

    start: str = ""  # a saved policy to start from (zoo:<game>, a file); "": pretrain / fresh
    positions: int = 4000  # positions labelled per iteration
    take: float = 0.2  # chance that one of the network's decisions is kept as a position
    # the most legal moves a kept position may have (at least 2); positions with more than the
    # search's max_candidates (the game's search default, which may be higher than 12) are
    # labelled unsearched and left out, so raise it at most that far
    max_moves: int = 12
    # true: keep only positions the game's search bot would search (its world sampler's
    # worth_searching, e.g. the cooperative game's endgame window)
    only_searched: bool = False
    self_play_share: float = 0.0  # games where the network plays every seat
    opponent: str = "heuristic"  # the other seats of the remaining games (a policy spec)
    # the share of those one-seat games whose other seats are random bots instead of `opponent`:
    # positions from games against random players too, so the network keeps its play there
    random_share: float = 0.0
    # true: the positions from those games against random bots are labelled with random bots
    # in the rollouts' other seats too (the searching seat still played by `rollout`), so their
    # values are the values against the players that game had; false: `rollout` plays every
    # seat of every rollout
    matched_rollouts: bool = False
    search: dict[str, Any] = field(default_factory=lambda: {"worlds": 8, "max_worlds": 16})
    rollout: str = "blueprint"  # who plays the rollouts: the network, or the game's heuristic
    beta: float = 0.05  # the target's temperature, in value units
    # the values Q the target tilts by: "selection" (the labelling search's own worlds, which
    # chose the move and so flatter it) or "unbiased" (every candidate measured again in as
    # many independent worlds, label_positions(unbiased=True): twice the rollouts)
    label_values: str = "selection"
    window: int = 2  # iterations of labels the network is fitted to
    epochs: int = 4
    batch_size: int = 256
    learning_rate: float = 1e-4
    # {} the MLP of ppo.net_arch; {type: action_scoring, ...}: see actors.SCORING_DEFAULTS
    network: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:  # checked as the config loads, before any work

        problems = network_problems(self.network)
        if self.positions < 1:
            problems.append(f"positions must be >= 1, got {self.positions}")
        if self.max_moves < 2:
            problems.append(f"max_moves must be >= 2 (a position to search has a choice), got "
                            f"{self.max_moves}")
        if not 0.0 < self.take <= 1.0:
            problems.append(f"take must be in (0, 1], got {self.take}")
        if not 0.0 <= self.self_play_share <= 1.0:
            problems.append(f"self_play_share must be in [0, 1], got {self.self_play_share}")
        if not 0.0 <= self.random_share <= 1.0:
            problems.append(f"random_share must be in [0, 1], got {self.random_share}")
        if self.rollout not in ROLLOUTS:
            problems.append(f"rollout must be one of {', '.join(ROLLOUTS)}, got {self.rollout!r}")
        if self.matched_rollouts and self.random_share == 0:
            problems.append("matched_rollouts matches the rollouts to the games against random "
                            "bots, which random_share: 0 leaves out; set random_share > 0 or "
                            "matched_rollouts: false")
        elif self.matched_rollouts and isinstance(self.search, dict) and \
                (self.search.get("leaf", 0) or self.search.get("belief", 0)):
            problems.append("matched_rollouts plays whole rollouts on the engine; it does not "
                            "combine with search.leaf or search.belief")
        if not (math.isfinite(self.beta) and self.beta > 0):
            problems.append(f"beta must be a number > 0, got {self.beta}")
        if self.label_values not in LABEL_VALUES:
            problems.append(f"label_values must be one of {', '.join(LABEL_VALUES)}, got "
                            f"{self.label_values!r}")
        for name in ("window", "epochs", "batch_size"):
            if getattr(self, name) < 1:
                problems.append(f"{name} must be >= 1, got {getattr(self, name)}")
        if not (math.isfinite(self.learning_rate) and self.learning_rate > 0):
            problems.append(f"learning_rate must be > 0, got {self.learning_rate}")
        if not isinstance(self.search, dict):
            problems.append(f"search is a mapping of search settings, got {self.search!r}")
        else:
            for name in ("rollout", "engine", "search_all", "time_limit"):
                if name in self.search:
                    problems.append(f"search.{name} is not set here (the labels search every "
                                    "position on the engine; the rollout player is "
                                    f"{SECTION}.rollout)")
            try:
                check_knobs({k: v for k, v in self.search.items()
                             if k not in ("rollout", "engine", "search_all", "time_limit")})
            except ValueError as e:
                problems.append(f"search: {e}")
        if problems:
            raise ConfigError(f"{SECTION}: " + "; ".join(problems))

    def check_config(self, config: TrainConfig) -> None:
        """With the env known (as the config loads): the network's segments and computed
        features exist for it."""
        check_network(config, self.network, SECTION)
        if self.random_share > 0 and config.team:
            raise ConfigError(f"{SECTION}.random_share: a team run has no one-seat games to "
                              "seat random bots in; set random_share: 0 or team: false")


# ---- the network ----------------------------------------------------------------------------
class MlpActor:
    """The flat MLP (``build_network``'s layout: SB3's actor and critic; the actor is fitted)."""

    kind = "mlp"

    def __init__(self, net: Any, config: TrainConfig | None = None) -> None:
        self.net = net
        self.config = config

    def policy(self, deterministic: bool = True, seed: int | None = None) -> MLPPolicy:
        actor = MLPPolicy.from_sb3(self.net)
        if deterministic:
            return actor
        return MLPPolicy([(w.T, b) for w, b in actor.layers], actor.activation,
                         deterministic=False, seed=seed)

    def start(self, spec: str) -> None:
        assert self.config is not None
        load_actor(self.net, start_policy(self.config, spec))

    def pretrain(self, evaluator: Evaluator, run_dir: Path) -> dict[str, Any]:
        assert self.config is not None
        return pretrain(self.config, self.net, evaluator, run_dir)

    def features(self, obs: np.ndarray) -> Any:
        return None

    def logits(self, obs: Any, features: Any) -> Any:
        return self.net.logits(obs)


def make_actor(config: TrainConfig, section: ExpertIterationConfig, info: Any) -> Any:
    if section.network:
        return scoring_actor(config, section.network, SECTION, "expert iteration")
    return MlpActor(build_network(info.layout.size, int(info.num_actions),
                                  list(config.ppo.net_arch), config.ppo.activation), config)


def load_actor(net: Any, policy: MLPPolicy) -> None:
    """Copy a saved MLP policy's layers into ``net``'s actor (``build_network``'s layout); the
    shapes and the activation must match."""
    import torch  # the train extra
    from torch import nn

    linears = [m for m in net.mlp_extractor.policy_net if isinstance(m, nn.Linear)]
    linears.append(net.action_net)
    shapes = [tuple(m.weight.shape[::-1]) for m in linears]
    theirs = [tuple(w.shape) for w, _ in policy.layers]
    if shapes != theirs:
        raise ConfigError(f"{SECTION}.start: the policy's layers {theirs} do not match the "
                          f"network of ppo.net_arch {shapes}; set ppo.net_arch to its hidden "
                          f"sizes {[s[1] for s in theirs[:-1]]}")
    with torch.no_grad():
        for m, (wt, b) in zip(linears, policy.layers):
            m.weight.copy_(torch.from_numpy(np.ascontiguousarray(wt.T)))
            m.bias.copy_(torch.from_numpy(b))


def start_policy(config: TrainConfig, spec: str) -> MLPPolicy:
    try:
        policy = load_policy(spec, config.env_id, config.env_options, seed=config.seed)
    except (ValueError, OSError) as e:
        raise ConfigError(f"{SECTION}.start: {e}") from None
    if not isinstance(policy, MLPPolicy):
        raise ConfigError(f"{SECTION}.start: {spec!r} is not a saved MLP policy (zoo:<game> or "
                          "a policy file made by cahoots train)")
    if policy.activation != config.ppo.activation:
        raise ConfigError(f"{SECTION}.start: {spec!r} uses {policy.activation}; set "
                          f"ppo.activation: {policy.activation}")
    return policy


def masked_probs(logits: np.ndarray, masks: np.ndarray) -> np.ndarray:
    z = np.where(masks != 0, logits, -np.inf)
    z = np.exp(z - z.max(axis=1, keepdims=True))
    return z / z.sum(axis=1, keepdims=True)  # type: ignore[no-any-return]


# ---- 1. positions ---------------------------------------------------------------------------
@dataclass
class Positions:
    games: list[Game]
    obs: np.ndarray
    masks: np.ndarray
    decisions: int  # the network's decisions played to find them
    # per position: found in a game whose other seats were random bots (random_share)
    against_random: np.ndarray = field(default_factory=lambda: np.zeros(0, np.bool_))


def collect_positions(config: TrainConfig, section: ExpertIterationConfig, sampler: Any,
                      opponent: Any, count: int, most: int, seed: int,
                      randoms: Any = None) -> Positions:
    """``count`` positions the network reaches (see the module docstring, step 1), the network
    playing as ``sampler`` (its policy sampling its moves); ``randoms`` plays the other seats of
    the last ``random_share`` of the one-seat games (``opponent`` the rest)."""

    vec = make_vector(config.env_id, config.n_envs, seed=seed, **config.game_options())
    vec.reset(seed=seed)
    e = vec.engine
    n, p = config.n_envs, vec.num_players
    rng = np.random.default_rng([seed, 5])
    every = np.arange(n) < round((1.0 if config.team else section.self_play_share) * n)
    seat = np.arange(n) % p  # the network's seat in the other games
    one_seat = n - int(every.sum())
    against_random = np.arange(n) >= n - (round(section.random_share * one_seat)
                                          if randoms is not None else 0)
    worth = None
    if section.only_searched:
        worth = env_info(config.env_id, config.game_options()).spec.require(
            "world_sampler").worth_searching
    games: list[Game] = []
    obs: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    from_random: list[bool] = []
    decisions = 0
    move = np.zeros(n, np.int64)
    while len(games) < count:
        stop_point("rollout")
        mover = e.to_move.copy()
        ours = every | (mover == seat)
        rows = np.flatnonzero(ours)
        if rows.size:
            move[rows] = sampler.act_batch(e.obs[rows], e.mask[rows])
            decisions += rows.size
            legal = e.mask[rows].sum(axis=1)
            keep = rows[(legal >= 2) & (legal <= most) & (rng.random(rows.size) < section.take)]
            for i in keep.tolist():
                if len(games) >= count:
                    break
                game = e.game(i)
                if worth is not None and not worth(game, game.current_player):
                    continue
                games.append(game)
                obs.append(e.obs[i].astype(np.float32))
                masks.append(e.mask[i].copy())
                from_random.append(bool(against_random[i]))
        others = np.flatnonzero(~ours & ~against_random)
        if others.size:
            move[others] = opponent.act_batch(e.obs[others], e.mask[others])
        others = np.flatnonzero(~ours & against_random)
        if others.size:
            move[others] = randoms.act_batch(e.obs[others], e.mask[others])
        e.step(move)
        done = np.flatnonzero(e.done & ~every)
        seat[done] = (seat[done] + 1) % p
    return Positions(games, np.stack(obs), np.stack(masks), decisions,
                     np.array(from_random, np.bool_))


# ---- 2 and 3. labels and targets ------------------------------------------------------------
@dataclass
class Labelled:
    obs: np.ndarray  # [P, obs]
    masks: np.ndarray  # [P, actions]
    targets: np.ndarray  # [P, actions], rows summing to 1
    changed: float  # share of positions where the search's move is not the network's
    gain: float  # mean of max Q minus Q of the network's move, over the searched positions


def tilted_targets(pi_old: np.ndarray, legal: list[int], means: np.ndarray, beta: float,
                   ) -> np.ndarray:
    """``pi_old * exp((Q - max Q) / beta)`` over ``legal``, normalised (step 3)."""
    out = np.zeros_like(pi_old)
    w = pi_old[legal] * np.exp((means - means.max()) / beta)
    if not np.isfinite(w).all() or w.sum() <= 0:  # the network gave its best move no weight
        w = np.exp((means - means.max()) / beta)
    out[legal] = w / w.sum()
    return out


def label(config: TrainConfig, section: ExpertIterationConfig, actor: Any,
          positions: Positions, seed: int) -> Labelled:
    unbiased = section.label_values == "unbiased"
    options = config.game_options()
    knobs = dict(blueprint=actor, blueprint_name="network", rollout=section.rollout,
                 unbiased=unbiased, engine="batched", **section.search)
    matched = np.zeros(len(positions.games), np.bool_)
    if section.matched_rollouts and positions.against_random.size:
        matched = positions.against_random
    groups: list[tuple[np.ndarray, int, Any]] = [(np.flatnonzero(~matched), seed, None)]
    if matched.any():  # the games against random bots: random bots in the rollouts' other seats
        own = actor if section.rollout == "blueprint" else \
            env_info(config.env_id, options).spec.bot(options, seed=seed + 31)
        roller = SeatedRoller(own, load_policy("random", config.env_id, options,
                                               seed=seed + 37))
        groups.append((np.flatnonzero(matched), seed + 500, roller))
    labels: list[Any] = [None] * len(positions.games)
    for rows, group_seed, group_roller in groups:
        if rows.size:
            found = label_positions(config.env_id, options, [positions.games[i] for i in rows],
                                    seed=group_seed, roller=group_roller, **knobs)
            for i, lab in zip(rows.tolist(), found):
                labels[i] = lab
    pi = masked_probs(actor.logits(positions.obs), positions.masks)
    keep, targets, changed, gains = [], [], 0, []
    for k, lab in enumerate(labels):
        if not lab.searched:
            continue
        keep.append(k)
        q = lab.check_means if unbiased and lab.check_means is not None else lab.means
        targets.append(tilted_targets(pi[k], lab.legal, q, section.beta))
        changed += lab.move != lab.blueprint_move
        gains.append(float(q.max() - q[lab.legal.index(lab.blueprint_move)]))
    idx = np.array(keep, np.int64)
    return Labelled(positions.obs[idx], positions.masks[idx],
                    np.array(targets, np.float32).reshape(len(idx), positions.masks.shape[1]),
                    changed / max(len(idx), 1), float(np.mean(gains)) if gains else 0.0)


def fit(actor: Any, optimizer: Any, data: list[Labelled], section: ExpertIterationConfig,
        generator: Any) -> dict[str, float]:
    """Cross-entropy of the actor's masked distribution to the targets, ``epochs`` passes."""
    import torch  # torch: the train extra (the config section loads without it)

    net = actor.net
    features = actor.features(np.concatenate([d.obs for d in data]))
    obs = torch.from_numpy(np.concatenate([d.obs for d in data]))
    masks = torch.from_numpy(np.concatenate([d.masks for d in data]) != 0)
    targets = torch.from_numpy(np.concatenate([d.targets for d in data]))
    size = len(obs)
    total, batches = 0.0, 0
    net.train()
    for _ in range(section.epochs):
        order = torch.randperm(size, generator=generator)
        for start in range(0, size, section.batch_size):
            stop_point("update")
            idx = order[start:start + section.batch_size]
            logits = actor.logits(obs[idx], None if features is None else features[idx])
            logp = torch.log_softmax(masked_logits(logits, masks[idx]), -1)
            loss = -(targets[idx] * logp.nan_to_num(neginf=0.0)).sum(-1).mean()
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), 0.5)
            optimizer.step()
            total += float(loss.detach())
            batches += 1
    net.eval()
    return {"cross_entropy": total / max(batches, 1), "examples": float(size)}


# ---- the run --------------------------------------------------------------------------------
def train(config: TrainConfig, run_dir: Path, resume: bool, evaluator: Evaluator) -> Trained:
    """Iterations of positions, labels and a fit until ``total_timesteps`` positions are
    labelled; an evaluation after every iteration whose labels cross ``eval.every``."""
    import torch  # the train extra

    section: ExpertIterationConfig = config.sections.get(SECTION) or ExpertIterationConfig()
    check_engine(dataclasses.replace(config, engine="batched"))  # it searches on the engine
    torch.set_num_threads(config.torch_threads)
    torch.manual_seed(config.seed)
    generator = torch.Generator().manual_seed(config.seed)
    options = config.game_options()
    info = env_info(config.env_id, options)
    network = make_actor(config, section, info)
    net = network.net
    checkpoints = Checkpoints(config, run_dir)
    loaded = checkpoints.load() if resume else None
    progress = CsvLog(run_dir / "progress.csv")
    if resume:
        restore_logs(evaluator, progress, loaded[1]["state"] if loaded else None)
        print(f"resuming from {checkpoints.folder}: iteration {loaded[1]['iteration']}"
              if loaded else f"no checkpoint in {run_dir}; starting from scratch", flush=True)
    pretrain_stats = None
    if loaded is None and section.start:
        network.start(section.start)
    elif loaded is None and config.pretrain.games > 0:
        pretrain_stats = network.pretrain(evaluator, run_dir)
    net.eval()
    opponent = None
    if not config.team and section.self_play_share < 1.0:
        opponent = load_policy(section.opponent, config.env_id, options, seed=config.seed + 19)
    randoms = None
    if not config.team and section.random_share > 0:
        randoms = load_policy("random", config.env_id, options, seed=config.seed + 23)
    most = section.max_moves
    optimizer = torch.optim.Adam(net.parameters(), lr=section.learning_rate)
    window: list[Labelled] = []
    steps, iteration, seconds_before = 0, 0, 0.0
    if loaded is not None:
        tensors, record = loaded
        state = record["state"]
        load_module("net", net, tensors)
        load_optimizer("opt", optimizer, tensors, state["optimizer"])
        load_torch_rng("rng", generator, tensors)
        set_generator_states(opponent, state["opponent_rng"])
        set_generator_states(randoms, state.get("random_rng", []))
        window = [Labelled(tensors[f"window/{k}/obs"], tensors[f"window/{k}/masks"],
                           tensors[f"window/{k}/targets"], changed, gain)
                  for k, (changed, gain) in enumerate(state["window"])]
        steps, iteration = state["steps"], record["iteration"]
        seconds_before, pretrain_stats = state["seconds"], state["behaviour_cloning"]
        net.eval()
    t0 = time.time() - seconds_before
    print(f"expert iteration: {section.positions:,} positions an iteration from {config.n_envs} "
          f"games, search {section.search} over the {network.kind} network (rollouts: "
          f"{section.rollout}), to {config.total_timesteps:,} positions", flush=True)
    if section.start and loaded is None:
        text = evaluator.check(network.policy(), 0, seed=config.seed)
        print(f"[start: {section.start}] eval: {text}", flush=True)
    while steps < config.total_timesteps:
        iteration += 1
        seed = config.seed + 1000 * iteration
        actor = network.policy()
        count = min(section.positions, config.total_timesteps - steps)
        t1 = time.time()
        found = collect_positions(config, section, network.policy(False, seed), opponent, count,
                                  most, seed, randoms)
        t2 = time.time()
        labelled = label(config, section, actor, found, seed)
        t3 = time.time()
        window = [*window, labelled][-section.window:]
        stats = fit(network, optimizer, window, section, generator)
        before, steps = steps, steps + count
        progress.add({"time/total_timesteps": steps, "iteration": iteration,
                      "searched": len(labelled.obs), "search_changed": round(labelled.changed, 4),
                      "search_gain": round(labelled.gain, 5),
                      "collect_seconds": round(t2 - t1, 1), "label_seconds": round(t3 - t2, 1),
                      "fit_seconds": round(time.time() - t3, 1),
                      "seconds": round(time.time() - t0, 1),
                      **{k: round(v, 5) for k, v in stats.items()}})
        print(f"iteration {iteration}: {count:,} positions ({len(labelled.obs):,} searched, the "
              f"search moves off the network's choice at {labelled.changed:.1%}, mean gain "
              f"{labelled.gain:.4f}); collect {t2 - t1:.0f}s, label {t3 - t2:.0f}s, fit "
              f"{time.time() - t3:.0f}s; cross-entropy {stats['cross_entropy']:.4f}", flush=True)
        if crossed(steps, before, config.eval.every) or steps >= config.total_timesteps:
            text = evaluator.check(network.policy(), steps, seed=config.seed + steps)
            print(f"[{steps:,} positions, {time.time() - t0:.0f}s] eval: {text}", flush=True)
        if checkpoints.due(last=steps >= config.total_timesteps):
            tensors = {**module_tensors("net", net), **torch_rng_tensors("rng", generator)}
            opt_tensors, opt_meta = optimizer_state("opt", optimizer)
            tensors.update(opt_tensors)
            for k, d in enumerate(window):
                tensors.update({f"window/{k}/obs": d.obs, f"window/{k}/masks": d.masks,
                                f"window/{k}/targets": d.targets})
            checkpoints.save(iteration, tensors, {
                "steps": steps, "seconds": time.time() - t0, "optimizer": opt_meta,
                "opponent_rng": generator_states(opponent),
                **({"random_rng": generator_states(randoms)} if randoms is not None else {}),
                "window": [[d.changed, d.gain] for d in window],
                "behaviour_cloning": pretrain_stats, **logs_state(evaluator, progress)})
    return Trained(learner=network.policy(), timesteps=steps, seconds=time.time() - t0,
                   description=DESCRIPTION,
                   metadata={"behaviour_cloning": pretrain_stats,
                             SECTION: {"start": section.start, "iterations": iteration,
                                       "rollout": section.rollout, "search": section.search,
                                       "network": network.kind}})
