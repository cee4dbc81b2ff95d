"""The action-scoring network: numpy and torch agree, it saves and loads, plays only legal
moves, learns a small problem, and refuses a corrupt file with one clear line."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from safetensors import safe_open
from safetensors.numpy import save_file

from cahoots_envs.policies.envinfo import env_info
from cahoots_envs.policies.loading import load_policy
from cahoots_envs.policies.saved import (
    METADATA_KEY,
    PolicyFileError,
    read_policy_file,
    save_policy,
)
from cahoots_envs.policies.scoring import ActionScoringPolicy
from cahoots_envs.training.imitation import Demonstrations
from cahoots_envs.training.scoring import ScoringNet, clone_action_scorer, export_policy

ENV = "cahoots_coop-v1"
OPTIONS = {"num_players": 3, "difficulty": "normal"}
SEGMENTS = ["my_plays", "play_completes"]


def small_net(seed: int = 0, direct: bool = False) -> tuple[ScoringNet, list[int]]:
    info = env_info(ENV, OPTIONS)
    offsets = [info.layout.offsets[s] for s in SEGMENTS]
    torch.manual_seed(seed)
    net = ScoringNet(info.layout.size, info.num_actions, offsets, (32, 16), 8, (16,), "relu",
                     direct)
    with torch.no_grad():  # nonzero biases and a visible embedding, so every term counts
        for p in net.parameters():
            p.add_(0.1 * torch.randn_like(p))
    return net, offsets


def real_batch(n: int = 64, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    from cahoots_envs.vector import make as make_vector

    info = env_info(ENV, OPTIONS)
    vec = make_vector(ENV, n, **{k: v for k, v in info.options.items() if k != "render_mode"})
    vec.reset(seed=seed)
    return vec.engine.obs.copy().astype(np.float32), vec.engine.mask.astype(np.bool_).copy()


def test_segments_are_one_entry_per_action_id() -> None:
    # my_plays[kind * PILES + pile] is 1 exactly where playing that card on that pile is legal
    obs, masks = real_batch(32)
    at = env_info(ENV, OPTIONS).layout.offsets["my_plays"]
    np.testing.assert_array_equal(obs[:, at:at + masks.shape[1]] > 0, masks)


@pytest.mark.parametrize("activation,direct", [("relu", False), ("tanh", False), ("relu", True)])
def test_numpy_and_torch_logits_agree(activation: str, direct: bool) -> None:
    info = env_info(ENV, OPTIONS)
    offsets = [info.layout.offsets[s] for s in SEGMENTS]
    torch.manual_seed(3)
    net = ScoringNet(info.layout.size, info.num_actions, offsets, (32, 16), 8, (16, 8), activation,
                     direct)
    policy = export_policy(net, SEGMENTS, offsets)
    obs, _ = real_batch(64)
    with torch.no_grad():
        want = net(torch.as_tensor(obs)).numpy()
    assert want.shape == (64, info.num_actions)
    np.testing.assert_allclose(policy.logits(obs), want, atol=1e-5)


@pytest.mark.parametrize("direct", [False, True])
def test_save_load_round_trip_and_legal_moves(tmp_path: Path, direct: bool) -> None:
    net, offsets = small_net(direct=direct)
    policy = export_policy(net, SEGMENTS, offsets)
    meta = save_policy(policy, tmp_path / "p.safetensors", ENV, OPTIONS, name="scorer")
    assert meta["architecture"]["type"] == "action_scoring"
    assert meta["architecture"]["action_segments"] == SEGMENTS
    assert meta["architecture"]["direct"] is direct
    loaded = load_policy(str(tmp_path / "p.safetensors"), ENV, OPTIONS)
    assert isinstance(loaded, ActionScoringPolicy)
    obs, masks = real_batch(128, seed=4)
    np.testing.assert_array_equal(loaded.logits(obs), policy.logits(obs))
    actions = loaded.act_batch(obs, masks)
    np.testing.assert_array_equal(actions, policy.act_batch(obs, masks))
    assert masks[np.arange(len(actions)), actions].all()
    # the scores favour illegal moves: masking must still keep them out, greedy and sampled
    bad = ~masks & (np.arange(masks.shape[1]) % 3 == 0)
    rigged = ActionScoringPolicy.from_tensors(policy.tensors(), policy.architecture())
    rigged.logits = lambda o, m=None: np.where(bad, 50.0, 0.0).astype(np.float32)  # type: ignore[method-assign]
    sampler = ActionScoringPolicy.from_tensors(policy.tensors(), policy.architecture(),
                                               deterministic=False, seed=2)
    for p in (rigged, sampler):
        chosen = p.act_batch(obs, masks)
        assert masks[np.arange(len(chosen)), chosen].all()
    assert loaded.act(obs[0], masks[0]) == actions[0]
    float16 = save_policy(policy, tmp_path / "h.safetensors", ENV, OPTIONS, weights_dtype="float16")
    assert float16["architecture"]["weights_dtype"] == "float16"
    assert isinstance(load_policy(str(tmp_path / "h.safetensors"), ENV, OPTIONS),
                      ActionScoringPolicy)


def synthetic(n: int, seed: int) -> Demonstrations:
    """The teacher plays the legal move whose play_completes entry is largest (ties: all of
    them); the rest of the observation is zero."""
    info = env_info(ENV, OPTIONS)
    rng = np.random.default_rng(seed)
    a = info.num_actions
    obs = np.zeros((n, info.layout.size), np.float32)
    masks = rng.random((n, a)) < 0.15
    masks[np.arange(n), rng.integers(a, size=n)] = True
    completes = np.where(masks, rng.integers(0, 3, size=(n, a)) / 4, 0).astype(np.float32)
    obs[:, info.layout.slice("my_plays")] = masks
    obs[:, info.layout.slice("play_completes")] = completes
    best = np.where(masks, completes, -1.0)
    targets = best == best.max(axis=1, keepdims=True)
    return Demonstrations(obs, masks, targets.argmax(1), np.zeros(n, np.float32), targets)


def small_clone(demos: Demonstrations, epochs: int) -> tuple[ActionScoringPolicy, dict]:  # type: ignore[type-arg]
    return clone_action_scorer(demos, ENV, OPTIONS, SEGMENTS, trunk_sizes=(16,),
                               embedding_size=4, head_sizes=(16,), epochs=epochs,
                               batch_size=128, lr=3e-3, seed=1, log=None)


def test_clone_learns_a_synthetic_problem() -> None:
    policy, stats = small_clone(synthetic(2048, seed=0), epochs=8)
    assert stats["agreement"] > 0.95
    fresh = synthetic(1024, seed=1)  # decisions it never saw
    assert fresh.targets is not None
    chance = float((fresh.targets.sum(1) / fresh.masks.sum(1)).mean())
    chosen = policy.act_batch(fresh.observations, fresh.masks)
    assert fresh.targets[np.arange(len(chosen)), chosen].mean() > 0.95 > chance + 0.2
    assert [row["epoch"] for row in stats["epochs"]] == list(range(1, 9))


def test_clone_is_deterministic_for_a_seed() -> None:
    demos = synthetic(256, seed=2)
    (one, one_stats), (two, two_stats) = small_clone(demos, 1), small_clone(demos, 1)
    assert one_stats["loss"] == two_stats["loss"]
    np.testing.assert_array_equal(one.logits(demos.observations), two.logits(demos.observations))


def test_clone_refuses_a_segment_the_layout_lacks() -> None:
    info = env_info(ENV, OPTIONS)
    demos = Demonstrations(np.zeros((4, info.layout.size), np.float32),
                           np.ones((4, info.num_actions), np.bool_), np.zeros(4, np.int64),
                           np.zeros(4, np.float32))
    with pytest.raises(ValueError, match="'nope' is not in the") as exc:
        clone_action_scorer(demos, ENV, OPTIONS, ["nope"], epochs=1, log=None)
    assert "\n" not in str(exc.value)
    with pytest.raises(ValueError, match="not one per action"):
        clone_action_scorer(demos, ENV, OPTIONS, ["hand"], epochs=1, log=None)


def rewrite(path: Path, out: Path, change_arch=None, change_tensors=None) -> Path:  # type: ignore[no-untyped-def]
    with safe_open(str(path), framework="np") as f:
        meta = json.loads(f.metadata()[METADATA_KEY])
        tensors = {k: f.get_tensor(k) for k in f.keys()}  # noqa: SIM118
    if change_arch:
        change_arch(meta["architecture"])
    if change_tensors:
        change_tensors(tensors)
    save_file(tensors, str(out), metadata={METADATA_KEY: json.dumps(meta)})
    return out


def _set(key: str, value: object):  # type: ignore[no-untyped-def]
    return lambda arch: arch.__setitem__(key, value)


@pytest.mark.parametrize("change_arch,change_tensors,message", [
    (_set("action_segments", ["nope", "play_completes"]), None, "'nope' is not in the"),
    (_set("action_segments", ["hand", "play_completes"]), None, "not one per action"),
    (_set("action_segment_offsets", [0, 1]), None, "but the layout puts them at"),
    (_set("embedding_size", 9), None, "embedding.weight is"),
    (_set("trunk_sizes", [env_info(ENV, OPTIONS).layout.size, 32, 17]), None, "do not match the declared sizes"),
    (None, lambda t: t.__setitem__("head.0.weight", t["head.0.weight"][:, :-1]), "head layer 0"),
    (None, lambda t: t.pop("head.1.bias"), "head.1.weight or .bias missing"),
    (None, lambda t: t.__setitem__("extra", np.zeros(2, np.float32)), "unexpected tensors"),
    (None, lambda t: t.pop("direct.bias"), "direct.weight or .bias missing"),
    (_set("direct", False), None, "unexpected tensors"),
    (None, lambda t: t.__setitem__("direct.bias", t["direct.bias"][:-1]), "direct weight"),
    (_set("type", "transformer"), None, "architecture type 'transformer' unknown"),
])
def test_corrupt_architecture_is_refused(tmp_path: Path, change_arch, change_tensors,  # type: ignore[no-untyped-def]
                                         message: str) -> None:
    net, offsets = small_net(direct=True)
    good = tmp_path / "good.safetensors"
    save_policy(export_policy(net, SEGMENTS, offsets), good, ENV, OPTIONS)
    bad = rewrite(good, tmp_path / "bad.safetensors", change_arch, change_tensors)
    with pytest.raises(PolicyFileError, match=message) as exc:
        load_policy(str(bad), ENV, OPTIONS)
    assert "\n" not in str(exc.value)


def test_nonfinite_weights_are_refused(tmp_path: Path) -> None:
    net, offsets = small_net()
    good = tmp_path / "good.safetensors"
    save_policy(export_policy(net, SEGMENTS, offsets), good, ENV, OPTIONS)

    def poison(t: dict[str, np.ndarray]) -> None:
        t["embedding.weight"] = t["embedding.weight"].copy()
        t["embedding.weight"][0, 0] = np.nan

    bad = rewrite(good, tmp_path / "nan.safetensors", None, poison)
    with pytest.raises(PolicyFileError, match="non-finite"):
        read_policy_file(bad)


# ---- computed features (the cooperative game's look-ahead) ------------------------------------
def _computed_net(seed: int = 0) -> tuple[ScoringNet, list[int], dict]:  # type: ignore[type-arg]
    from cahoots_envs.games.cahoots_coop.features import LOOKAHEAD_FEATURES

    info = env_info(ENV, OPTIONS)
    offsets = [info.layout.offsets[s] for s in SEGMENTS]
    record = {"game": "cahoots_coop", "name": "lookahead", "size": len(LOOKAHEAD_FEATURES),
              "num_players": 3}
    torch.manual_seed(seed)
    net = ScoringNet(info.layout.size, info.num_actions, offsets, (16,), 4, (16,), "relu", True,
                     record["size"])
    with torch.no_grad():
        for p in net.parameters():
            p.add_(0.1 * torch.randn_like(p))
    return net, offsets, record


def test_computed_features_round_trip_and_the_torch_twin(tmp_path: Path) -> None:
    from cahoots_envs.policies.scoring import computed_features

    net, offsets, record = _computed_net()
    policy = export_policy(net, SEGMENTS, offsets, record)
    obs, masks = real_batch(48, seed=6)
    feats = computed_features(record)(obs, masks.shape[1])
    assert feats.shape == (48, masks.shape[1], record["size"]) and feats.any()
    with torch.no_grad():
        want = net(torch.as_tensor(obs), torch.as_tensor(feats)).numpy()
    np.testing.assert_allclose(policy.logits(obs), want, atol=1e-5)
    with pytest.raises(ValueError, match="reads 13 computed features"):
        net(torch.as_tensor(obs))
    meta = save_policy(policy, tmp_path / "c.safetensors", ENV, OPTIONS)
    assert meta["architecture"]["computed_features"] == record
    loaded = load_policy(str(tmp_path / "c.safetensors"), ENV, OPTIONS)
    np.testing.assert_array_equal(loaded.logits(obs), policy.logits(obs))
    # a feature set the game does not offer, or a malformed record: one line, nothing loaded
    for change, message in (({"name": "nope"}, "'nope' are not offered by cahoots_coop"),
                            ({"game": "kansas_city"}, "not offered by kansas_city")):
        bad = rewrite(tmp_path / "c.safetensors", tmp_path / "bad.safetensors",
                      change_arch=lambda a, c=change: a["computed_features"].update(c))
        with pytest.raises(PolicyFileError, match=message) as exc:
            load_policy(str(bad), ENV, OPTIONS)
        assert "\n" not in str(exc.value)
    bad = rewrite(tmp_path / "c.safetensors", tmp_path / "bad.safetensors",
                  change_arch=lambda a: a["computed_features"].pop("size"))
    with pytest.raises(PolicyFileError, match="lacks size"):
        load_policy(str(bad), ENV, OPTIONS)


def _check_legal_head(policy: ActionScoringPolicy, obs: np.ndarray, masks: np.ndarray) -> None:
    full = policy.logits(obs)
    legal = policy.logits(obs, masks)
    assert legal.shape == full.shape and legal.dtype == np.float32
    np.testing.assert_allclose(legal[masks], full[masks], rtol=1e-6, atol=1e-5)
    assert np.isneginf(legal[~masks]).all()
    want = np.where(masks, full, -np.inf).argmax(axis=1)
    np.testing.assert_array_equal(policy.act_batch(obs, masks), want)


@pytest.mark.parametrize("kind", ["segments", "direct", "computed"])
def test_the_head_scores_only_the_legal_moves_the_same(kind: str) -> None:
    """Acting runs the head on the legal (row, action) pairs alone: their scores are the full
    computation's, every other entry is -inf, and the moves chosen are the full scores' best;
    a mask of the wrong shape is one clear error."""
    if kind == "computed":
        net, offsets, record = _computed_net()
        policy = export_policy(net, SEGMENTS, offsets, record)
    else:
        net, offsets = small_net(direct=kind == "direct")
        policy = export_policy(net, SEGMENTS, offsets)
    obs, masks = real_batch(96, seed=7)
    assert (masks.sum(axis=1) < masks.shape[1] // 4).all()  # a few legal moves of many
    _check_legal_head(policy, obs, masks)
    _check_legal_head(policy, obs[:1], masks[:1])
    with pytest.raises(ValueError, match="action masks of shape"):
        policy.logits(obs, masks[:, :-1])


def test_the_tricks_zoo_network_scores_only_the_legal_moves_the_same() -> None:
    """The shipped Cahoots tricks network (no observation segments, computed features, no
    direct weights): its legal scores at real positions are the full computation's."""
    from cahoots_envs.vector import make as make_vector

    policy = load_policy("zoo:cahoots_tricks", "cahoots_tricks-v1")
    assert isinstance(policy, ActionScoringPolicy) and not policy.offsets
    vec = make_vector("cahoots_tricks-v1", 64)
    vec.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(6):
        obs = vec.engine.obs.copy().astype(np.float32)
        masks = vec.engine.mask.astype(np.bool_).copy()
        _check_legal_head(policy, obs, masks)
        picks = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        vec.step(picks)


def test_the_lookahead_features_hold_the_team_bots_score() -> None:
    """A linear read of the features, the bot's own weights, picks exactly the team bot's best
    plays (hidden hands, 2-4 players, both difficulties), or a play that wins at once where
    the bot takes one."""
    import cahoots_envs
    from cahoots_envs.games.cahoots_coop.bot import HeuristicPolicy
    from cahoots_envs.games.cahoots_coop.bot_weights import COMPLETE_NOW, REACH_SCALE, STRAND
    from cahoots_envs.games.cahoots_coop.features import LOOKAHEAD_FEATURES, lookahead
    from cahoots_envs.games.cahoots_coop.rules import CahootsCoop

    assert REACH_SCALE == 1.5
    at = {name: i for i, name in enumerate(LOOKAHEAD_FEATURES)}
    spec = cahoots_envs.game_spec("cahoots_coop")
    checked = 0
    for n, difficulty, seeds in ((2, "beginner", 3), (3, "normal", 4), (4, "normal", 2)):
        opts = spec.resolve_options({"num_players": n, "difficulty": difficulty})
        size, num_actions = CahootsCoop.layout(opts).size, CahootsCoop.num_actions(opts)
        for seed in range(seeds):
            game = CahootsCoop(opts, np.random.default_rng(seed), None)
            bot = HeuristicPolicy(opts, seed=seed)
            while not game.is_over:
                obs = np.zeros(size, np.float32)
                game.encode(game.current_player, obs)
                mask = np.zeros(num_actions, np.int8)
                mask[game.legal_actions()] = 1
                best = bot.best_actions(obs, mask)
                f = lookahead(obs[None], n, num_actions)[0].astype(np.float64)
                score = (COMPLETE_NOW * 4 * f[:, at["completes"]] + 10 * 4 * f[:, at["reach"]]
                         - STRAND * f[:, at["strand"]] + 1e6 * f[:, at["wins"]])
                score = np.where(mask > 0, score, -np.inf)
                picked = np.flatnonzero(score >= score.max() - 1e-4).tolist()
                if f[best[0], at["wins"]]:
                    assert f[picked[0], at["wins"]]
                else:
                    assert picked == best
                checked += 1
                game.apply(bot.act(obs, mask))
    assert checked > 400


@pytest.mark.parametrize("options", [
    {"num_players": 1, "difficulty": "beginner"},
    {"num_players": 2, "multicolour_mode": "disjunctive"},
    {"num_players": 3, "open_hands": True, "difficulty": "beginner"},
    {"num_players": 4, "num_goals": 6},
], ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_the_compiled_lookahead_features_equal_the_numpy_reference(options) -> None:
    """``features_kernel.lookahead_rows`` (what ``lookahead`` runs with numba) gives the numpy
    code's features on every decision of seeded games, random and the bot's moves mixed: the
    counts exactly, the reachabilities to 1e-6."""
    pytest.importorskip("numba")
    import cahoots_envs
    from cahoots_envs.games.cahoots_coop import features
    from cahoots_envs.games.cahoots_coop.rules import CahootsCoop

    spec = cahoots_envs.game_spec("cahoots_coop")
    opts = spec.resolve_options(options)
    n, size = opts["num_players"], CahootsCoop.layout(opts).size
    num_actions = CahootsCoop.num_actions(opts)
    rows = []
    rng = np.random.default_rng(0)
    for seed in range(3):
        game = CahootsCoop(opts, np.random.default_rng(seed), None)
        bot = spec.bot(opts, seed=seed)
        while not game.is_over:
            obs = np.zeros(size, np.float32)
            game.encode(game.current_player, obs)
            rows.append(obs)
            mask = np.zeros(num_actions, np.int8)
            mask[game.legal_actions()] = 1
            game.apply(int(rng.choice(game.legal_actions())) if rng.random() < 0.5
                       else bot.act(obs, mask))
    obs = np.stack(rows)
    compiled = features.lookahead(obs, n, num_actions)
    reference = features._lookahead_numpy(obs, CahootsCoop.layout(opts), n, num_actions)
    assert len(rows) > 50 and compiled.shape == reference.shape
    assert np.abs(compiled - reference).max() <= 1e-6
    exact = [0, 1, 8]  # completes, wins, dead: counts and their ratios
    assert np.array_equal(compiled[..., exact], reference[..., exact])
    # the plays of cards not in the hand (and talk) are zeros on both paths; the others are not
    from cahoots_envs.games.cahoots_coop.goals import KINDS, PILES

    at = CahootsCoop.layout(opts).offsets["hand"]
    held = np.repeat(obs[:, at:at + KINDS] > 0.5, PILES, axis=1)  # (N, plays)
    for f in (compiled, reference):
        assert not f[:, :KINDS * PILES][~held].any() and not f[:, KINDS * PILES:].any()
        assert f[:, :KINDS * PILES][held].any(axis=-1).mean() > 0.5
