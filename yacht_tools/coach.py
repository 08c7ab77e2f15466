"""The coach: each choice's probability to reach a target, or to win, beside its expected final score.

``yacht play --hint --objective reach --target T`` and ``yacht play --hint --vs AGENT --objective win`` show, before
each decision, the best choices for the objective with their probabilities and the expected final score of each
(the exact expected-score solver); ``yacht replay --objective reach --target T`` adds to every decision the
probability of reaching T after the move played and after the best move for it. Reach probabilities are exact
(:mod:`yacht_solver.reach`); win probabilities are the estimate :class:`~yacht_agents.objectives.WinAgent`
plays by (the opponents' exact final-score distributions, the reach table beyond this turn); against
``optimal-duel`` in a game of two they are exact (objective ``duel``: :func:`yacht_solver.solve_duel`).

The text is in the language asked (:mod:`yacht_tools.messages`); a replay records the objective in English, as data.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from yacht_agents.duel_agent import check_two
from yacht_agents.objectives import WinAgent
from yacht_env.render import action_label
from yacht_env.rules import RuleSet, get_rules
from yacht_env.state import GameState
from yacht_solver import solve, solve_reach
from yacht_tools.messages import fmt, text

COACH_OBJECTIVES = ("reach", "win", "duel")
"""The objectives the coach speaks of (the points objective is the plain hint)."""
SHOWN = 3
"""Choices shown per hint."""


@dataclass(frozen=True)
class Choice:
    """One legal action: its probability for the objective and its expected final score."""

    action: int
    probability: float
    expected: float


class Coach:
    """Ranks the legal actions of a position by the objective (reach ``target``, or win), ties by expected score."""

    def __init__(self, rules: str | RuleSet, objective: str, target: int | None = None, lang: str = "en") -> None:
        self.rules = get_rules(rules)
        if objective not in COACH_OBJECTIVES:
            raise ValueError(f"the coach speaks of the objectives {', '.join(COACH_OBJECTIVES)}, got {objective!r}")
        if objective == "reach" and target is None:
            raise ValueError("the reach objective needs a target score (--target T)")
        self.objective, self.target, self.lang = objective, target, lang
        self.expected = solve(self.rules)
        self.reach = solve_reach(self.rules) if objective == "reach" else None
        self.win = WinAgent(self.rules) if objective == "win" else None
        if objective == "duel":
            from yacht_solver.duel import solve_duel

            self.duel = solve_duel(self.rules)

    def choices(self, states: Sequence[GameState], seat: int = 0) -> list[Choice]:
        """The legal actions of ``states[seat]``, best for the objective first."""
        st = states[seat]
        if self.reach is not None:
            probs = self.reach.action_probabilities(st, int(self.target))
        elif self.objective == "duel":
            check_two(states, "the exact win chance")
            probs = self.duel.action_win_probabilities(st, states[1 - seat])
        else:
            others = [s for i, s in enumerate(states) if i != seat]
            if not others:
                raise ValueError("the win objective needs an opponent (--vs AGENT)")
            probs = self.win.win_values(st, others)[0]
        expected = self.expected.action_values(st)
        legal = np.flatnonzero(np.isfinite(probs))
        order = sorted(legal, key=lambda a: (-round(float(probs[a]), 12), -float(expected[a]), int(a)))
        return [Choice(int(a), float(probs[a]), float(expected[a])) for a in order]

    def what(self, lang: str = "en") -> str:
        """What the probabilities are of, in ``lang``."""
        if self.objective == "reach":
            return fmt("reach_what", lang, target=self.target)
        if self.objective == "duel":
            return text("duel_what", lang)
        return text("win_what", lang)

    def hint(self, states: Sequence[GameState], seat: int = 0) -> str:
        """One line: the best few choices with their probabilities and expected final scores."""
        st, lang = states[seat], self.lang
        parts = [fmt("coach_choice", lang, action=action_label(c.action, st.dice, self.rules, lang),
                     probability=f"{c.probability:.4f}", value=f"{c.expected:.2f}")
                 for c in self.choices(states, seat)[:SHOWN]]
        return fmt("coach", lang, what=self.what(lang), choices="; ".join(parts))

    def decision(self, state: GameState, action: int) -> dict[str, Any]:
        """What a replay records of a decision: the probability after the move played and after the best move."""
        ranked = self.choices([state])
        chosen = next(c for c in ranked if c.action == action)
        best = ranked[0]
        return {"objective": self.what(), "probability": chosen.probability, "best_probability": best.probability,
                "best_action_for_objective": best.action,
                "probability_regret": max(0.0, best.probability - chosen.probability)}


def replay_line(record: dict[str, Any], dice: Sequence[int], rules: str | RuleSet, lang: str = "en") -> str:
    """The text a replay adds to a decision with :meth:`Coach.decision`'s record, in ``lang``."""
    reach = re.fullmatch(r"P\(final >= (\d+)\)", record["objective"])
    what = record["objective"]
    if reach:
        what = fmt("reach_what", lang, target=reach.group(1))
    elif what == "P(win), estimated":
        what = text("win_what", lang)
    elif what == "P(win), exact":
        what = text("duel_what", lang)
    line = fmt("coach_replay", lang, what=what, probability=f"{record['probability']:.4f}",
               action=action_label(record["best_action_for_objective"], dice, rules, lang),
               best=f"{record['best_probability']:.4f}")
    return f"   {{{line}}}"
