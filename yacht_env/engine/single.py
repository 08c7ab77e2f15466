"""The kernels of one game, for the single environment, and a way to call a compiled kernel cheaply.

:class:`yacht_env.env.YachtEnv` holds its game as a one-game batch and steps it with these (plain kernels, no
autoreset): ``obs`` is the 1-d observation to fill, ``mask`` the (1, A) bool mask of the game.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba
import numpy as np

from yacht_env.engine.batch import C_MAX_STEPS, C_NUM_CAT
from yacht_env.engine.cache import guard_numba_cache
from yacht_env.engine.game import legal, new_game, play, write_mask, write_obs_row

guard_numba_cache(__file__)  # before any cached kernel below is compiled

SINGLE_ILLEGAL, SINGLE_TRUNCATED, SINGLE_TERMINATED = 1, 2, 4
SINGLE_POINTS_SHIFT = 3


def _fingerprint(x: Any) -> Any:
    """What numba's type of an argument depends on, cheaply (arrays, tuples of them, scalars)."""
    if isinstance(x, np.ndarray):
        f = x.flags
        return x.dtype.str, x.ndim, f.c_contiguous, f.f_contiguous, f.writeable, f.aligned
    if isinstance(x, tuple):
        return tuple(_fingerprint(y) for y in x)
    return type(x)


_COMPILED: dict[tuple[Any, ...], Callable[..., Any]] = {}


def compiled(kernel: numba.core.registry.CPUDispatcher, *args: Any) -> Callable[..., Any]:
    """The compiled function of ``kernel`` for the types of ``args`` (compiled, or loaded from numba's cache, on
    first use; then remembered).

    Calling it skips the dispatcher's matching of the arguments' types, which costs more than the kernel itself for
    the 20-odd arrays of a one-game step (about 0.8 of 1.4 µs). It must only be called with arguments of exactly
    those types (same dtypes, dimensions, layouts and read-only flags): it does not check them."""
    key = (kernel, _fingerprint(args))
    fn = _COMPILED.get(key)
    if fn is None:
        fn = _COMPILED[key] = kernel.compile(tuple(numba.typeof(a) for a in args))
    return fn


@numba.njit(cache=True, _nrt=False)
def single_reset(st, tb, obs, mask) -> None:
    """Game 0 starts anew (empty scorecard, first roll from its generator); writes its observation and mask."""
    new_game(0, st, tb)
    single_show(st, tb, obs, mask)


@numba.njit(cache=True, _nrt=False)
def single_show(st, tb, obs, mask) -> None:
    """Write the observation and mask of game 0 as it stands (after :meth:`Batch.load_state`)."""
    lbits = legal(0, st, tb)
    write_mask(0, lbits, mask, st, tb)
    write_obs_row(obs, 0, lbits, st, tb)


@numba.njit(cache=True, _nrt=False)
def single_step(a, st, tb, obs, mask) -> int:
    """Game 0 takes action ``a`` (in the action space; an illegal one is a no-op) as :meth:`YachtEnv.step
    <yacht_env.env.YachtEnv.step>` does; writes the new observation and mask. Returns
    ``points << SINGLE_POINTS_SHIFT | SINGLE_*`` flags (terminated, truncated, illegal): one int, cheap to return."""
    filled, steps, cfg = st[2], st[7], tb[1]
    pts, bad = play(0, a, st, tb, mask)
    term = np.int64(filled[0]) == (np.int64(1) << cfg[C_NUM_CAT]) - 1
    trunc = (not term) and steps[0] >= cfg[C_MAX_STEPS]
    single_show(st, tb, obs, mask)
    code = np.int64(pts) << SINGLE_POINTS_SHIFT
    if term:
        code |= SINGLE_TERMINATED
    if trunc:
        code |= SINGLE_TRUNCATED
    if bad:
        code |= SINGLE_ILLEGAL
    return code


