"""Self-play of the TD learner in the game of two (``algo: td``, ``players: 2``): exact TD targets of the chance to win.

Many games of two in lockstep, one turn at a time, both seats played by the current network
(:class:`yacht_agents.td_win.WinNet`). At each turn the end-of-turn values of the player to move come from the
network (``1 - W(other, next state, -(lead + points))``, or the result after the game's last turn), the turn is
searched exactly with them (:func:`yacht_solver.self_play.lookup_turn_values`) and played with dice from the dice
model (:func:`yacht_solver.self_play.play_lookup_turns`). The TD(0) target of the position at the turn's start,
``(mover's state, other's state, lead)``, is the search's start value; with ``td_lambda`` it is mixed with the
game's result (lambda-return, the point of view changing each turn). Every decision of both seats is an environment
step of the budget: the network learns from both seats' turns.
"""

from __future__ import annotations

import numpy as np

from yacht_agents.td_win import EndLookup, TurnEnds, WinNet, final_share
from yacht_env.actions import KEEP_MASK_UNIQUE
from yacht_solver.search import turn_search as T
from yacht_solver.search.turn_constants import LANES, KeepValues, Starts
from yacht_solver.self_play import (
    DiceDraws,
    EndValues,
    TurnOutcomes,
    lookup_turn_values,
    play_lookup_turns,
    turn_draws,
)

SEATS = 2
_KEEP_MASK = np.ascontiguousarray(KEEP_MASK_UNIQUE)
_NO_E = np.zeros(1)


class HeadsUpSelfPlay:
    """Lockstep self-play of games of two with exact turn searches against a :class:`WinNet`."""

    def __init__(self, model: WinNet) -> None:
        self.model = model
        self.lookups = EndLookup(model.rules)

    def network_changed(self) -> None:
        """Nothing is memoised from the network (the turn ends' states and points are, and stay valid)."""

    def play(self, games: int, rng: np.random.Generator, td_lambda: float = 0.0, explore: float = 0.0
             ) -> tuple[np.ndarray, np.ndarray, int, np.ndarray]:
        """Play ``games`` games of two. Returns the positions at each turn's start (rows ``(mover, other, lead)``),
        their targets, the number of environment steps of both seats, and the final totals (games, 2)."""
        s = self.lookups.space
        turns = SEATS * s.num_categories
        F, u, y, totals = (np.zeros((SEATS, games), dtype=np.int64) for _ in range(4))
        samples = np.empty((turns, games, 3), dtype=np.int64)
        start = np.empty((turns, games))
        keeps = T.empty_keep_values(games)
        points, F2, u2, y2, steps = (np.empty(games, dtype=np.int64) for _ in range(5))
        total_steps = 0
        for t in range(turns):
            m, o = t % SEATS, 1 - t % SEATS
            mover, other = s.flat(F[m], u[m], y[m]), s.flat(F[o], u[o], y[o])
            lead = totals[m] - totals[o]
            samples[t] = np.stack([mover, other, lead], axis=1)
            ends = self.lookups.ends(F[m], u[m], y[m])
            after = lead[ends.game] + ends.points  # the mover's lead once the turn is scored
            if t == turns - 1:
                values = final_share(after)
            else:
                values = 1.0 - self.model.predict(np.stack([other[ends.game], ends.states, -after], axis=1))
            draws = turn_draws(rng, games, explore)
            for lo in range(0, games, LANES):  # a look-up per group of lanes: its size grows with its games squared
                hi = min(lo + LANES, games)
                k = (ends.game >= lo) & (ends.game < hi)
                R, needs = self.lookups.lookup(TurnEnds(ends.game[k] - lo, ends.states[k], ends.points[k]),
                                               values[k], hi - lo)
                end_values = EndValues(_NO_E, R, needs)
                group = slice(lo, hi)
                starts = Starts(F[m, group].copy(), u[m, group].copy(), y[m, group].copy())
                lanes = KeepValues(keeps.K1[lo // LANES:lo // LANES + 1], keeps.K2[lo // LANES:lo // LANES + 1])
                lookup_turn_values(self.lookups.constants, end_values, starts, lanes, start[t, group])
                play_lookup_turns(self.lookups.constants, end_values, starts, lanes, _KEEP_MASK,
                                  DiceDraws(*draws[:2], draws.rand[group], draws.explore[group]),
                                  TurnOutcomes(points[group], F2[group], u2[group], y2[group], steps[group]))
            totals[m] += points
            F[m], u[m], y[m] = F2, u2, y2
            total_steps += int(steps.sum())
        # lambda-return from the mover's point of view: G_t = (1 - lam) start_t + lam (1 - G_{t+1}), where 1 - G_turns
        # is the last mover's (the second seat's) result
        targets = np.empty((turns, games))
        nxt = final_share(totals[0] - totals[1])  # G_turns = 1 - the second seat's result = the first seat's
        for t in range(turns - 1, -1, -1):
            nxt = (1.0 - td_lambda) * start[t] + td_lambda * (1.0 - nxt)
            targets[t] = nxt
        return samples.reshape(-1, 3), targets.reshape(-1), total_steps, totals.T.copy()
