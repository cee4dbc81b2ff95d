"""``cahoots replay``: a game log re-played through the env and checked
(``cahoots_envs.gamelog``)."""

from __future__ import annotations

import argparse
import sys
import textwrap
from typing import TYPE_CHECKING, Any

from cahoots_envs.cli.common import PROG, Command, Formatter, doc, raw
from cahoots_envs.core.arguments import number

if TYPE_CHECKING:
    from cahoots_envs.cli.common import SubParsers


def cmd_replay(args: argparse.Namespace) -> int:
    from cahoots_envs.gamelog import GameLog, ReplayError, replay_log

    try:
        log = GameLog.load(args.log)
    except (OSError, ValueError) as e:
        print(f"{PROG} replay: {e}", file=sys.stderr)
        return 2
    h = log.header
    players = h.get("players")
    print(f"{h['env_id']} seed {h.get('seed')}, options "
          + ", ".join(f"{k}={v!r}" for k, v in h.get("options", {}).items()))
    if players:
        print("players: " + ", ".join(f"player_{s} {p}" for s, p in enumerate(players)))
    state = {"interactive": bool(args.step), "rendered": False}

    def on_step(env: Any, record: dict[str, Any]) -> None:
        state["rendered"] = False
        if args.quiet:
            return
        print(f"{record['turn']:>4}  player_{record['seat']}: {record['action']}")
        if args.show_all or state["interactive"]:
            print(env.render())
            state["rendered"] = True
        if state["interactive"]:
            try:
                answer = input("-- enter: next, c: to the end, q: stop -- ").strip().lower()
            except EOFError:
                answer = "c"
            if answer == "c":
                state["interactive"] = False
            elif answer == "q":
                raise KeyboardInterrupt

    try:
        result = replay_log(log, on_step=on_step, stop_after=args.turns, partial=args.partial)
    except ReplayError as e:
        print(f"{PROG} replay: FAILED: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("replay stopped")
        return 0
    if not state["rendered"]:
        print(result.env.render())
    scores = ", ".join(f"player_{s} {v:g}" for s, v in enumerate(result.scores))
    if result.complete and result.ended_by == "illegal_action":
        illegal = log.end["illegal_action"] if log.end else {}
        text = (f"replay OK: {result.turns} actions, every one legal, then an illegal action "
                f"by {illegal.get('agent')} ({illegal.get('action')!r}) ended the game; scores "
                f"match ({scores})")
    elif result.complete:
        text = (f"replay OK: {result.turns} actions, every one legal; final scores match "
                f"({scores})")
    elif result.abandoned:
        before = (f"every one of the {result.turns} actions before is legal" if result.turns
                  else "no action was played")
        reason = log.end.get("reason") if log.end else None
        why = f" ({reason[:60]})" if reason else ""
        text = (f"replay OK: the game was abandoned at turn {result.turns}{why}; {before} "
                f"(scores then: {scores})")
    elif log.end is None and args.turns is None:
        text = (f"partial replay: {result.turns} actions, every one legal; the log has no end "
                f"record (scores so far: {scores})")
    else:
        text = f"replayed {result.turns} actions, every one legal; scores so far: {scores}"
    print(textwrap.fill(text, 80))
    return 0


def add_parser(sub: SubParsers, name: str) -> argparse.ArgumentParser:
    p = sub.add_parser(
        name, formatter_class=Formatter, help="re-play a game log and check it",
        description=doc("""
            Re-play a game log (JSON lines written by 'cahoots play --log', 'cahoots eval
            --logs' or cahoots_envs.gamelog.GameRecorder) through the env: every field of
            every record is checked, every action must still be legal for the logged player
            and the final result must match. Prints each action and the final table; --step
            pauses after each action. A game abandoned in play replays up to where it was left
            (exit status 0); a log without end record is an error unless --partial. Exit
            status: 0 OK, 1 the env disagrees with the log, 2 not a well-formed log.
        """),
        epilog=raw("""
            examples:
              cahoots replay game.jsonl
              cahoots replay game.jsonl --step
              cahoots replay game.jsonl --turns 20 --show-all
              cahoots replay cut_short.jsonl --partial
        """),
    )
    p.add_argument("log", help="the game log (.jsonl)")
    p.add_argument("--step", action="store_true", help="show the table and wait after each action")
    p.add_argument("--show-all", action="store_true", help="show the table after each action")
    p.add_argument("--turns", type=number("--turns", "20", least=0), metavar="K",
                   help="stop after K actions")
    p.add_argument("--partial", action="store_true",
                   help="accept a log without end record (cut short) as far as it goes")
    p.add_argument("-q", "--quiet", action="store_true", help="do not list the actions")
    return p


COMMAND = Command("replay", add_parser, cmd_replay, order=70)
