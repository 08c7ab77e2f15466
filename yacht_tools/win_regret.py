"""The exact win-regret of any two players in the PettingZoo environment (:mod:`yacht_env.multiplayer`).

A decision's win-regret is ``max_a W(a) - W(chosen)``, ``W(a)`` the mover's chance to win after action ``a`` when
both play the solved game of two from there (:func:`yacht_solver.solve_duel`). :class:`WinRegretWrapper` adds
it to the AEC environment of a user's own training loop (``infos[agent]["win_regret"]`` after each of the agent's
actions, and every decision in ``decisions``); :func:`evaluate_policies` plays two policies against each other, seats
rotating, and tallies each one's regret by decision type and turn, as ``yacht eval`` does for the expected score.
Game ``g`` is the tournament's game ``g`` of match 0 (``yacht tournament --seed S``): the same dice for the same
decisions.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import BaseWrapper

from yacht_agents.base import Agent
from yacht_env import multiplayer as MP
from yacht_solver.duel import solve_duel
from yacht_tools.regret import RegretTally
from yacht_tools.seeds import agent_seed, check_int, game_seed
from yacht_tools.stats import wilson_interval

__all__ = ["Policy", "WinDecision", "WinRegretWrapper", "evaluate_policies"]

Policy = Callable[[dict[str, np.ndarray]], int]
"""A player: the PettingZoo observation (``observation`` and ``action_mask``) in, an action out."""


class WinDecision(NamedTuple):
    """One decision: who took it, in which turn (boxes filled before it) and with how many rolls left, the action
    and its exact win-regret."""

    agent: str
    turn: int
    rolls_left: int
    action: int
    regret: float


class WinRegretWrapper(BaseWrapper):
    """A two-player environment of :mod:`yacht_env.multiplayer` that knows the exact win-regret of each decision:
    after an agent acts, ``infos[agent]["win_regret"]`` is that action's, and ``decisions`` lists every decision
    since ``reset``. The solved game of the rule set is loaded (or solved, once) when the wrapper is made."""

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        base = env.unwrapped
        if not isinstance(base, MP.raw_env):
            raise ValueError(f"WinRegretWrapper wraps yacht_env.multiplayer's environment, not {type(base).__name__}")
        if base.num_players != 2:
            raise ValueError(f"the win-regret is exact for games of two players, not {base.num_players}")
        self.duel = solve_duel(base.rules)
        self.decisions: list[WinDecision] = []

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Reset, and value the first position now: a position the table cannot value (a start given in
        ``options``) is refused here, not after the first step."""
        self.decisions = []
        self.env.reset(seed=seed, options=options)
        base = self.env.unwrapped
        if base.agents:
            seat = base.agent_name_mapping[base.agent_selection]
            self.duel.action_win_probabilities(base.states[seat], base.states[1 - seat])

    def step(self, action: Any) -> None:
        base = self.env.unwrapped
        agent = base.agent_selection
        done = agent not in base.agents or base.terminations[agent] or base.truncations[agent]
        if done or action is None:
            self.env.step(action)
            return
        seat = base.agent_name_mapping[agent]
        me, other = base.states[seat], base.states[1 - seat]
        q = self.duel.action_win_probabilities(me, other)  # before the step: nothing changes if this fails
        a = int(action) if isinstance(action, (int, np.integer)) and not isinstance(action, bool) else -1
        if not 0 <= a < q.size or not np.isfinite(q[a]):
            raise ValueError(f"action {action!r} is not legal here; legal: "
                             f"{', '.join(map(str, np.flatnonzero(np.isfinite(q))))}")
        self.env.step(action)
        regret = max(0.0, float(np.nanmax(q) - q[a]))
        self.decisions.append(WinDecision(agent, me.turn, me.rolls_left, a, regret))
        base.infos[agent] = {**base.infos.get(agent, {}), "win_regret": regret}


def _agent_policy(agent: Agent, env: AECEnv) -> Policy:
    """One of this project's agents as a policy of ``env``: it is given its own state (or the seating) as it asks."""
    base = env.unwrapped

    def act(obs: dict[str, np.ndarray]) -> int:
        me = base.agent_selection
        mask = obs["action_mask"].astype(bool)
        if getattr(agent, "wants_seating", False):
            return int(agent.act_seated(base.states, base.agent_name_mapping[me], mask))
        single = base.single_observation(me) if getattr(agent, "needs_obs", True) else np.zeros(0, np.float32)
        return int(agent.act(single, mask, base.state_of(me) if agent.needs_state else None))

    return act


MAX_POLICY_GAMES = 10_000_000
"""The most games :func:`evaluate_policies` plays: its per-game results (about 64 bytes a game) are kept in memory,
and the PettingZoo loop plays about a thousand games a second."""


def evaluate_policies(players: Sequence[Policy | Agent], rules: str = "yacht", games: int = 100, seed: int = 0,
                      names: Sequence[str] | None = None) -> dict[str, Any]:
    """Play ``games`` games of two between ``players`` (policies or this project's agents), seats rotating (player
    ``i`` sits at seat ``(i + g) % 2`` in game ``g``), in the PettingZoo environment; per player its win rate (ties
    half) with Wilson's 95% interval, mean score and ``win_regret`` (the tally of ``yacht eval``'s regret: per game,
    per decision, by decision type and by turn). Agents are seeded as the tournament seeds them."""
    if len(players) != 2:
        raise ValueError(f"evaluate_policies plays games of two: give two players, not {len(players)}")
    games = check_int(games, "games", 1, MAX_POLICY_GAMES)
    names = list(names) if names is not None else [getattr(p, "name", f"player {i}") for i, p in enumerate(players)]
    if len(names) != 2 or names[0] == names[1]:
        raise ValueError(f"names must be two different names, got {names!r}")
    env = WinRegretWrapper(MP.env(num_players=2, rules=rules))
    policies = []
    for i, p in enumerate(players):
        if isinstance(p, Agent):
            p.seed(agent_seed(seed, 0, i))
            policies.append(_agent_policy(p, env))
        elif callable(p):
            policies.append(p)
        else:
            raise ValueError(f"a player must be a callable policy or an Agent, got {p!r}")
    tallies = [RegretTally(rules, games) for _ in players]
    shares, scores = np.zeros((games, 2)), np.zeros((games, 2))
    for g in range(games):
        env.reset(seed=game_seed(seed, 0, g))
        player_at = {a: (seat + g) % 2 for seat, a in enumerate(env.possible_agents)}
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            env.step(None if term or trunc else policies[player_at[agent]](obs))
        for a, p in player_at.items():
            mine = [d for d in env.decisions if d.agent == a]
            tallies[p].add(np.full(len(mine), g), *(np.array(c) for c in list(zip(*mine))[1:]))
        totals = env.unwrapped.totals()
        for a, p in player_at.items():
            scores[g, p] = totals[a]
        best = max(totals.values())
        winners = [player_at[a] for a, t in totals.items() if t == best]
        shares[g, winners] = 1.0 / len(winners)
    out: dict[str, Any] = {"rules": rules, "games": games, "seed": seed, "agents": {}}
    for i, name in enumerate(names):
        share = float(shares[:, i].sum())
        out["agents"][name] = {"win_rate": share / games, "win_rate_ci95": list(wilson_interval(share, games)),
                               "mean_score": float(scores[:, i].mean()), "win_regret": tallies[i].summary()}
    return out
