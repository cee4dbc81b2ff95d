"""The fast training path: batched evaluation matches, batched and mixed-seat demonstrations, soft
cloning targets from the bots' tied moves, one snapshot per rollout, and the config keys that
choose them."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("numba")
pytest.importorskip("torch")
yaml = pytest.importorskip("yaml")

from cahoots_envs.errors import IllegalActionError
from cahoots_envs.evaluation.matches import (
    batched_available,
    batched_matches,
    seat_matches,
    team_matches,
)
from cahoots_envs.policies.loading import load_policy
from cahoots_envs.training.config import ConfigError, TrainConfig, check, from_dict
from cahoots_envs.training.imitation import Demonstrations, collect_demonstrations
from cahoots_envs.training.pool import OpponentPool, SnapshotRotation

ROOT = Path(__file__).resolve().parent.parent


# ---- evaluation on the batched engine -----------------------------------------------------------
def test_batched_matches_agree_with_the_reference_matches() -> None:
    env = "texas_euchre-v1"
    heuristic = load_policy("heuristic", env, seed=1)
    rand = load_policy("random", env, seed=2)
    fast = batched_matches(env, heuristic, rand, 400, seed=3)
    ref = seat_matches(env, heuristic, rand, 400, seed=3)
    assert fast.games == 400 and fast.chance == 0.25
    assert fast.win_rate > 0.6 and abs(fast.win_rate - ref.win_rate) < 0.1
    # the same policy in every seat: the rotated seat's shares average 1/N
    even = batched_matches(env, rand, rand, 400, seed=4)
    assert abs(even.win_rate - 0.25) < 0.08
    assert batched_available(env)


def test_batched_team_matches_agree_with_the_reference() -> None:
    env, options = "cahoots_coop-v1", {"num_players": 3, "difficulty": "beginner"}
    team = load_policy("heuristic", env, options, seed=1)
    fast = batched_matches(env, team, None, 120, options, seed=5)
    ref = team_matches(env, team, 120, options, seed=5)
    assert fast.chance == 0.0 and 0.35 < fast.win_rate < 0.8
    assert abs(fast.win_rate - ref.win_rate) < 0.2
    assert fast.mean_score > 10  # goals completed by the team bot


def test_batched_matches_refuse_an_illegal_move() -> None:
    class Illegal:
        name = "illegal"

        def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
            return np.where(np.asarray(masks)[:, 0] > 0, 1, 0)  # always an illegal id somewhere

        def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
            return int(self.act_batch(observation[None], mask[None])[0])

    env = "kansas_city-v1"
    with pytest.raises(IllegalActionError, match="'illegal' chose illegal action"):
        batched_matches(env, Illegal(), load_policy("random", env, seed=0), 8, seed=0)


# ---- demonstrations -------------------------------------------------------------------------------
@pytest.mark.parametrize("reward_mode", ["win", "points"])
def test_batched_demonstrations_pay_each_seat_its_return(reward_mode: str) -> None:
    env, options = "kansas_city-v1", {"hands": 1, "reward_mode": reward_mode}
    demos = collect_demonstrations(env, options, load_policy("random", env, options, seed=0),
                                   games=6, seed=1, reward_scale=0.5, engine="batched")
    assert demos.masks[np.arange(len(demos)), demos.actions].all()
    assert demos.targets is None  # the random policy has no tied moves to offer
    if reward_mode == "win":  # every decision's return is its seat's final payoff, scaled
        payoffs = 0.5 * np.array([1, -1 / 3, 1 / 2, -1 / 2, 1 / 3, -1, 0])
        assert np.isclose(demos.returns[:, None], payoffs[None]).any(axis=1).all()
    else:  # points as awarded: a later decision never has more to come than an earlier one
        assert (demos.returns >= 0).all() and demos.returns.max() > 0


def test_mixed_seat_demonstrations_record_only_the_teacher() -> None:
    env, options = "kansas_city-v1", {"hands": 1}
    teacher = load_policy("heuristic", env, options, seed=0)
    plain = collect_demonstrations(env, options, teacher, 40, seed=1, engine="batched")
    mixed = collect_demonstrations(env, options, teacher, 40, seed=1, engine="batched",
                                   random_seats=0.6)
    assert 0 < len(mixed) < 0.8 * len(plain)  # the random players' decisions are not recorded
    referee = load_policy("heuristic", env, options, seed=0)  # deterministic: labels replay
    assert (referee.act_batch(mixed.observations, mixed.masks) == mixed.actions).all()
    with pytest.raises(ValueError, match="random_seats needs engine='batched'"):
        collect_demonstrations(env, options, teacher, 2, random_seats=0.5)


@pytest.mark.parametrize("env,options", [("cahoots_tricks-v1", {}),
                                         ("cahoots_coop-v1", {"num_players": 3})])
def test_tied_moves_are_the_soft_targets(env: str, options: dict) -> None:
    """``act_batch_with_ties`` moves exactly as ``act_batch`` (same random stream) and lists
    the moves ``best_actions`` rates best; demonstrations carry them as targets."""
    demos = collect_demonstrations(env, options, load_policy("heuristic", env, options, seed=1),
                                   24, seed=2, engine="batched", soft_targets=True)
    assert demos.targets is not None
    assert demos.targets[np.arange(len(demos)), demos.actions].all()
    assert not (demos.targets & ~demos.masks).any()
    assert (demos.targets.sum(1) > 1).mean() > 0.05  # the bot does break ties
    a, b = (load_policy("heuristic", env, options, seed=7) for _ in range(2))
    rows = slice(0, 300)
    obs, masks = demos.observations[rows], demos.masks[rows]
    actions, ties = a.act_batch_with_ties(obs, masks)
    assert (actions == b.act_batch(obs, masks)).all()
    assert a.rng.integers(1 << 30) == b.rng.integers(1 << 30)  # the same draws were made
    for i in range(0, 300, 7):
        assert sorted(np.flatnonzero(ties[i]).tolist()) == sorted(a.best_actions(obs[i], masks[i]))
    no_soft = collect_demonstrations(env, options, load_policy("heuristic", env, options, seed=1),
                                     4, seed=2, engine="batched", soft_targets=False)
    assert no_soft.targets is None


def test_soft_targets_let_a_clone_agree_on_every_tie() -> None:
    """A teacher choosing at random between two best moves: with its played moves as labels a
    clone cannot beat the coin (about 1/2); with the tied set as soft targets it agrees always."""
    import gymnasium
    import torch
    from sb3_contrib import MaskablePPO

    from cahoots_envs.training.imitation import behaviour_clone

    class Tiny(gymnasium.Env):  # only its spaces matter: the clone never steps it
        observation_space = gymnasium.spaces.Box(0.0, 1.0, (8,), np.float32)
        action_space = gymnasium.spaces.Discrete(6)

    torch.set_num_threads(1)
    model = MaskablePPO("MlpPolicy", Tiny(), n_steps=16, batch_size=16,
                        policy_kwargs={"net_arch": [32]}, device="cpu", seed=0)
    size, n_actions = 8, 6
    rng = np.random.default_rng(0)
    rows = 512
    obs = np.zeros((rows, size), np.float32)
    kind = rng.integers(2, size=rows)
    obs[np.arange(rows), kind] = 1.0  # two kinds of position
    masks = np.zeros((rows, n_actions), bool)
    masks[:, :6] = True
    targets = np.zeros_like(masks)
    targets[kind == 0, 0] = targets[kind == 0, 1] = True  # kind 0: moves 0 and 1 tie
    targets[kind == 1, 4] = targets[kind == 1, 5] = True  # kind 1: moves 4 and 5 tie
    played = np.where(kind == 0, 0, 4) + rng.integers(2, size=rows)
    returns = np.zeros(rows, np.float32)
    hard = behaviour_clone(model.policy, Demonstrations(obs, masks, played, returns), epochs=8,
                           batch_size=64, learning_rate=3e-3, log=lambda m: None)
    assert hard["accuracy"] < 0.75
    soft = behaviour_clone(model.policy, Demonstrations(obs, masks, played, returns, targets),
                           epochs=8, batch_size=64, learning_rate=3e-3, log=lambda m: None)
    assert soft["accuracy"] > 0.99


# ---- one snapshot per rollout ---------------------------------------------------------------------
def test_snapshot_rotation_plays_one_snapshot_at_a_time() -> None:
    class Fixed:
        def __init__(self, action: int) -> None:
            self.action = action

        def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
            return np.full(len(observations), self.action, np.int64)

        def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
            return self.action

    rotation = SnapshotRotation(max_snapshots=3, seed=0)
    with pytest.raises(ValueError, match="no snapshot to play yet"):
        rotation.act_batch(np.zeros((2, 3)), np.ones((2, 4)))
    for k in range(5):
        rotation.add(f"s{k}", Fixed(k))
    assert rotation.names == ["s2", "s3", "s4"] and len(rotation) == 3
    assert rotation.active_name == "s0"  # the first one plays until the first draw
    seen = set()
    for _ in range(30):
        rotation.draw()
        acted = rotation.act_batch(np.zeros((4, 3)), np.ones((4, 5)))
        assert len(set(acted.tolist())) == 1  # every row of a batch: the same snapshot
        seen.add(rotation.active_name)
        assert f"s{int(acted[0])}" == rotation.active_name
    assert seen == {"s2", "s3", "s4"}
    again = SnapshotRotation(3, seed=0)
    for k in range(5):
        again.add(f"s{k}", Fixed(k))
    draws = []
    for _ in range(10):
        again.draw()
        draws.append(again.active_name)
    rotation2 = SnapshotRotation(3, seed=0)
    for k in range(5):
        rotation2.add(f"s{k}", Fixed(k))
    assert [(rotation2.draw(), rotation2.active_name)[1] for _ in range(10)] == draws  # seeded
    pool = OpponentPool()
    pool.add("snapshots", "snapshots", rotation)
    assert pool.sample(np.random.default_rng(0)).policy is rotation


# ---- config keys ------------------------------------------------------------------------------
@pytest.mark.parametrize("data,message", [
    ({"engine": "gpu"}, "engine: 'gpu' is not one of 'batched', 'reference'"),
    ({"pool": {"snapshot_draw": "game"}}, "pool.snapshot_draw: 'game' is not one of"),
    ({"pretrain": {"random_seats": 1.0}}, r"pretrain.random_seats: 1.0 is not in \[0, 1\)"),
    ({"engine": "reference", "pretrain": {"random_seats": 0.5}},
     "pretrain.random_seats needs engine: batched"),
])
def test_fast_training_config_values_are_checked(data: dict, message: str) -> None:
    config = from_dict(TrainConfig, {"env_id": "kansas_city-v1", **data})
    with pytest.raises(ConfigError, match=message):
        check(config)


def test_batched_engine_without_numba_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    from cahoots_envs.training.run import check_engine

    config = from_dict(TrainConfig, {"env_id": "kansas_city-v1"})
    config.engine = "batched"
    check_engine(config)  # numba is installed here: fine
    monkeypatch.setitem(sys.modules, "numba", None)  # import numba now fails
    with pytest.raises(ConfigError, match=r"engine: batched needs numba: pip install "
                                          r"'cahoots-envs\[train\]'.*or set engine: reference"):
        check_engine(config)
    check_engine(from_dict(TrainConfig, {"env_id": "kansas_city-v1", "engine": "reference"}))


def test_train_script_on_the_reference_engine(tmp_path: Path) -> None:
    """``engine: reference`` still trains end to end (SeatVecEnv, reference evaluations,
    snapshots drawn per seat)."""
    data = {
        "env_id": "kansas_city-v1", "env_options": {"hands": 1}, "seed": 2,
        "total_timesteps": 128, "n_envs": 4, "engine": "reference", "progress_bar": False,
        "ppo": {"n_steps": 16, "batch_size": 32, "n_epochs": 1, "net_arch": [16]},
        "pool": {"snapshot_every": 32, "snapshot_draw": "seat"},
        "eval": {"every": 64, "games": 4, "final_games": 4},
        "pretrain": {"games": 2, "epochs": 1},
    }
    config = tmp_path / "ref.yaml"
    config.write_text(yaml.safe_dump(data))
    out = subprocess.run([sys.executable, "-m", "cahoots_envs.training.train", "--config",
                          str(config), "--runs-dir", str(tmp_path / "runs")],
                         capture_output=True, text=True, timeout=300, check=False)
    assert out.returncode == 0, out.stderr[-3000:]
    (run_dir,) = (tmp_path / "runs").iterdir()
    state = yaml.safe_load((run_dir / "checkpoints" / "state.json").read_text())
    assert len(state["snapshots"]) >= 2 and (run_dir / "policy.safetensors").is_file()


def test_training_on_the_batched_engine_is_deterministic_for_a_seed(tmp_path: Path) -> None:
    """Two runs of one config (batched engine, mixed-seat soft-target cloning, one snapshot per
    rollout) give the same policy and the same evaluations."""
    from cahoots_envs.policies.saved import read_safetensors
    from cahoots_envs.training.train import train

    data = {
        "env_id": "cahoots_tricks-v1", "env_options": {"reward_mode": "points"}, "seed": 3,
        "total_timesteps": 256, "n_envs": 8, "progress_bar": False, "reward_scale": 0.25,
        "engine": "batched",
        "ppo": {"n_steps": 16, "batch_size": 64, "n_epochs": 1, "net_arch": [16]},
        "pool": {"snapshot_every": 64, "max_snapshots": 3, "snapshot_draw": "rollout"},
        "eval": {"every": 128, "games": 16, "final_games": 16},
        "pretrain": {"games": 6, "epochs": 1, "random_seats": 0.5, "soft_targets": True},
    }
    runs = []
    for k in range(2):
        config = from_dict(TrainConfig, data)
        check(config)
        out = train(config, tmp_path / f"run{k}")
        runs.append(out)
    first, second = (read_safetensors(tmp_path / f"run{k}" / "policy.safetensors")[0]
                     for k in range(2))
    assert first.keys() == second.keys()
    assert all(np.array_equal(first[name], second[name]) for name in first)
    # Every column of eval.csv repeats except cpu_seconds, which measures this machine's time.
    tables = []
    for k in range(2):
        with (tmp_path / f"run{k}" / "eval.csv").open(newline="") as f:
            rows = list(csv.DictReader(f))
        assert rows and all(float(row.pop("cpu_seconds")) >= 0 for row in rows)
        tables.append(rows)
    assert tables[0] == tables[1]
    assert runs[0]["metadata"]["training"]["behaviour_cloning"]["decisions"] == \
        runs[1]["metadata"]["training"]["behaviour_cloning"]["decisions"]
