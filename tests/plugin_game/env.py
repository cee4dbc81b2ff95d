r"""# High Card (test game) — `cahoots_envs/high_card-v0`

A small third-party-style game that lives in `tests/plugin_game/` and reaches the package only
through its public layers (`cahoots_envs.core`). The test session registers it through the
public API, so the whole shared test suite runs on it as on the built-in games.

<!-- spaces -->
| | |
|---|---|
| players | 2 (default) or 3 |
| actions | `Discrete(18)` at every player count |
| observation | `Box(90,)` float32 with 2 players (112 with 3 players), and an `action_mask` (int8, one per action) |
| game length | `hands` hands of 4 tricks: at most 4 × players × `hands` decisions |
<!-- /spaces -->

## Rules

- **Deck**: 3 suits (R, G, B) × ranks 1–6 = 18 cards, written rank then suit (`5R`).
- **Deal**: each hand, every player gets 4 cards from a shuffle; the other cards form a stock
  that stays face down, unseen by everyone and never used.
- **Tricks**: the leader of a hand's first trick is `start_player` (random unless scripted);
  the winner of a trick leads the next. Follow suit if able, otherwise play any card. The
  highest card of the led suit takes the trick. Each trick is worth 1 point.
- **Hands** (option `hands`, 1–5): hand k+1's first leader is the seat after hand k's first
  leader. After the last hand the highest total wins; tied players share the win.

## Options

<!-- options-table -->
| option | default | accepts | meaning | saved policy |
|---|---|---|---|---|
| `num_players` | `2` | one of 2, 3 | number of seats | must match |
| `render_mode` | `None` | one of None, 'ansi', 'human', 'rgb_array' | `'ansi'` returns a text table, `'human'` prints it, `'rgb_array'` returns an image frame (HxWx3 uint8; needs Pillow, the `render` extra) | may differ |
| `reward_mode` | `'win'` | one of 'win', 'points' | `'win'`: rewards at game end only; `'points'`: rewarded as rulebook points are awarded | may differ |
| `hands` | `1` | an int from 1 to 5 | number of hands in a game; hand k+1 is led first by the seat after hand k's first leader, and the highest total wins | may differ |
<!-- /options-table -->

## Observation

A flat float32 vector, relative to the observer: "relative seat" 0 is you, then the others
clockwise. Cards are bits at index `suit*6 + rank-1` (suits R, G, B = 0, 1, 2; ranks 1 … 6).
The table is for 2 players (with 3 players the per-player blocks have 3 rows and later indices
shift).

<!-- observation-table -->
| index | name | shape | range | meaning |
|---|---|---|---|---|
| 0–17 | `hand` | 18 | 0–1 | own hand, one bit per card, index `suit*6 + rank-1`, suits R G B, ranks 1..6 |
| 18–53 | `trick` | 2×18 | 0–1 | current trick: the card each relative seat played (rows: you, then the others clockwise) |
| 54–71 | `played` | 18 | 0–1 | cards played this hand (finished tricks and the current one) |
| 72–73 | `tricks_won` | 2 | 0–1 | tricks taken this hand per relative seat / 4 |
| 74–75 | `scores` | 2 | 0–1 | total score per relative seat / 20 (the most a game of 5 hands gives) |
| 76–80 | `hand_number` | 5 | 0–1 | the hand being played, 1..5 (one-hot) |
| 81–85 | `num_hands` | 5 | 0–1 | hands in the game, option `hands` 1..5 (one-hot) |
| 86–87 | `leader` | 2 | 0–1 | relative seat that leads or led the current trick (one-hot; all zero when the game is over) |
| 88–89 | `to_move` | 2 | 0–1 | relative seat to move (one-hot; all zero when the game is over) |
<!-- /observation-table -->

Hidden from you: the other hands and the stock. Everything played is public (the current trick
by seat, the cards played this hand), as are tricks, scores and who leads.

## Actions

| ids | text | meaning |
|---|---|---|
| 0–17 | `play 5R` | play this card; id = `suit*6 + rank-1` (R 0–5, G 6–11, B 12–17) |

`env.unwrapped.action_to_str(a)` and `str_to_action(text)` convert (case and spacing do not
matter).

## Rewards

- `reward_mode="win"` (default): at the end of the game the players with the highest total
  split +1 and the others split −1; a full tie gives 0.
- `reward_mode="points"`: +1 to a player each time it takes a trick.
- `infos[agent]["score"]`: the total points (tricks taken); `infos[agent]["phase"]`: `play` or
  `game_over`.

Scripted deals (`env.reset(options={"deal": {...}})`): `start_player` (a seat) and `hands` (one
list of 4 cards per seat); a key left out is drawn from the env's RNG. A list of such dicts
scripts the hands of a whole game in order (hands after the list are dealt from the RNG); a
later hand's `start_player` must be left out or equal the rotation's. `env.unwrapped.game.deals`
records every hand's deal in this format as it is dealt.

## Version history

- v0: first release (the plugin test game).
"""

from __future__ import annotations
