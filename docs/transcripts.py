"""Regenerate the ```console transcripts in README.md, docs/cli.md and the pages under docs/cli/.

Every ```console block follows a marker comment saying how to make it:

    <!-- transcript: OPTIONS -->
    ```console
    $ cahoots list
    ...
    ```

The script runs each ``$ `` line of the block with bash (stdout and stderr together) and
writes the output under it. The blocks of one file run in order in one fresh temporary
folder, so a later block can read what an earlier one wrote (``cahoots replay coop_game.jsonl``
after ``cahoots play ... --log coop_game.jsonl``); the virtual environment's ``bin`` comes first
on PATH. OPTIONS, separated by spaces (shell quoting):

    head=N tail=M   keep the first N and the last M lines of each command's output, with
                    "… (K more lines) …" in between (either may be left out: 0)
    stdin=FILE      the commands' standard input (FILE relative to the repository root);
                    without it they read nothing (end of input at once)
    stdin<<TAG      the same, given inline: the marker's following lines up to a line TAG,
                    then "-->" on a line of its own
    setup=CMD       a bash command run in the folder before the block (its output unused)
    manual ...      the block is written by hand (a long training run, timings): left alone;
                    say when it was measured, e.g. "manual, measured 2026-11-30"

Usage: python docs/transcripts.py [--check] [FILE ...]
(default: README.md docs/cli.md docs/cli/play.md docs/cli/cross_play.md)
Without --check it rewrites the files; with --check it writes nothing and exits 1 listing
the blocks whose stored output differs.
"""

from __future__ import annotations

import argparse
import difflib
import os
import shlex
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ("README.md", "docs/cli.md", "docs/cli/play.md", "docs/cli/cross_play.md")
VENV_BIN = ROOT / ".venv" / "bin"
MARKER = "<!-- transcript:"
TIMEOUT = 900  # seconds per command


@dataclass
class Block:
    path: str
    line: int  # 1-based line of the ```console fence
    start: int  # index of the first body line
    end: int  # index of the closing fence
    body: list[str]
    manual: bool = False
    note: str = ""
    head: int | None = None
    tail: int | None = None
    stdin: str | None = None  # inline text
    stdin_file: str | None = None
    setup: str | None = None
    commands: list[str] = field(default_factory=list)
    new: list[str] | None = None  # regenerated body, when it differs


def parse_marker(text: str, where: str) -> dict:
    """OPTIONS of a marker (without ``<!-- transcript:`` and ``-->``) as a dict."""
    first, _, rest = text.partition("\n")
    first = first.strip()
    if first.startswith("manual"):
        if rest.strip():
            raise ValueError(f"{where}: a manual marker takes no further lines")
        return {"manual": True, "note": first[len("manual") :].strip(" ,")}
    opts: dict = {}
    tokens = shlex.split(first)
    for token in tokens:
        if token.startswith("stdin<<"):
            tag = token[len("stdin<<") :]
            lines = rest.split("\n")
            if not tag or tag not in lines:
                raise ValueError(f"{where}: stdin<<{tag} has no closing line {tag!r}")
            k = lines.index(tag)
            if any(s.strip() for s in lines[k + 1 :]):
                raise ValueError(f"{where}: text after the here-doc's {tag!r}")
            opts["stdin"] = "\n".join(lines[:k]) + "\n"
            rest = ""
            continue
        key, eq, value = token.partition("=")
        if not eq:
            raise ValueError(f"{where}: option {token!r} is not key=value")
        if key in ("head", "tail"):
            if not value.isdigit():
                raise ValueError(f"{where}: {key} must be a whole number, got {value!r}")
            opts[key] = int(value)
        elif key == "stdin":
            if not (ROOT / value).is_file():
                raise ValueError(f"{where}: stdin file {value} not found")
            opts["stdin_file"] = value
        elif key == "setup":
            opts["setup"] = value
        else:
            raise ValueError(f"{where}: unknown option {key!r} (head, tail, stdin, setup, manual)")
    if rest.strip():
        raise ValueError(f"{where}: marker lines after the first need stdin<<TAG")
    if "stdin" in opts and "stdin_file" in opts:
        raise ValueError(f"{where}: stdin given twice")
    return opts


def find_blocks(path: str, text: str) -> list[Block]:
    """Every ```console block of a file with its marker; ValueError if one lacks it."""
    lines = text.split("\n")
    blocks = []
    marker: tuple[int, str] | None = None  # (line index just after the marker, its text)
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith(MARKER):
            j = i
            while "-->" not in lines[j]:
                j += 1
                if j == len(lines):
                    raise ValueError(f"{path}:{i + 1}: marker never closed with -->")
            body = "\n".join(lines[i : j + 1])
            body = body[len(MARKER) : body.rindex("-->")]
            marker = (j + 1, body.strip(" ") if "\n" not in body else body.lstrip(" "))
            i = j + 1
            continue
        if line.strip() == "```console":
            where = f"{path}:{i + 1}"
            if marker is None or marker[0] != i:
                raise ValueError(
                    f"{where}: ```console block without a <!-- transcript: ... --> line above"
                )
            end = i + 1
            while lines[end].strip() != "```":
                end += 1
            block = Block(
                path, i + 1, i + 1, end, lines[i + 1 : end], **parse_marker(marker[1], where)
            )
            block.commands = [s[2:] for s in block.body if s.startswith("$ ")]
            if not block.commands:
                raise ValueError(f"{where}: console block without a '$ ' command")
            blocks.append(block)
            marker = None
            i = end + 1
            continue
        i += 1
    if marker is not None:
        raise ValueError(f"{path}: a transcript marker with no ```console block right below it")
    return blocks


def shorten(out: list[str], head: int | None, tail: int | None) -> list[str]:
    if head is None and tail is None:
        return out
    head, tail = head or 0, tail or 0
    if len(out) <= head + tail:
        return out
    left_out = len(out) - head - tail
    return out[:head] + [f"… ({left_out} more lines) …"] + out[len(out) - tail :]


def run_block(block: Block, cwd: str) -> list[str]:
    env = dict(os.environ)
    env["PATH"] = f"{VENV_BIN}{os.pathsep}{env.get('PATH', '')}"
    env.update(COLUMNS="80", LINES="24", PYTHONUNBUFFERED="1", TERM="dumb")
    env.pop("VIRTUAL_ENV", None)
    if block.setup:
        subprocess.run(
            ["bash", "-c", block.setup],
            cwd=cwd,
            env=env,
            check=True,
            stdin=subprocess.DEVNULL,
            capture_output=True,
        )
    stdin = block.stdin
    if block.stdin_file:
        stdin = (ROOT / block.stdin_file).read_text()
    new = []
    for cmd in block.commands:
        proc = subprocess.run(
            ["bash", "-c", cmd],
            check=False,
            cwd=cwd,
            env=env,
            input=stdin or "",
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=TIMEOUT,
        )
        out = proc.stdout.split("\n")
        if out and out[-1] == "":
            out.pop()
        new.append(f"$ {cmd}")
        new.extend(shorten(out, block.head, block.tail))
    return new


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 listing the blocks whose output differs",
    )
    ap.add_argument("files", nargs="*", default=list(DOCS), help="relative to the repository root")
    args = ap.parse_args(argv)
    t0 = time.monotonic()
    stale = []
    for path in args.files:
        text = (ROOT / path).read_text()
        blocks = find_blocks(path, text)
        with tempfile.TemporaryDirectory(prefix="transcripts-") as cwd:
            for block in blocks:
                label = f"{path}:{block.line}: $ {block.commands[0]}"
                if block.manual:
                    print(f"manual   {label}", file=sys.stderr)
                    continue
                t = time.monotonic()
                new = run_block(block, cwd)
                same = new == block.body
                print(
                    f"{'same' if same else 'CHANGED':8} {label}  ({time.monotonic() - t:.1f} s)",
                    file=sys.stderr,
                )
                if not same:
                    stale.append((label, block.body, new))
                    block.new = new
        if not args.check:
            lines = text.split("\n")
            for block in reversed(blocks):  # from the end, so earlier indices stay valid
                if block.new is not None:
                    lines[block.start : block.end] = block.new
            new_text = "\n".join(lines)
            if new_text != text:
                (ROOT / path).write_text(new_text)
                print(f"rewrote {path}", file=sys.stderr)
    print(f"{len(stale)} block(s) differ; {time.monotonic() - t0:.0f} s", file=sys.stderr)
    if args.check and stale:
        for label, old, new in stale:
            print(f"stale: {label}")
            diff = list(difflib.unified_diff(old, new, "stored", "now", n=0, lineterm=""))
            print("\n".join("    " + s for s in diff[2:12]))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
