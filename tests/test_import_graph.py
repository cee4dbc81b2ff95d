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
SPEC_NAMED_IMPORTS = {"cahoots_envs.vector.engine",
                      # imports the module a registered algorithm's entry names ("module:function")
                      "cahoots_envs.training.algorithms",
                      # imports its own command modules, cli/*_cmd.py, found in its folder
                      "cahoots_envs.cli"}
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


# ---- ranks: every import points down ------------------------------------------------------------
# The layers of docs/architecture.md, lowest first: a module may import its own package and any
# package of a lower rank, never one of a higher rank (and nothing imports the package root,
# which ranks top). Imports under ``if TYPE_CHECKING:`` are for type checkers only and not
# counted; function-level (lazy) imports are.
RANKS = [
    ("errors", ["cahoots_envs.errors"]),
    ("version", ["cahoots_envs._version"]),
    ("core", ["cahoots_envs.core"]),
    ("games", ["cahoots_envs.games"]),
    ("registry", ["cahoots_envs.registry"]),
    ("envinfo", ["cahoots_envs.envinfo"]),
    ("vector", ["cahoots_envs.vector"]),
    ("search", ["cahoots_envs.search"]),
    ("policies", ["cahoots_envs.policies"]),
    ("gamelog", ["cahoots_envs.gamelog"]),
    ("evaluation", ["cahoots_envs.evaluation"]),
    ("training", ["cahoots_envs.training"]),
    ("rllib", ["cahoots_envs.rllib"]),
    ("docs", ["cahoots_envs.docs"]),
    ("bench", ["cahoots_envs.bench"]),
    ("web", ["cahoots_envs.web"]),
    ("cli", ["cahoots_envs.cli"]),
    ("versioned modules", [r"re:^cahoots_envs\.\w+_v\d+$"]),
    ("__main__", ["cahoots_envs.__main__"]),
    ("package root", ["cahoots_envs"]),
]
# (importer, imported): why an upward import is allowed. None today; a shim that must import
# upward goes here, with its reason, and in docs/architecture.md's list.
ALLOWED_UPWARD: dict[tuple[str, str], str] = {}


def rank_of(module: str, ranks: list[tuple[str, list[str]]] = RANKS) -> int:
    for i, (_, prefixes) in enumerate(ranks):
        for prefix in prefixes:
            if prefix.startswith("re:"):
                if re.match(prefix[3:], module):
                    return i
            elif module == prefix or (prefix != "cahoots_envs" and module.startswith(prefix + ".")):
                return i
    raise AssertionError(f"{module} has no rank: add its package to RANKS (and to "
                         "docs/architecture.md)")


def type_checking_nodes(tree: ast.AST) -> set[int]:
    """The ids of nodes under ``if TYPE_CHECKING:`` (or ``typing.TYPE_CHECKING``)."""
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If):
            test = node.test
            name = test.attr if isinstance(test, ast.Attribute) else getattr(test, "id", "")
            if name == "TYPE_CHECKING":
                for child in node.body:
                    skip.update(id(n) for n in ast.walk(child))
    return skip


def module_graph(package: Path, type_checking: bool = False) -> dict[str, set[str]]:
    """Module -> the package's modules it imports (lazy imports too; ``from p import m`` counts
    as ``p.m`` when that is a module, else as ``p``); imports under ``if TYPE_CHECKING:`` count
    only with ``type_checking``."""
    paths = {module_name_in(package, p): p for p in sorted(package.rglob("*.py"))}
    graph: dict[str, set[str]] = {m: set() for m in paths}
    for this, path in paths.items():
        tree = ast.parse(path.read_text())
        skip = set() if type_checking else type_checking_nodes(tree)
        for node in ast.walk(tree):
            if id(node) in skip or not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            for name in imported_modules(ast.Module(body=[node], type_ignores=[]), this):
                while name and name not in paths:
                    name = name.rpartition(".")[0]
                if name and name != this:
                    graph[this].add(name)
    return graph


def module_name_in(package: Path, path: Path) -> str:
    parts = path.relative_to(package.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def upward_imports(graph: dict[str, set[str]], ranks: list[tuple[str, list[str]]] = RANKS,
                   allowed: dict[tuple[str, str], str] | None = None) -> list[str]:
    allowed = ALLOWED_UPWARD if allowed is None else allowed
    bad = []
    for this, imports in sorted(graph.items()):
        for other in sorted(imports):
            mine, theirs = rank_of(this, ranks), rank_of(other, ranks)
            if theirs > mine and (this, other) not in allowed:
                bad.append(f"{this} ({ranks[mine][0]}) imports {other} ({ranks[theirs][0]})")
    return bad


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    cycles: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    cycles.append(sorted(component))
    return cycles


GRAPH = module_graph(PACKAGE)


def test_every_module_has_a_rank_and_every_import_points_down() -> None:
    assert len(GRAPH) > 80
    bad = upward_imports(GRAPH)
    assert not bad, "imports that point up the ranks (see docs/architecture.md):\n" + "\n".join(bad)
    for (importer, imported), reason in ALLOWED_UPWARD.items():
        assert imported in GRAPH.get(importer, set()), f"stale exception {importer} -> {imported}"
        assert reason


def test_no_import_cycle_between_modules() -> None:
    cycles = import_cycles(GRAPH)
    assert not cycles, "import cycles: " + "; ".join(" <-> ".join(c) for c in cycles)


def test_the_rank_and_cycle_checks_catch_a_planted_upward_import_and_cycle(tmp_path: Path) -> None:
    """The checker on a planted package: an upward import, a cycle, a lazy import and a
    TYPE_CHECKING-only import (which does not count)."""
    pkg = tmp_path / "cahoots_envs"
    (pkg / "core").mkdir(parents=True)
    (pkg / "cli").mkdir()
    (pkg / "__init__.py").write_text("from cahoots_envs import registry\n")
    (pkg / "errors.py").write_text("")
    (pkg / "registry.py").write_text("def f():\n    from cahoots_envs.cli import main\n")
    (pkg / "core" / "__init__.py").write_text("from cahoots_envs.core import a\n")
    (pkg / "core" / "a.py").write_text("from cahoots_envs.core.b import x\n")
    (pkg / "core" / "b.py").write_text("import cahoots_envs.core.a\nx = 1\n")
    (pkg / "cli" / "__init__.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from cahoots_envs import x\n"
        "from cahoots_envs.registry import f\nmain = f\n")
    graph = module_graph(pkg)
    assert graph["cahoots_envs.registry"] == {"cahoots_envs.cli"}  # the lazy import counts
    assert graph["cahoots_envs.cli"] == {"cahoots_envs.registry"}  # TYPE_CHECKING does not
    assert upward_imports(graph) == ["cahoots_envs.registry (registry) imports cahoots_envs.cli (cli)"]
    allowed = {("cahoots_envs.registry", "cahoots_envs.cli"): "a planted shim"}
    assert upward_imports(graph, allowed=allowed) == []
    assert sorted(import_cycles(graph)) == [
        ["cahoots_envs.cli", "cahoots_envs.registry"],
        ["cahoots_envs.core.a", "cahoots_envs.core.b"],
    ]
    with pytest.raises(AssertionError, match="has no rank"):
        rank_of("cahoots_envs.newthing")


# ---- inside evaluation/: public names across modules, no circle even for type checkers ---------
EVALUATION = "cahoots_envs.evaluation"


def private_imports(package: Path, inside: str) -> list[str]:
    """Every ``from <module of inside> import _name`` in a module of ``inside`` (type-checking
    imports too): a name another module needs is public in the module that owns it."""
    paths = {module_name_in(package, p): p for p in sorted(package.rglob("*.py"))}
    found = []
    for this, path in sorted(paths.items()):
        if not (this == inside or this.startswith(inside + ".")):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ImportFrom):
                continue
            base = node.module or ""
            if node.level:
                base = ".".join(this.split(".")[: -node.level] + ([base] if base else []))
            if base != this and (base == inside or base.startswith(inside + ".")):
                found.extend(f"{this} imports {alias.name} from {base}" for alias in node.names
                             if alias.name.startswith("_") and not alias.name.startswith("__"))
    return found


def cycles_inside(graph: dict[str, set[str]], inside: str) -> list[list[str]]:
    def mine(m: str) -> bool:
        return m == inside or m.startswith(inside + ".")

    return import_cycles({m: {o for o in imports if mine(o)} for m, imports in graph.items()
                          if mine(m)})


def test_evaluation_modules_take_no_private_name_from_each_other() -> None:
    bad = private_imports(PACKAGE, EVALUATION)
    assert not bad, "private names imported across evaluation/ (make them public where they " \
        "are defined):\n" + "\n".join(bad)


def test_no_import_circle_inside_evaluation_counting_type_checking_imports() -> None:
    graph = module_graph(PACKAGE, type_checking=True)
    assert any(m.startswith(EVALUATION + ".") for m in graph)
    cycles = cycles_inside(graph, EVALUATION)
    assert not cycles, "import circles in evaluation/ (a type-checking import counts): " + \
        "; ".join(" <-> ".join(c) for c in cycles)


def test_the_evaluation_checks_catch_a_planted_private_import_and_type_checking_circle(
        tmp_path: Path) -> None:
    pkg = tmp_path / "cahoots_envs"
    (pkg / "evaluation").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "evaluation" / "__init__.py").write_text("from cahoots_envs.evaluation.a import f\n")
    (pkg / "evaluation" / "a.py").write_text(
        "from __future__ import annotations\nfrom .b import _helper\nf = _helper\n")
    (pkg / "evaluation" / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
        "    from cahoots_envs.evaluation.a import f\ndef _helper():\n    pass\n")
    assert private_imports(pkg, "cahoots_envs.evaluation") == [
        "cahoots_envs.evaluation.a imports _helper from cahoots_envs.evaluation.b"]
    assert cycles_inside(module_graph(pkg), "cahoots_envs.evaluation") == []
    assert cycles_inside(module_graph(pkg, type_checking=True), "cahoots_envs.evaluation") == [
        ["cahoots_envs.evaluation.a", "cahoots_envs.evaluation.b"]]


# ---- training: the algorithms side by side on the toolkit --------------------------------------
def algorithm_modules() -> dict[str, str]:
    """Algorithm name -> the module its registered entry names (``"module:function"``)."""
    from cahoots_envs.training.algorithms import algorithms

    return {name: a.entry.partition(":")[0] for name, a in algorithms().items()
            if isinstance(a.entry, str) and a.entry.startswith("cahoots_envs.")}


def test_no_training_algorithm_imports_another() -> None:
    """Each algorithm imports the toolkit (networks, updates, imitation, pool, actors, the seat
    envs) and the run plumbing, never another algorithm (lazy imports counted)."""
    modules = set(algorithm_modules().values())
    assert modules >= {"cahoots_envs.training.maskable_ppo", "cahoots_envs.training.every_seat_ppo",
                       "cahoots_envs.training.expert_iteration"}
    bad = sorted(f"{m} imports {o}" for m in modules for o in GRAPH[m] & modules)
    assert not bad, "an algorithm imports another (move what they share into the toolkit):\n" \
        + "\n".join(bad)
    # nothing below the algorithms reaches up into one either (only the registry names them)
    users = sorted(f"{m} imports {o}" for m, imports in GRAPH.items() for o in imports & modules
                   if m.startswith("cahoots_envs.training.") and m not in modules)
    assert not users, "the training toolkit imports an algorithm:\n" + "\n".join(users)


def test_importing_the_algorithm_registry_loads_no_algorithm() -> None:
    """A fresh process that imports ``cahoots_envs.training.algorithms`` (and so the package's
    training modules) holds no algorithm module: they load when a run or a config names them."""
    import subprocess
    import sys

    modules = sorted(set(algorithm_modules().values()))
    code = ("import sys, cahoots_envs.training.algorithms as a, cahoots_envs.training.config as c\n"
            "a.algorithm('every_seat_ppo'); c.config_from_dict({'env_id': 'kansas_city-v1'})\n"
            f"print(sorted(m for m in sys.modules if m in {modules!r}))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=PACKAGE.parent)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr
    # the check sees a loaded algorithm (a planted import in the same probe)
    planted = code.replace("print(", "import cahoots_envs.training.expert_iteration\nprint(")
    out = subprocess.run([sys.executable, "-c", planted], capture_output=True, text=True,
                         check=True, cwd=PACKAGE.parent)
    assert out.stdout.strip() == "['cahoots_envs.training.expert_iteration']", out.stdout
