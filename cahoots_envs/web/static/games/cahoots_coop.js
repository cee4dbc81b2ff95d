// Cahoots (cooperative)'s table: the layout of its view model (games/cahoots_coop/view.py), as
// data: the four piles (a move's target), the goal cards, the team's progress, the signals
// (table talk).
// (`place` of a centre field: "trick", the middle of the table; "beside" it; none: the details panel)
export const layout = {
  seatStats: [{ key: "score", label: "Team score" }],
  seatFlags: [],
  seatExtras: [],
  info: [
    { key: "num_goals", label: "Goals in the game" },
    { key: "goal_deck", label: "Goal deck" },
    { key: "draw_pile", label: "Draw pile" },
    { key: "won", label: "Won", format: "flag" },
    { key: "talk", label: "Table talk" },
  ],
  center: [
    { key: "piles", label: "Piles", type: "piles", index: "pile", place: "trick" },
    { key: "goals", label: "Goals", type: "goals", place: "trick" },
    { key: "completed", label: "Completed goals", type: "ids", place: "trick" },
    { key: "last_play", label: "Last play", type: "lastplay", place: "beside" },
    { key: "signals", label: "Signals (each seat's latest)", type: "signals", hideEmpty: true, place: "beside" },
    { key: "draw_order", label: "Draw pile, top first (referee)", type: "cards" },
    { key: "goal_order", label: "Goal deck, top first (referee)", type: "ids" },
  ],
};
