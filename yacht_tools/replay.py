"""One game of an agent, turn by turn, with the optimal action and the regret of each decision.

The game with seed ``S`` is the game ``YachtEnv(rules).reset(seed=S)`` plays: the replay drives that environment.
The agent is loaded with :func:`yacht_agents.loader.as_agent` and seeded with ``S`` too. Where the exact solver
covers the rules, every decision also records the optimal action, the expected final score of the chosen and of the best
action (``Solution.action_values``) and the regret, their difference (0 for the optimal agent).

:func:`replay_game` returns the record as a dict (what ``--format json`` prints); :func:`format_replay` renders it
as text in a language of :data:`yacht_env.i18n.LANGUAGES`, :func:`yacht_tools.replay_page.page_html` as the page of
``--format html``. A game of several players from ``yacht tournament``: :mod:`yacht_tools.multiplayer_replay`.
"""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np

from yacht_agents.base import Agent
from yacht_agents.loader import as_agent, check_seats
from yacht_env import dice as D
from yacht_env.actions import NUM_KEEP_ACTIONS
from yacht_env.env import YachtEnv
from yacht_env.i18n import category_name, check_lang
from yacht_env.render import action_command, action_label, render_scorecard
from yacht_env.rules import RuleSet, get_rules
from yacht_env.state import GameState, scorecard
from yacht_solver import solution_or_none
from yacht_tools.coach import Coach, replay_line
from yacht_tools.messages import fmt, points_text, regret_text, shown, text
from yacht_tools.seeds import check_seed

FORMATS = ("text", "json", "html")


def _agent_action(agent: Agent, obs: np.ndarray, mask: np.ndarray, state: GameState) -> int:
    a = agent.act(obs, mask, state if agent.needs_state else None)
    if isinstance(a, np.ndarray):
        a = a.reshape(())[()]
    if isinstance(a, (bool, np.bool_)) or not isinstance(a, (int, np.integer)) or not 0 <= a < mask.size or not mask[a]:
        raise ValueError(f"agent {agent.name!r} played illegal action {a!r} in state {state}")
    return int(a)


def decision_record(state: GameState, action: int, sol: Any) -> dict[str, Any]:
    """One decision of a replay: the position (``state`` in :meth:`GameState.notation`, ``dice``, ``roll``,
    ``rolls_left``), the ``action`` and its ``move``; with the solver ``sol`` (else ``None``) the expected final score
    after it (``value``), the optimal action (``best_action``, ``best_move``, ``best_value``), the ``regret`` and
    ``action_values``: ``[action, value]`` for every legal action, by action."""
    dec: dict[str, Any] = {"roll": 3 - state.rolls_left, "state": state.notation(), "dice": list(state.dice),
                           "rolls_left": state.rolls_left, "action": action, "move": action_command(action, state),
                           "value": None, "best_action": None, "best_move": None, "best_value": None, "regret": None,
                           "action_values": None}
    if sol is not None:
        values = sol.action_values(state)
        best = int(sol.best_action(state))
        chosen = float(values[action])
        dec.update(value=chosen, best_action=best, best_move=action_command(best, state),
                   best_value=float(values[best]), regret=max(0.0, float(values[best]) - chosen),
                   action_values=[[int(k), float(v)] for k, v in enumerate(values) if not np.isnan(v)])
    return dec


def replay_game(agent: Agent | str, rules: str | RuleSet = "yacht", seed: int = 0, *, lang: str = "en",
                regret: bool = True, solution: Any = None, coach: Coach | None = None) -> dict[str, Any]:
    """Play one game of ``agent`` (an :class:`Agent` or a :func:`load_agent` spec) with seed ``seed`` and return
    its record.

    The record: ``rules``, ``agent``, ``seed``, ``final_score``, ``optimal_value`` (the solver's expected score of a
    new game, ``None`` without solver), ``regret`` (summed over the game), ``scorecard`` and ``turns``. Each turn
    has ``turn`` (1-based), ``rolls`` (the sorted dice after each roll), ``kept`` (the faces kept before each
    reroll), ``category`` (id), ``category_name`` (in ``lang``), ``box``, ``points`` (box plus any bonus it
    earned; the points of all turns add up to ``final_score``), ``total`` (after the turn), ``regret`` (summed
    over its decisions) and ``decisions``: one per action (:func:`decision_record`) with ``roll`` (1..3),
    ``state`` (notation), ``dice``, ``rolls_left``, ``action`` (index in ``Discrete(32 + C)``), ``move`` (as a
    ``yacht play`` command), ``value`` (expected final score after it), ``best_action``, ``best_move``,
    ``best_value``, ``regret`` and ``action_values`` (every legal action's value). Without the solver (or with
    ``regret=False``) the values and regrets are ``None``.
    """
    rs = get_rules(rules)
    lang = check_lang(lang)
    seed = check_seed(seed)
    check_seats(agent, 1)  # optimal-duel refused before its table is loaded or solved
    agent = as_agent(agent, rs, seed)
    sol = (solution if solution is not None else solution_or_none(rs)) if regret else None

    env = YachtEnv(rs.name)
    obs, _ = env.reset(seed=seed)
    turns: list[dict[str, Any]] = []
    turn: dict[str, Any] | None = None
    total_regret: float | None = 0.0 if sol is not None else None
    while True:
        state = env.state
        assert state is not None
        if turn is None:
            turn = {"turn": state.turn + 1, "rolls": [list(state.dice)], "kept": [], "decisions": []}
        mask = env.action_masks()
        a = _agent_action(agent, obs, mask, state)
        dec = decision_record(state, a, sol)
        if coach is not None:  # the objective's probabilities (yacht_tools.coach)
            dec["coach"] = coach.decision(state, a)
        turn["decisions"].append(dec)
        obs, reward, terminated, _, _ = env.step(a)
        if a < NUM_KEEP_ACTIONS:
            turn["kept"].append(list(D.pattern_faces(state.dice, a)))
            turn["rolls"].append(list(env.state.dice))
            continue
        k = a - NUM_KEEP_ACTIONS
        cid = rs.category_ids[k]
        regrets = [d["regret"] for d in turn["decisions"]]
        turn_regret = sum(regrets) if sol is not None else None
        if total_regret is not None and turn_regret is not None:
            total_regret += turn_regret
        # the box as written on the card: the next state's box (the dice of the next turn are already rolled)
        turn.update(category=cid, category_name=category_name(cid, lang, rs.name), box=env.state.scores[k],
                    points=int(reward), total=env.state.total, regret=turn_regret)
        turns.append(turn)
        turn = None
        if terminated:
            break
    final = env.state
    return {
        "rules": rs.name,
        "agent": agent.name,
        "seed": seed,
        "lang": lang,
        "final_score": final.total,
        "optimal_value": float(sol.start_value) if sol is not None else None,
        "regret": total_regret,
        "scorecard": scorecard(final),
        "final_state": final.to_dict(),
        "turns": turns,
    }


_NUMBER_LIST = re.compile(r"\[\s*([-\d.eE+]+(?:,\s*[-\d.eE+]+)*)\s*\]")


def to_json(record: dict[str, Any]) -> str:
    """The record as indented JSON, with lists of numbers (dice) kept on one line."""
    return _NUMBER_LIST.sub(lambda m: "[" + ", ".join(x.strip() for x in m.group(1).split(",")) + "]",
                            json.dumps(record, indent=2))


def legend_lines(lang: str, regret: bool, coach: bool = False, multiplayer: bool = False) -> list[str]:
    """What the numbers of a text replay are, once above its first line: the points and total of a score, and
    (``regret``) the bracketed optimal move, expected final score and regret; (``coach``) the braced probabilities.
    ``multiplayer``: the brackets of a tournament game's replay (no expected score)."""
    out = [text("replay_legend", lang)]
    if regret:
        words = {"best": text("best", lang), "regret": text("regret", lang)}
        out.append(fmt("multi_legend_best", lang, **words) if multiplayer else fmt("replay_legend_best", lang, **words))
    if coach:
        out.append(fmt("replay_legend_coach", lang))
    return out


def format_replay(record: dict[str, Any], lang: str | None = None) -> str:
    """The record of :func:`replay_game` as text: each roll, each decision (with the optimal one and the regret
    where known), each score with the running total, then the final scorecard."""
    lang = check_lang(lang or record.get("lang", "en"))
    rs = get_rules(record["rules"])
    final = GameState.from_dict(record["final_state"])
    lines = [f"{rs.title} - {text('agent', lang)}: {shown(record['agent'])} - {text('seed', lang)}: {record['seed']}"]
    decisions = [d for t in record["turns"] for d in t["decisions"]]
    lines += legend_lines(lang, regret=any(d["regret"] is not None for d in decisions),
                          coach=any(d.get("coach") for d in decisions))
    for t in record["turns"]:
        lines.append(f"{text('turn', lang)} {t['turn']}/{rs.num_categories}")
        for d in t["decisions"]:
            move = action_label(d["action"], d["dice"], rs, lang)
            head = f"  {text('roll', lang)} {d['roll']}: {' '.join(map(str, d['dice']))}   -> {move}"
            if d["action"] >= NUM_KEEP_ACTIONS:
                head += f" = {t['points']}   {text('total', lang)} {t['total']}"
            if d["regret"] is not None:
                if d["action"] == d["best_action"]:
                    head += f"   [{text('best', lang)} ({points_text(d['best_value'])})]"
                else:
                    best = action_label(d["best_action"], d["dice"], rs, lang)
                    head += (f"   [{text('best', lang)}: {best} ({points_text(d['best_value'])}); "
                             f"{text('regret', lang)} {regret_text(d['regret'])}]")
            if d.get("coach"):
                head += replay_line(d["coach"], d["dice"], rs, lang)
            lines.append(head)
    lines.append("")
    lines.append(render_scorecard(final, lang))
    lines.append(f"{text('final_score', lang)}: {record['final_score']}")
    if record.get("optimal_value") is not None:
        lines.append(f"{text('optimal_value', lang)}: {points_text(record['optimal_value'])}")
    if record.get("regret") is not None:
        lines.append(f"{text('regret_total', lang)}: {regret_text(record['regret'])}")
    return "\n".join(lines)
