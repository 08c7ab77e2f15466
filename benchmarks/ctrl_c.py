"""How long a command takes to end after Ctrl-C: SIGINT to its process group (as a terminal sends it) a few seconds
into its work, and the seconds until it has exited.

    python benchmarks/ctrl_c.py                        # every case at its own delay (20, 20 and 2 s)
    python benchmarks/ctrl_c.py --case compile --after 1 2 3 4 5

Cases: ``train-td`` (``train.py --config configs/yacht_td.yaml``, from its "run folder" line), ``bench`` (``yacht
bench run`` of the TD learner on two seeds with ``--workers 2``), ``compile`` (``yacht solve --rules knizia
--no-cache`` with an empty numba cache: the signal lands while numba compiles). One line per run: the case, the
delay, the seconds to exit and the exit status (130: interrupted, as it should; 0: the interrupt was lost and the
command ran to its end). Everything goes to a temporary folder. ``tests/test_long_work.py`` checks the same with a
bound for a loaded machine (5 s).
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


DELAY = {"train-td": 20.0, "bench": 20.0, "compile": 2.0}
"""Seconds into each case's work by default: training under way; both workers training; numba compiling."""


def _cases(tmp: Path) -> dict[str, tuple[list[str], str, dict[str, str]]]:
    """Each case: its command, the line that says its work has started, its extra environment."""
    py = sys.executable
    return {
        "train-td": ([py, str(REPO / "train.py"), "--config", str(REPO / "configs/yacht_td.yaml"), "--run-dir",
                      str(tmp / "runs"), "--no-progress"], "run folder", {}),
        "bench": ([py, "-m", "yacht_cli", "bench", "run", "--learner", str(REPO / "configs/yacht_td.yaml"), "--tasks",
                   "yacht", "--budget", "primary", "--seeds", "0", "1", "--workers", "2", "--out", str(tmp / "bench"),
                   "--no-progress"], "to do", {}),
        "compile": ([py, "-m", "yacht_cli", "solve", "--rules", "knizia", "--no-cache"], "compiling",
                    {"NUMBA_CACHE_DIR": str(tmp / "numba"), "YACHT_ENV_CACHE_DIR": str(tmp / "solver")}),
    }


def time_to_exit(cmd: list[str], marker: str, env: dict[str, str], after: float) -> tuple[float, int]:
    """SIGINT ``after`` seconds past the first output line holding ``marker``; (seconds to exit, exit status)."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=str(REPO),
                         env={**os.environ, **env}, start_new_session=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    seen = threading.Event()

    def read() -> None:
        assert p.stdout is not None
        for line in p.stdout:
            if marker in line:
                seen.set()

    threading.Thread(target=read, daemon=True).start()
    if not seen.wait(600):
        os.killpg(p.pid, signal.SIGKILL)
        raise RuntimeError(f"{cmd[1:4]}: no line with {marker!r} in 600 s")
    time.sleep(after)
    sent = time.perf_counter()
    os.killpg(p.pid, signal.SIGINT)
    p.wait(300)
    return time.perf_counter() - sent, p.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", nargs="+", choices=["train-td", "bench", "compile"],
                        default=["train-td", "bench", "compile"])
    parser.add_argument("--after", nargs="+", type=float, help="seconds into the work (default: DELAY, by case)")
    args = parser.parse_args()
    for case in args.case:
        for after in args.after or [DELAY[case]]:
            with tempfile.TemporaryDirectory() as tmp:
                cmd, marker, env = _cases(Path(tmp))[case]
                took, status = time_to_exit(cmd, marker, env, after)
                print(f"{case:9s} SIGINT {after:4.1f} s in: exited after {took:5.2f} s, status {status}", flush=True)


if __name__ == "__main__":
    main()
