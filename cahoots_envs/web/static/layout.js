// The table, drawn from a game's view model (`table`) and its layout: plain data that a game's
// module (games/<kind>.js) declares: which seat fields are scores and flags, which fields are
// drawn in the centre and as what. No game is named here; a view model of an unknown kind gets
// a layout inferred from its data, and kind "text" the lines of the game's text view.
import { append, backEl, cardEl, cardRow, chip, el, goalWords, humanize, icon, identityCard, isCard, suitChip, suitStyle, textCard } from "./draw.js";

function seatName(table, ctx, seat) {
  const s = (table.seats || [])[seat];
  const base = s ? s.name : `player_${seat}`;
  const who = ctx.names && ctx.names[seat] ? ` (${ctx.names[seat]})` : "";
  return base + who;
}

function values(list, table) {
  const legend = table.legend || {};
  if (list.every((v) => isCard(v, legend))) return cardRow(list, legend);
  return el("span", { class: "chips" }, list.map((v) => chip(String(v))));
}

// ---- one field, drawn by its type -------------------------------------------------------------
const TYPES = {
  cards: (v, t, ctx, item) => cardRow(v || [], t.legend, item.key, item.label),
  card: (v, t) => (v ? cardEl(v, t.legend) : el("span", { class: "empty", text: "none" })),
  suits: (v, t) => el("span", { class: "chips" }, (v || []).length ? v.map((s) => suitChip(s, t.legend)) : el("span", { class: "empty", text: "none" })),
  ranks: (v) => el("span", { class: "chips ranks" }, (v || []).map((r) => chip(String(r)))),
  number: (v) => el("span", { class: "number", text: v === null || v === undefined ? "—" : String(v) }),
  text: (v) => el("span", { class: "text", text: v ? String(v) : "—" }),
  plays(v, t, ctx, item) {
    const plays = item.path && v ? v[item.path] : v;
    const row = el("div", { class: "plays" });
    for (const play of plays || []) {
      const winner = item.winner && v && v[item.winner] === play.seat;
      row.append(el("figure", { class: "play" + (winner ? " winner" : "") }, cardEl(play.card, t.legend),
        el("figcaption", {}, seatName(t, ctx, play.seat) + (winner ? " ★ took it" : ""))));
    }
    if (!(plays || []).length) row.append(el("span", { class: "empty", text: "no cards yet" }));
    return row;
  },
  seatmap(v, t, ctx) {
    const rows = el("dl", { class: "seatmap" });
    for (const [seat, list] of Object.entries(v || {})) {
      append(rows, [el("dt", { text: seatName(t, ctx, Number(seat)) }), el("dd", {}, values(list, t))]);
    }
    if (!Object.keys(v || {}).length) rows.append(el("span", { class: "empty", text: "none" }));
    return rows;
  },
  suitranks(v, t) {
    const rows = el("dl", { class: "seatmap" });
    for (const [suit, ranks] of Object.entries(v || {})) {
      append(rows, [el("dt", {}, suitChip(suit, t.legend)),
        el("dd", {}, (ranks || []).length ? ranks.join(" ") : "—")]);
    }
    return rows;
  },
  counts(v, t) {
    const row = el("div", { class: "counts" });
    for (const [key, count] of Object.entries(v || {})) {
      row.append(el("span", { class: "count" }, isCard(key, t.legend) ? cardEl(key, t.legend) : chip(key), ` ×${count}`));
    }
    if (!Object.keys(v || {}).length) row.append(el("span", { class: "empty", text: "none" }));
    return row;
  },
  rows(v, t, ctx, item) {
    const seats = t.seats || [];
    const table = el("table", { class: "rows" }, el("thead", {}, el("tr", {}, el("th", { text: item.row || "#" }),
      seats.map((s) => el("th", { scope: "col", text: s.name })))));
    const body = el("tbody");
    (v || []).forEach((row, i) => body.append(el("tr", {}, el("th", { scope: "row", text: String(i + 1) }),
      row.map((x) => el("td", { text: String(x) })))));
    table.append(body);
    return (v || []).length ? table : el("span", { class: "empty", text: "none yet" });
  },
  piles(v, t, ctx, item) {
    const row = el("div", { class: "piles" });
    for (const pile of v || []) {
      const target = String(pile[item.index || "pile"]);
      row.append(el("figure", { class: "pile", "data-target": target, "aria-label": `pile ${target}: ${pile.count} cards, top card ${pile.top}` },
        cardEl(pile.top, t.legend), el("figcaption", {}, `pile ${target} · ${pile.count} card${pile.count === 1 ? "" : "s"}`)));
    }
    return row;
  },
  goals(v, t, ctx, item) {
    const row = el("div", { class: "goals" });
    for (const goal of v || []) row.append(textCard(humanize(goal.family || "goal"), goal.text || goal.id, "#7a5c00", { "data-goal": goal.id }));
    if (!(v || []).length) row.append(el("span", { class: "empty", text: "none" }));
    return row;
  },
  ids: (v) => el("span", { class: "chips" }, (v || []).length ? v.map((id) => chip(humanize(id), id)) : el("span", { class: "empty", text: "none" })),
  totals(v, t, ctx, item) {
    const lead = new Set(item.leading ? t[item.leading] || [] : []);
    const row = el("div", { class: "chips totals" });
    for (const [suit, total] of Object.entries(v || {})) {
      const s = suitStyle(t.legend, suit);
      row.append(el("span", { class: "chip suit" + (lead.has(suit) ? " leading" : ""), style: `border-color:${s.colour};color:${s.colour}`,
        "aria-label": `${s.name}: ${total}${lead.has(suit) ? ", leading" : ""}` }, `${s.symbol} ${suit} ${total}${lead.has(suit) ? " ▲" : ""}`));
    }
    return row;
  },
  picks(v, t, ctx) {
    const row = el("div", { class: "plays" });
    for (const pick of v || []) {
      row.append(el("figure", { class: "play" }, el("div", { class: "pair" },
        pick.kept ? cardEl(pick.kept, t.legend) : null, pick.killed ? cardEl(pick.killed, t.legend, { class: "card killed" }) : null),
      el("figcaption", {}, `${seatName(t, ctx, pick.seat)}: ${pick.kept ? `kept ${pick.kept}` : ""}${pick.kept && pick.killed ? ", " : ""}${pick.killed ? `killed ✗ ${pick.killed}` : ""}`)));
    }
    if (!(v || []).length) row.append(el("span", { class: "empty", text: "none" }));
    return row;
  },
  swaps(v, t, ctx, item) {
    const row = el("div", { class: "plays" });
    for (const swap of v || []) {
      row.append(el("figure", { class: "play" }, el("div", { class: "pair" }, cardEl(swap[item.from], t.legend), " → ", cardEl(swap[item.to], t.legend)),
        el("figcaption", {}, `${swap[item.from]} became ${swap[item.to]}`)));
    }
    if (!(v || []).length) row.append(el("span", { class: "empty", text: "none" }));
    return row;
  },
  lastplay(v, t, ctx) {
    if (!v) return el("span", { class: "empty", text: "none yet" });
    return el("figure", { class: "play" }, cardEl(v.card, t.legend),
      el("figcaption", {}, `${seatName(t, ctx, v.seat)} on pile ${v.pile}${(v.completed || []).length ? ` · completed ${v.completed.map(humanize).join(", ")}` : ""}`));
  },
  signals(v, t, ctx) {  // public messages of the seats: who said what, and when
    if (!(v || []).length) return el("span", { class: "empty", text: "none yet" });
    return el("ul", { class: "signals", "aria-label": "signals" }, v.map((s) =>
      el("li", { "data-seat": s.seat }, `${seatName(t, ctx, s.seat)}${s.turn === undefined ? "" : ` (turn ${s.turn})`}: ${goalWords(s.text, t)}`)));
  },
  seats: (v, t, ctx) => el("span", { class: "chips" }, (v || []).length ? v.map((s) => chip(seatName(t, ctx, s))) : el("span", { class: "empty", text: "none" })),
  identity(v, t, ctx, item) {
    const suits = v || [];
    const names = suits.map((s) => suitStyle(t.legend, s).name);
    return identityCard(suits, t.legend, `${item.label}: ${names.join(", ")}`);
  },
  flag: (v) => el("span", { class: "text", text: v === null || v === undefined ? "—" : v ? "yes" : "no" }),
};

export function drawField(item, table, ctx) {
  const draw = TYPES[item.type] || TYPES.text;
  return draw(table[item.key], table, ctx, item);
}

// ---- a layout for a view model of a kind without a module -----------------------------------
export function inferLayout(table) {
  const legend = table.legend || {};
  const skip = new Set(["kind", "viewer", "phase", "headline", "legend", "seats"]);
  const seatSkip = new Set(["seat", "name", "you", "to_move", "hand", "hand_count"]);
  const seatStats = [];
  const seatFlags = [];
  const seatExtras = [];
  for (const [key, value] of Object.entries((table.seats || [])[0] || {})) {
    if (seatSkip.has(key)) continue;
    if (typeof value === "number") seatStats.push({ key, label: humanize(key) });
    else if (typeof value === "boolean") seatFlags.push({ key, label: humanize(key), mark: humanize(key) });
    else if (Array.isArray(value)) seatExtras.push({ key, label: humanize(key), type: "cards" });
  }
  const center = [];
  const info = [];
  for (const [key, value] of Object.entries(table)) {
    if (skip.has(key)) continue;
    let type = "text";
    if (typeof value === "number") { info.push({ key, label: humanize(key) }); continue; }
    if (Array.isArray(value)) {
      if (value.every((v) => isCard(v, legend))) type = "cards";
      else if (value.every((v) => v && typeof v === "object" && "seat" in v && "card" in v)) type = "plays";
      else if (value.every((v) => Array.isArray(v))) type = "rows";
      else if (value.every((v) => typeof v === "string")) type = "ids";
    } else if (value && typeof value === "object") type = "seatmap";
    else if (typeof value === "boolean") type = "flag";
    center.push({ key, label: humanize(key), type });
  }
  return { seatStats, seatFlags, seatExtras, info, center };
}

// ---- the whole table --------------------------------------------------------------------------
function seatBox(seat, table, ctx, layout) {
  const legend = table.legend || {};
  const flags = [];
  if (seat.to_move) flags.push(el("span", { class: "flag to-move", title: "to move" }, icon("play"), "to move"));
  if (seat.you) flags.push(el("span", { class: "flag you" }, "you"));
  for (const f of layout.seatFlags || []) if (seat[f.key]) flags.push(el("span", { class: "flag", title: f.label }, f.mark || f.label));
  const stats = el("dl", { class: "stats" });
  for (const s of layout.seatStats || []) append(stats, [el("dt", { text: s.label }), el("dd", { text: String(seat[s.key]) })]);
  const box = el("section", {
    class: "seat" + (seat.to_move ? " to-move" : "") + (seat.you ? " you" : ""), "data-seat": seat.seat,
    "aria-label": `${seatName(table, ctx, seat.seat)}${seat.to_move ? ", to move" : ""}`,
  }, el("h3", {}, seatName(table, ctx, seat.seat), " ", flags), stats);
  for (const extra of layout.seatExtras || []) {
    const value = seat[extra.key];
    if (value === null || value === undefined || (Array.isArray(value) && !value.length && extra.hideEmpty)) continue;
    const draw = TYPES[extra.type] || TYPES.text;
    box.append(el("div", { class: "extra" }, el("span", { class: "label", text: extra.label + ": " }),
      draw(value, table, ctx, { key: `seat${seat.seat}-${extra.key}`, label: extra.label })));
  }
  const label = seat.you ? "your hand" : `${seat.name}'s hand`;
  if (Array.isArray(seat.hand)) {
    const zone = seat.seat === table.viewer ? "hand" : `hand-${seat.seat}`;
    box.append(el("div", { class: "hand" }, cardRow(seat.hand, legend, zone, `${label}, ${seat.hand.length} cards`)));
  } else if (seat.hand_count !== undefined) {
    box.append(el("div", { class: "hand hidden" }, seat.hand_count ? backEl(seat.hand_count, `${label}: ${seat.hand_count} face-down cards`)
      : el("span", { class: "empty", text: "no cards" })));
  }
  return box;
}

function scoreTable(table, ctx, layout) {
  const stats = (layout.seatStats || []).length ? layout.seatStats : [{ key: "score", label: "Score" }];
  const head = el("tr", {}, el("th", { scope: "col", text: "seat" }), stats.map((s) => el("th", { scope: "col", text: s.label })));
  const body = el("tbody", {}, (table.seats || []).map((seat) => el("tr", { class: seat.to_move ? "to-move" : null },
    el("th", { scope: "row", text: seatName(table, ctx, seat.seat) + (seat.to_move ? " (to move)" : "") }),
    stats.map((s) => el("td", { text: String(seat[s.key]) })))));
  return el("table", { class: "scores", "aria-label": "scores" }, el("caption", { text: "Scores" }), el("thead", {}, head), body);
}

// panels (details elements) stay open or closed as the player left them, across redraws
export const openPanels = new Set();
export function panel(name, title, open, ...children) {
  const node = el("details", { class: `panel panel-${name}`, "data-panel": name, open: openPanels.has(name) || (open && !openPanels.has(`-${name}`)) },
    el("summary", { text: title }), ...children);
  node.addEventListener("toggle", () => {
    openPanels.delete(node.open ? `-${name}` : name);
    openPanels.add(node.open ? name : `-${name}`);
  });
  return node;
}

// the latest move and what it completed ("player_2 takes the trick"), beside the trick
function latestBox(latest) {
  const box = el("section", { class: "area latest", "aria-live": "polite", "aria-label": "latest move" }, el("h4", { text: "Latest" }));
  if (!latest) box.append(el("span", { class: "empty", text: "no move yet" }));
  else {
    box.append(el("p", { class: "latest-move", text: latest.text }));
    for (const note of latest.notes || []) box.append(el("p", { class: "latest-note", text: note.trim() }));
  }
  return box;
}

// The table: the other seats along the top, the trick (or piles and goals) in the middle with
// the last trick and the latest move beside it, your seat and hand at the bottom; the rest of
// the view model (played cards, passes, scores) in a panel that opens. A layout item's `place`:
// "trick" (the middle), "beside", or none: the details panel.
export function drawTable(table, ctx, layout) {
  if (!table || table.kind === "text") {
    return el("div", { class: "table text-table", "data-kind": "text" },
      el("p", { class: "headline", text: table ? table.headline : "" }),
      el("pre", { class: "lines", text: ((table && table.lines) || []).join("\n") }));
  }
  const inferred = !layout;
  layout = layout || inferLayout(table);
  const root = el("div", { class: "table", "data-kind": table.kind });
  const info = el("dl", { class: "info" });
  for (const item of layout.info || []) {
    const value = table[item.key];
    if (value === null || value === undefined) continue;
    const shown = item.of && table[item.of] !== undefined ? `${value} of ${table[item.of]}` : String(value);
    append(info, [el("dt", { text: item.label }), el("dd", { text: item.format === "flag" ? (value ? "yes" : "no") : shown })]);
  }
  root.append(el("div", { class: "table-head" }, el("p", { class: "headline", text: table.headline || "" }), info));
  const seats = table.seats || [];
  const viewer = seats.find((s) => s.you);
  const others = el("div", { class: "seats others" }, seats.filter((s) => !s.you).map((s) => seatBox(s, table, ctx, layout)));
  const inDetails = [];
  const places = { trick: el("div", { class: "middle" }), beside: el("div", { class: "beside" }), details: el("div", { class: "details" }) };
  for (const item of layout.center || []) {
    if (!(item.key in table)) continue;
    if (item.hideEmpty && (table[item.key] === null || (Array.isArray(table[item.key]) && !table[item.key].length))) continue;
    const where = places[inferred ? "trick" : item.place || "details"];
    if (where === places.details) inDetails.push(item.label.toLowerCase());
    where.append(el("section", { class: `area area-${item.type}`, "data-field": item.key },
      el("h4", { text: item.label }), drawField(item, table, ctx)));
  }
  places.beside.prepend(latestBox(ctx.latest));
  root.append(others, el("div", { class: "felt" }, places.trick, places.beside));
  if (viewer) root.append(el("div", { class: "seats mine" }, seatBox(viewer, table, ctx, layout)));
  places.details.append(scoreTable(table, ctx, layout));
  root.append(panel("details", `Table details: ${[...inDetails.slice(0, 3), "scores"].join(", ")}`, false, places.details));
  return root;
}
