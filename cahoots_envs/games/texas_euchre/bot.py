"""A rule-based Texas Euchre player that keeps its stake small and its hand high.

Strategy (points are bad; you score your stake only when you end up on the wrong side of the
trick count, so a cheap stake and a hand of high cards both protect you):
- **Draw phase**: discard only the low cards (2–7: cheap to put in the stake, useless in tricks),
  always the lowest first, as few as the turn allows; on the final lap improve the hand a little
  more (8s too), since the tricks are next. Throw down, on a later turn, once the hand is strong
  (almost all cards 10 or better) or once it is decent and the others' stakes are already big.
- **Tricks** (FAQ 2's tip: save the best cards for when you act last): playing last, win the
  trick with the cheapest card that does, else dump the lowest card; earlier in a trick, play the
  cheapest card that no unseen card can beat (a sure winner), else dump the lowest card.
- **Reverse**: everyone wants few tricks, so the draw phase is the same (high cards stay out of
  the lowest-card fight); in tricks play the lowest card that is still above the trick's lowest
  card (safe), and lead or follow with the highest card when none is safe.

It reads only its own observation through the layout's named views and its action mask.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import ModuleType
from typing import Any, ClassVar

import numpy as np

from cahoots_envs.core.layout import OBS_DTYPE
from cahoots_envs.core.policy import BasePolicy, optional_module
from cahoots_envs.games.texas_euchre.encoder import build_layout
from cahoots_envs.games.texas_euchre.rules import DECKS, FACES, HAND_SIZE, PHASES

LOW = 6  # rank index of an 8: cards below it are discarded
FINAL_LAP_LOW = 7  # on the final lap the 8s go too
THROW_HIGH = 8  # rank index of a 10
PLAY = PHASES.index("play")
FINAL_LAP = PHASES.index("final_lap")


BATCH_MIN_ROWS = 8  # smaller batches go row by row (the kernel call costs more there)



def _load_kernels() -> ModuleType:
    from cahoots_envs.games.texas_euchre import bot_batched  # imports numba

    return bot_batched


class HeuristicPolicy(BasePolicy):
    name = "heuristic"
    # ``bot_batched`` once imported (it imports numba), ``False`` where numba is missing
    _batched: ClassVar[ModuleType | bool | None] = None

    def __init__(self, options: Mapping[str, Any], seed: int | None = None) -> None:
        self.num_players = n = int(options["num_players"])
        self.layout = build_layout(options["num_players"])
        self.hand_size = HAND_SIZE[n]
        self.copies = DECKS[n]
        self.throw_action = 1 << self.hand_size
        self.play_base = self.throw_action + 1
        self.reverse = bool(options.get("reverse", False))
        self.rng = np.random.default_rng(seed)  # ties are broken by card order, not at random

    # ---- decisions ---------------------------------------------------------------------------
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        v = self.layout.views(observation)
        counts = np.rint(v["hand"]).astype(np.int64)
        hand = np.repeat(np.arange(FACES), counts).tolist()  # sorted, as the discard positions
        phase = int(np.argmax(v["phase"]))
        if phase == PLAY:
            action = self.play(v, hand, action_mask)
        else:
            action = self.draw(v, hand, phase, action_mask)
        if not action_mask[action]:  # never expected; stay legal whatever happens
            action = int(np.flatnonzero(action_mask)[0])
        return action

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """One action per row, the one ``act`` picks on that row: with numba and at least
        ``BATCH_MIN_ROWS`` rows of the layout's size and ``OBS_DTYPE``, decided in one compiled
        call (``bot_batched.decide``, the rows it leaves to ``act`` aside); else row by row. The
        bot never draws at random, so nothing else depends on the order."""
        kernels = self._batched_module() if len(observations) >= BATCH_MIN_ROWS else None
        obs, masks = np.asarray(observations), np.asarray(action_masks)
        n_actions = self.play_base + FACES
        if (
            kernels is None
            or obs.ndim != 2
            or obs.shape[1] != self.layout.size
            or obs.dtype != OBS_DTYPE
            or masks.shape != (obs.shape[0], n_actions)
        ):
            return super().act_batch(observations, action_masks)
        if masks.dtype in (np.bool_, np.int8, np.uint8):
            masks = masks.view(np.uint8)
        else:
            masks = (masks != 0).view(np.uint8)
        o = self.layout.offsets
        actions: np.ndarray = kernels.decide(
            np.ascontiguousarray(obs), np.ascontiguousarray(masks), o["hand"],
            o["stake_points"], o["phase"], o["trick"], o["seen"], self.num_players,
            self.hand_size, np.full(1, self.copies, obs.dtype), self.reverse,
        )
        for i in np.flatnonzero(actions == kernels.FALLBACK):  # act raises or decides these
            actions[i] = self.act(observations[i], action_masks[i])
        return actions

    @classmethod
    def _batched_module(cls) -> ModuleType | None:
        """The numba kernels, imported on first use; ``None`` without numba."""
        return optional_module(HeuristicPolicy, "_batched", _load_kernels)

    def best_actions(self, observation: np.ndarray, action_mask: np.ndarray) -> list[int]:
        """The moves this bot considers best: it is deterministic (ties go by card order), so
        the one move ``act`` plays."""
        return [self.act(observation, action_mask)]

    def draw(self, v: dict[str, np.ndarray], hand: list[int], phase: int, mask: np.ndarray) -> int:
        ranks = [f >> 2 for f in hand]
        if mask[self.throw_action] and self.strong(ranks, v):
            return self.throw_action
        low = FINAL_LAP_LOW if phase == FINAL_LAP else LOW
        k = sum(r < low for r in ranks)
        # discarding the k lowest cards is the subset of the first k positions; shrink k to
        # what the draw pile allows, grow it to the turn's minimum
        legal_ks = [j for j in range(len(hand) + 1) if mask[(1 << j) - 1]]
        if not legal_ks:
            return int(np.flatnonzero(mask)[0])
        fitting = [j for j in legal_ks if j <= k]
        return (1 << (max(fitting) if fitting else min(legal_ks))) - 1

    def strong(self, ranks: list[int], v: dict[str, np.ndarray]) -> bool:
        high = sum(r >= THROW_HIGH for r in ranks)
        if high >= len(ranks) - 1 and min(ranks) >= LOW:
            return True
        # a decent hand is enough once the others have much to lose and we have little
        stakes = v["stake_points"]
        others = float(np.min(stakes[1:]))
        return high >= len(ranks) - 2 and min(ranks) >= LOW and others > 2 * float(stakes[0]) + 0.2

    def play(self, v: dict[str, np.ndarray], hand: list[int], mask: np.ndarray) -> int:
        trick = v["trick"]
        n = self.num_players
        on_table = [rel for rel in range(n) if trick[rel].any()]
        to_come = n - 1 - len(on_table)
        table_ranks = [int(np.flatnonzero(trick[rel])[0]) >> 2 for rel in on_table]
        ranks = [f >> 2 for f in hand]
        base = self.play_base
        if self.reverse:
            if not table_ranks:
                return base + hand[-1]
            lowest = min(table_ranks)
            safe = [f for f, r in zip(hand, ranks) if r > lowest]
            return base + (safe[0] if safe else hand[-1])
        best = max(table_ranks) if table_ranks else -1
        if to_come == 0:
            winners = [f for f, r in zip(hand, ranks) if r >= best]  # ties go to the last card
            return base + (winners[0] if winners else hand[0])
        # unseen cards may be played after us: a sure winner has no unseen card as high
        unseen = self.copies - v["seen"] - v["hand"]
        top_unseen = -1
        live = np.flatnonzero(unseen > 0.5)
        if len(live):
            top_unseen = int(live[-1]) >> 2
        sure = [f for f, r in zip(hand, ranks) if r >= best and r > top_unseen]
        return base + (sure[0] if sure else hand[0])
