"""A rule-based Kansas City player that aims for exactly the trick limit, as a sensible human does.

Strategy (the chart pays 5 per trick up to 3 tricks, 2 with 5 players, and punishes more):
- **Pass**: with a strong hand (many 7s and 8s) pass the three highest cards; otherwise pass the
  lowest cards of the shortest suits, to make voids that upgrades can exploit.
- **Play**: while under the limit, win tricks cheaply: lead the highest card of the longest suit,
  and when following, play the lowest card that beats the trick so far (else dump the lowest).
  Once at the limit, duck: play the highest card that does not win (else the lowest). A trick
  holding a 4 is worth chasing while one more trick still scores.
- **Upgrade**: while under the limit, upgrade the last card of a suit (a void makes later trumping
  possible) or a 7/8; once at the limit, upgrade nothing.

It reads only its own observation through the layout's named views (`hand`, `trick`,
`trick_leader`, `tricks_won`, `phase`) and its action mask; none of the v1 segments.

**Without ranks** (`card_backs='hidden'`): the bot never looks at the other hands' ranks
(`hand_ranks` rows of the others, `passed_ranks`), so the zero rows change nothing for it: it
plays the same strategy, always a legal action, and in the same position chooses exactly what it
would choose with ranked backs (the rules of play are the same).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import ModuleType
from typing import Any, ClassVar

import numpy as np

from cahoots_envs.core.policy import BasePolicy, optional_module
from cahoots_envs.games.kansas_city.encoder import build_layout
from cahoots_envs.games.kansas_city.rules import (
    DECK_SIZE,
    HAND_SIZE,
    PASS_COMBOS,
    RANKS,
    TRICK_LIMIT,
    KansasCity,
)


def _load_kernels() -> ModuleType:
    from cahoots_envs.games.kansas_city import bot_batched  # imports numba

    return bot_batched


class HeuristicPolicy(BasePolicy):
    name = "heuristic"
    #: from this many rows on, ``act_batch`` decides them in one compiled call (numba)
    BATCH_KERNEL_MIN = 8
    # the compiled kernels' module (``bot_batched.py``), False once numba proved missing
    _batched: ClassVar[ModuleType | bool | None] = None
    # the kernels' constants for this bot (``bot_batched.kernel_params``), built on first use
    _kernel_params: tuple[np.ndarray, np.ndarray] | None = None

    def __init__(self, options: Mapping[str, Any], seed: int | None = None) -> None:
        self.num_players = n = int(options["num_players"])
        self.layout = build_layout(options["num_players"])
        self.hand_size = HAND_SIZE[n]
        self.limit = TRICK_LIMIT[n]
        self.play_base = KansasCity.pass_actions(n)
        self.trump_base = self.play_base + DECK_SIZE
        self.upgrade_base = self.trump_base + RANKS
        self.no_upgrade = self.upgrade_base + DECK_SIZE
        self.combo_index = {c: i for i, c in enumerate(PASS_COMBOS[self.hand_size])}
        self.rng = np.random.default_rng(seed)  # ties are broken by card order, not at random

    # ---- helpers -----------------------------------------------------------------------------
    @staticmethod
    def suit_lengths(hand: list[int]) -> list[int]:
        lengths = [0] * 7
        for c in hand:
            lengths[c // 8] += 1
        return lengths

    def trick_state(self, v: dict[str, np.ndarray]) -> tuple[int, int, int, bool]:
        """(led suit or -1 for trump/none, best trump rank or -1, best led-suit rank or -1, has a 4)."""
        trick = v["trick"]
        played = np.flatnonzero(trick.sum(axis=1))
        if len(played) == 0:
            return -1, -1, -1, False
        leader = int(np.flatnonzero(v["trick_leader"])[0])
        led_index = int(np.flatnonzero(trick[leader])[0])
        led_suit = led_index // 8 if led_index < DECK_SIZE else -1
        best_trump = best_led = -1
        has_four = False
        for rel in played:
            idx = int(np.flatnonzero(trick[rel])[0])
            if idx >= DECK_SIZE:
                best_trump = max(best_trump, idx - DECK_SIZE)
                has_four |= idx - DECK_SIZE == 3
            else:
                has_four |= idx % 8 == 3
                if idx // 8 == led_suit:
                    best_led = max(best_led, idx % 8)
        return led_suit, best_trump, best_led, has_four

    # ---- decisions ---------------------------------------------------------------------------
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return self.decide(observation, action_mask)

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """``act`` on each row in order. From ``BATCH_KERNEL_MIN`` rows, with numba installed,
        one compiled call decides every row (``bot_batched.py``) and chooses exactly as ``act``
        (the bot draws nothing at random); otherwise, or without numba, the row loop."""
        if len(observations) >= self.BATCH_KERNEL_MIN:
            kernels = self._batched_module()
            if kernels is not None:
                actions = kernels.decide_batch(self, observations, action_masks)
                if actions is not None:
                    return actions  # type: ignore[no-any-return]
        return super().act_batch(observations, action_masks)

    @staticmethod
    def _batched_module() -> ModuleType | None:
        """The kernels' module, imported on first use (it imports numba); None without numba."""
        return optional_module(HeuristicPolicy, "_batched", _load_kernels)

    def best_actions(self, observation: np.ndarray, action_mask: np.ndarray) -> list[int]:
        """The moves the bot considers best: it is deterministic (ties are broken by card order,
        never at random), so the one it plays."""
        return [self.decide(observation, action_mask)]

    def decide(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The bot's move (``act``)."""
        legal = np.flatnonzero(action_mask)
        v = self.layout.views(observation)
        phase = int(np.argmax(v["phase"]))
        if phase == 0:
            return self.choose_pass(v, legal)
        won = int(v["tricks_won"][0])
        need = won < self.limit
        if phase == 2:
            return self.choose_upgrade(v, legal, need)
        return self.choose_play(v, legal, need)

    def choose_pass(self, v: dict[str, np.ndarray], legal: np.ndarray) -> int:
        hand = [int(c) for c in np.flatnonzero(v["hand"])]
        if len(hand) != self.hand_size:
            return int(legal[0])
        strong = sum(1 for c in hand if c % 8 >= 6) > 4
        lengths = self.suit_lengths(hand)
        if strong:
            order = sorted(range(len(hand)), key=lambda p: (-(hand[p] % 8), hand[p]))
        else:
            order = sorted(range(len(hand)), key=lambda p: (lengths[hand[p] // 8], hand[p] % 8))
        return self.combo_index[tuple(sorted(order[:3]))]

    def choose_upgrade(self, v: dict[str, np.ndarray], legal: np.ndarray, need: bool) -> int:
        if not need:
            return self.no_upgrade
        hand = [int(c) for c in np.flatnonzero(v["hand"])]
        lengths = self.suit_lengths(hand)
        options = [int(a) - self.upgrade_base for a in legal if a != self.no_upgrade]
        singletons = [c for c in options if lengths[c // 8] == 1]
        high = [c for c in options if c % 8 >= 6]
        for group in (singletons, high):
            if group:
                return self.upgrade_base + max(group, key=lambda c: (c % 8, -c))
        return self.no_upgrade

    def choose_play(self, v: dict[str, np.ndarray], legal: np.ndarray, need: bool) -> int:
        # each option as (action, is_trump, suit, rank)
        options = []
        for a in legal:
            a = int(a)
            if a >= self.trump_base:
                options.append((a, True, -1, a - self.trump_base))
            else:
                card = a - self.play_base
                options.append((a, False, card // 8, card % 8))
        led_suit, best_trump, best_led, has_four = self.trick_state(v)
        leading = best_trump < 0 and best_led < 0 and led_suit < 0
        if leading:
            if need:
                hand = [int(c) for c in np.flatnonzero(v["hand"])]
                lengths = self.suit_lengths(hand)
                # highest trump first if any, else the highest card of the longest suit
                return max(options, key=lambda o: (o[1], o[3] if o[1] else 0,
                                                   lengths[o[2]] if o[2] >= 0 else 0, o[3]))[0]
            return min(options, key=lambda o: (o[1], o[3]))[0]  # lead low, keep trumps

        def wins(o: tuple[int, bool, int, int]) -> bool:
            if o[1]:
                return o[3] > best_trump
            return best_trump < 0 and o[2] == led_suit and o[3] > best_led

        winners = [o for o in options if wins(o)]
        losers = [o for o in options if not wins(o)]
        want = need or (has_four and int(v["tricks_won"][0]) == self.limit)
        if want and winners:
            return min(winners, key=lambda o: (o[1], o[3]))[0]  # cheapest winner, face before trump
        if losers:
            if need:
                return min(losers, key=lambda o: (o[1], o[3]))[0]  # dump the lowest
            return max(losers, key=lambda o: (not o[1], o[3]))[0]  # duck with the highest loser
        return min(options, key=lambda o: (o[1], o[3]))[0]
