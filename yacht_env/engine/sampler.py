"""Uniformly random legal actions for a batch of masks, in numba (for benchmarks and random agents)."""

from __future__ import annotations

import numba
import numpy as np

from yacht_env.engine import pcg64 as P
from yacht_env.engine.cache import guard_numba_cache
from yacht_env.engine.intrinsics import bool_bits, popcount
from yacht_env.engine.parallel import claim_chunk, default_threads, finish_chunk, run_chunks

guard_numba_cache(__file__)  # before any cached kernel below is compiled

_SM_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_SM_M1 = np.uint64(0xBF58476D1CE4E5B9)
_SM_M2 = np.uint64(0x94D049BB133111EB)
_U27 = np.uint64(27)
_U30 = np.uint64(30)
_U31 = np.uint64(31)
_REJECTION_TRIES = 4


@numba.njit(cache=True, inline="always", _nrt=False)
def _splitmix64(x: np.uint64) -> tuple[np.uint64, np.uint64]:
    x = x + _SM_GAMMA
    z = x
    z = (z ^ (z >> _U30)) * _SM_M1
    z = (z ^ (z >> _U27)) * _SM_M2
    return x, z ^ (z >> _U31)


@numba.njit(cache=True, inline="always", _nrt=False)
def _select_bit(bits, r) -> np.int64:
    """Index of the set bit of rank ``r`` (0: the lowest) of ``bits`` (which has more than ``r`` set bits): a
    binary search on popcounts, with no data-dependent branch."""
    pos = np.int64(0)
    width = np.int64(32)
    while width > 0:
        low = popcount(bits & ((np.int64(1) << width) - 1))
        up = r >= low
        r = r - low if up else r
        bits = (bits >> width) if up else bits
        pos = pos + width if up else pos
        width >>= 1
    return pos


@numba.njit(cache=True, inline="always", _nrt=False)
def _randomlegal(i, mask, state, out) -> None:
    """One uniformly random legal action of row i, -1 if none is legal. Up to 64 actions: the row as a bit set,
    one draw of an index below its popcount, that set bit (no branch on the mask's contents); more actions: a few
    rejection tries, then an exact pick by counting."""
    a_n = mask.shape[1]
    s = state[i]
    found = -1
    if 8 <= a_n <= 64:
        bits = bool_bits(mask, i, a_n)
        cnt = popcount(bits)
        if cnt > 0:
            s, z = _splitmix64(s)
            found = _select_bit(bits, np.int64(P.mulhi64(z, np.uint64(cnt))))
        state[i] = s
        out[i] = found
        return
    for _ in range(_REJECTION_TRIES):
        s, z = _splitmix64(s)
        a = np.int64(P.mulhi64(z, np.uint64(a_n)))
        if mask[i, a]:
            found = a
            break
    if found < 0:
        cnt = 0
        for a in range(a_n):
            cnt += mask[i, a]
        if cnt > 0:
            s, z = _splitmix64(s)
            r = np.int64(P.mulhi64(z, np.uint64(cnt)))
            for a in range(a_n):
                if mask[i, a]:
                    if r == 0:
                        found = a
                        break
                    r -= 1
    state[i] = s
    out[i] = found


@numba.njit(cache=True, nogil=True, _nrt=False)
def random_legal_chunks(counter, n_chunks, chunk, mask, state, out) -> None:
    """One uniformly random legal action per row of ``mask`` into ``out`` (-1 for a row with none); ``state`` holds
    a splitmix64 counter per row, advanced in place. A chunk kernel (see :mod:`yacht_env.engine.parallel`)."""
    n = mask.shape[0]
    while True:
        lo, hi = claim_chunk(counter, n_chunks, chunk, n)
        if lo < 0:
            return
        for i in range(lo, hi):
            _randomlegal(i, mask, state, out)
        finish_chunk(counter)


class LegalActionSampler:
    """Uniformly random legal actions for a batch of masks, in numba (for benchmarks and random agents).

    >>> sampler = LegalActionSampler(n=4096, seed=0)
    >>> actions = sampler(masks)   # masks: (4096, A) bool
    """

    def __init__(self, n: int, seed: int | None = None, threads: int | None = None) -> None:
        ss = np.random.SeedSequence(seed)
        self.state = ss.generate_state(n, dtype=np.uint64)
        self.threads = default_threads() if threads is None else max(1, int(threads))

    def __call__(self, masks: np.ndarray) -> np.ndarray:
        """A fresh (N,) int64 array of actions, -1 where a row allows none."""
        masks = np.ascontiguousarray(masks, dtype=np.bool_)
        if masks.ndim != 2 or masks.shape[0] != self.state.shape[0]:
            raise ValueError(f"masks must have shape ({self.state.shape[0]}, A), got {masks.shape}")
        out = np.empty(masks.shape[0], dtype=np.int64)
        run_chunks(random_legal_chunks, masks.shape[0], (masks, self.state, out), self.threads)
        return out

