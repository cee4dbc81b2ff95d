r"""# Cahoots (cooperative goal cards) — `cahoots_envs/cahoots_coop-v0`

## Rules

## Options

<!-- options-table -->
| option | default | accepts | meaning |
|---|---|---|---|
| `num_players` | `3` | one of 1, 2, 3, 4 | number of seats |
| `render_mode` | `None` | one of None, 'ansi', 'human' | `'ansi'` returns a text table, `'human'` prints it |
| `reward_mode` | `'win'` | one of 'win', 'points' | `'win'`: rewards at game end only; `'points'`: rewarded as rulebook points are awarded |
| `difficulty` | `'normal'` | one of 'beginner', 'normal', 'expert', 'insane' | number of goals (§1.4): 15/18/21/24 with 1–3 players, 12/15/18/21 with 4 |
| `num_goals` | `None` | an int from 1 to 50 or one of None | play with this many goals instead (overrides `difficulty`) |
| `multicolour_mode` | `'union'` | one of 'union', 'disjunctive' | goals naming several colours (§1.10 A2): `'union'` pools them (Spanish/English rules), `'disjunctive'` needs the goal to hold for one of them alone (Dutch) |
| `open_hands` | `False` | one of False, True | Lil / Mini Cahoots (§1.8): every hand is visible to every player |
<!-- /options-table -->

## Observation

<!-- observation-table -->
| index | name | shape | range | meaning |
|---|---|---|---|---|
| 0–27 | `hand` | 28 | 0–2 | own cards, count per kind (two copies), index `colour*7 + number-1`, colours G, O, P, V |
| 28–83 | `other_hands` | 2×28 | 0–2 | with `open_hands`: the others' cards, count per kind, rows: the next player clockwise first (all zero when hands are hidden) |
| 84–86 | `hand_sizes` | 3 | 0–4 | cards in each hand, rows: you, then the others clockwise |
| 87–198 | `tops` | 4×28 | 0–1 | top card of piles 0–3, one-hot per pile by kind |
| 199–226 | `played` | 28 | 0–2 | every card on the piles (tops and covered), count per kind |
| 227 | `draw_pile` | 1 | 0–1 | cards in the draw pile / 48 |
| 228–567 | `goals` | 4×85 | 0–1 | the visible goals, 85 features per slot (table below); all zero for an empty slot |
| 568–617 | `completed` | 50 | 0–1 | goals completed so far (setup included), by id |
| 618–621 | `goal_counts` | 4 | 0–1 | goals completed, goals remaining, goals in the goal deck, goals in the game; each / 50 |
| 622–624 | `to_move` | 3 | 0–1 | relative seat to move (one-hot; all zero when the game is over) |
| 625–626 | `rules` | 2 | 0–1 | 1 if `open_hands`; 1 if `multicolour_mode='disjunctive'` |
<!-- /observation-table -->

## Actions

## Rewards

## Version history

- v0 (cahoots-envs 0.1.0): first release.
"""

from __future__ import annotations

from typing import Any

from cahoots_envs.core.aec import CardGameEnv
from cahoots_envs.games.cahoots_coop.rules import CahootsCoop


def raw_env(**options: Any) -> CardGameEnv:
    """The bare env: illegal actions raise ``IllegalActionError`` and change nothing."""
    return CardGameEnv(CahootsCoop, protected=False, **options)


def env(**options: Any) -> CardGameEnv:
    """The protected env (an illegal action gives -1 and ends the game, as PettingZoo's classic
    wrappers do)."""
    return CardGameEnv(CahootsCoop, protected=True, **options)
