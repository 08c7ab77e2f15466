"""The kernels over a batch of games: reset and step N games at once (the vector engine).

One thread steps every game (``python benchmarks/bench_machinery.py`` measures it against numba's ``prange``: its
"threads" row). They release the GIL, and are compiled without numba's runtime (``_nrt=False``): they allocate
nothing, and with it every array view handed to an inlined rules function would cost atomic reference-count updates.

``st`` is a :class:`~yacht_env.engine.batch.Batch`, ``ki`` a :class:`~yacht_env.engine.batch.KernelInputs`.
"""

from __future__ import annotations

import numpy as np

from yacht_env.engine.batch import Batch, KernelInputs, StepOutputs
from yacht_env.engine.game import legal, step_game, write_mask, write_obs_row
from yacht_env.jit.numba_cache import cached_njit


@cached_njit(nogil=True, _nrt=False)
def step_games(actions: np.ndarray, st: Batch, ki: KernelInputs, out: StepOutputs) -> None:
    """Step every game with its action (validated by the vector env first; :data:`~yacht_env.engine.game.RESET_ACTION`
    starts a new game), as :func:`~yacht_env.engine.game.step_game` does."""
    for i in range(actions.shape[0]):
        step_game(i, actions[i], st, ki, out)


@cached_njit(nogil=True, _nrt=False)
def show_games(st, ki, obs, mask) -> None:
    """Write the observation and mask of every game as it stands (after :meth:`Batch.load_state
    <yacht_env.engine.batch.Batch.load_state>`)."""
    for i in range(obs.shape[0]):
        lbits = legal(i, st, ki)
        write_mask(mask[i], i, lbits, st, ki)
        write_obs_row(obs[i], i, lbits, st, ki)
