"""The solver's sweep: backward induction over every turn-start state, layer by layer, with the turn search of
:mod:`yacht_env.engine.turn` on ``LANES`` states side by side."""

from __future__ import annotations

import numpy as np
from numba import njit

from yacht_env.engine.cache import guard_numba_cache
from yacht_env.engine.parallel import claim_chunk, finish_chunk, run_chunks
from yacht_env.engine.turn import HAND0, LANES, NUM_KEEPS, hand_values, keep_tree

guard_numba_cache(__file__)  # before any cached kernel below is compiled

__all__ = ["LANES", "PARALLEL_MIN_ROWS", "solve_layers"]


@njit(cache=True, nogil=True)
def _solve_chunks(counter, n_chunks, chunk, params, S, J, CLS, BOXV, NV, PTV, E, rows, first, U, Y, thr, ycat) -> None:
    """Solve rows ``first + lo .. first + hi`` of ``rows`` for each chunk claimed (one layer's rows, see
    :func:`solve_layers`) into ``E``: a chunk kernel (:mod:`yacht_env.engine.parallel`)."""
    n = rows.shape[0] - first
    UY = U * Y
    nl = rows.shape[1]
    K = np.empty((NUM_KEEPS, nl))
    T = np.empty((BOXV.shape[1], nl))
    out = np.empty(nl)
    Fs = np.empty(nl, dtype=np.int64)
    us = np.empty(nl, dtype=np.int64)
    ys = np.empty(nl, dtype=np.int64)
    bits = np.empty(nl, dtype=np.int64)
    while True:
        lo, hi = claim_chunk(counter, n_chunks, chunk, n)
        if lo < 0:
            return
        for i in range(first + lo, first + hi):
            for b in range(nl):
                s = rows[i, b]
                Fs[b] = s // UY
                r = s - Fs[b] * UY
                us[b] = r // Y
                ys[b] = r - us[b] * Y
            hand_values(params, S, J, CLS, BOXV, NV, PTV, E, Fs, us, ys, U, Y, thr, ycat, K[HAND0:], T, bits)
            keep_tree(K, K, K, out)  # only the turn-start values are needed: in place
            for b in range(nl):
                E[rows[i, b]] = out[b]
        finish_chunk(counter)


PARALLEL_MIN_ROWS = 64
"""Layers with fewer rows are solved on one thread: handing work over would cost more than it saves."""


def solve_layers(params: np.ndarray, S: np.ndarray, J: np.ndarray, CLS: np.ndarray, BOXV: np.ndarray,
                 NV: np.ndarray, PTV: np.ndarray, E: np.ndarray, rows: np.ndarray, layer_ptr: np.ndarray,
                 U: int, Y: int, thr: int, ycat: int) -> None:
    """Backward induction. ``rows`` (n, lanes) holds flat state indices, one layer's states side by side (a
    layer's last row padded by repeating its first state); rows ``layer_ptr[i]:layer_ptr[i + 1]`` form a layer,
    fullest scorecard first. ``E[s]`` gets the turn-start expectation of state s. A layer only reads the layers
    after it, so the rows of a layer are shared by the engine's threads."""
    for layer in range(layer_ptr.shape[0] - 1):
        lo, hi = int(layer_ptr[layer]), int(layer_ptr[layer + 1])
        if hi > lo:
            run_chunks(_solve_chunks, hi - lo, (params, S, J, CLS, BOXV, NV, PTV, E, rows[:hi], lo, U, Y, thr, ycat),
                       chunk=8, min_parallel=PARALLEL_MIN_ROWS)
