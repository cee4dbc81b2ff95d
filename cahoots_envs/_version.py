"""The package version, written once: ``version`` in ``pyproject.toml``.

Installed (``pip install``, also ``pip install -e``), it is the distribution's metadata, which
the build took from ``pyproject.toml``. Run from a source tree that was never installed, it is
read from the ``pyproject.toml`` next to the package; with neither, ``0+unknown``. This module
imports nothing from the package, so any module may import it.
"""

from __future__ import annotations

import re
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

DISTRIBUTION = "cahoots-envs"
UNKNOWN = "0+unknown"


def _source_tree_version() -> str | None:
    """``version`` of the ``[project]`` table in ``../pyproject.toml``, if that file is there."""
    try:
        text = (Path(__file__).resolve().parent.parent / "pyproject.toml").read_text("utf-8")
    except OSError:
        return None
    # tomllib is Python 3.11+; the one key needed is a plain string in the [project] table
    table = re.compile(r"^\[project\][ \t]*$(.*?)(?=^\[|\Z)", re.MULTILINE | re.DOTALL)
    key = re.compile(r"""^version[ \t]*=[ \t]*(["'])([^"'\n]+)\1""", re.MULTILINE)
    project = table.search(text)
    if project is None:
        return None
    found = key.search(project.group(1))
    return found.group(2) if found else None


def _version() -> str:
    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:
        return _source_tree_version() or UNKNOWN


__version__: str = _version()
