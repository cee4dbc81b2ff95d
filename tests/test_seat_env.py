"""SeatEnv / SeatVecEnv: check_env, reward attribution on scripted deals, batching, team mode."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import cahoots_envs
from cahoots_envs import IllegalActionError
from cahoots_envs.core.parallel import PLACEHOLDER_ACTION
from cahoots_envs.policies import BasePolicy, RandomPolicy
from cahoots_envs.policies.envinfo import env_info
from cahoots_envs.training import OpponentPool, SeatEnv

ENVS = cahoots_envs.list_envs()
KC = "cahoots_envs/kansas_city-v1"


def cooperative(env_id: str) -> bool:
    return env_info(env_id).game_cls.COOPERATIVE


class FirstLegal(BasePolicy):
    name = "first_legal"

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(np.flatnonzero(action_mask)[0])


class Counting(BasePolicy):
    """Random, and records the batch size of every call."""

    def __init__(self, seed: int) -> None:
        self.inner = RandomPolicy(seed)
        self.batches: list[int] = []

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        self.batches.append(len(observations))
        return self.inner.act_batch(observations, action_masks)


@pytest.mark.parametrize("env_id", ENVS)
def test_check_env(env_id: str) -> None:
    from stable_baselines3.common.env_checker import check_env

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # check_env's advice would be a failure too
        check_env(SeatEnv(env_id, opponents="random", seed=0))
        if cooperative(env_id):
            check_env(SeatEnv(env_id, team=True, seed=0))


def kc_deal(seed: int) -> dict:
    rng = np.random.default_rng(seed)
    deck = list(rng.permutation(env_info(KC).game_cls.full_deck({})))
    return {"dealer": int(seed % 4), "hands": [deck[i * 14 : (i + 1) * 14] for i in range(4)]}


def aec_log(deal: dict, **options) -> tuple[list[tuple[int, list[float]]], int]:
    """Every seat plays FirstLegal in the AEC env: [(mover, rewards per seat after the move)]."""
    env = cahoots_envs.make(KC, **options)
    env.reset(options={"deal": deal})
    policy, log = FirstLegal(), []
    while not env.unwrapped.game.is_over:
        mover = env.unwrapped.agent_name_mapping[env.agent_selection]
        obs = env.observe(env.agent_selection)
        env.step(policy.act(obs["observation"], obs["action_mask"]))
        log.append((mover, [env.rewards[a] for a in env.possible_agents]))
    return log, log[-1][0]


@pytest.mark.parametrize("reward_mode", ["win", "points"])
@pytest.mark.parametrize("deal_seed", [1, 2])
def test_reward_attribution_on_scripted_deals(reward_mode: str, deal_seed: int) -> None:
    deal = kc_deal(deal_seed)
    options = {"hands": 1, "reward_mode": reward_mode}
    log, last_mover = aec_log(deal, **options)
    for seat in range(4):
        # what the AEC env gives this seat, cut at its own decisions
        # (rewards before its first decision come with its first step)
        expected, running, started = [], 0.0, False
        for mover, rewards in log:
            if mover == seat:
                if started:
                    expected.append(running)
                    running = 0.0
                started = True
            running += rewards[seat]
        expected.append(running)
        env = SeatEnv(KC, options, opponents=[FirstLegal()] * 3, learner_seat=seat)
        obs, info = env.reset(options={"deal": deal})
        assert info["learner_seat"] == seat
        got, done, policy = [], False, FirstLegal()
        while not done:
            obs, reward, done, _, info = env.step(policy.act(obs, env.action_masks()))
            got.append(reward)
        assert got == pytest.approx(expected), f"seat {seat}"
        assert sum(got) == pytest.approx(sum(r[seat] for _, r in log))
        assert env.phase_names[info["phase"]] == "game_over" == env.phase
        # the mask is never empty (0.3): the placeholder mask, PLACEHOLDER_ACTION alone legal
        assert np.flatnonzero(env.action_masks()).tolist() == [PLACEHOLDER_ACTION]
        assert np.flatnonzero(info["action_mask"]).tolist() == [PLACEHOLDER_ACTION]
        if reward_mode == "win":
            outcome = env.game.outcome()[seat]
            assert got[-1] == pytest.approx(outcome) and not any(got[:-1])
            if seat != last_mover:
                # the game ended on an opponent's move; the learner still got its payoff
                assert outcome != 0 or all(o == 0 for o in env.game.outcome())


@pytest.mark.parametrize("env_id", ENVS)
@pytest.mark.parametrize("reward_mode", ["win", "points"])
def test_episode_reward_matches_the_game(env_id: str, reward_mode: str) -> None:
    info = env_info(env_id)
    sign = info.game_cls.POINTS_SIGN
    env = SeatEnv(env_id, {"reward_mode": reward_mode}, opponents="random", seed=3)
    policy = RandomPolicy(0)
    for _ in range(3):
        obs, inf = env.reset()
        seat, total, done = inf["learner_seat"], 0.0, False
        assert env.observation_space.contains(obs)
        while not done:
            mask = env.action_masks()
            assert env.game.current_player == seat and mask.any()
            obs, reward, done, _, inf = env.step(policy.act(obs, mask))
            total += reward
        expected = (env.game.outcome()[seat] if reward_mode == "win"
                    else sign * env.game.scores[seat])
        assert total == pytest.approx(expected)
        assert inf["is_success"] == (env.game.outcome()[seat] > 0)


def test_seeded_reset_is_reproducible() -> None:
    def run(seed: int) -> list:
        env = SeatEnv(KC, opponents="random")
        obs, _ = env.reset(seed=seed)
        trace = [obs.copy()]
        for _ in range(30):
            obs, *_ = env.step(int(np.flatnonzero(env.action_masks())[0]))
            trace.append(obs.copy())
        return trace

    a, b, c = run(5), run(5), run(6)
    assert all((x == y).all() for x, y in zip(a, b))
    assert any((x != y).any() for x, y in zip(a, c))


def test_illegal_actions() -> None:
    env = SeatEnv(KC, seed=0)
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    _, reward, done, _, info = env.step(illegal)
    assert reward == -1.0 and done and info["illegal_action"]
    assert np.flatnonzero(env.action_masks()).tolist() == [PLACEHOLDER_ACTION]
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    strict = SeatEnv(KC, seed=0, illegal_action="raise")
    strict.reset(seed=0)
    with pytest.raises(IllegalActionError, match="learner cannot play"):
        strict.step(illegal)
    with pytest.raises(IllegalActionError):
        strict.step(10_000)


@pytest.mark.parametrize("junk", [5.0, np.float64(5), True, np.bool_(True), "5", np.array([5])])
def test_step_refuses_what_discrete_refuses_and_changes_nothing(junk: object) -> None:
    env = SeatEnv(KC, seed=0)
    obs, _ = env.reset(seed=0)
    legal = int(np.flatnonzero(env.action_masks())[0])
    with pytest.raises(IllegalActionError, match="not an action id"):
        env.step(junk if not isinstance(junk, (float, np.floating)) else float(legal))
    assert (env._observe() == obs).all() and env.action_masks()[legal]
    env.step(np.int64(legal))  # what SB3 hands over is accepted


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="team mode is for cooperative games"):
        SeatEnv(KC, team=True)
    with pytest.raises(ValueError, match="learner_seat 7"):
        SeatEnv(KC, learner_seat=7)
    with pytest.raises(ValueError, match="needs 3 opponents"):
        SeatEnv(KC, opponents=[RandomPolicy(0)])
    with pytest.raises(ValueError, match="unknown option"):
        SeatEnv(KC, {"colour": "red"})


def test_misspelt_arguments_name_the_seat_env_arguments_and_the_game_options() -> None:
    pytest.importorskip("stable_baselines3")
    from cahoots_envs.training import SeatVecEnv

    with pytest.raises(ValueError, match=r"^unknown option or argument 'opponent': neither an "
                       r"argument of SeatEnv nor a game option of cahoots_envs/kansas_city-v1 "
                       r"\(did you mean 'opponents'\?\)\. SeatEnv takes env_id, options, "
                       r"opponents, learner_seat, team, seed, render_mode, illegal_action; the "
                       r"game options of cahoots_envs/kansas_city-v1 \(in options=\{...\}\): "
                       r"num_players, reward_mode, hands, card_backs$"):
        SeatEnv("kansas_city-v1", opponent="heuristic")
    with pytest.raises(ValueError, match=r"^'num_players' is a game option of "
                       r"cahoots_envs/kansas_city-v1: SeatEnv takes it in "
                       r"options=\{'num_players': ...\}; unknown option or argument 'x'"):
        SeatEnv(KC, num_players=5, x=1)
    with pytest.raises(ValueError, match=r"'oponents': neither an argument of SeatVecEnv .*"
                       r"'opponents'.*SeatVecEnv takes env_id, num_envs, .*reward_scale") as e:
        SeatVecEnv(KC, 2, oponents="random")
    assert "\n" not in str(e.value)
    import gymnasium

    # the Gymnasium id takes game options as keywords too, and names both kinds
    with pytest.raises(ValueError, match=r"^unknown option or argument 'opponent': neither an "
                       r"argument of cahoots_envs/kansas_city_seat-v1 nor a game option .*"
                       r"\(did you mean 'opponents'\?\)\. cahoots_envs/kansas_city_seat-v1 "
                       r"takes opponents, .*options; the game options of "
                       r"cahoots_envs/kansas_city-v1: num_players, "):
        gymnasium.make("cahoots_envs/kansas_city_seat-v1", opponent="heuristic")


def test_vec_env_takes_what_vector_games_take_and_refuses_the_rest() -> None:
    pytest.importorskip("stable_baselines3")
    from cahoots_envs.training import SeatVecEnv

    venv = SeatVecEnv(KC, 3, opponents="random", seed=0)
    obs = venv.reset()
    masks = venv.action_masks()
    legal = masks.argmax(axis=1)
    tables = [t.game.render() for t in venv.tables]

    def unchanged() -> bool:
        return (np.array_equal(venv._obs, obs) and np.array_equal(venv.action_masks(), masks)
                and [t.game.render() for t in venv.tables] == tables)

    for junk in (legal + 0.9, legal.astype(str), [*legal.tolist()[:2], "1"], legal.astype(bool),
                 legal.reshape(3, 1), legal[:2], None, 3):
        with pytest.raises(IllegalActionError, match=r"learners: step takes an int array of "
                           r"shape \(3,\).*no game changed"):
            venv.step(junk)
        assert unchanged()
    illegal = legal.copy()
    illegal[1] = int(np.flatnonzero(~masks[1])[0])  # game 0 legal: still nothing is played
    with pytest.raises(IllegalActionError, match=r"learner action \d+ is illegal in game 1 "
                       r"\(phase '\w+'\); no game changed"):
        venv.step(illegal)
    assert unchanged()
    venv.step(legal.tolist())  # a list of ints is an integer array
    assert not unchanged()


def test_pool_draws_by_weight() -> None:
    pool = OpponentPool(max_snapshots=2)
    a, b = RandomPolicy(0), RandomPolicy(1)
    pool.add("random", "a", a, weight=3.0)
    pool.add("other", "b", b, weight=1.0)
    pool.weights["snapshots"] = 5.0  # no snapshots yet: never drawn
    rng = np.random.default_rng(0)
    names = [pool.sample(rng).name for _ in range(4000)]
    assert 0.70 < names.count("a") / 4000 < 0.80
    for i in range(4):
        pool.add("snapshots", f"s{i}", RandomPolicy(i))
    assert [e.name for e in pool.groups["snapshots"]] == ["s2", "s3"]
    assert {pool.sample(rng).name for _ in range(300)} == {"a", "b", "s2", "s3"}
    with pytest.raises(ValueError, match="no policy to draw"):
        OpponentPool().sample(rng)


def test_opponents_drawn_per_episode_and_seat() -> None:
    pool = OpponentPool()
    pool.add("x", "x", RandomPolicy(0))
    pool.add("y", "y", RandomPolicy(1))
    env = SeatEnv(KC, opponents=pool, seed=0)
    seen = set()
    for _ in range(20):
        env.reset()
        assert len(env.opponent_names) == 3 and set(env.opponent_names) <= {"x", "y"}
        seen.add(env.opponent_names)
    assert len(seen) > 3


@pytest.mark.parametrize("env_id", [e for e in ENVS if cooperative(e)] or ["none"])
def test_team_mode(env_id: str) -> None:
    if env_id == "none":
        pytest.skip("no cooperative game yet")
    env = SeatEnv(env_id, team=True, seed=1)
    policy = RandomPolicy(1)
    movers = set()
    for _ in range(5):
        obs, _ = env.reset()
        total, done = 0.0, False
        while not done:
            movers.add(env.game.current_player)
            obs, reward, done, _, _ = env.step(policy.act(obs, env.action_masks()))
            total += reward
        assert total == pytest.approx(env.game.outcome()[0])
    assert len(movers) == env.options["num_players"]


# ---- the vectorised env ----------------------------------------------------------------------
@pytest.mark.parametrize("env_id", ENVS)
def test_vec_env_batches_opponents(env_id: str) -> None:
    pytest.importorskip("stable_baselines3")
    from cahoots_envs.training import SeatVecEnv

    opponent = Counting(0)
    venv = SeatVecEnv(env_id, 8, opponents=opponent, seed=0)
    obs = venv.reset()
    assert obs.shape == (8, venv.observation_space.shape[0])
    policy = RandomPolicy(1)
    totals, finished, results = np.zeros(8), 0, []
    for _ in range(300):
        masks = venv.env_method("action_masks")
        assert all(m.any() for m in masks)
        calls_before = len(opponent.batches)
        obs, rewards, dones, infos = venv.step(policy.act_batch(obs, np.stack(masks)))
        # each round moves every game where the opponent is to move in one call
        assert len(opponent.batches) - calls_before <= 4 * venv.info.game_cls.max_game_length(venv.options)
        totals += rewards
        for i in np.flatnonzero(dones):
            assert venv.observation_space.contains(infos[i]["terminal_observation"])
            results.append((totals[i], infos[i]["outcome"]))
            totals[i] = 0
            finished += 1
    assert max(opponent.batches) > 1, "opponent moves were not batched across games"
    assert sum(opponent.batches) / len(opponent.batches) > 2
    for total, outcome in results:
        assert total == pytest.approx(outcome)


def test_vec_env_trains_with_maskable_ppo() -> None:
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from cahoots_envs.training import SeatVecEnv

    venv = SeatVecEnv(KC, 4, opponents="random", seed=0)
    model = MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=64, n_epochs=1,
                        policy_kwargs={"net_arch": [16]}, seed=0, device="cpu")
    model.learn(128)
    assert model.num_timesteps >= 128
