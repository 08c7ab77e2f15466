"""What numba's own on-disk cache does with a damaged cache file, the reason :mod:`yacht_env.jit.numba_cache` stays.

    python benchmarks/numba_cache_damage.py

A small kernel with ``cache=True`` runs in a fresh process with ``NUMBA_CACHE_DIR`` set to a folder of its own (the
way numba's cache would serve the project without our guard); then its ``.nbc`` file is damaged as a full disk or a
crash leaves it (cut to half its length, or one byte flipped), and the same command runs again, twice. One line per
case says whether the later runs still work. The project's own kernels under the guard recover from the same damage
(``tests/test_numba_cache.py``).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

KERNEL = """
import numba, numpy as np
@numba.njit(cache=True)
def total(x):
    s = 0.0
    for i in range(x.size):
        s += x[i] * 2
    return s
print(total(np.arange(10.0)))
"""


def _run(script: Path, cache: Path) -> tuple[bool, str]:
    """One fresh process of the kernel: whether it printed the right answer, and the last line of its errors."""
    env = {"NUMBA_CACHE_DIR": str(cache), "PATH": "/usr/bin:/bin"}
    p = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=600)
    last = (p.stderr.strip().splitlines() or [""])[-1]
    return p.returncode == 0 and p.stdout.strip() == "90.0", last


def _cut(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[:len(data) // 2])


def _flip(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))


def main() -> int:
    damages: dict[str, Callable[[Path], None]] = {"cut to half its length": _cut, "one byte flipped": _flip}
    for name, damage in damages.items():
        with tempfile.TemporaryDirectory() as tmp:
            script, cache = Path(tmp) / "kernel.py", Path(tmp) / "cache"
            script.write_text(KERNEL)
            ok, err = _run(script, cache)
            if not ok:
                print(f"the kernel did not run on a cold cache: {err}")
                return 1
            nbc = sorted(cache.rglob("*.nbc"))[0]
            damage(nbc)
            runs = [_run(script, cache) for _ in range(2)]
            said = "; ".join("ok" if ok else f"failed ({err})" for ok, err in runs)
            print(f"numba's cache, .nbc {name}: the next two runs: {said}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
