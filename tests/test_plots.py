"""Every plot the project draws, as the command draws it: no legend or text box covers a bar, a point or a line,
every axis is labelled with its unit, and the numbers on the figure are those the command prints. The PNGs are kept
in ``build/test-artefacts/plots/`` to look at."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

pytest.importorskip("matplotlib")

from yacht_cli import main  # noqa: E402
from yacht_tools import objective_plots, report  # noqa: E402 - after the matplotlib check
from yacht_training import run_folder  # noqa: E402

ARTEFACTS = Path(__file__).resolve().parent.parent / "build" / "test-artefacts" / "plots"


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The figures the commands save (each still saved, and a copy kept in ARTEFACTS)."""
    figures: list[Any] = []
    for module in (report, objective_plots, run_folder):
        real = module.save

        def keep(fig: Any, path: Any, *args: Any, real: Any = real, **kwargs: Any) -> None:
            figures.append(fig)
            real(fig, path, *args, **kwargs)
            ARTEFACTS.mkdir(parents=True, exist_ok=True)
            fig.savefig(ARTEFACTS / Path(path).name, format="png", dpi=100)

        monkeypatch.setattr(module, "save", keep)
    return figures


def _data_points(ax: Any, renderer: Any) -> list[np.ndarray]:
    """Display coordinates of what ``ax`` shows as data: the points along every line (reference lines spanning
    the axes included), every bar's corners and centre, and the outline of step histograms and error bars."""
    from matplotlib.patches import Polygon, Rectangle

    shapes: list[np.ndarray] = []
    for line in ax.lines:
        xy = line.get_transform().transform(np.asarray(line.get_xydata(), dtype=float))
        if len(xy) > 1:  # the segments between the points too
            xy = np.concatenate([np.linspace(a, b, 20) for a, b in zip(xy[:-1], xy[1:])])
        shapes.append(xy)
    for patch in ax.patches:
        if isinstance(patch, Rectangle) and patch.get_height() > 0:
            bb = patch.get_window_extent(renderer)
            shapes.append(np.array([[bb.x0, bb.y0], [bb.x1, bb.y1], [bb.x0, bb.y1], [bb.x1, bb.y0],
                                    [(bb.x0 + bb.x1) / 2, bb.y1]]))
        elif isinstance(patch, Polygon):
            shapes.append(patch.get_transform().transform(patch.get_xy()))
    for coll in ax.collections:
        for path in coll.get_paths():
            shapes.append(coll.get_transform().transform(path.vertices))
    return shapes


def _covering(fig: Any) -> list[str]:
    """What covers data: each legend or text inside an axes' data area that lies over a point of its data."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    found = []
    for ax in fig.axes:
        box = ax.get_window_extent(renderer)
        data = [p for shape in _data_points(ax, renderer) for p in shape
                if box.x0 <= p[0] <= box.x1 and box.y0 <= p[1] <= box.y1]
        covers = [a for other in fig.axes for a in [other.get_legend(), *other.texts] if a is not None]
        covers += [leg for leg in fig.legends]
        for artist in covers:
            bb = artist.get_window_extent(renderer)
            hit = [p for p in data if bb.x0 <= p[0] <= bb.x1 and bb.y0 <= p[1] <= bb.y1]
            if hit:
                found.append(f"{type(artist).__name__} at {bb} covers {len(hit)} data point(s) of {ax.get_title()!r}")
    return found


def _cut_off(fig: Any) -> list[str]:
    """Texts (titles, labels, legends, tick labels) that reach past the figure's edge."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    edge = fig.bbox
    cut = []
    for ax in fig.axes:
        ticks = [label for axis, (lo, hi) in ((ax.xaxis, ax.get_xlim()), (ax.yaxis, ax.get_ylim()))
                 for loc, label in zip(axis.get_majorticklocs(), axis.get_ticklabels())
                 if min(lo, hi) <= loc <= max(lo, hi)]  # the ones drawn
        texts = [ax.title, ax.xaxis.label, ax.yaxis.label, *ax.texts, *ticks]
        for artist in [*texts, *([ax.get_legend()] if ax.get_legend() else [])]:
            if not artist.get_visible() or (hasattr(artist, "get_text") and not artist.get_text()):
                continue
            bb = artist.get_window_extent(renderer)
            if bb.x0 < edge.x0 - 1 or bb.x1 > edge.x1 + 1 or bb.y0 < edge.y0 - 1 or bb.y1 > edge.y1 + 1:
                cut.append(f"{type(artist).__name__} {getattr(artist, 'get_text', lambda: '')()!r} at {bb}")
    return cut


def _texts(fig: Any) -> str:
    """Every text on the figure: titles, axis labels, legend entries, text boxes."""
    parts = []
    for ax in fig.axes:
        parts += [ax.get_title(), ax.get_xlabel(), ax.get_ylabel(), *(t.get_text() for t in ax.texts)]
        if ax.get_legend() is not None:
            parts += [t.get_text() for t in ax.get_legend().get_texts()]
    return "\n".join(parts)


def _numbers(text: str) -> set[str]:
    """Decimal numbers with digits after the point (the measured ones), commas dropped."""
    return set(re.findall(r"\d+\.\d+", text.replace(",", "")))


def check(fig: Any, printed: str, units: dict[str, str]) -> None:
    """Nothing covers data, each axis label names its unit, every measured number on the figure is printed."""
    assert not _covering(fig), _covering(fig)
    assert not _cut_off(fig), _cut_off(fig)
    labels = [label for ax in fig.axes for label in (ax.get_xlabel(), ax.get_ylabel()) if label]
    for label in labels:
        assert any(word in label for word in units), f"axis label {label!r} has no unit of {sorted(units)}"
    missing = _numbers(_texts(fig)) - _numbers(printed)
    assert not missing, f"numbers on the figure that the command does not print: {missing}\n{_texts(fig)}"


UNITS = {"points": "", "games": "", "%": "", "P(": "", "probability": "", "turn": "", "steps": ""}


def test_a_covering_legend_is_caught() -> None:
    """The check itself: a legend placed over the data (matplotlib's "best" cannot always avoid it) is found."""
    from yacht_tools.plots import figure

    fig = figure((6, 4))
    ax = fig.add_subplot()
    ax.plot(np.arange(50), np.full(50, 1.0), label="a flat line under its legend")
    ax.legend(loc="center")
    assert _covering(fig)


def test_eval_plot(drawn: list[Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "--agent", "greedy", "--rules", "yacht", "--episodes", "300", "--no-progress",
                 "--plot", str(tmp_path / "eval-greedy-yacht.png")]) == 0
    printed = capsys.readouterr().out
    (fig,) = drawn
    assert len(fig.axes) == 2 and "by decision" in fig.axes[1].get_title()
    check(fig, printed, UNITS)


def test_solve_distribution_and_reach_plots(drawn: list[Any], tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "--rules", "yacht", "--distribution", "--plot", str(tmp_path / "distribution.png")]) == 0
    assert main(["solve", "--rules", "yacht", "--objective", "reach", "--target", "200",
                 "--plot", str(tmp_path / "reach.png")]) == 0
    printed = capsys.readouterr().out
    assert len(drawn) == 2
    for fig in drawn:
        check(fig, printed, UNITS)


def test_learning_curve_tells_periodic_from_final(drawn: list[Any], tmp_path: Path) -> None:
    """A curve ending at 98.93% beside a final 100.02%: each point says which games it was measured on, and the
    legend (below the axes) hides neither."""
    evals = [{"timesteps": t, "percent_of_optimal": p} for t, p in ((2e6, 90.1), (4e6, 96.5), (6e6, 98.93))]
    final = {"percent_of_optimal": 100.02, "optimal_value": 166.96, "episodes": 10_000,
             "mean": 1.0002 * 166.96, "ci95": [1.0002 * 166.96 - 0.7, 1.0002 * 166.96 + 0.7]}
    run_folder.plot_learning_curve(evals, tmp_path / "learning_curve.png", "MaskablePPO on yacht", final=final,
                                   final_steps=6_000_000, periodic_games=1000)
    assert (tmp_path / "learning_curve.png").stat().st_size > 10_000
    (fig,) = drawn
    legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert any("the same 1,000 games each time" in t and "98.93%" in t for t in legend), legend
    assert any("10,000 unseen games" in t and "100.02%" in t for t in legend), legend
    check(fig, "98.93 100.02", UNITS)


def test_training_draws_the_numbers_it_prints(drawn: list[Any], tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("torch")
    import train

    cfg = {"rules": "yacht", "algo": "td", "total_timesteps": 600, "seed": 0, "checkpoint_freq": 600,
           "torch_threads": 1, "td": {"hidden": [16], "games_per_iteration": 8},
           "eval": {"freq": 200, "episodes": 20, "final_episodes": 30}}
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump(cfg), encoding="utf-8")
    assert train.main(["--config", str(path), "--run-dir", str(tmp_path / "runs"), "--no-progress"]) == 0
    printed = capsys.readouterr().out
    (fig,) = drawn
    legend = "\n".join(t.get_text() for t in fig.axes[0].get_legend().get_texts())
    final = re.search(r"= (\d+\.\d\d)% of optimal", printed)
    assert final and f"30 unseen games, {final[1]}%" in legend, (printed, legend)
    assert "the same 20 games each time" in legend
    assert not _covering(fig), _covering(fig)
