"""Pictures of the objectives beyond the expected score: the exact score distribution, and the reach curve
T -> P*(T) beside the expected-score player's P(final >= T)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from yacht_env.extras import require
from yacht_env.files import atomic_path


def _figure(size: tuple[float, float]):  # noqa: ANN202 - a matplotlib Figure (optional dependency)
    require("matplotlib", what="--plot")
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=size)
    FigureCanvasAgg(fig)
    return fig


def _save(fig, path: str | Path) -> None:  # noqa: ANN001
    fig.tight_layout()
    with atomic_path(path, user_path=True) as tmp:  # a failed or killed save leaves any earlier picture whole
        fig.savefig(str(tmp), format="png", dpi=100)


def plot_distribution(probabilities: np.ndarray, title: str, path: str | Path) -> None:
    """Save a PNG of P(final score = x) (bars) and P(final score >= x) (line, right axis)."""
    fig = _figure((9, 4.5))
    ax = fig.add_subplot()
    x = np.arange(len(probabilities))
    nz = np.flatnonzero(probabilities > 1e-7)
    lo, hi = (int(nz[0]), int(nz[-1])) if len(nz) else (0, len(x) - 1)
    ax.bar(x[lo:hi + 1], probabilities[lo:hi + 1], width=1.0, color="C0")
    ax.set_xlabel("final score")
    ax.set_ylabel("P(final score = x)")
    mean = float(x @ probabilities)
    ax.axvline(mean, color="C3", linestyle=":", label=f"mean {mean:.2f}")
    ax2 = ax.twinx()
    ax2.plot(x[lo:hi + 1], np.cumsum(probabilities[::-1])[::-1][lo:hi + 1], color="C1", label="P(final >= x)")
    ax2.set_ylabel("P(final score >= x)")
    ax2.set_ylim(0, 1.02)
    ax.set_title(title)
    ax.legend(loc="upper left")
    ax2.legend(loc="upper right")
    _save(fig, path)


def plot_reach(best: np.ndarray, expected_player: np.ndarray, title: str, path: str | Path,
               target: int | None = None) -> None:
    """Save a PNG of T -> P*(T) (playing to reach T) beside the expected-score player's P(final >= T)."""
    fig = _figure((9, 4.5))
    ax = fig.add_subplot()
    n = min(len(best), len(expected_player))
    hi = int(np.flatnonzero(best[:n] > 1e-6)[-1]) + 2 if (best[:n] > 1e-6).any() else n
    T = np.arange(min(hi, n))
    ax.plot(T, best[: len(T)], color="C0", label="P*(T): playing to reach T")
    ax.plot(T, expected_player[: len(T)], color="0.5", linestyle="--", label="expected-score player: P(final >= T)")
    if target is not None and target < len(best):
        ax.axvline(target, color="C3", linestyle=":", label=f"T = {target}: P* = {best[target]:.4f}")
    ax.set_xlabel("target T")
    ax.set_ylabel("probability of a final score >= T")
    ax.set_ylim(0, 1.02)
    ax.set_title(title)
    ax.legend()
    _save(fig, path)
