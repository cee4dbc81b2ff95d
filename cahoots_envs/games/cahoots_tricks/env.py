r"""# Cahoots (competitive trick-taking, Mayday Games) — `cahoots_envs/cahoots_tricks-v1`

```python
from cahoots_envs import cahoots_tricks_v1
env = cahoots_tricks_v1.env(num_players=4)   # or cahoots_envs.make("cahoots_tricks-v1")
```

<!-- spaces -->
| | |
|---|---|
| players | 4 (default) or 3 |
| actions | `Discrete(120)` at every player count |
| observation | `Box(1736,)` float32 with 4 players (1363 with 3 players), and an `action_mask` (int8, one per action) |
| game length | 11 tricks; at most 220 decisions with 4 players (176 with 3) |
<!-- /spaces -->

## Rules

Rules spec: `docs/rules/cahoots_tricks.md` (section numbers below refer to it).

- **Cards** (§2.1): 48 cards, 6 suits — spades `S`, hearts `H`, diamonds `D`, clubs `C`, cups `U`,
  stars `R` — each with values 4, 5, 5, 6, 6, 7, 7, 8. Copies of a card are interchangeable.
- **Identity cards** (§2.1, A1): SHR, CHU, CDR, SDU; any two share exactly one suit. They are
  dealt at random, face up (public).
- **Setup** (§2.2): 12 cards to each player. With **3 players** one 5 and one 7 of each suit are
  removed into a face-down shuffled **reserve** (the deck is 36 cards), and the 4th identity card
  is unused (A7), so each player owns one suit alone (its *private* suit). A random dealer is the
  start player of trick 1 (A4).
- **Card play** (§2.3 phase 1): from the start player clockwise, two laps: each player plays 2
  cards, any cards, face up. No suit to follow.
- **Resolution** (§2.3 phase 2): each suit's values are totalled; the suits with the highest
  total win (ties: all of them). The **scoring winners** are the players whose identity card
  shows the most winning suits (A2). They share the trick's 4 points: 1 winner gets 4
  ("cahoots"), 2 get 2 each, 4 get 1 each; with **3 winners** the point cards go out in snake
  order from the start player, 1, 1 and 2 (A3; option `three_way_split="even"`: 4/3 each).
- **Keep/kill** (§2.3 phase 3, A5): pass 1, from the start player clockwise, each player takes
  any one trick card and **keeps** it or **kills** it; pass 2 in the same order, each takes one of
  the remaining cards and must give it the opposite status. Kept cards go into their owners'
  hands; the killed cards (with 3 players plus the top reserve card, which is revealed: its
  value counts in the face-value variant) are the trick's 4 point cards, 1 point each. Which
  card each player kept and killed is public (A6).
- **Next trick / end** (§2.4): the start player moves left. Before trick k each hand holds 13 − k
  cards; after trick 11 the hands are empty before keep/kill, so the game ends; the cards kept in
  trick 11 are discarded, so that keep/kill only decides the point cards (it is still played;
  with 1-point cards it changes nothing). 44 points are handed out. Highest score wins; ties
  share the win (interpretation).
- **Face-value variant** (§2.5, option `scoring="face_value"`): a point card scores its value.
  With 2 or more scoring winners they draft the point cards one at a time (`take 6S`), starting
  with the winner nearest the start player clockwise and snaking back (W1, W2, …, Wk, Wk, …);
  option `point_split="random"` deals them out at random in the same amounts instead.
- **Forced decisions**: a decision with exactly one legal action is made for the player (it has
  no choice in it): the last keep/kill pick of a trick (one card left, its status forced), a play
  from a hand holding copies of one card only (always the last card of trick 11), the last pick of
  a draft. A single scoring winner takes all the point cards without a draft.

## Options

<!-- options-table -->
| option | default | accepts | meaning | saved policy |
|---|---|---|---|---|
| `num_players` | `4` | one of 3, 4 | number of seats | must match |
| `render_mode` | `None` | one of None, 'ansi', 'human', 'rgb_array' | `'ansi'` returns a text table, `'human'` prints it, `'rgb_array'` returns an image frame (HxWx3 uint8; needs Pillow, the `render` extra) | may differ |
| `reward_mode` | `'win'` | one of 'win', 'points' | `'win'`: rewards at game end only; `'points'`: rewarded as rulebook points are awarded | may differ |
| `scoring` | `'cards'` | one of 'cards', 'face_value' | `'cards'`: 1 point per point card (§2.3); `'face_value'`: the scoring variant, a point card counts its value (§2.5) | must match |
| `point_split` | `'draft'` | one of 'draft', 'random' | face-value variant only (§2.5): `'draft'`: the scoring winners take the point cards one at a time in snake order (`take 6S`); `'random'`: dealt out at random | must match |
| `three_way_split` | `'snake'` | one of 'snake', 'even' | three scoring winners (A3): `'snake'`: the point cards go out in snake order, 1, 1 and 2 (the winner last clockwise from the start player gets 2); `'even'`: each gets a third of the trick's points | must match |
<!-- /options-table -->

## Observation

A flat float32 vector, relative to the observer: "relative seat" 0 is you, then the others
clockwise. Cards are counted by type, index `suit*5 + value − 4` with suits S H D C U R (so `4S`
is 0, `8S` is 4, `4H` is 5, …, `8R` is 29). The table is for 4 players (with 3, the per-player
blocks have one row less and later indices shift).

<!-- observation-table -->
| index | name | shape | range | meaning |
|---|---|---|---|---|
| 0–29 | `hand` | 30 | 0–2 | own hand, count per card, index `suit*5 + value-4`, suits S H D C U R |
| 30–59 | `trick_pool` | 30 | 0–2 | trick cards not yet picked in keep/kill, count per card, index `suit*5 + value-4`, suits S H D C U R |
| 60–89 | `point_pool` | 30 | 0–2 | point cards still to draft (face-value draft), count per card, index `suit*5 + value-4`, suits S H D C U R |
| 90–119 | `killed` | 30 | 0–2 | cards killed this game, count per card, index `suit*5 + value-4`, suits S H D C U R |
| 120–149 | `reserve_drawn` | 30 | 0–1 | reserve cards added to point cards (3 players) |
| 150–179 | `unseen` | 30 | 0–2 | cards in the other hands that you cannot see (not known from keeps) |
| 180–299 | `known_hands` | 4×30 | 0–2 | cards each relative seat kept and has not played since: publicly known to be in its hand; rows: you, then the others clockwise |
| 300–329 | `played` | 30 | 0–22 | times each card was played this game (kept cards can be played again) |
| 330–449 | `kept` | 4×30 | 0–11 | times each relative seat kept each card this game |
| 450–569 | `played_by` | 4×30 | 0–22 | times each relative seat played each card this game (0–22: 2 plays a trick, 11 tricks) |
| 570–689 | `killed_by` | 4×30 | 0–2 | cards each relative seat killed this game (a killed card leaves play, so 0–2 copies) |
| 690–713 | `identities` | 4×6 | 0–1 | suits on each relative seat's identity card (S H D C U R) |
| 714–953 | `trick_plays` | 4×2×30 | 0–1 | current trick: per relative seat, the card it played in lap 1 and in lap 2 (one-hot by card) |
| 954–959 | `suit_totals` | 6 | 0–1 | running total of each suit in the trick / 48 |
| 960–965 | `winning_suits` | 6 | 0–1 | suits with the highest total so far (the winning suits once the trick is played out) |
| 966–969 | `scoring_winners` | 4 | 0–1 | relative seats with the most winning suits on their identity card: who would score if the trick ended now |
| 970–1209 | `trick_picks` | 4×2×30 | 0–1 | this trick's keep/kill picks (public): per relative seat, the card kept and the card killed |
| 1210–1449 | `last_trick_plays` | 4×2×30 | 0–1 | last completed trick: per relative seat, the card it played in lap 1 and in lap 2 (one-hot by card; all zero before the first trick ends) |
| 1450–1689 | `last_trick_picks` | 4×2×30 | 0–1 | last completed trick's keep/kill picks: per relative seat, the card kept and the card killed (one-hot) |
| 1690–1695 | `last_trick_winning_suits` | 6 | 0–1 | the last completed trick's winning suits (S H D C U R) |
| 1696–1699 | `last_trick_scoring_winners` | 4 | 0–1 | relative seats that scored the last completed trick |
| 1700–1703 | `last_trick_points` | 4 | 0–1 | points each relative seat got from the last completed trick / the most a trick can give (4; 32 with face value) |
| 1704–1707 | `hand_sizes` | 4 | 0–1 | cards in hand per relative seat / 12 |
| 1708–1711 | `scores` | 4 | 0–1 | score per relative seat / the game's points (44; 288 with face value) |
| 1712–1722 | `trick_number` | 11 | 0–1 | the current trick, 1–11 (one-hot) |
| 1723–1726 | `start_player` | 4 | 0–1 | relative seat of the start player (one-hot) |
| 1727–1729 | `phase` | 3 | 0–1 | decision phase: play, keep_kill, draft (one-hot; all zero when the game is over) |
| 1730–1731 | `keep_kill_pass` | 2 | 0–1 | keep/kill pass 1 or 2 (one-hot, during keep/kill) |
| 1732–1735 | `to_move` | 4 | 0–1 | relative seat to move (one-hot; all zero when the game is over) |
<!-- /observation-table -->

Hidden from you: the cards of the other hands except those they were seen to keep (and have
not played since), and the order of the reserve. `unseen` counts the cards you cannot place.

**What the observation holds, and why summary features.** Everything public that bears on play
is in every observation, so a memoryless policy loses nothing (A6: all plays, keeps, kills and
scores are public; there is no suit to follow, so there are no voids to infer):

- *Persistent facts* are kept as **per-seat summary counts over the whole game**, not as a
  window of past tricks: a card's owner, lap or trick no longer matters once the trick is over,
  only what each seat has spent and taken. `played_by` (times each relative seat played each
  card, 0–22), `killed_by` (cards each seat killed, 0–2; they are point cards now), `kept`
  (0–11) and `known_hands` (kept and not played since, 0–2) give every seat's history; `played`,
  `killed`, `reserve_drawn` and `unseen` are the totals. Counts are raw (not scaled); the
  declared `high` of each segment is its true maximum.
- *Transient facts*: the trick in progress (`trick_plays` by seat and lap, `trick_picks`, running
  `suit_totals`, `winning_suits`, `scoring_winners`) and the **last completed trick** in full
  (`last_trick_plays`, `last_trick_picks`, `last_trick_winning_suits`,
  `last_trick_scoring_winners`, and `last_trick_points` = points each seat got from it / the most
  one trick can give a seat, 4, or 32 with face value; all zero before trick 1 ends). Its start
  player, and so the order of its picks, is the seat before `start_player` (once the game is
  over, `start_player` itself). With 3 players its reserve point card is not named on its
  own: `reserve_drawn` holds every drawn reserve card (so what the reserve still holds), and
  its points are in `last_trick_points` and `scores`.
- *Who acts*: `start_player` leads the card play and the keep/kill passes of the current trick;
  `to_move` is the seat to act in every phase (in the draft: the winner taking a card; the snake
  order follows from `scoring_winners` and `start_player`). `phase`, `keep_kill_pass` and
  `to_move` are all zero once the game is over.
- Which winner received which point card is not encoded: it never bears on play (the scores
  hold its whole effect).

## Global state

<!-- state-intro -->
`env.state()` (the parallel env's `state()` too) returns one float32 vector, `env.state_space`,
for centralised critics: every seat's private facts (its hand above all) in one row per
absolute seat, and every public fact once, with per-seat rows in absolute seat order (as seat 0
sees them: in the meanings below "you" is seat 0 for public rows, and the row's own seat for
private rows). It is built from the observations, so it holds everything any seat sees and
nothing no seat sees: never the order of future chance events. `env.state_layout.
observation_from_state(state, seat)` rebuilds any seat's observation from it (the test suite
checks this on random games of every player count and variant). Its layout is declared in
`cahoots_envs/games/cahoots_tricks/state.py`; the table is for the default options.
<!-- /state-intro -->

<!-- state-table -->
| index | name | shape | range | kind | meaning |
|---|---|---|---|---|---|
| 0–119 | `hand` | 4×30 | 0–2 | private, one row per absolute seat | own hand, count per card, index `suit*5 + value-4`, suits S H D C U R |
| 120–149 | `trick_pool` | 30 | 0–2 | public | trick cards not yet picked in keep/kill, count per card, index `suit*5 + value-4`, suits S H D C U R |
| 150–179 | `point_pool` | 30 | 0–2 | public | point cards still to draft (face-value draft), count per card, index `suit*5 + value-4`, suits S H D C U R |
| 180–209 | `killed` | 30 | 0–2 | public | cards killed this game, count per card, index `suit*5 + value-4`, suits S H D C U R |
| 210–239 | `reserve_drawn` | 30 | 0–1 | public | reserve cards added to point cards (3 players) |
| 240–359 | `unseen` | 4×30 | 0–2 | private, one row per absolute seat | cards in the other hands that you cannot see (not known from keeps) |
| 360–479 | `known_hands` | 4×30 | 0–2 | public, rows by absolute seat | cards each relative seat kept and has not played since: publicly known to be in its hand; rows: you, then the others clockwise |
| 480–509 | `played` | 30 | 0–22 | public | times each card was played this game (kept cards can be played again) |
| 510–629 | `kept` | 4×30 | 0–11 | public, rows by absolute seat | times each relative seat kept each card this game |
| 630–749 | `played_by` | 4×30 | 0–22 | public, rows by absolute seat | times each relative seat played each card this game (0–22: 2 plays a trick, 11 tricks) |
| 750–869 | `killed_by` | 4×30 | 0–2 | public, rows by absolute seat | cards each relative seat killed this game (a killed card leaves play, so 0–2 copies) |
| 870–893 | `identities` | 4×6 | 0–1 | public, rows by absolute seat | suits on each relative seat's identity card (S H D C U R) |
| 894–1133 | `trick_plays` | 4×2×30 | 0–1 | public, rows by absolute seat | current trick: per relative seat, the card it played in lap 1 and in lap 2 (one-hot by card) |
| 1134–1139 | `suit_totals` | 6 | 0–1 | public | running total of each suit in the trick / 48 |
| 1140–1145 | `winning_suits` | 6 | 0–1 | public | suits with the highest total so far (the winning suits once the trick is played out) |
| 1146–1149 | `scoring_winners` | 4 | 0–1 | public, rows by absolute seat | relative seats with the most winning suits on their identity card: who would score if the trick ended now |
| 1150–1389 | `trick_picks` | 4×2×30 | 0–1 | public, rows by absolute seat | this trick's keep/kill picks (public): per relative seat, the card kept and the card killed |
| 1390–1629 | `last_trick_plays` | 4×2×30 | 0–1 | public, rows by absolute seat | last completed trick: per relative seat, the card it played in lap 1 and in lap 2 (one-hot by card; all zero before the first trick ends) |
| 1630–1869 | `last_trick_picks` | 4×2×30 | 0–1 | public, rows by absolute seat | last completed trick's keep/kill picks: per relative seat, the card kept and the card killed (one-hot) |
| 1870–1875 | `last_trick_winning_suits` | 6 | 0–1 | public | the last completed trick's winning suits (S H D C U R) |
| 1876–1879 | `last_trick_scoring_winners` | 4 | 0–1 | public, rows by absolute seat | relative seats that scored the last completed trick |
| 1880–1883 | `last_trick_points` | 4 | 0–1 | public, rows by absolute seat | points each relative seat got from the last completed trick / the most a trick can give (4; 32 with face value) |
| 1884–1887 | `hand_sizes` | 4 | 0–1 | public, rows by absolute seat | cards in hand per relative seat / 12 |
| 1888–1891 | `scores` | 4 | 0–1 | public, rows by absolute seat | score per relative seat / the game's points (44; 288 with face value) |
| 1892–1902 | `trick_number` | 11 | 0–1 | public | the current trick, 1–11 (one-hot) |
| 1903–1906 | `start_player` | 4 | 0–1 | public, rows by absolute seat | relative seat of the start player (one-hot) |
| 1907–1909 | `phase` | 3 | 0–1 | public | decision phase: play, keep_kill, draft (one-hot; all zero when the game is over) |
| 1910–1911 | `keep_kill_pass` | 2 | 0–1 | public | keep/kill pass 1 or 2 (one-hot, during keep/kill) |
| 1912–1915 | `to_move` | 4 | 0–1 | public, rows by absolute seat | relative seat to move (one-hot; all zero when the game is over) |
<!-- /state-table -->

## Actions

| ids | text | meaning |
|---|---|---|
| 0–29 | `play 8S` | play this card in the current trick; id = card index |
| 30–59 | `keep 8S` | take this trick card and keep it; id = 30 + card index |
| 60–89 | `kill 5C` | take this trick card and kill it (it becomes a point card); id = 60 + card index |
| 90–119 | `take 6S` | face-value draft: take this point card; id = 90 + card index |

In keep/kill pass 1 both `keep` and `kill` are legal for every remaining trick card; in pass 2
only the status opposite to your pass-1 pick. `env.unwrapped.action_to_str(a)` and
`str_to_action(text)` convert.

## Rewards

- `reward_mode="win"` (default): at the end of the game the winners (highest score, ties share)
  split +1 and the others split −1; a full tie gives 0 to all.
- `reward_mode="points"`: each scoring winner receives its points at the step that completes
  the trick's keep/kill (with the draft, at each `take`).
- `infos[agent]["score"]`: the score so far (a float: thirds of a point with
  `three_way_split="even"`); `infos[agent]["phase"]`: the index of the current phase in
  `env.unwrapped.phase_names`, `("play", "keep_kill", "draft", "game_over")` (its name:
  `env.unwrapped.phase`). Infos hold numbers only.

Scripted deals (`env.reset(options={"deal": {...}})`): `start_player` (seat), `identities` (per
seat a list of 3 suit letters, one of the four identity cards, e.g. `["S", "H", "R"]`), `hands`
(12 cards per seat), `reserve` (3 players: the 12 removed cards, top first). Keys left out are
drawn from the env's RNG.

## Search

The game has a world sampler for the search bots (`cahoots_envs.search`; module
`games/cahoots_tricks/search.py`):

- **What a world keeps**: everything the seat knows — its own hand, the identity cards, the whole
  action history (every play, keep, kill and draft pick is public), the scores and point cards,
  the cards each seat is known to hold from keeps, and (3 players) the reserve cards drawn so
  far, in order. It re-deals the cards the seat cannot place (a uniform shuffle of the unseen
  cards into the other hands, sizes kept) and shuffles what is left of the reserve (its contents
  are public). There are no voids to respect (no suit to follow); the one inference is from
  **forced plays**: a play from a 2-card hand (lap 2 of trick 10, lap 1 of trick 11) is made for
  the player when the hand is a pair, and so is missing from the history. The sampler reads the
  history to tell which of those plays were forced and keeps each seat's last unknown card
  consistent with it (and leaves the seat to play a real choice). The world's history replays
  to the seat's observations step for step; with `point_split="random"` the world's generator is
  fresh, so a replay repeats the past random splits only from the true game's generator.
- **Fast bot**: the rule-based bot computed from the game state instead of an observation (the
  same scores to the bit, the same tie order and generator calls), about 10× faster than the
  observation bot with its encoding.
- **Value**: one hand is the whole game, so a rollout always reaches the end and is scored by
  `outcome()`. Every decision is searched, from trick 1 (rollouts on the batched engine make
  the whole game affordable; docs/lab/search_tricks_window.md).

## Networks

`zoo:cahoots_tricks` (since 2026-12-02) is an action-scoring network (`policies/scoring.py`) that
reads, beside the observation, per-move features it computes from the observation itself
(`features.py`, `tactics`: for a play, the share of the trick it would win if the trick ended
now, the best other seat's share, the margin of your best suit over the best suit not yours, its
cost; for keep and kill, what the card is worth kept or killed; the card's value and how its suit
sits on the identity cards; the heuristic bot's own terms, so the observation and this env's
version stay as they are). Cloned from the heuristic and trained by expert iteration
(`configs/expert_iteration/cahoots_tricks.yaml`), it wins 0.934 against three random players
(the heuristic: 0.913) and 0.419 against three heuristic bots (2,000 games a row, `cahoots
strength cahoots_tricks`; docs/training.md). It plays the default options (4 players, card
scoring).

## Batched engine

`cahoots_envs.vector.make("cahoots_tricks-v1", num_envs=4096)` plays thousands of games in
lockstep in one numba kernel (module `games/cahoots_tricks/batched.py`; needs the `fast` extra).

- **Status**: complete. Every player count and option of the AEC env, `point_split="random"`
  included (its random splits come from each game's own stream and are recorded, so `game(i)`
  replays them). Forced decisions are made inside the kernel as in the AEC env. A game never
  ends at its deal, so `deal_rewards` stay zero.
- **What the kernel covers**: dealing (random or scripted; keys a scripted deal leaves out are
  drawn from the game's stream), the rules, rewards in both modes, the observation entry for
  entry and the mask, re-dealing finished games with every seat's final observation. `game(i)`
  rebuilds the reference game from the deal and the actions kept per game.
- **Checked**: `tests/games/cahoots_tricks/test_vector.py` compares observation, mask, seat to move,
  rewards, terminations, final scores and final observations with the reference at every step
  (`-m slow`: tens of thousands of games).
- **Speed** (`python benchmarks/bench_envs.py --envs cahoots_tricks --no-classic
  --no-seat-env`, one core of a shared 2-core machine, random legal actions picked in numpy):
  about 0.4M decisions/s at 4096 games with 4 players (0.26–0.39M at 64–8192; 58× the AEC
  env's 6.8k/s in the same run), 0.4–0.5M with 3 players. A 4-player observation is 6.9 KB, so
  at large batches the rewrite of each row is bound by memory bandwidth. State: 1.2 KB per
  game beyond the observation and mask buffers. Compile: about 20 s cold, 2 s cached.

## Rendering

`render_mode="ansi"` returns the spectator table as text (`"human"` prints it);
`render_mode="rgb_array"` returns an image frame, an HxWx3 `uint8` array (1280×720, the same for
every frame of an env, so a video has one size), drawn with Pillow (the `render` extra) from the
browser view's data. The AEC and parallel envs draw the referee's table: every hand, identity
card and card known in a hand, the trick with its suit totals (the leading suits ringed) and
scoring seats, the keep/kill picks, the killed cards, the reserve, the last trick's result. The
seat env (`cahoots_tricks_seat-v1`) draws the learner seat's table: its own hand, the other
hands as face-down counts. Cards show their rank, suit symbol and suit letter in the suit's
colour (the browser view's marks). `metadata["render_fps"]` is 4. Examples (`RecordVideo`) and
the cost of a frame: [the API page](api.md#image-frames-and-videos).

![Cahoots: a frame of the referee's table (render_mode="rgb_array")](frame_cahoots_tricks.png)

## Version history

- v0 (cahoots-envs 0.1.0): first release.
- v1: the observation holds every public fact (rules unchanged). New segments: `played_by` and
  `killed_by` (n × 30 each: each seat's plays and kills this game), `last_trick_plays` and
  `last_trick_picks` (n × 2 × 30 each), `last_trick_winning_suits` (6),
  `last_trick_scoring_winners` (n) and `last_trick_points` (n); `phase` is now all zero once
  the game is over. Size 1002 → 1736 with 4 players, 811 → 1363 with 3.
  **Migration from v0**: every v0 segment keeps its name, shape and meaning, but the segments
  after `kept` have moved, so read them by name (`layout.views`), never by index. Policies
  trained on v0 must be retrained (the layout fingerprint differs and a v0 policy is refused).
  v0 game logs still replay, since the rules are those of v0.
- cahoots-envs 0.3.0 (still v1; observations, actions, rewards and saved policies unchanged):
  **breaking for code that reads names from infos**: `infos[agent]["phase"]` is an index into
  `env.unwrapped.phase_names`, the parallel env's `active_agent` a seat index; the seat env's
  mask after an episode is the placeholder mask, not all zero (docs/api.md, "Infos every client
  can stack"; CHANGELOG.md).
"""

from __future__ import annotations

from cahoots_envs.core.aec import env_factories
from cahoots_envs.core.parallel import parallel_factory
from cahoots_envs.games.cahoots_tricks.spec import SPEC

raw_env, env = env_factories(SPEC)
parallel_env = parallel_factory(SPEC)
