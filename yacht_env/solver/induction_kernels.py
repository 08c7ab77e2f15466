"""The solver's sweep: backward induction over every turn-start state, layer by layer, with the turn search of
:mod:`yacht_env.engine.turn_search` on ``LANES`` states side by side."""

from __future__ import annotations

import numpy as np
from numba import njit

from yacht_env.engine.notice import SlowNotice
from yacht_env.engine.numba_cache import guard_numba_cache
from yacht_env.engine.turn_search import HAND0, LANES, NUM_KEEPS, SearchTables, Starts, hand_values, keep_tree

guard_numba_cache(__file__)  # before any cached kernel below is compiled

__all__ = ["LANES", "solve_layers"]


@njit(cache=True, nogil=True)
def _solve_rows(tb: SearchTables, E: np.ndarray, rows: np.ndarray, first: int) -> None:
    """Solve rows ``first ..`` of ``rows`` (one layer's rows, see :func:`solve_layers`) into ``E``."""
    Y = tb.Y
    UY = tb.U * Y
    nl = rows.shape[1]
    K = np.empty((NUM_KEEPS, nl))
    T = np.empty((tb.BOXV.shape[1], nl))
    out = np.empty(nl)
    lanes = Starts(np.empty(nl, dtype=np.int64), np.empty(nl, dtype=np.int64), np.empty(nl, dtype=np.int64))
    Fs, us, ys = lanes
    bits = np.empty(nl, dtype=np.int64)
    for i in range(first, rows.shape[0]):
        for b in range(nl):
            s = rows[i, b]
            Fs[b] = s // UY
            r = s - Fs[b] * UY
            us[b] = r // Y
            ys[b] = r - us[b] * Y
        hand_values(tb, E, lanes, K[HAND0:], T, bits)
        keep_tree(K, K, K, out)  # only the turn-start values are needed: in place
        for b in range(nl):
            E[rows[i, b]] = out[b]


def solve_layers(tb: SearchTables, E: np.ndarray, rows: np.ndarray, layer_ptr: np.ndarray) -> None:
    """Backward induction. ``rows`` (n, lanes) holds flat state indices, one layer's states side by side (a
    layer's last row padded by repeating its first state); rows ``layer_ptr[i]:layer_ptr[i + 1]`` form a layer,
    fullest scorecard first. ``E[s]`` gets the turn-start expectation of state s. A layer only reads the layers
    after it."""
    with SlowNotice(f"solving the game exactly ({E.shape[0]:,} turn-start states; once, then cached)"):
        for layer in range(layer_ptr.shape[0] - 1):
            lo, hi = int(layer_ptr[layer]), int(layer_ptr[layer + 1])
            if hi > lo:
                _solve_rows(tb, E, rows[:hi], lo)
