"""``yacht replay``: one game of an agent, turn by turn, with the optimal action and the regret of each decision.

    yacht replay --agent greedy --rules yacht --seed 7 [--lang ms] [--format text|json] [--no-regret]

The game with seed ``S`` is the game ``YachtEnv(rules).reset(seed=S)`` plays: the replay drives that environment.
The agent is loaded with :func:`agents.loader.load_agent` and seeded with ``S`` too. Where the exact solver covers
the rules, every decision also records the optimal action, the expected final score of the chosen and of the best
action (``Solution.action_values``) and the regret, their difference (0 for the optimal agent).

:func:`replay_game` returns the record as a dict (what ``--format json`` prints); :func:`format_replay` renders it
as text in a language of :data:`yacht_env.i18n.LANGUAGES`.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from agents.base import Agent
from agents.evaluation import check_seed
from yacht_env import dice as D
from yacht_env.actions import NUM_KEEP_ACTIONS
from yacht_env.i18n import LANGUAGES, category_name, check_lang, fmt, text
from yacht_env.rules import RULESETS, RuleSet, get_rules
from yacht_env.state import GameState

FORMATS = ("text", "json")


def solver_solution(rules: RuleSet) -> Any:
    """The solver's solution of ``rules``, or ``None`` where the solver is missing or does not cover them."""
    from agents.optimal import load_solution

    try:
        return load_solution(rules)
    except ValueError:
        return None


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


def _agent_action(agent: Agent, obs: np.ndarray, mask: np.ndarray, state: GameState) -> int:
    a = agent.act(obs, mask, state if agent.needs_state else None)
    if isinstance(a, np.ndarray):
        a = a.reshape(())[()]
    if isinstance(a, (bool, np.bool_)) or not isinstance(a, (int, np.integer)) or not 0 <= a < mask.size or not mask[a]:
        raise ValueError(f"agent {agent.name!r} played illegal action {a!r} in state {state}")
    return int(a)


def replay_game(agent: Agent | str, rules: str | RuleSet = "yacht", seed: int = 0, *, lang: str = "en",
                regret: bool = True, solution: Any = None) -> dict[str, Any]:
    """Play one game of ``agent`` (an :class:`Agent` or a :func:`load_agent` spec) with seed ``seed`` and return
    its record.

    The record: ``rules``, ``agent``, ``seed``, ``final_score``, ``optimal_value`` (the solver's expected score of a
    new game, ``None`` without solver), ``regret`` (summed over the game), ``scorecard`` and ``turns``. Each turn
    has ``turn`` (1-based), ``rolls`` (the sorted dice after each roll), ``kept`` (the faces kept before each
    reroll), ``category`` (id), ``category_name`` (in ``lang``), ``box``, ``points`` (box plus any bonus it
    earned; the points of all turns add up to ``final_score``), ``total`` (after the turn), ``regret`` (summed
    over its decisions) and ``decisions``: one per action with ``roll`` (1..3), ``dice``, ``rolls_left``,
    ``action`` (index in ``Discrete(32 + C)``), ``move`` (as a ``yacht play`` command), ``value`` (expected final
    score after it), ``best_action``, ``best_move``, ``best_value`` and ``regret``. Without the solver (or with
    ``regret=False``) the values and regrets are ``None``.
    """
    from agents.loader import load_agent
    from yacht_env.env import YachtEnv, scorecard

    rs = get_rules(rules)
    lang = check_lang(lang)
    seed = check_seed(seed)
    if isinstance(agent, str):
        agent = load_agent(agent, rs, seed)
    elif not isinstance(agent, Agent):
        raise ValueError(f"agent must be an Agent or an agent spec string, got {type(agent).__name__}")
    if agent.rules.name != rs.name:
        raise ValueError(f"agent {agent.name!r} plays rules {agent.rules.name!r}, not {rs.name!r}")
    sol = (solution if solution is not None else solver_solution(rs)) if regret else None

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
        dec: dict[str, Any] = {"roll": 3 - state.rolls_left, "dice": list(state.dice), "rolls_left": state.rolls_left,
                               "action": a, "move": action_command(a, state), "value": None, "best_action": None,
                               "best_move": None, "best_value": None, "regret": None}
        if sol is not None:
            values = sol.action_values(state)
            best = int(sol.best_action(state))
            chosen = float(values[a])
            dec.update(value=chosen, best_action=best, best_move=action_command(best, state),
                       best_value=float(values[best]), regret=max(0.0, float(values[best]) - chosen))
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


def _num(x: float) -> str:
    return f"{x:.2f}"


def format_replay(record: dict[str, Any], lang: str | None = None) -> str:
    """The record of :func:`replay_game` as text: each roll, each decision (with the optimal one and the regret
    where known), each score with the running total, then the final scorecard."""
    from yacht_env.render import render_scorecard

    lang = check_lang(lang or record.get("lang", "en"))
    rs = get_rules(record["rules"])
    final = GameState.from_dict(record["final_state"])
    lines = [f"{rs.title} - {text('agent', lang)}: {record['agent']} - {text('seed', lang)}: {record['seed']}"]
    for t in record["turns"]:
        lines.append(f"{text('turn', lang)} {t['turn']}/{rs.num_categories}")
        for d in t["decisions"]:
            move = action_label(d["action"], d["dice"], rs, lang)
            head = f"  {text('roll', lang)} {d['roll']}: {' '.join(map(str, d['dice']))}   -> {move}"
            if d["action"] >= NUM_KEEP_ACTIONS:
                head += f" = {t['points']}   {text('total', lang)} {t['total']}"
            if d["regret"] is not None:
                if d["action"] == d["best_action"]:
                    head += f"   [{text('best', lang)} ({_num(d['best_value'])})]"
                else:
                    best = action_label(d["best_action"], d["dice"], rs, lang)
                    head += (f"   [{text('best', lang)}: {best} ({_num(d['best_value'])}); "
                             f"{text('regret', lang)} {_num(d['regret'])}]")
            lines.append(head)
    lines.append("")
    lines.append(render_scorecard(final, lang))
    lines.append(f"{text('final_score', lang)}: {record['final_score']}")
    if record.get("optimal_value") is not None:
        lines.append(f"{text('optimal_value', lang)}: {_num(record['optimal_value'])}")
    if record.get("regret") is not None:
        lines.append(f"{text('regret_total', lang)}: {_num(record['regret'])}")
    return "\n".join(lines)


# ---- command line -----------------------------------------------------------------------------------------------


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``replay`` sub-parser."""
    p = subparsers.add_parser(
        "replay",
        help="show one game of an agent turn by turn",
        description="Play one seeded game with an agent and print it turn by turn: the dice after each roll, the "
                    "dice kept, the category and its points, the running total, the optimal action and the "
                    "expected points lost at each decision (exact solver), and the final scorecard.",
    )
    p.add_argument("--agent", default="optimal",
                   help="random, greedy, optimal, or a saved model (.zip / .pt) (default: optimal)")
    p.add_argument("--rules", default="yacht", help=f"rule set: {', '.join(RULESETS)} (default: yacht)")
    p.add_argument("--seed", default="0", help="seed of the game, as in YachtEnv.reset(seed=...) (default: 0)")
    p.add_argument("--lang", default="en", help=f"language: {', '.join(LANGUAGES)} (default: en)")
    p.add_argument("--format", default="text", choices=FORMATS, help="text or json (default: text)")
    p.add_argument("--no-regret", dest="regret", action="store_false",
                   help="skip the optimal actions and regrets (no solver)")
    return p


def run(args: argparse.Namespace) -> int:
    """Replay the game and print it. Bad input raises ``ValueError``."""
    from agents.loader import load_agent

    rules = get_rules(args.rules)
    lang = check_lang(args.lang)
    seed = check_seed(args.seed)
    agent = load_agent(args.agent, rules, seed)
    record = replay_game(agent, rules, seed, lang=lang, regret=args.regret)
    if args.format == "json":
        print(to_json(record))
    else:
        print(format_replay(record, lang))
    return 0
