"""The heads-up reference rows over 100,000 games: ``optimal`` and ``optimal-win`` against ``optimal-duel``.

The protocol's heads-up records use its 10,000 evaluation games; this counts 100,000 games of each pairing (the games
of ``yacht tournament --agents AGENT optimal-duel --games N --seed S``) and writes, per agent, the chance to win
from the exact win-regret and the plain win count, each with its interval, to a JSON record (written atomically):

    python benchmarks/heads_up_references.py --agents optimal optimal-win --games 100000 \
        --record docs/records/heads-up-references.json

Needs the two-player table of Yacht (``yacht solve --objective duel``, 4.9 GB). One agent per process:
``--agents optimal`` and ``--agents optimal-win`` run side by side, then ``--merge`` puts their records together.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from yacht_env.files import read_regular, write_text_atomic
from yacht_tools.heads_up_eval import chance_against_optimal_duel
from yacht_tools.protocol import EVAL_SEED

KEYS = ("chance", "chance_ci95", "win_rate", "win_rate_ci95", "mean_regret", "regret_per_game", "games")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--agents", nargs="*", default=["optimal", "optimal-win"],
                   help="agents to play (none: --merge only)")
    p.add_argument("--games", type=int, default=100_000)
    p.add_argument("--seed", type=int, default=EVAL_SEED)
    p.add_argument("--record", required=True, help="the JSON record to write (or, with --merge, to add to)")
    p.add_argument("--merge", nargs="*", default=[], help="records of other agents to put into --record")
    args = p.parse_args(argv)
    out: dict[str, dict[str, object]] = {}
    for path in args.merge:
        out.update(json.loads(read_regular(Path(path), 1 << 20, "a reference record").decode("utf-8"))["agents"])
    for agent in args.agents:
        t0 = time.perf_counter()
        res = chance_against_optimal_duel(agent, "yacht", args.games, args.seed, progress=True)
        out[agent] = {k: res[k] for k in KEYS} | {"wall_s": round(time.perf_counter() - t0, 1)}
        print(agent, json.dumps(out[agent]), flush=True)
    record = {"rules": "yacht", "opponent": "optimal-duel", "seed": args.seed, "agents": out,
              "command": "python benchmarks/heads_up_references.py --games 100000"}
    write_text_atomic(Path(args.record), json.dumps(record, indent=1, allow_nan=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
