"""The browser view in a real browser: Debian's chromium driven by pip's playwright (never
`playwright install`; the tests skip in one line where no chromium is found). The app runs
under uvicorn in a thread on a free port of 127.0.0.1. A whole game of every game is played by
clicking legal moves (cards, verbs, targets, confirm; no pauses), its log downloaded and
replayed; a log is replayed step by step in the referee's view and a seat's; a watched game is
paused and stepped; and at every decision the page is checked to hold no card the seat cannot
see (any card of the referee's table that is nowhere in the JSON the seat was sent), to show the
trick (or piles and goals), the latest move and Confirm inside a 1366x768 window without
scrolling, and to fit every seat box's text in its box. A whole game of each game is played by
keyboard alone at phone width (390x844), with no horizontal scroll.

With CAHOOTS_SCREENSHOTS=1 the game tests write each game's table to docs/web_<game>.png (a
Title in the PNG's metadata, as every chart under docs/ carries)."""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("starlette")
uvicorn = pytest.importorskip("uvicorn")
sync_api = pytest.importorskip("playwright.sync_api")

CHROMIUM = os.environ.get("CAHOOTS_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
if not CHROMIUM or not Path(CHROMIUM).exists():
    pytest.skip("no chromium found (apt-get install chromium, or set CAHOOTS_CHROMIUM)", allow_module_level=True)

from cahoots_envs.gamelog import GameLog, replay_log
from cahoots_envs.registry import GAMES, game_spec
from cahoots_envs.web.app import Limits, create_app
from cahoots_envs.web.tables import legal_moves, table_of
from tests.web_server import running

ROOT = Path(__file__).resolve().parents[1]
# options that make a whole game short, where a game has them
SHORT: dict[str, dict[str, Any]] = {"kansas_city": {"hands": "1"}, "texas_euchre": {"target_score": "30"}}
SCREENSHOT_TURN = {"kansas_city": 6, "texas_euchre": 2, "cahoots_tricks": 9, "cahoots_coop": 4}
TOKEN = re.compile(r"[0-9A-Za-z]+")


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, Any]]:
    # every test's browser context is a new session from 127.0.0.1: more than the default 20 a
    # minute an address may start once the module grows
    app = create_app(limits=Limits(sessions_per_minute=600))
    with running(app) as base:
        yield base, app.state.server


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    # chromium keeps its singleton folder in TMPDIR: under pytest's temp, not the system's
    env = {**os.environ, "TMPDIR": str(tmp_path_factory.mktemp("chromium"))}
    with sync_api.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, env=env)
        yield chromium
        chromium.close()


# console errors a test provokes on purpose (an upload the server refuses), by their words
EXPECTED_CONSOLE: list[str] = []


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh browser context's page; at the end, no script error and no console error (a
    resource the server refused, a Content-Security-Policy violation, a missing favicon) but
    those the test declared in ``EXPECTED_CONSOLE``."""
    context = browser.new_context(viewport={"width": 1366, "height": 768}, accept_downloads=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(f"console: {m.text}") if m.type == "error" else None)
    EXPECTED_CONSOLE.clear()
    yield page
    context.close()
    errors = [e for e in errors if not any(words in e for words in EXPECTED_CONSOLE)]
    assert not errors, errors


def cards_in(data: Any) -> set[str]:
    """Every card string of a view model (hands, piles, tricks, ...)."""
    found: set[str] = set()
    if isinstance(data, dict):
        legend = data.get("legend", {})
        for value in data.values():
            found |= cards_in(value)
        if legend:
            found = {c for c in found if c[-1:] in legend and len(c) >= 2}
    elif isinstance(data, list):
        for value in data:
            found |= cards_in(value)
    elif isinstance(data, str) and 2 <= len(data) <= 3:
        found.add(data)
    return found


def hidden_cards(referee: dict[str, Any], seen: dict[str, Any]) -> set[str]:
    """The cards of the referee's table that are nowhere in what the seat was sent."""
    sent = set(TOKEN.findall(json.dumps(seen)))
    return {c for c in cards_in(referee) if c not in sent}


# every word of the page: its text and every attribute value (labels, titles, data)
PAGE_TEXT = """() => {
    const parts = [document.body.innerText];
    for (const node of document.querySelectorAll('*'))
        for (const a of node.attributes) parts.push(a.value);
    return parts.join(' ');
}"""


def page_tokens(page: Any) -> set[str]:
    return set(TOKEN.findall(page.evaluate(PAGE_TEXT)))


def parts(move: dict[str, Any]) -> tuple[Any, ...]:
    """A move by its parts: verb, cards (any order), target, and for a word move its text."""
    word = move["text"] if not move["cards"] and move["target"] is None else None
    return (move["verb"], sorted(move["cards"]), move["target"] or "", word or "")


def check_no_leak(page: Any, referee: dict[str, Any], seen: dict[str, Any]) -> None:
    hidden = hidden_cards(referee, seen)
    leaked = hidden & page_tokens(page)
    assert not leaked, f"the page shows cards its seat cannot see: {sorted(leaked)}"


# the elements of ``selectors`` that are not wholly inside the window as the page opens (its
# scroll offsets added back: a click may have scrolled it)
OUT_OF_VIEW = """(selectors) => {
    const out = [];
    for (const selector of selectors) {
        const found = document.querySelectorAll(selector);
        if (!found.length) out.push(selector + ' (missing)');
        for (const node of found) {
            const r = node.getBoundingClientRect();
            if (r.top + scrollY < 0 || r.bottom + scrollY > innerHeight || r.left + scrollX < 0
                || r.right + scrollX > innerWidth) out.push(selector + ' ' + JSON.stringify(r));
        }
    }
    return out;
}"""
# the seat boxes' elements that stick out of their box or clip their text
SEATS_OVERFLOW = """() => {
    const bad = [];
    for (const box of document.querySelectorAll('.seat')) {
        const b = box.getBoundingClientRect();
        for (const node of [box, ...box.querySelectorAll('*')]) {
            const r = node.getBoundingClientRect();
            if (!r.width && !r.height) continue;
            const scrolls = ['auto', 'scroll'].includes(getComputedStyle(node).overflowX);
            if (r.left < b.left - 0.5 || r.right > b.right + 0.5
                || !(node instanceof SVGElement) && !scrolls && node.clientWidth && node.scrollWidth > node.clientWidth + 1)
                bad.push((node.className.baseVal ?? node.className) + ': ' + node.textContent.slice(0, 60));
        }
    }
    return bad;
}"""


def check_table_in_view(page: Any, kind: str) -> None:
    """At a decision: the trick (coop: the piles and goals), the latest move, your hand and
    the move panel are in the window without scrolling, and no seat box's text sticks out of
    it."""
    if kind == "text":
        return
    middle = ['[data-field="piles"]', '[data-field="goals"]'] if kind == "cahoots_coop" \
        else ['[data-field="trick"]']
    out = page.evaluate(OUT_OF_VIEW, [*middle, ".latest", ".seats.mine .hand", ".move-panel"])
    assert not out, f"outside the 1366x768 window: {out}"
    bad = page.evaluate(SEATS_OVERFLOW)
    assert not bad, f"seat box text out of its box: {bad}"


def wait_turn(page: Any, turns: int) -> str:
    page.wait_for_function(
        f"""() => ['over', 'error'].includes(document.body.dataset.status)
                  || (document.body.dataset.status === 'your-turn' && window.cahoots.turns > {turns})""",
        timeout=60_000)
    status: str = page.evaluate("document.body.dataset.status")
    assert status != "error", page.inner_text(".error")
    return status


def click_move(page: Any, move: dict[str, Any], before_last: Callable[[], None] = lambda: None) -> None:
    """Build ``move`` from its parts by clicking, as a person would (``before_last``: called
    before the click that makes the move)."""
    if not move["cards"] and move["target"] is None:
        before_last()
        page.click(f'.word-move[data-action="{move["id"]}"]')
        return
    verb = page.locator(f'.verb[data-verb="{move["verb"]}"]')
    if verb.count() and verb.get_attribute("aria-pressed") != "true":
        verb.click()
    one_click = page.evaluate("window.cahoots.builder.oneClick()")
    for i, card in enumerate(move["cards"]):
        if one_click and i == len(move["cards"]) - 1:
            before_last()
        page.locator(f'[data-zone-active] [data-card="{card}"].selectable:not(.selected)').first.click()
    if one_click:
        return
    if move["target"] is not None:
        page.locator(f'[data-target="{move["target"]}"].selectable').first.click()
    before_last()
    confirm = page.locator("button.confirm")
    assert confirm.is_enabled() and move["text"] in confirm.inner_text()
    assert not page.evaluate(OUT_OF_VIEW, ["button.confirm"]), "Confirm is outside the window"
    confirm.click()


def save_screenshot(page: Any, game: str) -> None:
    """The page as it is, to docs/web_<game>.png, titled in its metadata."""
    from PIL import Image, PngImagePlugin

    spec = game_spec(game)
    path = ROOT / "docs" / f"web_{game}.png"
    page.screenshot(path=str(path), full_page=True)
    info = PngImagePlugin.PngInfo()
    info.add_text("Title", f"cahoots serve: a game of {spec.title} ({spec.env_id}) in the browser, "
                           "player_0's table on its turn")
    image = Image.open(path).convert("RGB").quantize(256)
    image.save(path, pnginfo=info, optimize=True)


def start(page: Any, base: str, game: str, mode: str = "play", pause: int = 0) -> None:
    page.goto(f"{base}/#{mode}")
    page.select_option("#game", game)
    for name, value in SHORT.get(game, {}).items():
        page.fill(f'[data-option="{name}"]', value)
    page.fill("#seed", "11")
    page.fill("#pause", str(pause))
    page.click("#start")


@pytest.mark.parametrize("game", list(GAMES))  # the test plugin game too: it has no view
def test_a_whole_game_played_by_clicking_legal_moves(page: Any, server: Any, game: str, tmp_path: Path) -> None:
    base, state = server
    start(page, base, game)
    rng = np.random.default_rng(3)
    turns = 0
    while wait_turn(page, turns) == "your-turn":
        turns = page.evaluate("window.cahoots.turns")
        shown = page.evaluate("window.cahoots.state")
        match = state.items()[shown["id"]]
        check_no_leak(page, table_of(match.game, None), match.state())
        kind = shown["table"]["kind"]
        assert page.locator(f'.table[data-kind="{kind}"]').count() == 1  # a game without a view: its text
        check_table_in_view(page, kind)
        legal = page.evaluate("window.cahoots.builder.legal")
        # the page builds every legal move from the parts it was sent, and only those
        assert sorted(parts(m) for m in legal) == sorted(parts(m) for m in legal_moves(match.game))
        assert all(m["id"] is None or m["id"] in {a["id"] for a in legal_moves(match.game)}
                   for m in legal)
        shoot = turns == SCREENSHOT_TURN.get(game) and os.environ.get("CAHOOTS_SCREENSHOTS") == "1"
        click_move(page, legal[int(rng.integers(len(legal)))],
                   (lambda: save_screenshot(page, game)) if shoot else lambda: None)
    # the end: scores, the rules summary, the log to download
    assert page.locator(".result table.scores tbody tr").count() == shown["players"]
    assert "Game over" in page.inner_text(".result")
    with page.expect_download() as download:
        page.click("#download-log")
    path = tmp_path / "game.jsonl"
    download.value.save_as(path)
    log = GameLog.from_lines(path.read_text().splitlines(), "web")
    assert replay_log(log).complete and log.header["players"][0] == "you"


# a watched game between heuristic bots, played out by the page's own requests: its log's text
WATCHED_LOG = """async (body) => {
    const post = (path, data) => fetch(path, {method: 'POST', body: JSON.stringify(data)}).then(r => r.json());
    let state = await post('/api/watch', body);
    while (!state.over) state = await post('/api/games/' + state.id + '/advance', {wait_ms: 5000});
    return (await fetch('/api/games/' + state.id + '/log')).text();
}"""
# wait until the replay shows position k in view v, then what the page shows
AT_POSITION = """async ([k, view, referee]) => {
    const ready = () => document.body.dataset.status === 'replay' && window.cahoots.state.k === k
        && String(window.cahoots.state.view) === view;
    while (!ready()) await new Promise(r => requestAnimationFrame(r));
    const rid = window.cahoots.replay.id;
    return [window.cahoots.state, document.querySelectorAll('.events li').length,
            referee ? null : (PAGE_TEXT)(),
            referee ? null : await (await fetch('/api/replays/' + rid + '/position/' + k)).json()];
}""".replace("PAGE_TEXT", PAGE_TEXT)


def test_a_log_replayed_step_by_step_in_both_views(page: Any, server: Any, tmp_path: Path) -> None:
    base, _ = server
    page.goto(f"{base}/#replay")
    text = page.evaluate(WATCHED_LOG, {"game": "texas_euchre", "options": {"target_score": 30}, "seed": 4,
                                       "policies": ["heuristic"] * 4})
    EXPECTED_CONSOLE.append("status of 400")  # the refused upload below
    bad = tmp_path / "bad.jsonl"
    bad.write_text("hello\n")
    page.set_input_files("#log-file", str(bad))
    page.click("#open-log")
    page.wait_for_selector(".error:not([hidden])")
    said = page.evaluate("fetch('/api/replays', {method: 'POST', body: 'hello\\n'}).then(r => r.json())")
    assert page.inner_text(".error") == said["error"] and said["error"].startswith("upload:1: ")
    path = tmp_path / "game.jsonl"
    path.write_text(text)
    page.set_input_files("#log-file", str(path))
    page.click("#open-log")
    page.wait_for_selector("#position")
    positions = page.evaluate("window.cahoots.replay.positions")
    for view in ("referee", "1"):
        page.select_option("#replay-view", view)
        page.click("#first")
        page.focus("#forward")
        for k in range(positions):
            shown, events, tokens, referee = page.evaluate(AT_POSITION, [k, view, view == "referee"])
            assert events == k and shown["table"]["viewer"] == (None if view == "referee" else int(view))
            if referee is not None:  # a seat's view: no card it cannot see
                leaked = hidden_cards(referee["table"], shown) & set(TOKEN.findall(tokens))
                assert not leaked, f"position {k}: the page shows cards player_{view} cannot see: {sorted(leaked)}"
            if k + 1 < positions:
                page.keyboard.press("Enter")  # the focused forward button
        assert "Game over" in page.inner_text(".result")
        page.click("#back")
        page.wait_for_function(f"() => window.cahoots.state.k === {positions - 2}")
        page.locator("#position").fill("3")  # the slider jumps
        page.wait_for_function("() => window.cahoots.state.k === 3")


def test_watch_pauses_steps_and_changes_view(page: Any, server: Any) -> None:
    base, _ = server
    # the server paces the stream: at 0 ms a move the whole game is shown before a click
    start(page, base, "cahoots_coop", mode="watch", pause=150)
    page.wait_for_selector(".events li")
    page.click("#pause-button")
    page.wait_for_function("() => document.body.dataset.status === 'paused'")
    count = page.locator(".events li").count()
    time.sleep(0.2)
    assert page.locator(".events li").count() == count
    page.click("#step-button")
    page.wait_for_function(f"() => document.querySelectorAll('.events li').length === {count + 1}"
                           " && document.body.dataset.status === 'paused'")
    assert page.locator(".seat .hand .cards").count() == page.evaluate("window.cahoots.state.players")
    page.select_option("#view", "1")
    page.wait_for_function("() => window.cahoots.state.view === 1")
    assert page.locator(".seat .hand .cards").count() == 1  # its own hand only
    page.click("#pause-button")
    page.wait_for_function("() => document.body.dataset.status === 'over'", timeout=60_000)
    assert "Game over" in page.inner_text(".result")
    page.click("#replay-this")  # the finished game opens in the replay page
    page.wait_for_function("() => document.body.dataset.status === 'replay' && window.cahoots.state.k === 0")
    assert page.evaluate("window.cahoots.replay.complete")


@pytest.mark.parametrize("talk", ["spanish", "dutch"])
def test_table_talk_played_by_clicking_and_shown(page: Any, server: Any, talk: str) -> None:
    """With the cooperative game's talk option a person sends signals by clicking them (words,
    and a pile or a goal as the target), and each seat's latest signal is on the table."""
    base, _ = server
    page.goto(f"{base}/#play")
    page.select_option("#game", "cahoots_coop")
    page.select_option('[data-option="talk"]', talk)
    page.fill("#seed", "11")
    page.fill("#pause", "0")
    page.click("#start")
    rng = np.random.default_rng(5)
    turns, talked = 0, 0
    while wait_turn(page, turns) == "your-turn" and turns < 40:
        turns = page.evaluate("window.cahoots.turns")
        legal = page.evaluate("window.cahoots.builder.legal")
        said = [m for m in legal if m["id"] >= 112 and m["text"] != "say nothing"]
        # a goal is named by its words on the buttons, never by its id (aim SUM_20)
        ids = re.findall(r"\b[A-Z0-9]+_[A-Z0-9_]+\b", " ".join(page.locator(".word-move, button.target").all_inner_texts()))
        assert not ids, f"goal ids on the move buttons: {ids}"
        move = said[int(rng.integers(len(said)))] if said else legal[int(rng.integers(len(legal)))]
        talked += bool(said)
        click_move(page, move)
    assert talked, "no signal was offered"
    page.wait_for_selector('[data-field="signals"] ul.signals li', timeout=60_000)
    text = page.inner_text('[data-field="signals"]')
    assert "player_0 (you)" in text or "you" in text, text


def test_every_page_loads_with_no_console_error_under_the_security_headers(page: Any, server: Any) -> None:
    """Each page (Play, Watch, Replay) under the Content-Security-Policy of this origin only: no
    script or style is blocked, no resource is missing (the favicon included); the page
    fixture fails the test on any console error."""
    base, _ = server
    seen: list[Any] = []
    page.on("response", lambda r: seen.append(r))
    for name in ("play", "watch", "replay"):
        page.goto(f"{base}/#{name}")
        page.wait_for_selector("#start" if name != "replay" else "#open-log")
    page.goto(f"{base}/#play")
    page.select_option("#game", "cahoots_tricks")
    page.click("#start")
    page.wait_for_function("() => ['your-turn', 'over'].includes(document.body.dataset.status)", timeout=60_000)
    icon = page.evaluate("fetch('/favicon.ico').then(r => r.status)")
    assert icon == 200
    page_response = next(r for r in seen if r.url == f"{base}/")
    assert "frame-ancestors 'none'" in page_response.headers["content-security-policy"]


# ---- keyboard play, at phone width -------------------------------------------------------------
def tab_to(page: Any, selector: str, key: str = "Tab", limit: int = 120) -> None:
    """Press ``key`` (Tab, or an arrow) until the focused element matches ``selector``."""
    for _ in range(limit):
        if page.evaluate("(s) => !!document.activeElement && document.activeElement.matches(s)", selector):
            return
        page.keyboard.press(key)
    raise AssertionError(f"{key} never reached {selector}")


FOCUS_SHOWN = """() => { const a = document.activeElement;
    return a.matches(':focus-visible') && getComputedStyle(a).outlineStyle !== 'none'; }"""


def key_move(page: Any, move: dict[str, Any]) -> None:
    """Make ``move`` with the keyboard alone: Tab to a verb or word button and Enter; the
    arrows to each highlighted card (or pile) and Space; Confirm (focused once the selection
    is a move) with Enter."""
    if not move["cards"] and move["target"] is None:
        tab_to(page, f'.word-move[data-action="{move["id"]}"]')
        page.keyboard.press("Enter")
        return
    verb = f'.verb[data-verb="{move["verb"]}"]'
    if page.locator(verb).count() and page.get_attribute(verb, "aria-pressed") != "true":
        tab_to(page, verb)
        page.keyboard.press("Enter")
    one_click = page.evaluate("window.cahoots.builder.oneClick()")
    picks = [f'[data-zone-active] [data-card="{card}"].selectable:not(.selected)' for card in move["cards"]]
    if move["target"] is not None:
        on_table = f'.table [data-target="{move["target"]}"]'
        picks.append(f"{on_table}.selectable" if page.locator(on_table).count()
                     else f'button.target[data-target="{move["target"]}"]')
    for pick in picks:
        if pick.startswith("button"):
            tab_to(page, pick)
            page.keyboard.press("Enter")
            continue
        tab_to(page, ".selectable")
        tab_to(page, pick, "ArrowRight")
        assert page.evaluate(FOCUS_SHOWN), "the focused card shows no focus"
        card = page.evaluate("document.activeElement.dataset.card || null")
        page.keyboard.press("Space")
        if card and not one_click:  # the focus stays on the card (or moves to Confirm)
            assert page.evaluate("""(c) => document.activeElement.matches(
                `[data-card="${c}"], button.confirm`)""", card), "Space lost the focus"
    if one_click:
        return
    tab_to(page, "button.confirm:not(:disabled)")  # where the last pick left the focus
    assert move["text"] in page.inner_text("button.confirm")
    page.keyboard.press("Enter")


@pytest.mark.parametrize("game", list(GAMES)[:4])
def test_a_whole_game_played_by_keyboard_alone_at_phone_width(browser: Any, server: Any, game: str) -> None:
    """Every move by keys (a Kansas City pass of three included), the focus shown, and at
    every decision no horizontal scroll in a 390x844 window."""
    base, _ = server
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    start(page, base, game)
    rng = np.random.default_rng(7)
    turns, sizes = 0, set()
    while wait_turn(page, turns) == "your-turn":
        turns = page.evaluate("window.cahoots.turns")
        width = page.evaluate("[document.documentElement.scrollWidth, innerWidth]")
        assert width[0] <= width[1], f"turn {turns}: the page scrolls sideways ({width})"
        legal = page.evaluate("window.cahoots.builder.legal")
        move = legal[int(rng.integers(len(legal)))]
        sizes.add(len(move["cards"]))
        key_move(page, move)
    assert "Game over" in page.inner_text(".result")
    assert game != "kansas_city" or 3 in sizes  # the pass of three, by keys
    context.close()
    assert not errors, errors


# ---- the display defects of issue 54, each with its test ---------------------------------------
def test_the_setup_form_starts_with_your_seat_and_shows_the_rules_formatted(page: Any, server: Any) -> None:
    base, _ = server
    page.goto(f"{base}/#play")
    page.select_option("#game", "kansas_city")
    assert page.input_value("#seat") == "0"  # not blank
    page.click('.setup details[data-panel="rules"] > summary')
    page.wait_for_selector(".setup .rules h2")
    text = page.inner_text(".setup .rules")
    assert page.locator(".setup .rules li").count() > 10 and "4.2 Setup of a hand" in text
    assert "docs/rules/" not in page.inner_text(".setup") and "**" not in text and "## " not in text


GLYPHS = """() => {
    const parts = [document.body.innerText];
    for (const node of document.querySelectorAll('*'))
        for (const where of ['::before', '::after']) {
            const c = getComputedStyle(node, where).content;
            if (c && c !== 'none' && c !== 'normal') parts.push(c);
        }
    return parts.join('');
}"""


def unrenderable(text: str) -> set[str]:
    """The characters of ``text`` that no installed font has (they show as empty boxes)."""
    import subprocess

    missing = set()
    for char in {c for c in text if ord(c) > 0x7F and not c.isspace()}:
        found = subprocess.run(["fc-list", f":charset={ord(char):x}", "family"], capture_output=True,
                               text=True, check=True).stdout
        if not found.strip():
            missing.add(char)
    return missing


def test_every_glyph_on_the_pages_has_a_font(page: Any, server: Any, tmp_path: Path) -> None:
    """No emoji or symbol that Debian's fonts lack (they showed as empty boxes): the icons of
    the replay controls and the thinking mark are SVG."""
    if not shutil.which("fc-list"):
        pytest.skip("no fc-list (fontconfig) to ask which glyphs the fonts have")
    base, _ = server
    start(page, base, "cahoots_tricks", pause=400)
    page.wait_for_function("() => document.body.dataset.status === 'thinking'", timeout=60_000)
    seen = page.evaluate(GLYPHS)
    page.goto(f"{base}/#replay")
    text = page.evaluate(WATCHED_LOG, {"game": "kansas_city", "options": {"hands": 1}, "seed": 4,
                                       "policies": ["heuristic"] * 4})
    path = tmp_path / "game.jsonl"
    path.write_text(text)
    page.set_input_files("#log-file", str(path))
    page.click("#open-log")
    page.wait_for_selector("#position")
    seen += page.evaluate(GLYPHS)
    assert not unrenderable(seen), f"glyphs no font has: {sorted(unrenderable(seen))}"


def test_new_game_and_the_play_link_leave_a_game_for_the_form(page: Any, server: Any) -> None:
    base, _ = server
    for leave in ("#new-game", 'nav a[href="#play"]'):
        start(page, base, "texas_euchre")
        page.wait_for_selector(".table")
        page.click(leave)
        page.wait_for_selector("#start")
        assert page.locator(".table").count() == 0


def test_long_bot_names_stay_inside_their_seat_boxes(page: Any, server: Any) -> None:
    base, _ = server
    long = "search@worlds=2,max_rollouts=8,max_candidates=2:zoo:kansas_city_every_seat"
    page.goto(f"{base}/#play")
    page.select_option("#game", "kansas_city")
    page.fill('[data-option="hands"]', "1")
    for s in (1, 2, 3):  # a policy id the form does not list: the server accepts it
        page.evaluate("([s, id]) => document.getElementById('policy-' + s).append(new Option(id, id))", [s, long])
        page.select_option(f"#policy-{s}", long)
    page.fill("#pause", "0")
    page.click("#start")
    assert wait_turn(page, 0) == "your-turn"
    assert "kansas_city_every_seat" in page.inner_text(".seats.others")
    assert not page.evaluate(SEATS_OVERFLOW)


def test_the_replay_move_list_follows_the_position_with_whole_numbers(page: Any, server: Any, tmp_path: Path) -> None:
    """At the last position (past 190) the list shows the last move (it stayed at moves 1-15),
    its number whole."""
    base, _ = server
    page.goto(f"{base}/#replay")
    text = page.evaluate(WATCHED_LOG, {"game": "kansas_city", "options": {"hands": 2}, "seed": 4,
                                       "policies": ["heuristic"] * 4})
    path = tmp_path / "game.jsonl"
    path.write_text(text)
    page.set_input_files("#log-file", str(path))
    page.click("#open-log")
    page.wait_for_selector("#position")
    k = page.evaluate("window.cahoots.replay.positions") - 1
    assert k > 190
    page.locator("#position").fill(str(k))
    page.wait_for_function(f"() => window.cahoots.state.k === {k} && document.body.dataset.status === 'replay'")
    shown = page.evaluate("""() => {
        const list = document.querySelector('.events').getBoundingClientRect();
        const last = document.querySelector('.events li:last-child');
        const r = last.getBoundingClientRect();
        const num = (last.querySelector('.num') || last).getBoundingClientRect();
        return {text: last.innerText, inside: r.top >= list.top - 1 && r.bottom <= list.bottom + 1,
                whole: num.left >= list.left - 0.5 && num.right <= list.right + 0.5};
    }""")
    assert shown["inside"], "the move list does not show the position's move"
    assert shown["text"].startswith(f"{k}.") and shown["whole"], shown
