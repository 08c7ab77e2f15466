"""A person plays Yacht or Yahtzee in the terminal, alone or against an agent.

    yacht play --rules yacht [--seed N] [--hint] [--vs optimal|greedy|random|MODEL] [--lang xx]

Before each decision it shows the dice, the rolls left and the scorecard, with a menu number for every category
and the points each open category would add now. Commands (also listed by ``help``):

- ``keep <faces>`` (``k``): keep those dice and reroll the others, e.g. ``keep 5 5 6``, ``k 556``; ``keep`` alone
  rerolls all five, and says so;
- ``score <category>`` (``s``): fill a category, given by its menu number, its id (``full_house``) or its name in
  the chosen language or in English (a unique prefix is enough: ``s full``); a 0 where another box would score
  more is asked about first (``[y/N]``), unless ``--no-confirm``;
- ``hint``: the solver's optimal move and its expected final score (shown before every decision with ``--hint``);
- ``show``, ``help``, ``quit`` (``q``; Ctrl-D too).

Bad input (an unknown command, faces not among the dice, a filled or Joker-forbidden category, a keep with no
rolls left, keeping all five dice) gets a message naming what is accepted, and the prompt again: the game in
progress is never lost. With ``--seed`` the dice are those of ``YachtEnv(rules).reset(seed=N)`` (alone); with
``--vs`` the two players draw from one generator in turn, as in :mod:`yacht_env.multiplayer`, the person first.
The game ends with the final scorecard(s), the total and, against an agent, the winner or a tie; exit status 0.
"""

from __future__ import annotations

import sys
import unicodedata
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from gymnasium.utils import seeding

from yacht_agents.base import Agent
from yacht_env import dice as D
from yacht_env import multiplayer as MP
from yacht_env.actions import NUM_KEEP_ACTIONS
from yacht_env.i18n import CATEGORY_NAMES, category_aliases, category_name, check_lang
from yacht_env.render import action_command, action_label, render_board, render_scorecard, verdict
from yacht_env.rules import RuleSet, get_rules
from yacht_env.state import GameState, unrolled_game
from yacht_solver import Solution, solve
from yacht_tools.coach import Coach
from yacht_tools.games import Seating, play_seatings
from yacht_tools.messages import cut, fmt, shown, text
from yacht_tools.seeds import check_seed

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
            raise InputError(fmt("bad_face", lang, token=cut(tok)))
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
                 CATEGORY_NAMES[lang].get(cid, ""), CATEGORY_NAMES["en"].get(cid, ""), *category_aliases(cid, lang)}
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
    unknown = fmt("unknown_category", lang, name=cut(spec), n=n, open=_open_menu(state, lang))
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
            raise InputError(fmt("ambiguous_category", lang, name=cut(spec), options=_menu(state, hits, lang)))
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
                raise InputError(fmt("bad_faces", lang, faces=cut(" ".join(map(str, faces))),
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
    raise InputError(fmt("unknown_command", lang, cmd=cut(tokens[0])) + " " + text("accepted", lang))


# ---- showing the game -------------------------------------------------------------------------------------------


def result_lines(states: Sequence[GameState], names: Sequence[str], lang: str = "en") -> list[str]:
    """The end of the game: the final scorecard(s), the total and, with several players, the winner or a tie."""
    rs = states[0].ruleset
    if len(states) == 1:
        return [f"{rs.title} - {text('game_over', lang)}", render_scorecard(states[0], lang),
                f"{text('final_score', lang)}: {states[0].total}"]
    return [render_board(states, names, lang, seat=None, with_verdict=False), verdict(states, names, lang)]


def hint_line(state: GameState, solution: Solution, lang: str = "en") -> str:
    """The optimal move for ``state`` in words of ``lang`` and, where the words differ, as the command to type
    (``hoia 5 5 (keep 5 5)``), with its expected final score."""
    values = solution.action_values(state)
    best = int(solution.best_action(state))
    words, command = action_label(best, state.dice, state.ruleset, lang), action_command(best, state)
    move = words if words.casefold() == command.casefold() else f"{words} ({command})"
    return fmt("hint", lang, action=move, value=f"{float(values[best]):.2f}")


def zero_question(state: GameState, k: int, lang: str = "en") -> str | None:
    """The question to ask before scoring box ``k``: None unless it scores 0 now while another box that may be
    scored would score more (the question names the best of them)."""
    if state.points(k) != 0:
        return None
    others = [j for j in state.legal_categories() if j != k]
    best = max(others, key=lambda j: (state.points(j), -j), default=None)  # the first of the best
    if best is None or state.points(best) <= 0:
        return None
    ids, rules = state.ruleset.category_ids, state.rules
    return fmt("confirm_zero", lang, category=category_name(ids[k], lang, rules),
               better=category_name(ids[best], lang, rules), points=state.points(best))


# ---- the game ---------------------------------------------------------------------------------------------------


class _Quit(Exception):
    """The person quit (``quit`` or the end of input)."""


class HumanPlayer(Agent):
    """The person at the terminal, as a player of the game loop (:mod:`yacht_tools.games`): shown the whole seating
    before each decision, it reads commands until one is a move."""

    name = "you"
    wants_seating = True
    batched = False

    def __init__(self, rules: RuleSet, names: Sequence[str], lang: str, hint: bool, read: Callable[[str], str],
                 write: Callable[[str], None], confirm: bool = False) -> None:
        super().__init__(rules)
        self.names, self.lang, self.hint, self.read, self.write = list(names), lang, hint, read, write
        self.confirm = confirm  # ask before a 0 in a box where another box would score more
        self.solution: Solution | None = None
        self.coach: Coach | None = None  # the hint speaks of this objective (yacht_tools.coach) when set

    def _hint(self, states: Sequence[GameState], seat: int) -> str:
        if self.coach is not None:
            return self.coach.hint(states, seat)
        return hint_line(states[seat], self._solution(), self.lang)

    def _solution(self) -> Solution:
        self.solution = self.solution or solve(self.rules)
        return self.solution

    def act_seated(self, states: Sequence[GameState], seat: int, mask: np.ndarray) -> int:
        st, lang, write = states[seat], self.lang, self.write
        if len(states) > 1 and st.rolls_left == 2:
            write(text("your_turn", lang))
        write(render_board(states, self.names, lang, seat=seat, menu=True))
        if self.hint:
            write(self._hint(states, seat))
        while True:
            try:
                line = self.read(PROMPT)
            except EOFError:
                write("")
                raise _Quit from None
            try:
                cmd, arg = parse_command(line, st, lang)
            except InputError as e:
                write(str(e))
                continue
            if cmd == "quit":
                raise _Quit
            if cmd == "help":
                write(text("help", lang))
            elif cmd == "show":
                write(render_board(states, self.names, lang, seat=seat, menu=True))
            elif cmd == "hint":
                try:
                    write(self._hint(states, seat))
                except ValueError as e:
                    write(str(e))
            elif cmd == "keep":
                if not arg:
                    write(text("keep_none", lang))
                return D.pattern_for_faces(st.dice, arg)
            elif cmd == "score":
                question = zero_question(st, int(arg), lang) if self.confirm else None
                if question is not None:
                    try:
                        sure = self.read(question).strip().casefold() in ("y", "yes")
                    except EOFError:
                        write("")
                        raise _Quit from None
                    if not sure:
                        write(text("not_scored", lang))
                        continue
                return NUM_KEEP_ACTIONS + int(arg)


def play_game(rules: str | RuleSet = "yacht", seed: int = 0, *, lang: str = "en", hint: bool = False,
              opponent: Agent | None = None, read: Callable[[str], str] | None = None,
              write: Callable[[str], None] | None = None, coach: Coach | None = None,
              confirm: bool = False) -> dict[str, Any]:
    """Play one game with a person reading commands through ``read(prompt)`` (default :func:`input`) and showing
    text through ``write(text)`` (default: print and flush). ``confirm``: ask before a 0 in a box where another
    would score more (``yacht play`` does, unless ``--no-confirm``). Returns ``{"finished", "totals", "states",
    "names"}``; ``finished`` is False when the player quit (``quit`` or end of input)."""
    rs = get_rules(rules)
    lang = check_lang(lang)
    read = read or _read_line
    write = write or _write
    rng, _ = seeding.np_random(check_seed(seed))  # the generator YachtEnv.reset(seed=seed) installs
    if opponent is not None and opponent.rules.name != rs.name:
        raise ValueError(f"opponent {opponent.name!r} plays rules {opponent.rules.name!r}, not {rs.name!r}")
    n = 1 if opponent is None else 2
    you = text("you", lang)
    other = shown(opponent.name, 60) if opponent is not None else ""  # named after a file: escape codes shown
    names = [you] if opponent is None else [you, other if other != you else f"{other} 2"]
    human = HumanPlayer(rs, names, lang, hint, read, write, confirm=confirm)
    human.coach = coach
    seating = Seating(MP.deal_turn(tuple(unrolled_game(rs) for _ in range(n)), rng), rng)  # as multiplayer.new_seating

    def show_move(i: int, seat: int, st: GameState, a: int) -> None:
        if a >= NUM_KEEP_ACTIONS:
            k = a - NUM_KEEP_ACTIONS
            pts = st.points(k)
        if seat == 0:
            if a >= NUM_KEEP_ACTIONS:
                cname = category_name(rs.category_ids[k], lang, rs.name)
                write(fmt("scored", lang, who=you, points=pts, category=cname, total=st.total + pts))
            return
        if st.rolls_left == 2:
            write(f"{fmt('turn_of', lang, who=names[1])} ({st.turn + 1}/{rs.num_categories})")
        line = (f"  {text('roll', lang)} {3 - st.rolls_left}: {' '.join(map(str, st.dice))}   -> "
                f"{action_label(a, st.dice, rs, lang)}")
        write(line if a < NUM_KEEP_ACTIONS else f"{line} = {pts}   {text('total', lang)} {st.total + pts}")

    def done(finished: bool) -> dict[str, Any]:
        return {"finished": finished, "totals": [s.total for s in seating.states], "states": list(seating.states),
                "names": names}

    try:
        play_seatings([seating], lambda i, seat: human if seat == 0 else opponent, on_decision=show_move)
    except _Quit:
        write(text("bye", lang))
        return done(False)
    for line in result_lines(seating.states, names, lang):
        write(line)
    return done(True)


def _read_line(prompt: str) -> str:
    sys.stdout.flush()
    return input(prompt)


def _write(s: str) -> None:
    print(s, flush=True)
