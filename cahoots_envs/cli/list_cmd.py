"""``cahoots list``: every env (players, options, built-in bots), the zoo policies with their
recorded strength, and the search bot specs; text or ``--json``."""

from __future__ import annotations

import argparse
import json
import textwrap
from typing import TYPE_CHECKING, Any

from cahoots_envs.cli.common import Command, Formatter, doc

if TYPE_CHECKING:
    from cahoots_envs.cli.common import SubParsers


def cmd_list(args: argparse.Namespace) -> int:
    from cahoots_envs.policies.loading import builtin_specs, default_search_spec, list_policies
    from cahoots_envs.registry import list_envs, make_raw

    out: dict[str, Any] = {"envs": [], "policies": []}
    for env_id in list_envs():
        raw = make_raw(env_id)
        cls = raw.game_cls
        options = [
            {"name": o.name, "default": o.default, "accepts": o.describe(), "doc": o.doc}
            for o in cls.OPTIONS if o.name not in ("num_players", "reward_mode")
        ]
        builtins = builtin_specs(env_id)
        out["envs"].append({
            "id": env_id, "title": cls.TITLE, "players": list(cls.PLAYER_COUNTS),
            "default_players": cls.DEFAULT_PLAYERS, "cooperative": bool(cls.COOPERATIVE),
            "options": options, "builtin_policies": builtins,
            # what plain 'search' plays at the env's default options
            "default_search": default_search_spec(env_id) if "search" in builtins else None,
        })
    for meta in list_policies():
        out["policies"].append({
            "spec": meta["spec"], "env_id": meta.get("env_id"),
            "options": meta.get("game_options", {}), "description": meta.get("description", ""),
            "evaluation": meta.get("evaluation", {}),
        })
    if args.json:
        print(json.dumps(out, indent=2, default=str))
        return 0
    print("Environments (cahoots play <env>, cahoots_envs.make(<env>)):")
    for env in out["envs"]:
        players = env["players"]
        span = f"{players[0]}-{players[-1]}" if len(players) > 1 else str(players[0])
        coop = ", cooperative" if env["cooperative"] else ""
        print(f"  {env['id'].split('/', 1)[1]:<18} {env['title']}")
        print(f"  {'':<18} players {span} (default {env['default_players']}){coop}")
        print(f"  {'':<18} bots: {', '.join(env['builtin_policies'])}")
        for o in env["options"]:
            line = f"{o['name']}={o['default']!r}: {o['doc'].replace('`', '')}"
            for i, part in enumerate(textwrap.wrap(line, 56)):  # 24 + 56 = 80 columns
                print(f"  {'':<18} {'-o ' if i == 0 else '   '}{part}")
    print()
    print("Zoo policies (use as zoo:<name> with play/eval):")
    if not out["policies"]:
        print("  none shipped yet; 'random' and 'heuristic' work for every env")
    for p in out["policies"]:
        # the strength column wraps at 80 characters, its lines aligned under the first
        strength, *more = textwrap.wrap(_strength(p["evaluation"]), 80 - 2 - 24 - 1 - 18 - 1) \
            or [""]
        if len(p["spec"]) > 24:  # a long name gets its own line; the columns stay aligned
            print(f"  {p['spec']}")
            print(f"  {'':<24} {str(p['env_id']).split('/', 1)[-1]:<18} {strength}")
        else:
            print(f"  {p['spec']:<24} {str(p['env_id']).split('/', 1)[-1]:<18} {strength}")
        for part in more:
            print(f"  {'':<24} {'':<18} {part}")
        if p["description"]:
            for part in textwrap.wrap(p["description"], 52):
                print(f"  {'':<24} {part}")
    print()
    print("Search bots (use with play/eval):")
    print(f"  {'search':<24} each game's default (at its default options):")
    for env in out["envs"]:
        if env["default_search"]:
            print(f"    {env['id'].split('/', 1)[1]:<22} {env['default_search']}")
    print("  search:<spec>            over any bot or zoo policy: search:zoo:kansas_city")
    print("  search@<knob>=<v>,...:<spec>")
    print(f"  {'':<24} with settings: search@worlds=16,gate=2.5:heuristic")
    print(f"  {'':<24} (knobs and figures: docs/search.md)")
    return 0


def _strength(evaluation: Any) -> str:
    """A one-line summary of a zoo policy's recorded evaluation (``cahoots strength``'s
    ``strength`` block when present, else the training run's own evaluation)."""
    if not isinstance(evaluation, dict) or not evaluation:
        return "(no evaluation recorded)"
    strength = evaluation.get("strength")
    parts = []
    if isinstance(strength, dict):
        variants = strength.get("variants")
        groups = variants.items() if isinstance(variants, dict) else [("", strength)]
        for variant, rows in groups:
            for key, label in (("policy_vs_random", "vs random"),
                               ("policy_vs_heuristic", "vs heuristic")):
                row = rows.get(key) if isinstance(rows, dict) else None
                if isinstance(row, dict) and "win_rate" in row:
                    where = f" ({variant})" if variant else ""
                    parts.append(f"{label}{where} {float(row['win_rate']):.0%}")
        team = strength.get("team")
        if isinstance(team, dict):
            wins = []
            for difficulty, rows in team.items():
                row = rows.get("policy_team") if isinstance(rows, dict) else None
                if isinstance(row, dict) and "win_rate" in row:
                    wins.append(f"{difficulty} {float(row['win_rate']):.0%}")
            if wins:
                parts.append("team: " + ", ".join(wins))
        if parts:
            return "; ".join(parts)
    for key, value in evaluation.items():
        if isinstance(value, dict) and "win_rate" in value:
            parts.append(f"{key} {float(value['win_rate']):.0%}")
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            parts.append(f"{key} {value:.3g}")
    return "; ".join(parts) or "(see its .json)"


def add_parser(sub: SubParsers, name: str) -> argparse.ArgumentParser:
    p = sub.add_parser(
        name, formatter_class=Formatter, help="the envs (players, options) and zoo policies",
        description=doc("""
            List every environment with its player counts, options and the built-in bots, and
            every policy in the zoo with its recorded strength.
        """),
        epilog="example:\n  cahoots list\n  cahoots list --json > envs.json",
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    return p


COMMAND = Command("list", add_parser, cmd_list, order=10)
