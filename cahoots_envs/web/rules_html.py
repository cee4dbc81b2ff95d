"""The rules the browser view shows: each game's rules spec (``docs/rules/<game>.md``) rendered
as HTML into package data (``web/static/rules/<game>.html``), so an installed package shows
them formatted. Rendered at build time by Python-Markdown (the ``dev`` extra), committed, and
checked fresh by ``tests/test_web.py``. Regenerate from a clone with::

    python -m cahoots_envs.web.rules_html
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "docs" / "rules"
TARGET = Path(__file__).with_name("static") / "rules"
EXTENSIONS = ["tables", "fenced_code", "sane_lists"]
LIST_ITEM = re.compile(r"^ *(?:[*+-]|\d+\.) ")


def commonmark_lists(text: str) -> str:
    """The specs are written for CommonMark (GitHub shows them so): a list may start right
    under a paragraph line and nest by two spaces. Python-Markdown wants a blank line before a
    list, so one is put there (the two-space nesting is its ``tab_length=2``)."""
    out: list[str] = []
    for line in text.split("\n"):
        before = out[-1] if out else ""
        if LIST_ITEM.match(line) and before.strip() and not LIST_ITEM.match(before) \
                and not before.startswith(" ") and not before.startswith("|"):
            out.append("")
        out.append(line)
    return "\n".join(out)


def render(text: str) -> str:
    """The HTML of one rules spec (a fragment: no scripts, no styles, no links out)."""
    import markdown

    html = markdown.markdown(commonmark_lists(text), extensions=EXTENSIONS, tab_length=2,
                             output_format="html")
    return f"<!-- rendered from docs/rules/ by python -m cahoots_envs.web.rules_html -->\n{html}\n"


def rendered() -> dict[Path, str]:
    """Each rules spec's target file and its HTML."""
    return {TARGET / f"{source.stem}.html": render(source.read_text(encoding="utf-8"))
            for source in sorted(SOURCE.glob("*.md"))}


def main() -> int:
    if not SOURCE.is_dir():
        print(f"no rules specs at {SOURCE}: run this from a clone of the repository",
              file=sys.stderr)
        return 2
    try:
        files = rendered()
    except ImportError:
        print("Python-Markdown is missing: pip install -e '.[dev]'", file=sys.stderr)
        return 2
    TARGET.mkdir(exist_ok=True)
    for path, html in files.items():
        path.write_text(html, encoding="utf-8")
        print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
