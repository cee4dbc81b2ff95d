"""Old module paths kept working after a module moved: the module-level ``__getattr__`` and
``__dir__`` of the old path, handing out the new module's objects, and the deprecation warning."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from types import ModuleType
from typing import Any


def moved_module(old: str, new: ModuleType) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """Warn (``DeprecationWarning``, pointing at the line that imported ``old``) that ``old`` has
    moved to ``new``, and return the ``__getattr__`` and ``__dir__`` of the old module: every name,
    private ones included, is the new module's own object."""
    warnings.warn(f"{old} has moved to {new.__name__}; import it from there (the old path will "
                  "be removed)", DeprecationWarning, stacklevel=3)

    def attribute(name: str) -> Any:
        return getattr(new, name)

    def names() -> list[str]:
        return dir(new)

    return attribute, names
