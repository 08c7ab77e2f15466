"""``yacht bench tune``: choose a learner's hyperparameters for one budget, never on the evaluation games.

A sweep (a YAML file) names a learner's base config, one task, one budget and a grid of settings (dotted config keys,
each with its values). Every point of the grid is a *trial*: the base with those settings, trained at the budget as
``yacht bench run`` trains (:func:`yacht_training.bench_runs.protocol_config`) from each tuning seed
(:data:`~yacht_tools.protocol.TUNING_SEEDS`, never a baseline's), then scored on games of the tuning seed
(:data:`~yacht_tools.protocol.TUNING_GAME_SEED`), which neither the evaluation nor the learning curves play. The
result (``OUT/<sweep>.json``, rewritten atomically after each trial, so a stopped sweep goes on where it stopped)
holds every trial's settings, its score per seed, its mean and its seconds, the winner and the sweep's cost in
core-seconds. The winner is then fixed for every task at that budget.
"""

from __future__ import annotations

import concurrent.futures as cf
import itertools
import json
import multiprocessing
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from yacht_env.files import read_regular, write_text_atomic
from yacht_env.interrupt import prompt_interrupts
from yacht_tools import protocol as P
from yacht_tools.progress import progress_bar
from yacht_training import run_folder as rf
from yacht_training.algorithms import train
from yacht_training.bench_runs import protocol_config
from yacht_training.config import TrainConfig, from_dict, load_config, merge
from yacht_training.yaml_file import parse_yaml

MAX_SWEEP_BYTES = 1 << 20
"""The largest sweep file read (a grid of a few keys is a few hundred bytes)."""
MAX_TRIALS = 1_000
"""The most grid points one sweep may have: each is a training run per seed."""
GAMES = 2_000
"""Tuning games each trial's seed is scored on (the mean's 95% interval is about ±0.9% of optimal on Yacht)."""


@dataclass(frozen=True)
class Sweep:
    """A sweep as read from its file: its name (the file's), the learner's base config (a mapping), the task, budget
    and grid (dotted key -> values)."""

    name: str
    base: dict[str, Any]
    task: str
    budget: str
    grid: dict[str, list[Any]]

    def trials(self) -> list[dict[str, Any]]:
        """Every grid point as a config change (nested mapping), in the grid's order."""
        keys = list(self.grid)
        out = []
        for values in itertools.product(*(self.grid[k] for k in keys)):
            change: dict[str, Any] = {}
            for key, value in zip(keys, values):
                *parents, leaf = key.split(".")
                node = change
                for part in parents:
                    node = node.setdefault(part, {})
                node[leaf] = value
            out.append(change)
        return out


def read_sweep(path: str | Path) -> Sweep:
    """The sweep at ``path`` (YAML: ``base``, ``task``, ``budget``, ``grid``), checked: every trial's config valid."""
    where = str(path)
    data = parse_yaml(read_regular(Path(path), MAX_SWEEP_BYTES, f"the sweep {where!r}"), f"the sweep {where!r}")
    if not isinstance(data, dict) or set(data) != {"base", "task", "budget", "grid"}:
        raise ValueError(f"{where}: a sweep holds exactly base (a train.py config), task, budget and grid")
    grid = data["grid"]
    if not isinstance(grid, dict) or not grid or not all(
            isinstance(k, str) and isinstance(v, list) and v for k, v in grid.items()):
        raise ValueError(f"{where}: grid maps dotted config keys (ppo.n_steps) to non-empty lists of values")
    if not isinstance(data["base"], str) or not data["base"]:
        raise ValueError(f"{where}: base is the path of a train.py config, got {str(data['base'])[:40]!r}")
    base_path = Path(data["base"]) if Path(data["base"]).is_absolute() else Path(path).parent / data["base"]
    if not base_path.is_file():
        base_path = Path(data["base"])  # relative to the working folder, as the docs' commands give it
    sweep = Sweep(Path(path).stem, load_config(base_path).to_dict(), P.check_task(data["task"]),
                  P.check_budget(data["budget"]), grid)
    trials = sweep.trials()
    if len(trials) > MAX_TRIALS:
        raise ValueError(f"{where}: the grid has {len(trials):,} points, more than {MAX_TRIALS:,}")
    for change in trials:  # a bad value is named before any training
        trial_config(sweep, change, P.TUNING_SEEDS[0])
    return sweep


def trial_config(sweep: Sweep, change: dict[str, Any], seed: int) -> TrainConfig:
    """The config of one trial and seed: the protocol's for the budget, scored once at the end on the tuning
    games."""
    steps = P.BUDGETS[sweep.budget]
    cfg = protocol_config(merge(sweep.base, change), sweep.task, sweep.budget, seed)
    return from_dict(merge(cfg.to_dict(), {
        "checkpoint_freq": steps, "eval": {"freq": steps, "episodes": 100, "final_episodes": GAMES,
                                           "seed": P.TUNING_GAME_SEED - 10_000_000}}))  # final: TUNING_GAME_SEED


def _one(args: tuple[TrainConfig, str]) -> tuple[float, float, int]:
    """Train one trial's seed in ``folder`` (made afresh) and return its percent of optimal on the tuning games,
    its seconds and its training steps."""
    cfg, folder = args
    d = Path(folder)
    shutil.rmtree(d, ignore_errors=True)  # a trial stopped half-way starts again
    (d / "checkpoints").mkdir(parents=True)
    rf.record_run(d, cfg, ["yacht", "bench", "tune"])
    t0 = time.perf_counter()
    with rf.lock_run(d):
        if train(cfg, d, resume=False, progress=False) != 0:
            raise RuntimeError(f"{d.name}: training stopped before its budget")
    result = json.loads((d / "eval.json").read_text(encoding="utf-8"))
    return float(result["percent_of_optimal"]), time.perf_counter() - t0, int(result["training_timesteps"])


def run_sweep(sweep: Sweep, out: str | Path, workers: int = 1, progress: bool = True) -> dict[str, Any]:
    """Every trial of ``sweep`` over the tuning seeds (those already in ``OUT/<name>.json`` are kept); the result."""
    path = Path(out) / f"{sweep.name}.json"
    done: dict[str, Any] = {}
    if path.is_file():
        kept = json.loads(read_regular(path, 16 << 20, "a sweep result").decode("utf-8"))
        done = {json.dumps(t["change"], sort_keys=True): t for t in kept.get("trials", [])}
    result = {"protocol": P.PROTOCOL, "sweep": sweep.name, "task": sweep.task, "budget": sweep.budget,
              "budget_steps": P.BUDGETS[sweep.budget], "seeds": list(P.TUNING_SEEDS), "games": GAMES,
              "game_seed": P.TUNING_GAME_SEED, "grid": sweep.grid, "base": sweep.base, "trials": []}
    trials = sweep.trials()
    todo = []
    for i, change in enumerate(trials):
        key = json.dumps(change, sort_keys=True)
        if key in done:
            result["trials"].append(done[key])
        else:
            todo += [(i, change, s) for s in P.TUNING_SEEDS]
    runs: dict[int, dict[str, Any]] = {}
    jobs = {(i, s): (trial_config(sweep, change, s), str(Path(out) / "runs" / f"{sweep.name}-t{i}-s{s}"))
            for i, change, s in todo}
    with progress_bar(len(jobs), f"sweep {sweep.name}", "run", enabled=progress) as bar, \
            cf.ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                                   initializer=prompt_interrupts) as pool:
        futures = {pool.submit(_one, job): key for key, job in jobs.items()}
        for fut in cf.as_completed(futures):
            i, seed = futures[fut]
            score, seconds, steps = fut.result()
            trial = runs.setdefault(i, {"trial": i, "change": trials[i], "scores": {}, "seconds": 0.0,
                                        "steps": {}})
            trial["scores"][str(seed)], trial["steps"][str(seed)] = score, steps
            trial["seconds"] += seconds
            if len(trial["scores"]) == len(P.TUNING_SEEDS):
                trial["mean"] = sum(trial["scores"].values()) / len(trial["scores"])
                result["trials"].append(trial)
                _write(result, path)
            bar.update(1)
    return _write(result, path)


def _write(result: dict[str, Any], path: Path) -> dict[str, Any]:
    """``result`` with its trials in order, the winner and the cost, written atomically to ``path``."""
    result["trials"].sort(key=lambda t: t["trial"])
    if result["trials"]:
        best = max(result["trials"], key=lambda t: t["mean"])
        result["winner"] = {"trial": best["trial"], "change": best["change"], "mean": best["mean"]}
    result["core_seconds"] = round(sum(t["seconds"] for t in result["trials"]), 1)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(path, json.dumps(result, indent=1, allow_nan=False) + "\n")
    return result


def winner_config(result: dict[str, Any]) -> dict[str, Any]:
    """The base config with the winner's settings: the learner's config for every task at the sweep's budget."""
    return merge(result["base"], result["winner"]["change"])
