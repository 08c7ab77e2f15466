"""The benchmark protocol's statistics against direct computations on known data, and the coverage of their
intervals over repeated draws: the percentile interval chosen over BCa, and the exact interval of a probability of
improvement whose runs are separated."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

pytest.importorskip("scipy")

from yacht_tools.protocol_stats import (  # noqa: E402
    DEGENERATE,
    PERCENTILE,
    SEPARATED,
    aggregate,
    iqm,
    normalised,
    optimality_gap,
    performance_profile,
    probability_of_improvement,
    profile_taus,
    separated_bound,
)


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
    with pytest.raises(ValueError, match="unknown statistic 'mode'; accepted: iqm, mean, median, optimality_gap"):
        aggregate({"yacht": [1.0, 2.0]}, "mode")


def test_the_optimality_gap_is_the_mean_shortfall_from_optimal_play() -> None:
    """rliable's definition with optimal play (1) as the threshold: a run above 1 (the evaluation games' luck) counts
    0, not a negative gap; lower is better."""
    assert optimality_gap([1.0, 0.9, 0.5]) == pytest.approx((0 + 0.1 + 0.5) / 3)
    assert optimality_gap([1.01, 0.99]) == pytest.approx(0.005)  # not (-0.01 + 0.01) / 2 = 0
    runs = {"yacht": [0.9, 0.95, 1.002], "yahtzee": [0.7, 0.8, 0.85]}
    est = aggregate(runs, "optimality_gap")
    assert est.value == pytest.approx(np.mean([0.1, 0.05, 0.0, 0.3, 0.2, 0.15]))
    assert est.low < est.value < est.high and est.method == PERCENTILE


def test_a_performance_profile_is_the_share_of_runs_above_each_threshold_every_task_weighted_equally() -> None:
    runs = {"yacht": [0.2, 0.5, 0.9, 0.95], "yahtzee": [0.4, 0.6]}  # unequal runs: each task still weighs 1/2
    taus = profile_taus(0.05)
    assert taus[0] == 0 and taus[-1] == 1 and len(taus) == 21 and profile_taus().size == 201
    prof = performance_profile(runs, taus)
    direct = [(np.mean(np.array(runs["yacht"]) > t) + np.mean(np.array(runs["yahtzee"]) > t)) / 2 for t in taus]
    assert prof.value == pytest.approx(direct)
    assert prof.value[taus.tolist().index(0.5)] == pytest.approx((2 / 4 + 1 / 2) / 2)  # 0.5 itself is not above
    assert np.all(np.diff(prof.value) <= 0) and prof.value[0] == 1 and prof.value[-1] == 0
    assert np.all(prof.low <= prof.value + 1e-12) and np.all(prof.value <= prof.high + 1e-12)
    assert np.any(prof.high - prof.low > 0.2)  # a band with 2 to 4 runs a task is wide, not a line
    again = performance_profile(runs, taus)
    assert np.array_equal(again.low, prof.low) and np.array_equal(again.high, prof.high)  # seeded


def test_separated_runs_get_an_exact_interval_instead_of_the_bootstrap_s_point() -> None:
    """Every run of X above every run of Y: each bootstrap resample gives 1, so its interval is [1, 1]. The
    interval is instead [alpha ** (1 / (k n)), 1] with alpha = 2.5%: the chance that k n disjoint pairs all go X's
    way is at most p ** (k n), so a p below the bound makes what was seen rarer than alpha."""
    x = {"yacht": [0.95, 0.96, 0.97, 0.98, 0.99], "yahtzee": [0.9, 0.91, 0.92, 0.93, 0.94, 0.95]}
    y = {"yacht": [0.5, 0.6, 0.7, 0.8, 0.9], "yahtzee": [0.8, 0.81, 0.82, 0.83, 0.84]}
    est = probability_of_improvement(x, y)
    pairs = 2 * 5  # two tasks, the fewest runs of any task on either side: 5
    assert est.value == 1.0 and est.method == SEPARATED and est.high == 1.0
    assert est.low == pytest.approx(0.025 ** (1 / pairs)) and 0.6 < est.low < 0.7
    assert separated_bound(pairs) ** pairs == pytest.approx(0.025)
    back = probability_of_improvement(y, x)
    assert back.value == 0.0 and (back.low, back.high) == (0.0, pytest.approx(1 - est.low))
    one = probability_of_improvement({"yacht": x["yacht"]}, {"yacht": y["yacht"]})
    assert one.low == pytest.approx(0.025 ** (1 / 5))  # one task of 5 runs: the bound is weak (0.48), and says so
    mixed = probability_of_improvement(x, {"yacht": y["yacht"], "yahtzee": [0.99, 1.0]})  # 1 on one task, 0 on the
    assert mixed.value == 0.5 and mixed.low == mixed.high == 0.5 and mixed.method == DEGENERATE  # other: no spread
    usual = probability_of_improvement({"yacht": [1.0, 3.0, 5.0]}, {"yacht": [2.0, 4.0]})
    assert usual.method == PERCENTILE and usual.low < usual.value < usual.high


def test_the_separated_bound_holds_for_the_worst_case_pair_of_learners() -> None:
    """X scores 1 with chance q and 0 otherwise, Y always 1/2: P(X > Y) = q, and 5 runs of each are separated with
    chance q ** 5. At q just below the bound of 5 pairs, separation happens in under 2.5% of 20,000 draws, so the
    interval [bound, 1] excludes such a q no more often than its confidence allows."""
    q = separated_bound(5) - 0.01
    rng = np.random.default_rng(3)
    separated = (rng.random((20_000, 5)) < q).all(axis=1).mean()
    assert separated < 0.025 and separated == pytest.approx(q ** 5, abs=0.003)


def test_percentile_intervals_are_kept_because_bca_covers_no_better_with_five_runs() -> None:
    """The choice the module docstring states: 200 draws of 5 runs of one task; the 95% percentile interval of the
    IQM covers the true IQM in 87% of these draws (174; short of 95%: 5 runs are few), scipy's BCa in no more (173), and
    neither reaches past the best run."""
    from scipy import stats

    def iqm_of(*samples: np.ndarray, axis: int = -1) -> np.ndarray:
        return iqm(np.concatenate(samples, axis=axis), axis=axis)

    rng = np.random.default_rng(11)
    covered = {"percentile": 0, "BCa": 0}
    for i in range(200):
        runs = rng.normal(0.9, 0.03, 5)
        est = aggregate({"yacht": runs}, "iqm", resamples=1000, seed=i)
        covered["percentile"] += est.low <= 0.9 <= est.high
        assert est.high <= runs.max()
        bca = stats.bootstrap([runs], iqm_of, n_resamples=1000, method="BCa", vectorized=True,
                              rng=np.random.default_rng(i)).confidence_interval
        covered["BCa"] += bca.low <= 0.9 <= bca.high
        assert bca.high <= runs.max() + 1e-12
    assert 0.84 <= covered["percentile"] / 200 <= 0.96, covered
    assert covered["BCa"] <= covered["percentile"] + 6, covered  # BCa: no better by more than 3 draws in 100
