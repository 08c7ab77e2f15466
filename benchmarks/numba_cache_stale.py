"""What numba's own on-disk cache does when a module that a cached kernel inlines changes, and what
:func:`yacht_env.jit.numba_cache.cached_njit` does instead.

    python benchmarks/numba_cache_stale.py

A kernel ``total`` (module ``kernel.py``, ``cache=True``) calls ``step`` of another module (``inlined.py``). It runs in
a fresh process, then ``inlined.py`` changes (``x + 1`` becomes ``x + 2``) and it runs again in a fresh process. With
numba's own cache the second run loads the kernel built on the old ``inlined.py`` (numba issue #1833); with
``cached_njit`` (its sources digest pointed at the two modules' folder, as it covers the package's sources) the
second run compiles afresh. One line per case: the answers of the two runs (right: 2 and 3).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

INLINED = "import numba\n\n@numba.njit(inline='always')\ndef step(x):\n    return x + {n}\n"
KERNEL = """
import sys
from pathlib import Path
import numba
from inlined import step
if sys.argv[1] == "ours":
    from yacht_env.jit import numba_cache
    numba_cache._PACKAGE = Path(__file__).parent
    numba_cache._SOURCES = (Path(__file__).parent,)
    jit = numba_cache.cached_njit
else:
    jit = lambda f: numba.njit(f, cache=True)

@jit
def total(x):
    return step(x)

print(total(1))
"""


def _run(folder: Path, how: str) -> str:
    env = {"NUMBA_CACHE_DIR": str(folder / "cache"), "PATH": "/usr/bin:/bin", "YACHT_ENV_QUIET": "1"}
    p = subprocess.run([sys.executable, str(folder / "kernel.py"), how], capture_output=True, text=True, env=env,
                       timeout=600, cwd=folder)
    return p.stdout.strip() if p.returncode == 0 else f"failed ({(p.stderr.strip().splitlines() or [''])[-1]})"


def main() -> int:
    for how, name in (("numba", "numba's own cache"), ("ours", "cached_njit")):
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            (folder / "kernel.py").write_text(KERNEL)
            answers = []
            for n in (1, 2):
                (folder / "inlined.py").write_text(INLINED.format(n=n))
                answers.append(_run(folder, how))
            print(f"{name}: before the change {answers[0]}, after it {answers[1]}"
                  f" ({'stale' if answers[1] == answers[0] else 'compiled afresh'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
