"""A rule-based Cahoots (competitive) bot that reads only its observation and action mask.

Strategy, the way a sensible player goes about it:

- **Play**: try every card in hand on the trick's running suit totals and pick the one that
  gives the biggest share of the trick's 4 points if the trick ended now (players with the most
  winning suits on their identity card score). Among equal shares, prefer the play that leaves
  one of your suits furthest ahead of the best suit that is not yours (later players will answer),
  and spend cheap cards before strong cards of your own suits.
- **Keep/kill**: a card is worth keeping by its value if its suit is on your identity card (more
  if it is your private suit) and little otherwise; a card is worth killing by how much it would
  help the opponents (its value if the suit is not yours), plus, in the face-value variant, its
  value times your share when you are a scoring winner. Pass 1 takes whichever of the best keep
  and the best kill is worth more; pass 2 takes the best card of the forced status. In the last
  trick kept cards are discarded, so only kills can matter.
- **Draft** (face value): take the highest point card.

Ties are broken by the seeded generator, so the bot is deterministic given its seed.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import ModuleType
from typing import Any, ClassVar

import numpy as np

from cahoots_envs.core.layout import OBS_DTYPE
from cahoots_envs.core.policy import BasePolicy, optional_module
from cahoots_envs.games.cahoots_tricks.encoder import build_layout
from cahoots_envs.games.cahoots_tricks.rules import (
    KEEP_BASE,
    KILL_BASE,
    NUM_ACTIONS,
    NUM_TYPES,
    TAKE_BASE,
    CahootsTricks,
)

TYPE_SUIT = np.arange(NUM_TYPES) // 5
TYPE_VALUE = np.arange(NUM_TYPES) % 5 + 4
TRICKS = 11



def _load_kernels() -> ModuleType:
    from cahoots_envs.games.cahoots_tricks import bot_batched  # imports numba

    return bot_batched


class HeuristicPolicy(BasePolicy):
    name = "heuristic_cahoots_tricks"
    # batches of at least this many rows are rated in one compiled call (bot_batched.py)
    KERNEL_MIN_ROWS: ClassVar[int] = 8
    # the compiled kernel's module once imported; False once numba turned out to be missing
    _kernel: ClassVar[ModuleType | bool | None] = None

    def __init__(self, options: Mapping[str, Any], seed: int | None = None) -> None:
        self.options = CahootsTricks.OPTIONS.resolve(dict(options))
        self.layout = build_layout(self.options["num_players"])
        self.num_players = self.options["num_players"]
        self.face_value = self.options["scoring"] == "face_value"
        self.rng = np.random.default_rng(seed)
        self._kernel_args: tuple[int, ...] | None = None  # layout offsets the kernel reads

    # ---- helpers --------------------------------------------------------------------------
    @staticmethod
    def share(totals: np.ndarray, identities: np.ndarray) -> float:
        """My (relative seat 0) points if the trick ended with these suit totals."""
        best = totals.max()
        if best <= 0:
            return 0.0
        won = totals >= best - 1e-9
        m = identities[:, won].sum(axis=1)
        top = m.max()
        if m[0] < top:
            return 0.0
        return 4.0 / int((m == top).sum())

    @staticmethod
    def _best(scores: dict[int, float]) -> list[int]:
        """The moves within 1e-9 of the best score, in ascending order (the ties ``act`` breaks)."""
        best = max(scores.values())
        return [int(a) for a, s in scores.items() if s >= best - 1e-9]

    # ---- acting ---------------------------------------------------------------------------
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        if len(legal) == 1:
            return int(legal[0])
        choices = self._best(self._scores(legal, observation))
        return choices[int(self.rng.integers(len(choices)))]

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """One move per row: the moves ``act`` makes on the rows in order, with the same draws
        from the generator. From ``KERNEL_MIN_ROWS`` rows on and where numba is installed, the
        rows are rated in one compiled call (``bot_batched.py``) and only the ties are drawn
        here, row by row."""
        return self._batch(observations, action_masks, None)

    def act_batch_with_ties(self, observations: np.ndarray,
                            action_masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``act_batch`` (the same moves and draws) and the tied best moves each row chose
        among, ``bool[N, num_actions]``: the soft targets that behaviour cloning imitates."""
        ties = np.zeros((len(observations), NUM_ACTIONS), np.bool_)
        return self._batch(observations, action_masks, ties), ties

    def _batch(self, observations: np.ndarray, action_masks: np.ndarray,
               ties: np.ndarray | None) -> np.ndarray:
        observations, action_masks = np.asarray(observations), np.asarray(action_masks)
        rows = len(observations)
        if observations.shape != (rows, self.layout.size) or action_masks.shape != (
                rows, NUM_ACTIONS):
            raise ValueError(
                f"act_batch takes observations [rows, {self.layout.size}] and action masks "
                f"[rows, {NUM_ACTIONS}], not {observations.shape} and {action_masks.shape}")
        kernel = self._batch_kernel() if rows >= self.KERNEL_MIN_ROWS else None
        if kernel is None or observations.dtype != OBS_DTYPE:
            if ties is not None:
                for i, (o, m) in enumerate(zip(observations, action_masks)):
                    ties[i, self.best_actions(o, m)] = True
            return super().act_batch(observations, action_masks)
        if self._kernel_args is None:
            self._kernel_args = kernel.kernel_offsets(self.layout)
        masks = action_masks
        if masks.dtype == np.bool_:
            masks = masks.view(np.int8)
        elif masks.dtype != np.int8:
            masks = (masks != 0).view(np.int8)
        # C-contiguous and writeable, so that every batch takes the one compiled signature
        counts, moves = kernel.best_sets(
            np.require(observations, requirements=("C", "W")),
            np.require(masks, requirements=("C", "W")),
            self.num_players, self.face_value, *self._kernel_args)
        chosen = moves[:, 0].copy()
        if ties is not None:
            for i, k in enumerate(counts.tolist()):
                ties[i, moves[i, : max(k, 1)]] = True
        draw = np.flatnonzero(counts != kernel.FORCED)
        integers = self.rng.integers
        for i, k in zip(draw.tolist(), counts[draw].tolist()):
            if k < 0:
                raise ValueError(f"row {i} of the batch: {kernel.PROBLEMS[k]}")
            chosen[i] = moves[i, integers(k)]
        return chosen

    @classmethod
    def _batch_kernel(cls) -> ModuleType | None:
        """The compiled kernel's module, imported on first use; None without numba."""
        return optional_module(HeuristicPolicy, "_kernel", _load_kernels)

    def best_actions(self, observation: np.ndarray, action_mask: np.ndarray) -> list[int]:
        """The moves the bot rates best (``act`` picks one of them with its generator)."""
        legal = np.flatnonzero(action_mask)
        if len(legal) == 1:
            return [int(legal[0])]
        return self._best(self._scores(legal, observation))

    def _scores(self, legal: np.ndarray, observation: np.ndarray) -> dict[int, float]:
        v = self.layout.views(observation)
        identities = v["identities"]
        mine = identities[0] > 0.5
        owners = identities.sum(axis=0)
        private = mine & (owners < 1.5)
        if legal[0] >= TAKE_BASE:  # draft: the highest point card
            return {int(a): float(TYPE_VALUE[a - TAKE_BASE]) for a in legal}
        if legal[0] < KEEP_BASE:
            return self._play(legal, v, identities, mine)
        return self._keep_or_kill(legal, v, identities, mine, private)

    def _play(self, legal: np.ndarray, v: dict[str, np.ndarray], identities: np.ndarray,
              mine: np.ndarray) -> dict[int, float]:
        totals = v["suit_totals"] * 48.0
        scores = {}
        for a in legal:
            t = int(a)
            s, value = TYPE_SUIT[t], TYPE_VALUE[t]
            after = totals.copy()
            after[s] += value
            share = self.share(after, identities)
            theirs = after[~mine].max() if (~mine).any() else 0.0
            margin = float(np.clip(after[mine].max() - theirs, -16, 16)) / 16.0
            cost = value / 8.0 * (1.0 if mine[s] else 0.4)
            scores[t] = share + 0.5 * margin - 0.3 * cost
        return scores

    def _keep_or_kill(self, legal: np.ndarray, v: dict[str, np.ndarray], identities: np.ndarray,
                      mine: np.ndarray, private: np.ndarray) -> dict[int, float]:
        last_trick = v["trick_number"][TRICKS - 1] > 0.5
        my_share = 0.0
        if v["scoring_winners"][0] > 0.5:
            my_share = 1.0 / max(1.0, float(v["scoring_winners"].sum()))
        scores = {}
        for a in legal:
            a = int(a)
            keep = a < KILL_BASE
            t = a - (KEEP_BASE if keep else KILL_BASE)
            s, value = TYPE_SUIT[t], float(TYPE_VALUE[t])
            if keep:
                score = 0.0 if last_trick else value * (1.5 if private[s] else 1.0 if mine[s] else 0.3)
            else:
                score = 0.0 if mine[s] else value * 0.8
                if self.face_value:
                    score += value * my_share * 1.5
            scores[a] = score
        return scores
