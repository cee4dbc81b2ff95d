// Cahoots (competitive)'s table: the layout of its view model (games/cahoots_tricks/view.py), as
// data: identity cards, the trick and its suit totals, the keep/kill picks, the pools.
// (`place` of a centre field: "trick", the middle of the table; "beside" it; none: the details panel)
export const layout = {
  seatStats: [{ key: "score", label: "Score" }],
  seatFlags: [{ key: "start", label: "start player", mark: "⚑ start" }],
  seatExtras: [
    { key: "identity", label: "Identity", type: "identity" },
    { key: "known", label: "Known in hand", type: "cards", hideEmpty: true },
  ],
  info: [
    { key: "trick_number", label: "Trick", of: "tricks" },
    { key: "keep_kill_pass", label: "Keep/kill pass" },
    { key: "reserve_count", label: "Reserve (face down)" },
  ],
  center: [
    { key: "trick", label: "Trick", type: "plays", place: "trick" },
    { key: "suit_totals", label: "Suit totals (▲ leading)", type: "totals", leading: "leading", place: "beside" },
    { key: "scoring", label: "Scoring seats", type: "seats", place: "beside" },
    { key: "picks", label: "Keep / kill picks", type: "picks", hideEmpty: true, place: "trick" },
    { key: "left_to_pick", label: "Left to pick", type: "cards", hideEmpty: true, place: "trick" },
    { key: "point_pool", label: "Point cards to draft", type: "cards", hideEmpty: true, place: "trick" },
    { key: "killed", label: "Killed", type: "cards" },
    { key: "reserve_drawn", label: "Reserve drawn", type: "cards", hideEmpty: true },
    { key: "last_result", label: "Last trick", type: "text", place: "beside" },
  ],
};
