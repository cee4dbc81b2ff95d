"""Training: typed configs, the shipped configs, and train.py smoke runs on every game."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import cahoots_envs
from cahoots_envs.policies.envinfo import env_info
from cahoots_envs.registry import builtin_games

pytest.importorskip("sb3_contrib")
yaml = pytest.importorskip("yaml")

from cahoots_envs.training.config import ConfigError, TrainConfig, from_dict, load_config

ROOT = Path(__file__).resolve().parent.parent
# the shipped games: train.py runs in a fresh process that knows the installed games only (games registered in this session run through SeatEnv in-process)
ENVS = [spec.env_id for spec in builtin_games()]


def game_of(env_id: str) -> str:
    return env_id.split("/")[1].split("-v")[0]


@pytest.mark.parametrize(
    "data,message",
    [
        ({"env_id": "kansas_city-v1", "ppo": {"n_stepz": 3}}, "unknown config key ppo.n_stepz"),
        ({"env_id": "kansas_city-v1", "seeed": 1}, "unknown config key seeed"),
        ({"env_id": "kansas_city-v1", "ppo": {"n_steps": "3"}}, "ppo.n_steps: expected an int"),
        ({"env_id": "kansas_city-v1", "ppo": {"net_arch": [64, 1.5]}}, r"ppo.net_arch\[1\]"),
        ({"env_id": "kansas_city-v1", "team": "yes"}, "team: expected true or false"),
        ({"env_id": "kansas_city-v1", "pool": {"policies": {"zoo:x": "big"}}}, "pool.policies.zoo:x"),
        ({"env_id": "kansas_city-v1", "pool": 3}, "pool: expected a mapping"),
        ({"ppo": {}}, "missing config key env_id"),
    ],
)
def test_config_errors_name_the_key(data: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        from_dict(TrainConfig, data)


def test_config_types_and_values(tmp_path: Path) -> None:
    config = from_dict(TrainConfig, {"env_id": "x", "ppo": {"learning_rate": 1}, "learner_seat": 2})
    assert config.ppo.learning_rate == 1.0 and isinstance(config.ppo.learning_rate, float)
    assert config.learner_seat == 2
    bad = tmp_path / "bad.yaml"
    bad.write_text("env_id: kansas_city-v1\nn_envs: 0\n")
    with pytest.raises(ConfigError, match="n_envs must be positive"):
        load_config(bad)
    bad.write_text("- a list\n")
    with pytest.raises(ConfigError, match="mapping"):
        load_config(bad)


SHIPPED_CONFIGS = sorted((ROOT / "configs").glob("*.yaml"))
ZOO = Path(cahoots_envs.__file__).parent / "policies" / "zoo"


def test_every_zoo_entry_ships_the_config_that_trained_it() -> None:
    """Each game with a zoo network ships its recipe, configs/<game>.yaml (a game added without
    a zoo entry need not ship one; an entry with a name of its own, such as a recipe's first
    stage, counts for its game)."""
    zoo_games = {meta["env_id"].split("/")[-1].rsplit("-v", 1)[0]
                 for meta in cahoots_envs.list_policies()}
    assert zoo_games and zoo_games <= {p.stem for p in SHIPPED_CONFIGS}
    assert len(list(ZOO.glob("*.safetensors"))) == len(cahoots_envs.list_policies())


# the recipes' stages and variants in the subfolders (RLlib's configs have their own loader)
STAGE_CONFIGS = sorted(p for p in (ROOT / "configs").glob("*/*.yaml") if p.parent.name != "rllib")


@pytest.mark.parametrize("path", STAGE_CONFIGS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_each_stage_config_loads_with_its_sections_checked(path: Path) -> None:
    """Every config under configs/<algorithm>/ loads: its sections and, beside the env, its
    network's segments and computed features (check_config), as a run would start."""
    config = load_config(path)
    assert game_of(env_info(config.env_id, config.env_options).env_id) in path.stem
    assert config.algorithm in ("every_seat_ppo", "expert_iteration", "maskable_ppo")


@pytest.mark.parametrize("path", SHIPPED_CONFIGS, ids=lambda p: p.stem)
def test_each_shipped_config_is_valid_for_its_game(path: Path) -> None:
    config = load_config(path)
    info = env_info(config.env_id, config.env_options)
    assert game_of(info.env_id) == path.stem
    # default player count
    assert info.options["num_players"] == info.game_cls.DEFAULT_PLAYERS
    assert config.team == info.game_cls.COOPERATIVE


def tiny_config(env_id: str, tmp_path: Path) -> Path:
    team = env_info(env_id).game_cls.COOPERATIVE
    data = {
        "env_id": env_id, "seed": 1, "total_timesteps": 256, "n_envs": 4, "team": team,
        "checkpoint_every": 128, "progress_bar": False,
        "ppo": {"n_steps": 32, "batch_size": 64, "n_epochs": 1, "net_arch": [16]},
        "pool": {"snapshot_every": 64, "latest": 1.0},
        "eval": {"every": 128, "games": 4, "final_games": 4},
        "pretrain": {"games": 2, "epochs": 1},
    }
    path = tmp_path / f"{game_of(env_id)}.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def run_train(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cahoots_envs.training.train", *args],
                          capture_output=True, text=True, timeout=300, cwd=cwd, check=False)


@pytest.mark.parametrize("env_id", ENVS)
def test_train_script_smoke(env_id: str, tmp_path: Path) -> None:
    config = tiny_config(env_id, tmp_path)
    out = run_train("--config", str(config), "--runs-dir", str(tmp_path / "runs"), cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-3000:]
    (run_dir,) = (tmp_path / "runs").iterdir()
    assert run_dir.name.startswith(f"{env_id.split('/')[1]}__maskableppo__1__")
    for name in ("config.yaml", "progress.csv", "eval.csv", "learning_curve.png", "policy.safetensors",
                 "policy.json", "policy_sb3.zip", "checkpoints/model.zip", "checkpoints/state.json"):
        assert (run_dir / name).is_file(), name
    assert list(run_dir.glob("events.out.tfevents.*")), "no TensorBoard log"
    meta = json.loads((run_dir / "policy.json").read_text())
    assert meta["training"]["config"]["seed"] == 1 and meta["evaluation"]
    policy = cahoots_envs.load_policy(str(run_dir / "policy.safetensors"), env_id)
    assert policy.metadata["env_id"] == env_id
    assert "win" in out.stdout
    # the saved policy keeps the critic as its value head: the same values as SB3's critic
    from sb3_contrib import MaskablePPO

    from tests.test_value_head import assert_head_is_the_critic

    model = MaskablePPO.load(run_dir / "policy_sb3.zip", device="cpu")
    assert_head_is_the_critic(run_dir, model.policy.predict_values, env_id,
                              load_config(config).ppo.gamma)
    snapshots = sorted((run_dir / "checkpoints" / "snapshots").glob("*.safetensors"))
    assert snapshots and all(s.with_suffix(".json").is_file() for s in snapshots)
    cahoots_envs.load_policy(str(snapshots[-1]), env_id)  # a learning trajectory can be evaluated
    strength = subprocess.run(
        [sys.executable, "-m", "cahoots_envs.cli", "strength", env_id,
         str(run_dir / "policy.safetensors"), "--games", "8"],
        capture_output=True, text=True, timeout=300, check=False)
    assert strength.returncode == 0, strength.stderr[-3000:]
    assert f"| {env_id.split('/')[1]} (" in strength.stdout
    if env_id == ENVS[0]:
        # --resume continues from the checkpoint up to a larger budget
        cfg = yaml.safe_load((run_dir / "config.yaml").read_text())
        cfg["total_timesteps"] = 512
        (run_dir / "config.yaml").write_text(yaml.safe_dump(cfg))
        again = run_train("--resume", str(run_dir), "--trust-checkpoint", cwd=tmp_path)
        assert again.returncode == 0, again.stderr[-3000:]
        assert "resuming" in again.stdout
        state = json.loads((run_dir / "checkpoints" / "state.json").read_text())
        assert state["timesteps"] >= 512


@pytest.mark.parametrize("reward_mode", ["win", "points"])
def test_demonstrations_and_behaviour_cloning(reward_mode: str) -> None:
    from sb3_contrib import MaskablePPO

    from cahoots_envs.policies import RandomPolicy
    from cahoots_envs.policies.network import MLPPolicy
    from cahoots_envs.training import SeatEnv
    from cahoots_envs.training.imitation import behaviour_clone, collect_demonstrations

    env_id = "cahoots_envs/kansas_city-v1"
    demos = collect_demonstrations(env_id, {"hands": 1, "reward_mode": reward_mode},
                                   RandomPolicy(0), games=3, seed=1, reward_scale=0.5)
    assert demos.masks[np.arange(len(demos)), demos.actions].all()
    if reward_mode == "win":  # every decision's return is its seat's final payoff, scaled
        payoffs = 0.5 * np.array([1, -1 / 3, 1 / 2, -1 / 2, 1 / 3, -1, 0])  # 1, 2 or 3 winners
        assert np.isclose(demos.returns[:, None], payoffs[None]).any(axis=1).all()
    else:
        assert (demos.returns >= 0).all() and demos.returns.max() > 0
    model = MaskablePPO("MlpPolicy", SeatEnv(env_id, {"hands": 1}), n_steps=16, batch_size=16,
                        policy_kwargs={"net_arch": [32]}, device="cpu", seed=0)
    stats = behaviour_clone(model.policy, demos, epochs=3, batch_size=64, log=lambda m: None)
    assert 0 <= stats["accuracy"] <= 1 and stats["nll"] > 0
    assert MLPPolicy.from_sb3(model.policy).act_batch(demos.observations[:5], demos.masks[:5]).shape == (5,)


def test_resume_needs_trust_checkpoint(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--resume unpickles checkpoints/model.zip: refused without an explicit --trust-checkpoint,
    before anything is read from the run folder."""
    from cahoots_envs.training.train import main

    run_dir = tmp_path / "run"
    (run_dir / "checkpoints").mkdir(parents=True)
    (run_dir / "checkpoints" / "model.zip").write_bytes(b"PK\x03\x04 not to be opened")
    with pytest.raises(SystemExit) as exit_info:
        main(["--resume", str(run_dir)])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "--trust-checkpoint" in err and "pickle" in err and "model.zip" in err


def test_snapshots_load_as_policies(tmp_path: Path) -> None:
    from cahoots_envs.policies import MLPPolicy, read_metadata
    from cahoots_envs.training.maskable_ppo import load_snapshots, save_snapshot

    env_id = "cahoots_envs/kansas_city-v1"
    config = from_dict(TrainConfig, {"env_id": env_id, "env_options": {"hands": 2}, "seed": 3})
    info = env_info(env_id, {"hands": 2})
    rng = np.random.default_rng(0)
    snap = MLPPolicy([(rng.normal(size=(8, info.layout.size)).astype(np.float32), np.zeros(8, np.float32)),
                      (rng.normal(size=(info.num_actions, 8)).astype(np.float32),
                       np.zeros(info.num_actions, np.float32))])
    snap.name = "snapshot_640"
    run_dir = tmp_path / "runs" / "kc_run"
    save_snapshot(run_dir, snap, config, 640)
    path = run_dir / "checkpoints" / "snapshots" / "snapshot_640.safetensors"
    meta = json.loads(path.with_suffix(".json").read_text())
    assert meta == read_metadata(path)
    assert meta["training"]["timesteps"] == 640 and meta["training"]["run"] == "kc_run"
    assert meta["game_options"]["hands"] == 2
    policy = cahoots_envs.load_policy(str(path), env_id, {"hands": 2})
    env = cahoots_envs.make(env_id, hands=2)
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)
    assert policy.act(obs["observation"], obs["action_mask"]) == snap.act(obs["observation"],
                                                                          obs["action_mask"])
    assert cahoots_envs.load_policy(str(path), None).metadata["env_id"] == env_id
    # --resume reads them back, and still reads snapshots from before they carried metadata
    from safetensors.numpy import save_file

    save_file(snap.tensors(), str(path.with_name("snapshot_320.safetensors")),
              metadata={"architecture": json.dumps(snap.architecture())})
    back = load_snapshots(run_dir, ["snapshot_320", "snapshot_640"])
    assert [s.name for s in back] == ["snapshot_320", "snapshot_640"]
    for s in back:
        assert s.act(obs["observation"], obs["action_mask"]) == snap.act(obs["observation"],
                                                                          obs["action_mask"])


KC = {"env_id": "kansas_city-v1"}
SCORING = {"algorithm": "expert_iteration",
           "expert_iteration": {"network": {"type": "action_scoring"}}}


def _scoring(**network) -> dict:
    return {**SCORING, "expert_iteration": {"network": {"type": "action_scoring", **network}}}


@pytest.mark.parametrize("data,message", [
    ({"env_id": "../../etc/passwd"}, "env_id: unknown env '../../etc/passwd'; known envs: "),
    ({"env_id": "x" * 5000}, r"env_id: unknown env 'xxx.*…; known envs: "),
    ({**KC, "env_options": {"num_players": 99}}, ("env_options: option num_players=99 is not "
     "allowed; num_players accepts one of 4, 5")),
    ({**KC, "env_options": {"colour": "red"}}, "env_options: unknown option colour"),
    ({"env_id": "cahoots_coop", "team": True, "env_options": {"talk": "dutch", "num_players": 1}},
     "env_options: .*needs 2 or more players"),
    ({**KC, "reward_scale": float("nan")}, "reward_scale must be positive, got nan"),
    ({**KC, "reward_scale": float("inf")}, "reward_scale must be positive, got inf"),
    ({**KC, "reward_scale": -1}, "reward_scale must be positive, got -1"),
    ({**KC, "reward_scale": 0}, "reward_scale must be positive, got 0"),
    ({**KC, "n_envs": 2**63}, (r"needs about .* GiB of memory \(network .*; rollouts .* GiB "
     r"\(n_envs 9,223,372,036,854,775,808 x ppo.n_steps 128 .*\), more than the .* GiB this "
     "machine has available; lower ppo.net_arch, n_envs or ppo.n_steps")),
    ({**KC, "ppo": {"net_arch": [10**6, 10**6]}}, (r"network .* GiB \(2,00.* parameters of "
     r"ppo.net_arch \[1000000, 1000000\]")),
    ({**KC, **_scoring(trunk_sizes=[10**8])}, (r"parameters of expert_iteration.network "
     r"\(trunk_sizes \[100000000\].*lower expert_iteration.network's trunk_sizes")),
    ({**KC, **_scoring(embedding_size=10**9)}, "embedding_size 1000000000"),
    ({**KC, "learner_seat": 9}, ("learner_seat must be a seat from 0 to 3 of .*kansas_city-v1's 4 "
     "players .*got 9")),
    ({**KC, "learner_seat": -1}, "learner_seat must be a seat from 0 to 3"),
    ({**KC, "pool": {"random": 0, "heuristic": 0, "snapshots": 0, "latest": 0}},
     "pool: every weight is 0"),
    ({"env_id": "cahoots_coop", "env_options": {"num_players": 2},
      "pool": {"policies": {"zoo:cahoots_coop": 1.0}}},
     r"pool.policies\['zoo:cahoots_coop'\]: .*num_players=3 in the policy but num_players=2"),
    ({"env_id": "cahoots_coop", "env_options": {"num_players": 2}, "team": True,
      "eval": {"opponents": ["zoo:cahoots_coop"]}}, r"eval.opponents\[0\]: .*num_players=3"),
    ({"env_id": "cahoots_coop", "env_options": {"num_players": 2}, "team": True,
      "pretrain": {"games": 10, "teacher": "zoo:cahoots_coop"}}, ("pretrain.teacher: .*"
     "num_players=3")),
])
def test_a_config_that_cannot_run_is_refused_as_it_loads(data: dict, message: str) -> None:
    """Each of these passed the config check and failed after start-up (or trained on NaN, or
    ran with a seat that does not exist): now one line as the config loads, saying what is
    wrong and what would be right (the memory ones with the estimate)."""
    from cahoots_envs.training.config import config_from_dict

    with pytest.raises(ConfigError, match=message) as caught:
        config_from_dict(data)
    assert "\n" not in str(caught.value) and len(str(caught.value)) < 600


def test_the_limits_leave_real_configs_and_long_runs_alone() -> None:
    """No cap on total_timesteps; a network or rollout that fits is accepted."""
    from cahoots_envs.training.config import config_from_dict

    config = config_from_dict({**KC, "total_timesteps": 10**15, "n_envs": 256,
                               "learner_seat": 3, "ppo": {"net_arch": [1024, 1024]}})
    assert config.total_timesteps == 10**15
    assert config_from_dict({"env_id": "cahoots_coop", "team": True,
                             "pool": {"random": 0, "heuristic": 0, "snapshots": 0, "latest": 0}})


def test_library_folders_stay_under_pytests_temp(tmp_path_factory: pytest.TempPathFactory) -> None:
    """A model that learns without a logger set makes SB3's default one (``configure()`` with
    no folder), as tests that train a model directly do, and an optimizer's first step makes
    torch's compiler cache: both lie under pytest's temporary folders (tests/conftest.py), not
    ``SB3-<date>`` or ``torchinductor_<user>`` in the system temp folder."""
    import tempfile

    from stable_baselines3.common.logger import configure

    folder = Path(configure().get_dir())
    base = tmp_path_factory.getbasetemp().resolve()
    assert folder.resolve().is_relative_to(base), f"{folder} is outside {base}"
    assert not folder.resolve().is_relative_to(Path(tempfile.gettempdir()).resolve() / "SB3-")
    done = subprocess.run(
        [sys.executable, "-c", ("import torch\n"
         "from torch._inductor.runtime.cache_dir_utils import cache_dir\n"
         "layer = torch.nn.Linear(3, 2)\n"
         "step = torch.optim.Adam(layer.parameters())\n"
         "layer(torch.ones(1, 3)).sum().backward()\n"
         "step.step()\n"
         "print(cache_dir())")], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    cache = Path(done.stdout.strip())
    assert cache.resolve().is_relative_to(base), f"{cache} is outside {base}"
    assert cache.is_dir()
