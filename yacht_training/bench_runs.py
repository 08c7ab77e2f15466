"""``yacht bench run``: train learners on the protocol's tasks for a budget over several seeds, one record per run.

A learner is a ``train.py`` config (any algorithm); the protocol sets its rule set, step budget, seed and
evaluations (:func:`protocol_config`), nothing else. Each run trains in a run folder of its own
(``OUT/runs/<task>-<learner>-<budget>-s<seed>``, the layout of :mod:`yacht_training.run_folder`) and ends in a
record (``OUT/records/...json``, :mod:`yacht_tools.protocol`). Starting again resumes: a run with its record is
done, a run folder without one continues from its newest checkpoint. Runs go side by side in processes on this
machine (``workers``), or as Ray tasks on a Ray cluster (``ray_address``; the output folder must then be on storage
every node sees, or only the records come back).
"""

from __future__ import annotations

import concurrent.futures as cf
import json
import multiprocessing
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from yacht_env.extras import require
from yacht_env.files import read_regular
from yacht_env.interrupt import prompt_interrupts
from yacht_tools import protocol as P
from yacht_tools.progress import progress_bar
from yacht_training import run_folder as rf
from yacht_training.algorithms import train
from yacht_training.config import TrainConfig, from_dict, load_config, merge


@dataclass(frozen=True)
class RunSpec:
    """One run of the protocol: a learner (its name and base config as a mapping) on a task, budget and seed, kept
    under ``out``."""

    learner: str
    config: dict[str, Any]
    task: str
    budget: str
    seed: int
    out: str

    @property
    def name(self) -> str:
        return P.record_name(self.task, self.learner, self.budget, self.seed).removesuffix(".json")


def parse_learner(text: str) -> tuple[str, dict[str, Any]]:
    """``NAME=CONFIG`` or ``CONFIG`` (named after the file): the learner's name and its config as a mapping."""
    name, sep, path = text.partition("=")
    if not sep:
        name, path = Path(text).stem, text
    if not name or not all(c.isalnum() or c in "-_." for c in name) or len(name) > 60:
        raise ValueError(f"--learner {text!r}: the name must be 1 to 60 letters, digits, '-', '_' or '.' "
                         "(give NAME=CONFIG)")
    return name, load_config(path).to_dict()


def protocol_config(base: dict[str, Any], task: str, budget: str, seed: int) -> TrainConfig:
    """``base`` with what the protocol fixes: the task's rules, the budget (held exactly), the seed, no time limit,
    checkpoints and learning-curve evaluations at each fifth of the budget on the curve's games."""
    steps = P.BUDGETS[P.check_budget(budget)]
    every = steps // P.CHECKPOINTS
    change = {"rules": P.task_rules(task), "players": P.task_players(task), "total_timesteps": steps,
              "exact_budget": True, "seed": seed,
              "max_learning_s": None,
              "checkpoint_freq": every,
              "eval": {"freq": every, "episodes": P.CURVE_GAMES, "final_episodes": P.CURVE_GAMES,
                       "seed": P.CURVE_SEED}}
    return from_dict(merge(base, change))


def curve(evals: list[dict[str, Any]], budget: str, refs: dict[str, float] | None) -> list[dict[str, Any]]:
    """The learning curve of a run: its periodic evaluation nearest each fifth of the budget (the learners
    evaluate when a rollout passes the mark), normalised (:func:`~yacht_tools.protocol.curve_points`); ``refs``
    None (heads-up): the periodic evaluation's win rate against ``optimal`` as it is."""
    return P.curve_points(evals, budget, refs)


def _run_folder(spec: RunSpec, cfg: TrainConfig) -> tuple[Path, Any, bool]:
    """The run's folder, locked, and whether it resumes: made (with its config) on the first start."""
    d = Path(spec.out) / "runs" / spec.name
    if (d / rf.CONFIG_FILE).is_file():
        lock = rf.lock_run(d)
        kept = load_config(d / rf.CONFIG_FILE, complete=True)
        if kept.to_dict() != cfg.to_dict():
            lock.release()
            raise ValueError(f"{str(d)!r} was started with another config: "
                             f"{'; '.join(rf.changes(kept.to_dict(), cfg.to_dict())[:3])}; move it away to start "
                             "again, or run the learner under another name")
        return d, lock, True
    (d / "checkpoints").mkdir(parents=True, exist_ok=True)
    lock = rf.lock_run(d)
    rf.record_run(d, cfg, ["yacht", "bench", "run", spec.name])
    return d, lock, False


def run_one(spec: RunSpec, progress: bool = False) -> dict[str, Any] | None:
    """Do one run (or finish it) and return its record; None if it was interrupted (its checkpoint is kept)."""
    records = Path(spec.out) / "records"
    done = records / f"{spec.name}.json"
    if done.is_file():
        return P.read_record(done)
    t0 = time.perf_counter()
    cfg = protocol_config(spec.config, spec.task, spec.budget, spec.seed)
    run_dir, lock, resume = _run_folder(spec, cfg)
    with lock:
        if not (run_dir / "eval.json").is_file():
            status = train(cfg, run_dir, resume=resume and bool(rf.checkpoints(run_dir, cfg)), progress=progress)
            if status != 0:
                return None
        refs = P.references(spec.task) if P.task_players(spec.task) == 1 else None
        final = P.final_evaluation(str(run_dir), spec.task, seed=spec.seed)
        evals = rf.load_evaluations(run_dir)
        trained = json.loads(read_regular(run_dir / "eval.json", rf.MAX_EVALS_BYTES).decode("utf-8"))
        training = {"timesteps": trained.get("training_timesteps"), "learning_s": trained.get("training_wall_s"),
                    "resumed": resume}
        record = P.make_record("run", spec.task, spec.learner, spec.seed, final, budget=spec.budget,
                               curve=curve(evals, spec.budget, refs), config=cfg.to_dict(), training=training,
                               wall_s=round(time.perf_counter() - t0, 1))
        P.write_record(record, records)
    return record


def _child(spec: RunSpec) -> dict[str, Any] | None:
    """A run in a worker process: one torch thread per run is the config's, progress is the parent's."""
    return run_one(spec, progress=False)


def run_all(specs: list[RunSpec], workers: int = 1, ray_address: str | None = None,
            progress: bool = True) -> tuple[list[dict[str, Any]], list[str]]:
    """Every run of ``specs`` (those with a record are read back): the records, and one line per run that did not
    end (interrupted or failed). One worker runs them here in turn, with each run's own progress bar."""
    records: list[dict[str, Any]] = []
    problems: list[str] = []
    todo = [s for s in specs if not (Path(s.out) / "records" / f"{s.name}.json").is_file()]
    for s in specs:
        if s not in todo:
            records.append(P.read_record(Path(s.out) / "records" / f"{s.name}.json"))
    if todo:
        print(f"yacht bench: {len(todo)} run(s) to do, {len(specs) - len(todo)} already recorded; "
              f"{'Ray cluster ' + ray_address if ray_address else f'{workers} worker(s)'}", file=sys.stderr)
    if ray_address:
        return _on_ray(todo, ray_address, records, problems, progress)
    if workers == 1:
        for s in todo:
            _collect(s, lambda s=s: run_one(s, progress=progress), records, problems)
        return records, problems
    with progress_bar(len(todo), "bench runs", "run", enabled=progress) as bar, \
            cf.ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                                   initializer=prompt_interrupts) as pool:
        futures = {pool.submit(_child, s): s for s in todo}
        try:
            for fut in cf.as_completed(futures):
                _collect(futures[fut], fut.result, records, problems)
                bar.update(1)
        except KeyboardInterrupt:
            pool.shutdown(wait=True, cancel_futures=True)
            raise
    return records, problems


def _collect(spec: RunSpec, result: Any, records: list[dict[str, Any]], problems: list[str]) -> dict[str, Any] | None:
    """Call ``result()`` for ``spec``'s record and keep it (and return it); a run that failed or was interrupted
    becomes a line of ``problems``, the other runs go on."""
    try:
        rec = result()
    except KeyboardInterrupt:
        raise
    except Exception as e:  # noqa: BLE001 - one run's failure is reported, the others' records are kept
        problems.append(f"{spec.name}: {type(e).__name__}: {e}")
        return None
    if rec is None:
        problems.append(f"{spec.name}: interrupted (its checkpoint is kept: run the command again to go on)")
    else:
        records.append(rec)
    return rec


def _on_ray(todo: list[RunSpec], address: str, records: list[dict[str, Any]], problems: list[str],
            progress: bool) -> tuple[list[dict[str, Any]], list[str]]:
    """The runs as Ray tasks (one CPU each) on the cluster at ``address``; records come back to this machine."""
    require("ray", what="yacht bench run --ray-address")
    import ray

    ray.init(address=address, ignore_reinit_error=True, log_to_driver=False)
    task = ray.remote(num_cpus=1)(_child)
    pending = {task.remote(s): s for s in todo}
    with progress_bar(len(todo), "bench runs", "run", enabled=progress) as bar:
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            spec = pending.pop(ready[0])
            rec = _collect(spec, lambda r=ready[0]: ray.get(r), records, problems)
            if rec is not None:  # a node of the cluster wrote it on its own disk: here too
                P.write_record(rec, Path(spec.out) / "records")
            bar.update(1)
    return records, problems
