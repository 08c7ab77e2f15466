"""``yacht solve``: the optimal expected score of a rule set, the exact score distribution of optimal play, and the
best probability to reach a target.

    yacht solve --rules yacht [--json [PATH]] [--no-cache]
    yacht solve --rules yacht --distribution [--json [PATH]] [--plot PATH]
    yacht solve --rules yacht --objective reach --target 200 [--json [PATH]] [--plot PATH]
    yacht solve --rules yacht --objective duel [--json [PATH]]
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from yacht_cli import options
from yacht_env.extras import require
from yacht_env.jit.stopwatch import Stopwatch
from yacht_env.rules import get_rules
from yacht_solver import solve
from yacht_solver.reach import sweep_progress
from yacht_tools.messages import shown
from yacht_tools.objective_eval import check_objective
from yacht_tools.output_paths import check_output_paths, write_user_text
from yacht_tools.progress import progress_bar


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register the ``solve`` subcommand."""
    p = subparsers.add_parser(
        "solve",
        help="solve a rule set exactly: optimal expected score, score distribution, probability to reach a target",
        description="Solve a rule set by backward induction and print the optimal expected final score of a new "
        "game; with --distribution the exact distribution of the final score under that play; with --objective "
        "reach --target T the best probability P*(T) to end with at least T points. The solved table of the "
        "expected score is cached on disk ($YACHT_ENV_CACHE_DIR or the user cache directory), and so are the tables "
        "of the distribution and of reach; computing one shows its progress on stderr (turn-start rows done, time "
        "left). The time printed leaves out numba's compilation on first use.",
    )
    options.add_rules(p)
    p.add_argument("--json", nargs="?", const="-", metavar="PATH",
                   help="write the result as JSON to PATH (no PATH or '-': print it)")
    p.add_argument("--no-cache", action="store_true", help="solve again: neither read nor write the disk cache")
    p.add_argument("--distribution", action="store_true",
                   help="the exact distribution of the final score under expected-score optimal play")
    options.add_objective(p)
    for a in p._actions:  # the objectives of this command: also the game of two
        if a.dest == "objective":
            a.help += "; duel: the game of two players solved exactly (the first player's chance to win)"
    options.add_progress(p)
    p.add_argument("--plot", metavar="PATH", help="write a PNG: the distribution (--distribution), or the curve "
                   "T -> P*(T) beside the expected-score player's P(final >= T) (--objective reach)")
    return p


def _emit(result: dict[str, Any], path: str | None) -> None:
    if path is None:
        return
    text = json.dumps(result)
    if path == "-":
        print(text)
    else:
        write_user_text(path, text + "\n")
        print(f"wrote {shown(path)}", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    """Solve and print; returns the exit status."""
    rules = get_rules(args.rules)
    if args.objective == "duel":
        return _run_duel(args)
    target = check_objective(args.objective, args.target)
    reach = target is not None
    if reach and args.distribution:
        raise ValueError("--distribution and --objective reach are two reports: give one")
    if args.plot and not (reach or args.distribution):
        raise ValueError("--plot goes with --distribution or --objective reach")
    check_output_paths({"--json": None if args.json == "-" else args.json, "--plot": args.plot})
    if args.plot:
        require("matplotlib", what="--plot")
    with Stopwatch() as sw:
        sol = solve(rules, cache=not args.no_cache)
    base = {"rules": sol.rules.name, "start_value": sol.start_value}
    if reach or args.distribution:
        with sweep_progress(lambda total, desc: progress_bar(total, desc, unit="row")):  # tables not yet cached
            return _run_reach(args, base, target) if reach else _run_distribution(args, base)
    if args.json is not None:
        _emit(base | {"seconds": round(sw.seconds, 6), "cached": sol.from_cache}, args.json)
    if args.json != "-":
        how = "loaded from cache" if sol.from_cache else "solved"
        print(f"{sol.rules.title}: optimal expected score {sol.start_value:.7f} ({how} in {sw.seconds:.3f} s)")
    return 0


def _run_distribution(args: argparse.Namespace, base: dict[str, Any]) -> int:
    from yacht_solver.distribution import distribution_table

    with Stopwatch() as sw:
        table = distribution_table(args.rules, cache=not args.no_cache)
    d = table.start
    probs = d.probabilities
    last = int(probs.nonzero()[0][-1])
    result = base | {"distribution": [float(p) for p in probs[: last + 1]], "mean": d.mean, "std": d.std,
                     "seconds": round(sw.seconds, 6)}
    _emit(result, args.json)
    if args.json != "-":
        rules = get_rules(args.rules)
        qs = ", ".join(f"{int(q * 100)}%: {d.quantile(q)}" for q in (0.01, 0.1, 0.5, 0.9, 0.99))
        print(f"{rules.title}: final score under expected-score optimal play: mean {d.mean:.7f} (solver "
              f"{base['start_value']:.7f}), std {d.std:.4f}; quantiles {qs}; ({sw.seconds:.2f} s)")
    if args.plot:
        from yacht_tools.objective_plots import plot_distribution

        plot_distribution(probs[: last + 1], f"{get_rules(args.rules).title}: exact final-score distribution",
                          args.plot)
    return 0


def _run_reach(args: argparse.Namespace, base: dict[str, Any], target: int) -> int:
    from yacht_solver.reach import solve_reach

    expected_player = None
    if args.plot or args.json is not None:  # first: one table in memory at a time (1.2 GB for Yahtzee)
        from yacht_solver.distribution import score_distribution

        expected_player = score_distribution(args.rules, cache=not args.no_cache).at_least()
    with Stopwatch() as sw:
        rs = solve_reach(args.rules, cache=not args.no_cache)
    p = rs.probability(target)
    result = base | {"objective": "reach", "target": target, "probability": p, "seconds": round(sw.seconds, 6)}
    if expected_player is not None:
        result["expected_score_player_probability"] = float(expected_player[target]) if target < len(
            expected_player) else 0.0
    _emit(result, args.json)
    if args.json != "-":
        extra = "" if expected_player is None else (
            f" (the expected-score player: {result['expected_score_player_probability']:.7f})")
        print(f"{get_rules(args.rules).title}: P*(final >= {target}) = {p:.7f}{extra} ({sw.seconds:.2f} s)")
    if args.plot:
        from yacht_tools.objective_plots import plot_reach

        plot_reach(rs.curve(), expected_player, f"{get_rules(args.rules).title}: best probability to reach T",
                   args.plot, target)
    return 0


def _run_duel(args: argparse.Namespace) -> int:
    """``--objective duel``: the two-player game solved exactly (a bar over the sweep's values on stderr)."""
    from yacht_solver.duel import check_duel_fits, duel_plan, solve_duel

    for flag, given in (("--target", args.target is not None), ("--distribution", args.distribution),
                        ("--plot", args.plot)):
        if given:
            raise ValueError(f"{flag} does not go with --objective duel")
    check_output_paths({"--json": None if args.json == "-" else args.json})
    rules = get_rules(args.rules)
    check_duel_fits(rules)
    plan = duel_plan(rules)
    with Stopwatch() as sw, progress_bar(sum(plan.cells), "duel sweep", "value", enabled=options.progress(args),
                                         unit_scale=True, leave=False) as bar:
        sol = solve_duel(rules, cache=not args.no_cache, progress=bar.update)
    result = {"rules": rules.name, "objective": "duel", "first_player_win": sol.first_player_win,
              "pairs": sum(plan.pairs), "values": sum(plan.cells), "table_bytes": sol.table_bytes,
              "seconds": round(sw.seconds, 6), "cached": sol.from_cache}
    _emit(result, args.json)
    if args.json != "-":
        how = "loaded from cache" if sol.from_cache else "solved"
        print(f"{rules.title}, two players: the first player wins {sol.first_player_win:.7f} (ties half), both "
              f"optimal; table of {sum(plan.pairs):,} pairs of turn-start states, {sum(plan.cells):,} values, "
              f"{sol.table_bytes / 1e9:.2f} GB ({how} in {sw.seconds:.1f} s)")
    return 0
