"""The optional value head of a saved network: round trip through the saved-policy format,
inference with numpy alone, every shipped zoo file still loading, and clear refusals."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import cahoots_envs
from cahoots_envs.policies.network import MLPPolicy, ValueHead
from cahoots_envs.policies.saved import (
    PolicyFileError,
    load_saved_policy,
    read_metadata,
    read_policy_file,
    save_policy,
)

ZOO = Path(cahoots_envs.__file__).parent / "policies" / "zoo"
KC = "kansas_city-v1"


def observations(env_id: str, count: int = 12, **options: object) -> np.ndarray:
    env = cahoots_envs.make(env_id, **options)
    env.reset(seed=3)
    rows = []
    rng = np.random.default_rng(0)
    while len(rows) < count and env.agents:
        o = env.observe(env.agent_selection)
        rows.append(o["observation"])
        env.step(int(rng.choice(np.flatnonzero(o["action_mask"]))))
    return np.asarray(rows, np.float32)


def head_for(policy, input: str, hidden: int = 8, seed: int = 0) -> ValueHead:
    rng = np.random.default_rng(seed)
    width = policy.input_size if input == "observation" else \
        policy.features(np.zeros((1, policy.input_size), np.float32)).shape[1]
    return ValueHead([(rng.normal(0, 0.1, (hidden, width)).astype(np.float32),
                       rng.normal(0, 0.1, hidden).astype(np.float32)),
                      (rng.normal(0, 0.3, (1, hidden)).astype(np.float32),
                       np.array([0.05], np.float32))], "tanh", input)


@pytest.mark.parametrize("name", ["kansas_city", "cahoots_tricks"])
@pytest.mark.parametrize("input", ["features", "observation"])
def test_value_head_round_trips_through_the_saved_format(tmp_path: Path, name: str,
                                                         input: str) -> None:
    """Both network kinds (the flat MLP, the action-scoring network) keep a value head through
    save and load: the same values, the same moves, the format version unchanged."""
    env_id = read_metadata(ZOO / f"{name}.safetensors")["env_id"]
    policy = load_saved_policy(ZOO / f"{name}.safetensors", env_id)
    assert not policy.has_values
    policy.with_value_head(head_for(policy, input))
    obs = observations(env_id)
    expected = policy.values(obs)
    assert expected.shape == (len(obs),) and np.ptp(expected) > 0
    meta = save_policy(policy, tmp_path / "with_value", env_id)
    assert meta["format_version"] == 1
    assert meta["architecture"]["value_head"]["input"] == input
    tensors, _ = read_policy_file(tmp_path / "with_value.safetensors")
    assert any(k.startswith("value.") for k in tensors)
    loaded = cahoots_envs.load_policy(str(tmp_path / "with_value.safetensors"), env_id)
    assert loaded.has_values
    np.testing.assert_allclose(loaded.values(obs), expected, rtol=1e-6, atol=1e-6)
    masks = np.zeros((len(obs), policy.output_size), np.int8)
    masks[:, :3] = 1
    np.testing.assert_array_equal(loaded.act_batch(obs, masks), policy.act_batch(obs, masks))


def test_a_value_head_loads_and_runs_with_numpy_alone(tmp_path: Path) -> None:
    policy = load_saved_policy(ZOO / "kansas_city.safetensors", KC)
    policy.with_value_head(head_for(policy, "features"))
    save_policy(policy, tmp_path / "v", KC)
    obs = observations(KC, 4)
    np.save(tmp_path / "obs.npy", obs)
    code = (
        "import sys; sys.modules['torch'] = None; sys.modules['stable_baselines3'] = None\n"
        "import cahoots_envs, numpy as np\n"
        f"p = cahoots_envs.load_policy({str(tmp_path / 'v.safetensors')!r}, {KC!r})\n"
        f"print(' '.join(repr(float(x)) for x in p.values(np.load({str(tmp_path / 'obs.npy')!r}))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=False)
    assert out.returncode == 0, out.stderr
    got = np.array([float(x) for x in out.stdout.split()])
    np.testing.assert_allclose(got, policy.values(obs), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("path", sorted(ZOO.glob("*.safetensors")), ids=lambda p: p.stem)
def test_every_shipped_zoo_file_still_loads(path: Path) -> None:
    """Files saved before value heads existed load and act as before; they have no values, and
    asking for them says so in one line."""
    env_id = read_metadata(path)["env_id"]
    game_options = read_metadata(path)["game_options"]
    policy = load_saved_policy(path, env_id, game_options)
    obs = observations(env_id, 3, **game_options)
    masks = np.ones((len(obs), policy.output_size), np.int8)
    assert policy.act_batch(obs, masks).shape == (len(obs),)
    assert not policy.has_values
    with pytest.raises(ValueError, match="has no value head"):
        policy.values(np.zeros((1, policy.input_size), np.float32))


def test_value_tensors_without_a_declared_head_are_refused(tmp_path: Path) -> None:
    from safetensors.numpy import save_file

    policy = load_saved_policy(ZOO / "kansas_city.safetensors", KC)
    policy.with_value_head(head_for(policy, "features"))
    meta = save_policy(policy, tmp_path / "v", KC)
    tensors, _ = read_policy_file(tmp_path / "v.safetensors")
    del meta["architecture"]["value_head"]
    save_file(tensors, str(tmp_path / "bad.safetensors"),
              metadata={"cahoots_policy": json.dumps(meta)})
    with pytest.raises(PolicyFileError, match="value tensors without a value_head"):
        load_saved_policy(tmp_path / "bad.safetensors", KC)


def test_a_value_head_must_fit_its_network() -> None:
    net = MLPPolicy([(np.ones((4, 3), np.float32), np.zeros(4, np.float32)),
                     (np.ones((2, 4), np.float32), np.zeros(2, np.float32))])
    wrong = ValueHead([(np.ones((1, 3), np.float32), np.zeros(1, np.float32))])
    with pytest.raises(ValueError, match="reads 3 features entries; this network's features "
                                         "have 4"):
        net.with_value_head(wrong)
    with pytest.raises(ValueError, match="ends in one output"):
        ValueHead([(np.ones((2, 4), np.float32), np.zeros(2, np.float32))])
    net.with_value_head(ValueHead([(np.full((1, 3), 0.5, np.float32),
                                    np.array([0.25], np.float32))], input="observation"))
    np.testing.assert_allclose(net.values(np.array([[1, 2, 3]], np.float32)), [3.25])


def test_fit_value_head_writes_a_network_whose_head_predicts_hand_values(tmp_path: Path) -> None:
    """``benchmarks/fit_value_head.py`` on a few games: the zoo network unchanged, with a
    linear head that loads, names its command, and scores its held-out positions."""
    import importlib.util

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "fit_value_head.py"
    spec = importlib.util.spec_from_file_location("fit_value_head_bench", path)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert bench.main(["--rows", "texas_euchre", "--games", "20", "--out-dir",
                       str(tmp_path)]) == 0
    meta = read_metadata(tmp_path / "texas_euchre.safetensors")
    assert meta["training"]["command"].startswith("python benchmarks/fit_value_head.py")
    assert meta["evaluation"]["held_out_positions"] > 0
    fitted = cahoots_envs.load_policy(str(tmp_path / "texas_euchre.safetensors"),
                                      "texas_euchre-v1")
    zoo = cahoots_envs.load_policy("zoo:texas_euchre", "texas_euchre-v1")
    obs = observations("texas_euchre-v1", 5)
    np.testing.assert_array_equal(fitted.logits(obs), zoo.logits(obs))
    assert fitted.has_values and fitted.values(obs).shape == (5,)

    # --check scores the saved head at other options: its figures are those of the head on
    # the positions of the same seeded games, recomputed here
    results = tmp_path / "check.jsonl"
    args = ["--rows", "texas_euchre", "--check", "--games", "3", "--seed", "7", "--out-dir",
            str(tmp_path), "--results", str(results)]
    assert bench.main([*args, "--at", "target_score=50", "--at", "target_score=200"]) == 0
    scored = [json.loads(line) for line in results.read_text().splitlines()]
    assert [r["options"] for r in scored] == [{"target_score": 50}, {"target_score": 200}]
    opts = cahoots_envs.game_spec("texas_euchre-v1").resolve_options(
        {"num_players": 4, "target_score": 50})
    games = list(bench.hand_end_positions("texas_euchre-v1", opts, 3, 7))
    x = np.concatenate([g[1] for g in games])
    y = np.concatenate([g[2] for g in games])
    p = fitted.values(x).astype(np.float64)
    assert scored[0]["positions"] == len(y) > 0
    assert scored[0]["mse"] == pytest.approx(float(np.mean((p - y) ** 2)), abs=1e-6)
    assert scored[0]["bias"] == pytest.approx(float(p.mean() - y.mean()), abs=1e-6)
    assert scored[0]["r2"] == pytest.approx(1 - float(np.mean((p - y) ** 2)) / float(np.var(y)),
                                            abs=1e-5)
    assert bench.main([*args, "--at", "target_score=50"]) == 0  # the same check: replaced
    assert len(results.read_text().splitlines()) == 2
    with pytest.raises(SystemExit):
        bench.main([*args, "--at", "target_score"])


def assert_head_is_the_critic(run_dir: Path, critic, env_id: str, gamma: float,
                              **options: object) -> None:
    """The policy a training run saved carries the run's critic as its value head: on the
    observation, its values equal ``critic`` (the torch critic, observation -> ``(N, 1)``) on
    the same observations, and its target, saved in the architecture, names the discounted
    return."""
    import torch

    policy = cahoots_envs.load_policy(str(run_dir / "policy.safetensors"), env_id, options)
    obs = observations(env_id, 40, **options)
    with torch.no_grad():
        want = critic(torch.as_tensor(obs))[:, 0].numpy()
    assert policy.has_values and policy.value_head.input == "observation"
    np.testing.assert_allclose(policy.values(obs), want, rtol=1e-5, atol=1e-6)
    head = json.loads((run_dir / "policy.json").read_text())["architecture"]["value_head"]
    assert head["target"] == policy.value_head.target
    assert head["target"].startswith(f"discounted return, gamma={gamma}, reward_mode=")
