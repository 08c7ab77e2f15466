"""The two-player table's size as the solver keeps it, measured on a table in the dense layout of version 1 (every
value of every row, float32), and the check that the kept table reads back every value of it.

    python benchmarks/duel_table_size.py OLD_TABLE [--rules yacht] [--write DIR] [--decisions 100000]

``OLD_TABLE``: a file ``yacht-<key>-v1.table`` of the disk cache solved by the dense solver (checked as the solver
checks it: header, size, SHA-256, every value a probability). Per layer it counts the values that are exactly 0.0
below a row's undecided range and exactly 1.0 above it, which the kept table leaves out
(:func:`yacht_solver.duel_kernels.strip_row`), and prints, as one JSON line: the kept values, the kept table's bytes
(values and an index word per pair), the dense table's, and how evenly the low 16 bits of the kept values are spread
(their entropy in bits: about 16 says they are noise to any exact coder, so no exact scheme stores a kept value
in much less than 2 bytes).

``--write DIR``: also write the kept table into the cache folder ``DIR`` (under the key of this solver, as
:func:`yacht_solver.solve_duel` would), read it back with the solver's reader and check it: the first player's chance
and, with ``--decisions N``, every action's chance at ``N`` decisions sampled from games of random, greedy and optimal
players (``optimal-duel``'s choice included) equal the dense table's, value for value. The dense table is read as
layers whose rows keep every value, with the same kernels.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from yacht_env.rules import RuleSet, get_rules
from yacht_env.state import GameState
from yacht_solver import duel as DU
from yacht_solver import duel_kernels as DUELK
from yacht_solver import table_cache as TC


def dense_layers(rs: RuleSet, path: Path) -> list[DUELK.DuelLayer]:
    """The layers of a dense (version 1) table file, memory-mapped, checked by the table reader."""
    with open(path, "rb") as f:
        n = int.from_bytes(f.read(len(TC.MAGIC) + 8)[len(TC.MAGIC):], "little")
        key = json.loads(f.read(min(n, TC.MAX_HEADER_BYTES)).decode())["key"]
    plan = DU.duel_plan(rs)
    os.environ[TC.ENV_VAR] = str(path.parent)
    if TC.cache_path(rs, key) != path:
        raise SystemExit(f"{path} is not named as the cache names a table of rules {rs.name!r}")
    flat = TC.load(rs, (sum(plan.cells),), key=key, value_range=(0.0, 1.0), dtype="<f4", mapped=True)
    if flat is None:
        raise SystemExit(f"{path} is not a whole dense duel table of rules {rs.name!r}")
    layers: list[DUELK.DuelLayer] = [None] * len(plan.cells)  # type: ignore[list-item]
    pos = 0
    for t in range(len(plan.cells) - 1, -1, -1):  # the last layer first
        a, b = t // 2, t - t // 2
        layers[t] = DUELK.DuelLayer(flat[pos:pos + plan.cells[t]], plan.offsets(t), plan.lowest(t), a, b)
        pos += plan.cells[t]
    return layers


def stripped(plan: DU.DuelPlan, t: int, dense: DUELK.DuelLayer) -> DUELK.DuelLayer:
    """Layer ``t`` of a dense table as the solver keeps it."""
    n = len(dense.off) - 1
    out = DUELK.Stripped(np.empty(len(dense.data), dtype=DU.DTYPE), np.empty(n, np.int32), np.empty(n, np.int32))
    kept = DUELK.strip_rows(dense.data, dense.off, out)
    return DU.layer_of(plan, t, DUELK.Stripped(out.data[:kept].copy(), out.zeros, out.kept))


def positions(rs: RuleSet, n: int, seed: int = 0) -> list[tuple[GameState, GameState]]:
    """``n`` decisions (the mover's state and the other's) from games of random, greedy and optimal players."""
    from yacht_agents.loader import load_agent
    from yacht_tools.tournament import play_match

    got: list[tuple[GameState, GameState]] = []

    class Record:  # play_match's win-regret hook: every decision's two states
        def decision(self, slot: int, game: int, state: Any, other: Any, action: int) -> None:
            got.append((state, other))

        def flush(self) -> None:
            pass

    pairs = [("random", "greedy"), ("greedy", "optimal"), ("optimal", "random"), ("optimal", "optimal")]
    match = 0
    while len(got) < n:
        a, b = pairs[match % len(pairs)]
        agents = [load_agent(a, rs.name, seed=seed), load_agent(b, rs.name, seed=seed + 1)]
        play_match(agents, rs.name, 200, seed, match=match, regret=Record())  # type: ignore[arg-type]
        match += 1
    return got[:n]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("old_table", type=Path)
    p.add_argument("--rules", default="yacht")
    p.add_argument("--write", type=Path, default=None, help="a cache folder for the kept table")
    p.add_argument("--decisions", type=int, default=0)
    args = p.parse_args(argv)
    rs = get_rules(args.rules)
    plan = DU.duel_plan(rs)
    t0 = time.perf_counter()
    dense = dense_layers(rs, args.old_table.resolve())
    print(f"dense table checked in {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    kept_values, zeros, low_bits = 0, 0, np.zeros(1 << 16, dtype=np.int64)

    def source(emit: Any) -> None:  # each layer stripped, counted, checked against its dense rows, then emitted
        nonlocal kept_values, zeros, low_bits
        for t in range(len(plan.cells) - 1, -1, -1):
            lay = stripped(plan, t, dense[t])
            kept_values += len(lay.data)
            zeros += int((lay.lo - plan.lowest(t)).sum(dtype=np.int64))
            low_bits += np.bincount(lay.data.view(np.uint32)[::97] & 0xFFFF, minlength=1 << 16)
            for q in range(0, len(lay.lo), max(1, len(lay.lo) // 2000)):  # the kept rows expand to the dense rows
                row = dense[t].data[int(dense[t].off[q]):int(dense[t].off[q + 1])]
                back = DU.expand(lay, q, len(row), int(plan.lowest(t)[q]))
                assert (back.view(np.uint32) == row.view(np.uint32)).all(), (t, q)
            emit(t, lay)
            print(f"layer {t}: {len(lay.data):,} of {plan.cells[t]:,} values kept", file=sys.stderr, flush=True)

    if args.write is not None:
        os.environ[TC.ENV_VAR] = str(args.write.resolve())
        args.write.mkdir(parents=True, exist_ok=True)
        DU.save_table(rs, source)
    else:
        source(lambda t, lay: None)
    prob = low_bits / low_bits.sum()
    entropy = float(-(prob[prob > 0] * np.log2(prob[prob > 0])).sum())
    out: dict[str, Any] = {
        "rules": rs.name, "values": sum(plan.cells), "kept_values": kept_values, "zeros_left_out": zeros,
        "ones_left_out": sum(plan.cells) - kept_values - zeros, "pairs": sum(plan.pairs),
        "kept_table_bytes": (kept_values + sum(plan.pairs)) * DU.WORD.itemsize,
        "dense_table_bytes": sum(plan.cells) * DU.DTYPE.itemsize, "low16_entropy_bits": round(entropy, 3),
        "seconds": round(time.perf_counter() - t0, 1)}
    if args.write is not None:
        out.update(_compare(rs, dense, args.decisions))
    print(json.dumps(out), flush=True)
    return 0


def _compare(rs: RuleSet, dense: list[DUELK.DuelLayer], decisions: int) -> dict[str, Any]:
    """Load the kept table just written as the solver does and compare it with the dense one."""
    new = DU.cached_duel(rs)  # read back from the file just written, as the solver reads it
    if new is None or new.path is None:
        raise SystemExit("the kept table did not read back")
    old = DU.DuelSolution(rs, dense)
    res: dict[str, Any] = {"file_bytes": new.path.stat().st_size, "first_player_win_dense": old.first_player_win,
                           "first_player_win_kept": new.first_player_win}
    t0 = time.perf_counter()
    pos = positions(rs, decisions)
    same_action = same_values = 0
    for mover, other in pos:
        a_old, v_old = old._decide(mover, other)
        a_new, v_new = new._decide(mover, other)
        same_action += a_old == a_new
        same_values += bool(np.array_equal(v_old, v_new, equal_nan=True))
    res.update({"decisions": len(pos), "same_action": same_action, "same_action_values": same_values,
                "decisions_seconds": round(time.perf_counter() - t0, 1)})
    return res


if __name__ == "__main__":
    raise SystemExit(main())
