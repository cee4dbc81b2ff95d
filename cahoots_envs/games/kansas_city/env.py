r"""# Kansas City: The Trick-Taking Game — `cahoots_envs/kansas_city-v0`

```python
from cahoots_envs import kansas_city_v0
env = kansas_city_v0.env(num_players=4)   # or cahoots_envs.make("kansas_city-v0")
```

<!-- spaces -->
| | |
|---|---|
| players | 4 (default) or 5 |
| actions | `Discrete(485)` with 4 players (286 with 5 players) |
| observation | `Box(711,)` float32 with 4 players (797 with 5 players), and an `action_mask` (int8, one per action) |
| game length | 3 hands of 14 (or 11) tricks; at most 297 decisions with 4 players |
<!-- /spaces -->

## Rules

Rules spec: `docs/rules/kansas_city.md` (section numbers below refer to it).

- 56 cards: 7 suits (A–G) × ranks 1–8. A card's **back shows its rank**, so the ranks of every
  hand are public; only suits are private (§4.1, K1).
- **Deal** (§4.2): 14 cards each with 4 players, 11 with 5; with 5 the 56th card is set aside face
  up (public).
- **Pass** (§4.2, K7): each player chooses 3 cards to pass to the left. Choices are made one seat
  at a time from the dealer's left, but nobody receives cards until everyone has chosen, so the
  pass is simultaneous in effect; a seat's cards chosen for passing still count in its public rank
  profile until the exchange.
- **Tricks** (§4.3): the dealer's left leads the first trick, the winner leads the next. Follow
  the led suit if you can; an upgraded card is *only* trump (K9), and if trump is led you must play
  a trump if you hold one. Highest trump wins, else the highest card of the led suit.
- **Upgrade** (§4.3, K2–K4): after every trick but the last, each loser clockwise from the
  winner's left may turn one non-trump card from hand face down: it becomes a trump of the same
  rank. A rank is blocked while anyone holds an unplayed upgraded trump of that rank; an earlier
  chooser can block a later one. A player with no card that may be upgraded is not asked (its
  only choice would be `no upgrade`). Which trump ranks each player holds is public; the printed
  face of an upgraded card is never revealed (K5), not even after it is played.
- **Scoring** (§4.4): per hand, 5 points per trick up to 3 tricks (2 with 5 players); one trick
  over the limit scores a flat 5; two or more over score 0; plus 2 points per captured 4 of any
  suit, upgraded 4s included (K6).
- **Game** (§4.4, K8): 3 hands (option `hands`), the deal rotating clockwise; the first dealer is
  random. Highest total wins; ties share the win.

## Options

<!-- options-table -->
| option | default | accepts | meaning | saved policy |
|---|---|---|---|---|
| `num_players` | `4` | one of 4, 5 | number of seats | must match |
| `render_mode` | `None` | one of None, 'ansi', 'human' | `'ansi'` returns a text table, `'human'` prints it | may differ |
| `reward_mode` | `'win'` | one of 'win', 'points' | `'win'`: rewards at game end only; `'points'`: rewarded as rulebook points are awarded | may differ |
| `hands` | `3` | an int from 1 to 10 or one of 'per_player' | hands in a game (§4.4): 3, or `'per_player'` for the longer game | may differ |
<!-- /options-table -->

## Observation

A flat float32 vector, relative to the observer: "relative seat" 0 is you, then the others
clockwise. Per-player blocks have one row per relative seat. The table is for 4 players (with 5,
the per-player blocks grow by one row and later indices shift).

<!-- observation-table -->
| index | name | shape | range | meaning |
|---|---|---|---|---|
| 0–55 | `hand` | 56 | 0–1 | own cards in hand (not upgraded), one-hot by card, index `suit*8 + rank-1`, suits A–G |
| 56–111 | `own_upgraded` | 56 | 0–1 | own upgraded trumps by printed face (private) |
| 112–143 | `hand_ranks` | 4×8 | 0–7 | cards of each rank 1–8 in each hand (public backs), rows: you, then the others clockwise |
| 144–175 | `trump_ranks` | 4×8 | 0–1 | 1 if that player holds an unplayed trump of that rank, rows relative as above |
| 176–431 | `trick` | 4×64 | 0–1 | current trick: per relative seat, the face card played (56) or the trump rank played (8) |
| 432–435 | `trick_leader` | 4 | 0–1 | relative seat that led the current trick (one-hot) |
| 436–491 | `played` | 56 | 0–1 | cards played this hand whose face you know: every face-up card and your own upgraded ones, one-hot by card, index `suit*8 + rank-1`, suits A–G |
| 492–499 | `trumps_played` | 8 | 0–7 | trumps played this hand, count per rank |
| 500–503 | `tricks_won` | 4 | 0–14 | tricks won this hand per relative seat |
| 504–507 | `fours_captured` | 4 | 0–7 | 4s captured this hand per relative seat |
| 508–511 | `scores` | 4 | 0–10 | cumulative score per relative seat / 100 |
| 512–521 | `hand_number` | 10 | 0–1 | index of the current hand (one-hot) |
| 522–531 | `hands_total` | 10 | 0–1 | hands in this game (one-hot at hands-1) |
| 532–535 | `dealer` | 4 | 0–1 | relative seat of the dealer (one-hot) |
| 536–538 | `phase` | 3 | 0–1 | decision phase: pass, play, upgrade (one-hot) |
| 539–542 | `to_move` | 4 | 0–1 | relative seat to move (one-hot; all zero when the game is over) |
| 543–598 | `passed` | 56 | 0–1 | the cards you passed this hand (once chosen) |
| 599–654 | `received` | 56 | 0–1 | the cards you received this hand (after the exchange) |
| 655–710 | `set_aside` | 56 | 0–1 | the public set-aside card (5 players only) |
<!-- /observation-table -->

Hidden from you: the suits of other players' cards, including the faces of their upgraded trumps
(held or played), and the cards others chose to pass until you receive them.

## Actions

| ids (4 players) | text | meaning |
|---|---|---|
| 0–363 | `pass 3A 5B 8G` | pass these 3 cards; id = index of the 3-subset of positions in your hand sorted by card index (`itertools.combinations(range(14), 3)`; 165 subsets of 11 with 5 players) |
| 364–419 | `play 5B` | play a face card; id = 364 + card index |
| 420–427 | `play 4T` | play your upgraded trump of rank r; id = 420 + r − 1 |
| 428–483 | `upgrade 5B` | upgrade this card; id = 428 + card index |
| 484 | `no upgrade` | decline to upgrade |

Card index = `suit*8 + rank − 1` with suits A=0 … G=6. With 5 players every id from `play` on
is 199 lower. `env.unwrapped.action_to_str(a)` and `str_to_action(text)` convert.

## Rewards

- `reward_mode="win"` (default): at the end of the game the winners (highest total, ties share)
  split +1 and the others split −1; a full tie gives 0 to all.
- `reward_mode="points"`: at the end of each hand every player receives that hand's points.
- `infos[agent]["score"]`: the cumulative score; `infos[agent]["phase"]`: `pass`, `play`,
  `upgrade` or `game_over`.

Scripted deals (`env.reset(options={"deal": {...}})`): `dealer` (seat), `hands` (one list of
cards per seat), `set_aside` (5 players). A whole game can be scripted: pass a list of such deals,
one per hand (`options={"deal": [hand_1, hand_2, ...]}`); a later hand's `dealer` must be the
seat the rotation gives (or be left out). Hands after the list are dealt from the env's RNG.
`env.unwrapped.game.deals` holds every hand's deal so far in this format.

## Version history

- v0 (cahoots-envs 0.1.0): first release.
"""

from __future__ import annotations

from cahoots_envs.core.aec import env_factories
from cahoots_envs.games.kansas_city.spec import SPEC

raw_env, env = env_factories(SPEC)
