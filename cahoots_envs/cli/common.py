"""What the ``cahoots`` commands share: the program name, the shape of a command (``Command``),
the help formatting, the usage error, and the env id and ``-n``/``-o`` options that ``play`` and
``eval`` take."""

from __future__ import annotations

import argparse
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cahoots_envs.core.arguments import OneLineParser, number
from cahoots_envs.core.options import parse_value

if TYPE_CHECKING:
    from typing import TypeAlias

    SubParsers: TypeAlias = "argparse._SubParsersAction[OneLineParser]"

__all__ = ["POLICY_SPECS", "PROG", "Command", "Formatter", "PassOn", "UsageError",
           "add_env_options", "check_env", "doc", "parse_options", "raw"]

PROG = "cahoots"
# every policy spec play and eval take (cahoots_envs.policies.loading.load_policy)
POLICY_SPECS = ("random, heuristic, search (the game's default search bot, see 'cahoots list'), "
                "search:<spec> "
                "(a search bot over another spec, e.g. search:zoo:kansas_city), "
                "search@<knob>=<value>,...:<spec> (with settings, e.g. "
                "search@worlds=16:heuristic; docs/search.md), zoo:<name> (see 'cahoots list') "
                "or a saved policy path")


class UsageError(ValueError):
    """A mistake on the command line: ``main`` prints it as one line, ``cahoots <command>:
    error: <what is wrong>; <what would be right>``, and exits with status 2."""


@dataclass(frozen=True)
class PassOn:
    """A command that wraps a script (``train``, ``bench``): every argument it does not read
    itself goes, in order, to the script (every one after ``--``), into ``args.<name>_args``.
    ``own`` are its own flags, ``valued`` its own options that take a value."""

    own: tuple[str, ...] = ()
    valued: tuple[str, ...] = ()

    def split(self, words: Sequence[str]) -> tuple[list[str], list[str]]:
        """``words`` (after the command's name) as (the command's own, the script's)."""
        mine: list[str] = []
        passed: list[str] = []
        rest = list(words)
        while rest:
            word = rest.pop(0)
            if word == "--":
                passed.extend(rest)
                break
            if word in self.own or word in self.valued:
                mine.append(word)
                if word in self.valued and rest:
                    mine.append(rest.pop(0))
            else:
                passed.append(word)
        return mine, passed


@dataclass(frozen=True)
class Command:
    """One ``cahoots`` command, defined by its own module (``cli/<name>_cmd.py``, found there by
    ``cahoots_envs.cli``): ``add_parser(sub, name)`` adds its sub-parser (help text, arguments)
    and returns it, ``run(args)`` runs it and returns the exit status."""

    name: str
    add_parser: Callable[[SubParsers, str], argparse.ArgumentParser]
    run: Callable[[argparse.Namespace], int]
    pass_on: PassOn | None = None
    order: int = 100  # where ``cahoots --help`` lists it (lower first; ties by name)


class Formatter(argparse.RawDescriptionHelpFormatter):
    def __init__(self, prog: str) -> None:
        super().__init__(prog, max_help_position=28, width=80)


def doc(text: str) -> str:
    """A description: paragraphs refilled to 78 columns."""
    paragraphs = textwrap.dedent(text).strip("\n").split("\n\n")
    return "\n\n".join(textwrap.fill(" ".join(p.split()), 78) for p in paragraphs)


def raw(text: str) -> str:
    """An epilog of examples, kept as written."""
    return textwrap.dedent(text).strip("\n")


def parse_options(pairs: Sequence[str] | None, players: int | None = None) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for pair in pairs or ():
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"-o {pair}: an option needs a name and a value; write -o key=value, "
                             "e.g. -o hands=1 ('cahoots list' shows each game's options)")
        options[key.strip()] = parse_value(value)
    if players is not None:
        options["num_players"] = players
    return options


def check_env(env: str, options: dict[str, Any]) -> None:
    """The env id and its options, checked before a command starts (``UsageError`` if wrong)."""
    import difflib

    from cahoots_envs.registry import game_spec, make_raw, registered_games

    try:
        game_spec(env)
    except ValueError:
        names = [spec.name for spec in registered_games()]
        close = difflib.get_close_matches(env.split("/")[-1].split("-v")[0], names, 1)
        hint = f"did you mean {close[0]}? " if close else ""
        raise UsageError(f"unknown env {env!r}; {hint}envs: {', '.join(names)} "
                         "(see 'cahoots list')") from None
    try:
        make_raw(env, **options)
    except (ValueError, TypeError) as exc:
        raise UsageError(f"{exc} (see 'cahoots list')") from None


def add_env_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("-n", "--players", type=number("-n", "4", least=1), metavar="N",
                   help="number of players (default: the game's default)")
    p.add_argument("-o", "--option", action="append", metavar="KEY=VALUE", default=[],
                   help="a game option, repeatable (see 'cahoots list'), e.g. -o hands=1")
