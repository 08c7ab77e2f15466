"""The helper process of :mod:`yacht_env.engine.compile_ahead`: it compiles the big kernels of first use into numba's
cache, each called with the types the engine passes it, going past one that another process is compiling.

Run as a script by :func:`yacht_env.engine.compile_ahead.start`; nothing imports it but the tests.
"""

from __future__ import annotations

import signal
import sys
import time
from collections.abc import Callable

from yacht_env.engine import numba_cache

_RETRY_PAUSE = 0.2  # seconds the helper waits when every kernel left is being compiled by someone else


# ---- the helper's tasks: each calls kernels with the types the engine passes them ----------------------------------


def _turn_search_inputs() -> tuple:
    import numpy as np

    from yacht_env.engine.turn_tables import Starts, turn_arrays
    from yacht_env.rules import get_rules

    arrays = turn_arrays(get_rules("yacht"))
    tb = arrays.tables
    values = np.zeros((1 << tb.S.shape[1]) * tb.U * tb.Y)
    zero = np.zeros(1, dtype=np.int64)
    return arrays, values, zero, Starts(zero, zero, zero)


def _turn_values() -> None:
    """The solver's sweep (and the first step of every search): ``turn_values``."""
    import numpy as np

    from yacht_env.engine import turn_search as TS

    arrays, values, _, starts = _turn_search_inputs()
    TS.turn_values(arrays.tables, values, starts, TS.keep_tables(0), np.empty(1))


def _decide() -> None:
    """The decisions of the turn-search agents (optimal, greedy, TD, the objectives): ``decide``."""
    import numpy as np

    from yacht_env.actions import KEEP_MASK_UNIQUE
    from yacht_env.engine import turn_search as TS
    from yacht_env.engine.turn_tables import TIE_TOLERANCE, DecisionRule

    arrays, values, zero, _ = _turn_search_inputs()
    pos = TS.Positions(zero, zero, zero, zero, np.full(1, 2, dtype=np.int64))
    rule = DecisionRule(np.ascontiguousarray(KEEP_MASK_UNIQUE), False, TIE_TOLERANCE)
    TS.decide(arrays.tables, values, pos, zero, TS.keep_tables(1), rule, np.empty(1, dtype=np.int64),
              np.empty((0, 0)))


def _step() -> None:
    """The vector engine's step (``step_games``), as :class:`~yacht_env.vector.env.YachtVectorEnv` calls it."""
    import numpy as np

    from yacht_env import observation as O
    from yacht_env.actions import NUM_KEEP_ACTIONS
    from yacht_env.engine import batch_kernels as K
    from yacht_env.engine.batch import Batch, StepOutputs, make_tables
    from yacht_env.engine.game import RESET_ACTION
    from yacht_env.engine.pcg64 import seed_states
    from yacht_env.rules import get_rules

    rules = get_rules("yacht")
    c = rules.num_categories
    batch = Batch.empty(1, c)
    batch.rng[:] = seed_states([0])  # a zero state would roll forever
    mask = np.zeros((1, NUM_KEEP_ACTIONS + c), dtype=np.bool_)
    K.step_games(np.full(1, RESET_ACTION, dtype=np.int64), batch.arrays(), make_tables(rules, True, 256).arrays(),
                 StepOutputs.empty(mask, O.size(rules)))


TASKS: dict[str, Callable[[], None]] = {"turn_values": _turn_values, "step": _step, "decide": _decide}
"""The helper's work, in order: the solver's sweep, the vector step, the decisions."""


def _exit(signum: int, frame: object) -> None:
    """SIGTERM (from :func:`stop`): exit as Python does, so that the kernels saved so far are recorded at exit (numba
    writes each file whole, by renaming)."""
    raise SystemExit(0)


def run_tasks(names: list[str]) -> list[str]:
    """Run the tasks ``names``, putting one whose kernel another process is compiling back at the end of the queue;
    the names of those that failed (the process that needs them compiles them itself)."""
    numba_cache.WAIT_FOR_OTHERS = False
    signal.signal(signal.SIGTERM, _exit)
    queue, failed, busy_in_a_row = list(names), [], 0
    while queue:
        name = queue.pop(0)
        try:
            t0 = time.perf_counter()
            TASKS[name]()
            print(f"compile-ahead: {name} ready in {time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)
            busy_in_a_row = 0
        except numba_cache.KernelBusy as e:
            print(f"compile-ahead: {name}: {e} is being compiled by another process", file=sys.stderr, flush=True)
            queue.append(name)
            busy_in_a_row += 1
            if busy_in_a_row >= len(queue):
                time.sleep(_RETRY_PAUSE)
        except Exception as e:  # numba wraps what a kernel raised while compiling
            print(f"compile-ahead: {name}: {type(e).__name__}: {str(e)[:200]}", file=sys.stderr, flush=True)
            if isinstance(e.__cause__ or e.__context__, numba_cache.KernelBusy) or "KernelBusy" in str(e):
                queue.append(name)
                busy_in_a_row += 1
                if busy_in_a_row >= len(queue):
                    time.sleep(_RETRY_PAUSE)
            else:
                failed.append(name)
    return failed


if __name__ == "__main__":
    run_tasks(list(TASKS))
