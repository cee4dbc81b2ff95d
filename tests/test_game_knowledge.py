"""Per-game knowledge lives in the game: no package module outside ``cahoots_envs/games/`` (and
the ``cahoots_envs/<game>_vN.py`` modules, which are the games' own) spells a registered game's
notation verb (its text's ``VERBS``) or one of its own options (those beyond the common ones) as
a string literal. ``cahoots play`` reads the verbs through the game's face; a rating label, a
sweep or a check that needs an option reads it from the spec.

The check is on the syntax tree: a string constant (an f-string's literal parts too) that is
exactly such a word. Prose (docstrings, help text, messages) never is exactly one word, so it
needs no exemption; the few literals that are the same word in another sense are listed in
``ALLOWED`` with their reason."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import cahoots_envs
from cahoots_envs.core.spec import COMMON_OPTIONS
from cahoots_envs.registry import GAMES

PACKAGE = Path(cahoots_envs.__file__).resolve().parent
VERSIONED = "_v"

# (module path under cahoots_envs/, word): why that literal is not the game's word
ALLOWED: dict[tuple[str, str], str] = {
    ("cli/play_cmd.py", "play"): "the sub-command's name (cahoots play), not the notation's verb",
    ("web/routes.py", "no"): "the X-Accel-Buffering header's value (a proxy must not buffer the "
                             "event stream), not Kansas City's verb",
}


def game_words() -> dict[str, set[str]]:
    """Every registered game's verbs and own option names -> which game and what it is."""
    words: dict[str, set[str]] = {}
    for name in GAMES:
        spec = cahoots_envs.game_spec(name)
        for verb in spec.text.VERBS:
            words.setdefault(verb, set()).add(f"{name}'s verb")
        for option in spec.rules.OPTIONS:
            if option.name not in COMMON_OPTIONS:
                words.setdefault(option.name, set()).add(f"{name}'s option")
    return words


def literals(tree: ast.AST) -> list[tuple[int, str]]:
    """Every string constant of ``tree`` with its line (an f-string's literal parts included)."""
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)]


def named_game_words(source: str, words: dict[str, set[str]], where: str = "") -> list[str]:
    return [f"{where}:{line} {value!r} ({', '.join(sorted(words[value]))})"
            for line, value in literals(ast.parse(source))
            if value in words and (where, value) not in ALLOWED]


def shared_modules() -> list[Path]:
    return [p for p in sorted(PACKAGE.rglob("*.py"))
            if p.relative_to(PACKAGE).parts[0] != "games"
            and not (p.parent == PACKAGE and VERSIONED in p.stem and p.stem[-1].isdigit())]


def test_no_shared_module_names_a_games_verbs_or_options() -> None:
    words = game_words()
    assert {"play", "discard", "difficulty"} <= set(words)  # the words are really collected
    found = []
    for path in shared_modules():
        found += named_game_words(path.read_text(), words, path.relative_to(PACKAGE).as_posix())
    assert not found, ("modules outside games/ name a game's verbs or options (read them from "
                       "the game's spec instead):\n" + "\n".join(found))
    stale = [key for key in ALLOWED
             if key[1] not in words or not (PACKAGE / key[0]).is_file()]
    assert not stale, f"stale exceptions: {stale}"


@pytest.mark.parametrize("snippet", [
    'if verb == "discard":\n    pass\n',
    'label = options["difficulty"]\n',
    'VERBS = ("play", "keep")\n',
    'summary = f"{x}" if y else "pass"\n',
])
def test_the_check_catches_a_planted_game_word(snippet: str) -> None:
    assert named_game_words(snippet, game_words(), "planted.py")


def test_prose_and_other_words_pass() -> None:
    assert not named_game_words('"""Play a pass or a discard."""\nx = "no legal move names"\n'
                                'y = f"you cannot {verb} now"\n', game_words(), "planted.py")
