r"""# Texas Euchre — `cahoots_envs/texas_euchre-v1`

```python
from cahoots_envs import texas_euchre_v1
env = texas_euchre_v1.env(num_players=4)   # or cahoots_envs.make("texas_euchre-v1")
```

<!-- spaces -->
| | |
|---|---|
| players | 3, 4 (default), 5 or 6 |
| actions | `Discrete(85)` with 4 players (69 / 117 / 181 with 3 / 5 / 6 players) |
| observation | `Box(1257,)` float32 with 4 players (984 / 1530 / 1803 with 3 / 5 / 6 players), and an `action_mask` (int8, one per action) |
| game length | rounds of a draw phase and H tricks until someone reaches the target score (100) |
<!-- /spaces -->

## Rules

Rules spec: `docs/rules/texas_euchre.md` (section numbers below refer to it). Despite the
name it has nothing to do with Euchre: no trumps, no suits to follow, no bidding. **Points are
bad**: the lowest total wins.

- **Deck and hands** (§3.1, §3.6): a 52-card deck (two decks with 6 players). Hand size H = 4, 5,
  6, 7 with 3, 4, 5, 6 players; there are H tricks per round. Trick rank 2 < … < 10 < J < Q < K < A;
  suits never matter. A card's point value is its rank for 2–10 and, by default, J=11, Q=12,
  K=13, A=14 (option `face_card_values`).
- **Draw phase** (§3.2.2): turns go clockwise from the dealer's left.
  - A player's **first turn** of the round: discard 1..k cards face up in front of them and draw as
    many (k = min(H, cards left in the draw pile)). Throwing down is not allowed (FAQ 1).
  - **Later turns**: either `throw down` (the hand goes face down and is frozen; this player is
    the thrower) or discard 1..k and draw as many. Standing pat is not allowed.
  - **Final lap**: after the throw down, every other player clockwise from the thrower's left has
    one last turn: discard 0..k (`discard none` allowed) and draw as many. When the pile is empty
    the only choice is `discard none` (it is still asked, as a decision of its own). Throwing down
    again is the same as `discard none` (A9), so it is not offered.
  - The discards in front of a player are their **stake**, public, worth the sum of their values.
  - **Deck exhaustion** (FAQ 7): if the draw pile runs out before anyone throws down, there is no
    trick phase; everyone takes their stake as points. With the option `empty_deck_throw_down`
    (A3's alternative) each player in turn, facing the empty pile, may still `throw down` or
    decline with `discard none`; the deck is exhausted once a whole lap has declined (a player
    who has not had a first turn cannot throw down and counts as declining).
- **Trick phase** (§3.2.3): the thrower leads; everyone plays any card in turn. The highest rank
  takes the trick; among equal top ranks the card played **last** wins (two identical cards of a
  double deck too). The winner leads the next trick.
- **Scoring** (§3.2.4, t = tricks taken):
  - the thrower took **all** H tricks: everyone else takes 2 × stake, the thrower 0;
  - otherwise a non-thrower with the fewest tricks (ties included) takes their stake, any other
    non-thrower 0 (FAQ 5; a non-thrower taking every trick doubles nobody, FAQ 3);
  - the thrower takes 2 × stake with the fewest tricks (ties included, A4), 0 with the most (ties
    included), and 1 × stake in between (FAQ 4).
- **Next round** (§3.2.5): the deal passes left. The first dealer is random.
- **Game end** (§3.2.6, A6): after a round in which anyone reaches `target_score`, the lowest total
  wins. Tied lowest (FAQ 6): the one who took points most recently loses; if in the same round,
  the one who took more then loses; remaining ties are compared on earlier rounds, and a tie that
  survives every round shares the win.
- **Reverse Texas Euchre** (§3.6, option `reverse`): the lowest card takes each trick (ties: the
  last-played of the lowest); the mirrored scoring applies: a non-thrower with the most tricks
  takes their stake; the thrower takes 2 × stake with the most tricks, 0 with the fewest, 1 ×
  stake in between; there is no all-tricks doubling. The draw phase is unchanged.

## Options

<!-- options-table -->
| option | default | accepts | meaning | saved policy |
|---|---|---|---|---|
| `num_players` | `4` | one of 3, 4, 5, 6 | number of seats | must match |
| `render_mode` | `None` | one of None, 'ansi', 'human', 'rgb_array' | `'ansi'` returns a text table, `'human'` prints it, `'rgb_array'` returns an image frame (HxWx3 uint8; needs Pillow, the `render` extra) | may differ |
| `reward_mode` | `'win'` | one of 'win', 'points' | `'win'`: rewards at game end only; `'points'`: rewarded as rulebook points are awarded | may differ |
| `target_score` | `100` | an int from 1 to 10000 | the game ends after the round in which someone reaches this score (§3.2.6, A6) | may differ |
| `face_card_values` | `'ranked'` | one of 'ranked', 'tens_ace_low', 'tens_ace_high' | points of J/Q/K/A (A2): `'ranked'` 11/12/13/14, `'tens_ace_low'` 10/10/10/1, `'tens_ace_high'` 10/10/10/11 (2–10 always score their rank) | must match |
| `empty_deck_throw_down` | `False` | one of False, True | A3's alternative: when the pile runs out before anyone throws down, each player in turn may still throw down (`throw down`) or decline (`discard none`); the deck is exhausted only when a whole lap has declined | must match |
| `reverse` | `False` | one of False, True | Reverse Texas Euchre (§3.6): the lowest card takes each trick and the mirrored scoring applies | must match |
<!-- /options-table -->

## Observation

A flat float32 vector, relative to the observer: "relative seat" 0 is you, then the others
clockwise. Per-player blocks have one row per relative seat. Cards are counted by face at index
`rank*4 + suit` (ranks 2, 3, …, 10, J, Q, K, A = 0 … 12; suits C, D, H, S = 0 … 3); with two
decks a count can be 2. The table is for 4 players (with n players the per-player blocks have n
rows and later indices shift).

<!-- observation-table -->
| index | name | shape | range | meaning |
|---|---|---|---|---|
| 0–51 | `hand` | 52 | 0–2 | own hand, count by card (2 with two decks), index `rank*4 + suit`, ranks 2..A = 0..12, suits CDHS |
| 52–259 | `stakes` | 4×52 | 0–2 | face-up stake cards in front of each player (public); rows: you, then the others clockwise |
| 260–263 | `stake_points` | 4 | 0–10 | stake total per relative seat in points / 100 |
| 264 | `draw_pile_size` | 1 | 0–1 | cards left in the draw pile / 100 |
| 265–268 | `thrower` | 4 | 0–1 | relative seat that threw down this round (one-hot; zero before) |
| 269 | `throw_turn` | 1 | 0–1 | draw turns taken this round before the throw down / 100 |
| 270 | `draw_turns` | 1 | 0–1 | draw-phase turns taken this round (throw down included) / 100 |
| 271–274 | `first_turn_done` | 4 | 0–1 | 1 once that relative seat has taken its first turn |
| 275–278 | `final_lap_due` | 4 | 0–1 | 1 while that relative seat still has its final-lap turn |
| 279–282 | `phase` | 4 | 0–1 | decision phase: first_turn, draw, final_lap, play (one-hot; all zero when the game is over) |
| 283–286 | `to_move` | 4 | 0–1 | relative seat to move (one-hot; all zero when the game is over) |
| 287–290 | `dealer` | 4 | 0–1 | relative seat of the dealer (one-hot) |
| 291–498 | `trick` | 4×52 | 0–1 | current trick: the card each relative seat played |
| 499–502 | `trick_leader` | 4 | 0–1 | relative seat that led the current trick (one-hot) |
| 503–554 | `played` | 52 | 0–2 | cards played to tricks this round, count by card (2 with two decks), index `rank*4 + suit`, ranks 2..A = 0..12, suits CDHS |
| 555–606 | `seen` | 52 | 0–2 | every card seen face up this round (stakes and played cards), count by card |
| 607–814 | `played_by` | 4×52 | 0–2 | cards each relative seat played to tricks this round, count by card (2 with two decks) |
| 815–1022 | `last_discard` | 4×52 | 0–2 | cards each relative seat discarded on its latest draw turn this round, count by card (a row of zeros before its first turn and after `discard none`; a throw down keeps the turn before) |
| 1023–1230 | `last_trick` | 4×52 | 0–1 | last completed trick: the card each relative seat played (a round's final trick stays until the next trick phase begins) |
| 1231–1234 | `last_trick_leader` | 4 | 0–1 | relative seat that led the last completed trick (one-hot) |
| 1235–1238 | `last_trick_winner` | 4 | 0–1 | relative seat that took the last completed trick (one-hot) |
| 1239–1242 | `tricks_won` | 4 | 0–5 | tricks taken this round per relative seat |
| 1243–1246 | `scores` | 4 | 0–2 | cumulative score / target score per relative seat (clipped at 2; at least 1 only once the game is over) |
| 1247–1250 | `last_round_points` | 4 | 0–20 | points each relative seat took in the last finished round / 100 (0 in the first round; at most 2 × 832 points) |
| 1251–1254 | `tiebreak_rank` | 4 | 0–1 | FAQ 6 tie-break rank per relative seat / (players − 1): how many seats rank strictly better on the round points read from the latest round back (fewer points in the latest round where they differ is better); of the seats tied for the lowest score the lowest rank wins, equal ranks share |
| 1255 | `target_score` | 1 | 0–10 | the target score / 1000 |
| 1256 | `reverse` | 1 | 0–1 | 1 in Reverse Texas Euchre (lowest card takes the trick) |
<!-- /observation-table -->

Hidden from you: the other hands (the thrower's face-down hand included) and the order and
contents of the draw pile. Everything else a careful player tracks is there: all stakes and each
seat's latest discard, the cards each seat played this round, the last completed trick with its
leader and winner, the cards seen so far (stakes + played), the draw pile's size, the thrower
and the turn of the throw down, tricks, scores, last round's points, the FAQ 6 tie-break rank and
the target. Who acts next is `to_move` in every phase (the first player of the draw phase, the
final lap, the thrower's lead, each trick's taker leading the next). There is no suit to follow
(§3.2.3, A7), so nothing shows a void: no play ever reveals one.

**v1 layout: summary features, no history window.** Every public fact that bears on play is
kept as a summary of bounded size, so a memoryless policy sees it at every later decision it
matters to:

- *this round, per relative seat* (reset when a round is dealt): `played_by` (the cards it
  played to tricks, 0–2 per card with two decks) and `last_discard` (the cards it laid down on
  its latest draw turn: with `stakes`, which holds them all, this tells the last turn's choice,
  e.g. who kept a hand on the final lap). Only the latest discard is kept: earlier turns are in
  `stakes`, and the latest is the freshest sign of how a hand stands;
- *transient*: `last_trick` with `last_trick_leader` and `last_trick_winner`, kept until the
  next trick is complete; a round's final trick stays until the next trick phase begins, so
  it is seen at the next round's first decisions (`tricks_won` all zero tells it is old);
- *the game so far*: `last_round_points` (what each seat took in the last finished round,
  / 100: at most 2 × 832 points, the two-deck maximum, hence the bound 20) and
  `tiebreak_rank`, which stands for the whole per-round history FAQ 6 needs: the number of
  seats whose round points, compared from the latest round back, are smaller in the latest
  round where they differ, / (players − 1). Of the seats tied for the lowest `scores`, the one
  with the lowest rank would win now, and equal ranks (the same points in every round) share
  the win; the rank is updated round by round from the previous rank and the new points, so
  its cost does not grow with the game.

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
`cahoots_envs/games/texas_euchre/state.py`; the table is for the default options.
<!-- /state-intro -->

<!-- state-table -->
| index | name | shape | range | kind | meaning |
|---|---|---|---|---|---|
| 0–207 | `hand` | 4×52 | 0–2 | private, one row per absolute seat | own hand, count by card (2 with two decks), index `rank*4 + suit`, ranks 2..A = 0..12, suits CDHS |
| 208–415 | `stakes` | 4×52 | 0–2 | public, rows by absolute seat | face-up stake cards in front of each player (public); rows: you, then the others clockwise |
| 416–419 | `stake_points` | 4 | 0–10 | public, rows by absolute seat | stake total per relative seat in points / 100 |
| 420 | `draw_pile_size` | 1 | 0–1 | public | cards left in the draw pile / 100 |
| 421–424 | `thrower` | 4 | 0–1 | public, rows by absolute seat | relative seat that threw down this round (one-hot; zero before) |
| 425 | `throw_turn` | 1 | 0–1 | public | draw turns taken this round before the throw down / 100 |
| 426 | `draw_turns` | 1 | 0–1 | public | draw-phase turns taken this round (throw down included) / 100 |
| 427–430 | `first_turn_done` | 4 | 0–1 | public, rows by absolute seat | 1 once that relative seat has taken its first turn |
| 431–434 | `final_lap_due` | 4 | 0–1 | public, rows by absolute seat | 1 while that relative seat still has its final-lap turn |
| 435–438 | `phase` | 4 | 0–1 | public | decision phase: first_turn, draw, final_lap, play (one-hot; all zero when the game is over) |
| 439–442 | `to_move` | 4 | 0–1 | public, rows by absolute seat | relative seat to move (one-hot; all zero when the game is over) |
| 443–446 | `dealer` | 4 | 0–1 | public, rows by absolute seat | relative seat of the dealer (one-hot) |
| 447–654 | `trick` | 4×52 | 0–1 | public, rows by absolute seat | current trick: the card each relative seat played |
| 655–658 | `trick_leader` | 4 | 0–1 | public, rows by absolute seat | relative seat that led the current trick (one-hot) |
| 659–710 | `played` | 52 | 0–2 | public | cards played to tricks this round, count by card (2 with two decks), index `rank*4 + suit`, ranks 2..A = 0..12, suits CDHS |
| 711–762 | `seen` | 52 | 0–2 | public | every card seen face up this round (stakes and played cards), count by card |
| 763–970 | `played_by` | 4×52 | 0–2 | public, rows by absolute seat | cards each relative seat played to tricks this round, count by card (2 with two decks) |
| 971–1178 | `last_discard` | 4×52 | 0–2 | public, rows by absolute seat | cards each relative seat discarded on its latest draw turn this round, count by card (a row of zeros before its first turn and after `discard none`; a throw down keeps the turn before) |
| 1179–1386 | `last_trick` | 4×52 | 0–1 | public, rows by absolute seat | last completed trick: the card each relative seat played (a round's final trick stays until the next trick phase begins) |
| 1387–1390 | `last_trick_leader` | 4 | 0–1 | public, rows by absolute seat | relative seat that led the last completed trick (one-hot) |
| 1391–1394 | `last_trick_winner` | 4 | 0–1 | public, rows by absolute seat | relative seat that took the last completed trick (one-hot) |
| 1395–1398 | `tricks_won` | 4 | 0–5 | public, rows by absolute seat | tricks taken this round per relative seat |
| 1399–1402 | `scores` | 4 | 0–2 | public, rows by absolute seat | cumulative score / target score per relative seat (clipped at 2; at least 1 only once the game is over) |
| 1403–1406 | `last_round_points` | 4 | 0–20 | public, rows by absolute seat | points each relative seat took in the last finished round / 100 (0 in the first round; at most 2 × 832 points) |
| 1407–1410 | `tiebreak_rank` | 4 | 0–1 | public, rows by absolute seat | FAQ 6 tie-break rank per relative seat / (players − 1): how many seats rank strictly better on the round points read from the latest round back (fewer points in the latest round where they differ is better); of the seats tied for the lowest score the lowest rank wins, equal ranks share |
| 1411 | `target_score` | 1 | 0–10 | public | the target score / 1000 |
| 1412 | `reverse` | 1 | 0–1 | public | 1 in Reverse Texas Euchre (lowest card takes the trick) |
<!-- /state-table -->

## Actions

| ids (4 players) | text | meaning |
|---|---|---|
| 0 | `discard none` | final lap: keep your hand; with `empty_deck_throw_down`, also declining to throw down at an empty pile |
| 1–31 | `discard 5H 7H` | discard these cards (face up, your stake) and draw as many; id = bit mask over the positions of your hand sorted by card index (bit p = the p-th card) |
| 32 | `throw down` | lay your hand face down and end the draw phase (not on your first turn) |
| 33–84 | `play AC` | play this card; id = 33 + card index |

With H cards in hand (H = 4, 5, 6, 7 for 3–6 players) the discard ids are 0 … 2^H − 1, `throw
down` is 2^H and `play` is 2^H + 1 + card index. The number of cards discarded may not exceed the
draw pile. With two decks a hand may hold both copies of a card; the two subsets that differ
only in which copy they take are one action (the one taking the first position). The notation
lists cards sorted by card index; `str_to_action` takes them in any order.
`env.unwrapped.action_to_str(a)` and `str_to_action(text)` convert.

## Rewards

- `reward_mode="win"` (default): at the end of the game the winners (lowest total, after the
  FAQ 6 tie-break; a surviving tie shares) split +1 and the others split −1; a full tie gives 0.
- `reward_mode="points"`: at the end of each round every player receives **minus** the points it
  took (points are bad).
- `infos[agent]["score"]`: the cumulative score (rulebook points); `infos[agent]["phase"]`:
  the index of the current phase in `env.unwrapped.phase_names`, `("first_turn", "draw",
  "final_lap", "play", "game_over")` (its name: `env.unwrapped.phase`). Infos hold numbers only.

Scripted deals (`env.reset(options={"deal": {...}})`): `dealer` (seat), `hands` (one list of H
cards per seat), `draw_pile` (every other card, top first). A key left out is drawn from the
env's RNG with the cards the deal does not place. A whole game can be scripted: pass a list of
such deals, one per round (`options={"deal": [round_1, round_2, ...]}`); a later round's
`dealer` must be the seat the rotation gives (or be left out). Rounds after the list are dealt
from the env's RNG (tests can also script one with `env.unwrapped.game.script_round(deal)` before
its first decision). `env.unwrapped.game.deals` holds every round's deal so far in this format.

## Search

The world sampler (`cahoots_envs/games/texas_euchre/search.py`, for `cahoots_envs.search`)
conditions on what a seat knows (A8): its own dealt hand and every card it drew, every discard
(stakes are face up, so each turn shows its cards), the throw down, every card played, and the
sizes of the other hands and of the pile, in every round so far. It draws uniformly among the
consistent deals: the unseen cards are shuffled into the other hands and the pile; in the
history, each card another seat discarded lies in a slot it held before that turn (dealt or
drawn earlier), placed earliest deadline first, and the other seats' discard actions (hand
positions) are recomputed. The history is built on first access (search only plays the
world's game). It does not infer hands from how the others played (a seat that kept its low
cards is as likely as any other). The fast bot is the heuristic read from the game state (the
same moves). `value` between rounds: each seat's points still to come are modelled with a
per-round mean and spread (15 ± 15, refined by the game's own rounds) over the rounds expected
until someone reaches the target; the chance of the lowest total is a softmax of the negated
scores (the FAQ 6 rank breaks ties) with a temperature of one spread still to come (fitted on
heuristic games: log loss 1.04 against 1.42 for even chances), and a chance p is worth
(n p − 1)/(n − 1). Searched: trick decisions and draw turns once the pile is shorter than a
hand.

## Batched engine

`cahoots_envs.vector.make("texas_euchre-v1", num_envs=4096, **options)` plays thousands of games
in lockstep in numba kernels (module `games/texas_euchre/batched.py`; needs the `fast` extra; see
docs/vector.md).

- **Status**: complete. Every player count (two decks with 6) and every option of the AEC env:
  `target_score`, `face_card_values`, `empty_deck_throw_down`, `reverse`, both reward modes. A
  game never ends at its deal, so `deal_rewards` stay zero.
- **What the kernels cover**: the deal (from each game's own stream: a first dealer, then one
  shuffle per round; or scripted deals, a whole game of rounds, where keys left out are drawn
  from the game's stream), the draw phase with the throw down, the final lap and the empty deck
  (A3's alternative too), the tricks, scoring, the FAQ 6 tie-break, rewards, the observation
  entry for entry (patched in place: a card row is rewritten only where it changes) and the
  mask, and finished games dealt again after every seat's final observation. Two copies of a
  card play alike, so hands are kept as multisets of faces. `game(i)` rebuilds the reference
  game from the episode's deals (drawn again from the game's stream) and its actions.
- **Checked**: `tests/games/texas_euchre/test_vector.py` compares the seat to move, observation,
  mask, rewards, terminations, final scores and final observations with the reference at every
  step, for every player count and variant, with random play and with policies that reach the
  trick phase and the empty pile often, over the engine's own deals round after round too
  (`-m slow`: over 30,000 games).
- **Speed** (`python benchmarks/bench_envs.py --envs texas_euchre --no-classic --no-seat-env
  --num-envs 1,64,1024,4096,8192 --seconds 1 --rounds 3`, one core of a shared 2-core machine,
  random legal actions picked in numpy): with 4 players 0.54M decisions/s at 64 games, 1.05M at
  1024, 0.74M at 4096 (54× the AEC env's 13.7k/s in the same run) and 0.56M at 8192; at 4096
  games 0.94M with 3 players (63×), 0.63M with 5 (52×), 0.36M with 6 (32×: a 6-player
  observation is 7.2 KB, and random 6-player games last about 30 decisions, each ending with
  seven whole observations written). Random games are short (a deck-exhaustion round scores
  every stake), so the re-deals weigh more than in trained play. State: 980 bytes per game
  beyond the observation and mask buffers (1,161 with 6 players; a game longer than 256
  decisions keeps its older actions in a Python bytearray). Compile: about 10 s cold, 1 s cached.

## Rendering

`render_mode="ansi"` returns the spectator table as text (`"human"` prints it);
`render_mode="rgb_array"` returns an image frame, an HxWx3 `uint8` array (1280×720 with 3 or 4
players, 1280×872 with 5, 1280×1032 with 6, the same for every frame of an env, so a video has
one size), drawn with Pillow (the `render` extra) from the browser view's data. The AEC and
parallel envs draw the referee's table: every hand and stake, who deals and who threw down, the
trick, the cards played this round, the round points. The seat env (`texas_euchre_seat-v1`)
draws the learner seat's table: its own hand, the other hands as face-down counts. Cards show
their rank, suit symbol and suit letter in the suit's colour (the browser view's marks).
`metadata["render_fps"]` is 4. Examples (`RecordVideo`) and the cost of a frame: [the API
page](api.md#image-frames-and-videos).

![Texas Euchre: a frame of the referee's table (render_mode="rgb_array")](frame_texas_euchre.png)

## Version history

- v0 (cahoots-envs 0.1.0): first release.
- v1: the observation holds every public fact (rules unchanged). New segments: `played_by` and
  `last_discard` (n × 52 each: each seat's plays and latest discard this round), `last_trick`
  (n × 52), `last_trick_leader` and `last_trick_winner` (n each), `last_round_points` (n) and
  `tiebreak_rank` (n, FAQ 6). Size 617 → 1257 with 4 players (504 → 984, 730 → 1530, 843 → 1803
  with 3, 5, 6). **Migration from v0**: every v0 segment keeps its name, shape and meaning, but
  `tricks_won`, `scores`, `target_score` and `reverse` have moved, so read segments by name
  (`layout.views`), never by index. Policies trained on v0 must be retrained (the layout
  fingerprint differs and a v0 policy is refused). v0 game logs still replay, since the rules
  are those of v0.
- cahoots-envs 0.3.0 (still v1; observations, actions, rewards and saved policies unchanged):
  **breaking for code that reads names from infos**: `infos[agent]["phase"]` is an index into
  `env.unwrapped.phase_names`, the parallel env's `active_agent` a seat index; the seat env's
  mask after an episode is the placeholder mask, not all zero (docs/api.md, "Infos every client
  can stack"; CHANGELOG.md).
"""

from __future__ import annotations

from cahoots_envs.core.aec import env_factories
from cahoots_envs.core.parallel import parallel_factory
from cahoots_envs.games.texas_euchre.spec import SPEC

raw_env, env = env_factories(SPEC)
parallel_env = parallel_factory(SPEC)
