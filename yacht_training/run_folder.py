"""The run folder of ``train.py``: where a run keeps its config, command, checkpoints and results.

Layout: ``config.yaml`` (the resolved config), ``command.txt`` (every command that ran in the folder),
``config_changes.txt`` (what the options of each ``--resume`` changed in the config), ``.lock`` (held by the
``train.py`` working in the folder),
``checkpoints/step_<N>.<ext>`` (periodic, and at the end or on Ctrl-C; the suffix is the learner's,
:mod:`yacht_training.learners`), ``evaluations.json`` (periodic
evaluations), ``training_time.json``, the models (``final_model``, ``best_model``), ``eval.json`` (the final
evaluation) and ``learning_curve.png``. Every file a later run reads is written atomically
(:mod:`yacht_env.files`). ``--resume`` takes the newest checkpoint that loads, falling back past a torn one
(:func:`checkpoints`).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import yaml
from filelock import FileLock, Timeout

from yacht_env.files import append_own, read_regular, regular_file_problem, write_text_atomic
from yacht_tools.plots import figure, legend_below, save
from yacht_training.config import TrainConfig
from yacht_training.learners import get_learner

EVALS_FILE = "evaluations.json"
MAX_EVALS_BYTES = 64 << 20
"""The largest evaluations.json read on resuming (a periodic evaluation is one line of a few numbers)."""
TIME_FILE = "training_time.json"
CONFIG_FILE = "config.yaml"
CHANGES_FILE = "config_changes.txt"
LOCK_FILE = ".lock"
_STEP = re.compile(r"^step_(\d+)$")

T = TypeVar("T")


class RunLock:
    """An exclusive lock (``filelock``: ``flock`` on Unix) on ``<run folder>/.lock``, held while one ``train.py``
    works in the folder: a second process (a second ``--resume``) is refused at once instead of interleaving its
    checkpoints with the first's. The kernel drops the lock when the process ends, however it ends."""

    def __init__(self, run_dir: Path) -> None:
        self.path = run_dir / LOCK_FILE
        self._lock = FileLock(self.path, timeout=0)
        try:
            self._lock.acquire()
        except Timeout:
            with open(self.path, encoding="ascii", errors="replace") as f:
                holder = f.read(32).strip() or "?"
            raise ValueError(f"run folder {str(run_dir)!r} is in use by another train.py (pid {holder}); wait for it "
                             "to end or stop it first") from None
        self.path.write_text(f"{os.getpid()}\n", encoding="ascii")  # the holder, for the message above

    def release(self) -> None:
        self._lock.release()

    def __enter__(self) -> RunLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def lock_run(run_dir: Path) -> RunLock:
    """Lock ``run_dir`` for this process (:class:`RunLock`); ``ValueError`` if another process holds it."""
    return RunLock(run_dir)


def new_run_dir(base: str | Path, cfg: TrainConfig, name: str) -> tuple[Path, RunLock]:
    """A fresh folder ``base/<name>-s<seed>-<time>[-i]`` (``name``: the config's file name), made with ``mkdir``
    so that two processes starting at once never pick one name, and locked (:class:`RunLock`)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    root = Path(base).expanduser()
    for i in range(10_000):
        d = root / (f"{name}-s{cfg.seed}-{stamp}" + (f"-{i}" if i else ""))
        try:
            root.mkdir(parents=True, exist_ok=True)
            d.mkdir()
        except FileExistsError:
            continue
        except OSError as e:  # a folder that takes no new folder (/sys, read-only, a file in the way)
            raise ValueError(f"--run-dir {str(base)!r}: cannot make a run folder there ({e.strerror or e})") from None
        lock = lock_run(d)
        (d / "checkpoints").mkdir()
        return d, lock
    raise ValueError(f"no free run folder name under {str(root)!r} for {name}-s{cfg.seed}-{stamp}")


def changes(before: dict[str, Any], after: dict[str, Any], prefix: str = "") -> list[str]:
    """``key: old -> new`` for each config value that differs (nested keys dotted)."""
    out = []
    for key, new in after.items():
        old = before.get(key)
        if isinstance(new, dict) and isinstance(old, dict):
            out += changes(old, new, f"{prefix}{key}.")
        elif old != new:
            out.append(f"{prefix}{key}: {old!r} -> {new!r}")
    return out


def record_run(run_dir: Path, cfg: TrainConfig, argv: list[str], changes: Sequence[str] = ()) -> None:
    """Write the resolved config (atomically) and append the exact command (a resumed run adds a line); what the
    options of a resumed run changed in the config goes to ``config_changes.txt`` (and is said on stderr)."""
    command = " ".join(shlex.quote(a) for a in [sys.executable, *argv])
    append_own(run_dir / "command.txt", command + "\n")  # first: a link or a pipe there stops it, config untouched
    if changes:
        append_own(run_dir / CHANGES_FILE,
                   f"{time.strftime('%Y-%m-%d %H:%M:%S')} {command}\n" + "".join(f"  {c}\n" for c in changes))
    write_text_atomic(run_dir / CONFIG_FILE, yaml.safe_dump(cfg.to_dict(), sort_keys=False))
    if changes:
        print(f"train.py: --resume with {'; '.join(changes)} (recorded in {CONFIG_FILE} and {CHANGES_FILE})",
              file=sys.stderr)


def checkpoint_path(run_dir: Path, cfg: TrainConfig, steps: int) -> Path:
    """Where the checkpoint at ``steps`` environment steps goes."""
    return run_dir / "checkpoints" / f"step_{steps}{get_learner(cfg.algo).checkpoint}"


def checkpoints(run_dir: Path, cfg: TrainConfig) -> list[tuple[int, Path]]:
    """The run's checkpoints as ``(steps, path)``, newest first."""
    folder = run_dir / "checkpoints"
    if not folder.is_dir():
        return []
    out = []
    for p in folder.glob(f"step_*{get_learner(cfg.algo).checkpoint}"):
        m = _STEP.match(p.stem)
        if m:
            out.append((int(m.group(1)), p))
    return sorted(out, reverse=True)


def load_newest(run_dir: Path, cfg: TrainConfig, load: Callable[[Path], T],
                on_loaded: Callable[[], None] | None = None) -> tuple[T, Path]:
    """``load`` the newest checkpoint that loads, falling back past torn ones (said on stderr), then call
    ``on_loaded`` (train.py records the resumed run there: a refused resume changes nothing in the folder);
    ``ValueError`` if none loads."""
    found = checkpoints(run_dir, cfg)
    if not found:
        suffix = get_learner(cfg.algo).checkpoint
        raise ValueError(f"--resume {str(run_dir)!r}: no checkpoints/step_*{suffix} there to resume from")
    errors = []
    for _steps, path in found:
        try:
            loaded = load(path)
        except (ValueError, OSError, RuntimeError, KeyError) as e:
            errors.append(f"{path.name}: {e}")
            print(f"train.py: checkpoint {path.name} does not load ({e}); trying an older one", file=sys.stderr)
            continue
        if on_loaded is not None:
            on_loaded()
        return loaded, path
    raise ValueError(f"--resume {str(run_dir)!r}: no checkpoint loads: " + "; ".join(errors))


def load_evaluations(run_dir: Path) -> list[dict[str, Any]]:
    """The periodic evaluations so far (``ValueError`` if the file is torn)."""
    p = run_dir / EVALS_FILE
    if regular_file_problem(p) == "does not exist":
        return []
    try:  # a regular file of bounded size only: a FIFO would hang the resume, a link to /dev/zero fill memory
        data = json.loads(read_regular(p, MAX_EVALS_BYTES).decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as e:
        raise ValueError(f"{str(p)!r} is not valid JSON ({e}): the run folder is damaged") from None
    if not isinstance(data, list):
        raise ValueError(f"{str(p)!r} must hold a list of evaluations")
    for i, e in enumerate(data):
        problem = _evaluation_problem(e)
        if problem:
            raise ValueError(f"{str(p)!r}: evaluation {i} {problem}: the run folder is damaged")
    return data


MAX_COUNT = 10**15
"""The largest step, game or iteration count a checkpoint may hold (far beyond any run; 10**30 is a forged file)."""


def checked_counters(counters: object, like: Mapping[str, Any]) -> dict[str, Any]:
    """A checkpoint's counters if they have every key of ``like`` with a value of its kind (an int in
    0..:data:`MAX_COUNT`, or a finite non-negative float for a float there), else ``ValueError`` naming the
    first that does not: the resume then falls back to an older checkpoint instead of looping or crashing."""
    if not isinstance(counters, dict):
        raise ValueError(f"its counters are {type(counters).__name__}, not a mapping")
    for key, start in like.items():
        v = counters.get(key)
        if isinstance(start, float):
            ok = isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v < 1e15
        else:
            ok = isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= MAX_COUNT
        if not ok:
            raise ValueError(f"its counter {key!r} is {v!r}, not a count in 0..{MAX_COUNT:.0e}")
    return {key: counters[key] for key in like}


_NUMBERS = {"mean": (-1e9, 1e9), "percent_of_optimal": (-1e9, 1e9), "learning_s": (0.0, 1e12)}
"""The numeric keys of a periodic evaluation other than ``timesteps``, with the range a true value lies in."""


def _evaluation_problem(e: object) -> str | None:
    """What is wrong with one entry of ``evaluations.json`` (None if nothing): a dict with a non-negative integer
    ``timesteps`` and finite numbers where the learners write them."""
    if not isinstance(e, dict):
        return f"is {type(e).__name__}, not an object"
    t = e.get("timesteps")
    if isinstance(t, bool) or not isinstance(t, int) or not 0 <= t <= MAX_COUNT:
        return f"has timesteps {t!r}, not an integer in 0..{MAX_COUNT:.0e}"
    for key, (lo, hi) in _NUMBERS.items():
        v = e.get(key)
        if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float)) or not lo <= v <= hi):
            return f"has {key} {v!r}, not a number in {lo:g}..{hi:g}"
    return None


def evaluations_until(run_dir: Path, steps: int) -> list[dict[str, Any]]:
    """The periodic evaluations up to ``steps`` (a resumed run drops those after its checkpoint: it redoes them)."""
    evals = load_evaluations(run_dir)
    kept = [e for e in evals if e.get("timesteps", 0) <= steps]
    if len(kept) != len(evals):
        save_evaluations(run_dir, kept)
    return kept


def save_evaluations(run_dir: Path, evals: list[dict[str, Any]]) -> None:
    write_text_atomic(run_dir / EVALS_FILE, json.dumps(evals, indent=1, allow_nan=False))


def record_evaluation(run_dir: Path, evals: list[dict[str, Any]], timesteps: int, result: dict[str, Any],
                      learning_s: float, writer: Any = None, **extra: Any) -> None:
    """Append a periodic evaluation (``result`` of :func:`yacht_tools.evaluation.evaluate` after ``learning_s``
    seconds of learning, with ``extra`` fields) to ``evals``, save them, and write its mean and percent of optimal
    to a TensorBoard ``writer`` if given. Every learner records the same keys, so one plot reads any run."""
    optimal = result.get("optimal_value")
    band = {} if not optimal or "ci95" not in result else {
        "percent_ci95": [round(100.0 * v / optimal, 4) for v in result["ci95"]]}  # drawn as the curve's band
    evals.append({"timesteps": timesteps, "mean": result["mean"], "percent_of_optimal": result["percent_of_optimal"],
                  **band, "learning_s": round(learning_s, 1), **extra, "time": time.time()})
    save_evaluations(run_dir, evals)
    if writer is not None:
        writer.add_scalar("eval/mean_score", result["mean"], timesteps)
        writer.add_scalar("eval/percent_of_optimal", result["percent_of_optimal"], timesteps)
        writer.flush()


def write_json(path: Path, data: dict[str, Any]) -> None:
    write_text_atomic(path, json.dumps(data, indent=1, allow_nan=False))  # NaN is not JSON: refused, not written


def plot_learning_curve(evals: list[dict[str, Any]], path: Path, title: str, final: dict[str, Any] | None = None,
                        final_steps: int | None = None, periodic_games: int | None = None) -> None:
    """Percent of optimal over training steps, as a PNG (skipped, with a note, without matplotlib): the periodic
    evaluations, and the final evaluation (``final``, at ``final_steps``) as a point of its own, since it is
    measured on other games (see :func:`learning_curve_figure`)."""
    try:
        fig = learning_curve_figure(evals, title, final, final_steps, periodic_games)
    except ModuleNotFoundError as e:
        print(f"train.py: {e}", file=sys.stderr)
        return
    save(fig, path, user_path=False)


def learning_curve_figure(evals: list[dict[str, Any]], title: str, final: dict[str, Any] | None = None,
                          final_steps: int | None = None, periodic_games: int | None = None) -> Any:
    """The learning curve's matplotlib figure. The periodic evaluations play the same ``periodic_games`` seeded
    games each time; the final one (an :func:`~yacht_tools.evaluation.evaluate` result, with its 95% interval)
    plays games never seen before, so the two differ by more than training: the legend says which games each point
    was measured on, and gives the numbers as ``train.py`` prints them. The legend lies below the axes."""
    fig = figure((8, 5), what="the learning curve")
    ax = fig.add_subplot()
    games = f"{periodic_games:,} games" if periodic_games else "games"
    handles = []
    if evals:
        last = evals[-1]["percent_of_optimal"]
        steps = [e["timesteps"] for e in evals]
        (curve,) = ax.plot(steps, [e["percent_of_optimal"] for e in evals], marker="o",
                           markersize=4, label=f"periodic evaluation: the same {games} each time (last {last:.2f}%)")
        handles.append(curve)
        if all("percent_ci95" in e for e in evals):  # a dip inside the band is the dice, not the agent unlearning
            band = ax.fill_between(steps, [e["percent_ci95"][0] for e in evals], [e["percent_ci95"][1] for e in evals],
                                   color=curve.get_color(), alpha=0.2, linewidth=0,
                                   label="95% interval of each periodic evaluation")
            handles.append(band)
    if final is not None and final_steps is not None:
        pct, optimal = final["percent_of_optimal"], final.get("optimal_value")
        err = None
        if optimal and "ci95" in final:
            lo, hi = (100.0 * v / optimal for v in final["ci95"])
            err = [[pct - lo], [hi - pct]]
        dot = ax.errorbar([final_steps], [pct], yerr=err, fmt="*", markersize=11, color="C3", capsize=4,
                          label=f"final evaluation: {final['episodes']:,} unseen games, {pct:.2f}% (95% interval)")
        handles.append(dot)
    line = ax.axhline(100.0, color="grey", linestyle="--", linewidth=1, label="optimal play: 100%")
    handles.append(line)
    ax.set_xlabel("training steps (decisions played)")
    ax.set_ylabel("mean final score (% of optimal play)")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    legend_below(ax, handles)
    return fig


class LearningClock:
    """Seconds spent learning: wall time since :meth:`start` less the time inside :meth:`paused` (the periodic
    evaluations), plus ``before`` (earlier sessions of a resumed run)."""

    def __init__(self, before: float) -> None:
        self.before = before
        self.started = time.perf_counter()
        self.pause_total = 0.0

    def start(self) -> None:
        self.started, self.pause_total = time.perf_counter(), 0.0

    def session(self) -> float:
        """Learning seconds of this session."""
        return time.perf_counter() - self.started - self.pause_total

    def seconds(self) -> float:
        """Learning seconds of the run so far."""
        return self.before + self.session()

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        t = time.perf_counter()
        try:
            yield
        finally:
            self.pause_total += time.perf_counter() - t


def training_seconds(run_dir: Path) -> float:
    """Wall-clock seconds spent learning in this run so far (all sessions of a resumed run)."""
    p = run_dir / TIME_FILE
    if not p.is_file():
        return 0.0
    try:
        return float(json.loads(p.read_text(encoding="utf-8"))["seconds"])
    except (ValueError, KeyError, TypeError):
        return 0.0  # a torn record of the time: the time is only reported, never used to resume


def add_training_seconds(run_dir: Path, seconds: float) -> None:
    total = training_seconds(run_dir) + seconds
    write_text_atomic(run_dir / TIME_FILE, json.dumps({"seconds": total}, allow_nan=False))
