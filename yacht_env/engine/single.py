"""One game for the single environment: a one-game batch stepped by the vector engine's own kernel, without
autoreset, and called without numba's type dispatch.

:class:`yacht_env.env.YachtEnv` holds its game here. It steps with :func:`~yacht_env.engine.kernels.step_chunks` (one
kernel for both environments: compiled once), resets with its :data:`~yacht_env.engine.game.RESET_ACTION`, and
shows a loaded state with :func:`~yacht_env.engine.kernels.show_chunks` (compiled only if a state is loaded).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba
import numpy as np

from yacht_env.engine.batch import Batch, make_tables
from yacht_env.engine.game import RESET_ACTION
from yacht_env.engine.kernels import show_chunks, step_chunks
from yacht_env.engine.parallel import FINISHED, new_counter
from yacht_env.rules import RuleSet
from yacht_env.state import GameState


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


class OneGame:
    """The arrays of one game and the step, reset and show of it; ``obs[0]`` and ``mask[0]`` are its observation
    and legal-action mask after each call."""

    def __init__(self, rules: RuleSet, unique_keeps: bool, max_steps: int, strict: bool, obs_size: int) -> None:
        c = rules.num_categories
        self.key = (rules, unique_keeps, max_steps, strict)
        self.batch = Batch.empty(1, c)
        self.actions = np.zeros(1, dtype=np.int64)
        self.obs = np.zeros((1, obs_size), dtype=np.float32)
        self.mask = np.zeros((1, 32 + c), dtype=np.bool_)
        self.reward = np.zeros(1)
        self.terminated = np.zeros(1, dtype=np.bool_)
        self.truncated = np.zeros(1, dtype=np.bool_)
        self.illegal = np.zeros(1, dtype=np.bool_)
        self.final_obs = np.zeros((1, obs_size), dtype=np.float32)
        self.final_mask = np.zeros((1, 32 + c), dtype=np.bool_)
        self.final_card = np.zeros((1, c + 3), dtype=np.int32)
        self._bind()

    def _bind(self) -> None:
        self.tb = make_tables(*self.key, autoreset=False).arrays()
        self.st = self.batch.arrays()
        self._args = (self.actions, self.st, self.tb, self.obs, self.mask, self.reward, self.terminated,
                      self.truncated, self.illegal, self.final_obs, self.final_mask, self.final_card)
        self._counter = new_counter()
        self._step = compiled(step_chunks, self._counter, 1, 1, *self._args)

    def step(self, action: int) -> tuple[float, bool, bool, bool]:
        """Take ``action`` (in the action space; an illegal one is a no-op); returns (reward, terminated,
        truncated, illegal)."""
        self.actions[0] = action
        c = self._counter
        c[0] = c[FINISHED] = 0  # one chunk, claimed anew
        self._step(c, 1, 1, *self._args)
        return float(self.reward[0]), bool(self.terminated[0]), bool(self.truncated[0]), bool(self.illegal[0])

    def reset(self) -> None:
        """A new game from the game's generator row."""
        self.step(RESET_ACTION)

    def load(self, state: GameState) -> None:
        """The game becomes ``state`` (its generator row is kept); its observation and mask are written."""
        self.batch.load_state(0, state)
        show_chunks(new_counter(), 1, 1, self.st, self.tb, self.obs, self.mask)

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k not in ("_step", "_args", "_counter", "st", "tb")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._bind()
