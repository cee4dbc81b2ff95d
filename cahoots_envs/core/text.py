"""Shared text helpers for every game's ``text`` module (tables, seat views, summaries).

Everything here is game-agnostic: a game's ``games/<game>/text.py`` builds its spectator table,
its seat view (at most ``WIDTH`` columns, for ``cahoots play``), its narration and its final
summary from these pieces. Nothing here imports a game module.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import Any

WIDTH = 80


def short_repr(value: Any, limit: int = 60) -> str:
    """``repr(value)`` cut to about ``limit`` characters, for error messages about user input."""
    if isinstance(value, (str, bytes, bytearray)) and len(value) > 4 * limit:
        value = value[: 4 * limit]  # never build the repr of a huge input
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


_SPACES = frozenset("\t\n\x0b\x0c\r")


def wrap(label: str, text: str, width: int = WIDTH) -> list[str]:
    """``label`` then ``text`` wrapped under itself (hanging indent)."""
    if text and len(label) + len(text) <= width and text.strip() == text \
            and _SPACES.isdisjoint(text):
        return [label + text]  # what textwrap gives a line that fits, without its cost
    return textwrap.wrap(
        text or "-", width=width, initial_indent=label, subsequent_indent=" " * len(label),
        break_on_hyphens=False,
    ) or [label.rstrip()]


def wrap_items(label: str, items: list[str], sep: str = ", ", width: int = WIDTH) -> list[str]:
    """Like ``wrap`` but never breaks inside an item."""
    lines: list[str] = []
    line = label
    for i, item in enumerate(items):
        piece = item + (sep.rstrip() if i < len(items) - 1 else "")
        if line.strip() and len(line) + len(piece) > width and line != label:
            lines.append(line.rstrip())
            line = " " * len(label)
        line += piece + (" " if i < len(items) - 1 else "")
    lines.append(line.rstrip())
    return lines


def fit(lines: list[str], width: int = WIDTH) -> str:
    """Wrap any line still wider than ``width`` (a safety net for long names)."""
    out: list[str] = []
    for line in lines:
        if len(line) <= width:
            out.append(line)
        else:
            out.extend(textwrap.wrap(line, width=width, subsequent_indent="    ",
                                     break_on_hyphens=False))
    return "\n".join(out)


def count_cards(cards: int) -> str:
    """``1 card``, ``5 cards``."""
    return f"{cards} card" if cards == 1 else f"{cards} cards"


def who(seat: int, you: int) -> str:
    """``player_2``, or ``player_2 (you)`` when ``seat`` is the viewer ``you``."""
    return f"player_{seat}" + (" (you)" if seat == you else "")


def default_final_summary(game: Any, seat: int | None = None) -> str:
    """The closing line of a competitive game: every score, then who won (``game.outcome()``)."""
    n = game.num_players
    scores = ", ".join(
        f"player_{s}{' (you)' if s == seat else ''} {game.scores[s]:g}" for s in range(n)
    )
    outcome = game.outcome()
    winners = [s for s in range(n) if outcome[s] > 0]
    if not winners:
        result = "A tie."
    else:
        names = " and ".join(("you" if s == seat else f"player_{s}") for s in winners)
        result = f"{names} win{'s' if len(winners) == 1 and winners[0] != seat else ''}."
    return f"Final scores: {scores}. {result}"


def trick_taken_lines(before: Sequence[int], after: Sequence[int]) -> list[str]:
    """"player_N takes the trick" for each seat whose tricks-won count went up by one."""
    return [f"  -> player_{s} takes the trick"
            for s, (x, y) in enumerate(zip(before, after)) if y == x + 1]


def hand_end_lines(before: Sequence[Sequence[Any]], after: Sequence[Sequence[Any]],
                   label: str = "hand") -> list[str]:
    """"== end of hand K: player_0 P0 ..." when a step finished a hand (a new per-hand row)."""
    if len(after) <= len(before):
        return []
    points = " ".join(f"player_{s} {p}" for s, p in enumerate(after[-1]))
    return [f"  == end of {label} {len(after)}: {points}"]
