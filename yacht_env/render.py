"""Text rendering of a game state: the dice and the scorecard."""

from __future__ import annotations

from yacht_env.i18n import category_name, text
from yacht_env.rules import NUM_UPPER
from yacht_env.state import GameState


def render_dice(state: GameState) -> str:
    return " ".join(f"[{d}]" for d in state.dice)


def render_scorecard(state: GameState, lang: str = "en") -> str:
    """The scorecard as aligned text: every box (``-`` while open), bonuses and the total."""
    rs = state.ruleset
    names = [category_name(c, lang, rs.name) for c in rs.category_ids]
    width = max(len(n) for n in names + [text("total", lang), text("upper_bonus", lang)]) + 2
    lines = []
    for i, (name, s) in enumerate(zip(names, state.scores)):
        lines.append(f"  {name:<{width}}{'-' if s is None else s:>4}")
        if i == NUM_UPPER - 1 and rs.has_upper_bonus:
            lines.append(f"  {text('upper_total', lang):<{width}}{state.upper_total:>4} / {rs.upper_bonus_threshold}")
            lines.append(f"  {text('upper_bonus', lang):<{width}}{state.upper_bonus:>4}")
    if rs.five_kind_bonus:
        lines.append(f"  {text('yahtzee_bonus', lang):<{width}}{state.bonus_count * rs.five_kind_bonus:>4}")
    lines.append(f"  {text('total', lang):<{width}}{state.total:>4}")
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
