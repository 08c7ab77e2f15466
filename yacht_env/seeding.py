"""numpy's seeding, vectorised: ``SeedSequence`` words and ``PCG64(SeedSequence(seed))`` states for many seeds.

Every game is seeded as gymnasium seeds an environment, ``PCG64(SeedSequence(seed))``, and the seeds of an
evaluation's games come from ``SeedSequence(seed, spawn_key=(j,))`` (:mod:`yacht_tools.seeds`). numpy builds one
``SeedSequence`` per call in Python, which for 10,000 games took longer than playing them; this module computes the
same numbers for whole arrays at once (the algorithm of numpy's ``bit_generator.pyx``: hashmix, mix, the pool of four
32-bit words, the PCG64 128-bit seeding). ``tests/test_vector.py`` holds it to numpy, seed for seed.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

_INIT_A = np.uint32(0x43B0D7E5)
_MULT_A = np.uint32(0x931E8875)
_INIT_B = np.uint32(0x8B51F9DD)
_MULT_B = np.uint32(0x58F38DED)
_MIX_MULT_L = np.uint32(0xCA01F9DD)
_MIX_MULT_R = np.uint32(0x4973F715)
_XSHIFT = np.uint32(16)
_POOL = 4
_MASK64 = (1 << 64) - 1
_PCG_MULT = 0x2360ED051FC65DA44385DF649FCCF645  # PCG_DEFAULT_MULTIPLIER_128


def _hashmix(value: np.ndarray, const: list[np.uint32]) -> np.ndarray:
    value = value ^ const[0]
    const[0] = np.uint32(const[0] * _MULT_A)
    value = value * const[0]
    return value ^ (value >> _XSHIFT)


def _mix(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    r = _MIX_MULT_L * x - _MIX_MULT_R * y
    return r ^ (r >> _XSHIFT)


def _pool(entropy: np.ndarray) -> np.ndarray:
    """The mixed pool (N, 4) of entropy words (N, k): numpy's ``SeedSequence.mix_entropy``."""
    n, k = entropy.shape
    const = [_INIT_A]
    mixer = [_hashmix(entropy[:, i] if i < k else np.zeros(n, np.uint32), const) for i in range(_POOL)]
    for src in range(_POOL):
        for dst in range(_POOL):
            if src != dst:
                mixer[dst] = _mix(mixer[dst], _hashmix(mixer[src], const))
    for src in range(_POOL, k):
        for dst in range(_POOL):
            mixer[dst] = _mix(mixer[dst], _hashmix(entropy[:, src], const))
    return np.stack(mixer, axis=1)


def _generate(pool: np.ndarray, n_words: int) -> np.ndarray:
    """(N, n_words) uint32: numpy's ``SeedSequence.generate_state(n_words, np.uint32)``."""
    const = _INIT_B
    out = np.empty((pool.shape[0], n_words), dtype=np.uint32)
    for i in range(n_words):
        v = pool[:, i % _POOL] ^ const
        const = np.uint32(const * _MULT_B)
        v = v * const
        out[:, i] = v ^ (v >> _XSHIFT)
    return out


def _words(x: int) -> list[int]:
    """numpy's little-endian uint32 words of a non-negative int (``[0]`` for 0)."""
    out = []
    while True:
        out.append(x & 0xFFFFFFFF)
        x >>= 32
        if not x:
            return out


def _entropy(seed: int, spawn: Sequence[int] = ()) -> list[int]:
    run = _words(int(seed))
    spawned = [w for s in spawn for w in _words(int(s))]
    if spawned and len(run) < _POOL:
        run += [0] * (_POOL - len(run))
    return run + spawned


def _states(entropies: list[list[int]], n_words: int) -> np.ndarray:
    """(N, n_words) uint32 states of many entropy lists, grouped by length (one vectorised pass per length)."""
    out = np.empty((len(entropies), n_words), dtype=np.uint32)
    by_len: dict[int, list[int]] = {}
    for i, e in enumerate(entropies):
        by_len.setdefault(len(e), []).append(i)
    with np.errstate(over="ignore"):
        for idx in by_len.values():
            ent = np.array([entropies[i] for i in idx], dtype=np.uint32)
            out[idx] = _generate(_pool(ent), n_words)
    return out


def spawned_seeds(seed: int, keys: Sequence[int]) -> np.ndarray:
    """(N,) uint64: ``SeedSequence(seed, spawn_key=(key,)).generate_state(1, np.uint64)[0]`` for each key."""
    w = _states([_entropy(seed, (k,)) for k in keys], 2).astype(np.uint64)
    return w[:, 0] | (w[:, 1] << np.uint64(32))


def pcg64_rows(seeds: Sequence[int]) -> np.ndarray:
    """(N, 4) uint64 rows ``[state_hi, state_lo, inc_hi, inc_lo]`` of ``PCG64(SeedSequence(seed))`` for each seed
    (the layout of :mod:`yacht_env.engine.pcg64`)."""
    w = _states([_entropy(s) for s in seeds], 8).astype(np.uint64)
    v = w[:, 0::2] | (w[:, 1::2] << np.uint64(32))  # four uint64: seed (hi, lo), inc (hi, lo)
    out = np.empty((len(seeds), 4), dtype=np.uint64)
    for i in range(len(seeds)):
        initstate = (int(v[i, 0]) << 64) | int(v[i, 1])
        inc = (((int(v[i, 2]) << 64) | int(v[i, 3])) << 1 | 1) & ((1 << 128) - 1)
        state = (inc * 1 + 0) & ((1 << 128) - 1)  # state = 0, then one step: 0 * mult + inc
        state = (state + initstate) & ((1 << 128) - 1)
        state = (state * _PCG_MULT + inc) & ((1 << 128) - 1)
        out[i] = (state >> 64, state & _MASK64, inc >> 64, inc & _MASK64)
    return out
