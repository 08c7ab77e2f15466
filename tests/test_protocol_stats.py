"""The benchmark protocol's statistics against direct computations on known data, and the coverage of their
intervals over repeated draws."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

pytest.importorskip("scipy")

from yacht_tools.protocol_stats import aggregate, iqm, normalised, probability_of_improvement  # noqa: E402


def test_the_interquartile_mean_of_known_samples() -> None:
    assert iqm(np.arange(1, 9)) == pytest.approx(4.5)  # 3, 4, 5, 6
    assert iqm(np.arange(1, 11)) == pytest.approx(5.5)  # 3..8: two cut from each end of ten
    assert iqm([0, 0, 0, 1000, 1, 1, 1, 1]) == pytest.approx(0.75)  # 0, 1, 1, 1: the outlier is cut


def test_normalised_scores_put_random_at_0_and_optimal_at_1() -> None:
    assert normalised(37.13, 37.13, 166.955) == 0 and normalised(166.955, 37.13, 166.955) == 1
    assert normalised(102.0, 37.0, 167.0) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="must differ"):
        normalised(1.0, 2.0, 2.0)


def test_the_point_estimates_pool_every_run_of_every_task() -> None:
    runs = {"yacht": [0.9, 0.95, 0.97, 0.99, 1.0], "yahtzee": [0.8, 0.85, 0.9, 0.92, 0.99]}
    pooled = np.array([*runs["yacht"], *runs["yahtzee"]])
    assert aggregate(runs, "mean").value == pytest.approx(pooled.mean())
    assert aggregate(runs, "median").value == pytest.approx(np.median(pooled))
    est = aggregate(runs, "iqm")
    assert est.value == pytest.approx(iqm(pooled)) and est.low <= est.value <= est.high and est.confidence == 0.95
    assert aggregate(runs, "iqm") == est  # seeded: the same interval every time


def test_the_interval_covers_the_true_mean_at_about_its_nominal_rate() -> None:
    """200 draws of two tasks with 30 runs each: the 95% interval of the pooled mean covers the true pooled mean in
    about 95% of the draws (a percentile bootstrap is a little narrow; 0.89 to 0.99 holds with room)."""
    rng = np.random.default_rng(7)
    truth = (0.6 + 0.9) / 2
    covered = 0
    for i in range(200):
        runs = {"a": rng.normal(0.6, 0.05, 30), "b": rng.normal(0.9, 0.1, 30)}
        est = aggregate(runs, "mean", resamples=1000, seed=i)
        covered += est.low <= truth <= est.high
    assert 0.89 <= covered / 200 <= 0.99, covered


def test_the_probability_of_improvement_is_the_pairwise_count() -> None:
    x = {"yacht": [3.0, 5.0, 7.0], "yahtzee": [1.0, 2.0]}
    y = {"yacht": [4.0, 5.0, 6.0], "yahtzee": [0.0, 3.0], "yatzy": [1.0, 2.0]}
    direct = []
    for task in ("yacht", "yahtzee"):
        pairs = list(itertools.product(x[task], y[task]))
        direct.append(sum(1.0 if a > b else 0.5 if a == b else 0.0 for a, b in pairs) / len(pairs))
    est = probability_of_improvement(x, y)
    assert est.value == pytest.approx(np.mean(direct)) and 0 <= est.low <= est.value <= est.high <= 1
    same = probability_of_improvement(x, x)
    assert same.value == pytest.approx(0.5)


@pytest.mark.parametrize("runs,match", [
    ({}, "no tasks"),
    ({"yacht": [1.0]}, "at least 2 finite run scores"),
    ({"yacht": [1.0, float("nan")]}, "at least 2 finite run scores"),
])
def test_runs_that_cannot_make_an_interval_are_refused(runs: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        aggregate(runs)
    with pytest.raises(ValueError, match="unknown statistic 'mode'; accepted: iqm, mean, median"):
        aggregate({"yacht": [1.0, 2.0]}, "mode")
