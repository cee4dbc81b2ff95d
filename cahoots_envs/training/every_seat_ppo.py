"""Every-seat PPO: self-play on the batched engine where every seat the network holds learns
(``algorithm: every_seat_ppo``; its settings are the config's ``every_seat_ppo`` section, with
the PPO settings ``ppo`` and the pool weights and snapshot schedule ``pool`` in it; the optional
behaviour clone ``pretrain``; ``n_envs`` games, ``total_timesteps`` decisions of the network's
seats).

``n_envs`` games play in lockstep on ``cahoots_envs.vector``. In the first ``self_play_share``
of them one network (parameters shared) plays every seat; in the others it plays one seat,
rotated from episode to episode, and the other seats are drawn from the opponent pool (bots,
frozen snapshots of the network) and act with ``act_batch``, as in ``BatchedSeatVecEnv``. Each
engine step moves every game once: one forward pass for all the network's decisions of that
step, one ``act_batch`` per opponent policy to move, one engine call; no Python loop over games.

Credit is kept per (game, seat) (``SeatLedger``): a seat's transition runs from one of its
decisions to its next one (or to the end of the game), and the engine's ``rewards[N, players]``
of every step are added to the open transition of the seat that earned them. GAE follows each
seat's chain of transitions; a transition still open when the rollout ends has no known
successor and is left out (its predecessor bootstraps from its value). Rewards a seat earns
before its first decision of a rollout (a deal's own pay) reach no transition: no action of its
caused them.

The actor is a plain MLP (``obs -> hidden ... -> logits``, illegal logits ``-inf``) so the
trained network saves as an ``MLPPolicy`` and acts with numpy alone, or, with ``network: {type:
action_scoring, ...}`` in the section, an action-scoring network (``training/actors.py``: a score
per move from the observation and the move's own features, e.g. a game's computed per-move
feature set; it saves as an ``ActionScoringPolicy`` and acts with numpy too; its clone is
``clone_action_scorer``'s); the critic is a separate MLP on the same observation (a critic that
reads ``state()`` is not built). The PPO is a compact
torch implementation rather than TorchRL: the data is turn-based and masked, with a variable
number of decisions per seat between rewards, and the bookkeeping that matters (per-seat
transition chains) is ours either way; the update itself is a few lines of torch.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import cahoots_envs.training.checkpoint as ck
from cahoots_envs.core.policy import Policy
from cahoots_envs.errors import IllegalActionError
from cahoots_envs.policies.network import MLPPolicy
from cahoots_envs.training.actors import (
    check_network,
    network_problems,
    scoring_actor,
)
from cahoots_envs.training.config import ConfigError, PPOConfig, TrainConfig
from cahoots_envs.training.imitation import pretrain
from cahoots_envs.training.networks import build_network, critic_value_head, masked_logits
from cahoots_envs.training.pool import OpponentPool, SnapshotRotation, add_snapshot, build_pool
from cahoots_envs.training.run import CsvLog, Evaluator, Trained, check_engine
from cahoots_envs.training.updates import crossed, ppo_update
from cahoots_envs.vector import make as make_vector

DESCRIPTION = "every-seat PPO (parameter-shared self-play on the batched engine)"
SECTION = "every_seat_ppo"


@dataclass
class EverySeatConfig:
    """Every-seat PPO's own settings (``every_seat_ppo:`` in a config); the PPO settings in it,
    ``ppo:``, load as the config's ``ppo`` (``n_steps``: engine steps per rollout, every game
    moving once a step; ``net_arch``: the actor's and the critic's hidden layers), ``pool:`` as
    its ``pool``."""

    self_play_share: float = 0.5  # games where the network plays every seat; pool games else
    # {}: the actor is the MLP of ppo.net_arch; {type: action_scoring, ...}: an action-scoring
    # network (actors.SCORING_DEFAULTS), the critic staying the MLP of ppo.net_arch
    network: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:  # checked as the config loads, before any work
        problems = network_problems(self.network)
        if not 0.0 <= self.self_play_share <= 1.0:
            problems.append(f"self_play_share must be in [0, 1], got {self.self_play_share}")
        if problems:
            raise ConfigError("; ".join(f"{SECTION}.{p}" for p in problems))

    def check_config(self, config: TrainConfig) -> None:
        """With the env known (as the config loads): the network's segments and computed
        features exist for it, and the pool holds no 'latest' copy of a scoring network."""
        check_network(config, self.network, SECTION)
        if self.network and config.pool.latest > 0:
            raise ConfigError(f"{SECTION}.network: an action-scoring network cannot play in the "
                              f"pool as 'latest' (pool.latest {config.pool.latest}); set "
                              "pool.latest: 0 (snapshots of it can)")


# ---- per-seat credit ------------------------------------------------------------------------
class SeatLedger:
    """The transitions of one rollout, ``[T, N]`` (engine step, game): one decision per game and
    step at most. ``decide`` opens a seat's transition (closing its previous one, whose successor
    it becomes), ``credit`` adds a step's ``rewards[N, players]`` to each seat's open transition,
    ``finish`` ends the open transitions of finished games (terminal)."""

    def __init__(self, steps: int, games: int, players: int) -> None:
        self.rewards = np.zeros((steps, games), np.float32)
        self.next = np.full((steps, games), -1, np.int64)  # the step of the seat's next decision
        self.terminal = np.zeros((steps, games), np.bool_)
        self.decided = np.zeros((steps, games), np.bool_)
        self.open = np.full((games, players), -1, np.int64)  # the step of each seat's open one

    def decide(self, t: int, games: np.ndarray, seats: np.ndarray) -> None:
        before = self.open[games, seats]
        had = before >= 0
        self.next[before[had], games[had]] = t
        self.open[games, seats] = t
        self.decided[t, games] = True

    def credit(self, rewards: np.ndarray) -> None:
        games, seats = np.nonzero(self.open >= 0)
        # one decision per (step, game): the open transitions of a game's seats never coincide
        self.rewards[self.open[games, seats], games] += rewards[games, seats]

    def finish(self, games: np.ndarray) -> None:
        rows, seats = np.nonzero(self.open[games] >= 0)
        self.terminal[self.open[games[rows], seats], games[rows]] = True
        self.open[games] = -1

    def kept(self) -> np.ndarray:
        """The decisions whose transition is complete (a successor, or the game's end)."""
        return self.decided & ((self.next >= 0) | self.terminal)


def advantages(ledger: SeatLedger, values: np.ndarray, gamma: float,
               lam: float) -> tuple[np.ndarray, np.ndarray]:
    """GAE along each seat's chain of transitions (``values[T, N]`` at each decision): the
    advantages and the returns (advantage + value), zero where no complete transition is."""
    steps, games = values.shape
    cols = np.arange(games)
    kept = ledger.kept()
    has_next = ledger.next >= 0
    following = np.where(has_next, values[np.maximum(ledger.next, 0), cols], 0.0)
    delta = np.where(kept, ledger.rewards + gamma * following - values, 0.0)
    adv = np.zeros((steps, games), np.float64)
    for t in range(steps - 1, -1, -1):  # a successor is always later: computed already
        later = np.where(has_next[t], adv[np.maximum(ledger.next[t], 0), cols], 0.0)
        adv[t] = delta[t] + gamma * lam * later
    adv[~kept] = 0.0
    return adv, np.where(kept, adv + values, 0.0)


@dataclass
class Rollout:
    """One rollout's decisions, ``[T, N, ...]`` (engine step, game), valid where
    ``ledger.decided``: the network's observation, mask, action, its log-probability and the
    critic's value."""

    obs: np.ndarray
    masks: np.ndarray
    actions: np.ndarray
    logps: np.ndarray
    values: np.ndarray
    ledger: SeatLedger


# ---- the games ------------------------------------------------------------------------------
class EverySeatGames:
    """``num_games`` games on the batched engine: the network's seats and the pool's, rollouts
    of ``SeatLedger`` transitions (see the module docstring)."""

    def __init__(self, config: TrainConfig, section: EverySeatConfig, pool: OpponentPool) -> None:
        self.vec = make_vector(config.env_id, config.n_envs, seed=config.seed,
                               **config.game_options())
        self.vec.reset(seed=config.seed)
        self.engine = self.vec.engine
        n, p = config.n_envs, self.vec.num_players
        self.num_games, self.num_players = n, p
        self.pool = pool
        self.reward_scale = config.reward_scale
        self.rng = np.random.default_rng(config.seed + 17)
        share = 1.0 if config.team else section.self_play_share
        self.self_play = np.arange(n) < round(share * n)
        self.learner = np.arange(n) % p  # the network's seat in a pool game (rotated)
        self.seat_policy = np.full((n, p), -1, np.int64)  # -1: the network; else ``policies``
        self.policies: list[Policy] = []
        self._ids: dict[int, int] = {}
        self.episode_return = np.zeros((n, p), np.float64)
        self.returns: list[float] = []  # the network's seat's episode returns in pool games
        self._seat(np.flatnonzero(~self.self_play))

    def _policy_id(self, policy: Policy) -> int:
        if id(policy) not in self._ids:
            self._ids[id(policy)] = len(self.policies)
            self.policies.append(policy)
        return self._ids[id(policy)]

    def _seat(self, games: np.ndarray) -> None:
        """New opponents for the pool games ``games``, drawn as ``OpponentPool.sample`` draws (a
        group by weight, one of its entries uniformly), all at once."""
        if games.size == 0:
            return
        live = [g for g, w in self.pool.weights.items() if w > 0 and self.pool.groups.get(g)]
        if not live:
            raise ValueError(f"opponent pool has no policy to draw: {self.pool.describe()}")
        entries = [(e.policy, self.pool.weights[g] / len(self.pool.groups[g]))
                   for g in live for e in self.pool.groups[g]]
        chance = np.array([w for _, w in entries])
        ids = np.array([self._policy_id(policy) for policy, _ in entries], np.int64)
        drawn = ids[self.rng.choice(len(entries), (games.size, self.num_players),
                                    p=chance / chance.sum())]
        drawn[np.arange(games.size), self.learner[games]] = -1
        self.seat_policy[games] = drawn

    def rollout(self, net: Any, steps: int, generator: Any) -> Rollout:
        """``steps`` engine steps; every decision of the network's seats recorded."""
        import torch  # the train extra

        e = self.engine
        n = self.num_games
        obs = np.zeros((steps, n, e.obs.shape[1]), np.float32)
        masks = np.zeros((steps, n, e.mask.shape[1]), np.bool_)
        actions = np.zeros((steps, n), np.int64)
        logps = np.zeros((steps, n), np.float32)
        values = np.zeros((steps, n), np.float32)
        ledger = SeatLedger(steps, n, self.num_players)
        move = np.zeros(n, np.int64)
        for t in range(steps):
            ck.stop_point("rollout")
            mover = e.to_move.copy()
            ours = self.self_play | (mover == self.learner)
            rows = np.flatnonzero(ours)
            if rows.size:
                obs[t, rows] = e.obs[rows]
                masks[t, rows] = e.mask[rows] != 0
                with torch.no_grad():
                    x = torch.from_numpy(obs[t, rows])
                    logp = torch.log_softmax(masked_logits(net.logits(x), masks[t, rows]), -1)
                    gumbel = -torch.log(-torch.log(torch.rand(logp.shape, generator=generator)))
                    chosen = (logp + gumbel).argmax(-1)
                    logps[t, rows] = logp.gather(1, chosen[:, None])[:, 0].numpy()
                    values[t, rows] = net.predict_values(x)[:, 0].numpy()
                actions[t, rows] = move[rows] = chosen.numpy()
                ledger.decide(t, rows, mover[rows])
            self._opponents_move(np.flatnonzero(~ours), mover, move)
            e.step(move)
            rewards = e.rewards * self.reward_scale
            ledger.credit(rewards)
            self.episode_return += rewards
            finished = np.flatnonzero(e.done)
            if finished.size:
                ledger.finish(finished)
                pool_games = finished[~self.self_play[finished]]
                self.returns += self.episode_return[pool_games, self.learner[pool_games]].tolist()
                self.episode_return[finished] = 0.0
                self.learner[pool_games] = (self.learner[pool_games] + 1) % self.num_players
                self._seat(pool_games)
        return Rollout(obs, masks, actions, logps, values, ledger)

    def _opponents_move(self, rows: np.ndarray, mover: np.ndarray, move: np.ndarray) -> None:
        e = self.engine
        who = self.seat_policy[rows, mover[rows]]
        for k in np.unique(who).tolist():
            sel = rows[who == k]
            chosen = np.asarray(self.policies[k].act_batch(e.obs[sel], e.mask[sel]), np.int64)
            ok = (chosen >= 0) & (chosen < e.mask.shape[1])
            ok[ok] = e.mask[sel[ok], chosen[ok]] != 0
            if not ok.all():
                i = int(np.flatnonzero(~ok)[0])
                raise IllegalActionError(f"opponent {getattr(self.policies[k], 'name', k)!r} chose "
                                         f"illegal action {int(chosen[i])} in game {int(sel[i])}")
            move[sel] = chosen


def learn(net: Any, optimizer: Any, batch: Rollout, s: PPOConfig,
          generator: Any) -> dict[str, float]:
    """PPO's update (``updates.ppo_update``) on the rollout's complete transitions, their
    advantages along each seat's chain."""
    adv, ret = advantages(batch.ledger, batch.values.astype(np.float64), s.gamma, s.gae_lambda)
    kept = batch.ledger.kept()
    return ppo_update(net, optimizer, batch.obs[kept], batch.masks[kept], batch.actions[kept],
                      batch.logps[kept], adv[kept], ret[kept], s, generator)


# ---- checkpoints ----------------------------------------------------------------------------
def saved_state(net: Any, optimizer: Any, generator: Any, games: EverySeatGames,
                pool: OpponentPool, rotation: SnapshotRotation | None,
                latest: Any) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """Everything a rollout boundary holds: the network, Adam, torch's generators, the engine's
    games in flight, who sits where and the snapshots (``checkpoint.seating_state``), the
    games' own generator."""
    tensors = {**ck.module_tensors("net", net), **ck.torch_rng_tensors("rng", generator)}
    opt_tensors, opt_meta = ck.optimizer_state("opt", optimizer)
    engine_tensors, engine_meta = ck.engine_state("engine", games.engine)
    seat_tensors, seating = ck.seating_state("pool", pool, rotation, latest, games.policies)
    tensors |= opt_tensors | engine_tensors | seat_tensors
    tensors |= {"games/learner": games.learner.copy(), "games/seat_policy": games.seat_policy.copy(),
                "games/episode_return": games.episode_return.copy()}
    return tensors, {"optimizer": opt_meta, "engine": engine_meta, "seating": seating,
                     "games_rng": games.rng.bit_generator.state}


def restore(state: dict[str, Any], tensors: dict[str, np.ndarray], net: Any, optimizer: Any,
            generator: Any, games: EverySeatGames, pool: OpponentPool,
            rotation: SnapshotRotation | None, latest: Any) -> None:
    """``saved_state`` put back into a run built afresh from the same config."""
    ck.load_module("net", net, tensors)
    ck.load_optimizer("opt", optimizer, tensors, state["optimizer"])
    ck.load_torch_rng("rng", generator, tensors)
    ck.restore_engine("engine", games.engine, tensors, state["engine"])
    games.learner[...] = tensors["games/learner"]
    games.seat_policy[...] = tensors["games/seat_policy"]
    games.episode_return[...] = tensors["games/episode_return"]
    games.policies = ck.restore_seating("pool", state["seating"], tensors, pool, rotation, latest)
    games._ids = {id(p): k for k, p in enumerate(games.policies)}
    games.rng.bit_generator.state = state["games_rng"]


def train(config: TrainConfig, run_dir: Path, resume: bool, evaluator: Evaluator) -> Trained:
    """Pool, games, network (cloned from the teacher first with ``pretrain.games``), then
    rollouts and PPO updates until ``total_timesteps`` decisions of the network's seats."""
    import torch  # torch: the train extra (the config section loads without it)

    section: EverySeatConfig = config.sections.get(SECTION) or EverySeatConfig()
    check_engine(dataclasses.replace(config, engine="batched"))  # it trains on the batched engine
    torch.set_num_threads(config.torch_threads)
    torch.manual_seed(config.seed)
    generator = torch.Generator().manual_seed(config.seed)
    pool = build_pool(config)
    rotation = (SnapshotRotation(config.pool.max_snapshots, seed=config.seed + 13)
                if config.pool.snapshot_draw == "rollout" else None)
    games = EverySeatGames(config, section, pool)
    p = config.ppo
    scorer = None
    if section.network:  # check_config refused a 'latest' pool entry for it
        scorer = scoring_actor(config, section.network, SECTION, "every-seat PPO")
    net = build_network(games.engine.obs.shape[1], games.engine.mask.shape[1],
                        list(p.net_arch), p.activation, scorer)

    def export() -> Any:
        """The actor as a numpy policy (saves, plays in the pool and the evaluations)."""
        return MLPPolicy.from_sb3(net) if scorer is None else scorer.policy()

    checkpoints = ck.Checkpoints(config, run_dir)
    loaded = checkpoints.load() if resume else None
    progress = CsvLog(run_dir / "progress.csv")
    if resume:
        ck.restore_logs(evaluator, progress, loaded[1]["state"] if loaded else None)
        print(f"resuming from {checkpoints.folder}: rollout {loaded[1]['iteration']}"
              if loaded else f"no checkpoint in {run_dir}; starting from scratch", flush=True)
    pretrain_stats = None
    if config.pretrain.games > 0 and loaded is None:
        pretrain_stats = (pretrain(config, net, evaluator, run_dir)
                          if scorer is None else scorer.pretrain(evaluator, run_dir))
    latest = None
    if config.pool.latest > 0:
        latest = MLPPolicy.from_sb3(net)
        latest.name = "latest"
        pool.set_only("latest", "latest", latest)
    optimizer = torch.optim.Adam(net.parameters(), lr=p.learning_rate, eps=1e-5)
    steps, iteration, seconds_before = 0, 0, 0.0
    if loaded is not None:
        tensors, record = loaded
        state = record["state"]
        restore(state, tensors, net, optimizer, generator, games, pool, rotation, latest)
        steps, iteration = state["steps"], record["iteration"]
        seconds_before, pretrain_stats = state["seconds"], state["behaviour_cloning"]
    t0 = time.time() - seconds_before
    print(f"every-seat PPO: {config.n_envs} games ({int(games.self_play.sum())} with the network "
          f"in every seat), rollouts of {p.n_steps} engine steps, to "
          f"{config.total_timesteps:,} decisions", flush=True)
    while steps < config.total_timesteps:
        iteration += 1
        if rotation is not None:
            rotation.draw()
        if latest is not None:
            latest.layers = MLPPolicy.from_sb3(net).layers
        batch = games.rollout(net, p.n_steps, generator)
        before, steps = steps, steps + int(batch.ledger.decided.sum())
        net.train()
        stats = learn(net, optimizer, batch, p, generator)
        net.eval()
        returns, games.returns = games.returns, []
        progress.add({"time/total_timesteps": steps,
                      "rollout/ep_rew_mean": round(float(np.mean(returns)), 4) if returns else "",
                      "episodes": len(returns), "seconds": round(time.time() - t0, 1),
                      **{k: round(v, 5) for k, v in stats.items()}})
        if crossed(steps, before, config.pool.snapshot_every):
            snap = export()
            snap.name = f"snapshot_{steps}"
            add_snapshot(pool, rotation, snap)
        if crossed(steps, before, config.eval.every):
            text = evaluator.check(export(), steps, seed=config.seed + steps)
            print(f"[{steps:,} steps, {time.time() - t0:.0f}s] eval: {text}", flush=True)
        if checkpoints.due(last=steps >= config.total_timesteps):
            tensors, state = saved_state(net, optimizer, generator, games, pool, rotation, latest)
            checkpoints.save(iteration, tensors, {
                **state, "steps": steps, "seconds": time.time() - t0,
                "behaviour_cloning": pretrain_stats, **ck.logs_state(evaluator, progress)})
    # the saved policy keeps the critic as its value head (read only: training is as before)
    return Trained(learner=export().with_value_head(critic_value_head(net, config)), timesteps=steps, seconds=time.time() - t0,
                   description=DESCRIPTION,
                   metadata={"behaviour_cloning": pretrain_stats,
                             "every_seat_ppo": {"self_play_games": int(games.self_play.sum()),
                                                "games": config.n_envs,
                                                "network": "mlp" if scorer is None else
                                                "action_scoring"}})
