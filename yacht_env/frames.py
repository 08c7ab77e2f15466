"""Pictures of a game for ``render_mode="rgb_array"``: one (480, 640, 3) uint8 frame per position, drawn with Pillow.

A frame shows the five dice with their pips (dice kept from the previous roll in the colour ``kept``, dice just
rolled in ``rolled``), the turn and the rolls left, the last action (``agent``; ``regret`` if it was illegal and
ignored), and the whole scorecard: every box filled (on ``filled_bg``) or open (with the points the current dice
would score there, in ``open``; ``x`` where the Joker rule forbids it), the upper total and bonus, the bonuses for
extra five-of-a-kinds and the total. Colours: :mod:`yacht_env.palette`. Labels are in English (the font Pillow
ships has Latin letters only). The same position and last action always give the same pixels.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from yacht_env.actions import NUM_KEEP_ACTIONS
from yacht_env.extras import require
from yacht_env.i18n import category_name, text
from yacht_env.palette import rgb
from yacht_env.render import LastAction
from yacht_env.rules import NUM_UPPER
from yacht_env.state import GameState

WIDTH, HEIGHT = 640, 480  # both multiples of 16, as video encoders want
_DIE, _GAP, _DICE_X, _DICE_Y = 48, 10, 16, 96
_CARD_X, _CARD_Y, _ROW = 316, 14, 23
_PIPS = {1: [(1, 1)], 2: [(0, 0), (2, 2)], 3: [(0, 0), (1, 1), (2, 2)], 4: [(0, 0), (0, 2), (2, 0), (2, 2)],
         5: [(0, 0), (0, 2), (1, 1), (2, 0), (2, 2)], 6: [(0, 0), (0, 2), (1, 0), (1, 2), (2, 0), (2, 2)]}


def check_pillow() -> None:
    """``ModuleNotFoundError`` with the install command unless Pillow is installed."""
    require("PIL", what='render_mode="rgb_array"')


@cache
def _font(size: int) -> Any:
    from PIL import ImageFont

    return ImageFont.load_default(size=size)


def _kept_flags(dice: tuple[int, ...], kept: tuple[int, ...] | None) -> list[bool]:
    """Which of the sorted ``dice`` stayed from the previous roll: the first matching die for each kept face."""
    left = list(kept or ())
    flags = []
    for d in dice:
        flags.append(d in left)
        if d in left:
            left.remove(d)
    return flags


def _draw_die(draw: Any, x: int, y: int, face: int, kept: bool) -> None:
    draw.rounded_rectangle([x, y, x + _DIE, y + _DIE], radius=8, fill=rgb("kept_bg" if kept else "rolled_bg"),
                           outline=rgb("kept" if kept else "rolled"), width=3 if kept else 2)
    step, r = _DIE // 4, 4
    for row, col in _PIPS[face]:
        cx, cy = x + step * (col + 1), y + step * (row + 1)
        draw.ellipse([cx - r, cy - r, cx + r, cy + r], fill=rgb("ink"))


def _draw_left(draw: Any, state: GameState, last: LastAction | None) -> None:
    rs = state.ruleset
    draw.text((_DICE_X, 14), rs.title, font=_font(22), fill=rgb("ink"))
    head = "Game over" if state.is_over else f"Turn {state.turn + 1} of {rs.num_categories}"
    draw.text((_DICE_X, 48), head, font=_font(16), fill=rgb("muted"))
    kept = _kept_flags(state.dice, last.kept if last is not None and last.legal else None)
    for i, (face, k) in enumerate(zip(state.dice, kept)):
        x = _DICE_X + i * (_DIE + _GAP)
        _draw_die(draw, x, _DICE_Y, face, k)
        draw.text((x + _DIE // 2, _DICE_Y + _DIE + 6), "kept" if k else "rolled", font=_font(12),
                  fill=rgb("kept" if k else "rolled"), anchor="mt")
    y = 186
    draw.text((_DICE_X, y), "Rolls left", font=_font(15), fill=rgb("ink"))
    rolls = 0 if state.is_over else state.rolls_left
    for i in range(2):
        cx = _DICE_X + 100 + i * 22
        draw.ellipse([cx, y + 1, cx + 14, y + 15], outline=rgb("ink"), width=2,
                     fill=rgb("ink") if i < rolls else None)
    draw.text((_DICE_X + 150, y), str(rolls), font=_font(15), fill=rgb("ink"))
    y = 226
    draw.text((_DICE_X, y), "Last action", font=_font(15), fill=rgb("ink"))
    if last is None:
        words, colour = "-", "muted"
    elif not last.legal:
        words, colour = f"illegal action {last.action}: ignored", "regret"
    elif last.kept is None:
        words, colour = f"{last.label}  +{state.total - last.total_before}", "agent"
    else:
        words, colour = last.label, "agent"
    draw.text((_DICE_X, y + 24), words, font=_font(17), fill=rgb(colour))
    _draw_legend(draw, 320)
    draw.text((_DICE_X, 410), "Total", font=_font(18), fill=rgb("muted"))
    draw.text((_DICE_X + 80, 402), str(state.total), font=_font(30), fill=rgb("ink"))


def _draw_legend(draw: Any, y: int) -> None:
    items = [("kept_bg", "kept", "die kept"), ("rolled_bg", "rolled", "die rolled"),
             ("filled_bg", "line", "box filled"), ("paper", "open", "open: points now")]
    for i, (face, edge, words) in enumerate(items):
        x, yy = _DICE_X + (i % 2) * 140, y + (i // 2) * 24
        draw.rectangle([x, yy, x + 14, yy + 14], fill=rgb(face), outline=rgb(edge), width=2)
        draw.text((x + 20, yy), words, font=_font(13), fill=rgb("open" if face == "paper" else "ink"))


def _draw_card(draw: Any, state: GameState, last: LastAction | None) -> None:
    rs = state.ruleset
    x0, x_box, x_now, x1 = _CARD_X, 548, 618, WIDTH - 8
    font = _font(14)
    y = _CARD_Y
    draw.text((x0 + 6, y), "Category", font=font, fill=rgb("muted"))
    draw.text((x_box, y), "Score", font=font, fill=rgb("muted"), anchor="ra")
    draw.text((x_now, y), "Now", font=font, fill=rgb("open"), anchor="ra")
    legal = set(state.legal_categories()) if not state.is_over else set()
    scored = last.action - NUM_KEEP_ACTIONS if last is not None and last.legal and last.kept is None else None

    def row(label: str, box: str, now: str = "", filled: bool = False, marked: bool = False, bold: bool = False
            ) -> None:
        nonlocal y
        y += _ROW
        if filled:
            draw.rectangle([x_box - 44, y - 3, x_box + 4, y + _ROW - 5], fill=rgb("filled_bg"))
        if marked:
            draw.rectangle([x0, y - 4, x1, y + _ROW - 4], outline=rgb("agent"), width=2)
        f = _font(16) if bold else font
        draw.text((x0 + 6, y), label, font=f, fill=rgb("ink"))
        draw.text((x_box, y), box, font=f, fill=rgb("ink" if filled or bold else "muted"), anchor="ra")
        if now:
            draw.text((x_now, y), now, font=f, fill=rgb("open" if now != "x" else "muted"), anchor="ra")

    draw.line([x0, y + 19, x1, y + 19], fill=rgb("line"), width=1)
    for k, cid in enumerate(rs.category_ids):
        box = state.scores[k]
        now = "" if box is not None or state.is_over else (str(state.points(k)) if k in legal else "x")
        row(category_name(cid, "en", rs.name), "-" if box is None else str(box), now, filled=box is not None,
            marked=k == scored)
        if k == NUM_UPPER - 1 and rs.has_upper_bonus:
            row(text("upper_total"), f"{state.upper_total}/{rs.upper_bonus_threshold}")
            row(text("upper_bonus"), str(state.upper_bonus), filled=state.upper_bonus > 0)
    if rs.five_kind_bonus:
        bonus = state.bonus_count * rs.five_kind_bonus
        row(text("yahtzee_bonus"), str(bonus), filled=bonus > 0)
    draw.line([x0, y + _ROW - 2, x1, y + _ROW - 2], fill=rgb("ink"), width=1)
    row("Total", str(state.total), bold=True)


def draw_frame(state: GameState, last: LastAction | None = None) -> np.ndarray:
    """The position ``state`` (reached by ``last``, or a fresh roll) as a (480, 640, 3) uint8 RGB array."""
    check_pillow()
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (WIDTH, HEIGHT), rgb("paper"))
    draw = ImageDraw.Draw(img)
    draw.rectangle([_CARD_X - 6, 6, WIDTH - 4, HEIGHT - 6], fill=rgb("panel"))
    _draw_left(draw, state, last)
    _draw_card(draw, state, last)
    return np.asarray(img, dtype=np.uint8).copy()
