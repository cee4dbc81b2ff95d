"""``BatchedSeats``: the seat games of ``SeatVecEnv`` on the batched engine, with no vector-env
API of its own: ``BatchedSeatVecEnv`` (an SB3 VecEnv) and ``SeatVectorEnv`` (Gymnasium's
``VectorEnv``, the seat ids' vector entry point) are its two faces.

One learner seat per game (drawn each episode, or fixed with ``learner_seat``); every other
seat gets a policy from the pool each episode. Each step applies the learners' actions in every
game at once, then moves the opponents round by round: in each round every opponent policy acts
once, with ``act_batch`` over the batched observations of every game where it is to move (games
where the learner is to move again wait, action -1), until the learner is to move everywhere.
Rewards are the learner seat's, summed since its last decision (the deal's own pay comes with
the first step of an episode), times ``reward_scale``. Finished games are dealt again at once;
the finished episode's last learner observation is ``infos[i]["terminal_observation"]``. An
episode that ends before the learner's first decision is dealt again silently.

Opponents are network policies, the random policy, the rule-based bots and search bots. A
search bot decides all the games where it is to move in a round with one ``act_infosets`` call:
each of those games is rebuilt as a reference game from the engine (``engine.game(i)``, its
deals and actions) for the seat's information set, and their searches run together on the
engine (``SearchPolicy.act_infosets``). ``team=True`` (cooperative games) lets the learner play
every seat. Needs numba (the ``fast`` extra), not stable-baselines3.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from cahoots_envs.core.policy import Policy
from cahoots_envs.errors import IllegalActionError
from cahoots_envs.evaluation.matches import act_rows
from cahoots_envs.evaluation.tables import reseed
from cahoots_envs.training.pool import OpponentPool
from cahoots_envs.training.seat_env import Opponents, illegal_learner_action, seat_setup
from cahoots_envs.vector import VectorGames, action_ids, compile_notice
from cahoots_envs.vector import make as make_vector

MAX_ROUNDS = 100_000  # opponent rounds in one step before giving up (a game always ends)
LEARNER = -1  # the policy index of the learner's seat(s)


class BatchedSeats:
    """``num_envs`` seat games on ``cahoots_envs.vector`` (see the module docstring): the
    seating, the opponents' moves and the learners' rewards, with no vector-env API of its own;
    the arguments are ``SeatVecEnv``'s."""

    def __init__(
        self,
        env_id: str,
        num_envs: int,
        options: Mapping[str, Any] | None = None,
        opponents: Opponents = "random",
        learner_seat: int | None = None,
        team: bool = False,
        seed: int | None = None,
        reward_scale: float = 1.0,
    ) -> None:
        self.info, self.maker, observation_space, action_space = seat_setup(
            env_id, options, opponents, learner_seat, team, seed)
        for policy in self.maker.all_policies():
            if getattr(policy, "needs_infoset", False) and not hasattr(policy, "act_infosets"):
                name = getattr(policy, "name", type(policy).__name__)
                raise ValueError(
                    f"opponent {name!r} is a search bot without act_infosets (many information "
                    "sets decided at once), which the batched engine needs; play it in "
                    "cahoots_envs.training.SeatVecEnv")
        self.env_id = self.info.env_id
        self.options = self.info.options
        self.num_envs = int(num_envs)
        self.single_observation_space = observation_space
        self.single_action_space = action_space
        self.vec: VectorGames = make_vector(env_id, num_envs, seed=seed, **self.options)
        self.engine = self.vec.engine
        self.seed_value = seed
        self.rng = np.random.default_rng(seed)
        self.reward_scale = float(reward_scale)
        self.team = team
        n, p = num_envs, self.vec.num_players
        self._rows = np.arange(n)
        self.learner = np.zeros(n, np.int64)  # each game's learner seat (0 in team mode)
        self.seat_policy = np.full((n, p), LEARNER, np.int64)  # policy index of each seat
        self.seat_name = np.zeros((n, p), np.int64)  # index into ``names`` of each seat
        self.names: list[str] = ["learner"]
        self._name_index: dict[str, int] = {"learner": 0}
        self._policies: list[Policy] = []
        self._policy_index: dict[int, int] = {}
        self._acc = np.zeros(n, np.float64)  # learner reward since its last decision
        self._decided = np.zeros(n, np.bool_)  # the learner has decided in this episode
        self._episode_return = np.zeros(n, np.float64)  # paid to the learner this episode
        self._waits = np.full(n, -1, np.int64)  # the actions of one opponent round
        self._actions: np.ndarray | None = None
        self._reset_done = False
        self._watch_compile = True  # until the first step: compile_notice

    @property
    def pool(self) -> OpponentPool | list[Policy]:
        return self.maker.opponents

    # ---- seating ----------------------------------------------------------------------------
    def _policy_id(self, policy: Policy) -> int:
        k = self._policy_index.get(id(policy))
        if k is None:
            k = self._policy_index[id(policy)] = len(self._policies)
            self._policies.append(policy)
        return k

    def _name_id(self, name: str) -> int:
        k = self._name_index.get(name)
        if k is None:
            k = self._name_index[name] = len(self.names)
            self.names.append(name)
        return k

    def _sample(self, pool: OpponentPool, count: int) -> tuple[np.ndarray, np.ndarray]:
        """``count`` draws from ``pool`` as ``OpponentPool.sample`` makes them (a group by
        weight, then one of its entries uniformly), all at once: policy and name indices."""
        live = [(g, w) for g, w in pool.weights.items() if w > 0 and pool.groups.get(g)]
        if not live:
            raise ValueError(f"opponent pool has no policy to draw (weights {pool.weights}, "
                             f"groups {[g for g, e in pool.groups.items() if e]})")
        if len(live) == 1:
            groups = np.zeros(count, np.int64)
        else:
            cumulative = np.cumsum(np.array([w for _, w in live], np.float64))
            groups = np.searchsorted(cumulative, self.rng.random(count) * cumulative[-1],
                                     side="right")
            groups = np.minimum(groups, len(live) - 1)
        policies = np.zeros(count, np.int64)
        names = np.zeros(count, np.int64)
        for g, (group, _) in enumerate(live):
            rows = np.flatnonzero(groups == g)
            if rows.size == 0:
                continue
            entries = pool.groups[group]
            picks = self.rng.integers(len(entries), size=rows.size)
            ids = np.array([self._policy_id(e.policy) for e in entries], np.int64)
            labels = np.array([self._name_id(e.name) for e in entries], np.int64)
            policies[rows] = ids[picks]
            names[rows] = labels[picks]
        return policies, names

    def _seat(self, games: np.ndarray) -> None:
        """Draw the learner seat and the opponents of a new episode in each of ``games``."""
        if self.team:
            self.learner[games] = 0
            return
        n = self.vec.num_players
        opponents = self.maker.opponents
        fixed = self.maker.learner_seat
        seats = (np.full(games.size, fixed, np.int64) if fixed is not None
                 else self.rng.integers(n, size=games.size))
        self.learner[games] = seats
        self.seat_policy[games, seats] = LEARNER
        self.seat_name[games, seats] = 0
        if not isinstance(opponents, list):
            policies, names = self._sample(opponents, games.size * (n - 1))
            policies = policies.reshape(n - 1, games.size)
            names = names.reshape(n - 1, games.size)
        for rel in range(1, n):
            others = (seats + rel) % n
            if isinstance(opponents, list):
                policy = opponents[rel - 1]
                self.seat_policy[games, others] = self._policy_id(policy)
                self.seat_name[games, others] = self._name_id(
                    getattr(policy, "name", f"opponent_{rel}"))
            else:
                self.seat_policy[games, others] = policies[rel - 1]
                self.seat_name[games, others] = names[rel - 1]

    def _new_episodes(self, games: np.ndarray) -> None:
        """Seat new episodes in ``games``; the deal's own pay starts their reward."""
        self._seat(games)
        self._acc[games] = self.engine.deal_rewards[games, self.learner[games]]
        self._decided[games] = False

    # ---- moving the opponents -------------------------------------------------------------
    def _learner_to_move(self) -> np.ndarray:
        if self.team:
            return np.ones(self.num_envs, np.bool_)
        return self.engine.to_move == self.learner  # type: ignore[no-any-return]

    def _after_step(self, actions: np.ndarray, out_rewards: np.ndarray, out_dones: np.ndarray,
                    infos: list[dict[str, Any]]) -> None:
        """Book one engine step: rewards into each learner's sum, finished episodes reported
        (when the learner had decided in them) and seated anew."""
        e = self.engine
        self._acc += e.rewards[self._rows, self.learner]
        finished = np.flatnonzero(e.done)
        if finished.size == 0:
            return
        for j, i in enumerate(finished.tolist()):
            if not self._decided[i]:
                continue  # ended before the learner's first decision: nothing to learn
            seat = int(self.learner[i])
            out_rewards[i] = self._acc[i]
            out_dones[i] = True
            info: dict[str, Any] = {
                "terminal_observation": e.final_obs[j, seat].copy(),
                "learner_seat": -1 if self.team else seat,
                "score": float(e.final_scores[j, seat]),
                "opponents": [self.names[k] for s, k in enumerate(self.seat_name[i].tolist())
                              if s != seat] if not self.team else [],
                "TimeLimit.truncated": False,
            }
            if self.info.options["reward_mode"] == "win":
                info["outcome"] = float(self._episode_return[i] + self._acc[i])
                info["is_success"] = info["outcome"] > 0
            infos[i] = info
        self._episode_return[finished] = 0.0
        self._new_episodes(finished)

    def _advance(self, out_rewards: np.ndarray, out_dones: np.ndarray,
                 infos: list[dict[str, Any]]) -> None:
        """Move every opponent until each game's learner is to move."""
        e = self.engine
        n_actions = self.vec.num_actions
        for _ in range(MAX_ROUNDS):
            waiting = ~self._learner_to_move()
            if not waiting.any():
                return
            actions = self._waits
            actions.fill(-1)
            games = np.flatnonzero(waiting)
            movers = self.seat_policy[games, e.to_move[games]]
            single = len(self._policies) == 1
            for k in [0] if single else np.flatnonzero(np.bincount(movers)).tolist():
                rows = games if single else games[movers == k]
                chosen = act_rows(self._policies[k], e, rows)
                chosen = chosen.astype(np.int64, copy=False).reshape(-1)
                ok = (chosen >= 0) & (chosen < n_actions)
                ok[ok] = e.mask[rows[ok], chosen[ok]] != 0
                if not ok.all():
                    bad = int(np.flatnonzero(~ok)[0])
                    i, seat = int(rows[bad]), int(e.to_move[rows[bad]])
                    raise IllegalActionError(
                        f"opponent {self.names[self.seat_name[i, seat]]!r} in seat {seat} of game {i} chose "
                        f"illegal action {int(chosen[bad])}")
                actions[rows] = chosen
            e.step(actions)
            self._after_step(actions, out_rewards, out_dones, infos)
        raise RuntimeError(f"{self.env_id}: the opponents did not hand the move back to the "
                           f"learner within {MAX_ROUNDS} rounds")

    # ---- playing: what the vector envs' reset and step call ----------------------------------
    def reset_games(self, seed: int | None, deals: list[Any] | None = None) -> np.ndarray:
        """Deal every game anew (``deals``: one scripted first deal per game), seat new
        episodes and move the opponents until every learner is to move; the learners'
        observations (the engine's buffer: copy what you keep)."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)
            for i, policy in enumerate(self.maker.all_policies()):
                reseed(policy, seed * 7919 + i + 1)
        with compile_notice(self.vec.spec.name, self._watch_compile):  # the opponents' too
            self.vec.reset(seed=seed, deals=deals)
            self._episode_return[:] = 0.0
            self._new_episodes(self._rows)
            scratch_r = np.zeros(self.num_envs, np.float64)
            scratch_d = np.zeros(self.num_envs, np.bool_)
            self._advance(scratch_r, scratch_d, [{} for _ in range(self.num_envs)])
        self._reset_done = True
        return self.engine.obs

    def step_games(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                 list[dict[str, Any]]]:
        """Play the learners' ``actions`` (one legal id per game, checked before anything
        moves), then the opponents until every learner is to move again; finished episodes are
        dealt again at once. Observations (the engine's buffer), rewards (float32, scaled),
        dones and per-game infos (a finished episode's: ``terminal_observation``,
        ``learner_seat``, ``score``, with ``outcome`` and ``is_success`` in win mode)."""
        if not self._reset_done:
            raise RuntimeError("call reset() before step()")
        # SeatVecEnv's and VectorGames.step's rule: int64[num_envs], bools and floats refused
        acts = action_ids(actions, self.num_envs, f"{self.env_id} learners")
        e = self.engine
        ok = (acts >= 0) & (acts < self.vec.num_actions)
        ok[ok] = e.mask[self._rows[ok], acts[ok]] != 0
        if not ok.all():
            bad = np.flatnonzero(~ok)
            i = int(bad[0])
            raise IllegalActionError(
                illegal_learner_action(int(acts[i]), i, bad.size - 1, self.vec.num_actions))
        out_rewards = np.zeros(self.num_envs, np.float64)
        out_dones = np.zeros(self.num_envs, np.bool_)
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        self._decided[:] = True
        with compile_notice(self.vec.spec.name, self._watch_compile):
            e.step(np.ascontiguousarray(acts))
            self._after_step(acts, out_rewards, out_dones, infos)
            self._advance(out_rewards, out_dones, infos)
        self._watch_compile = False
        # games still in their episode: everything earned since the learner's last decision
        # (for a game dealt anew in the last step, since its deal); the sum of what an episode
        # paid is its outcome in win mode (reported in the infos)
        ongoing = ~out_dones
        out_rewards[ongoing] = self._acc[ongoing]
        self._episode_return[ongoing] += self._acc[ongoing]
        self._acc[ongoing] = 0.0
        rewards = (out_rewards * self.reward_scale).astype(np.float32)
        return e.obs, rewards, out_dones, infos

    def action_masks(self) -> np.ndarray:
        """The learners' legal actions, ``bool[num_envs, num_actions]``."""
        return self.engine.mask.astype(bool)
