"""``cahoots play``: one person against bots in the terminal, moves typed in the notation."""

from __future__ import annotations

import contextlib
import signal
import sys
import textwrap
import threading
from collections import Counter
from collections.abc import Iterator, Mapping
from types import FrameType
from typing import Any, TextIO

from cahoots_envs.core.face import Text
from cahoots_envs.core.game import normalise_action_text
from cahoots_envs.core.text import WIDTH, fit, wrap_items
from cahoots_envs.gamelog import GameRecorder

MANY = 16  # more legal moves than this are summarised per verb
MAX_INPUT_LINE = 1000  # characters of one typed line; a longer one is refused unread

HELP = """\
How to move: type a move in the game's notation, as listed under "your moves".
  Cards in a list may come in any order; case and spacing do not matter.
  The verb may be left out when that is unambiguous: "5B" for "play 5B".
Commands: help (this text), moves (list every legal move), view (show the table
  again), quit (leave the game)."""


def seat_view(game: Any, seat: int) -> str:
    """Everything ``seat`` may see now, as text at most 80 columns wide: only that seat's own
    hand and the public information of the rules' information model (the game's text's
    ``seat_view``, in the notation of CONTRACT §6)."""
    return fit(game.face.text.seat_view(game, seat).split("\n"))


def public_action(game: Any, action: int, viewer: int) -> str:
    """How ``viewer`` sees the action the seat to move takes (before it is applied): the game's
    secret moves (a Kansas City pass, an upgraded card's face) are described, not shown."""
    return game.face.text.public_action(game, action, viewer)


class Notation:
    """A game's notation words, from its text (``VERBS``, ``NOT_CARDS``, ``summarise_moves``):
    this module names no game's words."""

    def __init__(self, text: Text) -> None:
        self.text = text
        self.verbs = dict(text.VERBS)
        self.not_cards = tuple(text.NOT_CARDS)

    def verb(self, move: str) -> str:
        """The verb ``move`` is grouped under (one naming cards), else the whole move."""
        words = move.split()
        if len(words) >= 2 and self.verbs.get(words[0]) in ("cards", "hand"):
            return words[0]
        return move

    def is_card(self, word: str) -> bool:
        """A card in the notation (5B, AC, 10H): not a keyword, not a bare (pile) number."""
        return word.lower() not in self.verbs and word not in self.not_cards and not word.isdigit()

    def names_hand(self, verb: str) -> bool:
        """Whether ``verb`` names several cards of one's own hand (a pass, a discard)."""
        return self.verbs.get(verb) == "hand"


def notation(game: Any) -> Notation:
    return Notation(game.face.text)


def describe_moves(game: Any, legal: list[int]) -> list[str]:
    """The legal moves as lines of at most 80 columns; long lists summarised per verb."""
    texts = [game.action_to_str(a) for a in legal]
    if len(texts) <= MANY:
        return wrap_items("your moves: ", texts)
    words = notation(game)
    groups: dict[str, list[str]] = {}
    for t in texts:
        groups.setdefault(words.verb(t), []).append(t)
    items = []
    for verb, group in groups.items():
        if len(group) == 1:
            items.append(group[0])
            continue
        summary = words.text.summarise_moves(verb, group)
        items.append(summary if summary is not None
                     else f"{verb} ... ({len(group)} ways, e.g. {group[0]})")
    return wrap_items("your moves: ", items, sep="; ")


def list_moves(game: Any, legal: list[int]) -> list[str]:
    """Every legal move in columns; a very long list (passes, discards) is described instead."""
    texts = sorted(game.action_to_str(a) for a in legal)
    if len(texts) > 60:
        return describe_moves(game, legal) + [
            "  (too many to list: name the cards from your hand, in any order)"]
    width = max(len(t) for t in texts) + 2
    per_line = max(1, (WIDTH - 2) // width)
    return ["  " + "".join(f"{t:<{width}}" for t in texts[i : i + per_line]).rstrip()
            for i in range(0, len(texts), per_line)]


def parse_move(game: Any, text: str) -> int:
    """An action id for ``text``; ``ValueError`` with a helpful message otherwise."""
    try:
        return game.str_to_action(text)
    except ValueError:
        pass
    legal = game.legal_actions()
    strings = [game.action_to_str(a) for a in legal]
    words_of = notation(game)
    verbs = sorted({words_of.verb(s) for s in strings if words_of.verb(s) != s})
    found = {}
    for verb in verbs:
        try:
            a = game.str_to_action(f"{verb} {text}")
        except ValueError:
            continue
        found[a] = game.action_to_str(a)
    if len(found) == 1:
        return next(iter(found))
    if len(found) > 1:
        raise ValueError(f"{text!r} could mean {' or '.join(sorted(found.values()))}; "
                         "type the whole move")
    words = normalise_action_text(text).split()
    if not words:
        raise ValueError("type a move, or 'help'")
    known_tokens = {w for t in strings for w in _words(t)}
    reasons = []
    first = words[0].lower()
    if first in words_of.verbs and first not in {t.split()[0] for t in strings}:
        reasons.append(f"you cannot {first} now")
    named = words[1:] if first in words_of.verbs else words
    unknown = [w for w in named if w not in known_tokens and w not in words_of.not_cards]
    if unknown:
        reasons.append(f"no legal move names {' '.join(unknown)}")
    if not reasons:
        reasons.append(_missing(words, strings, words_of)
                       or _near(first, named, strings, words_of))
    reasons = [r for r in reasons if r]
    msg = f"{text!r} is not a legal move now" + (f" ({'; '.join(reasons)})" if reasons else "")
    raise ValueError("\n".join([msg] + describe_moves(game, legal)))


class Signalled(BaseException):
    """SIGTERM or SIGHUP during ``play``: the game is left as by Ctrl-C (a ``BaseException``
    like ``KeyboardInterrupt``, so that no ``except Exception`` takes it)."""

    def __init__(self, signum: int) -> None:
        self.signum = signum
        self.name = signal.Signals(signum).name
        super().__init__(self.name)


class EndOnSignals:
    """While in use (in the main thread): SIGINT raises ``KeyboardInterrupt`` and SIGTERM and
    SIGHUP raise ``Signalled``, so that the game's log gets its end record; a signal that comes
    while the recorder writes a move (``held``) waits for that record. A signal whose handler
    is not the default (SIGHUP ignored under nohup, a handler of the program embedding this)
    is left alone; the handlers before are put back at the end."""

    NAMES = ("SIGINT", "SIGTERM", "SIGHUP")

    def __init__(self) -> None:
        self.previous: dict[int, Any] = {}
        self.holding = False
        self.pending: int | None = None

    def __enter__(self) -> EndOnSignals:  # noqa: PYI034 (Self needs Python 3.11)
        if threading.current_thread() is not threading.main_thread():
            return self  # only the main thread may set handlers
        for name in self.NAMES:
            signum = getattr(signal, name, None)  # no SIGHUP on Windows
            if signum is None:
                continue
            before = signal.getsignal(signum)
            if before in (signal.SIG_DFL, signal.default_int_handler):
                self.previous[signum] = before
                signal.signal(signum, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for signum, handler in self.previous.items():
            signal.signal(signum, handler)
        self.previous.clear()

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.holding:
            self.pending = signum
            return
        self._raise(signum)

    @staticmethod
    def _raise(signum: int) -> None:
        if signum == signal.SIGINT:
            raise KeyboardInterrupt
        raise Signalled(signum)

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        """No signal in here (an env step and its log record): one that comes is raised after."""
        self.holding = True
        try:
            yield
        finally:
            self.holding = False
            if self.pending is not None:
                signum, self.pending = self.pending, None
                self._raise(signum)


def _reason(exc: BaseException) -> str:
    """How a game was left, for its abandoned end record: the signal's name."""
    return exc.name if isinstance(exc, Signalled) else "SIGINT"


def _words(move: str) -> list[str]:
    return normalise_action_text(move).split()


def _some(moves: list[str]) -> str:
    """A few of ``moves`` as examples: all of up to three, else two and how many there are."""
    if len(moves) <= 3:
        return " or ".join(moves)
    return f"e.g. {moves[0]} or {moves[1]} ({len(moves)} ways)"


def _missing(words: list[str], moves: list[str], notation: Notation) -> str | None:
    """When ``words`` (normalised) are part of some legal ``moves`` but not a whole one (``2V``
    for ``play 2V on 1``, ``pass 3A`` for a three-card pass, ``throw`` for ``throw down``): what
    they leave out and the moves they could be; None otherwise."""
    have = Counter(words)
    whole = [m for m in moves if not have - Counter(_words(m))]
    if not whole:
        return None
    same_verb = [m for m in whole if _words(m)[0] == words[0]]
    whole = same_verb or whole  # "upgrade": upgrade 5B rather than no upgrade
    left_out = [Counter(_words(m)) - have for m in whole]
    needs = []
    counts = {sum(n for w, n in rest.items() if notation.is_card(w)) for rest in left_out}
    if 0 not in counts:
        more = "more " if any(notation.is_card(w) for w in words) else ""
        k = min(counts) if len(counts) == 1 else None
        if k is None:
            needs.append(f"{more}cards")
        elif k == 1:
            needs.append(f"1 {more}card" if more else "a card")
        else:
            needs.append(f"{k} {more}cards")
    if all(any(w.isdigit() for w in rest) for rest in left_out):
        needs.append("a pile")  # a bare number in a move is a pile
    if needs:
        return f"it needs {' and '.join(needs)}: {_some(whole)}"
    return f"write it in full: {_some(whole)}"


def _near(first: str, named: list[str], moves: list[str], notation: Notation) -> str:
    """Why known words make no legal move (too many cards, a card twice, a card with another
    verb or pile than it may have now), with the moves that are near."""
    cards = [w for w in named if notation.is_card(w)]
    if notation.names_hand(first) and cards:
        counts = sorted({sum(notation.is_card(w) for w in _words(m))
                         for m in moves if m.startswith(first + " ")} - {0})
        if len(set(cards)) < len(cards):
            return "name each card once"
        if counts and len(cards) not in counts:
            span = f"{counts[0]} to {counts[-1]}" if len(counts) > 1 else str(counts[0])
            return f"a {first} names {span} cards, not {len(cards)}"
        return "check the number of cards"
    related = [m for m in moves if set(cards) <= set(_words(m))]
    if cards and related:
        return f"the moves with {' '.join(dict.fromkeys(cards))} now: {_some(related)}"
    return ""


def narrate(before: Any, after: Any) -> list[str]:
    """Short lines on what a step completed (tricks, hands, goals) for the person playing."""
    return after.face.text.narrate(before, after)


class Terminal:
    def __init__(self, stdin: TextIO, stdout: TextIO) -> None:
        self.stdin, self.stdout = stdin, stdout
        self.echo = not (hasattr(stdin, "isatty") and stdin.isatty())

    def say(self, text: str = "") -> None:
        """Print, wrapping any line wider than the terminal's 80 columns."""
        lines = []
        for line in text.split("\n"):
            if len(line) <= WIDTH:
                lines.append(line)
            else:
                lines.extend(textwrap.wrap(line, WIDTH, subsequent_indent="    ",
                                           break_long_words=False, break_on_hyphens=False))
        print("\n".join(lines), file=self.stdout, flush=True)

    def thinking(self, text: str | None) -> None:
        """Show ``text`` on the current line of a terminal while a bot thinks (``None`` clears
        it). Nothing is written to a pipe or a file, so transcripts stay clean."""
        if not (hasattr(self.stdout, "isatty") and self.stdout.isatty()):
            return
        self.stdout.write(f"\r{text}" if text else "\r" + " " * WIDTH + "\r")
        self.stdout.flush()

    def ask(self, prompt: str) -> str | None:
        """One typed line (None at the end of input). A line longer than ``MAX_INPUT_LINE``
        characters is read no further than that, skipped to its end and asked again."""
        while True:
            self.stdout.write(prompt)
            self.stdout.flush()
            line = self.stdin.readline(MAX_INPUT_LINE + 1)
            if not line:
                self.say()
                return None
            if len(line) > MAX_INPUT_LINE and not line.endswith("\n"):
                if self.echo:
                    self.say(line[:60] + "...")
                while line and not line.endswith("\n"):  # the rest of it, a block at a time
                    line = self.stdin.readline(1 << 16)
                self.say(f"line too long (max {MAX_INPUT_LINE} characters); type a move, or 'help'")
                if not line:
                    return None
                continue
            line = line.rstrip("\n")
            if self.echo:
                self.say(line)  # a scripted session reads like a typed one
            return line


def play(
    env_id: str,
    seat: int,
    opponents: list[str],
    seed: int | None,
    options: Mapping[str, Any],
    log_path: str | None = None,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
) -> int:
    """One game in the terminal: 0 when it was played to the end, 1 when left (quit, end of
    input). With ``log_path`` the log is written move by move; a game left unfinished, also by
    Ctrl-C (``KeyboardInterrupt``), SIGTERM or SIGHUP (``Signalled``), ends it with an abandoned
    end record whose ``reason`` says how."""
    from cahoots_envs.cli.paths import output_file_problem
    from cahoots_envs.policies.loading import load_policy
    from cahoots_envs.registry import make_raw

    if log_path:
        problem = output_file_problem(log_path, "--log")
        if problem:
            raise ValueError(problem)  # before anything is dealt
    term = Terminal(stdin or sys.stdin, stdout or sys.stdout)
    env = make_raw(env_id, render_mode="ansi", **dict(options))
    n = len(env.possible_agents)
    if not 0 <= seat < n:
        raise ValueError(f"--seat must be 0..{n - 1} with {n} players")
    if len(opponents) == 1:
        opponents = opponents * (n - 1)
    if len(opponents) != n - 1:
        raise ValueError(f"give one --opponents spec for all, or {n - 1} (one per other seat)")
    game_options = env.options
    policies: dict[int, Any] = {}
    names = []
    others = iter(opponents)
    for s in range(n):
        if s == seat:
            names.append("human")
            continue
        spec = next(others)
        names.append(spec)
        policies[s] = load_policy(spec, env.env_id, game_options,
                                  seed=None if seed is None else seed * 100 + s)
    recorder = GameRecorder(env, players=names, path=log_path or None)
    with EndOnSignals() as signals, recorder:  # recorder: any other exception ends the log too
        try:
            left = _play_game(env, recorder, term, seat, policies, names, seed, signals)
        except (KeyboardInterrupt, Signalled) as exc:
            with signals.held():  # a second signal waits for the end record
                recorder.abandon(reason=_reason(exc))
            with contextlib.suppress(OSError):  # after SIGHUP the terminal may be gone
                _say_log_written(term, recorder)
            raise
        if left is not None:
            recorder.abandon(reason=left)
    _say_log_written(term, recorder)
    return 0 if left is None else 1


def _say_log_written(term: Terminal, recorder: GameRecorder) -> None:
    if recorder.path is None or recorder.log is None or recorder.log.end is None:
        return
    end = recorder.log.end
    if end.get("abandoned"):
        term.say(f"game log written to {recorder.path} (abandoned at turn {end['turns']})")
    else:
        term.say(f"game log written to {recorder.path}")
    term.say("replay it with: cahoots replay <log>")


def _play_game(env: Any, recorder: GameRecorder, term: Terminal, seat: int,
               policies: dict[int, Any], names: list[str], seed: int | None,
               signals: EndOnSignals) -> str | None:
    """Play the game through ``recorder``: None when it ends, how the person left it ("quit",
    "end of input") otherwise."""
    n = len(names)
    with signals.held():
        recorder.reset(seed=seed)
    assert recorder.log is not None
    game_id = env.env_id.split("/", 1)[1]
    term.say(f"{env.game_cls.TITLE} ({game_id}), {n} players, seed {recorder.log.header['seed']}.")
    for text in wrap_items("seats: ", [f"player_{s} {'(you)' if s == seat else names[s]}"
                                       for s in range(n)]):
        term.say(text)
    term.say("Type 'help' for help, 'moves' for every legal move.")
    show_view = True
    while not env.game.is_over:
        game = env.game
        actor = game.current_player
        if actor != seat:
            agent = f"player_{actor}"
            obs = env.observe(agent)
            policy = policies[actor]
            if getattr(policy, "needs_infoset", False):  # a search bot: it may take a moment
                from cahoots_envs.search import Infoset

                term.thinking(f"player_{actor} is thinking…")
                action = int(policy.act_infoset(Infoset(game, actor, env.spec, env.options,
                                                        obs["observation"], obs["action_mask"])))
                term.thinking(None)
            else:
                action = int(policy.act(obs["observation"], obs["action_mask"]))
            text = public_action(game, action, seat)
            before = game.clone()
            with signals.held():
                recorder.step(action)
            term.say(f"player_{actor}: {text}")
            for note in narrate(before, env.game):
                term.say(note)
            show_view = True
            continue
        if show_view:
            term.say("-" * WIDTH)
            term.say(seat_view(game, seat))
            for text in describe_moves(game, env.legal_actions()):
                term.say(text)
            show_view = False
        line = term.ask(f"player_{seat}> ")
        if line is None:
            term.say("input ended; game abandoned")
            return "end of input"
        command = line.strip().lower()
        if command in ("help", "?", "h"):
            term.say(HELP)
            for line_ in wrap_items("moves look like: ", list(game.face.text.MOVE_EXAMPLES)):
                term.say(line_)
            continue
        if command in ("moves", "m"):
            for line_ in list_moves(game, env.legal_actions()):
                term.say(line_)
            continue
        if command in ("view", "v", "look"):
            show_view = True
            continue
        if command in ("quit", "exit", "q"):
            term.say("you left the game")
            return "quit"
        try:
            action = parse_move(game, line)
        except ValueError as e:
            term.say(f"{e}")
            continue
        before = game.clone()
        with signals.held():
            recorder.step(action)
        term.say(f"player_{seat} (you): {before.action_to_str(action)}")
        for line_ in narrate(before, env.game):
            term.say(line_)
        show_view = True
    game = env.game
    term.say("=" * WIDTH)
    term.say(seat_view(game, seat))
    for text in textwrap.wrap(final_summary(game, seat), WIDTH):
        term.say(text)
    return None


def final_summary(game: Any, seat: int | None = None) -> str:
    """The closing line of a game, as the game's text module words it."""
    return game.face.text.final_summary(game, seat)
