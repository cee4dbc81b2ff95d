"""The envs as other RL libraries take them, each driven by its own published recipe, no glue:
numeric infos with the same keys at every step, a placeholder action for seats not on turn (the
parallel env's ``idle_action``), seat-env masks that are never empty and ride in ``info``
(CONTRACT §7: infos every client can stack, seats not on turn, rendering's mask sentence).

TorchRL's ``PettingZooWrapper`` (the AEC env, and the parallel env with ``idle_action``) runs its
``check_env_specs`` and a masked collector; Gymnasium's ``make_vec`` runs the seat ids in ``sync``
and ``async`` modes across episode ends with a masked random sampler; PettingZoo's own tests run
without a warning from this package's code.
"""

from __future__ import annotations

import warnings
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test, seed_test

import cahoots_envs
from cahoots_envs.core.parallel import PLACEHOLDER_ACTION
from cahoots_envs.registry import game_spec, seat_env_id
from cahoots_envs.training import SeatEnv

GAMES = ["kansas_city-v1", "texas_euchre-v1", "cahoots_tricks-v1", "cahoots_coop-v1"]
# TorchRL's per-step cost is high (about 8 ms a frame): the two games with the fewest seats
TORCHRL_CASES = [("cahoots_coop-v1", {"num_players": 2}), ("texas_euchre-v1", {"num_players": 3})]
FRAMES = 3000


def is_number(value: Any) -> bool:
    """A value every client can stack: a number (bools included) or a numeric array."""
    if isinstance(value, np.ndarray):
        return value.dtype.kind in "biuf"
    return isinstance(value, (bool, int, float, np.bool_, np.integer, np.floating))


def check_infos(infos: dict[str, dict[str, Any]], keys: set[str] | None) -> set[str]:
    """Every agent's info holds numbers only, with the same keys as ``keys`` (when given)."""
    for agent, info in infos.items():
        bad = {k: type(v).__name__ for k, v in info.items() if not is_number(v)}
        assert not bad, f"{agent}: non-numeric info values {bad}"
        if keys is None:
            keys = set(info)
        assert set(info) == keys, f"{agent}: info keys {sorted(info)} != {sorted(keys)}"
    assert keys is not None
    return keys


# ---- infos: numbers only, the same keys at every step ------------------------------------------
@pytest.mark.parametrize("env_id", GAMES)
def test_aec_infos_are_numbers_with_fixed_keys(env_id: str) -> None:
    env = cahoots_envs.make(env_id)
    names = env.unwrapped.phase_names
    assert names[-1] == "game_over" and len(set(names)) == len(names)
    assert env.unwrapped.phase is None  # before reset
    rng = np.random.default_rng(0)
    for seed in range(3):
        env.reset(seed=seed)
        keys = check_infos(env.infos, None)
        assert keys == {"score", "phase"}
        for agent in env.agent_iter():
            obs, _, term, trunc, info = env.last()
            check_infos({agent: info}, keys)
            assert names[info["phase"]] == env.unwrapped.phase
            env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        assert env.unwrapped.phase == "game_over"


@pytest.mark.parametrize("env_id", GAMES)
def test_parallel_infos_are_numbers_with_fixed_keys(env_id: str) -> None:
    par = cahoots_envs.make_parallel(env_id)
    rng = np.random.default_rng(1)
    for seed in range(3):
        observations, infos = par.reset(seed=seed)
        keys = check_infos(infos, None)
        assert keys == {"score", "phase", "active_agent", "deal_reward"}
        while par.agents:
            mover = par.agent_to_move
            assert all(i["active_agent"] == int(mover.split("_")[1]) for i in infos.values())
            assert par.phase_names[infos[mover]["phase"]] == par.phase
            mask = observations[mover]["action_mask"]
            observations, _, _, _, infos = par.step({mover: int(rng.choice(np.flatnonzero(mask)))})
            check_infos(infos, keys)
        assert all(i["active_agent"] == -1 for i in infos.values())
        assert all(par.phase_names[i["phase"]] == "game_over" for i in infos.values())


@pytest.mark.parametrize("env_id", GAMES)
def test_seat_env_infos_are_numbers_with_fixed_keys_and_carry_the_mask(env_id: str) -> None:
    env = SeatEnv(env_id, opponents="heuristic", seed=0)
    rng = np.random.default_rng(2)
    keys = None
    for _ in range(3):
        _, info = env.reset()
        keys = check_infos({"learner": info}, keys)
        assert len(env.opponent_names) == env.options["num_players"] - 1
        done = False
        while not done:
            mask = env.action_masks()
            assert np.array_equal(info["action_mask"].astype(bool), mask)
            assert info["action_mask"].dtype == np.int8
            _, _, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(mask))))
            done = term or trunc
            check_infos({"learner": info}, keys)
        # over: the placeholder mask, in info and from action_masks(), never empty
        assert np.flatnonzero(info["action_mask"]).tolist() == [PLACEHOLDER_ACTION]
        assert np.flatnonzero(env.action_masks()).tolist() == [PLACEHOLDER_ACTION]
        assert env.phase_names[info["phase"]] == "game_over"
        assert info["is_success"] == (info["outcome"] > 0)
    assert keys == {"learner_seat", "score", "phase", "outcome", "is_success", "illegal_action",
                    "action_mask"}


# ---- the parallel env's placeholder for seats not on turn ---------------------------------------
def test_idle_action_gives_seats_not_on_turn_one_placeholder_move_that_step_ignores() -> None:
    plain = cahoots_envs.make_parallel("texas_euchre-v1")
    idle = cahoots_envs.make_parallel("texas_euchre-v1", idle_action=3)
    assert idle.idle_action == 3 and plain.idle_action is None
    obs_plain, _ = plain.reset(seed=5)
    obs_idle, _ = idle.reset(seed=5)
    rng = np.random.default_rng(5)
    while plain.agents:
        mover = plain.agent_to_move
        assert idle.agent_to_move == mover
        for agent in plain.agents:
            # observations unchanged; only the masks of the seats not to move differ
            assert np.array_equal(obs_plain[agent]["observation"], obs_idle[agent]["observation"])
            if agent == mover:
                assert np.array_equal(obs_plain[agent]["action_mask"], obs_idle[agent]["action_mask"])
            else:
                assert not obs_plain[agent]["action_mask"].any()
                assert np.flatnonzero(obs_idle[agent]["action_mask"]).tolist() == [3]
        action = int(rng.choice(np.flatnonzero(obs_plain[mover]["action_mask"])))
        # every other agent plays its placeholder: ignored
        actions = {a: 3 for a in idle.agents} | {mover: action}
        obs_plain, r_plain, *_ = plain.step({mover: action})
        obs_idle, r_idle, *_ = idle.step(actions)
        assert r_plain == r_idle
    assert idle.agents == []
    # once the game is over every seat sees the placeholder: no mask is ever empty
    assert all(np.flatnonzero(o["action_mask"]).tolist() == [3] for o in obs_idle.values())
    assert plain.aec_env.game.scores == idle.aec_env.game.scores


def test_idle_action_through_every_factory_and_refused_where_it_has_no_meaning() -> None:
    from cahoots_envs import texas_euchre_v1

    assert texas_euchre_v1.parallel_env(idle_action=0).idle_action == 0
    with pytest.raises(ValueError, match=r"idle_action is an option of the parallel env only") as e:
        cahoots_envs.make("texas_euchre-v1", idle_action=0)
    assert "\n" not in str(e.value)
    for bad in (-1, 85, True, 1.0, "0"):
        with pytest.raises(ValueError, match=r"an action id from 0 to 84") as e:
            cahoots_envs.make_parallel("texas_euchre-v1", idle_action=bad)
        assert "\n" not in str(e.value)


# ---- PettingZoo's wording and its own tests, without a warning from this package ---------------
def test_agents_before_reset_in_pettingzoo_words() -> None:
    env = cahoots_envs.make("kansas_city-v1")
    for name in ("agents", "num_agents"):
        with pytest.raises(AttributeError, match=f"^{name} cannot be accessed before reset$"):
            getattr(env, name)
    for name in ("rewards", "infos", "agent_selection"):  # Python's own AttributeError
        with pytest.raises(AttributeError, match=name):
            getattr(env, name)
    assert not hasattr(env, "no_such_attribute")
    env.reset(seed=0)
    assert env.num_agents == 4 and env.max_num_agents == 4


@pytest.mark.parametrize("env_id", GAMES)
def test_pettingzoo_tests_raise_no_warning_from_our_code(env_id: str,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A warning is told apart by the module that called ``warnings.warn`` (with stacklevel=2 the
    recorded filename is the caller's caller, PettingZoo's test itself)."""
    import importlib
    import sys

    ours: list[str] = []
    warn = warnings.warn

    def spy(message: Any, *args: Any, **kwargs: Any) -> None:
        caller = sys._getframe(1).f_globals.get("__name__", "")
        if caller.split(".")[0] == "cahoots_envs":
            ours.append(f"{caller}: {message}")
        warn(message, *args, **kwargs)

    monkeypatch.setattr(warnings, "warn", spy)
    module = importlib.import_module("cahoots_envs." + env_id.replace("-", "_"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo's own remarks on Dict observations
        api_test(cahoots_envs.make(env_id), num_cycles=200)
        parallel_api_test(cahoots_envs.make_parallel(env_id), num_cycles=200)
        seed_test(module.env, num_cycles=20)
    assert not ours, ours
    # the spy sees our warnings: a misspelt reset option is still one
    env = cahoots_envs.make(env_id)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.reset(options={"dael": {}})
    assert ours and "dael" in ours[0]


# ---- TorchRL: PettingZooWrapper, check_env_specs and a masked collector ------------------------
def torchrl_masked_collect(base: Any, frames: int) -> tuple[int, int, int]:
    """TorchRL's own recipe for a masked PettingZoo env: wrap, check the specs, collect with a
    ``MaskedCategorical`` actor per group; (frames, illegal moves of acting agents, episode ends)."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("torchrl")
    from tensordict.nn import TensorDictModule, TensorDictSequential
    from torchrl.collectors import Collector
    from torchrl.envs import PettingZooWrapper
    from torchrl.envs.utils import check_env_specs
    from torchrl.modules import MaskedCategorical, ProbabilisticActor

    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="PettingZoo in TorchRL is tested")
        env = PettingZooWrapper(env=base, use_mask=True, categorical_actions=True,
                                return_state=True, seed=0)
    check_env_specs(env)
    actors = []
    for group in env.group_map:
        size = env.observation_spec[group, "observation", "observation"].shape[-1]
        n = env.full_action_spec[group, "action"].space.n
        net = TensorDictModule(torch.nn.Linear(size, n),
                               in_keys=[(group, "observation", "observation")],
                               out_keys=[(group, "logits")])
        actors.append(ProbabilisticActor(
            net, in_keys={"logits": (group, "logits"), "mask": (group, "action_mask")},
            out_keys=[(group, "action")], distribution_class=MaskedCategorical))
    policy = TensorDictSequential(*actors)
    collector = Collector(env, policy, frames_per_batch=FRAMES // 3, total_frames=FRAMES,
                          auto_register_policy_transforms=False)
    seen = illegal = ends = 0
    for batch in collector:
        seen += batch.numel()
        for group in env.group_map:
            action, mask = batch[group, "action"], batch[group, "action_mask"]
            acting = batch[group, "mask"].reshape(action.shape)
            legal = mask.gather(-1, action.unsqueeze(-1)).squeeze(-1)
            illegal += int((acting & ~legal).sum())
        ends += int(batch["next", "done"].sum())
    collector.shutdown()
    return seen, illegal, ends


@pytest.mark.parametrize(("env_id", "options"), TORCHRL_CASES)
def test_torchrl_takes_the_aec_env_as_it_is(env_id: str, options: dict[str, Any]) -> None:
    frames, illegal, ends = torchrl_masked_collect(cahoots_envs.make(env_id, **options), FRAMES)
    assert frames >= FRAMES and illegal == 0 and ends > 10


@pytest.mark.parametrize(("env_id", "options"), TORCHRL_CASES)
def test_torchrl_takes_the_parallel_env_with_the_placeholder_option(
        env_id: str, options: dict[str, Any]) -> None:
    base = cahoots_envs.make_parallel(env_id, idle_action=PLACEHOLDER_ACTION, **options)
    frames, illegal, ends = torchrl_masked_collect(base, FRAMES)
    assert frames >= FRAMES and illegal == 0 and ends > 10


# ---- Gymnasium's vector envs over the seat ids ---------------------------------------------------
@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("source", ["info", "call"])
def test_gymnasium_make_vec_runs_a_masked_sampler_across_episode_ends(mode: str, source: str) -> None:
    seat_id = seat_env_id(game_spec("texas_euchre-v1"))
    envs = gym.make_vec(seat_id, num_envs=2, vectorization_mode=mode)
    assert envs.metadata["autoreset_mode"] == gym.vector.AutoresetMode.NEXT_STEP
    try:
        _, info = envs.reset(seed=0)
        rng = np.random.default_rng(0)
        ends = 0
        for _ in range(1000):
            masks = info["action_mask"] if source == "info" else envs.call("action_masks")
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
            _, _, term, trunc, info = envs.step(actions)
            ends += int(term.sum() + trunc.sum())
            assert info["phase"].dtype.kind == "i" and info["_action_mask"].all()
        assert ends > 50
    finally:
        envs.close()
