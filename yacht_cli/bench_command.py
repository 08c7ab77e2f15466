"""``yacht bench``: the benchmark protocol's commands (the documentation's Benchmark protocol page).

    yacht bench run --learner td=configs/yacht_td.yaml --tasks yacht yahtzee --budget primary --seeds 0 1 2 3 4
    yacht bench evaluate --agent greedy --tasks yacht yahtzee [--seeds 0]
    yacht bench evaluate --agent my.zip --name mine --tasks yacht --budget primary --training-steps 500000 \
        --training-seed 3 [--curve curve.csv]
    yacht bench report bench/records [--with-baselines] [--markdown PATH] [--json PATH] [--plot PATH] [--profiles PATH]
    yacht bench tune sweep.yaml [--out bench/tuning] [--workers N] [--write-config PATH]

``run`` and ``tune`` need the ``train`` extra; the others the base install and scipy.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from yacht_cli import options
from yacht_env.extras import require
from yacht_tools import protocol as P
from yacht_tools.output_paths import Input, check_output_paths, write_user_text
from yacht_tools.seeds import check_int, check_seed


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``bench`` sub-parser and its commands."""
    p = subparsers.add_parser(
        "bench", help="the benchmark protocol: train over seeds, evaluate any agent, report with intervals, tune",
        description=f"The benchmark protocol ({P.PROTOCOL}): every learner on fixed tasks and step budgets over "
                    "several training seeds, measured on fixed evaluation games against exact optimal play, "
                    "reported as interquartile means with stratified bootstrap intervals.")
    sub = p.add_subparsers(dest="bench_command", metavar="COMMAND")
    tasks_help = (f"tasks: the one-player rule sets {', '.join(P.TASKS)} (the default: all of them), and the "
                  f"two-player {', '.join(P.HEADS_UP)} (heads-up: the chance to win against optimal-duel)")

    r = sub.add_parser("run", help="train learners on tasks over seeds; one record per run (resumable)",
                       description="Train each learner on each task for the budget from each seed, then evaluate "
                                   "it on the protocol's games; one JSON record per run in OUT/records. Run again "
                                   "to go on: recorded runs are kept, started ones resume from their checkpoint.")
    r.add_argument("--learner", action="append", required=True, metavar="[NAME=]CONFIG",
                   help="a train.py config (its rules, budget, seed and evaluations are the protocol's); "
                        "repeat for several learners")
    r.add_argument("--tasks", nargs="+", metavar="TASK", help=tasks_help)
    r.add_argument("--budget", default="primary", help="step budget: " + ", ".join(
        f"{k} ({v:,})" for k, v in P.BUDGETS.items()) + " (default: primary)")
    r.add_argument("--seeds", nargs="+", metavar="SEED",
                   help="training seeds (default: " + " ".join(map(str, P.DEFAULT_SEEDS)) + ")")
    r.add_argument("--out", default="bench", help="folder of the runs and records (default: bench)")
    r.add_argument("--workers", default="1", help="runs side by side in processes (default: 1)")
    r.add_argument("--ray-address", help="run each run as a Ray task on this cluster (HOST:PORT or 'auto')")
    options.add_progress(r)

    e = sub.add_parser("evaluate", help="put any agent through the protocol's evaluation; one record per task",
                       description="Evaluate an agent (anything `yacht eval --agent` accepts) on the protocol's "
                                   "games of each task, one record per task, which the report reads. With --budget, "
                                   "--training-steps and --training-seed it is an entry: a learner of that budget, "
                                   "its training as you declare it; without them a reference row of every budget.")
    options.add_agent(e, default=None, help_="the agent")
    e.add_argument("--name", help="the name the report shows (default: the agent spec)")
    e.add_argument("--tasks", nargs="+", metavar="TASK", help=tasks_help)
    e.add_argument("--seeds", nargs="+", metavar="SEED",
                   help="seeds of the agent's own random draws (not training seeds), one record each; an entry's: "
                        "one (default: 0)")
    e.add_argument("--budget", help="the budget the agent was trained for: with --training-steps and "
                                    "--training-seed it is a learner of that budget (an entry); without them it "
                                    "is recorded unverified, a reference row (default: a reference row of every "
                                    "budget)")
    e.add_argument("--training-steps", metavar="STEPS",
                   help=f"the environment steps the agent trained on: {100 * P.MIN_BUDGET_USE:.0f}%% to 100%% of the "
                        "budget's (as a run's)")
    e.add_argument("--training-seed", metavar="SEED", help="the seed the agent was trained from")
    e.add_argument("--curve", metavar="FILE", help="the agent's learning curve, one task's: a CSV with the header "
                                                   "timesteps,mean or timesteps,percent_of_optimal, or a JSON list "
                                                   "of {timesteps, mean}")
    e.add_argument("--out", default="bench", help="folder of the records (default: bench)")
    options.add_progress(e)

    g = sub.add_parser("report", help="aggregate records into tables (and a plot) with bootstrap intervals",
                       description="Read records (files, or folders of them) and print, per budget, each task's "
                                   "table and the normalised score aggregated over tasks: interquartile mean, mean, "
                                   "median and optimality gap with 95% stratified bootstrap intervals over the "
                                   "training seeds, and the probability of improvement between learners.")
    g.add_argument("records", nargs="*", metavar="RECORDS", help="record files or folders of them")
    g.add_argument("--with-baselines", action="store_true",
                   help="add the published baseline records of this protocol (docs/records/bench-v2 of a checkout "
                        "of the source) to RECORDS: your agent beside the baselines")
    g.add_argument("--markdown", metavar="PATH", help="also write the tables as Markdown")
    g.add_argument("--json", metavar="PATH", help="write the aggregates as JSON")
    g.add_argument("--plot", metavar="PATH", help="write the learning curves (PNG) with interval bands")
    g.add_argument("--profiles", metavar="PATH", help="write the performance profiles (PNG): the share of runs "
                                                      "above each normalised score, with bands, a panel per budget")

    t = sub.add_parser("tune", help="sweep one learner's settings at one budget on tuning seeds and games",
                       description="Train every point of a sweep's grid at its budget from each tuning seed "
                                   f"({', '.join(map(str, P.TUNING_SEEDS))}), score it on the tuning games (never "
                                   "the evaluation games) and name the winner. Run again to go on: finished "
                                   "trials are kept.")
    t.add_argument("sweep", metavar="SWEEP", help="the sweep: YAML with base (a train.py config), task, budget and "
                                                  "grid (dotted config keys, each a list of values)")
    t.add_argument("--out", default="bench/tuning", help="folder of the trials and the result "
                                                         "OUT/<sweep>.json (default: bench/tuning)")
    t.add_argument("--workers", default="1", help="trainings side by side in processes (default: 1)")
    t.add_argument("--write-config", metavar="PATH", help="write the winner's config as a train.py YAML")
    options.add_progress(t)
    return p


def _seeds(values: list[str] | None, default: tuple[int, ...] = P.DEFAULT_SEEDS) -> list[int]:
    if values is None:
        return list(default)
    seeds = [check_seed(s) for s in values]
    if any(s > P.MAX_TRAINING_SEED for s in seeds):
        raise ValueError(f"seeds must be at most {P.MAX_TRAINING_SEED:,} (the evaluation games' seed is above)")
    if len(set(seeds)) != len(seeds):
        raise ValueError(f"--seeds repeats a seed: {' '.join(values)}")
    return seeds


def _tasks(values: list[str] | None) -> list[str]:
    if values is None:
        return list(P.TASKS)
    tasks = [P.check_task(t) for t in values]
    if len(set(tasks)) != len(tasks):
        raise ValueError(f"--tasks repeats a task: {' '.join(values)}")
    return tasks


def run(args: argparse.Namespace) -> int:
    """Dispatch to the bench command."""
    command = getattr(args, "bench_command", None)
    if command == "run":
        return _run(args)
    if command == "evaluate":
        return _evaluate(args)
    if command == "report":
        return _report(args)
    if command == "tune":
        return _tune(args)
    raise ValueError("give a bench command: run, evaluate, report or tune (yacht bench --help)")


def _run(args: argparse.Namespace) -> int:
    from yacht_training.bench_runs import RunSpec, parse_learner, run_all

    tasks, seeds, budget = _tasks(args.tasks), _seeds(args.seeds), P.check_budget(args.budget)
    workers = check_int(args.workers, "--workers", 1, 256)
    learners = [parse_learner(text) for text in args.learner]
    names = [n for n, _ in learners]
    if len(set(names)) != len(names):
        raise ValueError(f"two learners share a name: {', '.join(names)} (give NAME=CONFIG)")
    specs = [RunSpec(name, cfg, t, budget, s, args.out) for t in tasks for name, cfg in learners for s in seeds]
    for rules in sorted({P.task_rules(t) for t in tasks if P.task_players(t) == 2}):
        from yacht_solver.duel import solve_duel  # the heads-up evaluation's table: solved (or read) once, here,
        solve_duel(rules)                         # not by each worker after its training
    t0 = time.perf_counter()
    records, problems = run_all(specs, workers, args.ray_address, options.progress(args))
    print(f"{len(records)} of {len(specs)} runs recorded in {args.out}/records "
          f"({time.perf_counter() - t0:,.0f} s); report them with: yacht bench report {args.out}/records")
    for line in problems:
        print(f"yacht bench run: {line}", file=sys.stderr)
    return 0 if not problems else (130 if all("interrupted" in p for p in problems) else 1)


def _evaluate(args: argparse.Namespace) -> int:
    if not args.agent:
        raise ValueError("--agent is required: the agent to evaluate (any spec yacht eval --agent accepts)")
    tasks, seeds = _tasks(args.tasks), _seeds(args.seeds, default=(0,))
    if seeds != [0] and any(P.task_players(t) == 2 for t in tasks):
        raise ValueError("--seeds: on a heads-up task the agents' own draws are seeded from the evaluation games (as "
                         "yacht tournament seeds them), so every seed gives the same record: leave --seeds out")
    budget = None if args.budget is None else P.check_budget(args.budget)
    name = args.name or args.agent.rstrip("/").split("/")[-1]
    training, curve = _declared_training(args, budget, tasks, seeds)
    if budget is not None and training is None:
        print(f"yacht bench evaluate: {name} is recorded unverified, a reference row, not a learner of {budget}: "
              "give --training-steps and --training-seed to enter it", file=sys.stderr)
    for task in tasks:
        for seed in seeds:
            t0 = time.perf_counter()
            final = P.final_evaluation(args.agent, task, seed=seed, progress=options.progress(args))
            wall = round(time.perf_counter() - t0, 1)
            if training is None:
                record = P.make_record("agent", task, name, seed, final, wall_s=wall,
                                       **({"verified": False} if budget else {}))
            else:
                record = P.make_record("entry", task, name, training["seed"], final, budget=budget, curve=curve,
                                       training=training, agent_seed=seed, wall_s=wall)
            path = P.write_record(record, f"{args.out}/records")
            what = (f"(seed {seed})" if training is None else f"(trained {training['timesteps']:,} steps from seed "
                    f"{training['seed']}, declared; its draws seeded {seed})")
            if P.task_players(task) == 2:
                print(f"{task}: {name} {what} wins {final['mean']:.4f} against optimal-duel (win-regret "
                      f"{final['mean_regret']:.5f} per decision), {final['against_optimal']['win_rate']:.4f} against "
                      f"optimal -> {path}")
                continue
            print(f"{task}: {name} {what} {final['mean']:.2f} = {final['percent_of_optimal']:.2f}% of "
                  f"optimal, normalised {final['normalised']:.4f}, regret {final['mean_regret']:.4f} per decision "
                  f"-> {path}")
    return 0


def _declared_training(args: argparse.Namespace, budget: str | None, tasks: list[str],
                       seeds: list[int]) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """An entry's declared training (None for an agent: no steps and seed given) and its learning curve, all
    checked before any evaluation."""
    if args.training_steps is None and args.training_seed is None:
        if args.curve:
            raise ValueError("--curve is an entry's learning curve: give it with --budget, --training-steps and "
                             "--training-seed")
        return None, []
    if args.training_steps is None or args.training_seed is None:
        raise ValueError("give both --training-steps and --training-seed (the steps the agent trained on and the "
                         "seed it trained from), or neither (a reference row)")
    if budget is None:
        raise ValueError("--training-steps and --training-seed need --budget: the budget the agent was trained for "
                         "(" + ", ".join(f"{k} {v:,}" for k, v in P.BUDGETS.items()) + " steps)")
    steps = P.check_entry_training(check_int(args.training_steps, "--training-steps", 1), budget)
    seed = check_int(args.training_seed, "--training-seed", 0, P.MAX_TRAINING_SEED)
    if len(seeds) != 1:
        raise ValueError("--seeds: an entry is one trained agent, one record per task: give one seed of its own "
                         "draws, or leave --seeds out (0)")
    curve: list[dict[str, Any]] = []
    if args.curve:
        if len(tasks) != 1:
            raise ValueError("--curve is one task's learning curve: give one task (--tasks TASK)")
        from yacht_tools.entry_curve import read_curve

        curve = read_curve(args.curve, tasks[0], budget, steps)
    return P.entry_training(steps, seed), curve


def _report(args: argparse.Namespace) -> int:
    import json
    from pathlib import Path

    from yacht_tools.plots import save
    from yacht_tools.protocol_report import aggregate_records, curves_figure, markdown_report, profiles_figure

    paths = _record_paths(args.records, args.with_baselines)
    inputs = [Input(p, "the records folder", ("*.json",)) if Path(p).is_dir() else Input(p, "the record")
              for p in paths]
    outputs = check_output_paths({"--markdown": args.markdown, "--json": args.json, "--plot": args.plot,
                                  "--profiles": args.profiles}, inputs)
    for flag in ("--plot", "--profiles"):
        if outputs[flag]:
            require("matplotlib", what=flag)
    records = P.read_records(paths)  # each checked: a bad record is named in one line before any output
    report = aggregate_records(records)
    text = markdown_report(report)
    as_json = json.dumps(report, indent=1, allow_nan=False) + "\n"  # made before anything is written
    fig = curves_figure(records) if outputs["--plot"] else None
    profiles = profiles_figure(records) if outputs["--profiles"] else None
    print(text)
    if outputs["--markdown"]:
        write_user_text(outputs["--markdown"], text + "\n")
    if outputs["--json"]:
        write_user_text(outputs["--json"], as_json)
    if fig is not None and outputs["--plot"]:
        save(fig, outputs["--plot"])
    if profiles is not None and outputs["--profiles"]:
        save(profiles, outputs["--profiles"])
    return 0


def _record_paths(given: list[str], with_baselines: bool) -> list[str]:
    """The records a report reads: ``given``, and with ``--with-baselines`` the published baselines' folder (once,
    if it is also given)."""
    from pathlib import Path

    if not with_baselines:
        if not given:
            raise ValueError("give the records to report (files or folders of them), or --with-baselines")
        return given
    folder = Path(P.BASELINE_RECORDS)
    if not folder.is_dir():
        raise ValueError(f"--with-baselines: the published baseline records are not in this install ({folder} is "
                         "missing: they come with a checkout of the source, in docs/records/bench-v2/); give their "
                         "folder as a RECORDS argument instead")
    if any(Path(p).resolve() == folder.resolve() for p in given):
        return given
    return [*given, str(folder)]


def _tune(args: argparse.Namespace) -> int:
    from pathlib import Path

    import yaml

    from yacht_training.tuning import read_sweep, run_sweep, winner_config

    workers = check_int(args.workers, "--workers", 1, 256)
    outputs = check_output_paths({"--write-config": args.write_config}, [
        Input(args.sweep, "the sweep"), Input(args.out, "the sweep's folder", (f"{Path(args.sweep).stem}.json",))])
    sweep = read_sweep(args.sweep)  # every trial's config checked before any training
    t0 = time.perf_counter()
    result = run_sweep(sweep, args.out, workers=workers, progress=options.progress(args))
    winner = result.get("winner")
    if winner is None:
        raise ValueError(f"{args.sweep}: the sweep has no finished trial")
    change = ", ".join(f"{k}={v}" for k, v in _dotted(winner["change"]))
    print(f"{sweep.name}: {len(result['trials'])} trials of {sweep.task} at budget {sweep.budget} "
          f"({result['budget_steps']:,} steps) over tuning seeds {', '.join(map(str, result['seeds']))}; winner "
          f"trial {winner['trial']} ({change}): {winner['mean']:.2f}% of optimal on the tuning games; the sweep "
          f"took {result['core_seconds'] / 3600:.2f} core-hours ({time.perf_counter() - t0:,.0f} s here) -> "
          f"{args.out}/{sweep.name}.json")
    if outputs["--write-config"]:
        text = yaml.safe_dump(winner_config(result), sort_keys=False)
        write_user_text(outputs["--write-config"], text)
        print(f"the winner's config -> {outputs['--write-config']}")
    return 0


def _dotted(change: dict[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    """A nested config change as (dotted key, value) pairs, as a sweep's grid names them."""
    out: list[tuple[str, Any]] = []
    for k, v in change.items():
        out += _dotted(v, f"{prefix}{k}.") if isinstance(v, dict) else [(f"{prefix}{k}", v)]
    return out
