// Building a move from its parts (API.md, "Legal moves"): a verb, a set of cards, a target.
// Only cards that belong to some legal move of the chosen verb (given the cards chosen so far)
// are clickable, and a selection may be confirmed only when exactly one legal move has that
// verb, the same cards and that target. A verb whose moves are each one card and nothing else
// plays with one click; a word move ("no upgrade", "throw down") is one button.
import { cardRow, el, goalWords } from "./draw.js";

function* subsets(cards, size, from = 0) {
  if (size === 0) { yield []; return; }
  for (let i = from; i <= cards.length - size; i++) for (const rest of subsets(cards, size - 1, i + 1)) yield [cards[i], ...rest];
}

// The API's legal moves in parts (the cards, then each kind of move) as one entry per move:
// {id, text, verb, kind, cards, target, words}; a move of a kind whose every set of cards is
// legal has no id (id: null), and is sent by its parts.
export function expand(legal) {
  const moves = [];
  if (!legal) return moves;
  for (const kind of legal.kinds) {
    if (kind.any) {
      for (const size of kind.sizes) for (const cards of subsets(kind.cards, size)) {
        moves.push({ id: null, text: [kind.verb, ...cards].join(" "), verb: kind.verb, kind: kind.kind, cards, target: null, words: [] });
      }
    } else {
      for (const m of kind.moves) moves.push({ ...m, verb: kind.verb, kind: kind.kind, words: [] });
    }
  }
  for (const w of legal.words) moves.push({ ...w, kind: "word", cards: [], target: null });
  return moves;
}

function tally(cards) {
  const out = new Map();
  for (const c of cards) out.set(c, (out.get(c) || 0) + 1);
  return out;
}

export function within(small, big) {
  const have = tally(big);
  for (const [card, n] of tally(small)) if ((have.get(card) || 0) < n) return false;
  return true;
}

export function sameCards(a, b) {
  return a.length === b.length && within(a, b);
}

export function isWordMove(move) {
  return move.cards.length === 0 && move.target === null;
}

// The legal moves that fit a selection: its verb, its cards exactly, its target (null: none).
export function matching(legal, verb, cards, target) {
  return legal.filter((m) => m.verb === verb && !isWordMove(m) && sameCards(cards, m.cards) && m.target === target);
}

export function canAdd(legal, verb, cards, card) {
  const next = [...cards, card];
  return legal.some((m) => m.verb === verb && !isWordMove(m) && within(next, m.cards));
}

export function targetsFor(legal, verb, cards) {
  return [...new Set(legal.filter((m) => m.verb === verb && m.target !== null && sameCards(cards, m.cards)).map((m) => m.target))];
}

// the cards a verb's moves need, each as many times as one move names it
function needed(moves) {
  const most = new Map();
  for (const m of moves) for (const [card, n] of tally(m.cards)) most.set(card, Math.max(most.get(card) || 0, n));
  return most;
}

function zoneCards(zone) {
  return [...zone.querySelectorAll("[data-card]")].map((node) => node.dataset.card);
}

function covers(cards, need) {
  const have = tally(cards);
  for (const [card, n] of need) if ((have.get(card) || 0) < n) return false;
  return true;
}

export class MoveBuilder {
  // legal: the legal moves, one entry each (expand); tableRoot: the drawn table (its zones [data-zone] hold the
  // cards, its [data-target] elements the targets); panel: where the controls go; send(id).
  constructor(legal, tableRoot, panel, send) {
    this.legal = legal;
    this.tableRoot = tableRoot;
    this.panel = panel;
    this.send = send;
    this.verbs = [...new Set(legal.filter((m) => !isWordMove(m)).map((m) => m.verb))];
    this.words = legal.filter(isWordMove);
    this.verb = this.verbs[0] || null;
    this.picked = []; // [{node, card}]
    this.target = null;
    this.sent = false;
    this.render();
  }

  get cards() { return this.picked.map((p) => p.card); }

  oneClick() {
    const moves = this.legal.filter((m) => m.verb === this.verb);
    return moves.length > 0 && moves.every((m) => m.cards.length === 1 && m.target === null);
  }

  // the zone the verb's cards are chosen from: the viewer's hand when it holds them all, else
  // the smallest zone of the table that does, else a row of its own in the panel
  zone() {
    const need = needed(this.legal.filter((m) => m.verb === this.verb));
    const zones = [...this.tableRoot.querySelectorAll("[data-zone]")];
    const hand = zones.find((z) => z.dataset.zone === "hand");
    if (hand && covers(zoneCards(hand), need)) return hand;
    const fit = zones.filter((z) => covers(zoneCards(z), need)).sort((a, b) => zoneCards(a).length - zoneCards(b).length);
    if (fit.length) return fit[0];
    this.own = this.own || {};
    if (!this.own[this.verb]) {
      const cards = [];
      for (const [card, n] of need) for (let i = 0; i < n; i++) cards.push(card);
      this.own[this.verb] = cardRow(cards, this.legend(), "move-cards", "cards of this move");
    }
    return this.own[this.verb];
  }

  legend() {
    return (this.tableRoot.__table && this.tableRoot.__table.legend) || {};
  }

  choose(verb) {
    this.verb = verb;
    this.picked = [];
    this.target = null;
    this.render();
  }

  clear() {
    this.picked = [];
    this.target = null;
    this.render();
  }

  toggle(node) {
    const at = this.picked.findIndex((p) => p.node === node);
    if (at >= 0) this.picked.splice(at, 1);
    else {
      if (!canAdd(this.legal, this.verb, this.cards, node.dataset.card)) return;
      this.picked.push({ node, card: node.dataset.card });
      if (this.oneClick()) return this.confirm();
    }
    this.target = null;
    this.render();
  }

  pickTarget(target) {
    this.target = this.target === target ? null : target;
    this.render();
  }

  chosen() {
    const found = matching(this.legal, this.verb, this.cards, this.target);
    return found.length === 1 ? found[0] : null;
  }

  confirm() {
    const move = this.chosen();
    if (move && !this.sent) {
      this.sent = true;
      this.send(move);
    }
  }

  play(move) {
    if (!this.sent) {
      this.sent = true;
      this.send(move);
    }
  }

  static clickable(node, on, pressed, label, handler) {
    node.classList.toggle("selectable", on);
    node.classList.toggle("selected", !!pressed);
    node.classList.toggle("dim", !on && !pressed);
    if (!node.hasAttribute("data-label")) node.setAttribute("data-label", node.getAttribute("aria-label") || "");
    if (on || pressed) {
      node.setAttribute("role", "button");
      node.setAttribute("tabindex", "0");
      node.setAttribute("aria-pressed", pressed ? "true" : "false");
      if (label) node.setAttribute("aria-label", label);
      node.onclick = handler;
      node.onkeydown = (e) => {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); handler(); }
      };
    } else {
      node.removeAttribute("tabindex");
      node.removeAttribute("aria-pressed");
      node.onclick = null;
      node.onkeydown = null;
      if (node.dataset.card) node.setAttribute("role", "img");
      else node.removeAttribute("role");
      if (node.dataset.label) node.setAttribute("aria-label", node.dataset.label);
      else node.removeAttribute("aria-label");
    }
  }

  // a redraw keeps the keyboard's place: the focused card or target keeps focus, a panel
  // button its successor; a selection that makes a move puts focus on Confirm
  render() {
    const active = document.activeElement;
    const key = active && (active.dataset.key || (this.tableRoot.contains(active) ? active : null));
    const wasReady = !!this.chosen();
    this.draw();
    const confirm = this.panel.querySelector("button.confirm:not(:disabled)");
    if (confirm && !wasReady && key) confirm.focus();
    else if (key instanceof Element && key.isConnected && key.getAttribute("tabindex") === "0") key.focus();
    else if (typeof key === "string") {
      const again = this.panel.querySelector(`[data-key="${CSS.escape(key)}"]`);
      if (again && !again.disabled) again.focus();
    }
  }

  draw() {
    const panel = this.panel;
    panel.replaceChildren();
    // reset every card and target of the table
    for (const node of this.tableRoot.querySelectorAll(".selectable, .selected, .dim")) MoveBuilder.clickable(node, false, false, null, null);
    for (const node of this.tableRoot.querySelectorAll("[data-zone-active]")) node.removeAttribute("data-zone-active");
    panel.append(el("h3", { text: "Your move" }));
    if (this.verbs.length > 1) {
      panel.append(el("div", { class: "verbs", role: "group", "aria-label": "kind of move" },
        this.verbs.map((v) => el("button", { type: "button", class: "verb", "data-verb": v, "data-key": `verb-${v}`, "aria-pressed": v === this.verb ? "true" : "false",
          onclick: () => this.choose(v) }, v))));
    }
    if (this.verb) {
      const zone = this.zone();
      zone.setAttribute("data-zone-active", "");
      if (!zone.isConnected) panel.append(zone);
      for (const node of zone.querySelectorAll("[data-card]")) {
        const pressed = this.picked.some((p) => p.node === node);
        const on = pressed || canAdd(this.legal, this.verb, this.cards, node.dataset.card);
        const label = `${this.verb} ${node.getAttribute("title") || node.dataset.card}`;
        MoveBuilder.clickable(node, on, pressed, label, () => this.toggle(node));
      }
      const targets = targetsFor(this.legal, this.verb, this.cards);
      const missing = [];
      for (const target of targets) {
        const node = this.tableRoot.querySelector(`[data-target="${CSS.escape(target)}"]`);
        if (node) MoveBuilder.clickable(node, true, this.target === target, `${this.verb} on ${target}`, () => this.pickTarget(target));
        else missing.push(target);
      }
      if (missing.length) {
        panel.append(el("div", { class: "targets", role: "group", "aria-label": "target" }, missing.map((t) =>
          el("button", { type: "button", class: "target", "data-target": t, "data-key": `target-${t}`, "aria-pressed": t === this.target ? "true" : "false",
            onclick: () => this.pickTarget(t) }, `on ${goalWords(t, this.tableRoot.__table)}`))));
      }
      const move = this.chosen();
      const hint = this.oneClick() ? `click a highlighted card to ${this.verb} it`
        : targets.length && this.target === null ? `choose where: ${targets.join(", ")} (highlighted)`
        : move ? `ready: ${move.text}` : `choose the cards to ${this.verb} (highlighted)`;
      panel.append(el("p", { class: "selection", "aria-live": "polite" },
        `${this.verb}: ${this.cards.length ? this.cards.join(" ") : "no cards chosen"}${this.target !== null ? ` on ${this.target}` : ""} — ${hint}`));
      if (!this.oneClick()) {
        panel.append(el("div", { class: "confirm-row" },
          el("button", { type: "button", class: "confirm primary", "data-key": "confirm", disabled: !move, "aria-keyshortcuts": "Enter", onclick: () => this.confirm() },
            move ? `Confirm: ${move.text}` : "Confirm"),
          el("button", { type: "button", class: "clear", "data-key": "clear", "aria-keyshortcuts": "Escape", onclick: () => this.clear() }, "Clear")));
      }
    }
    if (this.words.length) {
      panel.append(el("div", { class: "words", role: "group", "aria-label": "other moves" },
        this.words.map((m) => el("button", { type: "button", class: "word-move", "data-action": m.id, "data-key": `word-${m.id}`,
          title: m.text, onclick: () => this.play(m) }, goalWords(m.text, this.tableRoot.__table)))));
    }
  }

  // keyboard: Enter confirms, Escape clears, arrows walk the clickable cards and targets
  key(e) {
    const active = document.activeElement;
    const onControl = active && active !== document.body && (active.tagName === "BUTTON" || active.getAttribute("role") === "button"
      || ["INPUT", "SELECT", "TEXTAREA"].includes(active.tagName));
    if (e.key === "Enter" && !onControl && this.chosen()) { e.preventDefault(); this.confirm(); }
    else if (e.key === "Escape") { this.clear(); }
    else if (e.key === "ArrowRight" || e.key === "ArrowLeft") {
      const items = [...this.tableRoot.querySelectorAll(".selectable, .selected"), ...this.panel.querySelectorAll(".selectable")];
      if (!items.length) return;
      const at = items.indexOf(active);
      const next = items[(at + (e.key === "ArrowRight" ? 1 : items.length - 1)) % items.length] || items[0];
      e.preventDefault();
      next.focus();
    }
  }
}
