"""Pictures of the objectives beyond the expected score: the exact score distribution, and the reach curve
T -> P*(T) beside the expected-score player's P(final >= T)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from yacht_tools.plots import figure, legend_below, save


def plot_distribution(probabilities: np.ndarray, title: str, path: str | Path) -> None:
    """Save a PNG of P(final score = x) (bars) and P(final score >= x) (line, right axis)."""
    save(distribution_figure(probabilities, title), path)


def distribution_figure(probabilities: np.ndarray, title: str):  # noqa: ANN201 - a matplotlib Figure (optional)
    """The figure of :func:`plot_distribution`: its mean printed as ``yacht solve --distribution`` prints it."""
    fig = figure((9, 5))
    ax = fig.add_subplot()
    x = np.arange(len(probabilities))
    nz = np.flatnonzero(probabilities > 1e-7)
    lo, hi = (int(nz[0]), int(nz[-1])) if len(nz) else (0, len(x) - 1)
    ax.bar(x[lo:hi + 1], probabilities[lo:hi + 1], width=1.0, color="C0", label="P(final score = x), left axis")
    ax.set_xlabel("final score x (points)")
    ax.set_ylabel("P(final score = x)")
    mean = float(x @ probabilities)
    mean_line = ax.axvline(mean, color="C3", linestyle=":", label=f"mean {mean:.7f} points")
    ax2 = ax.twinx()
    (tail,) = ax2.plot(x[lo:hi + 1], np.cumsum(probabilities[::-1])[::-1][lo:hi + 1], color="C1",
                       label="P(final score >= x), right axis")
    ax2.set_ylabel("P(final score >= x)")
    ax2.set_ylim(0, 1.02)
    ax.set_title(title)
    bars = ax.containers[0]
    legend_below(ax, [bars, tail, mean_line], ncols=3)
    return fig


def plot_reach(best: np.ndarray, expected_player: np.ndarray, title: str, path: str | Path,
               target: int | None = None) -> None:
    """Save a PNG of T -> P*(T) (playing to reach T) beside the expected-score player's P(final >= T)."""
    save(reach_figure(best, expected_player, title, target), path)


def reach_figure(best: np.ndarray, expected_player: np.ndarray, title: str,  # noqa: ANN201 - a matplotlib Figure
                 target: int | None = None):
    """The figure of :func:`plot_reach`: P* at the target printed as ``yacht solve --objective reach`` prints it."""
    fig = figure((9, 5))
    ax = fig.add_subplot()
    n = min(len(best), len(expected_player))
    hi = int(np.flatnonzero(best[:n] > 1e-6)[-1]) + 2 if (best[:n] > 1e-6).any() else n
    T = np.arange(min(hi, n))
    ax.plot(T, best[: len(T)], color="C0", label="P*(T): playing to reach T")
    ax.plot(T, expected_player[: len(T)], color="0.5", linestyle="--", label="expected-score player: P(final >= T)")
    if target is not None and target < len(best):
        ax.axvline(target, color="C3", linestyle=":", label=f"T = {target}: P* = {best[target]:.7f}")
    ax.set_xlabel("target T (points)")
    ax.set_ylabel("probability of a final score >= T")
    ax.set_ylim(0, 1.02)
    ax.set_title(title)
    legend_below(ax, ncols=3)
    return fig
