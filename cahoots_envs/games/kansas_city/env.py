r"""# Kansas City: The Trick-Taking Game — `cahoots_envs/kansas_city-v1`

```python
from cahoots_envs import kansas_city_v1
env = kansas_city_v1.env(num_players=4)   # or cahoots_envs.make("kansas_city-v1")
```

<!-- spaces -->
| | |
|---|---|
| players | 4 (default) or 5 |
| actions | `Discrete(485)` with 4 players (286 with 5 players) |
| observation | `Box(1300,)` float32 with 4 players (1533 with 5 players), and an `action_mask` (int8, one per action) |
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
- **Backs without ranks** (option `card_backs='hidden'`, K1's alternative; an interpretation of
  this package): each back shows the trump symbol only. Then the ranks of the others' cards in
  hand and of the passes between other players are private: you know the ranks (indeed the
  faces) of the cards you passed and of those you received, no others. **Trump ranks stay
  public**: the rulebook says "What trump cards a player has is public knowledge" and allows
  "only one trump card of each rank" on the table, a rule every player must be able to check,
  and a played trump's rank decides the trick. So an upgrade is announced with its rank (`upgrade
  a card to 4T`), which also tells the rank of the card that left the hand; the printed face
  stays hidden as always (K5). Everything else public stays public: face-up plays, known voids,
  hand sizes, tricks won and captured 4s (every captured card was seen, face up or as a trump
  rank). A seat with no card it may upgrade is still skipped in the upgrade step (its only choice
  would be `no upgrade`); between your own turns this shows in whose turn it is.

## Options

<!-- options-table -->
| option | default | accepts | meaning | saved policy |
|---|---|---|---|---|
| `num_players` | `4` | one of 4, 5 | number of seats | must match |
| `render_mode` | `None` | one of None, 'ansi', 'human', 'rgb_array' | `'ansi'` returns a text table, `'human'` prints it, `'rgb_array'` returns an image frame (HxWx3 uint8; needs Pillow, the `render` extra) | may differ |
| `reward_mode` | `'win'` | one of 'win', 'points' | `'win'`: rewards at game end only; `'points'`: rewarded as rulebook points are awarded | may differ |
| `hands` | `3` | an int from 1 to 10 or one of 'per_player' | hands in a game (§4.4): 3, or `'per_player'` for the longer game | may differ |
| `card_backs` | `'ranks'` | one of 'ranks', 'hidden' | what a card's back shows (K1): `'ranks'`: the trump symbol and the card's rank, so the ranks in every hand and in every pass are public (the printed game); `'hidden'`: the trump symbol only, so the ranks of others' cards in hand and of passes between others are private (trump ranks, plays, voids, hand sizes and captured 4s stay public) | must match |
<!-- /options-table -->

The heuristic bot (`cahoots_envs.policies.load_heuristic`) plays `card_backs='hidden'` unchanged:
it reads only its own hand, the current trick, its tricks won and the phase, never the others'
ranks, so it always picks a legal action and, in the same position, the same one as with ranked
backs.

## Observation

A flat float32 vector, relative to the observer: "relative seat" 0 is you, then the others
clockwise. Per-player blocks have one row per relative seat. The table is for 4 players (with 5,
the per-player blocks grow by one row and later indices shift).

<!-- observation-table -->
| index | name | shape | range | meaning |
|---|---|---|---|---|
| 0–55 | `hand` | 56 | 0–1 | own cards in hand (not upgraded), one-hot by card, index `suit*8 + rank-1`, suits A–G |
| 56–111 | `own_upgraded` | 56 | 0–1 | own upgraded trumps by printed face (private) |
| 112–143 | `hand_ranks` | 4×8 | 0–7 | cards of each rank 1–8 in each hand (public backs), rows: you, then the others clockwise (with `card_backs='hidden'` the others' rows are zero) |
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
| 536–538 | `phase` | 3 | 0–1 | decision phase: pass, play, upgrade (one-hot; all zero when the game is over) |
| 539–542 | `to_move` | 4 | 0–1 | relative seat to move (one-hot; all zero when the game is over) |
| 543–598 | `passed` | 56 | 0–1 | the cards you passed this hand (once chosen) |
| 599–654 | `received` | 56 | 0–1 | the cards you received this hand (after the exchange) |
| 655–710 | `set_aside` | 56 | 0–1 | the public set-aside card (5 players only) |
| 711–738 | `voids` | 4×7 | 0–1 | 1 if that player is known to lack the suit A–G for the rest of the hand: it failed to follow it this hand (K9); rows relative as above |
| 739–962 | `played_by` | 4×56 | 0–1 | face-up cards each player played into completed tricks this hand, one-hot by card, index `suit*8 + rank-1`, suits A–G; rows relative as above |
| 963–994 | `trumps_played_by` | 4×8 | 0–7 | upgraded trumps each player played into completed tricks this hand, count per rank 1–8; rows relative as above |
| 995–1026 | `passed_ranks` | 4×8 | 0–3 | cards of each rank 1–8 each player passed this hand (public backs; yours once chosen, the others' after the exchange; with `card_backs='hidden'` only yours and your right neighbour's, whose cards you received); rows relative as above |
| 1027–1030 | `hand_size` | 4 | 0–14 | cards in each hand, upgraded trumps not counted; rows relative as above |
| 1031–1286 | `last_trick` | 4×64 | 0–1 | the last completed trick (this hand's, or the previous hand's until the first trick of this one is completed; all zero before any): per relative seat the face card (56) or trump rank (8) it played |
| 1287–1290 | `last_trick_leader` | 4 | 0–1 | relative seat that led the last completed trick (one-hot) |
| 1291–1294 | `last_trick_winner` | 4 | 0–1 | relative seat that won the last completed trick (one-hot) |
| 1295–1298 | `next_leader` | 4 | 0–1 | relative seat that leads the trick in progress or, in the pass phase, the upgrade step and between tricks, the next trick (one-hot; all zero when the game is over) |
| 1299 | `hidden_backs` | 1 | 0–1 | 1 if `card_backs='hidden'` (the others' ranks in hand and their passes are not shown) |
<!-- /observation-table -->

**v1 layout: summary features, not a history window.** Everything public that bears on play is
kept as per-seat sets and counts of the current hand, so a memoryless policy sees it at every
later decision: the known voids (`voids`), the face cards and trump ranks each seat played into
completed tricks (`played_by`, `trumps_played_by`), the ranks each seat passed (`passed_ranks`)
and each hand's size (`hand_size`), next to the v0 segments (held ranks, held trump ranks, the
current trick, tricks won and 4s captured per seat). The order of plays is not kept beyond the
last completed trick (`last_trick` with its leader and winner: a transient fact, shown until the
next trick is completed, so also at the first decision of the next hand) and the current trick:
in this game, who holds and who has shown what decides play, not when. `next_leader` says who
leads the trick in progress or the next one in every phase (the trick's winner during the
upgrade step, the dealer's left in the pass phase). Once the game is over, `phase`, `to_move` and
`next_leader` are all zero. All the sizes are fixed by the player count: 1300 floats with 4
players, 1533 with 5. Counts are raw, not normalised (bounded by the range column: at most 7
cards of a rank, 3 passed cards, 14 or 11 cards in hand); `scores` alone is divided by 100; the
rest is 0/1. With `card_backs='hidden'` the layout is the same, the others' rows of
`hand_ranks` are zero, `passed_ranks` holds only your row and your right neighbour's (whose
cards you received), and `hidden_backs` is 1.

Hidden from you: the suits of other players' cards, including the faces of their upgraded trumps
(held or played), and the cards others chose to pass until you receive them; with
`card_backs='hidden'` also the ranks of the others' cards in hand and of the passes between
other players.

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
`cahoots_envs/games/kansas_city/state.py`; the table is for the default options.
<!-- /state-intro -->

<!-- state-table -->
| index | name | shape | range | kind | meaning |
|---|---|---|---|---|---|
| 0–223 | `hand` | 4×56 | 0–1 | private, one row per absolute seat | own cards in hand (not upgraded), one-hot by card, index `suit*8 + rank-1`, suits A–G |
| 224–447 | `own_upgraded` | 4×56 | 0–1 | private, one row per absolute seat | own upgraded trumps by printed face (private) |
| 448–479 | `hand_ranks` | 4×8 | 0–7 | public, rows by absolute seat | cards of each rank 1–8 in each hand (public backs), rows: you, then the others clockwise (with `card_backs='hidden'` the others' rows are zero) |
| 480–511 | `trump_ranks` | 4×8 | 0–1 | public, rows by absolute seat | 1 if that player holds an unplayed trump of that rank, rows relative as above |
| 512–767 | `trick` | 4×64 | 0–1 | public, rows by absolute seat | current trick: per relative seat, the face card played (56) or the trump rank played (8) |
| 768–771 | `trick_leader` | 4 | 0–1 | public, rows by absolute seat | relative seat that led the current trick (one-hot) |
| 772–995 | `played` | 4×56 | 0–1 | private, one row per absolute seat | cards played this hand whose face you know: every face-up card and your own upgraded ones, one-hot by card, index `suit*8 + rank-1`, suits A–G |
| 996–1003 | `trumps_played` | 8 | 0–7 | public | trumps played this hand, count per rank |
| 1004–1007 | `tricks_won` | 4 | 0–14 | public, rows by absolute seat | tricks won this hand per relative seat |
| 1008–1011 | `fours_captured` | 4 | 0–7 | public, rows by absolute seat | 4s captured this hand per relative seat |
| 1012–1015 | `scores` | 4 | 0–10 | public, rows by absolute seat | cumulative score per relative seat / 100 |
| 1016–1025 | `hand_number` | 10 | 0–1 | public | index of the current hand (one-hot) |
| 1026–1035 | `hands_total` | 10 | 0–1 | public | hands in this game (one-hot at hands-1) |
| 1036–1039 | `dealer` | 4 | 0–1 | public, rows by absolute seat | relative seat of the dealer (one-hot) |
| 1040–1042 | `phase` | 3 | 0–1 | public | decision phase: pass, play, upgrade (one-hot; all zero when the game is over) |
| 1043–1046 | `to_move` | 4 | 0–1 | public, rows by absolute seat | relative seat to move (one-hot; all zero when the game is over) |
| 1047–1270 | `passed` | 4×56 | 0–1 | private, one row per absolute seat | the cards you passed this hand (once chosen) |
| 1271–1494 | `received` | 4×56 | 0–1 | private, one row per absolute seat | the cards you received this hand (after the exchange) |
| 1495–1550 | `set_aside` | 56 | 0–1 | public | the public set-aside card (5 players only) |
| 1551–1578 | `voids` | 4×7 | 0–1 | public, rows by absolute seat | 1 if that player is known to lack the suit A–G for the rest of the hand: it failed to follow it this hand (K9); rows relative as above |
| 1579–1802 | `played_by` | 4×56 | 0–1 | public, rows by absolute seat | face-up cards each player played into completed tricks this hand, one-hot by card, index `suit*8 + rank-1`, suits A–G; rows relative as above |
| 1803–1834 | `trumps_played_by` | 4×8 | 0–7 | public, rows by absolute seat | upgraded trumps each player played into completed tricks this hand, count per rank 1–8; rows relative as above |
| 1835–1962 | `passed_ranks` | 4×4×8 | 0–3 | private, one row per absolute seat | cards of each rank 1–8 each player passed this hand (public backs; yours once chosen, the others' after the exchange; with `card_backs='hidden'` only yours and your right neighbour's, whose cards you received); rows relative as above |
| 1963–1966 | `hand_size` | 4 | 0–14 | public, rows by absolute seat | cards in each hand, upgraded trumps not counted; rows relative as above |
| 1967–2222 | `last_trick` | 4×64 | 0–1 | public, rows by absolute seat | the last completed trick (this hand's, or the previous hand's until the first trick of this one is completed; all zero before any): per relative seat the face card (56) or trump rank (8) it played |
| 2223–2226 | `last_trick_leader` | 4 | 0–1 | public, rows by absolute seat | relative seat that led the last completed trick (one-hot) |
| 2227–2230 | `last_trick_winner` | 4 | 0–1 | public, rows by absolute seat | relative seat that won the last completed trick (one-hot) |
| 2231–2234 | `next_leader` | 4 | 0–1 | public, rows by absolute seat | relative seat that leads the trick in progress or, in the pass phase, the upgrade step and between tricks, the next trick (one-hot; all zero when the game is over) |
| 2235 | `hidden_backs` | 1 | 0–1 | public | 1 if `card_backs='hidden'` (the others' ranks in hand and their passes are not shown) |
<!-- /state-table -->

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
- `infos[agent]["score"]`: the cumulative score; `infos[agent]["phase"]`: the index of the
  current phase in `env.unwrapped.phase_names`, `("pass", "play", "upgrade", "game_over")`
  (its name: `env.unwrapped.phase`). Infos hold numbers only.

Scripted deals (`env.reset(options={"deal": {...}})`): `dealer` (seat), `hands` (one list of
cards per seat), `set_aside` (5 players). A whole game can be scripted: pass a list of such deals,
one per hand (`options={"deal": [hand_1, hand_2, ...]}`); a later hand's `dealer` must be the
seat the rotation gives (or be left out). Hands after the list are dealt from the env's RNG.
`env.unwrapped.game.deals` holds every hand's deal so far in this format.

## Search

The game has a world sampler for the search bots (`cahoots_envs.search`; module
`games/kansas_city/search.py`):

- **What a world keeps**: everything the seat knows, in every hand so far: its own cards (dealt,
  passed, received, upgraded), every face-up play, every trump played (by rank), every upgrade (by
  seat and rank), who declined and who was skipped in each upgrade step, the voids shown (K9), the
  set-aside card and, with ranked backs, the rank profile of every hand and every pass. It re-deals
  what the seat cannot see: the suits of the others' cards in hand and of their upgraded trumps
  (held or played; K5), which of their cards they passed between themselves, and with
  `card_backs='hidden'` also the ranks of their cards in hand. The unknown cards of a hand go to
  "slots": each upgrade by another seat (its rank, and no suit the seat had shown void in before
  it upgraded) and each card another seat holds (its rank on the back; no suit it is void in;
  with hidden backs no rank it could have upgraded where it was skipped in an upgrade step, and
  at least one it could upgrade where it declined). The cards the seat passed and has not seen
  again go to its left neighbour. Slots are filled most constrained first with uniform choices,
  restarting after a dead end (a randomized matching after many; never the true cards); then each
  other seat's pass is drawn from what its left neighbour held after the exchange (with the
  pass's public ranks), which fixes every deal, and the others' pass and upgrade actions are
  written with the sampled cards. The history replays to the seat's observations step for step,
  every hand. How the others played (beyond the rules) is not used as evidence.
- **Fast bot**: the rule-based bot computed from the game state (its own hand, its tricks won, the
  trick and its legal moves; the same choices and tie order), about 10 µs a decision against
  about 150 µs for the observation bot with its encoding.
- **Value**: rollouts stop at the end of the hand. Between hands, a seat's expected payoff is
  P(win) − (1 − P(win)) / (N − 1) (the `outcome()` scale), where every remaining hand adds an
  independent normal to each score, with the spread of one seat's hand points around the table
  mean in bot play (5.4 points with 4 players, 2.8 with 5) — a lead counts more the fewer hands
  are left. Plays and upgrades are searched; passes (165 or 364 moves) are the bot's.

## Batched engine

`cahoots_envs.vector.make("kansas_city-v1", num_envs=4096, **options)` plays thousands of games
in lockstep in numba kernels (module `games/kansas_city/batched.py`; needs the `fast` extra; see
docs/vector.md).

- **Status**: complete. Both player counts and every option of the AEC env: `hands` (1–10 or
  `'per_player'`), `card_backs` (`'ranks'` and `'hidden'`), both reward modes. A game never
  ends at its deal, so `deal_rewards` stay zero.
- **What the kernel covers**: the deal (from each game's own stream: a first dealer, then one
  shuffle per hand; or scripted deals, a whole game of hands, where hands left out are dealt
  from the game's stream, around a scripted `set_aside` card if one is given), the pass, the
  tricks, the upgrade step with its blocked ranks and skipped seats, scoring, rewards, the mask
  and the observation entry for entry (every entry of the row written, card sets a byte at a
  time), and finished games dealt again after every seat's final observation. `game(i)`
  rebuilds the reference game from the episode's deals and its actions, which the engine keeps
  (passes by hand, plays and upgrades a byte each).
- **Checked**: `tests/games/kansas_city/test_vector.py` compares the seat to move, observation,
  mask, rewards, terminations, final scores and final observations with the reference at every
  step, for every player count and variant, with random play, the lowest legal action and a
  policy that upgrades and plays trumps whenever it may, over the engine's own deals hand after
  hand too (`-m slow`: about 25,000 games).
- **Speed** (`python benchmarks/bench_envs.py --envs kansas_city --no-classic --no-seat-env
  --num-envs 1,64,1024,4096,8192 --seconds 1 --rounds 3`, one core of a shared 2-core machine,
  random legal actions picked in numpy): with 4 players 0.55M decisions/s at 64 games, 1.06M at
  1024, 0.64M at 4096 (61× the AEC env's 10.5k/s in the same run) and 0.65M at 8192; with 5
  players 0.64M at 4096 (50×). From 4096 games on the observation rows (5.2 KB each with 4
  players) no longer fit in the cache and writing them dominates. State: 800 bytes per game
  beyond the observation and mask buffers (1,852 with 5 players and 10 hands). Compile: about
  10 s cold, 1 s cached.

## Rendering

`render_mode="ansi"` returns the spectator table as text (`"human"` prints it);
`render_mode="rgb_array"` returns an image frame, an HxWx3 `uint8` array (1280×720 with 4
players, 1280×872 with 5, the same for every frame of an env, so a video has one size), drawn
with Pillow (the `render` extra) from the browser view's data. The AEC and parallel envs draw
the referee's table: every hand (the seat's trumps last), the upgraded trumps and known voids by
seat, the trick, the last trick and who took it, the passes, the ranks played by suit, the hand
scores. The seat env (`kansas_city_seat-v1`) draws the learner seat's table: its own hand, the
other hands as face-down counts. Cards show their rank, suit symbol and suit letter in the
suit's colour (the browser view's marks). `metadata["render_fps"]` is 4. Examples
(`RecordVideo`) and the cost of a frame: [the API page](api.md#image-frames-and-videos).

![Kansas City: a frame of the referee's table (render_mode="rgb_array")](frame_kansas_city.png)

## Version history

- v0 (cahoots-envs 0.1.0): first release.
- v1: the observation holds every public fact that bears on play. Added segments, after the v0
  ones (whose indices and meaning are unchanged): `voids` (N×7), `played_by` (N×56),
  `trumps_played_by` (N×8), `passed_ranks` (N×8), `hand_size` (N), `last_trick` (N×64),
  `last_trick_leader` (N), `last_trick_winner` (N), `next_leader` (N) and `hidden_backs` (1); the
  observation grows from 711 to 1300 floats with 4 players (797 to 1533 with 5). Changed: `phase`
  is all zero once the game is over (v0 left `play` set). New option `card_backs` (`'ranks'`, the
  default, is the v0 game). The rules are unchanged.

  **Migrating from v0**: `make("kansas_city-v0")` raises `RetiredEnvError`; use `-v1`. Policies
  trained on v0 must be retrained (the observation size changed); v0 game logs still replay
  under v1. Code that reads the observation through `layout.views(obs)` by segment name keeps
  working; the heuristic bot chooses exactly as under v0.
- cahoots-envs 0.3.0 (still v1; observations, actions, rewards and saved policies unchanged):
  **breaking for code that reads names from infos**: `infos[agent]["phase"]` is an index into
  `env.unwrapped.phase_names`, the parallel env's `active_agent` a seat index; the seat env's
  mask after an episode is the placeholder mask, not all zero (docs/api.md, "Infos every client
  can stack"; CHANGELOG.md).
"""

from __future__ import annotations

from cahoots_envs.core.aec import env_factories
from cahoots_envs.core.parallel import parallel_factory
from cahoots_envs.games.kansas_city.spec import SPEC

raw_env, env = env_factories(SPEC)
parallel_env = parallel_factory(SPEC)
