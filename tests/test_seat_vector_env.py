"""The seat ids' Gymnasium vector entry point (``SeatVectorEnv``, on the batched engine): its
spaces and dtypes, numeric infos, Gymnasium 1.x's same-step autoreset, seeding, bad arguments,
and a differential check against the reference seat env on scripted deals with heuristic
opponents, the learner's actions replayed move by move."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

import gymnasium as gym
from gymnasium.vector import AutoresetMode

import cahoots_envs
from cahoots_envs import IllegalActionError
from cahoots_envs.registry import game_spec, seat_env_id
from cahoots_envs.training import SeatEnv
from cahoots_envs.training.seat_vector_env import SeatVectorEnv
from cahoots_envs.vector import random_legal_actions

GAMES = ["kansas_city-v1", "texas_euchre-v1", "cahoots_tricks-v1", "cahoots_coop-v1"]


def vector_id(env_id: str) -> str:
    return seat_env_id(game_spec(env_id))


def make_vec(env_id: str, num_envs: int, **kwargs: object) -> SeatVectorEnv:
    envs = gym.make_vec(vector_id(env_id), num_envs=num_envs,
                        vectorization_mode="vector_entry_point", **kwargs)
    assert isinstance(envs, SeatVectorEnv)
    return envs


def numeric(tree: dict) -> bool:
    return all(numeric(v) if isinstance(v, dict) else
               isinstance(v, np.ndarray) and v.dtype.kind in "biuf" for v in tree.values())


@pytest.mark.parametrize("env_id", GAMES)
def test_spaces_infos_and_same_step_autoreset(env_id: str) -> None:
    n = 16
    envs = make_vec(env_id, n, opponents="heuristic", seed=3)
    reference = SeatEnv(env_id)
    assert envs.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert envs.single_observation_space == reference.observation_space
    assert envs.single_action_space == reference.action_space
    assert envs.observation_space.shape == (n, *reference.observation_space.shape)
    obs, info = envs.reset()
    keys = set(info)
    assert obs.dtype == np.float32 and obs.shape == envs.observation_space.shape
    assert numeric(info) and info["action_mask"].dtype == np.int8
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(300):
        mask = info["action_mask"]
        assert mask.any(axis=1).all() and np.array_equal(mask.astype(bool), envs.action_masks())
        assert envs.observation_space.contains(obs)
        before = obs.copy()
        actions = random_legal_actions(mask, rng)
        obs, rewards, terminated, truncated, info = envs.step(actions)
        assert set(info) == keys and numeric(info)
        assert rewards.dtype == np.float32 and not truncated.any()
        done = np.flatnonzero(terminated)
        assert np.array_equal(info["_final_obs"], terminated)
        assert np.array_equal(info["final_info"]["_outcome"], terminated)
        for i in done.tolist():
            # the game was dealt again in this step: its obs starts a new episode, the last
            # observation of the finished one is in final_obs
            assert not np.array_equal(info["final_obs"][i], obs[i])
            # win mode pays only at the end: the last reward is the episode's outcome
            assert info["final_info"]["outcome"][i] == pytest.approx(rewards[i])
            assert 0 <= info["final_info"]["learner_seat"][i] < envs.seats.vec.num_players
            assert info["final_info"]["is_success"][i] == (info["final_info"]["outcome"][i] > 0)
        assert not info["final_obs"][~terminated].any()
        assert before.shape == obs.shape
        ended += done.size
    assert ended > 0


def test_seeds_reproduce_and_differ() -> None:
    def run(seed: int) -> list[np.ndarray]:
        envs = make_vec("texas_euchre-v1", 32, opponents="heuristic")
        obs, info = envs.reset(seed=seed)
        rng = np.random.default_rng(1)
        out = [obs]
        for _ in range(40):
            obs, rewards, terminated, _, info = envs.step(random_legal_actions(info["action_mask"], rng))
            out += [obs, rewards, terminated, info["learner_seat"]]
        return out

    a, b, c = run(7), run(7), run(8)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not all(np.array_equal(x, y) for x, y in zip(a, c))
    # the seed= argument is the first reset's seed
    envs = make_vec("texas_euchre-v1", 32, opponents="heuristic", seed=7)
    obs, _ = envs.reset()
    assert np.array_equal(obs, a[0])


def test_bad_input_is_one_line_and_changes_nothing() -> None:
    with pytest.raises(ValueError, match="unknown option or argument 'opponent'") as e:
        make_vec("kansas_city-v1", 4, opponent="random")
    assert "\n" not in str(e.value)
    with pytest.raises(ValueError, match="raises IllegalActionError"):
        make_vec("kansas_city-v1", 4, illegal_action="terminate")
    with pytest.raises(ValueError, match="num_players"):
        make_vec("kansas_city-v1", 4, num_players=9)
    envs = make_vec("kansas_city-v1", 4, seed=0)
    with pytest.raises(ValueError, match="takes one int"):
        envs.reset(seed=[1, 2, 3, 4])
    with pytest.raises(ValueError, match="unknown reset option"):
        envs.reset(options={"deal": {}})
    _, info = envs.reset(seed=0)
    illegal = np.argmin(info["action_mask"], axis=1)
    with pytest.raises(IllegalActionError):
        envs.step(illegal)
    # refused, nothing moved: a legal step afterwards is the one it would have been
    twin = make_vec("kansas_city-v1", 4, seed=0)
    twin.reset(seed=0)
    legal = info["action_mask"].argmax(axis=1)
    assert np.array_equal(envs.step(legal)[0], twin.step(legal)[0])


def heuristics(env_id: str) -> list:
    """A fixed seating of rule-based bots, one instance per opponent seat."""
    n = game_spec(env_id).rules.DEFAULT_PLAYERS
    return [cahoots_envs.load_policy("heuristic", env_id) for _ in range(n - 1)]


def replay_check(env_id: str, records: list, envs: SeatVectorEnv, seed: int | None) -> int:
    """Replay the reference episodes (whole-game deals, learner moves) in ``envs`` and compare
    observations, masks and rewards step by step until each game's episode ends; the steps."""
    n = envs.num_envs
    obs, info = envs.reset(seed=seed, options={"deals": [r[0] for r in records]})
    live = np.ones(n, np.bool_)
    rewards = np.zeros(n, np.float32)
    t = 0
    rng = np.random.default_rng(0)
    while live.any():
        for g in np.flatnonzero(live).tolist():
            ref_obs, ref_mask, ref_reward = records[g][2][t]
            assert np.array_equal(obs[g], ref_obs), f"game {g}, learner step {t}: observation"
            assert np.array_equal(info["action_mask"][g], ref_mask), f"game {g}, step {t}: mask"
            if ref_reward is not None:
                assert rewards[g] == pytest.approx(ref_reward), f"game {g}, step {t}: reward"
        actions = random_legal_actions(info["action_mask"], rng)
        for g in np.flatnonzero(live).tolist():
            actions[g] = records[g][1][t]
        obs, rewards, terminated, _, info = envs.step(actions)
        t += 1
        for g in np.flatnonzero(live).tolist():
            if t == len(records[g][1]):  # the reference episode ended with this move
                assert terminated[g], f"game {g}: the episode should end at step {t}"
                assert rewards[g] == pytest.approx(records[g][2][t][2])
                assert np.array_equal(info["final_obs"][g], records[g][2][t][0])
                live[g] = False
            else:
                assert not terminated[g], f"game {g}: ended early at step {t}"
    return t


def reference_episode(env: SeatEnv, seed: int) -> tuple:
    """One episode of the reference seat env with random learner moves: its whole-game deals,
    the learner's moves and (observation, mask, reward) at each learner step."""
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(100 + seed)
    steps = [(obs, info["action_mask"], None)]
    actions = []
    done = False
    while not done:
        a = int(rng.choice(np.flatnonzero(env.action_masks())))
        actions.append(a)
        obs, reward, done, _, info = env.step(a)
        steps.append((obs, info["action_mask"], reward))
    return env.game.deals, actions, steps


@pytest.mark.parametrize("env_id", GAMES)
def test_equals_the_seat_env_move_by_move_with_heuristic_opponents(env_id: str) -> None:
    """The reference seat env (rule-based opponents, learner in seat 1) plays an episode with
    random learner moves; its whole-game deals and the learner's moves are replayed in the
    vector env, whose observations, masks and rewards must equal it step by step. The bots
    break ties with their own generators, drawn in the order they move: one game per vector
    env, so that each bot's draws come in the reference's order (seeded alike by ``reset``)."""
    for seed in range(4):
        env = SeatEnv(env_id, opponents=heuristics(env_id), learner_seat=1)
        record = reference_episode(env, seed)
        envs = make_vec(env_id, 1, opponents=heuristics(env_id), learner_seat=1)
        assert replay_check(env_id, [record], envs, seed) == len(record[1])


@pytest.mark.parametrize("env_id", ["kansas_city-v1", "texas_euchre-v1", "cahoots_tricks-v1"])
def test_equals_the_seat_env_in_lockstep_with_network_opponents(env_id: str) -> None:
    """Many games in lockstep against the zoo network (deterministic: its best move), each
    equal to its own reference seat env move by move."""
    name = "zoo:" + env_id.split("-")[0]
    records = [reference_episode(SeatEnv(env_id, opponents=name, learner_seat=2), seed)
               for seed in range(6)]
    envs = make_vec(env_id, 6, opponents=name, learner_seat=2)
    assert replay_check(env_id, records, envs, 0) > 5


def test_a_cleanrl_style_masked_ppo_loop_trains_on_it() -> None:
    """A few updates of a single-file masked PPO (CleanRL's shape: rollout buffers, GAE, clipped
    surrogate) on 64 games: no illegal move is ever drawn, the losses stay finite and the
    policy's parameters move."""
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    envs = make_vec("texas_euchre-v1", 64, opponents="random", seed=0)
    obs_size = envs.single_observation_space.shape[0]
    n_actions = int(envs.single_action_space.n)
    net = torch.nn.Sequential(torch.nn.Linear(obs_size, 64), torch.nn.Tanh())
    actor, critic = torch.nn.Linear(64, n_actions), torch.nn.Linear(64, 1)
    params = [*net.parameters(), *actor.parameters(), *critic.parameters()]
    start = [p.detach().clone() for p in params]
    optimizer = torch.optim.Adam(params, lr=3e-3)
    steps, n = 16, envs.num_envs

    def policy(obs: np.ndarray, mask: np.ndarray):
        h = net(torch.as_tensor(obs))
        logits = actor(h).masked_fill(~torch.as_tensor(mask, dtype=torch.bool), -1e9)
        return torch.distributions.Categorical(logits=logits), critic(h).squeeze(-1)

    obs, info = envs.reset(seed=0)
    for _ in range(3):
        buf = {k: [] for k in ("obs", "mask", "act", "logp", "val", "rew", "done")}
        for _ in range(steps):
            with torch.no_grad():
                dist, value = policy(obs, info["action_mask"])
                action = dist.sample()
            assert info["action_mask"][np.arange(n), action.numpy()].all()
            buf["obs"].append(torch.as_tensor(obs))
            buf["mask"].append(torch.as_tensor(info["action_mask"], dtype=torch.bool))
            buf["act"].append(action)
            buf["logp"].append(dist.log_prob(action))
            buf["val"].append(value)
            obs, reward, terminated, truncated, info = envs.step(action.numpy())
            buf["rew"].append(torch.as_tensor(reward))
            buf["done"].append(torch.as_tensor(terminated | truncated, dtype=torch.float32))
        with torch.no_grad():
            _, last = policy(obs, info["action_mask"])
        advantages, gae = torch.zeros(steps, n), torch.zeros(n)
        for t in reversed(range(steps)):
            following = last if t == steps - 1 else buf["val"][t + 1]
            alive = 1.0 - buf["done"][t]  # same-step autoreset: the step after a done is a new episode
            delta = buf["rew"][t] + 0.99 * following * alive - buf["val"][t]
            gae = delta + 0.99 * 0.95 * alive * gae
            advantages[t] = gae
        returns = advantages + torch.stack(buf["val"])
        flat = {k: torch.cat(v) if v[0].dim() > 1 else torch.stack(v).reshape(-1)
                for k, v in buf.items()}
        dist, value = policy(flat["obs"].numpy(), flat["mask"].numpy())
        ratio = (dist.log_prob(flat["act"]) - flat["logp"]).exp()
        adv = advantages.reshape(-1)
        adv = (adv - adv.mean()) / (adv.std() + 1e-8)
        loss = (-torch.min(ratio * adv, ratio.clamp(0.8, 1.2) * adv).mean()
                + 0.5 * ((value - returns.reshape(-1)) ** 2).mean() - 0.01 * dist.entropy().mean())
        assert torch.isfinite(loss)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    assert any(not torch.equal(a, b) for a, b in zip(start, params))


def test_every_game_runs_a_masked_random_sampler_at_1024_games() -> None:
    rng = np.random.default_rng(0)
    for env_id in GAMES:
        envs = make_vec(env_id, 1024, opponents="random", seed=0)
        _, info = envs.reset()
        ends = 0
        for _ in range(100):  # past every game's first episode end (Kansas City's are longest)
            _, _, terminated, _, info = envs.step(random_legal_actions(info["action_mask"], rng))
            ends += int(terminated.sum())
        assert ends > 0, env_id


def test_gymnasium_make_vec_picks_it_by_default_and_sync_stays_available() -> None:
    seat_id = vector_id("cahoots_coop-v1")
    assert isinstance(gym.make_vec(seat_id, num_envs=2), SeatVectorEnv)
    sync = gym.make_vec(seat_id, num_envs=2, vectorization_mode="sync")
    assert isinstance(sync, gym.vector.SyncVectorEnv)
    sync.close()
    assert cahoots_envs.make("cahoots_coop-v1") is not None
