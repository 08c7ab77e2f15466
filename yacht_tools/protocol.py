"""The benchmark protocol (``yacht-bench v2``): its tasks, budgets and evaluation games, and the record of one run.

A *run* trains a learner on one task for one budget from one training seed; an *agent* record puts any agent the CLI
accepts through the same evaluation (a reference row of every budget); an *entry* is an outside learner's agent
evaluated so, its training steps and seed declared by its author (a learner of its budget). All are measured on the
protocol's evaluation games (game ``j`` is the game of :func:`yacht_tools.seeds.game_seed` ``(EVAL_SEED, j)``, never a
training game), and a record holds what the report needs: the mean score, its percent of optimal play, the score
normalised between the random player (0) and optimal play (1), and the mean regret per decision against the exact
solver. The learning curve of a run is its mean at :data:`CHECKPOINTS` fixed fractions of the budget, on other games
(:data:`CURVE_SEED`).

Records are JSON, written atomically and read back as data only (never unpickled or run): at most :data:`MAX_BYTES`, the
protocol and task they name checked before anything else (:func:`read_record`).
"""

from __future__ import annotations

import contextlib
import datetime
import fnmatch
import importlib.metadata as md
import json
import math
import os
import platform
from functools import cache
from pathlib import Path
from typing import Any

from yacht_agents.loader import check_seats
from yacht_env.files import read_regular, write_text_atomic
from yacht_env.rules import RULESETS, get_rules
from yacht_solver import solve
from yacht_tools import heads_up_eval
from yacht_tools.evaluation import evaluate

PROTOCOL = "yacht-bench v2"
"""The protocol version new records name."""
V1 = "yacht-bench v1"
"""The first version: its records stay readable, marked v1, and are never reported beside v2's (its runs passed
their budgets by up to one rollout)."""
PROTOCOLS = (V1, PROTOCOL)
"""The versions a record may name; another is refused."""

TASKS: tuple[str, ...] = tuple(RULESETS)
"""One-player tasks: every built-in rule set, maximise the expected final score."""
HEADS_UP: dict[str, str] = {"yacht-heads-up": "yacht"}
"""Two-player tasks and their rule sets: heads-up, maximise the chance to win (:mod:`yacht_tools.heads_up_eval`)."""
ALL_TASKS: tuple[str, ...] = TASKS + tuple(HEADS_UP)

BUDGETS = {"short": 100_000, "primary": 500_000, "long": 10_000_000}
"""Training budgets in environment steps (decisions): the baseline table is at ``primary``; v1 had the first two."""
V1_BUDGETS = ("short", "primary")
MIN_BUDGET_USE = 0.99
"""A v2 run uses at least this share of its budget and never more than all of it (its ``training.timesteps``)."""

EVAL_SEED = 2_000_000_000
"""Seed of the evaluation games (game ``j``: ``game_seed(EVAL_SEED, j)``); training seeds are below it."""
EVAL_GAMES = 10_000
"""Evaluation games of every record."""
CURVE_SEED = 1_000_000_000
"""Seed of the learning curve's games (``train.py``'s periodic evaluations)."""
CURVE_GAMES = 1_000
"""Games of each point of a learning curve."""
CHECKPOINTS = 5
"""Points of a learning curve: after 1/5, 2/5, ... 5/5 of the budget."""
MAX_TRAINING_SEED = EVAL_SEED - 1
"""Training seeds run from 0 to this: never an evaluation seed."""
DEFAULT_SEEDS = tuple(range(10))
"""The baselines' training seeds: 10 (on ``yacht``; at least 5 on every other task)."""
TUNING_SEEDS = (100, 101)
"""Training seeds of the hyperparameter sweeps: never a baseline's seed."""
TUNING_GAME_SEED = 1_500_000_000
"""Seed of the games a sweep scores its trials on: neither the evaluation games nor the learning curves'."""

KINDS = ("run", "agent", "entry")
"""A record is a ``run`` (trained here by ``yacht bench run``), an ``agent`` (a reference row of every budget: no
training, or none declared) or an ``entry`` (an outside learner evaluated here, its training steps and seed declared
by its author: a learner of its budget)."""
DECLARED = "declared by the user"
"""An entry's ``training.source``: its steps and seed are its author's word, not a run of this machine."""
BASELINE_RECORDS = Path(__file__).resolve().parents[1] / "docs" / "records" / "bench-v2"
"""The published baseline records of this protocol (``yacht bench report --with-baselines``): in a checkout of the
source, not in an installed wheel."""
MAX_BYTES = 4 << 20
"""The largest record read: a record is a few kB (no per-game scores)."""
MAX_RECORDS = 10_000
"""The most records one report reads: the baselines are under 100 (every task, budget, learner and seed of a large
study is a few thousand)."""
MAX_TOTAL_BYTES = 256 << 20
"""The most bytes of records one report reads, counted from the files' sizes before any is read."""
MAX_WALL_S = 1e9
"""The largest ``wall_s`` accepted (about 30 years)."""
FINAL_KEYS = ("mean", "ci95", "episodes", "percent_of_optimal", "normalised", "mean_regret", "regret_per_game")
RECORD_KEYS = ("protocol", "kind", "task", "learner", "budget", "budget_steps", "seed", "final", "references",
               "curve", "config", "training", "versions", "wall_s", "created")


def check_task(task: Any) -> str:
    """``task`` if it is a task of the protocol, else ``ValueError`` naming the tasks."""
    if task not in ALL_TASKS:
        raise ValueError(f"unknown task {task!r}; the tasks of {PROTOCOL}: {', '.join(ALL_TASKS)}")
    return task


def task_rules(task: str) -> str:
    """The rule set a task is played with."""
    return HEADS_UP.get(check_task(task), task)


def task_players(task: str) -> int:
    """The seats of a task's games: 2 for heads-up, else 1."""
    return 2 if check_task(task) in HEADS_UP else 1


def check_budget(budget: Any) -> str:
    """``budget`` if it is a budget of the protocol, else ``ValueError`` naming the budgets."""
    if budget not in BUDGETS:
        raise ValueError(f"unknown budget {budget!r}; the budgets of {PROTOCOL}: "
                         + ", ".join(f"{k} ({v:,} steps)" for k, v in BUDGETS.items()))
    return budget


@cache
def references(task: str) -> dict[str, float]:
    """The two ends of the normalised scale: ``random``, the random player's mean on the evaluation games (its own
    draws seeded with :data:`EVAL_SEED`), and ``optimal``, the solver's exact expected score. Heads-up: the random
    player's chance to win against ``optimal-duel`` on the evaluation games, and optimal play's, 1/2."""
    if task_players(task) == 2:
        rand = heads_up_eval.chance_against_optimal_duel("random", task_rules(task), EVAL_GAMES, EVAL_SEED)
        return {"random": rand["chance"], "optimal": 0.5}
    rs = get_rules(check_task(task))
    rand = evaluate("random", rs, EVAL_GAMES, EVAL_SEED, regret=False, compare=False)["mean"]
    return {"random": float(rand), "optimal": float(solve(rs).start_value)}


def normalised(mean: float, refs: dict[str, float]) -> float:
    """``mean`` on the scale where the random player is 0 and optimal play 1."""
    return (mean - refs["random"]) / (refs["optimal"] - refs["random"])


def final_evaluation(agent: Any, task: str, seed: int = 0, progress: bool = False) -> dict[str, Any]:
    """The protocol's evaluation of ``agent`` (an agent, or a spec :func:`~yacht_agents.loader.load_agent` reads,
    whose own random draws are seeded by ``seed``): its ``final`` section."""
    check_seats(agent, task_players(task))
    if task_players(task) == 2:
        return heads_up_final(agent, task, progress)
    refs = references(task)
    res = evaluate(agent, task, EVAL_GAMES, EVAL_SEED, regret=True, compare=False, progress=progress,
                   agent_seed=seed)
    return {"mean": res["mean"], "ci95": res["ci95"], "episodes": res["episodes"],
            "percent_of_optimal": res["percent_of_optimal"], "normalised": normalised(res["mean"], refs),
            "mean_regret": res.get("mean_regret"), "regret_per_game": res.get("regret_per_game"),
            "agent": res["agent"]}


def heads_up_final(agent: Any, task: str, progress: bool = False) -> dict[str, Any]:
    """The ``final`` section of a heads-up record: the chance to win against ``optimal-duel`` (``mean``, with the
    win-regret per decision as ``mean_regret``), in percent of optimal play's 1/2, normalised, and the win rate
    against the expected-score player ``optimal`` (``against_optimal``), each on the :data:`EVAL_GAMES` evaluation
    games (seats alternating)."""
    rules, games = task_rules(task), EVAL_GAMES
    player = heads_up_eval.as_agent(agent, rules, EVAL_SEED)  # loaded once: both matches reseed it
    duel = heads_up_eval.chance_against_optimal_duel(player, rules, games, EVAL_SEED, progress=progress)
    versus = heads_up_eval.against(player, "optimal", rules, games, EVAL_SEED, progress=progress)
    refs = references(task)
    return {"mean": duel["chance"], "ci95": duel["chance_ci95"], "episodes": games,
            "percent_of_optimal": 100.0 * duel["chance"] / refs["optimal"],
            "normalised": normalised(duel["chance"], refs), "mean_regret": duel["mean_regret"],
            "regret_per_game": duel["regret_per_game"], "win_rate": duel["win_rate"],
            "win_rate_ci95": duel["win_rate_ci95"], "against_optimal": versus, "agent": player.name}


def curve_points(evals: list[dict[str, Any]], budget: str, refs: dict[str, float] | None) -> list[dict[str, Any]]:
    """A learning curve of the protocol from ``evals`` (points with ``timesteps``, ``mean`` and
    ``percent_of_optimal``): at each fifth of the budget the point nearest it (of those nearer it than any other
    fifth; the later on a tie), normalised; ``refs`` None (heads-up): ``mean`` (a win rate) as its normalised
    score."""
    every = BUDGETS[budget] // CHECKPOINTS
    points: dict[int, dict[str, Any]] = {}
    for e in evals:
        k = round(e["timesteps"] / every)
        kept = points.get(k)
        if 1 <= k <= CHECKPOINTS and (kept is None or abs(e["timesteps"] - k * every)
                                      <= abs(kept["timesteps"] - k * every)):
            points[k] = {"checkpoint": k, "timesteps": e["timesteps"], "mean": e["mean"],
                         "percent_of_optimal": e["percent_of_optimal"],
                         "normalised": e["mean"] if refs is None else normalised(e["mean"], refs)}
    return [points[k] for k in sorted(points)]


def versions() -> dict[str, str | None]:
    """The versions a record was made with: Python and the packages that decide its numbers."""
    out: dict[str, str | None] = {"python": platform.python_version()}
    for dist in ("yacht-env", "numpy", "numba", "torch", "stable-baselines3", "sb3-contrib", "gymnasium"):
        try:
            out[dist] = md.version(dist)
        except md.PackageNotFoundError:
            out[dist] = None
    return out


def make_record(kind: str, task: str, learner: str, seed: int, final: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """A record: ``kind`` (:data:`KINDS`), the task, the learner's (or agent's) name, the seed (an entry's: its
    training seed) and the ``final`` evaluation; ``extra``: ``budget``, ``curve``, ``config``, ``training``,
    ``wall_s``, and ``agent_seed`` (an entry's) or ``verified`` (False: an agent without a declared training)."""
    budget = extra.get("budget")
    record = {"protocol": PROTOCOL, "kind": kind, "task": task, "learner": learner, "budget": budget,
              "budget_steps": BUDGETS[budget] if budget else None, "seed": seed, "final": final,
              "references": references(task), "curve": extra.get("curve", []), "config": extra.get("config"),
              "training": extra.get("training"), "versions": versions(), "wall_s": extra.get("wall_s"),
              "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}
    record.update({k: extra[k] for k in ("agent_seed", "verified") if k in extra})
    check_record(record, "the new record")
    return record


def record_name(task: str, learner: str, budget: str | None, seed: int, kind: str = "run") -> str:
    """The file name of a record: ``<task>-<learner>-<budget>-s<seed>.json`` (``agent`` for an agent's; an entry's
    ``<budget>-entry``, so that it never takes a run's place)."""
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in learner)[:80]
    return f"{task}-{safe}-{budget or 'agent'}{'-entry' if kind == 'entry' else ''}-s{seed}.json"


def write_record(record: dict[str, Any], folder: str | Path) -> Path:
    """Write ``record`` into ``folder`` (made if missing), atomically; return its path."""
    path = Path(folder) / record_name(record["task"], record["learner"], record["budget"], record["seed"],
                                      record["kind"])
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(path, json.dumps(record, indent=1, allow_nan=False) + "\n")
    return path


def _number(value: Any, what: str, where: str) -> float:
    """``value`` as a float if it is a finite JSON number, else ``ValueError`` (an integer of 400 digits too: it has
    no float)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 2 ** 1023:
        raise ValueError(f"{where}: {what} must be a finite number, got an integer of {len(str(abs(value))):,} "
                         "digits")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{where}: {what} must be a finite number, got {str(value)[:40]}")
    return float(value)


def _agrees(value: float, want: float, what: str, where: str) -> None:
    """``ValueError`` unless ``value`` is ``want`` (what the record's own numbers give) up to rounding."""
    if not math.isclose(value, want, rel_tol=1e-9, abs_tol=1e-9):
        raise ValueError(f"{where}: {what} is {value!r}, its own numbers give {want!r}")


def _one_line_name(name: Any, where: str) -> str:
    """A learner's name: 1 to 200 printable characters (no newline, tab or other control character)."""
    if not isinstance(name, str) or not 0 < len(name) <= 200 or not name.isprintable():
        raise ValueError(f"{where}: learner must be a name of 1 to 200 printable characters on one line, got "
                         f"{ascii(name)[:80]}")
    return name


def check_record(record: Any, where: str) -> dict[str, Any]:
    """``record`` if it is a record of this protocol, else ``ValueError`` naming ``where`` and what is wrong."""
    if not isinstance(record, dict):
        raise ValueError(f"{where}: not a benchmark record (a JSON object), got {type(record).__name__}")
    if record.get("protocol") not in PROTOCOLS:
        raise ValueError(f"{where}: a record of protocol {str(record.get('protocol'))[:40]!r}; this version reads "
                         f"{' and '.join(map(repr, PROTOCOLS))} (rerun it with this version: yacht bench run / "
                         "evaluate)")
    missing = [k for k in RECORD_KEYS if k not in record]
    if missing:
        raise ValueError(f"{where}: missing {', '.join(missing)}")
    try:
        check_task(record["task"])
        if record["budget"] is not None:
            check_budget(record["budget"])
    except ValueError as e:
        raise ValueError(f"{where}: {e}") from None
    if record["kind"] not in KINDS:
        raise ValueError(f"{where}: kind must be one of {', '.join(KINDS)}, got {record['kind']!r}")
    if record["budget"] is not None:
        if record["protocol"] == V1 and record["budget"] not in V1_BUDGETS:
            raise ValueError(f"{where}: {V1} has the budgets {', '.join(V1_BUDGETS)}, not {record['budget']!r}")
        if record["budget_steps"] != BUDGETS[record["budget"]]:
            raise ValueError(f"{where}: budget {record['budget']!r} is {BUDGETS[record['budget']]:,} steps in "
                             f"{PROTOCOL}, the record says {record['budget_steps']!r}")
    elif record["kind"] != "agent":
        raise ValueError(f"{where}: {_a(record['kind'])} record needs its budget")
    _one_line_name(record["learner"], where)
    if record["protocol"] == PROTOCOL and record["kind"] == "run":
        _check_budget_held(record["training"], record["budget_steps"], where)
    if record["protocol"] == PROTOCOL and record["kind"] == "agent" and record["budget"] is not None:
        raise ValueError(f"{where}: an agent record has no budget (it is a reference row of every budget); an agent "
                         "among a budget's learners is an entry, its training declared (yacht bench evaluate "
                         "--training-steps S --training-seed T)")
    if record["kind"] == "entry":
        _check_entry(record, where)
    if "verified" in record and (record["verified"] is not False or record["kind"] != "agent"):
        raise ValueError(f"{where}: verified is only ever false, on an agent record (an agent evaluated without a "
                         f"declared training), got {str(record['verified'])[:40]} on {_a(record['kind'])} record")
    seed = record["seed"]
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_TRAINING_SEED:
        raise ValueError(f"{where}: seed must be an integer in 0..{MAX_TRAINING_SEED}, got {seed!r}")
    final = record["final"]
    if not isinstance(final, dict) or any(k not in final for k in FINAL_KEYS):
        raise ValueError(f"{where}: final must hold {', '.join(FINAL_KEYS)}")
    if type(final["episodes"]) is not int or final["episodes"] != EVAL_GAMES:
        raise ValueError(f"{where}: the protocol evaluates {EVAL_GAMES:,} games, the record "
                         f"{str(final['episodes'])[:40]}")
    for k in ("mean", "percent_of_optimal", "normalised", "mean_regret"):
        _number(final[k], f"final.{k}", where)
    ci = final["ci95"]
    if not isinstance(ci, list) or len(ci) != 2:
        raise ValueError(f"{where}: final.ci95 must be two numbers, [low, high]")
    for k in (0, 1):
        _number(ci[k], f"final.ci95[{k}]", where)
    if final["regret_per_game"] is not None:
        _number(final["regret_per_game"], "final.regret_per_game", where)
    refs = _check_references(record["references"], where)
    if task_players(record["task"]) == 2:
        _check_heads_up(final, refs, where)
    else:
        extra = [k for k in ("against_optimal", "win_rate", "win_rate_ci95") if k in final]
        if extra:
            raise ValueError(f"{where}: final.{extra[0]} belongs to a heads-up record, not to one of the one-player "
                             f"task {record['task']!r}")
    _agrees(final["normalised"], normalised(final["mean"], refs), "final.normalised", where)
    _agrees(final["percent_of_optimal"], 100.0 * final["mean"] / refs["optimal"], "final.percent_of_optimal", where)
    _check_curve(record["curve"], refs, task_players(record["task"]), where)
    wall = record["wall_s"]
    if wall is not None and not 0 <= _number(wall, "wall_s", where) <= MAX_WALL_S:
        raise ValueError(f"{where}: wall_s must be seconds in 0..{MAX_WALL_S:.0e}, got {str(wall)[:40]}")
    return record


def _check_budget_held(training: Any, budget: int, where: str, what: str = "run") -> None:
    """A v2 run's (or entry's) ``training.timesteps``: at least :data:`MIN_BUDGET_USE` of its budget, never more (a
    run over its budget is refused: its score is not a score at that budget)."""
    steps = training.get("timesteps") if isinstance(training, dict) else None
    if type(steps) is not int:
        raise ValueError(f"{where}: {_a(what)} record needs training.timesteps, the environment steps it trained on")
    low = math.ceil(MIN_BUDGET_USE * budget)
    if steps > budget:
        raise ValueError(f"{where}: the {what} trained {steps:,} steps, over its budget of {budget:,}: refused "
                         "(a score past the budget is not one at the budget)")
    if steps < low:
        raise ValueError(f"{where}: the {what} trained {steps:,} steps, under {MIN_BUDGET_USE:.0%} of its budget of "
                         f"{budget:,} ({low:,})")


def _a(kind: str) -> str:
    """A record's kind with its article: ``a run``, ``an entry``, ``an agent``."""
    return f"{'an' if kind[:1] in 'aeiou' else 'a'} {kind}"


def check_entry_training(steps: int, budget: str, where: str = "--training-steps") -> int:
    """``steps`` if an entry trained for them is a learner of ``budget`` (the rule a run's record is held to:
    :data:`MIN_BUDGET_USE` of it to all of it), else ``ValueError``."""
    _check_budget_held({"timesteps": steps}, BUDGETS[check_budget(budget)], where, "entry")
    return steps


def entry_training(steps: int, seed: int) -> dict[str, Any]:
    """An entry record's ``training``: the steps and training seed its author declared."""
    return {"timesteps": steps, "seed": seed, "source": DECLARED}


def _check_entry(record: dict[str, Any], where: str) -> None:
    """An entry: of this protocol, its training declared (steps that hold the budget, the record's seed as its
    training seed) and the agent's own draws' seed apart (``agent_seed``)."""
    if record["protocol"] != PROTOCOL:
        raise ValueError(f"{where}: an entry record is of {PROTOCOL}, not {record['protocol']}")
    training = record["training"]
    if not isinstance(training, dict) or set(training) != {"timesteps", "seed", "source"}:
        raise ValueError(f"{where}: an entry's training holds exactly timesteps, seed and source (the steps and "
                         "training seed its author declared)")
    _check_budget_held(training, record["budget_steps"], where, "entry")
    if training["seed"] != record["seed"] or type(training["seed"]) is not int:
        raise ValueError(f"{where}: an entry's training.seed is its record's seed ({record['seed']!r}), got "
                         f"{str(training['seed'])[:40]}")
    if training["source"] != DECLARED:
        raise ValueError(f"{where}: an entry's training.source is {DECLARED!r}, got {str(training['source'])[:40]!r}")
    agent_seed = record.get("agent_seed")
    if type(agent_seed) is not int or not 0 <= agent_seed < 2 ** 64:
        raise ValueError(f"{where}: an entry needs agent_seed, the seed of the agent's own draws (an integer in "
                         f"0..2**64-1), got {str(agent_seed)[:40]}")


def _check_references(refs: Any, where: str) -> dict[str, float]:
    """The two ends of the normalised scale: finite, optimal above random."""
    if not isinstance(refs, dict) or set(refs) != {"random", "optimal"}:
        raise ValueError(f"{where}: references must hold random and optimal")
    for k in ("random", "optimal"):
        _number(refs[k], f"references.{k}", where)
    if not refs["optimal"] > refs["random"]:
        raise ValueError(f"{where}: references.optimal ({refs['optimal']!r}) must be above references.random "
                         f"({refs['random']!r})")
    return refs


def _check_curve(curve: Any, refs: dict[str, float], players: int, where: str) -> None:
    """The learning curve: at most :data:`CHECKPOINTS` points, each checkpoint once, finite numbers, steps not
    negative; a one-player point's normalised score agrees with its mean (a heads-up point's is the win rate)."""
    if not isinstance(curve, list) or len(curve) > CHECKPOINTS:
        raise ValueError(f"{where}: curve must be a list of at most {CHECKPOINTS} points")
    seen = set()
    for p in curve:
        if not isinstance(p, dict) or type(p.get("checkpoint")) is not int or p["checkpoint"] not in range(
                1, CHECKPOINTS + 1) or p["checkpoint"] in seen:
            raise ValueError(f"{where}: each curve point needs a checkpoint in 1..{CHECKPOINTS}, each once")
        seen.add(p["checkpoint"])
        for k in ("timesteps", "mean", "normalised"):
            _number(p.get(k), f"curve.{k}", where)
        if p["timesteps"] < 0:
            raise ValueError(f"{where}: curve.timesteps must not be negative, got {p['timesteps']!r}")
        if players == 1:
            _agrees(p["normalised"], normalised(p["mean"], refs), f"curve[{p['checkpoint']}].normalised", where)


def _check_heads_up(final: dict[str, Any], refs: Any, where: str) -> None:
    """The fields only a heads-up record has: the win rates (shares in 0..1) and exact play's chance, 1/2."""
    versus = final.get("against_optimal")
    if not isinstance(versus, dict):
        raise ValueError(f"{where}: a heads-up record's final needs against_optimal (the win rate against optimal)")
    for what, value in (("final.win_rate", final.get("win_rate")),
                        ("final.against_optimal.win_rate", versus.get("win_rate"))):
        if not 0 <= _number(value, what, where) <= 1:
            raise ValueError(f"{where}: {what} must be a share in 0..1, got {value!r}")
    if refs.get("optimal") != 0.5:
        raise ValueError(f"{where}: a heads-up record's references.optimal is exact play's chance to win, 0.5")


def read_record(path: str | Path) -> dict[str, Any]:
    """The record at ``path``, checked (:func:`check_record`): at most :data:`MAX_BYTES`, JSON only."""
    raw = read_regular(Path(path), MAX_BYTES, "a benchmark record")
    try:
        data = json.loads(raw.decode("utf-8"), parse_constant=lambda c: float("nan"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:
        raise ValueError(f"{path}: not a JSON benchmark record ({e})") from None
    return check_record(data, str(path))


def record_files(paths: list[str | Path]) -> list[Path]:
    """The record files ``paths`` name (files, or folders whose ``*.json`` are all records), in a stable order, at
    most :data:`MAX_RECORDS` of them and :data:`MAX_TOTAL_BYTES` in all (counted before any is read)."""
    files: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            found = []
            with os.scandir(p) as entries:
                for entry in entries:
                    if fnmatch.fnmatchcase(entry.name, "*.json"):
                        found.append(p / entry.name)
                        _check_count(len(files) + len(found), paths)
            files += sorted(found)
        elif p.exists():
            files.append(p)
            _check_count(len(files), paths)
        else:
            raise ValueError(f"{str(p)!r}: no such record or folder")
    if not files:
        raise ValueError(f"no records (*.json) in {', '.join(map(str, paths))}")
    total = 0
    for f in files:
        with contextlib.suppress(OSError):  # read_record says what is wrong with it
            total += os.stat(f).st_size
    if total > MAX_TOTAL_BYTES:
        raise ValueError(f"the records in {', '.join(map(str, paths))} are {total:,} bytes, more than the limit of "
                         f"{MAX_TOTAL_BYTES:,} (MAX_TOTAL_BYTES; a record is a few kB)")
    return files


def _check_count(count: int, paths: list[str | Path]) -> None:
    if count > MAX_RECORDS:
        raise ValueError(f"more than {MAX_RECORDS:,} records (*.json) in {', '.join(map(str, paths))}; a report "
                         f"reads at most {MAX_RECORDS:,} (MAX_RECORDS)")


def read_records(paths: list[str | Path]) -> list[dict[str, Any]]:
    """Every record in ``paths`` (:func:`record_files`), each checked (:func:`read_record`), in a stable order."""
    return [read_record(f) for f in record_files(paths)]
