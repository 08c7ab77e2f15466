"""Pool the results of several ``yacht tournament --json`` runs of the same agents (independent seeds): each agent's
games, win share (ties counted as halves), Wilson 95% interval of the pooled share, and mean score.

    python benchmarks/pool_tournaments.py RESULT.json [RESULT.json ...]
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from yacht_tools.stats import wilson_interval


def pooled(results: list[dict]) -> dict[str, dict[str, float]]:
    """Per agent: games, the pooled win rate and its interval, draws and the mean score over every game."""
    out: dict[str, dict[str, float]] = {}
    for res in results:
        for name, a in res["agents"].items():
            o = out.setdefault(name, {"games": 0, "share": 0.0, "draws": 0, "points": 0.0})
            o["games"] += a["games"]
            o["share"] += a["win_rate"] * a["games"]
            o["draws"] += a["draws"]
            o["points"] += a["mean_score"] * a["games"]
    for o in out.values():
        n = int(o["games"])
        o["win_rate"] = o["share"] / n
        o["ci95"] = list(wilson_interval(o["share"], n))
        o["mean_score"] = o["points"] / n
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("results", nargs="+")
    args = p.parse_args(argv)
    results = []
    for path in args.results:
        with open(path, encoding="utf-8") as f:
            results.append(json.load(f))
    for name, o in pooled(results).items():
        lo, hi = o["ci95"]
        print(f"{name}: {int(o['games']):,} games, win rate {o['win_rate']:.4f} ({lo:.4f} .. {hi:.4f}), "
              f"draws {int(o['draws'])}, mean score {o['mean_score']:.2f}")
    for seat, (rate, (lo, hi)) in enumerate(pooled_seats(results), 1):
        print(f"seat {seat}: win rate {rate:.4f} ({lo:.4f} .. {hi:.4f})")
    return 0


def pooled_seats(results: list[dict]) -> list[tuple[float, tuple[float, float]]]:
    """Each seat's pooled win rate (whoever sat there) and its Wilson 95% interval, from the results that have
    ``seat_win_rate`` and ``games`` (none if some result lacks them)."""
    if not results or any("seat_win_rate" not in r or "games" not in r for r in results):
        return []
    n = sum(int(r["games"]) for r in results)
    shares = np.sum([np.asarray(r["seat_win_rate"]) * int(r["games"]) for r in results], axis=0)
    return [(float(x) / n, wilson_interval(float(x), n)) for x in shares]


if __name__ == "__main__":
    sys.exit(main())
