// Kansas City's table: the layout of its view model (games/kansas_city/view.py), as data.
// (`place` of a centre field: "trick", the middle of the table; "beside" it; none: the details panel)
export const layout = {
  seatStats: [{ key: "score", label: "Score" }, { key: "tricks", label: "Tricks" }, { key: "fours", label: "4s taken" }],
  seatFlags: [{ key: "dealer", label: "dealer", mark: "D · dealer" }],
  seatExtras: [
    { key: "ranks", label: "Ranks held", type: "ranks", hideEmpty: true },
    { key: "trumps", label: "Upgraded trumps", type: "cards", hideEmpty: true },
    { key: "voids", label: "Void in", type: "suits", hideEmpty: true },
  ],
  info: [
    { key: "hand_number", label: "Hand", of: "hands_total" },
    { key: "trick_number", label: "Trick", of: "hand_size" },
    { key: "trick_limit", label: "Trick limit" },
  ],
  center: [
    { key: "trick", label: "Trick", type: "plays", place: "trick" },
    { key: "last_trick", label: "Last trick", type: "plays", path: "plays", winner: "winner", hideEmpty: true, place: "beside" },
    { key: "set_aside", label: "Set-aside card", type: "card", hideEmpty: true, place: "beside" },
    { key: "upgrades", label: "Your upgrades", type: "swaps", from: "was", to: "trump", hideEmpty: true },
    { key: "passed", label: "You passed", type: "cards", hideEmpty: true },
    { key: "received", label: "You received", type: "cards", hideEmpty: true },
    { key: "ranks_passed", label: "Passes (ranks)", type: "seatmap" },
    { key: "played", label: "Played (ranks by suit)", type: "suitranks" },
    { key: "trumps_played", label: "Trumps played", type: "counts" },
    { key: "hand_scores", label: "Hand scores", type: "rows", row: "hand" },
  ],
};
