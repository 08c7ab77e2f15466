"""``yacht play``: a person plays Yacht or Yahtzee in the terminal, alone or against an agent.

    yacht play --rules yacht [--seed N] [--hint] [--vs optimal|greedy|random|MODEL] [--lang xx]

Before each decision it shows the dice, the rolls left and the scorecard, with a menu number for every category
and the points each open category would add now. Commands (also listed by ``help``):

- ``keep <faces>`` (``k``): keep those dice and reroll the others, e.g. ``keep 5 5 6``, ``k 556``; ``keep`` alone
  rerolls all five;
- ``score <category>`` (``s``): fill a category, given by its menu number, its id (``full_house``) or its name in
  the chosen language or in English (a unique prefix is enough: ``s full``);
- ``hint``: the solver's optimal move and its expected final score (shown before every decision with ``--hint``);
- ``show``, ``help``, ``quit`` (``q``; Ctrl-D too).

Bad input (an unknown command, faces not among the dice, a filled or Joker-forbidden category, a keep with no
rolls left, keeping all five dice) gets a message naming what is accepted, and the prompt again: the game in
progress is never lost. With ``--seed`` the dice are those of ``YachtEnv(rules).reset(seed=N)`` (alone); with
``--vs`` the two players draw from one generator in turn, as in :mod:`yacht_env.multiplayer`, the person first.
The game ends with the final scorecard(s), the total and, against an agent, the winner or a tie; exit status 0.
"""

from __future__ import annotations

import argparse
import secrets
import sys
import unicodedata
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from agents.base import Agent
from agents.replay import action_command, action_label, check_seed
from yacht_env import observation as O
from yacht_env.actions import NUM_KEEP_ACTIONS, action_mask
from yacht_env.i18n import (
    CATEGORY_NAMES,
    LANGUAGES,
    category_aliases,
    category_name,
    check_lang,
    display_width,
    fmt,
    pad,
    text,
)
from yacht_env.render import render_dice, render_scorecard
from yacht_env.rules import NUM_UPPER, RULESETS, RuleSet, get_rules
from yacht_env.state import GameState, new_game, reroll, reroll_pattern, score_category

PROMPT = "yacht> "
KEEP_WORDS = ("keep", "k", "hold")
SCORE_WORDS = ("score", "s")
HELP_WORDS = ("help", "h", "?")
QUIT_WORDS = ("quit", "q", "exit")
SHOW_WORDS = ("show", "card")
HINT_WORDS = ("hint",)


class InputError(ValueError):
    """A command the player typed cannot be carried out; the message says why and what is accepted."""


# ---- reading commands -------------------------------------------------------------------------------------------


def parse_faces(tokens: Sequence[str], lang: str = "en") -> list[int]:
    """Die faces from tokens such as ``5 5 6``, ``5,5,6`` or ``556``; ``InputError`` for anything else."""
    faces: list[int] = []
    for tok in " ".join(tokens).replace(",", " ").split():
        if not tok.isdigit() or not tok.isascii() or any(ch not in "123456" for ch in tok):
            raise InputError(fmt("bad_face", lang, token=tok))
        faces.extend(int(ch) for ch in tok)
    return faces


def _norm(name: str) -> str:
    """A name folded for matching: case, Greek/Latin accents, spaces and punctuation ignored."""
    s = unicodedata.normalize("NFD", name.casefold())
    s = "".join(ch for ch in s if not 0x300 <= ord(ch) <= 0x36F and ch not in " _-!.'()")
    return unicodedata.normalize("NFC", s)


def _menu(state: GameState, indices: Sequence[int], lang: str) -> str:
    ids = state.ruleset.category_ids
    return ", ".join(f"{k + 1} {category_name(ids[k], lang, state.rules)}" for k in indices)


def _open_menu(state: GameState, lang: str) -> str:
    return _menu(state, [k for k, s in enumerate(state.scores) if s is None], lang)


def category_names_for(rules: str | RuleSet, lang: str) -> dict[int, set[str]]:
    """Every name accepted for each category index: its id, its names in ``lang`` and in English, aliases."""
    rs = get_rules(rules)
    out: dict[int, set[str]] = {}
    for k, cid in enumerate(rs.category_ids):
        names = {cid, category_name(cid, lang, rs.name), category_name(cid, "en", rs.name),
                 CATEGORY_NAMES[lang].get(cid, ""), CATEGORY_NAMES["en"][cid], *category_aliases(cid, lang)}
        out[k] = {_norm(n) for n in names if n}
    return out


def resolve_category(spec: str, state: GameState, lang: str = "en") -> int:
    """The index of the category named by ``spec`` (menu number, id, name or unique prefix) that may be scored
    now; ``InputError`` naming the open categories otherwise."""
    rs = state.ruleset
    spec = spec.strip()
    if not spec:
        raise InputError(fmt("need_category", lang))
    n = rs.num_categories
    unknown = fmt("unknown_category", lang, name=spec, n=n, open=_open_menu(state, lang))
    if spec.isdigit():
        k = int(spec) - 1
        if not 0 <= k < n:
            raise InputError(unknown)
    else:
        key = _norm(spec)
        if not key:
            raise InputError(unknown)
        names = category_names_for(rs, lang)
        hits = [k for k, ns in names.items() if key in ns]
        if not hits:
            hits = [k for k, ns in names.items() if any(x.startswith(key) for x in ns)]
            if len(hits) > 1:  # prefer an open category when the prefix fits exactly one
                open_hits = [k for k in hits if state.scores[k] is None]
                hits = open_hits if len(open_hits) == 1 else hits
        if not hits:
            raise InputError(unknown)
        if len(hits) > 1:
            raise InputError(fmt("ambiguous_category", lang, name=spec, options=_menu(state, hits, lang)))
        k = hits[0]
    name = category_name(rs.category_ids[k], lang, rs.name)
    if state.scores[k] is not None:
        raise InputError(fmt("filled", lang, category=name, open=_open_menu(state, lang)))
    legal = state.legal_categories()
    if k not in legal:
        raise InputError(fmt("joker", lang, category=name, allowed=_menu(state, legal, lang)))
    return k


def parse_command(line: str, state: GameState, lang: str = "en") -> tuple[str, Any]:
    """Read one command line for ``state``: ``("keep", faces)``, ``("score", index)``, ``("help" | "quit" |
    "show" | "hint" | "none", None)``. ``InputError`` (with what is accepted) for anything that cannot be done."""
    tokens = line.split()
    if not tokens:
        return "none", None
    word, rest = tokens[0].casefold(), tokens[1:]
    if word in KEEP_WORDS:
        if state.rolls_left == 0:
            raise InputError(fmt("no_rolls", lang))
        faces = parse_faces(rest, lang)
        remaining = list(state.dice)
        for f in faces:
            if f not in remaining:
                raise InputError(fmt("bad_faces", lang, faces=" ".join(map(str, faces)),
                                     dice=" ".join(map(str, state.dice))))
            remaining.remove(f)
        if len(faces) == len(state.dice):
            raise InputError(fmt("keep_all", lang))
        return "keep", faces
    if word in SCORE_WORDS:
        return "score", resolve_category(" ".join(rest), state, lang)
    for name, words in (("help", HELP_WORDS), ("quit", QUIT_WORDS), ("show", SHOW_WORDS), ("hint", HINT_WORDS)):
        if word in words:
            return name, None
    raise InputError(fmt("unknown_command", lang, cmd=tokens[0]) + " " + text("accepted", lang))


# ---- showing the game -------------------------------------------------------------------------------------------


def render_board(states: Sequence[GameState], names: Sequence[str], lang: str = "en", seat: int | None = 0) -> str:
    """The dice and rolls left of ``states[seat]`` and every player's scorecard side by side, with a menu number
    per category and (for ``seat``) the points each open category would add now (``x``: forbidden by the Joker)."""
    st0 = states[0]
    rs = st0.ruleset
    C = rs.num_categories
    labels = [category_name(c, lang, rs.name) for c in rs.category_ids]
    extra = [text("total", lang)]
    if rs.has_upper_bonus:
        extra += [text("upper_total", lang), text("upper_bonus", lang)]
    if rs.five_kind_bonus:
        extra.append(text("yahtzee_bonus", lang))
    lw = max(display_width(x) for x in labels + extra + [text("category", lang)]) + 2
    heads = list(names) if len(states) > 1 else [text("score", lang)]
    cw = [max(6, display_width(h) + 2) for h in heads]
    show_now = seat is not None and not states[seat].is_over
    now_head = text("now", lang)
    nw = max(6, display_width(now_head) + 2)
    st = states[seat] if seat is not None else None
    legal = set(st.legal_categories()) if show_now and st is not None else set()

    def row(num: str, label: str, values: Sequence[Any], now: str = "") -> str:
        cells = "".join(pad(str(v), w, ">") for v, w in zip(values, cw))
        return (f"  {num:>3}  {pad(label, lw)}{cells}" + (pad(now, nw, ">") if show_now else "")).rstrip()

    lines = [row("#", text("category", lang), heads, now_head)]
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
    if st is not None and not st.is_over:
        head = (f"{rs.title} - {text('turn', lang)} {st.turn + 1}/{C}   {text('dice', lang)}: {render_dice(st)}   "
                f"{text('rolls_left', lang)}: {st.rolls_left}")
    else:
        head = f"{rs.title} - {text('game_over', lang)}"
    return head + "\n" + "\n".join(lines)


def result_lines(states: Sequence[GameState], names: Sequence[str], lang: str = "en") -> list[str]:
    """The end of the game: the final scorecard(s), the total and, with several players, the winner or a tie."""
    rs = states[0].ruleset
    if len(states) == 1:
        return [f"{rs.title} - {text('game_over', lang)}", render_scorecard(states[0], lang),
                f"{text('final_score', lang)}: {states[0].total}"]
    totals = [s.total for s in states]
    top = max(totals)
    best = [names[i] for i, t in enumerate(totals) if t == top]
    verdict = (fmt("winner", lang, who=best[0], total=top) if len(best) == 1
               else fmt("tie", lang, who=", ".join(best), total=top))
    return [render_board(states, names, lang, seat=None), verdict]


# ---- the game ---------------------------------------------------------------------------------------------------


def _load_solution(rs: RuleSet) -> Any:
    from agents.optimal import load_solution

    return load_solution(rs)


def hint_line(state: GameState, solution: Any, lang: str = "en") -> str:
    """The optimal move for ``state`` as a command, with its expected final score."""
    values = solution.action_values(state)
    best = int(solution.best_action(state))
    move = action_command(best, state)
    if best >= NUM_KEEP_ACTIONS:
        move += f" ({category_name(state.ruleset.category_ids[best - NUM_KEEP_ACTIONS], lang, state.rules)})"
    return fmt("hint", lang, action=move, value=f"{float(values[best]):.2f}")


def play_game(rules: str | RuleSet = "yacht", seed: int = 0, *, lang: str = "en", hint: bool = False,
              opponent: Agent | None = None, read: Callable[[str], str] | None = None,
              write: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Play one game with a person reading commands through ``read(prompt)`` (default :func:`input`) and showing
    text through ``write(text)`` (default: print and flush). Returns ``{"finished", "totals", "states",
    "names"}``; ``finished`` is False when the player quit (``quit`` or end of input)."""
    from gymnasium.utils import seeding

    rs = get_rules(rules)
    lang = check_lang(lang)
    read = read or _read_line
    write = write or _write
    rng, _ = seeding.np_random(check_seed(seed))  # the generator YachtEnv.reset(seed=seed) installs
    if opponent is not None and opponent.rules.name != rs.name:
        raise ValueError(f"opponent {opponent.name!r} plays rules {opponent.rules.name!r}, not {rs.name!r}")
    n = 1 if opponent is None else 2
    states: list[GameState] = [new_game(rs, rng) for _ in range(n)]  # seat order, as multiplayer.new_table
    you = text("you", lang)
    names = [you] if opponent is None else [you, opponent.name if opponent.name != you else f"{opponent.name} 2"]
    solution: Any = None
    show = True

    def finished(done: bool) -> dict[str, Any]:
        return {"finished": done, "totals": [s.total for s in states], "states": list(states), "names": names}

    while True:
        seat = min(range(n), key=lambda i: (states[i].turn, i))
        if states[seat].is_over:
            break
        if seat == 1:
            assert opponent is not None
            states[1] = _agent_turn(opponent, states[1], rng, names[1], lang, write)
            show = True
            continue
        st = states[0]
        if show:
            if opponent is not None and st.rolls_left == 2:
                write(text("your_turn", lang))
            write(render_board(states, names, lang, seat=0))
            if hint:
                solution = solution or _load_solution(rs)
                write(hint_line(st, solution, lang))
            show = False
        try:
            line = read(PROMPT)
        except EOFError:
            write("")
            write(text("bye", lang))
            return finished(False)
        try:
            cmd, arg = parse_command(line, st, lang)
        except InputError as e:
            write(str(e))
            continue
        if cmd == "quit":
            write(text("bye", lang))
            return finished(False)
        if cmd == "help":
            write(text("help", lang))
        elif cmd == "show":
            show = True
        elif cmd == "hint":
            try:
                solution = solution or _load_solution(rs)
            except ValueError as e:
                write(str(e))
                continue
            write(hint_line(st, solution, lang))
        elif cmd == "keep":
            states[0] = reroll(st, arg, rng)
            show = True
        elif cmd == "score":
            new, pts = score_category(st, arg, rng)
            states[0] = new
            cname = category_name(rs.category_ids[arg], lang, rs.name)
            write(fmt("scored", lang, who=you, points=pts, category=cname, total=new.total))
            show = True
    for line in result_lines(states, names, lang):
        write(line)
    return finished(True)


def _agent_turn(agent: Agent, state: GameState, rng: np.random.Generator, name: str, lang: str,
                write: Callable[[str], None]) -> GameState:
    """Let ``agent`` play one whole turn from ``state``, showing each of its decisions; return the new state."""
    rs = state.ruleset
    write(f"{fmt('turn_of', lang, who=name)} ({state.turn + 1}/{rs.num_categories})")
    while True:
        mask = action_mask(state)
        obs = O.encode(state) if getattr(agent, "needs_obs", True) else np.zeros(0, dtype=np.float32)
        a = agent.act(obs, mask, state if agent.needs_state else None)
        a = int(np.asarray(a).reshape(()))
        if not 0 <= a < mask.size or not mask[a]:
            raise ValueError(f"agent {agent.name!r} played illegal action {a} in state {state}")
        line = (f"  {text('roll', lang)} {3 - state.rolls_left}: {' '.join(map(str, state.dice))}   -> "
                f"{action_label(a, state.dice, rs, lang)}")
        if a < NUM_KEEP_ACTIONS:
            write(line)
            state = reroll_pattern(state, a, rng)
            continue
        state, pts = score_category(state, a - NUM_KEEP_ACTIONS, rng)
        write(f"{line} = {pts}   {text('total', lang)} {state.total}")
        return state


def _read_line(prompt: str) -> str:
    sys.stdout.flush()
    return input(prompt)


def _write(s: str) -> None:
    print(s, flush=True)


# ---- command line -----------------------------------------------------------------------------------------------


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``play`` sub-parser."""
    p = subparsers.add_parser(
        "play",
        help="play a game in the terminal",
        description="Play Yacht or Yahtzee in the terminal, alone or against an agent. Commands: keep <faces>, "
                    "score <category>, hint, show, help, quit.",
    )
    p.add_argument("--rules", default="yacht", help=f"rule set: {', '.join(RULESETS)} (default: yacht)")
    p.add_argument("--seed", default=None, help="fix the dice with this non-negative integer (default: random)")
    p.add_argument("--hint", action="store_true", help="show the optimal move and its expected value before each "
                                                       "decision (exact solver)")
    p.add_argument("--vs", metavar="AGENT", default=None,
                   help="play against an agent: optimal, greedy, random or a saved model (.zip / .pt)")
    p.add_argument("--lang", default="en", help=f"language: {', '.join(LANGUAGES)} (default: en)")
    return p


def run(args: argparse.Namespace) -> int:
    """Play the game. Bad options raise ``ValueError``; a finished or abandoned game returns 0."""
    from agents.loader import load_agent

    rules = get_rules(args.rules)
    lang = check_lang(args.lang)
    seed = secrets.randbelow(2**32) if args.seed is None else check_seed(args.seed)
    opponent = load_agent(args.vs, rules, seed) if args.vs is not None else None
    if args.hint:
        _load_solution(rules)  # fail now, with a clear message, if the solver does not cover the rules
    _write(f"{rules.title} - {text('seed', lang)}: {seed} - help, quit")
    try:
        play_game(rules, seed, lang=lang, hint=args.hint, opponent=opponent)
    except KeyboardInterrupt:
        _write("")
        _write(text("bye", lang))
        return 130
    return 0
