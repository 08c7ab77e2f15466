"""Statistics across training runs, as the benchmark protocol reports them: the interquartile mean, mean, median and
optimality gap of run scores with stratified bootstrap intervals, performance profiles with bands, and the
probability that one learner improves on another.

These follow Agarwal et al., "Deep Reinforcement Learning at the Edge of the Statistical Precipice" (NeurIPS 2021):
scores are normalised per task between the random and the optimal player, the runs of each task are resampled
apart (a stratified bootstrap: every task keeps its number of runs in every resample), and the interval is the
percentile interval of the resampled statistic. scipy's ``stats.bootstrap`` does the resampling (several samples
given together are resampled independently, which is the stratification) and ``stats.trim_mean`` the
interquartile mean; the project's only part is putting the tasks together.

What the intervals cover: the spread of training seeds, given the fixed evaluation games (every run plays the same
games, so their own noise is no part of the resampling; the report states it beside the intervals).

Why percentile intervals, not BCa: on synthetic runs (200 draws of 5 runs of one task, 1,000 resamples each) the
95% percentile interval of the IQM covered the true IQM in 87% to 92% of the draws (normal and skewed runs), scipy's
BCa within a draw or two of it (its corrections do not widen an interval of 5 runs), and the ``basic`` interval in
77% to 83% (``tests/test_protocol_stats.py`` keeps the comparison). Neither of the first two can reach past the best
run: every resample's IQM lies within the runs' range, though with 5 runs the truth lies above the best run about
once in 32 draws (all 5 below the median). The basic interval can reach past it, but covers less. So the protocol
keeps the percentile interval, as rliable does by default, and says that with 5 runs it is somewhat narrow: more
seeds are the remedy, not another interval.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from yacht_env.extras import require

STATISTICS = ("iqm", "mean", "median", "optimality_gap")
"""The across-run statistics the protocol reports (the optimality gap: lower is better)."""
OPTIMAL = 1.0
"""Optimal play on the normalised scale: the threshold of the optimality gap (exact here, optimal play is known)."""
PERCENTILE = "percentile bootstrap"
"""The method of an interval from the stratified bootstrap's percentiles."""
SEPARATED = "exact bound (runs separated)"
"""The method of a probability of improvement's interval where every run of one learner beat every run of the
other on every task (:func:`probability_of_improvement`)."""
DEGENERATE = "percentile bootstrap (no spread: each task's runs separated or tied)"
"""The method of a probability of improvement whose every resample gives one value though neither learner won
every pair of every task (one won every pair on some tasks, the other on the rest, or every run tied): the interval
is that point, and says only that."""


@dataclass(frozen=True)
class Estimate:
    """A statistic and its interval (``low``, ``high``) at ``confidence``, made by ``method``."""

    value: float
    low: float
    high: float
    confidence: float
    method: str = PERCENTILE


@dataclass(frozen=True)
class Profile:
    """A performance profile: at each threshold ``taus[i]``, the share of runs scoring above it (``value[i]``) with
    its band (``low[i]``, ``high[i]``) at ``confidence``."""

    taus: np.ndarray
    value: np.ndarray
    low: np.ndarray
    high: np.ndarray
    confidence: float


def normalised(score: float, random_score: float, optimal_score: float) -> float:
    """``score`` on the scale where the random player is 0 and optimal play is 1 (``ValueError`` if the two
    references are the same)."""
    if optimal_score == random_score:
        raise ValueError(f"the random and optimal references must differ, both are {optimal_score!r}")
    return (score - random_score) / (optimal_score - random_score)


def iqm(values: Sequence[float] | np.ndarray, axis: int = -1) -> np.ndarray | float:
    """The interquartile mean: the mean of the middle half of the values (a quarter cut from each end)."""
    require("scipy", what="the benchmark statistics")
    from scipy import stats

    return stats.trim_mean(np.asarray(values, dtype=np.float64), 0.25, axis=axis)


def optimality_gap(values: Sequence[float] | np.ndarray, axis: int = -1) -> np.ndarray | float:
    """How far the runs fall short of optimal play: the mean of ``max(0, 1 - score)`` (rliable's definition with
    optimal play, 1, as the threshold; a run above it through the evaluation games' noise counts 0). Lower is
    better."""
    return np.mean(np.maximum(0.0, OPTIMAL - np.asarray(values, dtype=np.float64)), axis=axis)


def _one(name: str):  # noqa: ANN202 - a vectorised statistic of one sample
    if name not in STATISTICS:
        raise ValueError(f"unknown statistic {name!r}; accepted: {', '.join(STATISTICS)}")
    return {"iqm": iqm, "mean": np.mean, "median": np.median, "optimality_gap": optimality_gap}[name]


def pooled(name: str, values: Sequence[float] | np.ndarray) -> float:
    """Statistic ``name`` of ``values`` (every run of every task together), without an interval."""
    return float(_one(name)(np.asarray(values, dtype=np.float64)))


def _statistic(name: str):  # noqa: ANN202 - a vectorised statistic of several samples, for scipy's bootstrap
    one = _one(name)

    def over_tasks(*samples: np.ndarray, axis: int = -1) -> np.ndarray:
        return one(np.concatenate(samples, axis=axis), axis=axis)

    return over_tasks


def _check_runs(runs_by_task: Mapping[str, Sequence[float]]) -> list[np.ndarray]:
    if not runs_by_task:
        raise ValueError("no tasks: give at least one task with its runs' scores")
    samples = []
    for task, runs in runs_by_task.items():
        x = np.asarray(runs, dtype=np.float64)
        if x.ndim != 1 or x.size < 2 or not np.isfinite(x).all():
            raise ValueError(f"task {task!r}: at least 2 finite run scores are needed, got {list(np.ravel(x))!r}")
        samples.append(x)
    return samples


def aggregate(runs_by_task: Mapping[str, Sequence[float]], statistic: str = "iqm", confidence: float = 0.95,
              resamples: int = 2000, seed: int = 0) -> Estimate:
    """``statistic`` (one of :data:`STATISTICS`) of every run of every task together, with its stratified
    bootstrap percentile interval (the module docstring says why percentile); ``seed`` makes the interval the same
    on every run."""
    fn = _statistic(statistic)
    samples = _check_runs(runs_by_task)
    require("scipy", what="the benchmark statistics")
    from scipy import stats

    res = stats.bootstrap(samples, fn, n_resamples=resamples, confidence_level=confidence, method="percentile",
                          vectorized=True, rng=np.random.default_rng(seed))
    value = float(fn(*samples))
    return Estimate(value, float(res.confidence_interval.low), float(res.confidence_interval.high), confidence)


def profile_taus(step: float = 0.005) -> np.ndarray:
    """The thresholds of a performance profile: 0 to 1 (optimal play) on the normalised scale, every ``step``."""
    return np.round(np.linspace(0.0, 1.0, round(1.0 / step) + 1), 10)


def _shares_above(taus: np.ndarray):  # noqa: ANN202 - a vectorised, vector-valued statistic for scipy's bootstrap
    def over_tasks(*samples: np.ndarray, axis: int = -1) -> np.ndarray:
        per_task = [(np.moveaxis(s, axis, -1)[..., :, None] > taus).mean(axis=-2) for s in samples]
        return np.moveaxis(np.mean(per_task, axis=0), -1, 0)  # (thresholds, *resamples)

    return over_tasks


def performance_profile(runs_by_task: Mapping[str, Sequence[float]], taus: np.ndarray | None = None,
                        confidence: float = 0.95, resamples: int = 2000, seed: int = 0) -> Profile:
    """The performance profile of a learner's runs: at each threshold of ``taus`` (default :func:`profile_taus`),
    the share of its runs whose normalised score is above it, each task weighted equally (the share of each task's
    runs, averaged over tasks), with the stratified bootstrap's percentile band at every threshold."""
    taus = profile_taus() if taus is None else np.asarray(taus, dtype=np.float64)
    samples = _check_runs(runs_by_task)
    require("scipy", what="the benchmark statistics")
    from scipy import stats

    fn = _shares_above(taus)
    res = stats.bootstrap(samples, fn, n_resamples=resamples, confidence_level=confidence, method="percentile",
                          vectorized=True, rng=np.random.default_rng(seed))
    return Profile(taus, fn(*samples), np.asarray(res.confidence_interval.low),
                   np.asarray(res.confidence_interval.high), confidence)


def profile_without_band(runs_by_task: Mapping[str, Sequence[float]], taus: np.ndarray | None = None) -> np.ndarray:
    """:func:`performance_profile`'s shares alone, for runs that cannot make a band (a task with one run)."""
    taus = profile_taus() if taus is None else np.asarray(taus, dtype=np.float64)
    return _shares_above(taus)(*[np.asarray(v, dtype=np.float64) for v in runs_by_task.values()])


def _improvement(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """P(a run of x scores above a run of y), ties counted half, along the last axis (pairs of resampled sets)."""
    gt = (x[..., :, None] > y[..., None, :]).mean(axis=(-2, -1))
    eq = (x[..., :, None] == y[..., None, :]).mean(axis=(-2, -1))
    return gt + 0.5 * eq


def separated_bound(pairs: int, confidence: float = 0.95) -> float:
    """The lower end of the interval of P(X > Y) when every run of X beat every run of Y: ``alpha ** (1 / pairs)``
    with ``alpha`` the interval's lower tail, ``(1 - confidence) / 2``.

    Why it holds: pair the runs of each task into ``m`` disjoint pairs (one run of X against one of Y, each run used
    once); on task ``t`` each pair is won by X independently with chance ``p_t``, so all ``k * m`` pairs of ``k``
    tasks are won with chance ``prod(p_t ** m) <= mean(p_t) ** (k m)`` (the arithmetic-geometric mean inequality).
    Where ``mean(p_t)`` is below the bound that chance is below ``alpha``: the exact one-sided bound of the
    binomial (Clopper-Pearson) for ``k m`` wins out of ``k m``. It uses only disjoint pairs, so it is conservative.
    """
    if pairs < 1:
        raise ValueError(f"pairs must be at least 1, got {pairs!r}")
    return float(((1.0 - confidence) / 2) ** (1.0 / pairs))


def probability_of_improvement(x_by_task: Mapping[str, Sequence[float]], y_by_task: Mapping[str, Sequence[float]],
                               confidence: float = 0.95, resamples: int = 2000, seed: int = 0) -> Estimate:
    """The probability that a run of learner X beats a run of learner Y on a task drawn at random from the tasks
    both were run on (the Mann-Whitney statistic per task, averaged over tasks), with the stratified bootstrap
    interval (each learner's runs of each task resampled apart).

    Where every run of one learner beat every run of the other on every shared task, every resample gives the same
    value (1, or 0) and the bootstrap's interval is the point [1, 1]: it cannot express the doubt that ``n`` runs
    leave. The interval is then :func:`separated_bound`'s exact one (``method`` :data:`SEPARATED`): [``b``, 1] (or
    [0, ``1 - b``]) with ``k * min(n_x, n_y)`` disjoint pairs over ``k`` tasks (the fewest runs of any task). Any
    other point interval is marked :data:`DEGENERATE`."""
    tasks = sorted(set(x_by_task) & set(y_by_task))
    if not tasks:
        raise ValueError("the two learners share no task")
    xs = _check_runs({t: x_by_task[t] for t in tasks})
    ys = _check_runs({t: y_by_task[t] for t in tasks})
    require("scipy", what="the benchmark statistics")
    from scipy import stats

    k = len(tasks)

    def over_tasks(*samples: np.ndarray, axis: int = -1) -> np.ndarray:
        return np.mean([_improvement(samples[i], samples[k + i]) for i in range(k)], axis=0)

    value = float(over_tasks(*xs, *ys))
    if value in (0.0, 1.0):  # separated on every task: the exact bound, not the bootstrap's point
        b = separated_bound(k * min(min(x.size, y.size) for x, y in zip(xs, ys)), confidence)
        return Estimate(value, b, 1.0, confidence, SEPARATED) if value == 1.0 else Estimate(
            value, 0.0, 1.0 - b, confidence, SEPARATED)
    res = stats.bootstrap([*xs, *ys], over_tasks, n_resamples=resamples, confidence_level=confidence,
                          method="percentile", vectorized=True, rng=np.random.default_rng(seed))
    low, high = float(res.confidence_interval.low), float(res.confidence_interval.high)
    return Estimate(value, low, high, confidence, DEGENERATE if math.isclose(low, high) else PERCENTILE)
