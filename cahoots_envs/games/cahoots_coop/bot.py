"""Rule-based team bot for Cahoots (cooperative): ``HeuristicPolicy(options, seed=None)``.

Strategy, as a careful team player who cannot talk would play:

1. Complete goals now: prefer the play that completes the most visible goals.
2. Keep goals reachable: after the play, count for every goal still showing the cards that could
   complete it in one legal play, weighted by how likely a teammate (or you, later) holds them
   (the cards nobody has seen; with open hands, the next player's actual hand weighs most), and
   prefer the play that leaves the most goals within one play of completion.
3. Do not strand the team: avoid tops on which the next player is likely to hold no legal card
   (certain with open hands), a loss (§1.6).

With table talk (option ``talk``) its convention is: after its play it names the pile of its best
play on the tops now (``wish pile p`` in the Spanish vocabulary, ``have pile p`` in the Dutch: a
true signal, the play is legal), or says nothing if it has no play; and it avoids covering a pile
that a teammate's latest signal names (wish, have or avoid), unless its play completes a goal.
It reads the next player's latest ``say nothing`` as a fact about that hand (rule 3): they held no
card for the tops as they were then, so their cards are among the kinds that matched none of those
tops, and the risk of stranding them is counted over those kinds alone. (Reading ``have pile p``
the same way, as "a play on another pile cannot strand them", lost more games than it won: the
stranding term also keeps the tops open for the players after them; docs/talk.md.)

It reads only its observation (through the layout's views) and its action mask; goal predicates
come from the goal ids shown in the observation and the rules' goal table. Ties are broken by a
seeded generator, so the bot is deterministic given its seed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from types import ModuleType
from typing import Any, ClassVar

import numpy as np

from cahoots_envs.core.layout import OBS_DTYPE
from cahoots_envs.core.policy import BasePolicy, optional_module
from cahoots_envs.games.cahoots_coop.bot_weights import (
    COMPLETE_NOW,
    OWN_HAND,
    PROTECT,
    REACH_SCALE,
    STRAND,
)
from cahoots_envs.games.cahoots_coop.encoder import (
    GOAL_FIELD_OFFSETS,
    MAX_DRAW_PILE,
    MAX_PLAYS,
    PLAY_FIELD_OFFSETS,
    layout_for_options,
)
from cahoots_envs.games.cahoots_coop.goals import KINDS, PILES, satisfied_table
from cahoots_envs.games.cahoots_coop.rules import GOALS, MATCHES, TALK_BASE, VOCABULARIES

PLACE = (KINDS**3, KINDS**2, KINDS, 1)  # the tops' code: sum of tops[p] * PLACE[p]
PLAYABLE_ON = [[k for k in range(KINDS) if MATCHES[k] >> t & 1] for t in range(KINDS)]


def _counts(values: np.ndarray) -> list[int]:
    return np.rint(values).astype(np.int64).tolist()


def _load_kernels() -> ModuleType:
    from cahoots_envs.games.cahoots_coop import bot_batched  # imports numba

    return bot_batched


class HeuristicPolicy(BasePolicy):
    name = "heuristic_cahoots_coop"
    # batches of at least this many rows are rated in one compiled call (bot_batched.py)
    KERNEL_MIN_ROWS: ClassVar[int] = 2
    # the compiled kernel's module once imported; False once numba turned out to be missing
    _kernel: ClassVar[ModuleType | bool | None] = None

    def __init__(self, options: Mapping[str, Any], seed: int | None = None) -> None:
        self.options = dict(options)
        self.layout = layout_for_options(self.options)
        self.num_players = int(self.options["num_players"])
        self.rng = np.random.default_rng(seed)
        self._tables = {mode: satisfied_table(GOALS, mode) for mode in ("union", "disjunctive")}
        self._id_at = GOAL_FIELD_OFFSETS["id"]
        self.talk = str(self.options.get("talk", "none"))
        # the talk action naming a pile, as the convention sends it, and the signals' geometry
        self._send = TALK_BASE + 1 + (PILES if self.talk == "dutch" else 0)
        self._words = 1 + len(VOCABULARIES[self.talk])
        self._pile_words = [i + 1 for i, (_, names) in enumerate(VOCABULARIES[self.talk])
                            if names == "pile"]
        self._kernel_args: tuple[Any, ...] | None = None  # what the kernel reads, built once

    # ---- reading the observation ---------------------------------------------------------
    def _read(self, observation: np.ndarray) -> dict[str, Any]:
        v = self.layout.views(observation)
        n = self.num_players
        hand = _counts(v["hand"])
        open_hands = v["rules"][0] > 0.5
        others = [[0] * KINDS for _ in range(n - 1)]
        if open_hands and n > 1:
            others = [_counts(row) for row in v["other_hands"]]
        tops = [int(np.argmax(row)) for row in v["tops"]]
        played = _counts(v["played"])
        visible = 0
        for row in v["goals"]:
            if row[0] > 0.5:
                visible |= 1 << int(np.argmax(row[self._id_at :]))
        hand_sizes = _counts(v["hand_sizes"])
        return {
            "hand": hand, "others": others, "open": open_hands, "tops": tops, "played": played,
            "visible": visible, "hand_sizes": hand_sizes,
            "table": self._tables["disjunctive" if v["rules"][1] > 0.5 else "union"],
            "goals_left": _counts(v["goal_counts"][1:2] * len(GOALS))[0],
            "draw_pile": _counts(v["draw_pile"] * MAX_DRAW_PILE)[0],
        }

    # ---- choosing --------------------------------------------------------------------------
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return self._pick(self.best_actions(observation, action_mask))

    def _pick(self, best: list[int]) -> int:
        """The bot's tie-break: uniformly at random among ``best`` (one draw only on a tie)."""
        return best[int(self.rng.integers(len(best)))] if len(best) > 1 else best[0]

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """One move per row: the moves ``act`` makes on the rows in order, with the same draws
        from the generator. Without table talk, from ``KERNEL_MIN_ROWS`` rows on and where
        numba is installed, the rows are rated in one compiled call (``bot_batched.py``) and
        only the ties are drawn here, row by row."""
        return self._batch(observations, action_masks, None)

    def act_batch_with_ties(self, observations: np.ndarray,
                            action_masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``act_batch`` (the same decisions and random draws as ``act`` row by row) and the
        tied best moves each row chose among, ``bool[N, num_actions]``: the soft targets that
        behaviour cloning imitates."""
        ties = np.zeros(np.shape(action_masks), np.bool_)
        return self._batch(observations, action_masks, ties), ties

    def _batch(self, observations: np.ndarray, action_masks: np.ndarray,
               ties: np.ndarray | None) -> np.ndarray:
        observations, action_masks = np.asarray(observations), np.asarray(action_masks)
        rows = len(observations)
        kernel = None
        if rows >= self.KERNEL_MIN_ROWS and self.talk == "none" and \
                observations.dtype == OBS_DTYPE and \
                observations.shape == (rows, self.layout.size) and \
                action_masks.shape == (rows, TALK_BASE):
            kernel = self._batch_kernel()
        if kernel is None:
            actions = np.zeros(rows, np.int64)
            for i, (observation, mask) in enumerate(zip(observations, action_masks)):
                best = self.best_actions(observation, mask)
                if ties is not None:
                    ties[i, best] = True
                actions[i] = self._pick(best)
            return actions
        if self._kernel_args is None:
            self._kernel_args = kernel.kernel_args(self.layout)
        if action_masks.dtype != np.int8:  # legal = nonzero, as ``np.flatnonzero`` reads it
            action_masks = (action_masks != 0).view(np.int8)
        # C-contiguous and writeable, so that every batch takes the one compiled signature
        obs, masks = (np.require(a, requirements=("C", "W")) for a in (observations, action_masks))
        counts, moves = kernel.best_sets(obs, masks, self.num_players, *self._kernel_args)
        chosen = moves[:, 0].copy()
        if ties is not None:
            for i, k in enumerate(counts.tolist()):
                ties[i, moves[i, : max(k, 1)]] = True
        integers = self.rng.integers
        for i in np.flatnonzero(counts != 1).tolist():
            k = int(counts[i])
            if k < 0:
                raise ValueError(f"row {i} of the batch: {kernel.PROBLEMS[k]}")
            if k > 1:  # ``_pick``: a draw only on a tie
                chosen[i] = moves[i, integers(k)]
        return chosen

    @classmethod
    def _batch_kernel(cls) -> ModuleType | None:
        """The compiled kernel's module, imported on first use; None without numba."""
        return optional_module(HeuristicPolicy, "_kernel", _load_kernels)

    def best_actions(self, observation: np.ndarray, action_mask: np.ndarray) -> list[int]:
        """The moves ``act`` breaks its tie among (ascending action ids): the only legal move,
        the first play that wins at once, or every play of the best score; in a talk decision,
        the convention's one signal (module docstring)."""
        legal = np.flatnonzero(action_mask).tolist()
        if len(legal) == 1:
            return [int(legal[0])]
        if legal[0] >= TALK_BASE:
            return [self._signal(observation)]
        return self._best_plays(observation, legal)

    def _signal(self, observation: np.ndarray) -> int:
        """The pile of the lowest of the best plays on the tops now (``my_plays``), named."""
        plays = np.flatnonzero(self.layout.views(observation)["my_plays"].reshape(-1) > 0.5).tolist()
        if not plays:
            return TALK_BASE  # say nothing
        best = plays if len(plays) == 1 else self._best_plays(observation, plays)
        return self._send + int(best[0]) % PILES

    def _protected(self, observation: np.ndarray) -> int:
        """Bit mask of the piles named by the teammates' latest signals (pile words)."""
        if self.talk == "none":
            return 0
        mask = 0
        for row in self.layout.views(observation)["signals"][1:]:
            latest = row[0]
            if latest[0] > 0.5:
                word = int(np.argmax(latest[1 : 1 + self._words]))
                if word in self._pile_words:
                    at = 1 + self._words
                    mask |= 1 << int(np.argmax(latest[at : at + PILES]))
        return mask

    def _next_hint(self, observation: np.ndarray) -> int | None:
        """The kinds the next player's cards are among (a bit set), if their latest signal was
        ``say nothing`` in the last lap (module docstring): those that matched none of the tops
        as they were then (the plays since it undone). None without such a signal."""
        if self.talk == "none" or self.num_players < 2:
            return None
        v = self.layout.views(observation)
        latest = v["signals"][1][0]
        n = self.num_players
        if latest[0] < 0.5 or round(float(latest[-1]) * MAX_PLAYS) != n - 2 or \
                int(np.argmax(latest[1 : 1 + self._words])) != 0:
            return None
        tops = [int(np.argmax(row)) for row in v["tops"]]
        pile_at, covered_at = PLAY_FIELD_OFFSETS["pile"], PLAY_FIELD_OFFSETS["covered"]
        for rel in range(n - 1, 1, -1):  # the plays since the signal, latest first: undone
            play = v["plays"][rel][0]
            pile = int(np.argmax(play[pile_at : pile_at + PILES]))
            tops[pile] = int(np.argmax(play[covered_at : covered_at + KINDS]))
        live = 0
        for t in tops:
            live |= MATCHES[t]
        return ~live & ((1 << KINDS) - 1)

    def _best_plays(self, observation: np.ndarray, legal: list[int]) -> list[int]:
        s = self._read(observation)
        protect = self._protected(observation)
        hint = self._next_hint(observation)
        n = self.num_players
        hand, tops, table, visible = s["hand"], s["tops"], s["table"], s["visible"]
        unseen = [2 - hand[k] - s["played"][k] - sum(o[k] for o in s["others"]) for k in range(KINDS)]
        next_size = s["hand_sizes"][1 % n]
        best_score, best = -math.inf, []
        for action in legal:
            kind, pile = divmod(action, PILES)
            new_tops = list(tops)
            new_tops[pile] = kind
            code = sum(t * p for t, p in zip(new_tops, PLACE))
            done = table[code] & visible
            score = COMPLETE_NOW * done.bit_count()
            if done and done == visible and s["goals_left"] <= done.bit_count():
                return [int(action)]  # the last goals: the game is won
            remaining = visible & ~done
            my_hand = list(hand)
            my_hand[kind] -= 1
            # who may hold each card kind next: weights per kind. The next player's hand is
            # known with open hands, and is your own with one player.
            known_next = my_hand if n == 1 else (s["others"][0] if s["open"] else None)
            weight = [0.3 * unseen[k] if known_next is not None else float(unseen[k])
                      for k in range(KINDS)]
            if known_next is not None:
                for k in range(KINDS):
                    weight[k] += 3.0 * known_next[k]
            if n > 1:
                for rel, other in enumerate(s["others"]):
                    if rel and s["open"]:
                        for k in range(KINDS):
                            weight[k] += other[k]
                for k in range(KINDS):
                    weight[k] += OWN_HAND * my_hand[k]
            score += self._reach(new_tops, code, remaining, weight, table)
            may_draw = n == 1 and s["draw_pile"] > 0
            among = unseen  # the kinds the next player's cards may be
            if hint is not None and known_next is None:
                among = [unseen[k] if hint >> k & 1 else 0 for k in range(KINDS)]
                if not sum(among):  # no such kind unseen: the hint is read as no hint
                    among = unseen
            score -= self._strand_risk(new_tops, known_next, may_draw, among, next_size)
            if protect >> pile & 1 and not done:
                score -= PROTECT
            if score > best_score + 1e-9:
                best_score, best = score, [action]
            elif score > best_score - 1e-9:
                best.append(action)
        return [int(a) for a in best]

    @staticmethod
    def _reach(tops: list[int], code: int, goals: int, weight: list[float], table: list[int]) -> float:
        """How many of ``goals`` are within one legal play of completion, each counted by
        1 - exp(-w / REACH_SCALE) where w weighs the cards that would complete it."""
        if not goals:
            return 0.0
        completes = [0] * KINDS
        for p in range(PILES):
            place = PLACE[p]
            base = code - tops[p] * place
            for k in PLAYABLE_ON[tops[p]]:
                if weight[k] > 0:
                    completes[k] |= table[base + k * place] & goals
        total = 0.0
        g = goals
        while g:
            low = g & -g
            g ^= low
            w = sum(weight[k] for k in range(KINDS) if completes[k] & low)
            if w:
                total += 10.0 * (1.0 - math.exp(-w / REACH_SCALE))
        return total

    @staticmethod
    def _strand_risk(tops: list[int], known_next: list[int] | None, may_draw: bool,
                     unseen: list[int], next_size: int) -> float:
        """Expected cost of the next player holding no legal card on ``tops``."""
        top_mask = 0
        for t in tops:
            top_mask |= 1 << t
        total = sum(unseen)
        dead = sum(unseen[k] for k in range(KINDS) if not MATCHES[k] & top_mask)
        if known_next is not None:
            if any(known_next[k] and MATCHES[k] & top_mask for k in range(KINDS)):
                return 0.0
            # with one player, the card drawn after this play may still save the turn
            return STRAND * (dead / total if may_draw and total else 1.0)
        if next_size == 0 or total <= 0:
            return 0.0
        return STRAND * (dead / total) ** next_size
