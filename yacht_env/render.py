"""Text rendering of games: the dice, a scorecard, the scorecards of several players side by side, and moves in
words."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from gymnasium import logger

from yacht_env import dice as D
from yacht_env.actions import NUM_KEEP_ACTIONS
from yacht_env.i18n import category_name, display_width, fmt, pad, text
from yacht_env.rules import NUM_UPPER, RuleSet, get_rules
from yacht_env.state import GameState


def warn_no_render_mode(modes: Sequence[str]) -> None:
    """What ``render()`` does on an environment made without a ``render_mode``, as Gymnasium's own environments do:
    it warns (naming the modes that render) and renders nothing."""
    logger.warn("render() called without a render_mode (None): nothing is rendered; make the environment with "
                f"render_mode={' or '.join(map(repr, modes))} ('ansi' for the text)")


class LastAction(NamedTuple):
    """The action that led to a position, as a frame and the text show it."""

    action: int
    label: str  # in words: "keep 3 3 5", "reroll all", "score Full House"
    kept: tuple[int, ...] | None  # faces kept by a keep action, None for a score action
    total_before: int  # the total before it (a score action's points are the new total minus this)
    legal: bool  # False: the environment ignored it (non-strict illegal action)
    dice: tuple[int, ...] = ()  # the dice it was taken on (its label in another language is made from them)


def last_action(state: GameState, action: int, legal: bool = True) -> LastAction:
    """What a frame of the position after ``action`` in ``state`` says about that action."""
    a = int(action)
    kept = D.pattern_faces(state.dice, a) if a < NUM_KEEP_ACTIONS else None
    return LastAction(a, action_label(a, state.dice, state.ruleset), kept, state.total, bool(legal), state.dice)


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


def last_move_line(state: GameState, last: LastAction, lang: str = "en") -> str:
    """The move that led to ``state`` in words: the dice a keep kept (the others were rolled again), the box a score
    filled with the points it added, or that an illegal action was ignored."""
    line = f"{text('last_move', lang)}: {action_label(last.action, last.dice, state.ruleset, lang)}"
    if not last.legal:
        return f"{line} ({text('ignored', lang)})"
    if last.kept is None:
        return f"{line} (+{state.total - last.total_before})"
    return line


def render_text(state: GameState, lang: str = "en", last: LastAction | None = None) -> str:
    """Dice, rolls left, turn, the last move (``last``, when given) and scorecard."""
    rs = state.ruleset
    if state.is_over:
        head = f"{rs.title} - {text('game_over', lang)}"
    else:
        head = (f"{rs.title} - {text('turn', lang)} {state.turn + 1}/{rs.num_categories}   "
                f"{text('dice', lang)}: {render_dice(state)}   {text('rolls_left', lang)}: {state.rolls_left}")
    if last is not None:
        head += "\n" + last_move_line(state, last, lang)
    return head + "\n" + render_scorecard(state, lang)


def verdict(states: Sequence[GameState], names: Sequence[str], lang: str = "en") -> str:
    """The end of a game of several players: the winner, or the players sharing the highest total."""
    totals = [s.total for s in states]
    top = max(totals)
    best = [names[i] for i, t in enumerate(totals) if t == top]
    return (fmt("winner", lang, who=best[0], total=top) if len(best) == 1
            else fmt("tie", lang, who=", ".join(best), total=top))


def render_board(states: Sequence[GameState], names: Sequence[str] | None = None, lang: str = "en",
                 seat: int | None = None, menu: bool = False, with_verdict: bool = True) -> str:
    """Every player's scorecard side by side under a head line: the dice of ``seat`` (the player to act) while the
    game goes on, else the end of the game and, with several players (and ``with_verdict``), the winner or a tie.

    With several players the column of ``seat`` is marked ``*``. With ``menu`` each category gets its menu number
    and, for ``seat``, a column of the points each open category would add now (``x``: forbidden by the Joker)."""
    st0 = states[0]
    rs = st0.ruleset
    n = len(states)
    names = list(names) if names is not None else [f"player_{i}" for i in range(n)]
    labels = [category_name(c, lang, rs.name) for c in rs.category_ids]
    extra = [text("total", lang)]
    if rs.has_upper_bonus:
        extra += [text("upper_total", lang), text("upper_bonus", lang)]
    if rs.five_kind_bonus:
        extra.append(text("yahtzee_bonus", lang))
    lw = max(display_width(x) for x in labels + extra + [text("category", lang)]) + 2
    playing = seat is not None and not states[seat].is_over
    heads = [("*" if n > 1 and playing and i == seat else "") + names[i] for i in range(n)] if n > 1 else [
        text("score", lang)]
    cw = [max(6, display_width(h) + 2) for h in heads]
    show_now = menu and playing
    now_head = text("now", lang)
    nw = max(6, display_width(now_head) + 2)
    st = states[seat] if playing and seat is not None else None
    legal = set(st.legal_categories()) if show_now and st is not None else set()

    def row(num: str, label: str, values: Sequence[object], now: str = "") -> str:
        cells = "".join(pad(str(v), w, ">") for v, w in zip(values, cw))
        number = f"{num:>3}  " if menu else ""
        return (f"  {number}{pad(label, lw)}{cells}" + (pad(now, nw, ">") if show_now else "")).rstrip()

    lines = [row("#", text("category", lang) if menu else "", heads, now_head)]
    for k, label in enumerate(labels):
        now = ""
        if show_now and st is not None and st.scores[k] is None:
            now = str(st.points(k)) if k in legal else "x"
        lines.append(row(str(k + 1), label, ["-" if s.scores[k] is None else s.scores[k] for s in states], now))
        if k == NUM_UPPER - 1 and rs.has_upper_bonus:
            lines.append(row("", text("upper_total", lang), [f"{s.upper_total}/{rs.upper_bonus_threshold}"
                                                             for s in states]))
            lines.append(row("", text("upper_bonus", lang), [s.upper_bonus for s in states]))
    if rs.five_kind_bonus:
        lines.append(row("", text("yahtzee_bonus", lang), [s.bonus_count * rs.five_kind_bonus for s in states]))
    lines.append(row("", text("total", lang), [s.total for s in states]))
    players = f" - {fmt('players', lang, n=n)}" if n > 1 else ""
    if st is not None:
        who = f" - {names[seat]}" if n > 1 and seat is not None else ""
        head = (f"{rs.title}{players} - {text('turn', lang)} {st.turn + 1}/{rs.num_categories}{who}   "
                f"{text('dice', lang)}: {render_dice(st)}   {text('rolls_left', lang)}: {st.rolls_left}")
    else:
        head = f"{rs.title}{players} - {text('game_over', lang)}"
        if n > 1 and with_verdict and all(s.is_over for s in states):
            head += " - " + verdict(states, names, lang)
    return head + "\n" + "\n".join(lines)


# ---- moves in words ---------------------------------------------------------------------------------------------


def action_label(action: int, dice: Sequence[int], rules: str | RuleSet, lang: str = "en") -> str:
    """A decision with the sorted ``dice`` in words, in ``lang``: ``keep 3 3 5``, ``reroll all`` or
    ``score Full House``."""
    if action < NUM_KEEP_ACTIONS:
        kept = D.pattern_faces(tuple(sorted(dice)), action)
        if not kept:
            return text("act_reroll_all", lang)
        return fmt("act_keep", lang, dice=" ".join(map(str, kept)))
    rs = get_rules(rules)
    cid = rs.category_ids[action - NUM_KEEP_ACTIONS]
    return fmt("act_score", lang, category=category_name(cid, lang, rs.name))


def action_command(action: int, state: GameState) -> str:
    """A decision as the command ``yacht play`` accepts: ``keep 3 3 5``, ``keep`` or ``score full_house``."""
    if action < NUM_KEEP_ACTIONS:
        return " ".join(["keep", *map(str, D.pattern_faces(state.dice, action))])
    return "score " + state.ruleset.category_ids[action - NUM_KEEP_ACTIONS]
