"""Statistics of finished games: means with 95% intervals, and Wilson's interval for win rates."""

from __future__ import annotations

import math

import numpy as np

Z95 = 1.959963984540054
"""Two-sided 95% quantile of the normal distribution."""


def mean_interval(values: np.ndarray) -> tuple[float, float, float, float]:
    """``(mean, std, low, high)``: the sample mean, standard deviation and the normal 95% interval of the mean."""
    x = np.asarray(values, dtype=np.float64)
    n = x.size
    mean = float(x.mean())
    std = float(x.std(ddof=1)) if n > 1 else 0.0
    half = Z95 * std / math.sqrt(n)
    return mean, std, mean - half, mean + half


def wilson_interval(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson's score interval for a proportion ``successes / n`` (``successes`` may count ties as halves)."""
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1.0 - p) / n + z * z / (4 * n * n)) / denom
    lo = 0.0 if successes <= 0 else max(0.0, centre - half)  # exact ends: the bounds are 0 and 1 there
    hi = 1.0 if successes >= n else min(1.0, centre + half)
    return lo, hi
