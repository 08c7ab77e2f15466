"""The heads-up reference rows over many games: ``optimal`` and ``optimal-win`` against ``optimal-duel``.

The protocol's heads-up records use its 10,000 evaluation games; this counts far more games of each pairing and
writes, per agent, the chance to win from the exact win-regret and the plain win count, each with its interval, and
how far apart the two are in standard errors, to a JSON record (written atomically):

    python benchmarks/heads_up_references.py --agents optimal-win --games 200000 --chunk 10000 \
        --record docs/records/heads-up-references.json

The games are played in chunks of ``--chunk`` games: chunk ``c`` is the games of ``yacht tournament --agents AGENT
optimal-duel --games CHUNK --seed S+c`` (``S`` = ``--seed``), and the record is written again after every chunk with
the chunks done so far pooled, so a run stopped early keeps what it played (``--games`` is then the goal, ``games``
in the record what was played). Needs the two-player table of Yacht (``yacht solve --objective duel``, 4.9 GB). One
agent per process: ``--agents optimal`` and ``--agents optimal-win`` run side by side, then ``--merge`` puts their
records together.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path
from typing import Any

from yacht_env.files import read_regular, write_text_atomic
from yacht_tools.heads_up_eval import chance_against_optimal_duel
from yacht_tools.protocol import EVAL_SEED
from yacht_tools.stats import Z95, wilson_interval

COMMAND = ("python benchmarks/heads_up_references.py --agents AGENT --games N --chunk 10000, one agent per process, "
           "then --merge")


def pooled(chunks: list[dict[str, Any]]) -> dict[str, Any]:
    """The chunks' figures over all their games: the mean chance estimate and its normal 95% interval (from each
    chunk's), the pooled win count with Wilson's interval, the regrets, and ``gap_se``: count minus estimate in
    standard errors of the two taken as independent (they are positively correlated, so the difference's own error
    is smaller: a conservative figure)."""
    n = sum(c["games"] for c in chunks)
    chance = sum(c["chance"] * c["games"] for c in chunks) / n
    se = math.sqrt(sum(((c["chance_ci95"][1] - c["chance_ci95"][0]) / (2 * Z95) * c["games"] / n) ** 2
                       for c in chunks))
    won = sum(c["win_rate"] * c["games"] for c in chunks)
    decisions = sum(c["decisions"] for c in chunks)
    rate = won / n
    count_se = math.sqrt(max(rate * (1 - rate), 0.0) / n)
    return {"chance": chance, "chance_ci95": [chance - Z95 * se, chance + Z95 * se], "win_rate": rate,
            "win_rate_ci95": list(wilson_interval(won, n)),
            "mean_regret": sum(c["mean_regret"] * c["decisions"] for c in chunks) / decisions,
            "regret_per_game": sum(c["regret_per_game"] * c["games"] for c in chunks) / n, "games": n,
            "gap_se": (rate - chance) / math.hypot(se, count_se)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--agents", nargs="*", default=["optimal", "optimal-win"],
                   help="agents to play (none: --merge only)")
    p.add_argument("--games", type=int, default=200_000, help="games to play per agent (a multiple of --chunk)")
    p.add_argument("--rules", default="yacht", help="a rule set whose two-player table is solved")
    p.add_argument("--chunk", type=int, default=10_000, help="games per seed; the record is written after each")
    p.add_argument("--seed", type=int, default=EVAL_SEED, help="the first chunk's seed; chunk c has seed + c")
    p.add_argument("--record", required=True, help="the JSON record to write (or, with --merge, to add to)")
    p.add_argument("--merge", nargs="*", default=[], help="records of other agents to put into --record")
    args = p.parse_args(argv)
    if args.chunk < 2 or args.chunk % 2 or args.games < args.chunk or args.games % args.chunk:
        p.error("--chunk must be an even number of games (seats alternate) and --games a multiple of it")
    out: dict[str, dict[str, Any]] = {}
    for path in args.merge:
        out.update(json.loads(read_regular(Path(path), 1 << 20, "a reference record").decode("utf-8"))["agents"])

    def write() -> None:
        record = {"rules": args.rules, "opponent": "optimal-duel", "seed": args.seed, "agents": out, "command": COMMAND}
        write_text_atomic(Path(args.record), json.dumps(record, indent=1, allow_nan=False) + "\n")

    for agent in args.agents:
        t0 = time.perf_counter()
        chunks: list[dict[str, Any]] = []
        for c in range(args.games // args.chunk):
            chunks.append(chance_against_optimal_duel(agent, args.rules, args.chunk, args.seed + c, progress=True))
            out[agent] = pooled(chunks) | {"seeds": [args.seed, args.seed + c], "games_per_seed": args.chunk,
                                           "wall_s": round(time.perf_counter() - t0, 1)}
            print(agent, json.dumps(out[agent]), flush=True)
            write()
    write()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
