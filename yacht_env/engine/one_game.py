"""One game stepped by the vector engine's own kernel: the compiled path of the single environment.

:class:`yacht_env.env.YachtEnv` takes this path where numba's cache already holds the step kernel (its ``engine``
argument, ``"auto"`` by default): a one-game batch stepped by :func:`~yacht_env.engine.batch_kernels.step_games`, the
kernel the vector engine runs, without autoreset. The call skips numba's matching of argument types (``Dispatcher``
looks up the compiled overload by the types of the 30-odd arrays of a step, which costs more than the step itself):
:func:`compiled` finds the overload once, and the buffers it was found for are the only ones it is called with.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba
import numpy as np

from yacht_env.actions import NUM_KEEP_ACTIONS
from yacht_env.engine import batch_kernels as K
from yacht_env.engine import pcg64 as P
from yacht_env.engine.batch import Batch, StepOutputs, make_tables
from yacht_env.engine.game import RESET_ACTION
from yacht_env.rules import RuleSet
from yacht_env.state import GameState


def compiled(kernel: Any, *args: Any) -> Callable[..., Any]:
    """The compiled function of ``kernel`` for the types of ``args`` (loaded from numba's cache or compiled). It
    must be called with arguments of exactly those types: it does not check them."""
    return kernel.compile(tuple(numba.typeof(a) for a in args))


class OneGame:
    """The arrays of one game and its step; after each call ``out.obs[0]`` and ``out.mask[0]`` are its observation
    and legal-action mask, ``out.reward[0]``, ``out.terminated[0]``, ... what the step did."""

    def __init__(self, rules: RuleSet, unique_keeps: bool, obs_size: int) -> None:
        self.batch = Batch.empty(1, rules.num_categories)
        self.actions = np.zeros(1, dtype=np.int64)
        self.out = StepOutputs.empty(np.zeros((1, NUM_KEEP_ACTIONS + rules.num_categories), dtype=np.bool_),
                                     obs_size)
        self._tables = make_tables(rules, unique_keeps, False)
        self._step = compiled(K.step_games, self.actions, self.batch, self._tables, self.out)

    def step(self, action: int) -> None:
        """Take ``action`` (checked to be in the action space; an illegal one is a no-op), or
        :data:`~yacht_env.engine.game.RESET_ACTION` for a new game from the game's generator row."""
        self.actions[0] = action
        self._step(self.actions, self.batch, self._tables, self.out)

    def reset(self) -> None:
        self.step(RESET_ACTION)

    def load(self, state: GameState, obs: np.ndarray, mask: np.ndarray) -> None:
        """The game becomes ``state`` (its generator row kept), showing ``obs`` and ``mask`` (the encoder's, made by
        the caller)."""
        self.batch.load_state(0, state)
        self.out.obs[0] = obs
        self.out.mask[0] = mask

    def seed_from(self, bit_generator: np.random.PCG64) -> None:
        """The game's dice continue ``bit_generator``'s stream."""
        self.batch.rng[0] = P.state_row(bit_generator)

    def seed_into(self, bit_generator: np.random.PCG64) -> None:
        """``bit_generator`` continues the game's dice stream (set in place)."""
        P.write_state(self.batch.rng[0], bit_generator)

    def state(self, rules: RuleSet) -> GameState:
        return self.batch.game_state(0, rules)

    def scorecard(self, rules: RuleSet) -> dict[str, int]:
        """The final scorecard the step wrote (the game terminated): every box, the bonuses and the total."""
        card = self.out.final_card[0].tolist()
        c = rules.num_categories
        out = dict(zip(rules.category_ids, card[:c]))
        out.update(upper_bonus=card[c], yahtzee_bonus=card[c + 1], total=card[c + 2])
        return out
