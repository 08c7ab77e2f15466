"""Uniformly random legal actions for a batch of masks, in numba (for benchmarks and random agents)."""

from __future__ import annotations

import numpy as np

from yacht_env.engine import pcg64 as PCG
from yacht_env.jit.numba_cache import cached_njit

_SM_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_SM_M1 = np.uint64(0xBF58476D1CE4E5B9)
_SM_M2 = np.uint64(0x94D049BB133111EB)
_U27 = np.uint64(27)
_U30 = np.uint64(30)
_U31 = np.uint64(31)
_REJECTION_TRIES = 4


@cached_njit(inline="always", _nrt=False)
def _splitmix64(x: np.uint64) -> tuple[np.uint64, np.uint64]:
    x = x + _SM_GAMMA
    z = x
    z = (z ^ (z >> _U30)) * _SM_M1
    z = (z ^ (z >> _U27)) * _SM_M2
    return x, z ^ (z >> _U31)


@cached_njit(inline="always", _nrt=False)
def _randomlegal(i, mask, state, out) -> None:
    """One uniformly random legal action of row i, -1 if none is legal: one draw of a rank below the count of legal
    actions, and the legal action of that rank (lowest first). More than 64 actions: a few rejection tries first."""
    a_n = mask.shape[1]
    s = state[i]
    found = -1
    if a_n > 64:
        for _ in range(_REJECTION_TRIES):
            s, z = _splitmix64(s)
            a = np.int64(PCG.mulhi64(z, np.uint64(a_n)))
            if mask[i, a]:
                found = a
                break
    if found < 0:
        cnt = 0
        for a in range(a_n):
            cnt += mask[i, a]
        if cnt > 0:
            s, z = _splitmix64(s)
            r = np.int64(PCG.mulhi64(z, np.uint64(cnt)))
            for a in range(a_n):
                if mask[i, a]:
                    if r == 0:
                        found = a
                        break
                    r -= 1
    state[i] = s
    out[i] = found


@cached_njit(nogil=True, _nrt=False)
def random_legal(mask, state, out) -> None:
    """One uniformly random legal action per row of ``mask`` into ``out`` (-1 for a row with none); ``state`` holds
    a splitmix64 counter per row, advanced in place."""
    n = mask.shape[0]
    for i in range(n):
        _randomlegal(i, mask, state, out)


class LegalActionSampler:
    """Uniformly random legal actions for a batch of masks, in numba (for benchmarks and random agents).

    >>> sampler = LegalActionSampler(n=4096, seed=0)
    >>> actions = sampler(masks)   # masks: (4096, A) bool
    """

    def __init__(self, n: int, seed: int | None = None) -> None:
        ss = np.random.SeedSequence(seed)
        self.state = ss.generate_state(n, dtype=np.uint64)

    def __call__(self, masks: np.ndarray) -> np.ndarray:
        """A fresh (N,) int64 array of actions, -1 where a row allows none."""
        masks = np.ascontiguousarray(masks, dtype=np.bool_)
        if masks.ndim != 2 or masks.shape[0] != self.state.shape[0]:
            raise ValueError(f"masks must have shape ({self.state.shape[0]}, A), got {masks.shape}")
        out = np.empty(masks.shape[0], dtype=np.int64)
        random_legal(masks, self.state, out)
        return out

