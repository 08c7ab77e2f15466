"""Sampled turns for self-play: each game plays one turn by the turn search, its dice drawn from the dice model.

TD training (``yacht_training.td_learner``) plays many games in lockstep, one turn at a time: the keep tree of each
game's turn comes from :func:`yacht_solver.search.turn_search.turn_values` with the network's values, and
:func:`play_turns` rolls the dice and takes the search's actions, optionally scoring a random legal box to explore.

Heads-up self-play values the end of a turn by what it leaves both players (the chance to win), so by the next
state *and* the points scored, as the reach search does (:mod:`yacht_solver.reach_kernels`): :func:`lookup_turn_values`
searches the turns with such end-of-turn values and :func:`play_lookup_turns` plays them, the same dice and decisions
as :func:`play_turns`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from yacht_env import dice as D
from yacht_env.actions import NUM_KEEP_ACTIONS
from yacht_env.jit.compile import box_score, next_turn_start, points_for
from yacht_env.jit.numba_cache import cached_njit
from yacht_solver.ragged import Ragged
from yacht_solver.reach_kernels import reach_hand_values, reach_row
from yacht_solver.search.turn_constants import (
    FIVE_KIND_FACE,
    HAND0,
    LANES,
    NEG_INF,
    NUM_KEEPS,
    PATTERN_KEEP,
    TIE_TOLERANCE,
    KeepLane,
    KeepValues,
    SearchConstants,
    Starts,
)
from yacht_solver.search.turn_search import action_row, as_f64, as_starts, choose, keep_tree, successor_row

HAND_CUM = np.cumsum(D.HAND_PROBABILITY)
"""(252,) cumulative probabilities of a roll of five dice, for :func:`play_turns`."""
TRANSITION_CUM = np.cumsum(D.TRANSITION, axis=1)
"""(462, 252) cumulative P(hand | keep), for :func:`play_turns`."""


@cached_njit(inline="always")
def sample(cum: np.ndarray, r: float) -> int:
    """Index drawn from a cumulative distribution with a uniform ``r`` in [0, 1)."""
    i = np.searchsorted(cum, r * cum[-1], side="right")
    n = cum.shape[0]
    if i >= n:
        i = n - 1
    while i > 0 and cum[i] == cum[i - 1]:  # never land on a zero-probability entry
        i -= 1
    return i


class DiceDraws(NamedTuple):
    """The dice of one turn of each game: the dice model's cumulative arrays (:data:`HAND_CUM`,
    :data:`TRANSITION_CUM`), the uniforms ``rand[i, 0..2]`` of the three rolls of game i, and ``explore[i]``: in
    [0, 1), score a uniformly drawn legal category at the end of the turn instead of the best one (< 0: play best)."""

    hand_cum: np.ndarray
    trans_cum: np.ndarray
    rand: np.ndarray
    explore: np.ndarray


def turn_draws(rng: np.random.Generator, games: int, explore: float = 0.0) -> DiceDraws:
    """The dice of one turn of each of ``games`` games from ``rng``: three uniforms per game, then, with ``explore``,
    whether each game scores a random legal box this turn (with probability ``explore``) and which."""
    rand = rng.random((games, 3))
    exp = np.where(rng.random(games) < explore, rng.random(games), -1.0) if explore > 0 else np.full(games, -1.0)
    return DiceDraws(HAND_CUM, TRANSITION_CUM, rand, exp)


class EndValues(NamedTuple):
    """What ending a turn is worth. Without ``needs`` (length 0): points plus ``E`` of the next turn-start state (the
    expected-score search). With ``needs``: ``R[next state, needs[i] - points]`` for game i (the reach search's
    end-of-turn values, :func:`yacht_solver.reach_kernels.reach_row`), ``E`` unread."""

    E: np.ndarray
    R: Ragged
    needs: np.ndarray


NO_LOOKUP = Ragged(np.zeros(1), np.zeros(2, dtype=np.int64))
"""The lookup of :class:`EndValues` when there is none (expected-score play)."""


class TurnOutcomes(NamedTuple):
    """What one turn of each game gave (int64 arrays): the points scored, the next turn-start state (``F``, ``u``,
    ``y``) and the number of decisions (environment steps)."""

    points: np.ndarray
    F: np.ndarray
    u: np.ndarray
    y: np.ndarray
    steps: np.ndarray


@cached_njit(nogil=True)
def _play_turns_kernel(cs: SearchConstants, ends: EndValues, starts: Starts, keeps: KeepValues, keep_mask: np.ndarray,
                       draws: DiceDraws, out: TurnOutcomes) -> None:
    """:func:`play_turns` and :func:`play_lookup_turns` over the games."""
    C = cs.scoring.box_scores.shape[1]
    lookup = ends.needs.shape[0] > 0
    row = np.empty(NUM_KEEP_ACTIONS + C)
    legal = np.empty(NUM_KEEP_ACTIONS + C, dtype=np.bool_)
    box = np.empty(C)
    for i in range(starts.F.shape[0]):
        key = (starts.F[i], starts.u[i], starts.y[i])
        F, u, y = key
        lane = KeepLane(keeps.K1[i // LANES], keeps.K2[i // LANES], i % LANES)
        h = sample(draws.hand_cum, draws.rand[i, 0])
        rolls = 2
        nsteps = 0
        c = -1
        while c < 0:
            if lookup:
                reach_row(box, cs, ends.R, h, key, ends.needs[i])
            else:
                successor_row(box, cs, ends.E, h, key)
            action_row(row, legal, box, lane, h, rolls, keep_mask)
            a = choose(row, legal, False, TIE_TOLERANCE)
            nsteps += 1
            if a < NUM_KEEP_ACTIONS:
                h = sample(draws.trans_cum[PATTERN_KEEP[h, a]], draws.rand[i, 3 - rolls])
                rolls -= 1
            else:
                c = a - NUM_KEEP_ACTIONS
        if draws.explore[i] >= 0.0:
            nlegal = 0
            for k in range(C):
                if box[k] > NEG_INF:
                    nlegal += 1
            pick = int(draws.explore[i] * nlegal)
            for k in range(C):
                if box[k] > NEG_INF:
                    if pick == 0:
                        c = k
                        break
                    pick -= 1
        face = FIVE_KIND_FACE[h]
        sc = cs.scoring
        Sh, Jh = sc.box_scores[h], sc.joker_scores[h]
        out.points[i] = points_for(sc.params, Sh, Jh, face, F, u, y == 1, c)
        bx = np.int64(box_score(sc.params, Sh, Jh, face, F, c))
        out.F[i] = F | (1 << c)
        out.u[i], out.y[i] = next_turn_start(c, bx, u, y, cs.thr, cs.Y, cs.ycat)
        out.steps[i] = nsteps


def play_turns(cs: SearchConstants, E: np.ndarray, starts: Starts, keeps: KeepValues, keep_mask: np.ndarray,
               draws: DiceDraws, out: TurnOutcomes) -> None:
    """Play one turn of each game i from turn-start state ``starts[i]`` by the search of
    :func:`~yacht_solver.search.turn_search.turn_values` (whose ``keeps`` the caller computed with the same ``E``), the
    dice drawn from the dice model with the uniforms of ``draws``. Writes the points scored, the next turn-start
    state and the number of decisions into ``out``."""
    _play_turns_kernel(cs, EndValues(as_f64(E), NO_LOOKUP, np.zeros(0, dtype=np.int64)), as_starts(starts), keeps,
                       keep_mask, draws, out)


@cached_njit(nogil=True)
def _lookup_turn_values_kernel(cs: SearchConstants, ends: EndValues, starts: Starts, keeps: KeepValues,
                               start: np.ndarray) -> None:
    """:func:`lookup_turn_values` over the groups: the reach search's hand values
    (:func:`~yacht_solver.reach_kernels.reach_hand_values`), then the one keep tree."""
    n = starts.F.shape[0]
    T = np.empty((max(cs.BOXV.shape[1], cs.scoring.box_scores.shape[1]), LANES))  # the rows reach_hand_values uses
    bits = np.empty(LANES, dtype=np.int64)
    M = np.empty((NUM_KEEPS, LANES))
    out = np.empty(LANES)
    for g in range((n + LANES - 1) // LANES):
        lo = g * LANES
        m = min(n, lo + LANES) - lo
        k1, k2 = keeps.K1[g][:, :m], keeps.K2[g][:, :m]
        lanes = Starts(starts.F[lo:lo + m], starts.u[lo:lo + m], starts.y[lo:lo + m])
        reach_hand_values(cs, ends.R, lanes, ends.needs[lo:lo + m], k1[HAND0:], T[:, :m], bits[:m])
        keep_tree(k1, k2, M[:, :m], out[:m])
        for b in range(m):
            start[lo + b] = out[b]


def lookup_turn_values(cs: SearchConstants, ends: EndValues, starts: Starts, keeps: KeepValues, start: np.ndarray
                       ) -> None:
    """The keep tree of the turn of every state i (turn-start key ``starts[i]``) whose end is worth
    ``ends.R[next state, ends.needs[i] - points]``, in the lanes of ``keeps`` (:func:`~yacht_solver.search.
    turn_search.empty_keep_values`, as :func:`~yacht_solver.search.turn_search.turn_values` lays them out); ``start[i]``
    gets its turn-start value, the expectation over the first roll."""
    _lookup_turn_values_kernel(cs, ends, as_starts(starts), keeps, start)


def play_lookup_turns(cs: SearchConstants, ends: EndValues, starts: Starts, keeps: KeepValues, keep_mask: np.ndarray,
                      draws: DiceDraws, out: TurnOutcomes) -> None:
    """:func:`play_turns` with end-of-turn values from a lookup (``ends.needs`` given), whose keep tree
    :func:`lookup_turn_values` computed into ``keeps``."""
    _play_turns_kernel(cs, ends, as_starts(starts), keeps, keep_mask, draws, out)
