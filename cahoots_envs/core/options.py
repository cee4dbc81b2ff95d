"""Typed game options: every env validates its keyword arguments against an ``OptionSet``.

An unknown option or a value out of range raises ``ValueError`` naming the option and what it
accepts (CONTRACT §1), at construction, before anything is built.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from cahoots_envs.core.text import short_repr


@dataclass(frozen=True)
class Option:
    """One keyword option: its default, what it accepts, and a line of documentation.

    Exactly one of ``choices``, ``int_range`` or ``check`` describes the accepted values;
    ``int_range`` may be combined with ``choices`` (an int in range *or* one of the choices).

    ``policy_may_differ`` (CONTRACT §7, policies across options): ``True`` for a setting a saved
    policy may play across (how long a game runs, how many goals: the same rules, the same
    observation layout and actions), ``False`` (the default) for a rule variant or anything else
    the policy must have been trained with.
    """

    name: str
    default: Any
    doc: str
    choices: tuple[Any, ...] | None = None
    int_range: tuple[int, int] | None = None
    check: Callable[[Any], bool] | None = None
    accepts: str = ""
    policy_may_differ: bool = False

    def describe(self) -> str:
        """What the option accepts, in words."""
        if self.accepts:
            return self.accepts
        parts = []
        if self.int_range is not None:
            parts.append(f"an int from {self.int_range[0]} to {self.int_range[1]}")
        if self.choices is not None:
            parts.append("one of " + ", ".join(repr(c) for c in self.choices))
        return " or ".join(parts) or "any value"

    def validate(self, value: Any) -> Any:
        if isinstance(value, numbers.Integral) and not isinstance(value, bool):
            value = int(value)  # numpy ints are as good as Python ints
        if self.choices is not None and any(
            value == c and type(value) is type(c) for c in self.choices
        ):
            return value
        if self.int_range is not None and isinstance(value, int) and not isinstance(value, bool):
            lo, hi = self.int_range
            if lo <= value <= hi:
                return value
        if self.check is not None and self.check(value):
            return value
        raise ValueError(
            f"option {self.name}={short_repr(value)} is not allowed; {self.name} accepts "
            f"{self.describe()}"
        )


@dataclass(frozen=True)
class OptionSet:
    """The options of one env, in documentation order. ``combined`` (optional) checks values
    that are each accepted but not together: given the resolved options, the problem in one
    line (what is wrong and what would be right), or None."""

    options: tuple[Option, ...]
    combined: Callable[[Mapping[str, Any]], str | None] | None = field(default=None,
                                                                        compare=False)
    by_name: dict[str, Option] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "by_name", {o.name: o for o in self.options})

    def __iter__(self) -> Iterator[Option]:
        return iter(self.options)

    def resolve(self, given: Mapping[str, Any], env_name: str = "",
                also_accepted: tuple[str, ...] = ()) -> dict[str, Any]:
        """Defaults overlaid with ``given``; every value validated. ``also_accepted`` names
        arguments the caller takes besides the options (for the error message)."""
        unknown = sorted(set(given) - set(self.by_name))
        if unknown:
            where = f" for {env_name}" if env_name else ""
            raise ValueError(
                f"unknown option{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}{where}; "
                f"accepted options: {', '.join((*self.by_name, *also_accepted))}"
            )
        resolved = {}
        for opt in self.options:
            resolved[opt.name] = opt.validate(given[opt.name]) if opt.name in given else opt.default
        problem = None if self.combined is None else self.combined(resolved)
        if problem:
            raise ValueError(f"{env_name}: {problem}" if env_name else problem)
        return resolved

    def markdown_table(self) -> str:
        rows = ["| option | default | accepts | meaning | saved policy |", "|---|---|---|---|---|"]
        for o in self.options:
            policy = "may differ" if o.policy_may_differ else "must match"
            rows.append(f"| `{o.name}` | `{o.default!r}` | {o.describe()} | {o.doc} | {policy} |")
        return "\n".join(rows)


# an argument of every env, not a game option (the game never sees it); documented with them
RENDER_MODE = Option(
    "render_mode", None,
    "`'ansi'` returns a text table, `'human'` prints it, `'rgb_array'` returns an image frame "
    "(HxWx3 uint8; needs Pillow, the `render` extra)",
    choices=(None, "ansi", "human", "rgb_array"), policy_may_differ=True,
)


def common_options(player_counts: tuple[int, ...], default_players: int) -> tuple[Option, ...]:
    """The options every env takes (CONTRACT §1)."""
    return (
        Option("num_players", default_players, "number of seats", choices=player_counts),
        Option(
            "reward_mode", "win",
            "`'win'`: rewards at game end only; `'points'`: rewarded as rulebook points are awarded",
            choices=("win", "points"), policy_may_differ=True,
        ),
    )


def parse_value(text: str) -> Any:
    """An option or setting value written as text (``-o key=value``, ``search@knob=value``):
    int, float, true/false, none, or else the string itself."""
    low = text.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    if low in ("none", "null"):
        return None
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text
