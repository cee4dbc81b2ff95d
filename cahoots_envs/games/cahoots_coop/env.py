r"""# Cahoots (cooperative goal cards) — `cahoots_envs/cahoots_coop-v1`

```python
from cahoots_envs import cahoots_coop_v1
env = cahoots_coop_v1.env(num_players=3)   # or cahoots_envs.make("cahoots_coop-v1")
```

<!-- spaces -->
| | |
|---|---|
| players | 1–4 (default 3); 2–4 are the official counts, 1 is the spec's solo mode |
| actions | `Discrete(112)` at every player count |
| observation | `Box(1507,)` float32 with 3 players (1043 / 1275 / 1739 with 1 / 2 / 4 players), and an `action_mask` (int8, one per action) |
| game length | at most 52 decisions (one card a turn; four cards start the piles) |
<!-- /spaces -->

A cooperative game (Gamewright, 2018; Ken Gruhl): the team wins or loses together.

## Rules

Rules spec: `docs/rules/cahoots_coop.md` (section numbers below refer to it).

- **Cards** (§1.3): 56 number cards, colours G green, O orange, P pink, V purple × numbers 1–7 ×
  two copies. Hands hold 4 cards for every player count.
- **Setup** (§1.4): deal 4 cards to each player (private; public with `open_hands`), 4 face up as
  the piles 0–3, the rest face down as the draw pile. Shuffle the 50 goal cards and keep G of
  them as the goal deck (the rest are out of the game, unseen); turn 4 face up. Goals the starting
  piles already satisfy are set aside as completed and replaced, and the replacements are checked
  at once (A4). The start player is drawn uniformly at random.
- **Goals in play** (§1.4, `difficulty`): G = 15 / 18 / 21 / 24 (beginner / normal / expert /
  insane) with 1–3 players, 12 / 15 / 18 / 21 with 4; `num_goals` overrides it.
- **A turn** (§1.5): play exactly one card from your hand onto one pile whose top card has the
  same colour or the same number; there is no pass. Then draw back to 4 while the draw pile lasts.
- **Goal resolution** (§1.5, A4): after every play, every visible goal the four tops satisfy is
  completed at once; the empty places are refilled from the goal deck and the new goals are
  checked against the same tops, until nothing changes. Several goals can complete in one turn.
  Once the goal deck is empty fewer than 4 goals may be showing (A7).
- **Goals** (§1.9, A3): each is a predicate on the four pile tops, independent of pile order.
  Counts and totals are exact ("three green" is not four green; "lower than 4" is strict). A goal
  naming colours pools them and needs at least one of them showing, so 0 = 0 never satisfies
  "green equals purple". With `multicolour_mode="disjunctive"` (the Dutch reading, A2) a goal
  naming several colours must hold for one colour alone (`ALL_GREEN_OR_ORANGE` = all four green
  or all four orange; colour sums: `sum(X) == N` for one X); `ratio` goals mean the same either way.
  The 50 goals (the printed list was never found; this is the spec's set) live in one data file,
  `cahoots_envs/games/cahoots_coop/goals.json`, with their family and parameters, so another list
  in the same format can be swapped in (`goals.load_goals(path)`).
- **Win** (§1.6): every one of the G goals is completed, checked after every resolution,
  including at setup.
- **Loss** (§1.6): the player to move holds cards but none can be played (also checked at setup),
  or every card has been played (draw pile and hands empty) with goals left. An empty draw pile
  alone does not end the game: hands then shrink by one card a lap, all reaching 0 together.
- **Not modelled**: table talk (the default is *Mum's the word*, A8) and Speed Cahoots (real time).
- A game that ends at the deal (every goal met by the starting piles, or a start player without a
  legal card) has no decision: after `reset()` every agent is already terminated.

### The goal cards

The last column is the chance that four random tops satisfy the goal (exact enumeration over all
C(56, 4) draws, as in §1.9, default `union` reading). Families and their parameters are described
in `goals.json`.

| # | id | family | requirement on the four tops | random tops |
|---|---|---|---|---|
| 0 | `THREE_GREEN` | colour_count | Exactly three piles show green | 4.16% |
| 1 | `THREE_ORANGE` | colour_count | Exactly three piles show orange | 4.16% |
| 2 | `THREE_PINK` | colour_count | Exactly three piles show pink | 4.16% |
| 3 | `THREE_PURPLE` | colour_count | Exactly three piles show purple | 4.16% |
| 4 | `ALL_GREEN_OR_ORANGE` | colour_count | Every pile shows green or orange (mixing allowed) | 5.57% |
| 5 | `ALL_GREEN_OR_PINK` | colour_count | Every pile shows green or pink (mixing allowed) | 5.57% |
| 6 | `ALL_GREEN_OR_PURPLE` | colour_count | Every pile shows green or purple (mixing allowed) | 5.57% |
| 7 | `ALL_ORANGE_OR_PINK` | colour_count | Every pile shows orange or pink (mixing allowed) | 5.57% |
| 8 | `ALL_ORANGE_OR_PURPLE` | colour_count | Every pile shows orange or purple (mixing allowed) | 5.57% |
| 9 | `ALL_PINK_OR_PURPLE` | colour_count | Every pile shows pink or purple (mixing allowed) | 5.57% |
| 10 | `SUM_8` | sum | The four piles add up to 8 | 1.33% |
| 11 | `SUM_10` | sum | The four piles add up to 10 | 3.37% |
| 12 | `SUM_12` | sum | The four piles add up to 12 | 6.21% |
| 13 | `SUM_14` | sum | The four piles add up to 14 | 8.76% |
| 14 | `SUM_15` | sum | The four piles add up to 15 | 9.58% |
| 15 | `SUM_18` | sum | The four piles add up to 18 | 8.76% |
| 16 | `SUM_20` | sum | The four piles add up to 20 | 6.21% |
| 17 | `SUM_22` | sum | The four piles add up to 22 | 3.37% |
| 18 | `GREEN_SUM_5` | sum | The green piles add up to 5 (at least one green pile) | 8.17% |
| 19 | `GREEN_SUM_9` | sum | The green piles add up to 9 (at least one green pile) | 3.16% |
| 20 | `ORANGE_SUM_4` | sum | The orange piles add up to 4 (at least one orange pile) | 7.45% |
| 21 | `ORANGE_SUM_11` | sum | The orange piles add up to 11 (at least one orange pile) | 2.34% |
| 22 | `PINK_SUM_6` | sum | The pink piles add up to 6 (at least one pink pile) | 8.48% |
| 23 | `PINK_SUM_10` | sum | The pink piles add up to 10 (at least one pink pile) | 2.55% |
| 24 | `PURPLE_SUM_3` | sum | The purple piles add up to 3 (at least one purple pile) | 7.19% |
| 25 | `PURPLE_SUM_8` | sum | The purple piles add up to 8 (at least one purple pile) | 3.30% |
| 26 | `PURPLE_HALF_GREEN` | ratio | The purple piles add up to half of the green piles | 2.11% |
| 27 | `GREEN_HALF_ORANGE` | ratio | The green piles add up to half of the orange piles | 2.11% |
| 28 | `ORANGE_HALF_PINK` | ratio | The orange piles add up to half of the pink piles | 2.11% |
| 29 | `PINK_HALF_PURPLE` | ratio | The pink piles add up to half of the purple piles | 2.11% |
| 30 | `GREEN_HALF_PINK` | ratio | The green piles add up to half of the pink piles | 2.11% |
| 31 | `ORANGE_HALF_PURPLE` | ratio | The orange piles add up to half of the purple piles | 2.11% |
| 32 | `GREEN_EQ_PURPLE` | ratio | The green piles add up to the same as the purple piles | 4.33% |
| 33 | `ORANGE_EQ_PINK` | ratio | The orange piles add up to the same as the pink piles | 4.33% |
| 34 | `GREEN_EQ_ORANGE` | ratio | The green piles add up to the same as the orange piles | 4.33% |
| 35 | `PINK_EQ_PURPLE` | ratio | The pink piles add up to the same as the purple piles | 4.33% |
| 36 | `GREEN_PURPLE_SUM_12` | sum | The green and purple piles together add up to 12 | 5.45% |
| 37 | `ORANGE_PINK_SUM_9` | sum | The orange and pink piles together add up to 9 | 7.10% |
| 38 | `PINK_PURPLE_SUM_14` | sum | The pink and purple piles together add up to 14 | 3.62% |
| 39 | `ALL_BELOW_4` | numbers | Every pile shows a number lower than 4 | 2.89% |
| 40 | `ALL_ABOVE_4` | numbers | Every pile shows a number higher than 4 | 2.89% |
| 41 | `ALL_EVEN` | numbers | Every pile shows an even number | 2.89% |
| 42 | `ALL_ODD` | numbers | Every pile shows an odd number | 9.79% |
| 43 | `FOUR_COLOURS` | pattern | The four piles show four different colours | 10.46% |
| 44 | `TWO_AND_TWO` | pattern | Exactly two colours showing, two piles each | 13.53% |
| 45 | `ALL_DIFFERENT` | pattern | Four different colours and four different numbers | 3.66% |
| 46 | `SAME_COLOUR` | pattern | All four piles show the same colour | 1.09% |
| 47 | `TWO_PAIRS` | pattern | Two pairs of numbers (e.g. 3, 3, 6, 6) | 4.48% |
| 48 | `THREE_OF_A_KIND` | pattern | Exactly three piles show the same number | 5.12% |
| 49 | `RUN_OF_4` | pattern | The four numbers are consecutive, in any order (e.g. 2, 3, 4, 5) | 4.46% |

## Options

<!-- options-table -->
| option | default | accepts | meaning | saved policy |
|---|---|---|---|---|
| `num_players` | `3` | one of 1, 2, 3, 4 | number of seats | must match |
| `render_mode` | `None` | one of None, 'ansi', 'human', 'rgb_array' | `'ansi'` returns a text table, `'human'` prints it, `'rgb_array'` returns an image frame (HxWx3 uint8; needs Pillow, the `render` extra) | may differ |
| `reward_mode` | `'win'` | one of 'win', 'points' | `'win'`: rewards at game end only; `'points'`: rewarded as rulebook points are awarded | may differ |
| `difficulty` | `'normal'` | one of 'beginner', 'normal', 'expert', 'insane' | number of goals (§1.4): 15/18/21/24 with 1–3 players, 12/15/18/21 with 4 | may differ |
| `num_goals` | `None` | an int from 1 to 50 or one of None | play with this many goals instead (overrides `difficulty`) | may differ |
| `multicolour_mode` | `'union'` | one of 'union', 'disjunctive' | goals naming several colours (§1.10 A2): `'union'` pools them (Spanish/English rules), `'disjunctive'` needs the goal to hold for one of them alone (Dutch) | must match |
| `open_hands` | `False` | one of False, True | Lil / Mini Cahoots (§1.8): every hand is visible to every player | must match |
| `talk` | `'none'` | one of 'none', 'spanish', 'dutch' | table talk (§1.1, §1.7): `'none'` (Mum's the word), `'spanish'` (which pile I would like to play on, which goal to go for), `'dutch'` (don't play on that pile, I have the right card for that pile, I can complete this goal); a talk decision follows each play (see Table talk) | must match |
<!-- /options-table -->

## Observation

A flat float32 vector, relative to the observer: "relative seat" 0 is you, then the others
clockwise. The table is for 3 players (with 1, 2 or 4 players the per-player blocks shrink or
grow and later indices shift; with one player there is no `other_hands`). Card kinds are indexed
`colour*7 + number-1` with colours G=0, O=1, P=2, V=3. Besides the raw state, `my_plays` and
`play_completes` spell out what each play of your own cards would do now (which piles it fits,
how many visible goals it completes at once), indexed like the actions: a strong team player
sees that at a glance, and a network learns far faster with it (docs/lab/maskableppo_recipes.md).

<!-- observation-table -->
| index | name | shape | range | meaning |
|---|---|---|---|---|
| 0–27 | `hand` | 28 | 0–2 | own cards, count per kind (two copies), index `colour*7 + number-1`, colours G, O, P, V |
| 28–83 | `other_hands` | 2×28 | 0–2 | with `open_hands`: the others' cards, count per kind, rows: the next player clockwise first (all zero when hands are hidden) |
| 84–86 | `hand_sizes` | 3 | 0–4 | cards in each hand, rows: you, then the others clockwise |
| 87–198 | `tops` | 4×28 | 0–1 | top card of piles 0–3, one-hot per pile by kind |
| 199–226 | `played` | 28 | 0–2 | every card on the piles (tops and covered), count per kind |
| 227 | `draw_pile` | 1 | 0–1 | cards in the draw pile / 48 |
| 228–339 | `my_plays` | 28×4 | 0–1 | 1 where a card of your hand may go on that pile now (indexed like the actions: `kind*4 + pile`), on your turn or not |
| 340–451 | `play_completes` | 28×4 | 0–1 | for each of those plays, the visible goals it would complete at once / 4 (before replacements are turned up) |
| 452–791 | `goals` | 4×85 | 0–1 | the visible goals, 85 features per slot (table below); all zero for an empty slot |
| 792–841 | `completed` | 50 | 0–1 | goals completed so far (setup included), by id |
| 842–845 | `goal_counts` | 4 | 0–1 | goals completed, goals remaining, goals in the goal deck, goals in the game; each / 50 |
| 846–848 | `to_move` | 3 | 0–1 | relative seat to move (one-hot; all zero when the game is over) |
| 849–850 | `rules` | 2 | 0–1 | 1 if `open_hands`; 1 if `multicolour_mode='disjunctive'` |
| 851–1222 | `plays` | 3×2×62 | 0–1 | the last 2 plays of each seat (the last 2 laps), rows: you, then the others clockwise; per row its latest play first, 62 features per play (table below); all zero for a play not yet made |
| 1223–1306 | `played_by` | 3×28 | 0–2 | every card each seat has played this game, count per kind, rows: you, then the others clockwise |
| 1307–1456 | `completed_by` | 3×50 | 0–1 | the goals each seat's plays completed, by id, rows: you, then the others clockwise (goals met at setup are in no row) |
| 1457–1506 | `last_completed` | 50 | 0–1 | the goals the latest play completed, by id (before the first play: the goals met at setup) |
<!-- /observation-table -->

Each visible goal (segment `goals`, one row per goal slot 0–3) is described by its parameters as
well as its id, so a policy can generalise across goals. Within a row of 85 features:

| index | name | width | meaning |
|---|---|---|---|
| 0 | `present` | 1 | 1 if this slot holds a goal |
| 1–5 | `family` | 5 | one-hot: colour_count, sum, ratio, numbers, pattern |
| 6–9 | `colours` | 4 | colours named by the goal (green, orange, pink, purple) |
| 10–13 | `ratio_first` | 4 | `ratio`: the colour X of `factor * sum(X) == sum(Y)` |
| 14 | `count` | 1 | `colour_count`: the exact number of piles / 4 |
| 15 | `total` | 1 | `sum`: the target total / 28 |
| 16 | `factor` | 1 | `ratio`: the factor / 2 (0.5 equal, 1 half) |
| 17–23 | `numbers` | 7 | `numbers`: the allowed numbers 1–7 |
| 24–28 | `colour_shape` | 5 | `pattern`: colour multiplicities one-hot: 4, 3+1, 2+2, 2+1+1, 1+1+1+1 |
| 29–33 | `number_shape` | 5 | `pattern`: number multiplicities one-hot, as above |
| 34 | `consecutive` | 1 | `pattern`: the numbers must form a run |
| 35–84 | `id` | 50 | the goal's id, one-hot in the order of §1.9 |

### The play history

A turn is exactly one play: a card onto a pile, then a draw back to 4 cards (§1.5; there is no
pass and no discard). With no table talk, what teammates chose to play is the only signal the
team has, so v1 shows the public history, as a bounded window plus per-seat summaries (rows by
relative seat: you, then the others clockwise):

- `plays` (N×2×62): each seat's last two plays, latest first. Seats play strictly in turn, so
  this is the last two laps (2N plays): the latest play of all is that of the seat before
  `to_move`, each seat's previous play is one lap older. A slot (table below) holds the card,
  the pile, the card it covered (the pile's top before the play) and whether it completed a
  goal; all zero for a play not yet made. Why a window: a hand of 4 cards is renewed by one
  draw a turn, so plays older than two laps say little about what a teammate holds now, and
  the window keeps the width fixed whatever the game's length (up to 52 plays).
- `played_by` (N×28, counts 0–2): every card each seat has played this game, the lasting
  summary of the plays that have left the window.
- `completed_by` (N×50): the goals each seat's plays completed (goals met at setup are in no
  row), and `last_completed` (50): the goals the latest play completed (before the first play:
  the goals met at setup).

Every entry is 0 or 1 but `played_by` (0–2), so nothing needs scaling. The piles' covered cards
are public (§1.7) but not encoded pile by pile: no rule and no goal looks below the tops, a
covered card never comes back into play, and the piles do not say who played what, so beyond
the card counts (`played`), who played what (`played_by`, `plays`) and the card each recent play
covered, their order tells nothing a policy can use. The turn number (`played` sums to 4 plus
the plays made) and the start player follow from the segments above.

Each play slot (segment `plays`, rows: relative seat, then latest / previous play) holds 62
features:

| index | name | width | meaning |
|---|---|---|---|
| 0 | `present` | 1 | 1 if this slot holds a play |
| 1–28 | `card` | 28 | the card played, one-hot by kind |
| 29–32 | `pile` | 4 | the pile it went on (0–3), one-hot |
| 33–60 | `covered` | 28 | the card it covered (the pile's top before the play), one-hot by kind |
| 61 | `completed` | 1 | 1 if the play completed a goal (which: `completed_by`, `last_completed`) |

Hidden from you: the other hands (unless `open_hands`), the order and content of the draw pile,
and which goals are in the goal deck or out of the game. The cards not yet seen follow from
`hand`, `played` and (with `open_hands`) `other_hands`, since each card exists twice.

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
`cahoots_envs/games/cahoots_coop/state.py`; the table is for the default options.
<!-- /state-intro -->

<!-- state-table -->
| index | name | shape | range | kind | meaning |
|---|---|---|---|---|---|
| 0–83 | `hand` | 3×28 | 0–2 | private, one row per absolute seat | own cards, count per kind (two copies), index `colour*7 + number-1`, colours G, O, P, V |
| 84–251 | `other_hands` | 3×2×28 | 0–2 | private, one row per absolute seat | with `open_hands`: the others' cards, count per kind, rows: the next player clockwise first (all zero when hands are hidden) |
| 252–254 | `hand_sizes` | 3 | 0–4 | public, rows by absolute seat | cards in each hand, rows: you, then the others clockwise |
| 255–366 | `tops` | 4×28 | 0–1 | public | top card of piles 0–3, one-hot per pile by kind |
| 367–394 | `played` | 28 | 0–2 | public | every card on the piles (tops and covered), count per kind |
| 395 | `draw_pile` | 1 | 0–1 | public | cards in the draw pile / 48 |
| 396–731 | `my_plays` | 3×28×4 | 0–1 | private, one row per absolute seat | 1 where a card of your hand may go on that pile now (indexed like the actions: `kind*4 + pile`), on your turn or not |
| 732–1067 | `play_completes` | 3×28×4 | 0–1 | private, one row per absolute seat | for each of those plays, the visible goals it would complete at once / 4 (before replacements are turned up) |
| 1068–1407 | `goals` | 4×85 | 0–1 | public | the visible goals, 85 features per slot (table below); all zero for an empty slot |
| 1408–1457 | `completed` | 50 | 0–1 | public | goals completed so far (setup included), by id |
| 1458–1461 | `goal_counts` | 4 | 0–1 | public | goals completed, goals remaining, goals in the goal deck, goals in the game; each / 50 |
| 1462–1464 | `to_move` | 3 | 0–1 | public, rows by absolute seat | relative seat to move (one-hot; all zero when the game is over) |
| 1465–1466 | `rules` | 2 | 0–1 | public | 1 if `open_hands`; 1 if `multicolour_mode='disjunctive'` |
| 1467–1838 | `plays` | 3×2×62 | 0–1 | public, rows by absolute seat | the last 2 plays of each seat (the last 2 laps), rows: you, then the others clockwise; per row its latest play first, 62 features per play (table below); all zero for a play not yet made |
| 1839–1922 | `played_by` | 3×28 | 0–2 | public, rows by absolute seat | every card each seat has played this game, count per kind, rows: you, then the others clockwise |
| 1923–2072 | `completed_by` | 3×50 | 0–1 | public, rows by absolute seat | the goals each seat's plays completed, by id, rows: you, then the others clockwise (goals met at setup are in no row) |
| 2073–2122 | `last_completed` | 50 | 0–1 | public | the goals the latest play completed, by id (before the first play: the goals met at setup) |
<!-- /state-table -->

## Actions

| ids | text | meaning |
|---|---|---|
| 0–111 | `play 5G on 2` | play a card of kind k onto pile p (0–3, left to right); id = 4·k + p, k = `colour*7 + number-1` |

Two copies of one card in a hand are the same action. `env.unwrapped.action_to_str(a)` and
`str_to_action(text)` convert. With table talk (below) the talk actions follow: 121 actions with
`talk='spanish'`, 125 with `talk='dutch'`.

## Table talk

The option `talk` adds the restricted talk of the rulebooks (docs/rules/cahoots_coop.md §1.1,
§1.7). The default, `'none'`, is *Mum's the word*: exactly the game without the option (the same
env id, version, observation layout and fingerprint, actions and logs). A talk mode is a rule
variant: a saved policy may not cross it (its layout and actions differ too).

**Turn order.** After each play (and its draw), unless the game has ended, the player who played
makes one talk decision: say nothing, or one signal of the vocabulary. The turn then passes
clockwise. The phase is `talk` during that decision (`game.phase`, the observation's
`talk_phase`); a game has at most 104 decisions instead of 52. Speaking after one's own play
lets a signal reach every teammate before they play.

| ids | text | vocabulary | meaning | must be true |
|---|---|---|---|---|
| 112 | `say nothing` | both | no signal | – |
| 113–116 | `wish pile 2` | `'spanish'` | I would like to play on pile p | no (an opinion) |
| 117–120 | `aim SUM_15` | `'spanish'` | the team should go for this goal (visible slot 0–3) | no |
| 113–116 | `avoid pile 2` | `'dutch'` | don't play on pile p | no |
| 117–120 | `have pile 2` | `'dutch'` | I have the right card for pile p | yes: a card of the hand may go on it now |
| 121–124 | `can complete SUM_15` | `'dutch'` | I can complete this goal (visible slot 0–3) | yes: a legal play of the hand completes it now |

**True signals.** The two facts about a hand are enforced by the action mask: they are legal
only when true at the time they are said; the opinions (wish, aim, avoid) are free. No signal
names a number or colour: "I have the right card for that pile" says exactly that. The world
sampler (search) deals only worlds in which every true signal of a hidden seat held of its hand
when said (a hand's history is drawn again, then the whole deal, until they hold), so each world
replays legally; the opinions bind nothing.

**Observation.** Two segments after all the others (whose indices do not move): `talk_phase` (1)
and `signals` (N×2×W): a window of each seat's last two talk decisions, rows you, then the others
clockwise, latest first; W = 1 (present) + the vocabulary's words with *say nothing* (3 Spanish, 4
Dutch) + 4 (the pile named) + 50 (the goal named, by id) + 1 (age: plays made since / 52). Older
decisions drop out of the window (every signal is in the game log). In the global state `signals`
is by absolute seat. The text table and seat view show each seat's latest signal and the turn it
followed (`talk (spanish): player_0 (you) wish pile 2 (turn 1)`); the browser view model has
`talk` and `signals`. Signals are actions: game logs record them (`"phase": "talk"`) and replay
them.

**Not combined.** `talk` with `open_hands=True` is refused (Lil Cahoots shows every hand, so the
restricted signals say nothing new), and with one player (nobody hears); both raise
`ValueError` at the deal. The batched engine refuses `talk` other than `'none'` (`ValueError`:
not available for this option). The search bot never searches a talk decision (it plays its
blueprint's signal); its play decisions roll out on the engine **silently**: a world (dealt to
agree with every true signal said so far) is loaded as its plays alone, and from the searched
play on every seat plays the bot of the game without talk. `search@engine=reference` rolls out
with talk on the reference game instead, about 10× slower (measured 2026-12-01: a team of
search with talk at normal difficulty took 117 s of CPU for 6 deals of 4 lineups on the
reference game, 12 s on the engine). A blueprint other than the rule-based bot (random, say)
searches talk games on the reference game.

**The team bot's convention.** After its play the bot names the pile of its best play on the tops
now (`wish pile p`, or `have pile p` in Dutch: true, as the play is legal), or says nothing
without a play. When choosing a play it avoids covering a pile named by a teammate's latest signal
(wish, have or avoid) unless the play completes a goal (a penalty of 3, `PROTECT` in
`bot_weights.py`), and it reads the next player's latest `say nothing` as a fact: they held no
card for the tops as they were then, so the risk of stranding them is counted over the kinds that
matched none of those tops. The search module's fast bot makes the same choices from the game
state.

Measured (`python benchmarks/coop_talk.py --deals 1000 --variants`, 2026-12-01, 50 s): the team
of three bots on the same 1,000 deals (paired), win rate and the paired gain over no talk with
its 95% interval.

| difficulty | talk | win rate | paired gain [95% interval] |
|---|---|---|---|
| beginner | none | 0.560 | – |
| beginner | spanish | 0.571 | +0.011 [-0.025, +0.047] |
| beginner | dutch | 0.571 | +0.011 [-0.025, +0.047] |
| normal | none | 0.353 | – |
| normal | spanish | 0.383 | +0.030 [-0.005, +0.065] |
| normal | dutch | 0.383 | +0.030 [-0.005, +0.065] |

The point estimates are above 0 at both difficulties (the target, met by its point estimate),
but both intervals still hold 0, and these are the deals the convention was tuned on (below).
On another 1,000 deals (the cross-play's, docs/lab/coop_cross_play_talk.md) the same team's
paired gain was +0.004 [-0.031, +0.039] at beginner and -0.019 [-0.054, +0.016] at normal: the
convention's gain is not distinguishable from none. The two vocabularies give the same games, as
the convention uses one pile word in each (`wish`, `have`), read alike. Dutch is taken as the
better one for the search figures below: its `have` is a true signal, which the search's world
sampler deals by (Spanish signals bind nothing).

**A team of search with talk**, and talk in mixed teams, on the cross-play's 1,000 deals
(`cahoots eval cahoots_coop ... --cross-play --games 1000` with and without `-o talk=dutch`,
paired by `benchmarks/cross_play_paired.py`; the commands and tables in
docs/lab/coop_cross_play_talk.md): the search team wins 0.842 with Dutch talk against 0.845
without at beginner (paired -0.003 [-0.030, +0.024]) and 0.675 against 0.682 at normal (-0.007
[-0.039, +0.025]); no mixed team of random, heuristic and search teammates changes beyond its
interval. Its rollouts are silent and it never searches a talk decision, so talk reaches it only
through the worlds it deals (`have pile` binds them) and its teammates' plays.

What each part adds (the same command's second table; gains over the shipped convention, Dutch):

| difficulty | convention | win rate | paired gain [95% interval] |
|---|---|---|---|
| beginner | shipped | 0.571 | – |
| beginner | no say-nothing reading | 0.565 | -0.006 [-0.013, +0.001] |
| beginner | PROTECT=0 | 0.565 | -0.006 [-0.042, +0.030] |
| beginner | PROTECT=6 | 0.544 | -0.027 [-0.059, +0.005] |
| beginner | PROTECT=12 | 0.467 | -0.104 [-0.141, -0.067] |
| normal | shipped | 0.383 | – |
| normal | no say-nothing reading | 0.381 | -0.002 [-0.008, +0.004] |
| normal | PROTECT=0 | 0.355 | -0.028 [-0.063, +0.007] |
| normal | PROTECT=6 | 0.318 | -0.065 [-0.096, -0.034] |
| normal | PROTECT=12 | 0.256 | -0.127 [-0.162, -0.092] |

Tried and not shipped (a prototype, 2026-12-01, the same 1,000 deals): reading `have pile p` as
"a play on another pile cannot strand the next player" won 0.579 at beginner and 0.362 at normal
(−0.021 there against the shipped 0.383): it drops the stranding term for most plays, and that
term also keeps the tops open for the players after the next, so teams were stranded more often
(170 of 1,000 beginner games lost by a stranded player, against 121). Losses at normal are mostly
goals not met when the cards run out (427 of 1,000 games with the shipped convention), which a
pile signal does not address; a convention for the goal words (`aim`, `can complete`) is the
next thing to try.

## Rewards

- `reward_mode="win"` (default): at the end of the game every seat receives +1 if the team
  completed every goal, 0 if it lost.
- `reward_mode="points"`: every seat receives +1 for each goal the team completes, at the step
  where it is completed (a cascade of three goals gives +3).
- `infos[agent]["score"]`: the number of goals the team has completed, including goals the
  starting piles meet at setup (set aside as completed, §1.4 step 4). In points mode those setup
  goals are paid at `reset` (each seat collects them through `last()` at its first turn).
  `infos[agent]["phase"]`: the index of the current phase in `env.unwrapped.phase_names`,
  `("play", "talk", "game_over")` (`talk` only with table talk; its name: `env.unwrapped.phase`).
  Infos hold numbers only.

Scripted deals (`env.reset(options={"deal": {...}})`): `start_player` (seat), `hands` (one list
of 4 cards per seat), `piles` (4 cards, the starting tops left to right), `draw_pile` (top first),
`goals` (goal ids, top of the goal deck first; their number sets G). A `draw_pile` shorter than
the cards left over leaves the rest out of the game, for puzzles and endgames. Any key left out
is drawn from the env's RNG.

## Team bot

`cahoots_envs.games.cahoots_coop.bot.HeuristicPolicy` is a rule-based team player: it
prefers the play that completes the most visible goals, then the one that leaves the most goals
within one legal play of completion (weighing who may hold the completing cards), and avoids tops
on which the next player probably holds no legal card. Win rates of a team of bots against a team
of random players, 300 seeded games per cell (mean goals completed in brackets):

| players | team | beginner | normal | expert | insane |
|---|---|---|---|---|---|
| 1 | bots | 22.3% (12.2) | 7.7% (13.2) | 1.3% (13.8) | 0.0% (14.0) |
| 1 | random | 0.0% (3.9) | 0.0% (3.9) | 0.0% (3.9) | 0.0% (3.9) |
| 2 | bots | 40.0% (13.3) | 22.3% (15.2) | 6.3% (16.3) | 1.7% (16.9) |
| 2 | random | 0.0% (4.0) | 0.0% (4.0) | 0.0% (4.0) | 0.0% (4.0) |
| 3 | bots | 55.0% (13.9) | 33.3% (16.0) | 12.3% (17.4) | 3.7% (18.3) |
| 3 | random | 0.0% (4.2) | 0.0% (4.2) | 0.0% (4.2) | 0.0% (4.2) |
| 4 | bots | 79.3% (11.6) | 63.3% (14.2) | 39.7% (16.4) | 21.7% (18.2) |
| 4 | random | 0.0% (4.3) | 0.0% (4.4) | 0.0% (4.4) | 0.0% (4.4) |

Goals in play: 15 / 18 / 21 / 24 with 1–3 players, 12 / 15 / 18 / 21 with 4. Random play
never won a game in these runs. The solo game (1 player, unofficial) is much harder for the bot:
it completes over three times as many goals as random play but rarely all of them.

## Search

The search bot (`search`, e.g. `cahoots play cahoots_coop --opponents search`; see
docs/search.md) plays the team bot, and in the endgame (a draw pile of at most 12 cards, a
public count; 6 before 2026-12-01) tries every legal play in worlds drawn from what the seat
knows, rolls each out with the team bot to the end of the game (on the batched engine, the bot's
compiled twin playing every row; with table talk silently, see Table talk) and leaves the bot's
play only when the paired gain in wins is clear (two standard errors). The world sampler (`cahoots_envs/games/cahoots_coop/search.py`) conditions on
the seat's own hand and every card it drew, every hand and draw with `open_hands`, the piles, the
whole play history, the goals seen (in the order they came up), and the sizes of the hands, the
draw pile, the goal deck and the cards out of the game. It deals the unseen cards uniformly to
the hidden hands, the draw pile (in a random order) and the cards out of the game, with the seat
to move holding a legal card; rebuilds each hidden hand's history backwards (the card a play drew
is a random card of the hand after it), which is consistent with every play; and draws the goal
deck from the goals not yet seen. The teammates' plays are not used as evidence about their
hands. On the reference game the rollouts use `FastBot`, the team bot computed from the game
state (about 8 times faster, the same choices and tie-breaks); `value` is the team's win (1) or
loss (0): rollouts always reach the end of the game. The first measurement, with 3 players, 120
seeded games per row (the same deals for both teams; the endgame window of 6 cards and the
budgets of then; docs/search.md has today's settings and figures, 500 deals a row):

| difficulty | team of bots | team of search bots | ms per decision (all / searched) |
|---|---|---|---|
| beginner | 64.2% | 79.2% | 10 / 61 |
| normal | 37.5% | 56.7% | 24 / 100 |

## Networks

`zoo:cahoots_coop` (since 2026-12-01) is an action-scoring network (`policies/scoring.py`) that
reads, beside the observation, per-play features it computes from the observation itself
(`features.py`, `lookahead`: the goals a play completes, how reachable each visible goal stays
with the cards that may still come, the risk of stranding the next player; the team bot's own
terms, so the observation and this env's version stay as they are). Cloned from the team bot and
trained by expert iteration (`configs/expert_iteration/cahoots_coop.yaml`), its team wins 0.581
at beginner and 0.358 at normal against the team bot's 0.591 and 0.354 (2,000 games a row,
`cahoots strength cahoots_coop`; docs/training.md). It plays games without table talk only.

## Batched engine

`cahoots_envs.vector.make("cahoots_coop-v1", num_envs=4096, **options)` plays thousands of
games in lockstep in numba kernels (`cahoots_envs/games/cahoots_coop/batched.py`; needs the
`fast` extra; see docs/vector.md). Status: complete. It plays every option above (1–4 players,
`difficulty`, `num_goals`, `multicolour_mode`, `open_hands`, both reward modes) and gives this
env's observations, masks and rewards entry for entry, checked step by step against the
reference rules for every player count and test variant (`tests/games/cahoots_coop/test_vector.py`;
`-m slow` replays 27,500 games).

- The kernels cover the whole game: the deal (from each game's own random stream, or a
  scripted deal), play and draw, goal resolution (one lookup in a table over the 31,465
  multisets of four tops), both losses and the win, rewards, and the observation of the seat to
  move, patched in place (what the last mover's view wrote is cleared, the changed pile, goals
  and counts are updated, the next mover's view is written). A finished game's final scores and
  every seat's final observation are written before it is dealt again.
- A deal can end the game before its first decision (every goal met by the starting piles, or
  a start player without a legal card). A scripted deal that does so is reported by `reset` as
  a finished game (its deal's reward in `rewards`, its final scores and observations) and the
  game is dealt again. A game the engine deals itself is dealt again at once
  (`vec.engine.redeals` counts these deals): about one deal in 500 with the default options,
  each a start player without a legal card (no four tops meet more than 10 goals, so only
  `num_goals` of 10 or fewer can be won at the deal).
- `vec.game(i)` rebuilds game i from its deal and its plays, which the engine keeps: 426 bytes
  of state per game beyond the observation and mask buffers (6,140 bytes with 3 players).

Speed, random legal actions picked in numpy, one core of a 2-core machine that other jobs kept
busy (the AEC env ran at about 7,600 decisions/s in the same run, well below its usual
17,000–22,000, so compare the ratio), decisions/s measured with

    python benchmarks/bench_envs.py --envs cahoots_coop --no-classic --no-seat-env \
        --num-envs 1,64,1024,4096,8192 --seconds 1 --rounds 3

| players | N=64 | N=1,024 | N=4,096 | N=8,192 | × AEC env (N=4,096) |
|---|---:|---:|---:|---:|---:|
| 1 | 339,893 | 570,199 | 573,296 | 572,701 | 61 |
| 2 | 327,125 | 667,282 | 375,228 | 455,314 | 46 |
| 3 | 197,258 | 410,219 | 347,845 | 391,880 | 46 |
| 4 | 215,280 | 314,077 | 336,933 | 379,024 | 42 |

At 4,096 games and more the observation rows (6 KB each with 3 players) no longer fit in the
caches, and writing them is most of the cost. The first `make`/`reset`/`step` compiles the
kernels: about 9 s of CPU with an empty numba cache (11 s on the clock on the busy machine),
about 1 s cached (imports included).

## Rendering

`render_mode="ansi"` returns the spectator table as text (`"human"` prints it);
`render_mode="rgb_array"` returns an image frame, an HxWx3 `uint8` array (1280×720, the same for
every frame of an env, so a video has one size), drawn with Pillow (the `render` extra) from the
browser view's data. The AEC and parallel envs draw the referee's table: every hand, the four
piles (top card, pile size), the visible goal cards, the completed goals, the last play, the
signals; the referee's table adds the draw pile and the goal deck in order. The seat env
(`cahoots_coop_seat-v1`) draws the learner seat's table: its own hand, the other hands as
face-down counts. Cards show their rank, suit symbol and suit letter in the suit's colour (the
browser view's marks). `metadata["render_fps"]` is 4. Examples (`RecordVideo`) and the cost of a
frame: [the API page](api.md#image-frames-and-videos).

![Cahoots (cooperative): a frame of the referee's table (render_mode="rgb_array")](frame_cahoots_coop.png)

## Version history

- v0 (cahoots-envs 0.1.0): first release.
- v1: the observation holds every public fact that bears on play (rules unchanged). New
  segments, after the v0 ones (whose indices and meaning are unchanged): `plays` (N×2×62: each
  seat's last two plays), `played_by` (N×28), `completed_by` (N×50) and `last_completed` (50);
  size 851 → 1507 with 3 players (791 → 1043, 821 → 1275, 881 → 1739 with 1, 2, 4). The engine
  keeps the play log (`CahootsCoop.plays`).

  **Migration from v0**: `make("cahoots_coop-v0")` raises `RetiredEnvError`; use `-v1`. Policies
  trained on v0 must be retrained (the observation size and layout fingerprint changed, so a v0
  policy is refused). v0 game logs still replay under v1, since the rules are those of v0. Code
  that reads the observation through `layout.views(obs)` by segment name keeps working; the team
  bot chooses exactly as under v0.
- v1, option `talk` (table talk, above): added without a version change, as its default
  `'none'` is the game as before (the same layout, actions and logs); with a vocabulary the
  layout gains `talk_phase` and `signals` and the actions gain the talk actions.
- cahoots-envs 0.3.0 (still v1; observations, actions, rewards and saved policies unchanged):
  **breaking for code that reads names from infos**: `infos[agent]["phase"]` is an index into
  `env.unwrapped.phase_names`, the parallel env's `active_agent` a seat index; the seat env's
  mask after an episode is the placeholder mask, not all zero (docs/api.md, "Infos every client
  can stack"; CHANGELOG.md).
"""

from __future__ import annotations

from cahoots_envs.core.aec import env_factories
from cahoots_envs.core.parallel import parallel_factory
from cahoots_envs.games.cahoots_coop.spec import SPEC

raw_env, env = env_factories(SPEC)
parallel_env = parallel_factory(SPEC)
