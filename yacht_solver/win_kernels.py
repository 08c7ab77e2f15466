"""Compiled kernels of playing to win (``optimal-win``, :mod:`yacht_agents.objectives`): the value of ending a turn
in each state it can lead to, from the reach table's rows, each read only as far as the row goes.

A turn that ends in state ``s`` with ``b`` points in all is worth ``g(b) + sum_k (g(b + k) - g(b + k - 1)) *
R[s, k]`` for ``k >= 1``, where ``g(f)`` is the win share of a final score ``f`` and ``R[s, k]`` the best chance to
score at least ``k`` more points from ``s``: the thresholds at or below ``b`` are already passed, and ``R[s, k]``
is 0 past the row's end (more than ``s`` can still score).
"""

from __future__ import annotations

import numpy as np

from yacht_env.jit.numba_cache import cached_njit
from yacht_solver.ragged import Ragged

__all__ = ["turn_end_values"]


@cached_njit
def turn_end_values(R: Ragged, states: np.ndarray, points: np.ndarray, total: int, g: np.ndarray) -> np.ndarray:
    """``out[i]``: the worth of ending the turn in turn-start state ``states[i]`` with ``total + points[i]`` points
    in all (see the module docstring); ``g``: the win share of each final score, its last entry that of every
    higher one."""
    G = g.shape[0]
    out = np.empty(states.shape[0])
    for i in range(states.shape[0]):
        b = total + points[i]
        if b >= G - 1:
            out[i] = g[G - 1]
            continue
        lo = R.offsets[states[i]]
        K = min(R.offsets[states[i] + 1] - lo, G - b)
        v = g[b]
        for k in range(1, K):
            v += (g[b + k] - g[b + k - 1]) * R.data[lo + k]
        out[i] = v
    return out
