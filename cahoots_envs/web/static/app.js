// cahoots serve's page: Play, Watch and Replay over the JSON API (API.md). Plain ES modules,
// no build step, nothing fetched from elsewhere. A game's table is drawn from its view model
// by layout.js with the layout its module games/<kind>.js declares (loaded by the `kind` the
// server sends); a kind without a module gets a layout inferred from its data.
import { append, el, goalWords, icon } from "./draw.js";
import { drawTable, panel } from "./layout.js";
import { MoveBuilder, expand } from "./moves.js";

const main = document.getElementById("app");
const status = document.getElementById("status");
// what the page shows now, for tests and the browser's console
const hooks = (window.cahoots = { state: null, replay: null, builder: null, turns: 0 });

// ---- the API --------------------------------------------------------------------------------
export async function api(method, path, body, raw = false) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.body = raw ? body : JSON.stringify(body);
    init.headers["Content-Type"] = raw ? "application/x-ndjson" : "application/json";
  }
  const response = await fetch(path, init);
  let data = null;
  try { data = await response.json(); } catch { data = { error: `the server answered ${response.status} without JSON` }; }
  if (!response.ok) throw new Error(data && data.error ? data.error : `request failed (${response.status})`);
  return data;
}

let catalogue = null;
async function games() {
  if (!catalogue) catalogue = await api("GET", "/api/games");
  return catalogue;
}

const layouts = new Map();
async function layoutFor(kind) {
  if (!/^[a-z0-9_]+$/.test(kind || "") || kind === "text") return null;
  if (!layouts.has(kind)) {
    layouts.set(kind, import(`./games/${kind}.js`).then((m) => m.layout || null, () => null));
  }
  return layouts.get(kind);
}

async function showTable(container, table, names, latest) {
  const node = drawTable(table, { names, latest }, await layoutFor(table && table.kind));
  node.__table = table;
  container.replaceChildren(node);
  return node;
}

const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

function say(text, state = "") {
  status.replaceChildren(state === "thinking" ? icon("hourglass") : "", text);
  document.body.dataset.status = state;
}

// the rules spec of a game, rendered at build time (rules_html.py), in a panel that opens
const rulesText = new Map();
function rulesPanel(game, open = false) {
  const body = el("div", { class: "rules" });
  const node = panel("rules", game ? `Rules of ${game.title}` : "Rules", open, body);
  if (!game || !game.rules) {
    body.append(el("p", { text: (game && game.summary) || "No rules text for this game." }));
    return node;
  }
  if (!rulesText.has(game.rules)) rulesText.set(game.rules, fetch(game.rules).then((r) => (r.ok ? r.text() : "")));
  rulesText.get(game.rules).then((html) => {
    const doc = new DOMParser().parseFromString(html, "text/html");
    for (const bad of doc.body.querySelectorAll("script, style, iframe, object")) bad.remove();
    body.replaceChildren(...[...doc.body.childNodes].map((n) => document.importNode(n, true)));
  });
  return node;
}

function errorBox() {
  return el("p", { class: "error", role: "alert", hidden: true });
}

function showError(box, error) {
  box.hidden = false;
  box.textContent = error instanceof Error ? error.message : String(error);
}

// ---- the setup form (play and watch) ------------------------------------------------------------
function optionField(option) {
  const id = `opt-${option.name}`;
  const choices = option.choices || [];
  const label = el("label", { for: id, title: option.doc || null }, option.name.replace(/_/g, " "));
  let input;
  if (choices.length && choices.every((c) => typeof c === "boolean") && !option.int_range) {
    input = el("input", { type: "checkbox", id, "data-option": option.name, checked: !!option.default });
  } else if (choices.length && !option.int_range) {
    input = el("select", { id, "data-option": option.name }, choices.map((c) =>
      el("option", { value: String(c), selected: c === option.default }, String(c))));
  } else {
    const list = `${id}-list`;
    input = el("input", { type: "text", id, "data-option": option.name, value: option.default === null ? "" : String(option.default),
      placeholder: option.default === null ? "none" : "", list, size: 8, inputmode: "numeric" });
    return el("div", { class: "field" }, label, input,
      el("datalist", { id: list }, choices.filter((c) => c !== null).map((c) => el("option", { value: String(c) }))),
      el("small", { text: option.accepts }));
  }
  return el("div", { class: "field" }, label, input, el("small", { text: option.accepts }));
}

function readOption(option, input) {
  if (input.type === "checkbox") return input.checked;
  const text = input.value.trim();
  for (const choice of option.choices || []) if (String(choice) === text || (choice === null && text === "")) return choice;
  if (option.int_range && /^-?\d+$/.test(text)) return Number(text);
  return text;
}

function setupForm(mode, onStart) {
  const form = el("form", { class: "setup", "aria-label": mode === "play" ? "new game" : "new watched game" });
  const error = errorBox();
  const gameSelect = el("select", { id: "game", name: "game" });
  const players = el("select", { id: "players", name: "players" });
  const seat = el("select", { id: "seat", name: "seat" });
  const seats = el("div", { class: "policies" });
  const options = el("div", { class: "options" });
  const seed = el("input", { id: "seed", type: "number", min: 0, placeholder: "random", size: 8 });
  const pause = el("input", { id: "pause", type: "number", min: 0, max: 10000, step: 50, value: mode === "play" ? 700 : 600, size: 6 });
  const summary = el("p", { class: "summary" });
  const rules = el("div", { class: "setup-rules" });
  let list = [];
  const current = () => list.find((g) => g.name === gameSelect.value);

  function fillSeats() {
    const game = current();
    const n = Number(players.value);
    const keep = seat.value;
    seat.replaceChildren(...Array.from({ length: n }, (_, s) => el("option", { value: s }, `player_${s}`)));
    seat.value = keep !== "" && Number(keep) < n ? keep : "0";
    seats.replaceChildren();
    for (let s = 0; s < n; s++) {
      if (mode === "play" && s === Number(seat.value)) continue;
      const id = `policy-${s}`;
      const pick = el("select", { id, "data-seat": s }, game.policies.map((p) =>
        el("option", { value: p.id, selected: p.id === "heuristic" }, `${p.label} (${p.id})`)));
      seats.append(el("div", { class: "field" }, el("label", { for: id }, `player_${s} plays`), pick));
    }
  }

  function fillGame() {
    const game = current();
    players.replaceChildren(...game.players.map((n) => el("option", { value: n, selected: n === game.default_players }, String(n))));
    options.replaceChildren(...game.options.map(optionField));
    summary.textContent = game.summary;
    summary.hidden = !game.summary;
    rules.replaceChildren(rulesPanel(game));
    fillSeats();
  }

  gameSelect.addEventListener("change", fillGame);
  players.addEventListener("change", fillSeats);
  seat.addEventListener("change", fillSeats);
  append(form, [
    el("div", { class: "row" },
      el("div", { class: "field" }, el("label", { for: "game" }, "Game"), gameSelect),
      el("div", { class: "field" }, el("label", { for: "players" }, "Players"), players),
      mode === "play" ? el("div", { class: "field" }, el("label", { for: "seat" }, "Your seat"), seat) : null,
      el("div", { class: "field" }, el("label", { for: "seed" }, "Seed"), seed),
      el("div", { class: "field" }, el("label", { for: "pause" }, mode === "play" ? "Pause between bot moves (ms)" : "Milliseconds a move"), pause)),
    el("fieldset", {}, el("legend", { text: "Options" }), options),
    el("fieldset", {}, el("legend", { text: mode === "play" ? "The other seats" : "The seats" }), seats),
    summary, rules,
    el("button", { type: "submit", class: "primary", id: "start" }, mode === "play" ? "Start the game" : "Start watching"),
    error,
  ]);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    error.hidden = true;
    const game = current();
    const n = Number(players.value);
    const body = { game: game.name, players: n, options: {} };
    for (const option of game.options) {
      const input = form.querySelector(`[data-option="${option.name}"]`);
      body.options[option.name] = readOption(option, input);
    }
    body.policies = Array.from({ length: n }, (_, s) => {
      const pick = seats.querySelector(`select[data-seat="${s}"]`);
      return pick ? pick.value : "human";
    });
    if (mode === "play") body.seat = Number(seat.value);
    if (seed.value !== "") body.seed = Number(seed.value);
    try {
      await onStart(body, Math.max(0, Number(pause.value) || 0), game);
    } catch (err) {
      showError(error, err);
    }
  });
  games().then((data) => {
    list = data.games;
    gameSelect.replaceChildren(...list.map((g) => el("option", { value: g.name }, g.title)));
    fillGame();
  }, (err) => showError(error, err));
  return form;
}

// ---- a live game: played or watched ---------------------------------------------------------------
let live = null; // the game on screen, dropped when another starts

function eventItem(event) {
  return el("li", { "data-event": event.i }, el("span", { class: "num", text: `${event.i + 1}.` }), " ", event.text,
    (event.notes || []).map((n) => el("div", { class: "note", text: n.trim() })));
}

// the move list in a panel, its latest move in sight (the page left where it is)
function movesPanel(log) {
  return panel("moves", "Moves", true, log);
}
function followLatest(log) {
  log.scrollTop = log.scrollHeight;
}

function resultPanel(result, names, game, extra) {
  const winners = new Set(result.winners);
  const rows = result.scores.map((score, s) => el("tr", { class: winners.has(s) ? "winner" : null },
    el("th", { scope: "row", text: `player_${s}${names && names[s] ? ` (${names[s]})` : ""}` }),
    el("td", { text: String(score) }), el("td", { text: winners.has(s) ? "★ won" : "" })));
  return el("section", { class: "result", "aria-label": "game over" },
    el("h2", { text: "Game over" }),
    el("table", { class: "scores final" }, el("caption", { text: "Final scores" }),
      el("thead", {}, el("tr", {}, el("th", { text: "seat" }), el("th", { text: "score" }), el("th", { text: "" }))),
      el("tbody", {}, rows)),
    el("pre", { class: "summary-text", text: result.summary }),
    game ? rulesPanel(game) : null,
    extra);
}

class LiveGame {
  constructor(state, pause, game, mode) {
    this.id = state.id;
    this.mode = mode;
    this.game = game;
    this.pause = pause;
    this.paused = false;
    this.stopped = false;
    this.events = [];
    this.view = state.view;
    this.wake = null;
    this.build(state);
  }

  build(state) {
    const layout = el("div", { class: "live" });
    this.tableBox = el("div", { class: "table-box" });
    this.panel = el("div", { class: "move-panel", "aria-label": "your move" });
    this.log = el("ol", { class: "events", "aria-label": "moves so far" });
    this.resultBox = el("div");
    this.error = errorBox();
    const side = el("aside", { class: "side" });
    const again = el("button", { type: "button", id: "new-game" }, "New game");
    again.addEventListener("click", () => route());
    side.append(el("div", { class: "controls" }, again));
    if (this.mode === "watch") side.append(this.watchControls(state));
    append(side, [movesPanel(this.log), rulesPanel(this.game),
      panel("text", "Text view", false, (this.text = el("pre", { class: "text-view" })))]);
    append(layout, [el("div", { class: "board" }, this.error, this.tableBox, this.panel, this.resultBox), side]);
    main.replaceChildren(layout);
  }

  watchControls(state) {
    const button = el("button", { type: "button", id: "pause-button", "aria-pressed": "false" }, "Pause");
    button.addEventListener("click", () => {
      this.paused = !this.paused;
      button.textContent = this.paused ? "Resume" : "Pause";
      button.setAttribute("aria-pressed", String(this.paused));
      this.kick();
    });
    const step = el("button", { type: "button", id: "step-button" }, "Step");
    step.addEventListener("click", () => { this.stepOnce = true; this.kick(); });
    const speed = el("input", { type: "range", id: "speed", min: 0, max: 3000, step: 100, value: this.pause, "aria-label": "milliseconds a move" });
    const speedText = el("output", { for: "speed", text: `${this.pause} ms` });
    speed.addEventListener("input", () => { this.pause = Number(speed.value); speedText.textContent = `${this.pause} ms`; this.kick(); });
    const view = el("select", { id: "view" }, el("option", { value: "referee" }, "referee (every hand)"),
      Array.from({ length: state.players }, (_, s) => el("option", { value: s }, `player_${s}'s view`)));
    view.addEventListener("change", () => { this.view = view.value; this.reload = true; this.kick(); });
    return el("div", { class: "controls" }, button, step, el("label", { for: "speed" }, "Speed "), speed, speedText,
      el("label", { for: "view" }, " View "), view);
  }

  kick() {
    if (this.wake) { const wake = this.wake; this.wake = null; wake(); }
  }

  wait(ms) {
    return new Promise((done) => {
      const timer = ms === null ? null : setTimeout(() => { this.wake = null; done(); }, ms);
      this.wake = () => { if (timer) clearTimeout(timer); done(); };
    });
  }

  async show(state) {
    hooks.state = state;
    if (state.events.length && state.events[0].i === 0) { this.events = []; this.log.replaceChildren(); }
    for (const event of state.events) {
      if (this.events.length > event.i) continue;
      this.events.push(event);
      this.log.append(eventItem(event));
    }
    followLatest(this.log);
    this.text.textContent = state.text;
    const tableRoot = await showTable(this.tableBox, state.table, state.names, this.events[this.events.length - 1]);
    this.panel.replaceChildren();
    hooks.builder = null;
    return tableRoot;
  }

  // the game's stream of moves (API.md): open while a bot is to move and the game not paused;
  // its frames are the states after each move, shown one at a time
  openStream() {
    const key = `${this.view}|${this.pause}`;
    if (this.source && this.sourceKey === key) return;
    this.closeStream();
    const view = this.mode === "watch" ? `&view=${encodeURIComponent(this.view)}` : "";
    this.source = new EventSource(`/api/games/${this.id}/stream?since=${this.events.length}&pace_ms=${this.pause}${view}`);
    this.sourceKey = key;
    this.frames = [];
    this.source.addEventListener("state", (e) => { this.frames.push(JSON.parse(e.data)); this.kick(); });
    for (const done of ["end", "replaced"]) this.source.addEventListener(done, () => this.closeStream());
    this.source.addEventListener("failed", (e) => { this.failure = JSON.parse(e.data).error; this.closeStream(); this.kick(); });
  }

  closeStream() {
    if (this.source) { this.source.close(); this.source = null; }
  }

  // the next state the stream sent with a move not shown yet; null when woken for another reason
  async nextFrame() {
    for (;;) {
      if (this.failure) throw new Error(this.failure);
      const next = (this.frames || []).shift();
      if (next && next.events_total > this.events.length) return next;
      if (next) continue;
      await this.wait(null);
      if (!(this.frames || []).length) return null;
    }
  }

  async run(state) {
    await this.show(state);
    while (!this.stopped) {
      if (state.over) {
        this.closeStream();
        this.finish(state);
        return;
      }
      try {
        if (this.mode === "watch" && this.reload) {
          this.reload = false;
          this.closeStream();
          state = await api("GET", `/api/games/${this.id}/state?view=${encodeURIComponent(this.view)}`);
          await this.show(state);
          continue;
        }
        if (state.your_turn) {
          say("Your turn: choose a move", "your-turn");
          const move = await this.choose(state);
          if (this.stopped) return;
          say("…", "busy");
          const body = move.id === null ? { move: { verb: move.verb, cards: move.cards, target: move.target } } : { action: move.id };
          state = await api("POST", `/api/games/${this.id}/move`, { ...body, since: this.events.length });
        } else {
          const who = state.to_move === null ? "" : `player_${state.to_move} (${state.names[state.to_move]})`;
          if (this.mode === "watch" && this.paused && !this.stepOnce) {
            if (this.source) { // the moves the stream made before it closed, then the pause
              this.closeStream();
              state = await api("GET", `/api/games/${this.id}/state?since=${this.events.length}&view=${encodeURIComponent(this.view)}`);
              await this.show(state);
              continue;
            }
            say(`Paused: ${who} to move`, "paused");
            await this.wait(null);
            continue;
          }
          say(`${who} is thinking…`, "thinking"); // its decision runs while the stream waits
          if (this.stepOnce) { // one move while paused
            this.stepOnce = false;
            state = await api("POST", `/api/games/${this.id}/advance`, { since: this.events.length, wait_ms: 5000, view: String(this.view) });
          } else {
            this.openStream();
            const next = await this.nextFrame();
            if (!next || this.stopped || (this.mode === "watch" && (this.paused || this.reload))) continue;
            state = next;
          }
        }
        if (this.stopped) return;
        await this.show(state);
      } catch (err) {
        this.closeStream();
        showError(this.error, err);
        say("Error", "error");
        return;
      }
    }
  }

  choose(state) {
    return new Promise((resolve) => {
      const builder = new MoveBuilder(expand(state.legal), this.tableBox.firstElementChild, this.panel, resolve);
      hooks.builder = builder;
      hooks.turns += 1;
      this.keys = (e) => builder.key(e);
      document.addEventListener("keydown", this.keys);
    }).finally(() => document.removeEventListener("keydown", this.keys));
  }

  finish(state) {
    say("Game over", "over");
    const download = el("a", { class: "button", href: `/api/games/${this.id}/log`, download: `${state.game}-${this.id}.jsonl`, id: "download-log" }, "Download the game log");
    const replay = el("button", { type: "button", id: "replay-this" }, "Replay this game");
    replay.addEventListener("click", async () => {
      try {
        const text = await (await fetch(`/api/games/${this.id}/log`)).text();
        await openReplay(text);
      } catch (err) { showError(this.error, err); }
    });
    this.resultBox.replaceChildren(resultPanel(state.result, state.names, this.game, el("div", { class: "row" }, download, replay)));
    this.resultBox.scrollIntoView({ block: "nearest" }); // the scores in sight
  }

  stop() {
    this.stopped = true;
    this.closeStream();
    this.kick();
    if (this.keys) document.removeEventListener("keydown", this.keys);
    api("DELETE", `/api/games/${this.id}`).catch(() => {});
  }
}

async function startLive(mode, body, pause, game) {
  const state = await api("POST", `/api/${mode}`, body);
  if (live) live.stop();
  live = new LiveGame(state, pause, game, mode);
  live.run(state);
}

// ---- replay ---------------------------------------------------------------------------------------
let replay = null;

function probabilityTable(probs, next) {
  if (!probs) return el("p", { class: "empty", text: "No action probabilities here (only where the log names a zoo network or a policy file given to cahoots serve, in the referee's or the mover's view)." });
  const made = next ? next.text.split(" ").slice(1).join(" ") : null;
  return el("table", { class: "probs", "aria-label": `action probabilities of ${probs.policy}` },
    el("caption", { text: `${probs.policy}'s probabilities for player_${probs.seat}` }),
    el("tbody", {}, probs.moves.map((m) => el("tr", { class: m.text === made ? "made" : null },
      el("th", { scope: "row", text: m.text + (m.text === made ? " ◀ played" : "") }),
      el("td", {}, el("span", { class: "bar", style: `width:${Math.round(m.p * 100)}%` })),
      el("td", { text: `${(m.p * 100).toFixed(1)}%` })))));
}

async function openReplay(text) {
  const info = await api("POST", "/api/replays", text, true);
  if (replay) api("DELETE", `/api/games/${replay.id}`).catch(() => {});
  replay = { ...info, k: 0, view: "referee" };
  hooks.replay = replay;
  if (location.hash !== "#replay") location.hash = "#replay"; // the page draws it
  else drawReplay();
}

function drawReplay() {
  const info = replay;
  const box = main.querySelector(".replay-view");
  if (!box) return;
  const slider = el("input", { type: "range", id: "position", min: 0, max: info.positions - 1, value: 0, "aria-label": "position in the game" });
  const where = el("output", { for: "position", id: "position-text" });
  const view = el("select", { id: "replay-view" }, el("option", { value: "referee" }, "referee (every hand)"),
    Array.from({ length: info.players }, (_, s) => el("option", { value: s }, `player_${s}'s view (${info.names[s]})`)));
  const button = (id, label, to) => {
    const b = el("button", { type: "button", id, class: "icon-button", "aria-label": label, title: label }, icon(id));
    b.addEventListener("click", () => go(to()));
    return b;
  };
  const tableBox = el("div", { class: "table-box" });
  const next = el("p", { class: "next", "aria-live": "polite" });
  const probs = el("div", { class: "probs-box" });
  const log = el("ol", { class: "events", "aria-label": "moves so far" });
  const resultBox = el("div");
  const text = el("pre", { class: "text-view" });
  let token = 0;

  async function go(k) {
    replay.k = Math.max(0, Math.min(info.positions - 1, k));
    slider.value = replay.k;
    const mine = ++token;
    document.body.dataset.status = "busy";
    const p = await api("GET", `/api/replays/${info.id}/position/${replay.k}?view=${encodeURIComponent(replay.view)}`);
    if (mine !== token) return;
    hooks.state = p;
    where.textContent = `position ${p.k} of ${info.positions - 1}`;
    next.textContent = p.next ? `Next move: ${p.next.text}` : "The end of the log.";
    probs.replaceChildren(probabilityTable(p.probabilities, p.next));
    log.replaceChildren(...p.events.map(eventItem));
    followLatest(log);
    text.textContent = p.text;
    await showTable(tableBox, p.table, info.names, p.events[p.events.length - 1]);
    resultBox.replaceChildren(p.result ? resultPanel(p.result, info.names, null, null) : "");
    document.body.dataset.status = "replay";
    say(`Replay: position ${p.k} of ${info.positions - 1}`, "replay");
  }
  slider.addEventListener("input", () => go(Number(slider.value)));
  view.addEventListener("change", () => { replay.view = view.value; go(replay.k); });
  replay.go = go;
  box.replaceChildren(
    el("p", { class: "summary", text: `${info.game}, ${info.players} players (${info.names.join(", ")}): ${info.summary}` }),
    el("div", { class: "controls" },
      button("first", "first position", () => 0), button("back", "back one move", () => replay.k - 1),
      slider, button("forward", "forward one move", () => replay.k + 1), button("last", "last position", () => info.positions - 1),
      where, el("label", { for: "replay-view" }, " View "), view),
    el("div", { class: "live" }, el("div", { class: "board" }, next, tableBox, resultBox),
      el("aside", { class: "side" }, el("h3", { text: "Action probabilities" }), probs, movesPanel(log),
        panel("text", "Text view", false, text))));
  go(0);
}

function replayPage() {
  const error = errorBox();
  const file = el("input", { type: "file", id: "log-file", accept: ".jsonl,.json,.txt,.ndjson,application/x-ndjson" });
  const form = el("form", { class: "setup", "aria-label": "open a game log" },
    el("div", { class: "field" }, el("label", { for: "log-file" }, "A game log (cahoots play --log, cahoots eval, or this page's download)"), file),
    el("button", { type: "submit", class: "primary", id: "open-log" }, "Open"), error);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    error.hidden = true;
    if (!file.files.length) return showError(error, "choose a log file first");
    try {
      await openReplay(await file.files[0].text());
    } catch (err) {
      showError(error, err);
      say("The log was refused", "error");
    }
  });
  main.replaceChildren(el("h2", { text: "Replay a game log" }), form, el("div", { class: "replay-view" }));
  if (replay) drawReplay();
}

// ---- pages ---------------------------------------------------------------------------------------
document.addEventListener("keydown", (e) => {
  if (!replay || location.hash !== "#replay" || !replay.go) return;
  const tag = document.activeElement && document.activeElement.tagName;
  if (["INPUT", "SELECT", "TEXTAREA"].includes(tag)) return;
  if (e.key === "ArrowRight") replay.go(replay.k + 1);
  else if (e.key === "ArrowLeft") replay.go(replay.k - 1);
});

// the page the hash names; a new game's form even where it is shown already (New game, the nav link)
function route() {
  const page = (location.hash || "#play").slice(1);
  for (const link of document.querySelectorAll("nav a")) link.setAttribute("aria-current", link.getAttribute("href") === `#${page}` ? "page" : "false");
  if (live) { live.stop(); live = null; }
  if (page === "replay") return replayPage();
  say("", "setup");
  const mode = page === "watch" ? "watch" : "play";
  main.replaceChildren(el("h2", { text: mode === "play" ? "Play a game" : "Watch a game" }),
    setupForm(mode, (body, pause, game) => startLive(mode, body, pause, game)));
}

window.addEventListener("hashchange", () => route());
for (const link of document.querySelectorAll("nav a")) {
  link.addEventListener("click", () => { if (link.getAttribute("href") === (location.hash || "#play")) route(); });
}
route();
