"""Old import paths of modules that moved keep working (issue 55): each warns once with a
``DeprecationWarning`` naming the new path and hands out the new module's own objects; the old
modules hold no code of their own (no module of ``training/`` plays matches)."""

from __future__ import annotations

import ast
import importlib
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "cahoots_envs"
MOVED = {
    "cahoots_envs.training.matches": "cahoots_envs.evaluation.matches",
    "cahoots_envs.training.tables": "cahoots_envs.evaluation.tables",
    "cahoots_envs.training.strength": "cahoots_envs.evaluation.strength",
}


@pytest.mark.parametrize("old,new", sorted(MOVED.items()))
def test_an_old_path_warns_naming_the_new_one_and_gives_its_objects(old: str, new: str) -> None:
    moved = importlib.import_module(new)
    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match=f"{old} has moved to {new}"):
        shim = importlib.import_module(old)
    public = [n for n in vars(moved) if not n.startswith("__")
              and getattr(getattr(moved, n), "__module__", new) == new]
    assert public
    for name in public:
        assert getattr(shim, name) is getattr(moved, name), name
    assert set(public) <= set(dir(shim))


def test_the_documented_old_names_still_import() -> None:
    """The names the docs and tests used before the move, from their old homes."""
    sys.modules.pop("cahoots_envs.training.matches", None)
    with pytest.warns(DeprecationWarning):
        from cahoots_envs.training.matches import act_rows, batched_matches, seat_matches
    from cahoots_envs.core.threads import limit_blas_threads
    from cahoots_envs.evaluation import matches
    from cahoots_envs.training.run import limit_blas_threads as old_limit

    assert (act_rows, batched_matches, seat_matches) == (
        matches.act_rows, matches.batched_matches, matches.seat_matches)
    assert old_limit is limit_blas_threads


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_module_holds_no_code_of_its_own(old: str) -> None:
    path = PACKAGE.joinpath(*old.split(".")[1:]).with_suffix(".py")
    body = ast.parse(path.read_text()).body
    assert not [n for n in body if isinstance(n, (ast.FunctionDef, ast.ClassDef))]
    assert sum(isinstance(n, (ast.Import, ast.ImportFrom, ast.Assign)) for n in body) == 3
