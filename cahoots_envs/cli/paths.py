"""Output paths checked before any game is played: one line saying what is wrong and what would
be right, or None when the path will do."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

EXAMPLE_NAMES = {"--log": "game.jsonl", "--json": "results.json", "--png": "chart.png"}


def _cannot_write_in(folder: Path) -> str | None:
    """Why no file can be created in ``folder`` (None when one can); tried for real, since
    permission bits do not tell (root, read-only mounts, /proc)."""
    if not os.access(folder, os.W_OK | os.X_OK):
        return "permission denied"
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as e:
        return e.strerror or str(e)
    return None


def output_file_problem(path: str | os.PathLike[str], option: str) -> str | None:
    """What is wrong with writing a file at ``path`` (given as ``option``), or None."""
    p = Path(path)
    text = os.fspath(path)
    if text == "" or p.is_dir() or text.endswith(("/", os.sep)):
        example = EXAMPLE_NAMES.get(option, "out.txt")
        return f"{option} {text!r} is a folder; give a file path, e.g. {p / example}"
    parent = p.parent
    if not parent.exists():
        return (f"{option} {path}: the folder {parent} does not exist; create it first "
                "(mkdir -p) or give a path in an existing folder")
    if not parent.is_dir():
        return f"{option} {path}: {parent} is a file, not a folder; give a path in a folder"
    if p.exists():
        if not p.is_file():
            return f"{option} {path} is not a regular file; give a file path"
        try:
            with p.open("ab"):
                pass
        except OSError as e:
            return (f"{option} {path}: cannot write to this file ({e.strerror}); give a path "
                    "you can write to")
        return None
    why = _cannot_write_in(parent)
    if why:
        return (f"{option} {path}: cannot create a file in {parent} ({why}); give a path in a "
                "folder you can write to")
    return None


def output_dir_problem(path: str | os.PathLike[str], option: str) -> str | None:
    """What is wrong with writing files into the folder ``path`` (created, with its missing
    parents, when it does not exist), or None."""
    p = Path(path)
    if p.exists() and not p.is_dir():
        return (f"{option} {path} is a file; give a folder (it is created if it does not "
                "exist)")
    existing = p
    while not existing.exists():
        if existing.parent == existing:
            break
        existing = existing.parent
    if not existing.is_dir():
        return f"{option} {path}: {existing} is a file, not a folder; give a folder path"
    why = _cannot_write_in(existing)
    if why:
        where = "this folder" if existing == p else f"{existing}, where it would be created"
        return (f"{option} {path}: cannot write files in {where} ({why}); give a folder you can "
                "write to")
    return None


def eval_output_problem(json_path: str | None, png_path: str | None,
                        log_dir: str | None) -> str | None:
    """``cahoots eval``'s outputs (``--json`` unless '-', ``--png`` and matplotlib behind it,
    ``--logs``), checked before the first game."""
    if json_path and json_path != "-":
        problem = output_file_problem(json_path, "--json")
        if problem:
            return problem
    if png_path:
        problem = output_file_problem(png_path, "--png")
        if problem:
            return problem
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            return ("--png needs matplotlib, which is not installed: pip install matplotlib "
                    "(or pip install 'cahoots-envs[train]'), or leave out --png")
    if log_dir:
        return output_dir_problem(log_dir, "--logs")
    return None
