"""Evaluation on the reach objective: how often a policy ends with at least T points, against the best possible.

``evaluate_reach`` plays seeded games (the reference path, :func:`yacht_tools.evaluation.play_python`) and reports
the success rate with its 95% interval, P*(T) from the exact reach solver, the success rate in percent of P*(T), the
expected-score player's exact P(final >= T), and the regret of every decision in probability:
``max_a P*(reach | a) - P*(reach | chosen)``, by decision point, by turn and by box (:class:`RegretTally`). Summed
over a game it estimates what the policy's choices cost in probability of success.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from yacht_agents.loader import as_agent
from yacht_agents.objectives import check_target
from yacht_env.jit.stopwatch import Stopwatch
from yacht_env.rules import RuleSet, get_rules
from yacht_env.state import GameState
from yacht_solver import ReachSolution, score_distribution, solve_reach
from yacht_tools.evaluation import MAX_EPISODES, check_evaluation_memory, play_python
from yacht_tools.messages import shown
from yacht_tools.progress import progress_bar
from yacht_tools.regret import DECISIONS, RegretTally
from yacht_tools.report import write_json
from yacht_tools.seeds import check_episodes, check_seed
from yacht_tools.stats import wilson_interval

OBJECTIVES = ("points", "reach")


def check_objective(objective: Any, target: Any) -> int | None:
    """The target of ``--objective`` / ``--target`` (None for the points objective); ``ValueError`` naming what is
    wrong and what is accepted."""
    if objective not in OBJECTIVES:
        raise ValueError(f"--objective must be one of {', '.join(OBJECTIVES)}, got {objective!r}")
    if objective == "points":
        if target is not None:
            raise ValueError("--target goes with --objective reach")
        return None
    if target is None:
        raise ValueError("--objective reach needs --target T (the final score to reach)")
    return check_target(target, "--target")


class ReachValues:
    """The reach solver's action values for one target, in the shape the regret meter asks for them."""

    def __init__(self, reach: ReachSolution, target: int) -> None:
        self.reach = reach
        self.target = target

    def action_values(self, state: GameState, unique_keeps: bool = True) -> np.ndarray:
        """(32 + C,) probability to reach the target after each legal action (NaN where illegal)."""
        return self.reach.action_probabilities(state, self.target)


def evaluate_reach(agent: Any, rules: str | RuleSet, episodes: int, target: int, seed: int = 0, *,
                   regret: bool = True, progress: bool = False) -> dict[str, Any]:
    """Play ``episodes`` seeded games with ``agent`` (any :func:`~yacht_agents.loader.as_agent` policy) and report
    them on the objective "final score >= ``target``" (see the module docstring)."""
    rs = get_rules(rules)
    n = check_episodes(episodes)
    if n > MAX_EPISODES:
        raise ValueError(f"episodes must be at most {MAX_EPISODES:,}, got {n:,}")
    seed = check_seed(seed)
    target = check_target(target, "target")
    check_evaluation_memory(rs, n, regret=regret)
    plain = score_distribution(rs).at_least()  # first: one table in memory at a time (1.2 GB for Yahtzee)
    reach = solve_reach(rs)
    agent = as_agent(agent, rs, seed)
    tally = RegretTally(rs, n) if regret else None
    values = ReachValues(reach, int(target))
    with progress_bar(n, f"{shown(agent.name)} on {rs.name}", "game", enabled=progress) as bar, \
            Stopwatch() as sw:
        finals = play_python(agent, rs, seed, n, tally=tally, solution=values if regret else None, progress=bar)
    hits = int((finals.totals >= target).sum())
    best = reach.probability(int(target))
    lo, hi = wilson_interval(hits, n)
    result: dict[str, Any] = {
        "agent": agent.name, "rules": rs.name, "seed": seed, "episodes": n, "objective": "reach",
        "target": int(target), "successes": hits, "success_rate": hits / n, "success_rate_ci95": [lo, hi],
        "best_probability": best, "percent_of_best": 100.0 * hits / n / best if best > 0 else None,
        "expected_score_player_probability": float(plain[target]) if target < len(plain) else 0.0,
        "mean_score": float(finals.totals.mean()), "scores": finals.totals.tolist(),
    }
    if tally is not None:
        result["regret_unit"] = "probability of reaching the target"
        result.update(tally.summary())
    result["elapsed_s"] = sw.seconds
    return result


def format_reach_report(result: dict[str, Any]) -> str:
    """The readable report of :func:`evaluate_reach`."""
    title = get_rules(result["rules"]).title
    lo, hi = result["success_rate_ci95"]
    best = result["best_probability"]
    pct = result["percent_of_best"]
    lines = [
        f"{shown(result['agent'])} on {title}, {result['episodes']:,} games (seed {result['seed']}): objective final "
        f"score >= {result['target']}",
        f"  success rate        {result['success_rate']:.4f}  (95% interval {lo:.4f} .. {hi:.4f})",
        f"  best possible P*    {best:.4f}  (exact)" + (f"; the agent: {pct:.1f}% of it" if pct is not None else ""),
        f"  expected-score play {result['expected_score_player_probability']:.4f}  (exact P(final >= T))",
        f"  mean score          {result['mean_score']:.2f}",
    ]
    if "mean_regret" in result:
        by = result["regret_by_decision"]
        parts = ", ".join(f"{d} {by[d]:.5f}" for d in DECISIONS)
        lines.append(f"  regret in probability: {result['mean_regret']:.6f} per decision, "
                     f"{result['regret_per_game']:.5f} per game ({parts} per game)")
    lines.append(f"  played in {result['elapsed_s']:.1f} s")
    return "\n".join(lines)


def run_reach(agent: Any, rules: RuleSet, episodes: int, seed: int, target: int, *, regret: bool = True,
              progress: bool = False, json_path: Any = None) -> dict[str, Any]:
    """``yacht eval --objective reach``: evaluate, print the report, write the JSON file when asked."""
    result = evaluate_reach(agent, rules, episodes, target, seed, regret=regret, progress=progress)
    print(format_reach_report(result))
    if json_path is not None:
        write_json(result, json_path)
        print(f"wrote {shown(json_path)}")
    return result
