"""Agents for the objectives beyond the expected score: reach a target score, and win a game of several players.

``optimal-reach:T`` (:class:`ReachAgent`) plays the exact strategy that maximises P(final score >= T) (the reach
table of :mod:`yacht_solver.reach`): its success rate estimates P*(T).

``optimal-win`` (:class:`WinAgent`) plays to finish first. At each of its turns it takes the exact distribution of
every opponent's final score from the opponent's present state, between its turns and before its next roll (their
play being the expected-score optimum,
:mod:`yacht_solver.distribution`), turns it into ``g(f)``, the win share a final score of ``f`` would bring
(ties shared as the tournament shares them), and searches its turn exactly for the end-of-turn value
``sum_t (g(t) - g(t - 1)) * P*(at least t - total more points)`` from the reach table: each threshold's best
probability to come, weighted by what passing that threshold is worth. It is exact within the turn and an
optimistic estimate beyond it (every threshold gets its own best continuation), and it is searched again each turn
as the opponents' states change.
"""

from __future__ import annotations

import reprlib
from collections import OrderedDict
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from yacht_agents.base import Agent
from yacht_env.digits import parse_digits
from yacht_env.rules import RuleSet
from yacht_env.state import ROLLS_PER_TURN, GameState
from yacht_solver import ReachSolution, distribution_table, solve, solve_reach
from yacht_solver import reach_kernels as RK
from yacht_solver import win_kernels as WK
from yacht_solver.ragged import Ragged
from yacht_solver.search.turn_constants import SearchConstants
from yacht_solver.search.turn_search import Positions

TURNS_KEPT = 4096
"""Turns whose end-of-turn values :class:`WinAgent` keeps (a few kilobytes each)."""

POINTS_BITS = 20
"""Bits of a turn's points in the code of a (next state, points) pair: far more than a turn can score."""


class TurnEnds(NamedTuple):
    """Where a turn can end: each (next turn-start state, points scored this turn) once, its worth to the player
    playing to win, and the need the turn is searched with (one more than the most points)."""

    states: np.ndarray
    points: np.ndarray
    values: np.ndarray
    need: int

__all__ = ["MAX_TARGET", "ReachAgent", "WinAgent", "check_target", "parse_target", "win_shares_by_score"]


MAX_TARGET = 1_000_000
"""The largest target score accepted anywhere (``optimal-reach:T``, ``--target``): above every rule set's highest
score, so every reachable target is in; a larger one overflowed the reach search's 64-bit needs."""


def check_target(value: object, what: str = "the target") -> int:
    """``value`` (an int, or ASCII digits) as a target score in ``0..MAX_TARGET``, else ``ValueError`` naming
    ``what``: the one check of every target, so that each command accepts the same ones."""
    if isinstance(value, str):
        target = parse_digits(value)
    elif isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        target = int(value)
    else:
        target = None
    if target is None or not 0 <= target <= MAX_TARGET:
        raise ValueError(f"{what} must be a final score to reach, an integer in 0..{MAX_TARGET:,}; got "
                         f"{reprlib.repr(value)}")
    return target


def parse_target(text: str) -> int:
    """The ``T`` of ``optimal-reach:T`` (:func:`check_target`)."""
    return check_target(text, "the T of optimal-reach:T")


class ReachAgent(Agent):
    """Maximises the probability of a final score of at least ``target``, exactly; ties go to the lowest action
    index. Deterministic."""

    needs_state = True
    needs_obs = False
    batched = True

    def __init__(self, rules: str | RuleSet = "yacht", target: int = 0, seed: int | None = None, *,
                 solution: ReachSolution | None = None) -> None:
        super().__init__(rules)
        self.seed(seed)
        self.target = check_target(target, "target")
        self.name = f"optimal-reach:{self.target}"
        self.reach = solution if solution is not None else solve_reach(self.rules)

    def act(self, obs: np.ndarray, mask: np.ndarray, state: GameState | None = None) -> int:
        return int(self.act_batch(np.zeros((1, 0)), np.asarray(mask)[None], None if state is None else [state])[0])

    def act_batch(self, obs: np.ndarray, masks: np.ndarray, states: Sequence[GameState] | None = None
                  ) -> np.ndarray:
        if states is None:
            raise ValueError(f"agent {self.name!r} needs the game states (the score so far is not in the observation)")
        return self.reach.best_actions(list(states), np.full(len(states), self.target))

    def probabilities(self, state: GameState) -> np.ndarray:
        """(32 + C,) probability to reach the target after each legal action (NaN where illegal)."""
        return self.reach.action_probabilities(state, self.target)


def win_shares_by_score(opponents: Sequence[np.ndarray]) -> np.ndarray:
    """``g[f]``: the expected win share of a player whose final score is ``f``, against independent opponents with
    the final-score distributions ``opponents`` (``P(final = x)`` each): 1 for the sole highest total, ``1/k`` to
    each of ``k`` sharing it. Length: one past the highest score any opponent can make."""
    n = max(len(p) for p in opponents)
    poly = np.zeros((len(opponents) + 1, n + 1))
    poly[0] = 1.0  # coefficient k: probability that k opponents tie at f and the others are below
    for p in opponents:
        eq = np.zeros(n + 1)
        eq[: len(p)] = p
        lt = np.concatenate([[0.0], np.cumsum(eq)[:-1]])
        poly[1:] = poly[1:] * lt + poly[:-1] * eq
        poly[0] = poly[0] * lt
    return (poly / np.arange(1, len(opponents) + 2)[:, None]).sum(axis=0)


def turn_end_pairs(tables: SearchConstants, key: tuple[int, int, int]) -> tuple[np.ndarray, np.ndarray]:
    """Every ``(next turn-start state, points)`` the turn of turn-start state ``key`` can end in, each once, ordered
    by state then points (:func:`yacht_solver.reach_kernels.turn_outcomes` without its repeats)."""
    ends = RK.turn_outcomes(tables, key)
    codes = np.unique(ends[:, 0] << POINTS_BITS | ends[:, 1])
    return codes >> POINTS_BITS, codes & ((1 << POINTS_BITS) - 1)


def _before_roll(state: GameState) -> GameState:
    """``state`` as it is between its turns, before its next roll: its dice (if a position gave it any) dropped,
    unless its game is over."""
    if state.is_over or state.awaits_roll:
        return state
    return GameState(state.rules, (), ROLLS_PER_TURN, state.scores, state.bonus_count)


class WinAgent(Agent):
    """Plays to finish first in a game of two or more (see the module docstring); alone it plays the expected-score
    optimum. Deterministic."""

    name = "optimal-win"
    needs_state = True
    needs_obs = False
    wants_seating = True

    def __init__(self, rules: str | RuleSet = "yacht", seed: int | None = None) -> None:
        super().__init__(rules)
        self.seed(seed)
        self.reach = solve_reach(self.rules)
        self.distributions = distribution_table(self.rules)
        self.expected = solve(self.rules)
        self._offsets = np.zeros(self.reach.table.shape[0] + 1, dtype=np.int64)  # see _turn_lookup
        self._turns: OrderedDict[tuple, TurnEnds] = OrderedDict()

    def act(self, obs: np.ndarray, mask: np.ndarray, state: GameState | None = None) -> int:
        if state is None:
            raise ValueError(f"agent {self.name!r} needs the game state")
        return self.expected.best_action(state)

    def act_seated(self, states: Sequence[GameState], seat: int, mask: np.ndarray) -> int:
        """The action of ``seat`` in the game whose seats are in ``states``. Every other seat is between its turns:
        its next roll is not made yet, so it is valued before that roll (dice a position holds for it are not
        read)."""
        me = states[seat]
        others = [_before_roll(s) for i, s in enumerate(states) if i != seat]
        if not others:
            return self.expected.best_action(me)
        return int(self.win_values(me, others)[1])

    def win_values(self, me: GameState, others: Sequence[GameState]) -> tuple[np.ndarray, int]:
        """(32 + C,) this agent's estimate of its win share after each legal action (NaN where illegal), and the
        action it plays; each of ``others`` valued from its state as given (in a game of several, between its turns)."""
        ends = self._turn_ends(me, others)
        key = self.reach.layout.key(me.filled_bits, me.upper_total, me.yahtzee_box)
        pos = Positions(*(np.array([v]) for v in (*key, me.hand, me.rolls_left)))
        actions, values = self.reach.decide(pos, np.array([ends.need]), values=True, lookup=self._turn_lookup(ends))
        vals = values[0]
        return np.where(vals > -np.inf, vals, np.nan), int(actions[0])

    def _turn_ends(self, me: GameState, others: Sequence[GameState]) -> TurnEnds:
        """The end-of-turn values of the turn of ``me``, kept for the turns in play (a tournament interleaves its
        games)."""
        tkey = (me.scores, me.bonus_count, tuple((o.scores, o.bonus_count, o.dice, o.rolls_left) for o in others))
        ends = self._turns.get(tkey)
        if ends is None:
            ends = self._turns[tkey] = self._new_turn_ends(me, others)
            if len(self._turns) > TURNS_KEPT:
                self._turns.popitem(last=False)
        return ends

    def _new_turn_ends(self, me: GameState, others: Sequence[GameState]) -> TurnEnds:
        """Every (next state, points) the turn of ``me`` can end in, with its worth against ``others``
        (:func:`yacht_solver.win_kernels.turn_end_values`)."""
        g = win_shares_by_score([self.distributions.of_state(o).probabilities for o in others])
        key = tuple(int(k) for k in self.reach.layout.key(me.filled_bits, me.upper_total, me.yahtzee_box))
        states, points = turn_end_pairs(self.reach.constants, key)
        values = WK.turn_end_values(self.reach.table.kernel, states, points, me.total, g)
        return TurnEnds(states, points, values, int(points.max()) + 1)

    def _turn_lookup(self, ends: TurnEnds) -> Ragged:
        """``ends`` as the reach search reads its table, searched with the need ``ends.need``: a row per state the
        turn leads to, ``need + 1`` long, holding the worth of ``p`` points at ``need - p`` (the search reads only
        these rows, so the other states' offsets are left as they are)."""
        rows, at = np.unique(ends.states, return_inverse=True)
        width = ends.need + 1
        starts = np.arange(len(rows), dtype=np.int64) * width
        self._offsets[rows + 1] = starts + width  # a row's end, or the next row's start where rows are adjacent
        self._offsets[rows] = starts
        data = np.zeros(len(rows) * width)
        data[starts[at] + ends.need - ends.points] = ends.values
        return Ragged(data, self._offsets)
