"""One game stepped by the vector engine's own kernel: the compiled engine of the single environment.

:class:`CompiledEngine` is a :class:`~yacht_env.single_engine.GameEngine`: a one-game batch stepped by
:func:`~yacht_env.engine.batch_kernels.step_games`, the kernel the vector engine runs, without autoreset. The dice
stream lives in the batch's generator row while the game is stepped (the kernel reproduces numpy's PCG64,
:mod:`yacht_env.engine.pcg64`): it is taken from the generator given to :meth:`~CompiledEngine.use` at the first step
and written back into it by :meth:`~CompiledEngine.release`, so the dice are the Python engine's die for die.
The call skips numba's matching of argument types (``Dispatcher`` looks up the compiled overload by the types of
the 30-odd arrays of a step, which costs more than the step itself): :func:`compiled` finds the overload once, and
the buffers it was found for are the only ones it is called with.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba
import numpy as np

from yacht_env import observation as O
from yacht_env.actions import NUM_KEEP_ACTIONS, action_mask
from yacht_env.engine import batch_kernels as K
from yacht_env.engine import pcg64 as PCG
from yacht_env.engine.batch import Batch, StepOutputs, kernel_inputs
from yacht_env.engine.game import RESET_ACTION
from yacht_env.rules import RuleSet
from yacht_env.state import GameState


def compiled(kernel: Any, *args: Any) -> Callable[..., Any]:
    """The compiled function of ``kernel`` for the types of ``args`` (loaded from numba's cache or compiled). It
    must be called with arguments of exactly those types: it does not check them."""
    return kernel.compile(tuple(numba.typeof(a) for a in args))


class CompiledEngine:
    """The arrays of one game and the kernel's step over them (see the module docstring)."""

    name = "compiled"

    def __init__(self, rules: RuleSet, unique_keeps: bool) -> None:
        self.rules, self.unique_keeps = rules, unique_keeps
        self.rng: np.random.Generator | None = None
        self.batch = Batch.empty(1, rules.num_categories)
        self.actions = np.zeros(1, dtype=np.int64)
        self.out = StepOutputs.empty(np.zeros((1, NUM_KEEP_ACTIONS + rules.num_categories), dtype=np.bool_),
                                     O.size(rules))
        self._inputs = kernel_inputs(rules, unique_keeps, False)
        self._step = compiled(K.step_games, self.actions, self.batch, self._inputs, self.out)
        self._obs, self._mask = self.out.obs[0], self.out.mask[0]  # views of the rows the kernel writes
        self._mask8 = self._mask.view(np.int8)
        self._in_row = False  # whether the dice stream is in the batch's row (else in self.rng)
        self._state: GameState | None = None  # built from the arrays when asked for

    def use(self, rng: np.random.Generator) -> None:
        if rng is not self.rng:
            self.rng, self._in_row = rng, False

    def release(self) -> None:
        if self._in_row:
            PCG.write_state(self.batch.rng[0], self.rng.bit_generator)  # type: ignore[union-attr]
            self._in_row = False

    def start(self, state: GameState | None) -> np.ndarray:
        if state is None:  # the kernel's own new game, from the dice stream
            return self.step(RESET_ACTION)[0]
        self.batch.load_state(0, state)  # the game becomes ``state``, its generator row kept
        self._obs[:] = O.encode(state)
        self._mask[:] = action_mask(state, self.unique_keeps)
        self._state = state
        return self._obs.copy()

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, np.ndarray]:
        if not self._in_row:
            self.batch.rng[0] = PCG.state_row(self.rng.bit_generator)  # type: ignore[union-attr]
            self._in_row = True
        self.actions[0] = action
        out = self.out
        self._step(self.actions, self.batch, self._inputs, out)
        self._state = None
        return (self._obs.copy(), float(out.reward[0]), bool(out.terminated[0]), bool(out.illegal[0]),
                self._mask8.copy())

    def mask(self) -> np.ndarray:
        return self._mask

    def state(self) -> GameState:
        if self._state is None:
            self._state = self.batch.game_state(0, self.rules)
        return self._state

    def scorecard(self) -> dict[str, int]:
        """The final scorecard the kernel wrote in the step that ended the game."""
        card = self.out.final_card[0].tolist()
        c = self.rules.num_categories
        out = dict(zip(self.rules.category_ids, card[:c]))
        out.update(upper_bonus=card[c], yahtzee_bonus=card[c + 1], total=card[c + 2])
        return out
