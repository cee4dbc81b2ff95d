"""Current figures name current env ids.

A benchmark table, a console transcript or a chart in README.md or docs/ that names a retired id
(a game's id at a version below the registry's current one: ``kansas_city_v0``,
``kansas_city-v0``) was measured on code that no longer runs: re-run its command. Version
histories and upgrade notes may name old ids: a section headed "Version history" (up to the next
heading of its level or above) and the lines between ``<!-- history -->`` and
``<!-- /history -->`` are left out.

A test cannot read a chart's pixels, so every PNG under docs/ carries its title in its metadata
(``savefig(..., metadata={"Title": ...})``, as ``Tournament.plot`` and the learning curve of
``cahoots train`` write it), and that title is checked.
"""

from __future__ import annotations

import re
import struct
import zlib
from pathlib import Path

import cahoots_envs

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("**/*.md"))]
CHARTS = sorted((ROOT / "docs").glob("**/*.png"))
HISTORY_OPEN, HISTORY_CLOSE = "<!-- history -->", "<!-- /history -->"
HISTORY_HEADING = re.compile(r"(#+)\s+Version history\s*$", re.IGNORECASE)
HEADING = re.compile(r"(#+)\s")


def retired_ids(text: str) -> list[str]:
    """The ids in ``text`` of a registered game at a version below its current one (``_v`` or
    ``-v`` spelling, with or without the ``cahoots_envs/`` prefix)."""
    found = []
    for spec in cahoots_envs.registered_games():
        for match in re.finditer(rf"\b{re.escape(spec.name)}[-_]v(\d+)\b", text):
            if int(match.group(1)) < spec.version:
                found.append(match.group(0))
    return found


def current_lines(text: str, where: str) -> list[tuple[int, str]]:
    """``(line number, line)`` of ``text`` outside its version-history sections and
    ``<!-- history -->`` regions (a ``#`` line inside a code fence is no heading)."""
    kept = []
    fence = False
    history_level = 0  # the level of the version-history heading we are under, 0: none
    marked = 0  # line of the open <!-- history --> marker, 0: none
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("```"):
            fence = not fence
        heading = None if fence else HEADING.match(line)
        if heading and history_level and len(heading.group(1)) <= history_level:
            history_level = 0
        if heading and HISTORY_HEADING.match(line):
            history_level = len(heading.group(1))
        if stripped == HISTORY_OPEN:
            assert not marked, f"{where}:{number}: {HISTORY_OPEN} inside another (line {marked})"
            marked = number
        elif stripped == HISTORY_CLOSE:
            assert marked, f"{where}:{number}: {HISTORY_CLOSE} without an opening marker"
            marked = 0
        elif not (marked or history_level):
            kept.append((number, line))
    assert not marked, f"{where}:{marked}: {HISTORY_OPEN} is never closed"
    return kept


def png_text(path: Path) -> dict[str, str]:
    """The text chunks (tEXt, zTXt, iTXt) of a PNG file, keyword to text."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path}: not a PNG file"
    out: dict[str, str] = {}
    pos = 8
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"tEXt":
            key, _, value = body.partition(b"\0")
            out[key.decode("latin-1")] = value.decode("latin-1")
        elif kind == b"zTXt":
            key, _, value = body.partition(b"\0")
            out[key.decode("latin-1")] = zlib.decompress(value[1:]).decode("latin-1")
        elif kind == b"iTXt":
            key, _, rest = body.partition(b"\0")
            compressed, rest = rest[0], rest[2:]
            _lang, _, rest = rest.partition(b"\0")
            _translated, _, value = rest.partition(b"\0")
            out[key.decode("latin-1")] = (zlib.decompress(value) if compressed else value).decode()
        elif kind == b"IEND":
            break
    return out


def test_the_guard_finds_retired_ids_and_skips_histories() -> None:
    """The checks below are not vacuous: every registered game's previous version is found in
    both spellings, its current one is not, and only the history parts are left out."""
    for spec in cahoots_envs.registered_games():
        old, new = spec.version - 1, spec.version
        if old >= 0:
            assert retired_ids(f"| {spec.name}_v{old} (4p) | cahoots_envs/{spec.name}-v{old} |") \
                == [f"{spec.name}_v{old}", f"{spec.name}-v{old}"]
        assert retired_ids(f"{spec.name}_v{new} {spec.name}-v{new} my_{spec.name}-v{old}") == []
    page = (f"# Title\na\n## Version history\nb\n```console\n# not a heading\n```\nc\n"
            f"### Older\nd\n## Benchmarks\ne\n{HISTORY_OPEN}\nf\n{HISTORY_CLOSE}\ng\n")
    assert [line for _, line in current_lines(page, "page")] == ["# Title", "a", "## Benchmarks",
                                                                 "e", "g"]


def test_no_current_figure_names_a_retired_id() -> None:
    stale = []
    for page in PAGES:
        where = str(page.relative_to(ROOT))
        for number, line in current_lines(page.read_text(), where):
            for env_id in retired_ids(line):
                stale.append(f"{where}:{number}: {env_id}")
    assert not stale, (
        "these name a retired env id outside a version history: re-run the command that made "
        "the figure (or, for history, put it between <!-- history --> and <!-- /history -->):\n"
        + "\n".join(stale))


def test_every_chart_title_names_current_ids() -> None:
    assert CHARTS, "docs/ has no charts: the glob is wrong"
    for chart in CHARTS:
        where = chart.relative_to(ROOT)
        title = png_text(chart).get("Title")
        assert title, (f"{where} has no Title in its metadata: render it with "
                       "savefig(..., metadata={'Title': <the chart's title>})")
        assert not retired_ids(title), f"{where} is titled {title!r}: re-render it"
