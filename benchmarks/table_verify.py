"""What a load of a large table costs before and after its checksum was stamped (:mod:`yacht_solver.table_cache`).

    python benchmarks/table_verify.py [--gb 3] [--folder DIR]

Writes a synthetic table of ``--gb`` GB in the one table format (words of float32 probabilities, memory-mapped, as
the two-player table is) into a temporary folder under ``--folder`` (default: the system's temporary folder), then
times, side by side in one run: the first load (header, size and SHA-256 of the whole payload, then the stamp
written), the second load (the stamp matches: header and size only), a load whose stamp was removed (the full check
again), and a pass over every value as the two-player table's own check makes it (each a probability), which a
stamp does not skip. Each is timed with the file in the page cache (warm) and with its pages dropped first
(``posix_fadvise(DONTNEED)`` on this file alone: cold, as after a reboot). The folder is removed at the end, whatever
happens. Prints one JSON line: the seconds of each and the ratios of the first load to the second.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from yacht_env.rules import get_rules
from yacht_solver import table_cache as TC

KEY = "b" * 64
"""The synthetic table's key: a file name of its own, beside no real table."""


def _write(words: int) -> Path:
    """A table of ``words`` float32 probabilities (a 64 MB random block repeated), written in pieces."""
    block = np.random.default_rng(0).random(1 << 24, dtype=np.float32).view("<u4")

    def fill(write: Callable[[np.ndarray], None]) -> None:
        for at in range(0, words, len(block)):
            write(block[:min(len(block), words - at)])

    return TC.save_in_pieces(get_rules("yacht"), KEY, (words,), "<u4", fill)


def _drop(path: Path) -> None:
    """This file's pages out of the page cache (no other file's)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def _load(words: int) -> np.ndarray:
    got = TC.load(get_rules("yacht"), (words,), key=KEY, dtype="<u4", mapped=True)
    if got is None:
        raise SystemExit("the synthetic table did not load")
    return got


def _probabilities(values: np.ndarray) -> bool:
    """The two-player table's check of its values (:func:`yacht_solver.duel._probabilities`), in slices."""
    step = 1 << 22
    return all(c.min() >= 0.0 and c.max() <= 1.0 for c in (values[i:i + step] for i in range(0, len(values), step)))


def _timed(what: Callable[[], Any]) -> float:
    t = time.perf_counter()
    what()
    return round(time.perf_counter() - t, 4)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--gb", type=float, default=3.0, help="the table's size in GB (0.1 to 6)")
    p.add_argument("--folder", default=None, help="where the temporary cache folder goes (default: the system's)")
    args = p.parse_args(argv)
    if not 0.1 <= args.gb <= 6:
        p.error(f"--gb {args.gb}: give 0.1 to 6 (GB of disk, written and then removed)")
    words = int(args.gb * 1e9) // 4
    folder = Path(tempfile.mkdtemp(prefix="yacht-table-verify-", dir=args.folder))
    os.environ[TC.ENV_VAR] = str(folder)
    out: dict[str, Any] = {"gb": round(words * 4 / 1e9, 2), "cpus": os.cpu_count()}
    try:
        out["write_s"] = _timed(lambda: _write(words))
        path = TC.cache_path(get_rules("yacht"), KEY)
        stamp = TC.stamp_path(path)
        for cache in ("cold", "warm"):
            stamp.unlink(missing_ok=True)
            if cache == "cold":
                _drop(path)
            else:
                _load(words)  # into the page cache
                stamp.unlink()
            out[f"first_load_{cache}_s"] = _timed(lambda: _load(words))
            assert stamp.exists(), "the first load wrote no stamp"
            if cache == "cold":
                _drop(path)
            out[f"second_load_{cache}_s"] = _timed(lambda: _load(words))
            if cache == "cold":
                _drop(path)
            out[f"values_check_{cache}_s"] = _timed(lambda: _probabilities(_load(words).view(np.float32)))
            out[f"first_over_second_{cache}"] = round(out[f"first_load_{cache}_s"]
                                                      / max(out[f"second_load_{cache}_s"], 0.001))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
