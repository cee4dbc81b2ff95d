// Drawing helpers shared by every game: elements, SVG cards (rank, suit symbol and letter, a
// colour per suit: colour is never the only mark), face-down backs, chips. A card is a string in
// the game's move notation: its suit (or colour) is its last character, its rank the rest; the
// table's `legend` names each suit and gives its symbol.

const SVGNS = "http://www.w3.org/2000/svg";

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key === "style") node.style.cssText = value; // CSSOM: the CSP allows no style attribute
    else if (key.startsWith("on") && typeof value === "function") node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  append(node, children);
  return node;
}

export function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVGNS, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  for (const child of children) node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return node;
}

// colours that read on white, for legend names that are colours; other suits take the palette
const NAMED = {
  green: "#1e7d4f", orange: "#b35900", pink: "#c2185b", purple: "#6a3d9a", red: "#c0392b",
  blue: "#1f5fa8", yellow: "#8a7400", black: "#1b1b1b",
};
const PALETTE = ["#1b1b1b", "#c0392b", "#1f5fa8", "#1e7d4f", "#b35900", "#8e3b8e", "#2b7f8e", "#6d5f00"];

export function splitCard(card) {
  const text = String(card);
  return { rank: text.slice(0, -1), suit: text.slice(-1) };
}

export function suitStyle(legend, suit) {
  const keys = Object.keys(legend || {});
  const info = (legend || {})[suit] || { name: `suit ${suit}`, symbol: suit };
  const index = Math.max(0, keys.indexOf(suit));
  const colour = NAMED[String(info.name).toLowerCase()] || PALETTE[index % PALETTE.length];
  return { name: String(info.name), symbol: String(info.symbol), colour };
}

export function isCard(value, legend) {
  return typeof value === "string" && value.length >= 2 && legend && value.slice(-1) in legend;
}

export function cardLabel(card, legend) {
  const { rank, suit } = splitCard(card);
  const style = suitStyle(legend, suit);
  return `${rank} of ${style.name} (${style.symbol}, ${card})`;
}

function cardFace(card, legend) {
  const { rank, suit } = splitCard(card);
  const s = suitStyle(legend, suit);
  return svg("svg", { viewBox: "0 0 60 84", class: "card-svg", "aria-hidden": "true", focusable: "false" },
    svg("rect", { x: 1.5, y: 1.5, width: 57, height: 81, rx: 6, fill: "#fffdf7", stroke: s.colour, "stroke-width": 2.5 }),
    svg("rect", { x: 4, y: 4, width: 52, height: 10, rx: 3, fill: s.colour, opacity: 0.16 }),
    svg("text", { x: 7, y: 22, "font-size": 17, "font-weight": 700, fill: s.colour, class: "card-rank" }, rank),
    svg("text", { x: 7, y: 37, "font-size": 12, fill: s.colour }, s.symbol),
    svg("text", { x: 32, y: 62, "font-size": 28, "text-anchor": "middle", fill: s.colour }, s.symbol),
    svg("text", { x: 53, y: 78, "font-size": 10, "text-anchor": "end", fill: s.colour, "font-weight": 700 }, suit));
}

// A face-up card: a role=img element with its label, data-card its notation.
export function cardEl(card, legend, extra = {}) {
  const label = cardLabel(card, legend);
  const node = el("span", { class: "card", role: "img", "aria-label": label, title: label, "data-card": card, ...extra });
  node.append(cardFace(card, legend));
  return node;
}

export function backEl(count, label) {
  const text = label || (count === 1 ? "1 face-down card" : `${count} face-down cards`);
  const node = el("span", { class: "card back", role: "img", "aria-label": text, title: text });
  node.append(svg("svg", { viewBox: "0 0 60 84", class: "card-svg", "aria-hidden": "true", focusable: "false" },
    svg("rect", { x: 1.5, y: 1.5, width: 57, height: 81, rx: 6, fill: "#33506e", stroke: "#1c2d3f", "stroke-width": 2 }),
    svg("rect", { x: 7, y: 7, width: 46, height: 70, rx: 4, fill: "none", stroke: "#9fb6cc", "stroke-width": 1.5, "stroke-dasharray": "3 3" }),
    svg("text", { x: 30, y: 50, "font-size": 18, "text-anchor": "middle", fill: "#f4f7fa", "font-weight": 700 }, `×${count}`)));
  return node;
}

// A row of face-up cards; `zone` names it for the move builder (cards chosen from it).
export function cardRow(cards, legend, zone, label) {
  const row = el("div", { class: "cards", "data-zone": zone || null, role: "group", "aria-label": label || null });
  (cards || []).forEach((card, i) => row.append(cardEl(card, legend, { "data-index": i })));
  if (!cards || cards.length === 0) row.append(el("span", { class: "empty", text: "none" }));
  return row;
}

export function suitChip(suit, legend) {
  const s = suitStyle(legend, suit);
  return el("span", { class: "chip suit", style: `border-color:${s.colour};color:${s.colour}`, title: s.name,
    "aria-label": `${s.name} (${suit})` }, `${s.symbol} ${suit}`);
}

export function chip(text, title) {
  return el("span", { class: "chip", title: title || null }, text);
}

export function humanize(key) {
  return String(key).replace(/_/g, " ").replace(/\b([A-Z]+)\b/g, (w) => w.toLowerCase());
}

// A goal (or any text) card drawn as SVG: its family as a heading, its text wrapped.
export function textCard(title, text, colour = "#555", extra = {}) {
  const words = String(text).split(/\s+/);
  const lines = [];
  let line = "";
  for (const word of words) {
    if ((line + " " + word).trim().length > 17 && line) { lines.push(line); line = word; }
    else line = (line + " " + word).trim();
  }
  if (line) lines.push(line);
  const height = Math.max(84, 34 + lines.length * 12);
  const node = el("span", { class: "card text-card", role: "img", "aria-label": `${title}: ${text}`, title: `${title}: ${text}`, ...extra });
  node.append(svg("svg", { viewBox: `0 0 110 ${height}`, class: "card-svg", "aria-hidden": "true", focusable: "false" },
    svg("rect", { x: 1.5, y: 1.5, width: 107, height: height - 3, rx: 7, fill: "#fbf8ef", stroke: colour, "stroke-width": 2 }),
    svg("text", { x: 55, y: 17, "font-size": 10, "text-anchor": "middle", "font-weight": 700, fill: colour }, `◆ ${title}`),
    ...lines.map((l, i) => svg("text", { x: 55, y: 34 + i * 12, "font-size": 10, "text-anchor": "middle", fill: "#222" }, l))));
  return node;
}

// An identity card: the suits a seat scores for, each its symbol, letter and colour band.
export function identityCard(suits, legend, label) {
  const node = el("span", { class: "card identity", role: "img", "aria-label": label, title: label });
  const parts = [svg("rect", { x: 1.5, y: 1.5, width: 57, height: 81, rx: 6, fill: "#f3efe6", stroke: "#5b4a2f", "stroke-width": 2 })];
  const step = 76 / Math.max(1, suits.length);
  suits.forEach((suit, i) => {
    const s = suitStyle(legend, suit);
    const y = 4 + i * step;
    parts.push(svg("rect", { x: 5, y: y + 1, width: 50, height: step - 3, rx: 3, fill: s.colour, opacity: 0.14 }));
    parts.push(svg("text", { x: 30, y: y + step / 2 + 5, "font-size": 15, "text-anchor": "middle", fill: s.colour, "font-weight": 700 }, `${s.symbol} ${suit}`));
  });
  node.append(svg("svg", { viewBox: "0 0 60 84", class: "card-svg", "aria-hidden": "true", focusable: "false" }, ...parts));
  return node;
}

// Icons drawn as SVG (no emoji font needed): each a 24×24 path set in currentColor.
const ICONS = {
  first: ["M6 5h2v14H6z", "M19 5v14l-9-7z"],
  back: ["M17 5v14l-10-7z"],
  forward: ["M7 5v14l10-7z"],
  last: ["M16 5h2v14h-2z", "M5 5v14l9-7z"],
  hourglass: ["M6 3h12v2l-4.5 7L18 19v2H6v-2l4.5-7L6 5z"],
  star: ["M12 3l2.6 5.9 6.4.6-4.8 4.3 1.4 6.3L12 16.8 6.4 20.1l1.4-6.3L3 9.5l6.4-.6z"],
  play: ["M7 5v14l11-7z"],
};
export function icon(name, label = null) {
  const node = svg("svg", { viewBox: "0 0 24 24", class: `icon icon-${name}`, focusable: "false", ...(label ? { role: "img", "aria-label": label } : { "aria-hidden": "true" }) },
    ...(ICONS[name] || []).map((d) => svg("path", { d, fill: "currentColor" })));
  return node;
}

// A move's words with each goal id of the table (`aim SUM_20`) said as the goal's own words.
export function goalWords(text, table) {
  const goals = new Map(((table && table.goals) || []).map((g) => [String(g.id).toUpperCase(), g.text]));
  if (!goals.size) return String(text);
  return String(text).split(" ").map((w) => (goals.has(w.toUpperCase()) ? `“${goals.get(w.toUpperCase())}”` : w)).join(" ");
}
