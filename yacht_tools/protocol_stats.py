"""Statistics across training runs, as the benchmark protocol reports them: the interquartile mean, mean and median
of run scores with stratified bootstrap intervals, and the probability that one learner improves on another.

These follow Agarwal et al., "Deep Reinforcement Learning at the Edge of the Statistical Precipice" (NeurIPS 2021):
scores are normalised per task between the random and the optimal player, the runs of each task are resampled
apart (a stratified bootstrap: every task keeps its number of runs in every resample), and the interval is the
percentile interval of the resampled statistic. scipy's ``stats.bootstrap`` does the resampling (several samples
given together are resampled independently, which is the stratification) and ``stats.trim_mean`` the
interquartile mean; the project's only part is putting the tasks together.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from yacht_env.extras import require

STATISTICS = ("iqm", "mean", "median")
"""The across-run statistics the protocol reports."""


@dataclass(frozen=True)
class Estimate:
    """A statistic and its bootstrap interval (``low``, ``high``) at ``confidence``."""

    value: float
    low: float
    high: float
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


def _statistic(name: str):  # noqa: ANN202 - a vectorised statistic of several samples, for scipy's bootstrap
    if name not in STATISTICS:
        raise ValueError(f"unknown statistic {name!r}; accepted: {', '.join(STATISTICS)}")
    one = {"iqm": iqm, "mean": np.mean, "median": np.median}[name]

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
    """``statistic`` (``iqm``, ``mean`` or ``median``) of every run of every task together, with its stratified
    bootstrap percentile interval; ``seed`` makes the interval the same on every run."""
    samples = _check_runs(runs_by_task)
    require("scipy", what="the benchmark statistics")
    from scipy import stats

    fn = _statistic(statistic)
    res = stats.bootstrap(samples, fn, n_resamples=resamples, confidence_level=confidence, method="percentile",
                          vectorized=True, rng=np.random.default_rng(seed))
    value = float(fn(*samples))
    return Estimate(value, float(res.confidence_interval.low), float(res.confidence_interval.high), confidence)


def _improvement(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """P(a run of x scores above a run of y), ties counted half, along the last axis (pairs of resampled sets)."""
    gt = (x[..., :, None] > y[..., None, :]).mean(axis=(-2, -1))
    eq = (x[..., :, None] == y[..., None, :]).mean(axis=(-2, -1))
    return gt + 0.5 * eq


def probability_of_improvement(x_by_task: Mapping[str, Sequence[float]], y_by_task: Mapping[str, Sequence[float]],
                               confidence: float = 0.95, resamples: int = 2000, seed: int = 0) -> Estimate:
    """The probability that a run of learner X beats a run of learner Y on a task drawn at random from the tasks
    both were run on (the Mann-Whitney statistic per task, averaged over tasks), with the stratified bootstrap
    interval (each learner's runs of each task resampled apart)."""
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

    res = stats.bootstrap([*xs, *ys], over_tasks, n_resamples=resamples, confidence_level=confidence,
                          method="percentile", vectorized=True, rng=np.random.default_rng(seed))
    return Estimate(float(over_tasks(*xs, *ys)), float(res.confidence_interval.low),
                    float(res.confidence_interval.high), confidence)
