"""Keeps each env's doc page in step with its declarations.

The doc page is the module docstring of ``cahoots_envs/games/<game>/env.py``. Its options table
and observation index table sit between marker comments and are generated here from the
game's ``OptionSet`` and ``Layout``; ``docs/<game>.md`` is a copy of the docstring for the README
to link to. Run ``python -m cahoots_envs.docs`` after changing options or a layout; the test suite
fails while a table is stale.
"""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Callable
from pathlib import Path

from cahoots_envs.registry import GAMES

ROOT = Path(__file__).resolve().parent


def _filler(table: str) -> Callable[[re.Match[str]], str]:
    """A substitution that puts ``table`` between a marker pair (groups 1 and 2)."""

    def fill(match: re.Match[str]) -> str:
        return f"{match.group(1)}{table}\n{match.group(2)}"

    return fill


def tables(game: str) -> dict[str, str]:
    module = importlib.import_module(f"cahoots_envs.{game}_v{GAMES[game]}")
    cls = module.raw_env().game_cls
    options = cls.OPTIONS.resolve({})
    return {
        "options-table": cls.OPTIONS.markdown_table(),
        "observation-table": cls.layout(options).markdown_table(),
    }


def regenerate(game: str, docs_dir: Path | None = None) -> str:
    source_path = ROOT / "games" / game / "env.py"
    source = source_path.read_text()
    for name, table in tables(game).items():
        pattern = re.compile(rf"(<!-- {name} -->\n).*?(<!-- /{name} -->)", re.DOTALL)
        if not pattern.search(source):
            raise SystemExit(f"{source_path}: no <!-- {name} --> ... <!-- /{name} --> markers")
        source = pattern.sub(_filler(table), source)
    source_path.write_text(source)
    doc = source.split('"""', 2)[1]
    if docs_dir is not None:
        (docs_dir / f"{game}.md").write_text(doc.strip() + "\n")
    return doc


def env_table() -> str:
    """The README's table of envs: id, players, action count and observation size per count."""
    rows = ["| env id | game | players | actions | observation size | doc page |",
            "|---|---|---|---|---|---|"]
    for game, version in GAMES.items():
        module = importlib.import_module(f"cahoots_envs.{game}_v{version}")
        cls = module.raw_env().game_cls
        actions, sizes = [], []
        for n in cls.PLAYER_COUNTS:
            options = cls.OPTIONS.resolve({"num_players": n})
            actions.append(f"{cls.num_actions(options)} ({n}p)")
            sizes.append(f"{cls.layout(options).size} ({n}p)")
        players = f"{min(cls.PLAYER_COUNTS)}–{max(cls.PLAYER_COUNTS)}"
        rows.append(f"| `cahoots_envs/{game}-v{version}` | {cls.TITLE} | {players} | "
                    f"{', '.join(actions)} | {', '.join(sizes)} | [docs/{game}.md](docs/{game}.md) |")
    return "\n".join(rows)


def regenerate_readme(readme: Path) -> None:
    text = readme.read_text()
    pattern = re.compile(r"(<!-- env-table -->\n).*?(<!-- /env-table -->)", re.DOTALL)
    readme.write_text(pattern.sub(_filler(env_table()), text))


def main(argv: list[str]) -> None:
    games = argv or list(GAMES)
    docs_dir = ROOT.parent / "docs"
    docs_dir.mkdir(exist_ok=True)
    for game in games:
        regenerate(game, docs_dir)
        print(f"regenerated the doc page of {game}")
    if not argv:
        regenerate_readme(ROOT.parent / "README.md")
        print("regenerated the README env table")


if __name__ == "__main__":
    main(sys.argv[1:])
