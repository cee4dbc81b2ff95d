"""Image frames of a table (``render_mode="rgb_array"``): an HxWx3 ``uint8`` array drawn with
Pillow from the game's view model (``spec.view.table(game, seat)``, what the browser view also
draws from; a game without a view gets the lines of its text view).

What a frame shows is what the view shows that seat (``seat=None``: the referee's table, every
hand): the seats (flags, scores, extras, the hand or a face-down count), the table's facts (the
trick, the last trick, piles and goals, scores by hand...) as its ``LAYOUT`` declares them. A
game's view module may declare ``LAYOUT`` (the same data as the browser's
``web/static/games/<game>.js``: ``seatStats``, ``seatFlags``, ``seatExtras``, ``info``,
``center``); without one the layout is inferred from the data, as the page does. Cards carry the
browser view's colour-blind marks: rank, the suit's symbol and letter, and a colour per suit
(colour is never the only mark).

Every frame of an env has the same size (``FrameRenderer.size``, fixed by the number of seats),
so a video of a game has one frame size; a table that would not fit is scaled down to fit.
Pillow is imported only here and only when a renderer is built: ``require_pillow`` says, in one
line, which extra brings it.
"""

from __future__ import annotations

import importlib.util
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

RENDER_FPS = 4  # frames per second of a video of a game (one frame per step)
RENDER_EXTRA = "render"

WIDTH = 1280
HEADER_H = 62
SEAT_H = 150
MARGIN = 10
EXTRAS_W = 170  # a seat's extras, right of its hand
SEATS_W = 780  # the seats' column; the table's facts take the rest
CARD_W, CARD_H = 46, 64
SMALL_W, SMALL_H = 40, 56

FELT = (31, 91, 63)
FELT_DARK = (24, 72, 50)
INK = (29, 29, 27)
PAPER = (247, 244, 236)
ACCENT = (224, 165, 38)
CARD_FACE = (255, 253, 247)
BACK = (51, 80, 110)
BACK_EDGE = (28, 45, 63)

# the browser view's suit colours (web/static/draw.js): a legend name that is a colour takes it,
# any other suit the palette colour of its place in the legend
NAMED = {"green": "#1e7d4f", "orange": "#b35900", "pink": "#c2185b", "purple": "#6a3d9a",
         "red": "#c0392b", "blue": "#1f5fa8", "yellow": "#8a7400", "black": "#1b1b1b"}
PALETTE = ("#1b1b1b", "#c0392b", "#1f5fa8", "#1e7d4f", "#b35900", "#8e3b8e", "#2b7f8e", "#6d5f00")


def require_pillow(env_name: str) -> None:
    """Raise one line naming the extra if Pillow is missing (at an env's construction)."""
    try:
        import PIL.Image  # noqa: F401
    except ImportError:
        raise ImportError(
            f"{env_name}: render_mode='rgb_array' draws frames with Pillow, which is not "
            f"installed: pip install 'cahoots-envs[{RENDER_EXTRA}]'") from None


def _hex(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


def _font_path(bold: bool, mono: bool = False) -> str:
    """DejaVu (it has every suit symbol): matplotlib's copy where installed, else the system's."""
    name = "DejaVuSansMono" if mono else "DejaVuSans"
    name += "-Bold.ttf" if bold else ".ttf"
    found = importlib.util.find_spec("matplotlib")
    if found is not None and found.origin is not None:
        path = Path(found.origin).parent / "mpl-data" / "fonts" / "ttf" / name
        if path.exists():
            return str(path)
    return name  # Pillow looks in the system's font folders


@lru_cache(maxsize=64)
def font(size: int, bold: bool = False, mono: bool = False) -> Any:
    from PIL import ImageFont
    try:
        return ImageFont.truetype(_font_path(bold, mono), size)
    except OSError:
        return ImageFont.load_default(size)


def suit_style(legend: dict[str, Any], suit: str) -> tuple[str, str, tuple[int, int, int]]:
    """(name, symbol, colour) of ``suit``, as the browser view's ``suitStyle``."""
    keys = list(legend)
    info = legend.get(suit) or {"name": f"suit {suit}", "symbol": suit}
    index = keys.index(suit) if suit in keys else 0
    colour = NAMED.get(str(info["name"]).lower()) or PALETTE[index % len(PALETTE)]
    return str(info["name"]), str(info["symbol"]), _hex(colour)


def is_card(value: Any, legend: dict[str, Any]) -> bool:
    return isinstance(value, str) and len(value) >= 2 and value[-1] in legend


def _blend(colour: tuple[int, int, int], alpha: float,
           base: tuple[int, int, int] = CARD_FACE) -> tuple[int, int, int]:
    return tuple(round(b + (c - b) * alpha) for c, b in zip(colour, base))  # type: ignore[return-value]


def humanize(key: Any) -> str:
    """``THREE_GREEN`` -> ``three green``, as the page's ``humanize``."""
    return re.sub(r"\b([A-Z]+)\b", lambda m: m.group(1).lower(), str(key).replace("_", " "))


def infer_layout(table: dict[str, Any]) -> dict[str, Any]:
    """A layout from the data, as the page's ``inferLayout`` (web/static/layout.js)."""
    legend = table.get("legend") or {}
    skip = {"kind", "viewer", "phase", "headline", "legend", "seats"}
    seat_skip = {"seat", "name", "you", "to_move", "hand", "hand_count"}
    stats, flags, extras, info, center = [], [], [], [], []
    first = (table.get("seats") or [{}])[0]
    for key, value in first.items():
        if key in seat_skip:
            continue
        if isinstance(value, bool):
            flags.append({"key": key, "mark": humanize(key)})
        elif isinstance(value, (int, float)):
            stats.append({"key": key, "label": humanize(key)})
        elif isinstance(value, list):
            extras.append({"key": key, "label": humanize(key), "type": "cards"})
    for key, value in table.items():
        if key in skip:
            continue
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            info.append({"key": key, "label": humanize(key)})
            continue
        kind = "text"
        if isinstance(value, list):
            if all(is_card(v, legend) for v in value):
                kind = "cards"
            elif all(isinstance(v, dict) and "seat" in v and "card" in v for v in value):
                kind = "plays"
        elif isinstance(value, dict):
            kind = "seatmap"
        elif isinstance(value, bool):
            kind = "flag"
        center.append({"key": key, "label": humanize(key), "type": kind})
    return {"seatStats": stats, "seatFlags": flags, "seatExtras": extras, "info": info,
            "center": center}


def view_table(spec: Any, game: Any, seat: int | None) -> dict[str, Any]:
    """The view model of ``seat`` (the game's ``view`` member, else the lines of its text)."""
    view = getattr(spec, "view", None)
    if view is not None:
        return dict(view.table(game, seat))
    text = spec.text.render(game) if seat is None else spec.text.seat_view(game, seat)
    return {"kind": "text", "viewer": seat, "headline": spec.text.headline(game),
            "lines": text.splitlines()}


@lru_cache(maxsize=8192)
def text_length(text: str, size: int, bold: bool = False, mono: bool = False) -> float:
    return float(font(size, bold, mono).getlength(text))


def card_sprite(legend: dict[str, Any], card: str, small: bool, dim: bool) -> Any:
    """A face-up card as an RGBA image: rank, small symbol, big symbol and suit letter, in the
    suit's colour (web/static/draw.js's ``cardFace``); ``dim``: a killed card, struck through."""
    from PIL import Image, ImageDraw
    w, h = (SMALL_W, SMALL_H) if small else (CARD_W, CARD_H)
    image = Image.new("RGBA", (w + 1, h + 1), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    rank, suit = card[:-1], card[-1]
    _, symbol, colour = suit_style(legend, suit)
    ink = _blend(colour, 0.55) if dim else colour
    draw.rounded_rectangle((0, 0, w, h), radius=5, fill=CARD_FACE, outline=ink, width=2)
    draw.rounded_rectangle((3, 3, w - 3, 10), radius=2, fill=_blend(colour, 0.16))
    s = 0.87 if small else 1.0
    draw.text((4, 4), rank, font=font(round(19 * s), True), fill=ink)
    draw.text((5, 4 + round(20 * s)), symbol, font=font(round(13 * s)), fill=ink)
    draw.text((w * 0.62, h * 0.62), symbol, font=font(round(22 * s)), fill=ink, anchor="mm")
    draw.text((w - 4, h - 3), suit, font=font(round(12 * s), True), fill=ink, anchor="rd")
    if dim:
        draw.line((4, h - 4, w - 4, 4), fill=ink, width=2)
    return image


class _Canvas:
    """A Pillow drawing with the table's primitives: cards, backs, chips, wrapped text. Cards are
    drawn once per env and pasted (``sprites``)."""

    def __init__(self, width: int, height: int, legend: dict[str, Any],
                 sprites: dict[tuple[str, bool, bool], Any]) -> None:
        from PIL import Image, ImageDraw
        self.image = Image.new("RGB", (width, height), FELT)
        self.draw = ImageDraw.Draw(self.image)
        self.legend = legend
        self.sprites = sprites

    def text(self, xy: tuple[float, float], text: str, size: int = 15, bold: bool = False,
             fill: tuple[int, int, int] = PAPER, anchor: str = "la", mono: bool = False) -> float:
        """Draw ``text``; return its width."""
        self.draw.text(xy, text, font=font(size, bold, mono), fill=fill, anchor=anchor)
        return text_length(text, size, bold, mono)

    def width_of(self, text: str, size: int = 15, bold: bool = False) -> float:
        return text_length(text, size, bold)

    def card(self, x: float, y: float, card: str, small: bool = False, dim: bool = False) -> None:
        """A face-up card (``card_sprite``)."""
        key = (card, small, dim)
        sprite = self.sprites.get(key)
        if sprite is None:
            sprite = self.sprites[key] = card_sprite(self.legend, card, small, dim)
        self.image.paste(sprite, (round(x), round(y)), sprite)

    def back(self, x: float, y: float, count: int) -> None:
        self.draw.rounded_rectangle((x, y, x + CARD_W, y + CARD_H), radius=5, fill=BACK,
                                    outline=BACK_EDGE, width=2)
        self.draw.rounded_rectangle((x + 5, y + 5, x + CARD_W - 5, y + CARD_H - 5), radius=3,
                                    outline=(159, 182, 204), width=1)
        self.text((x + CARD_W / 2, y + CARD_H / 2), f"×{count}", 16, bold=True, anchor="mm")

    def chip(self, x: float, y: float, text: str, colour: tuple[int, int, int] = INK,
             ring: bool = False) -> float:
        """A rounded label; return its width."""
        w = self.width_of(text, 13, bold=True) + 12
        self.draw.rounded_rectangle((x, y, x + w, y + 20), radius=9, fill=(251, 250, 246),
                                    outline=ACCENT if ring else colour, width=3 if ring else 1)
        self.text((x + 6, y + 10), text, 13, bold=True, fill=colour, anchor="lm")
        return w

    def suit_chip(self, x: float, y: float, suit: str, extra: str = "",
                  ring: bool = False) -> float:
        _, symbol, colour = suit_style(self.legend, suit)
        return self.chip(x, y, f"{symbol} {suit}{extra}", colour, ring)

    def cards(self, x: float, y: float, cards: list[str], width: float,
              small: bool = False) -> float:
        """A row of cards, wrapped at ``width``; return the height used."""
        w, h = (SMALL_W, SMALL_H) if small else (CARD_W, CARD_H)
        if not cards:
            self.text((x, y), "none", 13, fill=(200, 210, 200))
            return 18
        per_row = max(1, int((width + 4) // (w + 4)))
        for i, c in enumerate(cards):
            self.card(x + (i % per_row) * (w + 4), y + (i // per_row) * (h + 4), c, small)
        rows = (len(cards) + per_row - 1) // per_row
        return rows * (h + 4)

    def hand(self, x: float, y: float, cards: list[str], room: float,
             small: bool = False) -> float:
        """A hand in one row of ``room`` pixels: full-size cards, else smaller ones, else smaller
        ones overlapping (the rank and symbol in each corner still show); return its width."""
        if not cards:
            self.text((x, y), "no cards", 13, fill=(200, 210, 200))
            return 60
        small = small or len(cards) * (CARD_W + 4) > room
        w = SMALL_W if small else CARD_W
        step = min(w + 4.0, (room - w) / max(1, len(cards) - 1))
        for i, card in enumerate(cards):
            self.card(x + i * step, y, card, small)
        return (len(cards) - 1) * step + w

    def wrap(self, x: float, y: float, text: str, width: float, size: int = 14,
             fill: tuple[int, int, int] = PAPER, bold: bool = False, max_lines: int = 99) -> float:
        """Text wrapped at ``width``; return the height used."""
        lines: list[str] = []
        line = ""
        for word in str(text).split():
            trial = f"{line} {word}".strip()
            if line and self.width_of(trial, size, bold) > width:
                lines.append(line)
                line = word
            else:
                line = trial
        if line:
            lines.append(line)
        lines = lines[:max_lines]
        for i, t in enumerate(lines):
            self.text((x, y + i * (size + 4)), t, size, bold=bold, fill=fill)
        return len(lines) * (size + 4)


class FrameRenderer:
    """Draws frames of one env's tables: ``frame(game, seat)`` (``seat=None``: the referee)."""

    def __init__(self, spec: Any, num_players: int) -> None:
        self.spec = spec
        self.num_players = int(num_players)
        height = HEADER_H + self.num_players * (SEAT_H + MARGIN) + MARGIN
        self.size = (max(720, height), WIDTH)  # (H, W): the same for every frame of the env
        view = getattr(spec, "view", None)
        self.layout: dict[str, Any] | None = getattr(view, "LAYOUT", None)
        self._sprites: dict[tuple[str, bool, bool], Any] = {}  # the cards drawn so far

    def frame(self, game: Any, seat: int | None) -> np.ndarray:
        """The HxWx3 ``uint8`` frame of what ``seat`` sees now."""
        table = view_table(self.spec, game, seat)
        height, width = self.size
        canvas = _Canvas(width, height * 2, table.get("legend") or {}, self._sprites)
        if table.get("kind") == "text":
            used = self._text_table(canvas, table)
        else:
            used = self._table(canvas, table, self.layout or infer_layout(table))
        image = canvas.image
        if used > height:  # too tall: scaled down to fit, on the env's frame size
            from PIL import Image
            scale = height / used
            small = image.crop((0, 0, width, used)).resize(
                (round(width * scale), height), Image.Resampling.LANCZOS)
            image = Image.new("RGB", (width, height), FELT)
            image.paste(small, ((width - small.width) // 2, 0))
        else:
            image = image.crop((0, 0, width, height))
        return np.asarray(image, dtype=np.uint8)

    # ---- a game without a view: its text -----------------------------------------------------
    def _text_table(self, c: _Canvas, table: dict[str, Any]) -> int:
        lines = list(table.get("lines", []))
        if lines and lines[0].strip() == str(table.get("headline", "")).strip():
            lines = lines[1:]  # the text's first line is its headline, drawn as the title
        c.text((MARGIN, MARGIN), str(table.get("headline", "")), 18, bold=True)
        y = MARGIN + 30
        for line in lines:
            c.text((MARGIN, y), line, 15, mono=True)
            y += 19
        return y + MARGIN

    # ---- a view model ------------------------------------------------------------------------
    def _table(self, c: _Canvas, t: dict[str, Any], layout: dict[str, Any]) -> int:
        c.wrap(MARGIN, 8, str(t.get("headline", "")), WIDTH - 2 * MARGIN, 17, bold=True,
               max_lines=1)
        x = float(MARGIN)
        for item in layout.get("info", []):
            value = t.get(item["key"])
            if value is None:
                continue
            if item.get("format") == "flag" or isinstance(value, bool):
                shown = "✓ yes" if value else "✗ no"
            elif item.get("of") and t.get(item["of"]) is not None:
                shown = f"{value} of {t[item['of']]}"
            else:
                shown = str(value)
            x += c.text((x, 34), f"{item['label']}: ", 14, fill=(215, 225, 215))
            x += c.text((x, 34), shown, 14, bold=True) + 16
        y = HEADER_H
        for s in t.get("seats", []):
            self._seat(c, t, s, layout, MARGIN, y, SEATS_W - MARGIN)
            y += SEAT_H + MARGIN
        cy = self._center(c, t, layout, SEATS_W + MARGIN, HEADER_H, WIDTH - SEATS_W - 2 * MARGIN)
        return max(y, cy)

    def _seat(self, c: _Canvas, t: dict[str, Any], s: dict[str, Any], layout: dict[str, Any],
              x: float, y: float, w: float) -> None:
        c.draw.rounded_rectangle((x, y, x + w, y + SEAT_H), radius=9,
                                 fill=(44, 110, 80) if s.get("you") else FELT_DARK,
                                 outline=ACCENT if s.get("to_move") else FELT_DARK, width=3)
        tx = x + 10
        tx += c.text((tx, y + 6), str(s.get("name", f"player_{s.get('seat')}")), 16, bold=True) + 8
        if s.get("to_move"):
            tx += c.chip(tx, y + 6, "▶ to move", INK, ring=True) + 4
        if s.get("you"):
            tx += c.chip(tx, y + 6, "you") + 4
        for flag in layout.get("seatFlags", []):
            if s.get(flag["key"]):
                tx += c.chip(tx, y + 6, str(flag.get("mark") or flag.get("label"))) + 4
        stats = "   ".join(f"{st['label']}: {_number(s.get(st['key']))}"
                           for st in layout.get("seatStats", []) if st["key"] in s)
        stats_end = x + 10 + c.text((x + 10, y + 30), stats, 14, bold=True, fill=(235, 235, 220))
        # the hand on the left, the extras on the right
        hand = s.get("hand")
        hy = y + 52
        extras_x = x + 10
        if isinstance(hand, list):
            room = w - 20 - (EXTRAS_W if layout.get("seatExtras") else 0)
            used = c.hand(x + 10, hy, hand, room)
            extras_x = x + 10 + max(used, 40) + 12
        elif s.get("hand_count") is not None:
            if s["hand_count"]:
                c.back(x + 10, hy, int(s["hand_count"]))
            else:
                c.text((x + 10, hy), "no cards", 13, fill=(200, 210, 200))
            extras_x = x + 10 + CARD_W + 16
        top = hy - 20 if extras_x > stats_end + 10 else hy  # beside the scores where there is room
        ey, column_w = top, 0.0
        for extra in layout.get("seatExtras", []):
            value = s.get(extra["key"])
            if value is None or (isinstance(value, list) and not value and extra.get("hideEmpty")):
                continue
            cards = isinstance(value, list) and bool(value) and is_card(value[0], t.get("legend") or {})
            need = 16 + (SMALL_H if cards else 22)
            if ey > top and ey + need > y + SEAT_H - 4:  # no room below: a column to the right
                extras_x, ey, column_w = extras_x + column_w + 16, top, 0.0
            ex_w = x + w - extras_x - 8
            if ex_w < 100:
                break
            column_w = max(column_w, c.text((extras_x, ey), f"{extra['label']}:", 12,
                                            fill=(215, 225, 215)))
            ey += 16
            drawn_w, drawn_h = self._inline(c, t, extra.get("type", "cards"), value, extras_x,
                                            ey, ex_w)
            ey += drawn_h + 4
            column_w = max(column_w, drawn_w)

    def _inline(self, c: _Canvas, t: dict[str, Any], kind: str, value: Any, x: float, y: float,
                w: float) -> tuple[float, float]:
        """A seat's extra: cards, suits, ranks or text; return the width and height used."""
        legend = t.get("legend") or {}
        if kind in ("suits", "identity"):
            cx = x
            for suit in value or []:
                cx += c.suit_chip(cx, y, suit) + 4
            if not value:
                cx += c.text((x, y), "none", 13, fill=(200, 210, 200))
            return cx - x, 22
        if kind == "cards" and not value:
            return c.text((x, y), "none", 13, fill=(200, 210, 200)), 18
        if isinstance(value, list) and value and all(is_card(v, legend) for v in value):
            return c.hand(x, y, list(value), w, small=True), SMALL_H  # one row, overlapping
        text = (" ".join(str(v) for v in value) or "—") if isinstance(value, list) else (
            "—" if value is None else str(value))
        return min(w, c.width_of(text, 14, True)), c.wrap(x, y, text, w, 14, bold=True)

    def _center(self, c: _Canvas, t: dict[str, Any], layout: dict[str, Any], x: float, y: float,
                w: float) -> int:
        for item in layout.get("center", []):
            key = item["key"]
            if key not in t:
                continue
            value = t[key]
            if item.get("hideEmpty") and (value is None or (isinstance(value, (list, dict))
                                                            and not value)):
                continue
            c.text((x, y), str(item["label"]).upper(), 12, bold=True, fill=(215, 225, 215))
            y += 17
            y += self._area(c, t, item, value, x, y, w) + 8
        return int(y)

    def _area(self, c: _Canvas, t: dict[str, Any], item: dict[str, Any], value: Any, x: float,
              y: float, w: float) -> float:
        kind = item.get("type", "text")
        names = [s.get("name", f"player_{s.get('seat')}") for s in t.get("seats", [])]

        def who(seat: Any) -> str:
            return str(names[seat]).replace("player_", "p") if 0 <= int(seat) < len(names) else "?"

        if kind in ("plays", "picks", "piles", "swaps"):
            if kind == "plays":
                plays = (value or {}).get(item["path"], []) if item.get("path") else value
                won = (value or {}).get(item["winner"]) if item.get("winner") else None
                entries = [([p["card"]], who(p["seat"]) + (" ★" if p["seat"] == won else ""))
                           for p in plays or []]
            elif kind == "picks":
                entries = [([k for k in (p.get("kept"), p.get("killed")) if k],
                            f"{who(p['seat'])} keep/kill") for p in value or []]
            elif kind == "piles":
                entries = [([p["top"]], f"pile {p[item.get('index', 'pile')]} ·{p['count']}")
                           for p in value or []]
            else:
                entries = [([s[item["from"]], s[item["to"]]], f"{s[item['from']]}→{s[item['to']]}")
                           for s in value or []]
            if not entries:
                c.text((x, y), "none yet", 13, fill=(200, 210, 200))
                return 18
            cx, cy, row_h = x, y, CARD_H + 22
            for cards, caption in entries:
                span = max(len(cards) * (CARD_W + 3), c.width_of(caption, 12)) + 8
                if cx + span > x + w and cx > x:
                    cx, cy = x, cy + row_h
                for i, card in enumerate(cards):
                    c.card(cx + i * (CARD_W + 3), cy, card, dim=kind == "picks" and i == 1)
                c.text((cx, cy + CARD_H + 3), caption, 12,
                       fill=ACCENT if "★" in caption else PAPER, bold="★" in caption)
                cx += span
            return cy + row_h - y
        if kind == "cards":
            return c.cards(x, y, list(value or []), w, small=True)
        if kind == "card":
            if not value:
                c.text((x, y), "none", 13, fill=(200, 210, 200))
                return 18
            c.card(x, y, value, small=True)
            return SMALL_H
        if kind == "totals":
            lead = set(t.get(item.get("leading", ""), []) or [])
            cx = x
            for suit, total in (value or {}).items():
                cx += c.suit_chip(cx, y, suit, f" {total}" + (" ▲" if suit in lead else ""),
                                  ring=suit in lead) + 4
            return 24
        if kind == "suitranks":
            cx, cy = x, y
            for suit, ranks in (value or {}).items():
                label = " ".join(str(r) for r in ranks) or "—"
                span = 34 + c.width_of(label, 13, True) + 14
                if cx + span > x + w:
                    cx, cy = x, cy + 24
                cx += c.suit_chip(cx, cy, suit) + 4
                cx += c.text((cx, cy + 2), label, 13, bold=True) + 12
            return cy + 24 - y
        if kind == "counts":
            cx = x
            for card, count in (value or {}).items():
                c.card(cx, y, card, small=True)
                cx += SMALL_W + 3 + c.text((cx + SMALL_W + 3, y + 20), f"×{count}", 13, True) + 10
            if not value:
                c.text((x, y), "none", 13, fill=(200, 210, 200))
                return 18
            return SMALL_H
        if kind == "rows":
            rows = value or []
            if not rows:
                c.text((x, y), "none yet", 13, fill=(200, 210, 200))
                return 18
            shown = rows[-4:]
            for i, row in enumerate(shown):
                number = len(rows) - len(shown) + i + 1
                c.text((x, y + i * 18), f"{item.get('row', '#')} {number}: "
                       + "  ".join(_number(v) for v in row), 13)
            return len(shown) * 18
        if kind == "goals":
            cx, cy = x, y
            gw, gh = 146, 64
            for g in value or []:
                if cx + gw > x + w:
                    cx, cy = x, cy + gh + 4
                c.draw.rounded_rectangle((cx, cy, cx + gw, cy + gh), radius=6,
                                         fill=(251, 248, 239), outline=(122, 92, 0), width=2)
                c.text((cx + gw / 2, cy + 4), f"◆ {humanize(g.get('family', 'goal'))}", 11,
                       bold=True, fill=(122, 92, 0), anchor="ma")
                c.wrap(cx + 6, cy + 19, str(g.get("text") or g.get("id")), gw - 12, 11, INK,
                       max_lines=3)
                cx += gw + 4
            if not value:
                c.text((x, y), "none", 13, fill=(200, 210, 200))
                return 18
            return cy + gh - y
        if kind == "lastplay":
            if not value:
                c.text((x, y), "none yet", 13, fill=(200, 210, 200))
                return 18
            c.card(x, y, value["card"], small=True)
            done = ", ".join(humanize(g) for g in value.get("completed", []))
            c.wrap(x + SMALL_W + 8, y + 4, f"{who(value['seat'])} on pile {value['pile']}"
                   + (f" · completed {done}" if done else ""), w - SMALL_W - 8, 13)
            return SMALL_H
        if kind == "signals":
            lines = [f"{who(s['seat'])}: {s['text']}" for s in value or []]
            return c.wrap(x, y, " | ".join(lines) or "none yet", w, 13, max_lines=3)
        if kind == "seatmap":
            h = 0.0
            for seat, entries in (value or {}).items():
                label = f"{who(int(seat))}: "
                lw = c.text((x, y + h + 2), label, 13)
                h += self._inline(c, t, "cards", entries, x + lw, y + h, w - lw)[1] + 2
            if not value:
                c.text((x, y), "none", 13, fill=(200, 210, 200))
                return 18
            return h
        if kind in ("ids", "seats"):
            words = [who(v) if kind == "seats" else humanize(v) for v in value or []]
            return c.wrap(x, y, ", ".join(words) or "none", w, 13, bold=True, max_lines=3)
        if kind == "flag":
            return c.wrap(x, y, "—" if value is None else ("✓ yes" if value else "✗ no"), w, 14)
        if isinstance(value, list) and value and all(is_card(v, t.get("legend") or {})
                                                     for v in value):
            return c.cards(x, y, value, w, small=True)
        return c.wrap(x, y, "—" if value in (None, "") else str(value), w, 13, max_lines=3)


def _number(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
