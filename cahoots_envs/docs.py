"""Keeps each env's doc page in step with its declarations.

The doc page is the module docstring of the file its ``GameSpec`` names as ``doc_page``
(``cahoots_envs/games/<game>/env.py`` for the built-in games). Its options table and observation
index table sit between marker comments and are generated here from the game's ``OptionSet``
(with the env's ``render_mode`` argument) and ``Layout``; so do the ``actions`` and
``observation`` rows of the header table between ``<!-- spaces -->`` markers (the action count
and observation size for every player count; the header's other rows are the page's own).
A game that declares a global state (``state_layout``) also gets its state index table between
``<!-- state-table -->`` markers, and the paragraph above it that says what the state is (one text for
every game, ``STATE_INTRO``) between ``<!-- state-intro -->`` markers. ``docs/<game>.md`` is a copy of the docstring for the README to link to. Run ``python -m cahoots_envs.docs`` after changing options or a layout; the test suite
fails while a table is stale.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path

from cahoots_envs.core.options import RENDER_MODE, OptionSet
from cahoots_envs.core.spec import GameSpec
from cahoots_envs.core.state import state_layout
from cahoots_envs.registry import builtin_games, game_spec

ROOT = Path(__file__).resolve().parent


def _filler(table: str) -> Callable[[re.Match[str]], str]:
    """A substitution that puts ``table`` between a marker pair (groups 1 and 2)."""

    def fill(match: re.Match[str]) -> str:
        return f"{match.group(1)}{table}\n{match.group(2)}"

    return fill


def options_table(spec: GameSpec) -> str:
    """The game's options with the env's ``render_mode`` argument, in documentation order."""
    options = tuple(spec.rules.OPTIONS)
    return OptionSet(options[:1] + (RENDER_MODE,) + options[1:]).markdown_table()


def _per_count(values: dict[int, int], default: int) -> str:
    """``(69 / 117 / 181 with 3 / 5 / 6 players)``: the values at the other player counts."""
    others = [n for n in values if n != default]
    if not others:
        return ""
    word = "player" if others == [1] else "players"
    return (f" ({' / '.join(str(values[n]) for n in others)} with "
            f"{' / '.join(str(n) for n in others)} {word})")


def spaces_rows(spec: GameSpec) -> dict[str, str]:
    """The doc page header's ``actions`` and ``observation`` rows, from the declarations: the
    action count and the observation size at the default player count, then at the others."""
    cls = spec.rules
    default = cls.DEFAULT_PLAYERS
    actions, sizes = {}, {}
    for n in (default, *(n for n in cls.PLAYER_COUNTS if n != default)):
        options = spec.resolve_options({"num_players": n})
        actions[n] = cls.num_actions(options)
        sizes[n] = spec.layout(options).size
    if len(set(actions.values())) == 1:
        action_text = f"`Discrete({actions[default]})` at every player count"
    else:
        action_text = f"`Discrete({actions[default]})` with {default} players{_per_count(actions, default)}"
    players = "player" if default == 1 else "players"
    return {
        "actions": f"| actions | {action_text} |",
        "observation": (f"| observation | `Box({sizes[default]},)` float32 with {default} {players}"
                        f"{_per_count(sizes, default)}, and an `action_mask` (int8, one per action) |"),
    }


def fill_spaces(spec: GameSpec, block: str) -> str:
    """The header table ``block`` with its ``actions`` and ``observation`` rows regenerated."""
    rows = spaces_rows(spec)
    lines = block.split("\n")
    for i, line in enumerate(lines):
        key = line.split("|")[1].strip() if line.startswith("|") and line.count("|") > 2 else ""
        if key in rows:
            lines[i] = rows.pop(key)
    if rows:
        raise SystemExit(f"{spec.doc_page}: the <!-- spaces --> table lacks the row(s) "
                         f"{', '.join(rows)}")
    return "\n".join(lines)


STATE_INTRO = """\
`env.state()` (the parallel env's `state()` too) returns one float32 vector, `env.state_space`,
for centralised critics: every seat's private facts (its hand above all) in one row per
absolute seat, and every public fact once, with per-seat rows in absolute seat order (as seat 0
sees them: in the meanings below "you" is seat 0 for public rows, and the row's own seat for
private rows). It is built from the observations, so it holds everything any seat sees and
nothing no seat sees: never the order of future chance events. `env.state_layout.
observation_from_state(state, seat)` rebuilds any seat's observation from it (the test suite
checks this on random games of every player count and variant). Its layout is declared in
`{path}`; the table is for the default options."""


def state_intro(spec: GameSpec) -> str:
    """The doc page's paragraph on the global state, naming the module that declares it."""
    import inspect

    module = Path(inspect.getfile(spec.state_layout)).resolve()  # type: ignore[arg-type]
    path = (module.relative_to(ROOT.parent).as_posix() if module.is_relative_to(ROOT.parent)
            else module.name)  # a game installed elsewhere: the file's name
    return STATE_INTRO.format(path=path)


def tables(spec: GameSpec) -> dict[str, str]:
    options = spec.resolve_options({})
    out = {
        "options-table": options_table(spec),
        "observation-table": spec.layout(options).markdown_table(),
    }
    if spec.has("state_layout"):
        out["state-table"] = state_layout(spec.state_layout, spec.layout(options),
                                          options).markdown_table()
        out["state-intro"] = state_intro(spec)
    return out


def fill_tables(spec: GameSpec, source: str) -> str:
    """``source`` (the doc page's file) with every generated table brought up to date."""
    for name, table in tables(spec).items():
        pattern = re.compile(rf"(<!-- {name} -->\n).*?(<!-- /{name} -->)", re.DOTALL)
        if not pattern.search(source):
            raise SystemExit(f"{spec.doc_page}: no <!-- {name} --> ... <!-- /{name} --> markers")
        source = pattern.sub(_filler(table), source)
    pattern = re.compile(r"(<!-- spaces -->\n)(.*?)\n(<!-- /spaces -->)", re.DOTALL)
    if not pattern.search(source):
        raise SystemExit(f"{spec.doc_page}: no <!-- spaces --> ... <!-- /spaces --> markers "
                         "around the header table")
    return pattern.sub(lambda m: f"{m.group(1)}{fill_spaces(spec, m.group(2))}\n{m.group(3)}",
                       source)


def regenerate(spec: GameSpec, docs_dir: Path | None = None) -> str:
    source = fill_tables(spec, spec.doc_page.read_text())
    spec.doc_page.write_text(source)
    doc = source.split('"""', 2)[1]
    if docs_dir is not None:
        (docs_dir / f"{spec.name}.md").write_text(doc.strip() + "\n")
    return doc


def env_table() -> str:
    """The README's table of envs: id, players, action count and observation size per count."""
    rows = ["| env id | game | players | actions | observation size | doc page |",
            "|---|---|---|---|---|---|"]
    for spec in builtin_games():
        cls, game = spec.rules, spec.name
        actions, sizes = [], []
        for n in cls.PLAYER_COUNTS:
            options = spec.resolve_options({"num_players": n})
            actions.append(f"{cls.num_actions(options)} ({n}p)")
            sizes.append(f"{spec.layout(options).size} ({n}p)")
        players = f"{min(cls.PLAYER_COUNTS)}–{max(cls.PLAYER_COUNTS)}"
        rows.append(f"| `{spec.env_id}` | {cls.TITLE} | {players} | "
                    f"{', '.join(actions)} | {', '.join(sizes)} | [docs/{game}.md](docs/{game}.md) |")
    return "\n".join(rows)


def regenerate_readme(readme: Path) -> None:
    text = readme.read_text()
    pattern = re.compile(r"(<!-- env-table -->\n).*?(<!-- /env-table -->)", re.DOTALL)
    readme.write_text(pattern.sub(_filler(env_table()), text))


def main(argv: list[str]) -> int:
    """Regenerate the doc pages of the games named in ``argv`` (every built-in game and the
    README's env table if none); an unknown game is one line on stderr and exit status 2."""
    from cahoots_envs.core.arguments import OneLineParser

    parser = OneLineParser(prog="python -m cahoots_envs.docs",
                           description="Regenerate the games' doc pages (docs/<game>.md and the "
                                       "tables in each env.py) and the README's env table.")
    parser.add_argument("games", nargs="*", metavar="GAME",
                        help="games to regenerate (default: every built-in game and the README "
                             "table)")
    args = parser.parse_args(argv)
    try:
        specs = [game_spec(g) for g in args.games] if args.games else list(builtin_games())
    except ValueError as exc:
        parser.error(str(exc))
    docs_dir = ROOT.parent / "docs"
    docs_dir.mkdir(exist_ok=True)
    for spec in specs:
        regenerate(spec, docs_dir)
        print(f"regenerated the doc page of {spec.name}")
    if not args.games:
        regenerate_readme(ROOT.parent / "README.md")
        print("regenerated the README env table")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
