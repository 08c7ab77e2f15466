"""Text rendering of a game state: the dice and the scorecard."""

from __future__ import annotations

from yacht_env.i18n import category_name, display_width, pad, text
from yacht_env.rules import NUM_UPPER
from yacht_env.state import GameState


def render_dice(state: GameState) -> str:
    return " ".join(f"[{d}]" for d in state.dice)


def render_scorecard(state: GameState, lang: str = "en") -> str:
    """The scorecard as aligned text: every box (``-`` while open), bonuses and the total."""
    rs = state.ruleset
    names = [category_name(c, lang, rs.name) for c in rs.category_ids]
    labels = names + [text("total", lang)]
    if rs.has_upper_bonus:
        labels += [text("upper_total", lang), text("upper_bonus", lang)]
    if rs.five_kind_bonus:
        labels.append(text("yahtzee_bonus", lang))
    width = max(display_width(n) for n in labels) + 2  # display columns, so Telugu lines up too
    lines = []
    for i, (name, s) in enumerate(zip(names, state.scores)):
        lines.append(f"  {pad(name, width)}{'-' if s is None else s:>4}")
        if i == NUM_UPPER - 1 and rs.has_upper_bonus:
            upper = f"{state.upper_total:>4} / {rs.upper_bonus_threshold}"
            lines.append(f"  {pad(text('upper_total', lang), width)}{upper}")
            lines.append(f"  {pad(text('upper_bonus', lang), width)}{state.upper_bonus:>4}")
    if rs.five_kind_bonus:
        lines.append(f"  {pad(text('yahtzee_bonus', lang), width)}{state.bonus_count * rs.five_kind_bonus:>4}")
    lines.append(f"  {pad(text('total', lang), width)}{state.total:>4}")
    return "\n".join(lines)


def render_text(state: GameState, lang: str = "en") -> str:
    """Dice, rolls left, turn and scorecard."""
    rs = state.ruleset
    if state.is_over:
        head = f"{rs.title} - {text('game_over', lang)}"
    else:
        head = (f"{rs.title} - {text('turn', lang)} {state.turn + 1}/{rs.num_categories}   "
                f"{text('dice', lang)}: {render_dice(state)}   {text('rolls_left', lang)}: {state.rolls_left}")
    return head + "\n" + render_scorecard(state, lang)
