"""Policies: the protocol, built-ins on every env, saved-policy round trips and every load error."""

from __future__ import annotations

import itertools
import json
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from safetensors import numpy as st_numpy
from safetensors import safe_open

import cahoots_envs
from cahoots_envs import IncompatiblePolicyError
from cahoots_envs.policies import (
    MLPPolicy,
    Policy,
    PolicyFileError,
    RandomPolicy,
    UntrustedPolicyError,
    list_policies,
    load_policy,
    read_metadata,
    save_policy,
)
from cahoots_envs.policies.envinfo import env_info
from cahoots_envs.policies.loading import builtin_specs
from cahoots_envs.policies.saved import METADATA_KEY
from cahoots_envs.registry import builtin_games

ENVS = cahoots_envs.list_envs()
# the observation policies; the search bot (an information-set policy) plays every env in
# tests/test_search.py, and its act() refusing an observation is tested there too
BUILTIN_CASES = [(e, s) for e in ENVS for s in builtin_specs(e) if s != "search"]


def test_every_env_lists_a_search_bot() -> None:
    for spec in builtin_games():
        assert builtin_specs(spec.env_id) == ["random", "heuristic", "search"]
KC = "cahoots_envs/kansas_city-v1"


def collect(env_id: str, policy: Policy, seed: int = 0, **options):
    """Play one game with ``policy`` in every seat; return the observations and masks seen."""
    env = cahoots_envs.make(env_id, **options)
    env.reset(seed=seed)
    observations, masks = [], []
    for agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        action = policy.act(obs["observation"], obs["action_mask"])
        assert isinstance(action, int)
        assert obs["action_mask"][action] == 1, f"{policy} chose a masked-out action"
        observations.append(obs["observation"])
        masks.append(obs["action_mask"])
        env.step(action)
    return np.array(observations), np.array(masks)


def random_mlp(env_id: str, hidden=(16,), seed: int = 0, **options) -> MLPPolicy:
    info = env_info(env_id, options)
    sizes = [info.layout.size, *hidden, info.num_actions]
    rng = np.random.default_rng(seed)
    weights = [(rng.normal(0, 0.3, (b, a)).astype(np.float32), rng.normal(0, 0.1, b).astype(np.float32))
               for a, b in itertools.pairwise(sizes)]
    return MLPPolicy(weights)


# ---- protocol and built-ins ------------------------------------------------------------------
def test_protocol_is_runtime_checkable() -> None:
    assert isinstance(RandomPolicy(0), Policy)
    assert isinstance(random_mlp(KC), Policy)
    assert not isinstance(object(), Policy)


@pytest.mark.parametrize("env_id,spec", BUILTIN_CASES, ids=[f"{e.split('/')[1]}-{s}" for e, s in BUILTIN_CASES])
def test_builtin_plays_every_env(env_id: str, spec: str) -> None:
    policy = load_policy(spec, env_id, seed=3)
    assert isinstance(policy, Policy)
    observations, masks = collect(env_id, policy)
    actions = policy.act_batch(observations, masks)
    assert actions.shape == (len(observations),)
    assert masks[np.arange(len(masks)), actions].all(), "act_batch chose a masked-out action"


def test_random_is_seeded_and_uniform() -> None:
    masks = np.zeros((2000, 10), np.int8)
    masks[:, [2, 5, 7]] = 1
    obs = np.zeros((2000, 4), np.float32)
    a = RandomPolicy(1).act_batch(obs, masks)
    assert (a == RandomPolicy(1).act_batch(obs, masks)).all()
    counts = np.bincount(a, minlength=10)
    assert set(np.flatnonzero(counts)) == {2, 5, 7}
    assert counts[[2, 5, 7]].min() > 550
    assert RandomPolicy(2).act(obs[0], masks[0]) in (2, 5, 7)
    with pytest.raises(ValueError, match="all-zero"):
        RandomPolicy(0).act(obs[0], np.zeros(10, np.int8))


def test_mlp_masks_and_samples() -> None:
    policy = random_mlp(KC)
    observations, masks = collect(KC, RandomPolicy(0))
    greedy = policy.act_batch(observations, masks)
    assert masks[np.arange(len(masks)), greedy].all()
    sampler = MLPPolicy([(w.T, b) for w, b in policy.layers], deterministic=False, seed=4)
    sampled = sampler.act_batch(observations, masks)
    assert masks[np.arange(len(masks)), sampled].all()
    assert (sampled != greedy).any()


# ---- save / load -----------------------------------------------------------------------------
def test_round_trip_gives_identical_actions(tmp_path: Path) -> None:
    policy = random_mlp(KC, hidden=(32, 16))
    meta = save_policy(policy, tmp_path / "p.safetensors", KC, training={"seed": 5},
                       evaluation={"random": {"win_rate": 0.5}}, name="test")
    for key in ("env_id", "env_version", "game_options", "layout_fingerprint", "num_actions",
                "observation_size", "architecture", "training", "evaluation", "package_version"):
        assert key in meta
    assert meta["package_version"] == cahoots_envs.__version__
    assert json.loads((tmp_path / "p.json").read_text()) == meta
    loaded = load_policy(str(tmp_path / "p.safetensors"), KC)
    assert loaded.metadata == meta
    observations, masks = collect(KC, RandomPolicy(1))
    assert (loaded.act_batch(observations, masks) == policy.act_batch(observations, masks)).all()
    # the .json path, the folder (policy.safetensors) and env_id=None all load the same policy
    assert load_policy(str(tmp_path / "p.json"), KC).act(observations[0], masks[0]) == policy.act(
        observations[0], masks[0])
    save_policy(policy, tmp_path / "run" / "policy", KC)
    assert isinstance(load_policy(str(tmp_path / "run"), None), MLPPolicy)


def test_format_is_standard_safetensors(tmp_path: Path) -> None:
    policy = random_mlp(KC)
    save_policy(policy, tmp_path / "p.safetensors", KC)
    tensors = st_numpy.load_file(str(tmp_path / "p.safetensors"))
    assert set(tensors) == {"layers.0.weight", "layers.0.bias", "layers.1.weight", "layers.1.bias"}


def _rewrite_metadata(src: Path, dst: Path, **changes) -> None:
    with safe_open(str(src), framework="np") as f:
        tensors = {k: f.get_tensor(k) for k in f.keys()}  # noqa: SIM118
        meta = json.loads(f.metadata()[METADATA_KEY])
    meta.update(changes)
    st_numpy.save_file(tensors, str(dst), metadata={METADATA_KEY: json.dumps(meta)})


@pytest.fixture
def saved(tmp_path: Path) -> Path:
    path = tmp_path / "p.safetensors"
    save_policy(random_mlp(KC), path, KC)
    return path


def test_wrong_env_is_refused(saved: Path) -> None:
    other = next((e for e in ENVS if e != KC), None)
    if other is not None:
        with pytest.raises(IncompatiblePolicyError, match="trained on cahoots_envs/kansas_city-v1"):
            load_policy(str(saved), other)
    with pytest.raises(IncompatiblePolicyError, match="num_players=4 in the policy but num_players=5"):
        load_policy(str(saved), KC, {"num_players": 5})
    # hands is a setting a policy may play across (tests/test_policy_options.py); reward and
    # render mode do not change what a seat sees or may do
    assert load_policy(str(saved), KC, {"hands": 2}).option_differences == {"hands": (3, 2)}
    assert load_policy(str(saved), KC, {"reward_mode": "points"}).option_differences == {}


def test_wrong_fingerprint_version_and_action_count(saved: Path, tmp_path: Path) -> None:
    bad = tmp_path / "fp.safetensors"
    _rewrite_metadata(saved, bad, layout_fingerprint="0123456789abcdef")
    with pytest.raises(IncompatiblePolicyError, match="layout fingerprint 0123456789abcdef"):
        load_policy(str(bad), KC)
    _rewrite_metadata(saved, bad, num_actions=99)
    with pytest.raises(IncompatiblePolicyError, match="action count 99 != 485"):
        load_policy(str(bad), KC)
    _rewrite_metadata(saved, bad, env_version=7)
    with pytest.raises(IncompatiblePolicyError, match="env version 7"):
        load_policy(str(bad), KC)
    _rewrite_metadata(saved, bad, architecture={"type": "mlp", "layer_sizes": [711, 8, 485],
                                                "activation": "tanh"})
    with pytest.raises(PolicyFileError, match="do not match the declared"):
        load_policy(str(bad), KC)


def test_network_of_the_wrong_size_cannot_be_saved(tmp_path: Path) -> None:
    with pytest.raises(IncompatiblePolicyError, match="485 actions"):
        save_policy(MLPPolicy([(np.zeros((3, 711), np.float32), np.zeros(3, np.float32))]),
                    tmp_path / "x", KC)


@pytest.mark.parametrize("cut", [0, 5, 40, -10])
def test_corrupt_or_truncated_file(saved: Path, tmp_path: Path, cut: int) -> None:
    data = saved.read_bytes()
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(data[:cut])
    with pytest.raises(PolicyFileError, match="not a valid safetensors file|truncated"):
        load_policy(str(bad), KC)


def test_garbage_and_foreign_files(tmp_path: Path) -> None:
    junk = tmp_path / "junk.safetensors"
    junk.write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00{not json at all")
    with pytest.raises(PolicyFileError, match="not JSON"):
        load_policy(str(junk), KC)
    plain = tmp_path / "plain.safetensors"
    st_numpy.save_file({"w": np.zeros(2, np.float32)}, str(plain))
    with pytest.raises(PolicyFileError, match="without cahoots policy metadata"):
        load_policy(str(plain), KC)
    with pytest.raises(ValueError, match="not 'random', 'heuristic'"):
        load_policy(str(tmp_path / "missing.safetensors"), KC)
    with pytest.raises(ValueError, match="no zoo policy 'nope'"):
        load_policy("zoo:nope", KC)


def _raw_parts(path: Path) -> tuple[dict, bytes]:
    data = path.read_bytes()
    size = int.from_bytes(data[:8], "little")
    return json.loads(data[8 : 8 + size]), data[8 + size :]


def _write_raw(path: Path, header: object, body: bytes, header_text: bytes | None = None) -> None:
    text = json.dumps(header).encode() if header_text is None else header_text
    path.write_bytes(len(text).to_bytes(8, "little") + text + body)


def _malformed(saved: Path, bad: Path, kind: str) -> None:
    """Write to ``bad`` a copy of the policy file ``saved`` spoilt in one way."""
    header, body = _raw_parts(saved)
    first = next(k for k in sorted(header) if k != "__metadata__")
    entry = header[first]
    begin, end = entry["data_offsets"]
    if kind == "trailing bytes":
        _write_raw(bad, header, body + b"\0" * 8)
    elif kind == "truncated body":
        _write_raw(bad, header, body[:-4])
    elif kind == "overlapping ranges":
        header[first]["data_offsets"] = [begin, end]
        other = next(k for k in sorted(header) if k not in ("__metadata__", first))
        header[other]["data_offsets"] = [begin, begin + header[other]["data_offsets"][1]
                                         - header[other]["data_offsets"][0]]
        _write_raw(bad, header, body)
    elif kind == "float dimension":
        entry["shape"] = [float(s) for s in entry["shape"]]
        _write_raw(bad, header, body)
    elif kind == "negative offset":
        entry["data_offsets"] = [-4, end]
        _write_raw(bad, header, body)
    elif kind == "shape and bytes disagree":
        entry["shape"] = [entry["shape"][0] + 1, *entry["shape"][1:]]
        _write_raw(bad, header, body)
    elif kind == "unknown dtype":
        entry["dtype"] = "Q7"
        _write_raw(bad, header, body)
    elif kind == "bf16 dtype":
        entry["dtype"] = "BF16"
        _write_raw(bad, header, body)
    elif kind == "integer weights":
        n = int(np.prod(entry["shape"]))
        entry["dtype"] = "I32" if (end - begin) == 4 * n else "I16"
        _write_raw(bad, header, body)
    elif kind == "header is a list":
        _write_raw(bad, [header], body)
    elif kind == "deeply nested header":
        _write_raw(bad, None, body, b"[" * 100_000 + b"]" * 100_000)
    elif kind == "metadata value not a string":
        header["__metadata__"]["extra"] = 5
        _write_raw(bad, header, body)
    elif kind == "policy metadata not JSON":
        header["__metadata__"][METADATA_KEY] = "{not json"
        _write_raw(bad, header, body)
    elif kind == "policy metadata not an object":
        header["__metadata__"][METADATA_KEY] = "[1, 2]"
        _write_raw(bad, header, body)
    elif kind == "architecture missing":
        meta = json.loads(header["__metadata__"][METADATA_KEY])
        del meta["architecture"]
        header["__metadata__"][METADATA_KEY] = json.dumps(meta)
        _write_raw(bad, header, body)
    elif kind == "layer sizes not ints":
        meta = json.loads(header["__metadata__"][METADATA_KEY])
        meta["architecture"]["layer_sizes"] = {"a": 1}
        header["__metadata__"][METADATA_KEY] = json.dumps(meta)
        _write_raw(bad, header, body)
    elif kind == "header length past the end":
        bad.write_bytes((10**6).to_bytes(8, "little") + b"{}")
    elif kind == "huge header length":
        bad.write_bytes((2**63).to_bytes(8, "little") + b"{}")
    elif kind == "header not utf-8":
        _write_raw(bad, None, body, b'{"\xff\xfe": 1}')
    else:
        raise AssertionError(kind)


MALFORMED = ["trailing bytes", "truncated body", "overlapping ranges", "float dimension",
             "negative offset", "shape and bytes disagree", "unknown dtype", "bf16 dtype",
             "integer weights", "header is a list", "deeply nested header",
             "metadata value not a string", "policy metadata not JSON",
             "policy metadata not an object", "architecture missing", "layer sizes not ints",
             "header length past the end", "huge header length", "header not utf-8"]


@pytest.mark.parametrize("kind", MALFORMED)
def test_malformed_files_raise_policy_file_error_naming_the_file(
        saved: Path, tmp_path: Path, kind: str) -> None:
    bad = tmp_path / "bad.safetensors"
    _malformed(saved, bad, kind)
    for load in (lambda: load_policy(str(bad), KC), lambda: load_policy(str(bad), None)):
        with pytest.raises(PolicyFileError) as err:
            load()
        assert str(bad) in str(err.value), err.value


def test_non_finite_weights_are_refused_at_save_and_load(saved: Path, tmp_path: Path) -> None:
    policy = random_mlp(KC)
    policy.layers[1][1][3] = np.nan
    with pytest.raises(PolicyFileError, match=r"nan\.safetensors.*layers\.1\.bias.*NaN"):
        save_policy(policy, tmp_path / "nan.safetensors", KC)
    assert not (tmp_path / "nan.safetensors").exists() and not (tmp_path / "nan.json").exists()
    big = random_mlp(KC)
    big.layers[0][0][0, 0] = 1e6  # fine in float32, inf in float16
    save_policy(big, tmp_path / "big32.safetensors", KC)
    with pytest.raises(PolicyFileError, match=r"big16\.safetensors.*layers\.0\.weight.*inf"):
        save_policy(big, tmp_path / "big16.safetensors", KC, weights_dtype="float16")
    # a file with non-finite weights written by other means
    with safe_open(str(saved), framework="np") as f:
        tensors = {k: f.get_tensor(k) for k in f.keys()}  # noqa: SIM118
        metadata = f.metadata()
    for value in (np.nan, np.inf, -np.inf):
        spoilt = dict(tensors, **{"layers.0.weight": tensors["layers.0.weight"].copy()})
        spoilt["layers.0.weight"][2, 5] = value
        bad = tmp_path / "spoilt.safetensors"
        st_numpy.save_file(spoilt, str(bad), metadata=metadata)
        with pytest.raises(PolicyFileError, match=r"spoilt\.safetensors.*layers\.0\.weight"):
            load_policy(str(bad), KC)


def test_reading_does_not_hold_the_file_twice(tmp_path: Path) -> None:
    import tracemalloc

    from cahoots_envs.policies.saved import read_policy_file

    path = tmp_path / "wide.safetensors"
    save_policy(random_mlp(KC, hidden=(1024, 1024)), path, KC)
    size = path.stat().st_size
    assert size > 5_000_000
    tracemalloc.start()
    try:
        tensors, _ = read_policy_file(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert sum(t.nbytes for t in tensors.values()) > 0.95 * size
    assert peak < 1.3 * size, f"peak {peak / size:.2f}x the file size"


@pytest.mark.parametrize("name", ["../../x", "/abs/x", "a/b", "..", "", "kansas_city.json",
                                  "a\\b", "./kansas_city"])
def test_zoo_names_are_plain(tmp_path: Path, name: str) -> None:
    outside = tmp_path / "x.safetensors"
    save_policy(random_mlp(KC), outside, KC)
    if name == "/abs/x":
        name = str(tmp_path / "x")  # today's escape: an absolute path after zoo:
    elif name == "../../x":
        zoo = Path(cahoots_envs.__file__).parent / "policies" / "zoo"
        name = str(Path("../" * len(zoo.parts)) / str(tmp_path / "x").lstrip("/"))
    with pytest.raises(ValueError, match="zoo entries: zoo:") as err:
        load_policy(f"zoo:{name}", KC)
    assert "plain name" in str(err.value) or "no zoo policy" in str(err.value)
    assert "zoo:kansas_city" in str(err.value)


def test_pickles_are_refused(tmp_path: Path) -> None:
    evil = tmp_path / "evil.safetensors"
    evil.write_bytes(pickle.dumps({"layers": [1, 2, 3]}))
    with pytest.raises(UntrustedPolicyError, match="pickle"):
        load_policy(str(evil), KC)
    torch = pytest.importorskip("torch")
    pt = tmp_path / "model.pt"
    torch.save({"w": torch.zeros(3)}, pt)
    with pytest.raises(UntrustedPolicyError, match="torch.save archive"):
        load_policy(str(pt), KC)


def test_sb3_zip_needs_trusted_and_matches_the_export(tmp_path: Path) -> None:
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from cahoots_envs.policies.saved import export_sb3_zip
    from cahoots_envs.training import SeatEnv

    env = SeatEnv(KC, opponents="random", seed=0)
    model = MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=16, seed=0,
                        policy_kwargs={"net_arch": [16]}, device="cpu")
    mlp = MLPPolicy.from_sb3(model.policy)
    meta = save_policy(mlp, tmp_path / "p.safetensors", KC)
    export_sb3_zip(model, tmp_path / "p_sb3.zip", meta)
    with pytest.raises(UntrustedPolicyError, match="trusted=True"):
        load_policy(str(tmp_path / "p_sb3.zip"), KC)
    sb3 = load_policy(str(tmp_path / "p_sb3.zip"), KC, trusted=True)
    observations, masks = collect(KC, RandomPolicy(2))
    expected, _ = model.predict(observations, action_masks=masks > 0, deterministic=True)
    assert (sb3.act_batch(observations, masks) == expected).all()
    # the numpy network is the same actor as SB3's greedy policy
    assert (mlp.act_batch(observations, masks) == expected).all()
    with pytest.raises(IncompatiblePolicyError):
        load_policy(str(tmp_path / "p_sb3.zip"), KC, {"num_players": 5}, trusted=True)


# ---- load_policy specs and the zoo -------------------------------------------------------------
def test_specs() -> None:
    assert isinstance(cahoots_envs.load_policy("random", KC, seed=1), RandomPolicy)
    assert isinstance(cahoots_envs.load_policy("random"), RandomPolicy)
    with pytest.raises(ValueError, match="needs the env_id"):
        load_policy("heuristic")
    assert cahoots_envs.list_policies() == list_policies()


def test_an_overlong_spec_is_one_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    """A spec the file system cannot look up (a name over 255 characters) is a bad spec: one
    line naming what is allowed, from the API and from the command line."""
    from cahoots_envs.cli import main

    long = "x" * 300
    for spec in (long, f"zoo:{long}", f"search:{long}", f"search@worlds=2:runs/{long}/p.json"):
        with pytest.raises(ValueError, match=r"\.\.\. \(\d+ characters\)") as err:
            load_policy(spec, KC)
        assert "\n" not in str(err.value) and len(str(err.value)) < 300
        assert "'heuristic', 'zoo:<name>'" in str(err.value) or "zoo entries" in str(err.value)
    for argv in (["eval", "kansas_city", long, "heuristic", "--games", "1", "--workers", "1"],
                 ["play", "kansas_city", "--opponents", long]):
        assert main(argv) == 2
        out = capsys.readouterr().err
        assert out.count("\n") == 1 and "is not 'random', 'heuristic'" in out, out


def test_an_empty_spec_is_a_bad_spec_not_a_missing_file() -> None:
    """``Path("")`` is the current folder: an empty spec used to read as a saved policy there
    ("policy.safetensors: no such policy file")."""
    for spec in ("", "  "):
        with pytest.raises(ValueError, match=r"^policy spec is empty: give 'random', "):
            load_policy(spec, KC)


ZOO = list_policies()


@pytest.mark.parametrize("entry", ZOO, ids=[e["name"] for e in ZOO])
def test_zoo_policies_load_and_play(entry: dict) -> None:
    for key in ("env_id", "game_options", "layout_fingerprint", "training", "evaluation", "spec"):
        assert key in entry
    assert "command" in entry["training"]
    policy = load_policy(entry["spec"], entry["env_id"], entry["game_options"], seed=0)
    collect(entry["env_id"], policy, **entry["game_options"])
    assert (Path(cahoots_envs.__file__).parent / "policies" / "zoo" /
            f"{entry['name']}.safetensors").stat().st_size < 2_000_000


def test_every_game_has_its_zoo_policy() -> None:
    names = {e["name"] for e in ZOO}
    missing = [e for e in ENVS if e.split("/")[1].split("-v")[0] not in names]
    if missing:
        pytest.skip(f"zoo policies still missing for {missing}")
    for e in ENVS:
        game = e.split("/")[1].split("-v")[0]
        load_policy(f"zoo:{game}", e)


def test_saved_policies_load_without_torch(saved: Path) -> None:
    code = (
        "import sys; sys.modules['torch'] = None; sys.modules['stable_baselines3'] = None\n"
        "import cahoots_envs, numpy as np\n"
        f"p = cahoots_envs.load_policy({str(saved)!r}, 'kansas_city-v1')\n"
        "env = cahoots_envs.make('kansas_city-v1'); env.reset(seed=0)\n"
        "o = env.observe(env.agent_selection)\n"
        "print(p.act(o['observation'], o['action_mask']))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert out.returncode == 0, out.stderr
    assert read_metadata(saved)["env_id"] == KC


@pytest.mark.parametrize("change", [
    {"num_players": 1}, {"num_players": 2}, {"num_players": -1}, {"num_players": True},
    {"num_players": 0}, {"num_players": 4}, {"num_players": 5}, {"num_players": 10**9},
    {"num_players": "3"}, {"size": 12}, {"size": 13.0}, {"game": "cahoots_tricks", "name": "tactics"},
])
def test_computed_features_are_checked_against_the_game_at_load(tmp_path: Path,
                                                                 change: dict) -> None:
    """The coop zoo network computes its ``lookahead`` features for 3 players: a record that
    says otherwise is refused when the file loads (once, every difference listed), not trusted
    to play with wrong features or to fail at the first move."""
    zoo = Path(cahoots_envs.__file__).parent / "policies" / "zoo" / "cahoots_coop.safetensors"
    with safe_open(str(zoo), framework="np") as f:
        architecture = json.loads(f.metadata()[METADATA_KEY])["architecture"]
    architecture["computed_features"].update(change)
    bad = tmp_path / "bad.safetensors"
    _rewrite_metadata(zoo, bad, architecture=architecture)
    key, value = next(iter(change.items()))
    with pytest.raises(IncompatiblePolicyError, match=f"computed_features {key} {value!r} != "):
        load_policy(str(bad), "cahoots_coop", {"num_players": 3})
    assert load_policy(str(zoo), "cahoots_coop", {"num_players": 3}).metadata


def test_every_computed_features_difference_is_listed(tmp_path: Path) -> None:
    zoo = Path(cahoots_envs.__file__).parent / "policies" / "zoo" / "cahoots_coop.safetensors"
    with safe_open(str(zoo), framework="np") as f:
        architecture = json.loads(f.metadata()[METADATA_KEY])["architecture"]
    architecture["computed_features"].update(game="cahoots_tricks", name="tactics",
                                             num_players=0)
    bad = tmp_path / "bad.safetensors"
    _rewrite_metadata(zoo, bad, architecture=architecture)
    with pytest.raises(IncompatiblePolicyError) as caught:
        load_policy(str(bad), "cahoots_coop", {"num_players": 3})
    message = str(caught.value)
    assert "\n" not in message
    for part in ("game 'cahoots_tricks' != 'cahoots_coop'", "num_players 0 != 3",
                 "'tactics' are not offered by cahoots_coop"):
        assert part in message
