"""Every-seat PPO (``algorithm: every_seat_ppo``): each reward lands in the return of the seat
that earned it, and a tiny config trains end to end through ``cahoots train``'s entry point into
a saved policy that loads and plays legal moves with numpy alone."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

yaml = pytest.importorskip("yaml")

from cahoots_envs.training.config import ConfigError, load_config
from cahoots_envs.training.every_seat_ppo import EverySeatConfig, SeatLedger, advantages


def scripted_ledger() -> SeatLedger:
    """Two games of three seats over three engine steps. Game 0: seat 1 decides, then seat 2
    (and earns 2.0 on its move), then seat 1 again; the game ends on that move paying seat 1
    -0.5 and seat 2 +0.5. Game 1: seat 0 is paid 7.0 before it ever decides (the deal's pay),
    decides at step 2 and is still to finish when the rollout ends."""
    ledger = SeatLedger(steps=3, games=2, players=3)
    g0 = np.array([0])
    ledger.decide(0, g0, np.array([1]))
    ledger.credit(np.array([[0.0, 0.0, 0.0], [7.0, 0.0, 0.0]]))
    ledger.decide(1, g0, np.array([2]))
    ledger.credit(np.array([[0.0, 0.0, 2.0], [0.0, 0.0, 0.0]]))
    ledger.decide(2, np.array([0, 1]), np.array([1, 0]))
    ledger.credit(np.array([[0.0, -0.5, 0.5], [0.0, 0.0, 0.0]]))
    ledger.finish(g0)
    return ledger


def test_a_reward_lands_in_the_return_of_the_seat_that_earned_it() -> None:
    ledger = scripted_ledger()
    assert ledger.rewards[:, 0].tolist() == [0.0, 2.5, -0.5]  # seat 1, seat 2, seat 1
    assert ledger.next[:, 0].tolist() == [2, -1, -1]  # seat 1's decision at 0 is followed at 2
    assert ledger.terminal[:, 0].tolist() == [False, True, True]
    _, returns = advantages(ledger, np.zeros((3, 2)), gamma=1.0, lam=1.0)
    # seat 2's 2.0 and 0.5 are its own; seat 1's return is what seat 1 earned, not seat 2's
    assert returns[:, 0].tolist() == [-0.5, 2.5, -0.5]
    # game 1: the pay before seat 0's first decision reaches no transition, and a transition
    # still open at the rollout's end is left out
    assert ledger.rewards[:, 1].tolist() == [0.0, 0.0, 0.0]
    assert ledger.kept()[:, 1].tolist() == [False, False, False]
    assert ledger.kept()[:, 0].tolist() == [True, True, True]


def test_gae_follows_each_seats_own_chain() -> None:
    ledger = scripted_ledger()
    values = np.array([[0.25, 0.0], [1.0, 0.0], [-0.25, 3.0]])
    adv, returns = advantages(ledger, values, gamma=0.5, lam=0.5)
    # seat 1 at step 0: delta = 0 + 0.5 * V(step 2) - V(step 0); plus 0.25 x its successor's
    # advantage (-0.5 - -0.25, terminal); seat 2's value at step 1 plays no part in it
    later = -0.5 - (-0.25)
    assert adv[0, 0] == pytest.approx(0.5 * -0.25 - 0.25 + 0.25 * later)
    assert adv[1, 0] == pytest.approx(2.5 - 1.0)
    assert returns[2, 0] == pytest.approx(-0.5)
    assert adv[2, 1] == 0.0 and returns[2, 1] == 0.0  # open: left out


def assert_critic_saved(tmp_path: Path, run_dir: Path, env_id: str, **options: object) -> None:
    """The run's saved policy carries its critic (rebuilt from the run's last checkpoint) as its
    value head."""
    import torch

    from cahoots_envs.policies.envinfo import env_info
    from cahoots_envs.training.checkpoint import Checkpoints
    from cahoots_envs.training.networks import build_network
    from tests.test_value_head import assert_head_is_the_critic

    config = load_config(tmp_path / "tiny.yaml")
    tensors, _ = Checkpoints(config, run_dir).load()  # type: ignore[misc]
    info = env_info(env_id, options)
    net = build_network(info.layout.size, int(info.num_actions), list(config.ppo.net_arch),
                        config.ppo.activation)
    critic = {k[len("net/"):]: torch.from_numpy(v.copy()) for k, v in tensors.items()
              if k.startswith(("net/mlp_extractor.value_net.", "net/value_head."))}
    assert critic and not net.load_state_dict(critic, strict=False).unexpected_keys
    assert_head_is_the_critic(run_dir, net.predict_values, env_id, config.ppo.gamma, **options)


def tiny_config(tmp_path: Path, **section: float) -> Path:
    config = {"env_id": "texas_euchre-v1", "env_options": {"num_players": 4, "reward_mode": "win"},
              "seed": 3, "total_timesteps": 400, "n_envs": 12, "engine": "batched",
              "algorithm": "every_seat_ppo", "every_seat_ppo": {"self_play_share": 0.5, **section},
              "ppo": {"n_steps": 12, "batch_size": 64, "n_epochs": 2, "net_arch": [16]},
              "pool": {"random": 1.0, "heuristic": 1.0, "snapshots": 1.0, "latest": 0.0,
                       "snapshot_every": 150},
              "pretrain": {"games": 2, "epochs": 1},
              "eval": {"every": 250, "games": 4, "final_games": 8}}
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def test_a_tiny_run_trains_and_saves_a_policy_that_plays_with_numpy_alone(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("numba")
    from cahoots_envs.training.train import main

    assert main(["--config", str(tiny_config(tmp_path)), "--runs-dir", str(tmp_path / "runs"),
                 "--no-progress"]) == 0
    out = capsys.readouterr().out
    (run_dir,) = (tmp_path / "runs").iterdir()
    assert run_dir.name.startswith("texas_euchre-v1__everyseatppo__3__")
    assert "win share in one seat vs heuristic opponents:" in out and "over 8 games" in out
    assert "the clone it started from, same games" in out  # pretrain went through the seam
    meta = json.loads((run_dir / "policy.json").read_text())
    assert meta["training"]["algorithm"].startswith("every-seat PPO")
    assert meta["training"]["timesteps"] >= 400
    assert meta["training"]["every_seat_ppo"] == {"self_play_games": 6, "games": 12,
                                                  "network": "mlp"}
    assert meta["architecture"]["layer_sizes"][1:] == [16, 85]
    assert "time/total_timesteps" in (run_dir / "progress.csv").read_text()
    assert_critic_saved(tmp_path, run_dir, "texas_euchre-v1", num_players=4)
    # the saved policy loads and plays a whole game of legal moves with torch out of reach
    play = (
        "import sys; sys.modules['torch'] = None\n"
        "import cahoots_envs\n"
        f"policy = cahoots_envs.load_policy({str(run_dir / 'policy.safetensors')!r}, "
        "'texas_euchre-v1', {'num_players': 4})\n"
        "env = cahoots_envs.make('texas_euchre-v1', num_players=4)\n"
        "env.reset(seed=5)\n"
        "moves = 0\n"
        "for agent in env.agent_iter():\n"
        "    obs, reward, terminated, truncated, info = env.last()\n"
        "    if terminated or truncated:\n"
        "        env.step(None); continue\n"
        "    action = policy.act(obs['observation'], obs['action_mask'])\n"
        "    assert obs['action_mask'][action], action\n"
        "    env.step(action); moves += 1\n"
        "    assert policy.values(obs['observation'][None]).shape == (1,)\n"
        "print(moves)\n")
    done = subprocess.run([sys.executable, "-c", play], capture_output=True, text=True, check=False,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout.split()[-1]) > 20


def test_the_section_is_checked_as_the_config_loads(tmp_path: Path) -> None:
    assert load_config(tiny_config(tmp_path)).sections["every_seat_ppo"] == EverySeatConfig(0.5)
    with pytest.raises(ConfigError, match=r"^every_seat_ppo\.self_play_share must be in \[0, 1\], "
                       r"got 1\.5$"):
        load_config(tiny_config(tmp_path, self_play_share=1.5))


SCORING = {"type": "action_scoring", "trunk_sizes": [8], "embedding_size": 4, "head_sizes": [8],
           "action_segments": [], "computed": "tactics"}


def test_an_action_scoring_actor_trains_clones_and_saves(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``network: {type: action_scoring, computed: tactics}``: cloned by
    ``clone_action_scorer``, trained by PPO (its weights move), saved as an action-scoring
    policy that computes its features as it plays; the critic stays an MLP."""
    pytest.importorskip("torch")
    pytest.importorskip("numba")
    from cahoots_envs.policies.loading import load_policy
    from cahoots_envs.policies.scoring import ActionScoringPolicy
    from cahoots_envs.training.train import main

    config = yaml.safe_load(tiny_config(tmp_path, network=SCORING).read_text())  # type: ignore[arg-type]
    config.update(env_id="cahoots_tricks-v1", env_options={"num_players": 4}, seed=4)
    (tmp_path / "tiny.yaml").write_text(yaml.safe_dump(config))
    assert main(["--config", str(tmp_path / "tiny.yaml"), "--runs-dir", str(tmp_path / "runs"),
                 "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "action scoring epoch 1/1" in out and "the clone it started from" in out
    (run_dir,) = (tmp_path / "runs").iterdir()
    meta = json.loads((run_dir / "policy.json").read_text())
    assert meta["training"]["every_seat_ppo"]["network"] == "action_scoring"
    assert meta["architecture"]["computed_features"]["name"] == "tactics"
    trained = load_policy(str(run_dir / "policy.safetensors"), "cahoots_tricks-v1", {})
    cloned = load_policy(str(run_dir / "checkpoints" / "cloned.safetensors"),
                         "cahoots_tricks-v1", {})
    assert isinstance(trained, ActionScoringPolicy) and isinstance(cloned, ActionScoringPolicy)
    moved = [not np.array_equal(a, b) for a, b in
             zip(trained.tensors().values(), cloned.tensors().values())]
    assert any(moved)  # PPO changed the clone's weights
    assert_critic_saved(tmp_path, run_dir, "cahoots_tricks-v1", num_players=4)  # the critic: an MLP still


def test_the_network_setting_is_checked_as_the_config_loads(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"^every_seat_ppo\.network\.type must be action_scoring"):
        load_config(tiny_config(tmp_path, network={"type": "mlp"}))  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match=r"computed features 'nope' are not offered by "
                       r"texas_euchre"):
        load_config(tiny_config(tmp_path, network={**SCORING, "computed": "nope"}))  # type: ignore[arg-type]
    config = yaml.safe_load(tiny_config(tmp_path, network=SCORING).read_text())  # type: ignore[arg-type]
    config.update(env_id="cahoots_tricks-v1", env_options={"num_players": 4})
    config["pool"]["latest"] = 1.0
    (tmp_path / "latest.yaml").write_text(yaml.safe_dump(config))
    with pytest.raises(ConfigError, match="cannot play in the pool as 'latest'"):
        load_config(tmp_path / "latest.yaml")


def test_the_saved_actor_is_the_trained_one() -> None:
    """``MLPPolicy.from_sb3`` copies the actor: the numpy logits are the torch network's, and a
    masked action never lands on an illegal move."""
    torch = pytest.importorskip("torch")
    from cahoots_envs.policies.network import MLPPolicy
    from cahoots_envs.training.every_seat_ppo import build_network

    net = build_network(7, 5, [6, 4], "relu")
    obs = np.random.default_rng(0).normal(size=(9, 7)).astype(np.float32)
    policy = MLPPolicy.from_sb3(net)
    with torch.no_grad():
        expected = net.logits(torch.from_numpy(obs)).numpy()
    np.testing.assert_allclose(policy.logits(obs), expected, rtol=1e-5, atol=1e-6)
    assert policy.architecture() == {"type": "mlp", "layer_sizes": [7, 6, 4, 5],
                                     "activation": "relu"}
    masks = np.zeros((9, 5), np.int8)
    masks[np.arange(9), np.arange(9) % 5] = 1
    assert (policy.act_batch(obs, masks) == np.arange(9) % 5).all()
    _, logp, entropy = net.evaluate_actions(torch.from_numpy(obs), torch.arange(9) % 5,
                                            torch.from_numpy(masks))
    assert torch.allclose(logp, torch.zeros(9)) and torch.allclose(entropy, torch.zeros(9))


def test_a_config_naming_the_algorithm_loads_in_a_fresh_process() -> None:
    """Its config section is registered with the training package: load_config alone reads it,
    without torch."""
    script = ("import sys\nfrom cahoots_envs.training.config import load_config\n"
              "c = load_config('configs/every_seat/texas_euchre.yaml')\n"
              "print(c.algorithm, 'torch' in sys.modules)\n")
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run([sys.executable, "-c", script], cwd=root, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["every_seat_ppo", "False"]
