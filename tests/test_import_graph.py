"""The layers of docs/architecture.md, checked on the syntax tree (not a text grep: game names in
docstrings and help text are fine).

- No package module outside ``cahoots_envs/games/`` imports a game's module or builds one's module
  path; the registration list (``registry.py``) and the ``cahoots_envs/<game>_vN.py`` modules
  aside. Shared layers reach a game through its ``GameSpec`` only.
- A game's folder imports only ``cahoots_envs.core``, ``cahoots_envs.errors`` and itself: no other
  game, and nothing above it (vector, policies, training, cli, ...); its batched engine
  (``batched.py``) finds the engine base it subclasses and the numba helpers in ``core`` too
  (``core/batched.py``, ``core/numba_kernels.py``).
- ``vector/engine.py`` imports the module its ``GameSpec`` names as ``batched`` (a path the spec
  gives, not one it builds from a game's name), so it may call ``import_module``.
- ``cahoots_envs.core`` imports only itself and ``cahoots_envs.errors``; of its modules only
  ``core/numba_kernels.py`` imports numba (``import cahoots_envs`` works without the ``fast``
  extra).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "cahoots_envs"
GAME_MODULE = re.compile(r"^cahoots_envs_?\.?games(\.|$)|^cahoots_envs\.\w+_v\d+$")
VERSIONED = re.compile(r"^\w+_v\d+\.py$")
DYNAMIC_IMPORTS = {"import_module", "__import__", "find_spec"}
# modules that import what a GameSpec member names (a path given by the spec, not built)
SPEC_NAMED_IMPORTS = {"cahoots_envs.vector.engine"}
# the one core module that may import numba (only games' batched modules and vector import it)
CORE_NUMBA = "cahoots_envs.core.numba_kernels"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(tree: ast.AST, this: str) -> list[str]:
    """Every module an ``import`` or ``from ... import`` names (relative imports resolved); a
    ``from package import name`` also counts as ``package.name`` (it may be a module)."""
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = this.split(".")[: -node.level] if node.level else []
                base = ".".join(package + ([base] if base else []))
            names.append(base)
            names.extend(f"{base}.{alias.name}" for alias in node.names)
    return names


def docstring_nodes(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


def built_module_paths(tree: ast.AST) -> list[str]:
    """String literals (f-string parts included) that spell a game module path, and dynamic
    imports of a computed name."""
    found = []
    skip = docstring_nodes(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            if "cahoots_envs.games" in node.value or re.search(r"cahoots_envs\.\w+_v\d", node.value):
                found.append(repr(node.value))
        elif isinstance(node, ast.JoinedStr):
            literal = "".join(v.value for v in node.values
                              if isinstance(v, ast.Constant) and isinstance(v.value, str))
            if "cahoots_envs." in literal and ("games" in literal or "_v" in literal):
                found.append(f"f-string {literal!r}")
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in DYNAMIC_IMPORTS and node.args and not isinstance(node.args[0], ast.Constant):
                found.append(f"{name}(<computed>) at line {node.lineno}")
    return found


def package_modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def is_exempt(path: Path) -> bool:
    rel = path.relative_to(PACKAGE)
    return rel.parts[0] == "games" or rel.as_posix() == "registry.py" or (
        len(rel.parts) == 1 and VERSIONED.match(rel.name) is not None)


SHARED = [p for p in package_modules() if not is_exempt(p)]
GAME_FILES = [p for p in package_modules() if p.relative_to(PACKAGE).parts[0] == "games"]
CORE = [p for p in package_modules() if p.relative_to(PACKAGE).parts[0] == "core"]


def test_the_checks_see_every_layer() -> None:
    assert len(SHARED) > 20 and len(GAME_FILES) >= 4 * 6 and len(CORE) >= 6


@pytest.mark.parametrize("path", SHARED, ids=lambda p: p.relative_to(PACKAGE).as_posix())
def test_shared_layers_import_no_game(path: Path) -> None:
    tree = ast.parse(path.read_text())
    this = module_name(path)
    games = sorted({m for m in imported_modules(tree, this) if GAME_MODULE.match(m)})
    assert not games, f"{this} imports game module(s) {games}; reach games through their GameSpec"
    built = built_module_paths(tree)
    if this in SPEC_NAMED_IMPORTS:
        return
    assert not built, f"{this} builds a module path: {built}"


@pytest.mark.parametrize("path", GAME_FILES, ids=lambda p: p.relative_to(PACKAGE).as_posix())
def test_a_game_imports_only_core_and_itself(path: Path) -> None:
    rel = path.relative_to(PACKAGE)
    own = "cahoots_envs.games" + (f".{rel.parts[1]}" if len(rel.parts) > 2 else "")
    this = module_name(path)
    allowed = ("cahoots_envs.core", "cahoots_envs.errors", own)
    bad = sorted({
        m for m in imported_modules(ast.parse(path.read_text()), this)
        if m.startswith("cahoots_envs") and not any(m == a or m.startswith(a + ".") for a in allowed)
        and m != "cahoots_envs"
    })
    assert not bad, f"{this} imports {bad}; a game may import cahoots_envs.core and itself only"


@pytest.mark.parametrize("path", CORE, ids=lambda p: p.relative_to(PACKAGE).as_posix())
def test_core_imports_only_core(path: Path) -> None:
    this = module_name(path)
    bad = sorted({
        m for m in imported_modules(ast.parse(path.read_text()), this)
        if m.startswith("cahoots_envs") and not m.startswith(("cahoots_envs.core", "cahoots_envs.errors"))
    })
    assert not bad, f"{this} imports {bad}; core is the bottom layer"
    if this != CORE_NUMBA:
        numba = sorted({m for m in imported_modules(ast.parse(path.read_text()), this)
                        if m == "numba" or m.startswith("numba.")})
        assert not numba, (f"{this} imports {numba}; only {CORE_NUMBA} imports numba (cahoots_envs "
                           "imports without the fast extra)")


def test_the_checker_catches_what_it_should() -> None:
    """The checks themselves, on snippets that break each rule (a test that cannot fail is none)."""
    bad_import = ast.parse("from cahoots_envs.games.kansas_city.rules import KansasCity")
    assert [m for m in imported_modules(bad_import, "cahoots_envs.cli") if GAME_MODULE.match(m)]
    bad_from = ast.parse("from cahoots_envs.games import kansas_city")
    assert [m for m in imported_modules(bad_from, "cahoots_envs.cli") if GAME_MODULE.match(m)]
    relative = ast.parse("from ..games import texas_euchre")
    assert [m for m in imported_modules(relative, "cahoots_envs.cli.views") if GAME_MODULE.match(m)]
    assert built_module_paths(ast.parse('m = f"cahoots_envs.games.{name}.encoder"'))
    assert built_module_paths(ast.parse('m = f"cahoots_envs.{game}_v{version}"'))
    assert built_module_paths(ast.parse("importlib.import_module(name)"))
    assert not built_module_paths(ast.parse('"""Docs may name cahoots_envs.games.kansas_city."""'))
