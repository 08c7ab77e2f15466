"""How well an agent plays the game of two: its chance to win against exact play, and its win rate against others.

Against ``optimal-duel`` the chance to win is measured exactly up to the dice of the games played, not by counting
wins. With the other seat playing the two-player table's optimal policy, the agent's chance to win from any position
is the table's value minus what its own decisions give up: at each of its decisions the expected change of its
chance is minus that decision's win-regret (``max_a W(a) - W(chosen)``), and at the other seat's decisions and the
dice it is zero. So a game's *chance estimate* is ``W(start of its seat) - (sum of the agent's win-regrets in it)``,
whose mean over games is an unbiased estimate of the agent's chance to win, with far less spread than the win count
(a win is 0 or 1; the regret of a strong agent is a few hundredths). With seats alternating over an even number of
games the start values average to exactly 1/2 (the first mover's chance and the second's sum to 1, ties counting
half). Both numbers are reported: ``chance`` (the estimate, normal 95% interval) and ``win_rate`` (shares won,
Wilson's interval), which must agree within their intervals.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from yacht_agents.base import Agent
from yacht_agents.loader import load_agent
from yacht_env.rules import RuleSet, get_rules
from yacht_tools.progress import progress_bar
from yacht_tools.regret import RegretTally
from yacht_tools.seeds import agent_seed
from yacht_tools.stats import mean_interval
from yacht_tools.tournament import WinRegret, agent_stats, match_results, play_match


def as_agent(spec: Any, rules: str | RuleSet, seed: int = 0, slot: int = 0) -> Agent:
    """``spec`` as an agent: an :class:`Agent` as it is, else :func:`~yacht_agents.loader.load_agent`'s, seeded as
    ``yacht tournament`` seeds the agent in ``slot`` (the games reseed it per match anyway)."""
    rs = get_rules(rules)
    return spec if isinstance(spec, Agent) else load_agent(spec, rs.name, seed=agent_seed(seed, 1 << 32, slot))


def _win(totals: np.ndarray) -> dict[str, Any]:
    """The first agent's results in a match's ``totals`` (the tournament's figures for it)."""
    shares, results = match_results(totals)
    return agent_stats(shares[:, 0], results[:, 0], totals[:, 0])


def against(agent: Any, opponent: Any, rules: str | RuleSet, games: int, seed: int, progress: bool = False
            ) -> dict[str, Any]:
    """``agent``'s win rate against ``opponent`` (agents or specs) over ``games`` games of two with seats
    alternating (game ``g`` of :func:`yacht_tools.tournament.play_match`'s seeds)."""
    rs = get_rules(rules)
    players = [as_agent(agent, rs, seed, 0), as_agent(opponent, rs, seed, 1)]
    with progress_bar(games, "heads-up games", "game", enabled=progress, leave=False) as bar:
        totals = play_match(players, rs.name, games, seed, progress=bar)
    return _win(totals)


def chance_against_optimal_duel(agent: Any, rules: str | RuleSet, games: int, seed: int, progress: bool = False
                                ) -> dict[str, Any]:
    """``agent``'s chance to win against ``optimal-duel`` (module docstring): ``chance`` with ``chance_ci95``, the
    mean win-regret per decision (``mean_regret``) and per game, and the plain ``win_rate`` with its interval, over
    ``games`` games (an even number keeps the seats balanced)."""
    rs = get_rules(rules)
    players = [as_agent(agent, rs, seed, 0), as_agent("optimal-duel", rs, seed, 1)]
    mine = RegretTally(rs, games)
    regret = WinRegret(rs.name, [mine, None], [0, 0])
    with progress_bar(games, "games against optimal-duel", "game", enabled=progress, leave=False) as bar:
        totals = play_match(players, rs.name, games, seed, progress=bar, regret=regret)
    first = regret.duel.first_player_win
    start = np.where(np.arange(games) % 2 == 0, first, 1.0 - first)  # the agent sits first in even games
    chance, _, low, high = mean_interval(start - mine.per_game)
    summary = mine.summary()
    return {"chance": chance, "chance_ci95": [low, high], "mean_regret": summary["mean_regret"],
            "regret_per_game": summary["regret_per_game"], "decisions": summary["decisions"],
            "first_player_win": first, **_win(totals)}


def win_evaluation(agent: Any, rules: str | RuleSet, games: int, seed: int, progress: bool = False
                   ) -> dict[str, Any]:
    """A heads-up run's evaluation in the shape of :func:`yacht_tools.evaluation.evaluate`'s result: ``mean`` is
    the win rate against the expected-score player ``optimal`` (ties half) with its Wilson interval, and
    ``percent_of_optimal`` that rate in percent of an even share (1/2), so the run folder's curves read it as they
    read a one-player run's."""
    res = against(agent, "optimal", rules, games, seed, progress=progress)
    even = 0.5
    return {"mean": res["win_rate"], "ci95": res["win_rate_ci95"], "episodes": res["games"],
            "percent_of_optimal": 100.0 * res["win_rate"] / even, "optimal_value": even,
            "mean_score": res["mean_score"], "opponent": "optimal", "measure": "win rate"}


def win_line(rules: str, chosen: str, result: dict[str, Any]) -> str:
    """A heads-up run's last line (``train.py``): its final :func:`win_evaluation`."""
    return (f"{rules} heads-up: {chosen} wins {result['mean']:.4f} (95% {result['ci95'][0]:.4f} .. "
            f"{result['ci95'][1]:.4f}) of {result['episodes']:,} games against optimal")
