"""Behaviour cloning before self-play: the learner starts as a copy of a teacher (the heuristic).

``collect_demonstrations`` plays teacher-only games (batched like the seat envs; on the batched
engine with ``engine="batched"``) and records every decision: the mover's observation, mask and
action, and the return that seat went on to earn (the env's ``RewardRule``, times
``reward_scale``). A teacher that breaks ties at random and offers ``act_batch_with_ties`` also
gives, per decision, the set of moves it chose among (``targets``). ``behaviour_clone`` fits an
SB3 maskable actor-critic to them: cross-entropy on the teacher's actions (masked), or with
targets on the uniform distribution over the tied moves (soft targets: a deterministic clone can
then agree with the teacher on every decision, where the played move's coin flip capped it),
plus a value regression on the returns, so PPO's first updates start from a sensible critic
instead of undoing the actor.

A training run clones its config's ``pretrain`` teacher with ``pretrain`` (into a network with
SB3's actor-critic methods: SB3's own, or ``networks.build_network``'s) or ``clone_scorer``
(into an action-scoring actor); both evaluate the clone and save it as the run's
``checkpoints/cloned.safetensors`` (``finish_clone``).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from cahoots_envs.core.driver import RewardRule
from cahoots_envs.core.layout import OBS_DTYPE
from cahoots_envs.core.policy import Policy
from cahoots_envs.evaluation.matches import dealt_batches
from cahoots_envs.policies.envinfo import env_info
from cahoots_envs.policies.loading import load_policy
from cahoots_envs.policies.network import MLPPolicy
from cahoots_envs.policies.saved import save_policy
from cahoots_envs.training.config import TrainConfig, to_dict
from cahoots_envs.training.run import CLONE, Evaluator
from cahoots_envs.vector import random_legal_actions

if TYPE_CHECKING:
    from cahoots_envs.training.actors import ScoringActor


@dataclass
class Demonstrations:
    observations: np.ndarray  # (n, obs) float32
    masks: np.ndarray  # (n, actions) bool
    actions: np.ndarray  # (n,) int64
    returns: np.ndarray  # (n,) float32
    targets: np.ndarray | None = None  # (n, actions) bool: the teacher's tied best moves

    def __len__(self) -> int:
        return len(self.actions)


def _decide(teacher: Policy, obs: np.ndarray, masks: np.ndarray,
            soft_targets: bool) -> tuple[np.ndarray, np.ndarray | None]:
    with_ties = getattr(teacher, "act_batch_with_ties", None) if soft_targets else None
    if with_ties is not None:
        actions, ties = with_ties(obs, masks)
        return np.asarray(actions, np.int64), np.asarray(ties, np.bool_)
    return np.asarray(teacher.act_batch(obs, masks), np.int64), None


def collect_demonstrations(env_id: str, options: Mapping[str, Any] | None, teacher: Policy,
                           games: int, seed: int = 0, reward_scale: float = 1.0,
                           batch: int = 128, engine: str = "reference",
                           soft_targets: bool = False, random_seats: float = 0.0) -> Demonstrations:
    """``games`` teacher-only games; ``engine="batched"`` plays them on ``cahoots_envs.vector``
    (the same decisions and returns, other deals), ``soft_targets`` records the teacher's tied
    moves when it offers them. ``random_seats`` (batched engine, competitive games): each seat of
    each game is played by a uniformly random player with this probability, and only the
    teacher's seats are recorded, so the demonstrations also cover the positions that weaker
    opponents bring about."""
    if engine == "batched":
        return _collect_batched(env_id, options, teacher, games, seed, reward_scale,
                                max(batch, 256), soft_targets, random_seats)
    if random_seats > 0:
        raise ValueError("random_seats needs engine='batched'")
    info = env_info(env_id, options)
    cls, opts = info.game_cls, info.options
    size, n_actions = info.layout.size, info.num_actions
    reward_rule = RewardRule.of(cls, opts)
    team = cls.COOPERATIVE
    rng = np.random.default_rng(seed)
    obs_rows: list[np.ndarray] = []
    mask_rows: list[np.ndarray] = []
    act_rows: list[np.ndarray] = []
    ret_rows: list[np.ndarray] = []
    tie_rows: list[np.ndarray] = []
    for start in range(0, games, batch):
        live = [cls(opts, np.random.default_rng(rng.integers(2**63)), None)
                for _ in range(min(batch, games - start))]
        # per game: (row index, seat, the seat's score when it decided)
        pending: list[list[tuple[int, int, float]]] = [[] for _ in live]
        base = sum(len(a) for a in act_rows)
        rows = 0
        game_obs: list[np.ndarray] = []
        game_masks: list[np.ndarray] = []
        game_acts: list[np.ndarray] = []
        game_ties: list[np.ndarray] = []
        while True:
            movers = [i for i, g in enumerate(live) if not g.is_over]
            if not movers:
                break
            obs = np.zeros((len(movers), size), OBS_DTYPE)
            masks = np.zeros((len(movers), n_actions), bool)
            for k, i in enumerate(movers):
                g = live[i]
                g.encode(g.current_player, obs[k])
                masks[k, g.legal_actions()] = True
            actions, ties = _decide(teacher, obs, masks, soft_targets)
            if ties is not None:
                game_ties.append(ties)
            for k, i in enumerate(movers):
                g = live[i]
                seat = 0 if team else g.current_player
                pending[i].append((base + rows + k, seat, reward_rule.value(g, seat)))
                g.apply(int(actions[k]))
            rows += len(movers)
            game_obs.append(obs)
            game_masks.append(masks)
            game_acts.append(np.asarray(actions, np.int64))
        returns = np.zeros(rows, np.float32)
        for g, decisions in zip(live, pending):
            final = reward_rule.values(g)
            for row, seat, value in decisions:
                # the return from a decision on: the same rewards the AEC env would pay
                returns[row - base] = (final[seat] - value) * reward_scale
        obs_rows.append(np.concatenate(game_obs))
        mask_rows.append(np.concatenate(game_masks))
        act_rows.append(np.concatenate(game_acts))
        ret_rows.append(returns)
        if game_ties:
            tie_rows.append(np.concatenate(game_ties))
    return Demonstrations(np.concatenate(obs_rows), np.concatenate(mask_rows),
                          np.concatenate(act_rows), np.concatenate(ret_rows),
                          np.concatenate(tie_rows) if tie_rows else None)


def _collect_batched(env_id: str, options: Mapping[str, Any] | None, teacher: Policy, games: int,
                     seed: int, reward_scale: float, batch: int,
                     soft_targets: bool, random_seats: float = 0.0) -> Demonstrations:
    """``collect_demonstrations`` on the batched engine: ``batch`` games at a time, each played
    once (finished games are skipped until the whole batch is done); a decision's return is what
    its seat (seat 0 for a team) is paid from that step to the end of the game."""

    info = env_info(env_id, options)
    team = info.game_cls.COOPERATIVE
    rng = np.random.default_rng(seed)
    parts: list[Demonstrations] = []
    for _start, e in dealt_batches(env_id, info.options, games, batch, rng):
        size = e.num_envs
        live = ~e.done.copy()  # a game over at its deal has no decision to learn from
        players = info.options["num_players"]
        randoms = (np.zeros((size, players), np.bool_) if team or random_seats <= 0 else
                   rng.random((size, players)) < random_seats)
        randoms[np.arange(size), rng.integers(players, size=size)] = False  # a teacher a game
        paid = np.zeros((size, info.options["num_players"]))  # since the deal, per seat
        obs, masks, acts, ties = [], [], [], []
        slot_rows, seat_rows, paid_rows = [], [], []
        final = np.zeros_like(paid)
        actions = np.full(size, -1, np.int64)
        while live.any():
            movers = np.flatnonzero(live)
            rand = randoms[movers, e.to_move[movers]]
            actions.fill(-1)
            if rand.any():
                others = movers[rand]
                actions[others] = random_legal_actions(e.mask[others], rng)
            rows = movers[~rand]
            seats = np.zeros(rows.size, np.int64) if team else e.to_move[rows].copy()
            o, m = e.obs[rows].copy(), e.mask[rows].astype(np.bool_)
            chosen, tie = _decide(teacher, o, m, soft_targets)
            obs.append(o)
            masks.append(m)
            acts.append(chosen)
            if tie is not None:
                ties.append(tie)
            slot_rows.append(rows)
            seat_rows.append(seats)
            paid_rows.append(paid[rows, seats])
            actions[rows] = chosen
            e.step(actions)
            paid[live] += e.rewards[live]
            for i in np.flatnonzero(e.done & live).tolist():
                final[i] = paid[i]
                live[i] = False
        slots, seat_of = np.concatenate(slot_rows), np.concatenate(seat_rows)
        returns = (final[slots, seat_of] - np.concatenate(paid_rows)) * reward_scale
        parts.append(Demonstrations(np.concatenate(obs), np.concatenate(masks),
                                    np.concatenate(acts), returns.astype(np.float32),
                                    np.concatenate(ties) if ties else None))
    targets = [p.targets for p in parts]
    return Demonstrations(
        np.concatenate([p.observations for p in parts]), np.concatenate([p.masks for p in parts]),
        np.concatenate([p.actions for p in parts]), np.concatenate([p.returns for p in parts]),
        None if any(t is None for t in targets) else np.concatenate(targets))  # type: ignore[arg-type]


def behaviour_clone(policy: Any, demos: Demonstrations, epochs: int = 4, batch_size: int = 512,
                    learning_rate: float = 1e-3, value_coef: float = 0.5, seed: int = 0,
                    log: Any = print) -> dict[str, float]:
    """Fit an SB3 ``MaskableActorCriticPolicy`` to ``demos``; returns the final accuracy/losses
    (with soft targets, accuracy counts a move among the teacher's tied best as agreeing)."""
    import torch  # torch: the train extra

    gen = torch.Generator().manual_seed(seed)
    obs = torch.as_tensor(demos.observations)
    masks = torch.as_tensor(demos.masks)
    actions = torch.as_tensor(demos.actions)
    returns = torch.as_tensor(demos.returns)
    targets = None if demos.targets is None else torch.as_tensor(demos.targets)
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    n = len(demos)
    policy.set_training_mode(True)
    stats: dict[str, float] = {}
    for epoch in range(epochs):
        order = torch.randperm(n, generator=gen)
        total_nll = total_v = correct = 0.0
        for start in range(0, n, batch_size):
            idx = order[start : start + batch_size]
            if targets is None:
                values, log_prob, _ = policy.evaluate_actions(obs[idx], actions[idx],
                                                              action_masks=masks[idx].numpy())
                nll = -log_prob.mean()
            else:  # cross-entropy to the uniform distribution over the tied moves
                dist = policy.get_distribution(obs[idx], action_masks=masks[idx].numpy())
                log_p = torch.log_softmax(dist.distribution.logits, dim=-1)
                tied = targets[idx]
                weight = tied / tied.sum(dim=-1, keepdim=True)
                nll = -(torch.where(tied, log_p, torch.zeros_like(log_p)) * weight).sum(-1).mean()
                values = policy.predict_values(obs[idx])
            v_loss = torch.nn.functional.mse_loss(values.flatten(), returns[idx])
            loss = nll + value_coef * v_loss
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            optimizer.step()
            total_nll += float(nll.detach()) * len(idx)
            total_v += float(v_loss.detach()) * len(idx)
            with torch.no_grad():
                dist = policy.get_distribution(obs[idx], action_masks=masks[idx].numpy())
                best = dist.distribution.probs.argmax(-1)
                if targets is None:
                    correct += float((best == actions[idx]).sum())
                else:  # agreement: the clone's move is one the teacher rates best
                    correct += float(targets[idx].gather(1, best[:, None]).sum())
        stats = {"nll": total_nll / n, "value_mse": total_v / n, "accuracy": correct / n}
        log(f"behaviour cloning epoch {epoch + 1}/{epochs}: " +
            ", ".join(f"{k} {v:.3f}" for k, v in stats.items()))
    policy.set_training_mode(False)
    return stats


def teacher_demonstrations(config: TrainConfig) -> Any:
    """``pretrain``'s demonstrations: ``pretrain.games`` games of ``pretrain.teacher``, with a
    line saying how many decisions they gave."""
    p = config.pretrain
    t0 = time.time()
    teacher = load_policy(p.teacher, config.env_id, config.env_options, seed=config.seed + 3)
    demos = collect_demonstrations(config.env_id, config.env_options, teacher, p.games,
                                   seed=config.seed + 5, reward_scale=config.reward_scale,
                                   engine=config.engine, soft_targets=p.soft_targets,
                                   random_seats=p.random_seats)
    soft = "" if demos.targets is None else (
        f", soft targets: {float((demos.targets.sum(1) > 1).mean()):.1%} of them ties")
    print(f"behaviour cloning: {len(demos)} decisions from {p.games} {p.teacher} games "
          f"({time.time() - t0:.0f}s{soft})", flush=True)
    return demos


def pretrain(config: TrainConfig, net: Any, evaluator: Evaluator,
             run_dir: Path) -> dict[str, Any]:
    """Behaviour cloning of ``net`` (SB3's maskable actor-critic, or
    ``networks.build_network``'s) from the teacher, then an evaluation recorded at step 0. The
    clone is saved as ``checkpoints/cloned.safetensors`` (a saved policy): the final check
    measures it beside the trained policy on the same games, so a run shows what self-play
    added."""
    p = config.pretrain
    t0 = time.time()
    demos = teacher_demonstrations(config)
    stats = behaviour_clone(net, demos, epochs=p.epochs, batch_size=p.batch_size,
                            learning_rate=p.learning_rate, value_coef=p.value_coef,
                            seed=config.seed, log=lambda m: print(m, flush=True))
    return finish_clone(config, evaluator, run_dir, MLPPolicy.from_sb3(net),
                        len(demos), stats, t0, "self-play")


def finish_clone(config: TrainConfig, evaluator: Evaluator, run_dir: Path, clone: Any,
                 decisions: int, stats: dict[str, float], started: float, then: str,
                 ) -> dict[str, Any]:
    """After a behaviour clone (of any network): its evaluation recorded at step 0, and the
    clone saved as ``checkpoints/cloned.safetensors`` for the final check beside the trained
    policy (``then`` names what trained it further); returns the clone's figures."""
    p = config.pretrain
    text = evaluator.check(clone, 0, seed=config.seed + 11)
    print(f"after behaviour cloning: {text}", flush=True)
    out = {"teacher": p.teacher, "games": p.games, "decisions": decisions,
           "seconds": round(time.time() - started, 1),
           **{k: round(v, 4) for k, v in stats.items()}}
    training = {"algorithm": f"behaviour cloning of {p.teacher}", "config": to_dict(config),
                "seed": config.seed, "timesteps": 0, "run": run_dir.name,
                "behaviour_cloning": out}
    save_policy(clone, run_dir / CLONE, config.env_id, config.env_options,
                name=f"{run_dir.name}/cloned", description=f"{config.description}: the clone "
                f"of the teacher that {then} started from", training=training)
    return out




def clone_scorer(actor: ScoringActor, evaluator: Evaluator, run_dir: Path) -> dict[str, Any]:
    """The behaviour clone of ``pretrain`` into an action-scoring actor
    (``scoring.clone_action_scorer``), evaluated at step 0 and saved as the run's clone."""
    from cahoots_envs.training.scoring import clone_action_scorer  # imports torch (train extra)

    config, p, s = actor.config, actor.config.pretrain, actor.settings
    t0 = time.time()
    demos = teacher_demonstrations(config)
    clone, stats = clone_action_scorer(
        demos, config.env_id, config.env_options, s["action_segments"],
        trunk_sizes=s["trunk_sizes"], embedding_size=s["embedding_size"],
        head_sizes=s["head_sizes"], activation=s["activation"], direct=bool(s["direct"]),
        computed=s["computed"] or None, epochs=p.epochs, batch_size=p.batch_size,
        lr=p.learning_rate, seed=config.seed, log=lambda m: print(m, flush=True))
    actor.load(clone)
    return finish_clone(config, evaluator, run_dir, clone, len(demos),
                        {"loss": stats["loss"], "agreement": stats["agreement"]}, t0,
                        actor.algorithm)
