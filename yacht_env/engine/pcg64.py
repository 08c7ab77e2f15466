"""numpy's PCG64 (XSL-RR 128/64) in numba, so the vector engine draws the same dice as the single environment.

The single environment draws every die from one raw 64-bit output of ``np_random.bit_generator`` (see
:mod:`yacht_env.randomness`). numpy's PCG64 advances a 128-bit LCG, ``state = state * MULT + inc (mod 2**128)``, and
outputs ``rotr64(hi ^ lo, hi >> 58)`` of the *new* state. Here a generator is a row of four uint64 words
``[state_hi, state_lo, inc_hi, inc_lo]``; the 128-bit arithmetic is done on the 64-bit halves.

Kept for speed against drawing each game's dice from its own numpy Generator in Python, the only other way to the
same dice: ``python benchmarks/bench_machinery.py`` measures the factor (its "PCG64 in numba" row).

Seeding is exactly gymnasium's for ``Env.np_random``, ``np.random.PCG64(np.random.SeedSequence(seed))``, by numpy
itself (:func:`seed_states`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from yacht_env.jit.numba_cache import cached_njit

MASK64 = (1 << 64) - 1
MULT = 0x2360ED051FC65DA44385DF649FCCF645  # PCG_DEFAULT_MULTIPLIER_128, as in numpy's pcg64.h

_MULT_HI = np.uint64(MULT >> 64)
_MULT_LO = np.uint64(MULT & MASK64)
_M32 = np.uint64(0xFFFFFFFF)
_U0 = np.uint64(0)
_U1 = np.uint64(1)
_U6 = np.uint64(6)
_U32 = np.uint64(32)
_U58 = np.uint64(58)
_U63 = np.uint64(63)
_U64 = np.uint64(64)
_REJECT_BELOW = np.uint64((1 << 64) % 6)  # 4, as in yacht_env.randomness

# columns of a generator row
S_HI, S_LO, I_HI, I_LO = range(4)


def seed_states(seeds: Sequence[int]) -> np.ndarray:
    """(N, 4) uint64 generator rows for ``PCG64(SeedSequence(seed))`` of each seed (what gymnasium's
    ``reset(seed=seed)`` makes), by numpy itself: the seeding is numpy's, not a copy of it."""
    out = np.empty((len(seeds), 4), dtype=np.uint64)
    for i, s in enumerate(seeds):
        out[i] = state_row(np.random.PCG64(np.random.SeedSequence(int(s))))
    return out


def state_row(bit_generator: np.random.PCG64) -> np.ndarray:
    """The (4,) uint64 row of a numpy PCG64 bit generator's current state."""
    st = bit_generator.state
    if st["bit_generator"] != "PCG64":
        raise ValueError(f"expected a PCG64 bit generator, got {st['bit_generator']}")
    s, inc = int(st["state"]["state"]), int(st["state"]["inc"])
    return np.array([s >> 64, s & MASK64, inc >> 64, inc & MASK64], dtype=np.uint64)


def write_state(row: np.ndarray, bit_generator: np.random.PCG64) -> None:
    """Set a numpy PCG64 bit generator to generator row ``row`` (the inverse of :func:`state_row`). Its buffered
    32-bit half, which raw draws never use, is kept."""
    st = bit_generator.state
    if st["bit_generator"] != "PCG64":
        raise ValueError(f"expected a PCG64 bit generator, got {st['bit_generator']}")
    s = (int(row[S_HI]) << 64) | int(row[S_LO])
    inc = (int(row[I_HI]) << 64) | int(row[I_LO])
    st["state"] = {"state": s, "inc": inc}
    bit_generator.state = st


def to_generator(row: np.ndarray) -> np.random.Generator:
    """A numpy Generator whose PCG64 continues from generator row ``row`` (for handing a game to a single env)."""
    bg = np.random.PCG64()
    bg.state = {"bit_generator": "PCG64", "state": {"state": 0, "inc": 1}, "has_uint32": 0, "uinteger": 0}
    write_state(row, bg)
    return np.random.Generator(bg)


@cached_njit(inline="always")
def mulhi64(a: np.uint64, b: np.uint64) -> np.uint64:
    """High 64 bits of the 128-bit product ``a * b`` (both uint64), on 32-bit halves: plain uint64 arithmetic,
    which numba compiles on every platform."""
    a0 = a & _M32
    a1 = a >> _U32
    b0 = b & _M32
    b1 = b >> _U32
    p00 = a0 * b0
    p01 = a0 * b1
    p10 = a1 * b0
    p11 = a1 * b1
    mid = (p00 >> _U32) + (p01 & _M32) + (p10 & _M32)
    return p11 + (p01 >> _U32) + (p10 >> _U32) + (mid >> _U32)


@cached_njit(inline="always")
def advance(s_hi: np.uint64, s_lo: np.uint64, i_hi: np.uint64, i_lo: np.uint64) -> tuple[np.uint64, np.uint64]:
    """One LCG step: ``state * MULT + inc (mod 2**128)`` on 64-bit halves."""
    lo = s_lo * _MULT_LO
    hi = mulhi64(s_lo, _MULT_LO) + s_lo * _MULT_HI + s_hi * _MULT_LO
    lo2 = lo + i_lo
    carry = _U1 if lo2 < lo else _U0
    return hi + i_hi + carry, lo2


@cached_njit(inline="always")
def output(s_hi: np.uint64, s_lo: np.uint64) -> np.uint64:
    """XSL-RR output of a state: ``rotr64(hi ^ lo, hi >> 58)``."""
    x = s_hi ^ s_lo
    rot = s_hi >> _U58
    return (x >> rot) | (x << ((_U64 - rot) & _U63))


@cached_njit
def random_raw(row: np.ndarray, n: int) -> np.ndarray:
    """``n`` raw outputs from generator ``row`` (advanced in place); equals ``bit_generator.random_raw(n)``."""
    out = np.empty(n, dtype=np.uint64)
    s_hi, s_lo, i_hi, i_lo = row[S_HI], row[S_LO], row[I_HI], row[I_LO]
    for j in range(n):
        s_hi, s_lo = advance(s_hi, s_lo, i_hi, i_lo)
        out[j] = output(s_hi, s_lo)
    row[S_HI] = s_hi
    row[S_LO] = s_lo
    return out


@cached_njit(inline="always")
def die(s_hi: np.uint64, s_lo: np.uint64, i_hi: np.uint64, i_lo: np.uint64) -> tuple[np.int64, np.uint64, np.uint64]:
    """One die as :func:`yacht_env.randomness.roll` draws it: ``1 + floor(6x / 2**64)`` of the next raw ``x``,
    skipping the raw values whose low product word is below ``2**64 mod 6``. Returns (face, new state)."""
    while True:
        s_hi, s_lo = advance(s_hi, s_lo, i_hi, i_lo)
        x = output(s_hi, s_lo)
        if x * _U6 >= _REJECT_BELOW:
            return np.int64(mulhi64(x, _U6)) + 1, s_hi, s_lo


@cached_njit
def roll_dice(row: np.ndarray, n: int) -> np.ndarray:
    """``n`` dice from generator ``row`` (advanced in place), in draw order; equals ``randomness.roll``."""
    out = np.empty(n, dtype=np.int64)
    s_hi, s_lo, i_hi, i_lo = row[S_HI], row[S_LO], row[I_HI], row[I_LO]
    for j in range(n):
        f, s_hi, s_lo = die(s_hi, s_lo, i_hi, i_lo)
        out[j] = f
    row[S_HI] = s_hi
    row[S_LO] = s_lo
    return out
