"""Command-line argument helpers shared by every entry point (``cahoots``, the training
command): usage errors in one line, and numbers range-checked while the command line is read,
before any work starts."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from typing import Any, NoReturn

__all__ = ["OneLineParser", "number"]


class OneLineParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose usage errors (a missing argument, a number out of range) are
    one line, ``<prog>: error: <what is wrong> (see '<prog> --help')``, exit status 2, as every
    other mistake on the command line."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def number(option: str, example: str, least: float, most: float | None = None,
           kind: type = int, why_most: str = "") -> Callable[[str], Any]:
    """An argparse ``type`` for ``option``: a whole number (``kind=int``) or a finite number
    (``float``) from ``least`` to ``most``, refused while the command line is read, before any
    work starts, with what is wrong and ``e.g. <option> <example>``."""

    def parse(text: str) -> Any:
        right = f"; e.g. {option} {example}"
        shown = text if len(text) <= 40 else f"{text[:30]}... ({len(text)} characters)"
        try:
            value = kind(text)
        except ValueError:
            value = None
        if value is None or not math.isfinite(value):
            wanted = "a whole number" if kind is int else "a finite number"
            raise argparse.ArgumentTypeError(f"expected {wanted}, got '{shown}'{right}")
        if value < least:
            raise argparse.ArgumentTypeError(f"must be at least {_figure(least)}, got {shown}{right}")
        if most is not None and value > most:
            raise argparse.ArgumentTypeError(
                f"must be at most {_figure(most)}{why_most}, got {shown}{right}")
        return value

    return parse


def _figure(value: float) -> str:
    return f"{value:,}" if isinstance(value, int) else f"{value:g}"
