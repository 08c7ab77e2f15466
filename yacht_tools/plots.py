"""What every picture the project draws shares: a figure laid out by matplotlib's constrained layout, legends outside
the axes (below them), so that no legend or text box covers a bar, a point or a line, and an atomic save.

matplotlib is an optional dependency (the ``plot`` extra): it is imported inside these functions, through matplotlib's
Agg canvas directly (no pyplot, no global backend change).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from yacht_env.extras import require
from yacht_env.files import atomic_path
from yacht_tools.output_paths import user_atomic_path

DPI = 100
"""Pixels per inch of the saved PNGs."""


def figure(size: tuple[float, float], what: str = "--plot") -> Any:
    """A matplotlib ``Figure`` of ``size`` inches on an Agg canvas, with constrained layout (room is made for the
    legends outside the axes). Raises ``ModuleNotFoundError`` naming ``what`` without matplotlib."""
    require("matplotlib", what=what)
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=size, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def legend_below(ax: Any, handles: list[Any] | None = None, ncols: int = 1) -> Any:
    """The legend of ``ax`` (or of ``handles``) under its x-axis label, outside the data area: it covers nothing."""
    kwargs: dict[str, Any] = {"handles": handles} if handles is not None else {}
    return ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncols=ncols, frameon=False, fontsize=9,
                     **kwargs)


def save(fig: Any, path: str | Path, user_path: bool = True) -> None:
    """Save ``fig`` as a PNG at ``path``, atomically: a failed or killed save leaves any earlier picture whole.
    ``user_path``: the path was given by the user (written as :func:`~yacht_tools.output_paths.user_atomic_path`
    says), else it is one of the project's own files (a run folder's curve)."""
    with (user_atomic_path(path) if user_path else atomic_path(path)) as tmp:
        fig.savefig(str(tmp), format="png", dpi=DPI)


__all__ = ["DPI", "figure", "legend_below", "save"]
