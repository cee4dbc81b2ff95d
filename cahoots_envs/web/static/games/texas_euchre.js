// Texas Euchre's table: the layout of its view model (games/texas_euchre/view.py), as data.
// (`place` of a centre field: "trick", the middle of the table; "beside" it; none: the details panel)
export const layout = {
  seatStats: [{ key: "score", label: "Score" }, { key: "stake_points", label: "Stake points" }, { key: "tricks", label: "Tricks" }],
  seatFlags: [{ key: "dealer", label: "dealer", mark: "D · dealer" }, { key: "thrown_down", label: "threw down", mark: "⤓ threw down" }],
  seatExtras: [{ key: "stake", label: "Stake", type: "cards", hideEmpty: true }],
  info: [
    { key: "round_number", label: "Round" }, { key: "target_score", label: "Playing to" },
    { key: "draw_pile", label: "Draw pile" }, { key: "reverse", label: "Lowest wins", format: "flag" },
  ],
  center: [
    { key: "trick", label: "Trick", type: "plays", place: "trick" },
    { key: "played", label: "Played this round", type: "cards" },
    { key: "round_points", label: "Round points", type: "rows", row: "round" },
  ],
};
