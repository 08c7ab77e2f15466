"""Dice from a seeded generator, drawn the same way everywhere.

A die is one raw 64-bit output ``x`` of the generator's bit generator mapped to ``1 + floor(6x / 2**64)``
(Lemire's multiply-shift), rejecting the 4 raw values in 2**64 whose low product word is below ``2**64 mod 6``, so
every face has probability exactly 1/6. Because only raw outputs are used, any engine that reproduces the bit
generator (the vector engine reproduces numpy's PCG64) reproduces the dice bit for bit.
"""

from __future__ import annotations

import numpy as np

_MASK64 = (1 << 64) - 1
_REJECT_BELOW = (1 << 64) % 6  # == 4


def roll(rng: np.random.Generator, n: int) -> list[int]:
    """Roll ``n`` six-sided dice, in draw order."""
    out: list[int] = []
    bg = rng.bit_generator
    need = n
    while need:
        for x in bg.random_raw(need).tolist():
            m = x * 6
            if m & _MASK64 < _REJECT_BELOW:
                continue
            out.append((m >> 64) + 1)
        need = n - len(out)
    return out


MAX_SEED = 2**128
"""Seeds are below this: ``SeedSequence`` takes any non-negative int; keep them to a sane size."""


def check_seed_value(seed: object, what: str = "seed") -> int | None:
    """``seed`` as a plain int (a numpy integer scalar counts), or None; ``ValueError`` naming the value and what is
    accepted for anything else (a bool, a float, a set, a string, an array, even a 0-d one, a negative or huge int):
    the one seed check of every environment (single, vector, PettingZoo)."""
    if seed is None:
        return None
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < MAX_SEED:
        shown = repr(seed) if len(repr(seed)) <= 60 else repr(seed)[:57] + "..."
        hint = " (a 0-d array: pass int(seed))" if isinstance(seed, np.ndarray) and seed.ndim == 0 else ""
        raise ValueError(f"{what} must be None or an int in 0..2**128-1, got {shown} ({type(seed).__name__}){hint}")
    return int(seed)
