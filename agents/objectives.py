"""Agents for the objectives beyond the expected score: reach a target score, and win a game of several players.

``optimal-reach:T`` (:class:`ReachAgent`) plays the exact strategy that maximises P(final score >= T) (the reach
table of :mod:`yacht_env.solver.reach`): its success rate estimates P*(T).

``optimal-win`` (:class:`WinAgent`) plays to finish first. At each of its turns it takes the exact distribution of
every opponent's final score from the opponent's present state (their play being the expected-score optimum,
:mod:`yacht_env.solver.distribution`), turns it into ``g(f)``, the win share a final score of ``f`` would bring
(ties shared as the tournament shares them), and searches its turn exactly for the end-of-turn value
``sum_t (g(t) - g(t - 1)) * P*(at least t - total more points)`` from the reach table: each threshold's best
probability to come, weighted by what passing that threshold is worth. It is exact within the turn and an
optimistic estimate beyond it (every threshold gets its own best continuation), and it is searched again each turn
as the opponents' states change.
"""

from __future__ import annotations

import mmap
import reprlib
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from yacht_agents.base import Agent
from yacht_env.digits import parse_digits
from yacht_env.rules import RuleSet
from yacht_env.solver import ReachSolution, distribution_table, solve, solve_reach
from yacht_env.solver import reach_kernels as RK
from yacht_env.state import GameState

TURNS_KEPT = 4096
"""Turns whose end-of-turn values :class:`WinAgent` keeps (a few hundred bytes each)."""

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


def fresh_zeros(shape: tuple[int, ...]) -> np.ndarray:
    """Float64 zeros on fresh anonymous memory (``mmap``), which the kernel maps 4 KiB at a time where written.
    ``np.zeros`` asks for 2 MiB pages on an array this large, each zeroed whole at its first write."""
    size = max(int(np.prod(shape)) * np.dtype(np.float64).itemsize, 1)
    return np.frombuffer(mmap.mmap(-1, size), dtype=np.float64).reshape(shape)


FRESH_TABLE_BYTES = 1 << 26
""":class:`WinAgent`'s table of end-of-turn values is made afresh for each decision when it is at least this large
(:func:`fresh_zeros`): its zeros then take memory only where written (Yatzy's optimal-win holds two tables, not
three); a smaller one is kept and reused, since zeroing a fresh one each turn would cost more than it saves."""


class WinAgent(Agent):
    """Plays to finish first at a table of two or more (see the module docstring); alone it plays the expected-score
    optimum. Deterministic."""

    name = "optimal-win"
    needs_state = True
    needs_obs = False
    wants_table = True

    def __init__(self, rules: str | RuleSet = "yacht", seed: int | None = None) -> None:
        super().__init__(rules)
        self.seed(seed)
        self.reach = solve_reach(self.rules)
        self.distributions = distribution_table(self.rules)
        self.expected = solve(self.rules)
        small = int(np.prod(self.reach.table.shape)) * 8 < FRESH_TABLE_BYTES
        self._Q: np.ndarray | None = np.zeros(self.reach.table.shape) if small else None
        self._turns: OrderedDict[tuple, tuple[np.ndarray, np.ndarray, np.ndarray]] = OrderedDict()

    def act(self, obs: np.ndarray, mask: np.ndarray, state: GameState | None = None) -> int:
        if state is None:
            raise ValueError(f"agent {self.name!r} needs the game state")
        return self.expected.best_action(state)

    def act_at_table(self, states: Sequence[GameState], seat: int, mask: np.ndarray) -> int:
        """The action of ``seat`` at a table whose seats are in ``states``."""
        me = states[seat]
        others = [s for i, s in enumerate(states) if i != seat]
        if not others:
            return self.expected.best_action(me)
        return int(self.win_values(me, others)[1])

    def win_values(self, me: GameState, others: Sequence[GameState]) -> tuple[np.ndarray, int]:
        """(32 + C,) this agent's estimate of its win share after each legal action (NaN where illegal), and the
        action it plays."""
        Q = self._turn_table(me, others)
        key = self.reach.layout.key(me.filled_bits, me.upper_total, me.yahtzee_box)
        one = [np.array([v]) for v in (*key, self.reach.width - 1, me.hand, me.rolls_left)]
        actions, values = self.reach.decide(*one, values=True, table=Q)
        vals = values[0]
        return np.where(vals > -np.inf, vals, np.nan), int(actions[0])

    def _turn_table(self, me: GameState, others: Sequence[GameState]) -> np.ndarray:
        """A table whose row of each state this turn can lead to holds, at column ``N - 1 - p``, the end-of-turn
        value of reaching that state with ``p`` points scored this turn: searched with the need ``N - 1``, the
        reach search gives the win estimate (other rows are not read, so the rest of the table is zeros that take no
        memory). The rows of the turns in play are kept (a tournament interleaves its tables)."""
        tkey = (me.scores, me.bonus_count, tuple((o.scores, o.bonus_count, o.dice, o.rolls_left) for o in others))
        rows = self._turns.get(tkey)
        if rows is None:
            rows = self._turn_rows(me, others)
            self._turns[tkey] = rows
            if len(self._turns) > TURNS_KEPT:
                self._turns.popitem(last=False)
        succ, cols, vals = rows
        Q = self._Q if self._Q is not None else fresh_zeros(self.reach.table.shape)
        Q[succ, cols] = vals
        return Q

    def _turn_rows(self, me: GameState, others: Sequence[GameState]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The end-of-turn values of every (next state, points) the turn of ``me`` can end in."""
        g = win_shares_by_score([self.distributions.of_state(o).probabilities for o in others])
        w = np.diff(g)  # w[t - 1] = g(t) - g(t - 1): the worth of passing threshold t
        t = np.flatnonzero(w) + 1
        N = self.reach.width
        key = self.reach.layout.key(me.filled_bits, me.upper_total, me.yahtzee_box)
        pairs = np.unique(RK.turn_outcomes(self.reach.tables, tuple(int(k) for k in key)), axis=0)
        need = np.clip(t[None, :] - me.total - pairs[:, 1:2], 0, N - 1)
        vals = self.reach.table[pairs[:, :1], need] @ w[t - 1] + g[0]
        return pairs[:, 0], N - 1 - pairs[:, 1], vals
