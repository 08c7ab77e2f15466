"""Pieces of ``train.py`` that are not the story of a run: the run folder, callbacks, learning-curve plot."""

from __future__ import annotations

import json
import shlex
import sys
import time
from pathlib import Path
from typing import Any

import yaml

from agents.train_config import TrainConfig

EVALS_FILE = "evaluations.json"
TIME_FILE = "training_time.json"
LATEST = {"maskable_ppo": "checkpoints/latest.zip", "td": "checkpoints/latest.pt"}
"""Per algorithm: the checkpoint that Ctrl-C and the end of a run write, and ``--resume`` reads."""


def new_run_dir(base: str | Path, cfg: TrainConfig, name: str) -> Path:
    """A fresh folder ``base/<name>-s<seed>-<time>`` (``name``: the config's file name; never reuses a folder)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    root = Path(base)
    d = root / f"{name}-s{cfg.seed}-{stamp}"
    i = 1
    while d.exists():
        d = root / f"{name}-s{cfg.seed}-{stamp}-{i}"
        i += 1
    (d / "checkpoints").mkdir(parents=True)
    return d


def record_run(run_dir: Path, cfg: TrainConfig, argv: list[str]) -> None:
    """Write the resolved config and append the exact command (a resumed run adds a line)."""
    (run_dir / "config.yaml").write_text(yaml.safe_dump(cfg.to_dict(), sort_keys=False))
    with open(run_dir / "command.txt", "a") as f:
        f.write(" ".join(shlex.quote(a) for a in [sys.executable, *argv]) + "\n")


def load_evaluations(run_dir: Path) -> list[dict[str, Any]]:
    p = run_dir / EVALS_FILE
    return json.loads(p.read_text()) if p.is_file() else []


def save_evaluations(run_dir: Path, evals: list[dict[str, Any]]) -> None:
    tmp = run_dir / (EVALS_FILE + ".tmp")
    tmp.write_text(json.dumps(evals, indent=1))
    tmp.replace(run_dir / EVALS_FILE)


def plot_learning_curve(evals: list[dict[str, Any]], path: Path, title: str) -> None:
    """Percent of optimal over training steps, as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    if evals:
        ax.plot([e["timesteps"] for e in evals], [e["percent_of_optimal"] for e in evals], marker="o")
    ax.axhline(100.0, color="grey", linestyle="--", linewidth=1, label="optimal play")
    ax.set_xlabel("environment steps")
    ax.set_ylabel("mean score, % of optimal")
    ax.set_title(title)
    ax.legend(loc="lower right")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def training_seconds(run_dir: Path) -> float:
    """Wall-clock seconds spent learning in this run so far (all sessions of a resumed run)."""
    p = run_dir / TIME_FILE
    return float(json.loads(p.read_text())["seconds"]) if p.is_file() else 0.0


def add_training_seconds(run_dir: Path, seconds: float) -> None:
    (run_dir / TIME_FILE).write_text(json.dumps({"seconds": training_seconds(run_dir) + seconds}))
