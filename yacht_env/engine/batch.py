"""The state of N games as arrays, and the read-only inputs the engine's kernels read.

:class:`Batch` holds one row per game (hand index, rolls left, filled-box bits, box scores, upper total, bonus count,
points so far, steps in the episode and the PCG64 generator) and is the one mapping between a
:class:`~yacht_env.state.GameState` and a row. :class:`KernelInputs` holds, per rule set and environment options, the
rules' scoring arrays (:class:`yacht_env.rules.ScoringConstants`), the dice model's arrays
(:class:`yacht_env.dice.DiceConstants`), the legal keep masks and the observation encoder's arrays
(:class:`yacht_env.observation.EncoderConstants`): everything the kernels of :mod:`.game` read. Both are NamedTuples:
numba compiles them, so the kernels take them as they are and read their fields by name.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np

from yacht_env import dice as D
from yacht_env import observation as O
from yacht_env.actions import KEEP_MASK_ALL, KEEP_MASK_UNIQUE, NUM_KEEP_ACTIONS
from yacht_env.rules import RuleSet, ScoringConstants
from yacht_env.state import GameState

# cfg: integer configuration of a batch (one int64 array, so the kernels take few arguments)
C_NUM_CAT, C_YCAT, C_AUTORESET, C_TIME_LIMIT = range(4)
MAX_STEPS_LIMIT = 2**31 - 1
"""The largest ``max_episode_steps``: a batch counts the steps of an episode in int32."""


def check_time_limit(max_episode_steps: object) -> int | None:
    """``max_episode_steps`` (Gymnasium's ``TimeLimit``: an episode is truncated once it has taken that many steps,
    whether or not it also terminated) as an int in ``1..MAX_STEPS_LIMIT``, or None for no limit; else
    ``ValueError`` saying what is accepted."""
    if max_episode_steps is None:
        return None
    if (isinstance(max_episode_steps, (bool, np.bool_)) or not isinstance(max_episode_steps, (int, np.integer))
            or not 1 <= max_episode_steps <= MAX_STEPS_LIMIT):
        raise ValueError(f"max_episode_steps must be None or an int in 1..{MAX_STEPS_LIMIT}, got {max_episode_steps!r}")
    return int(max_episode_steps)


class StepOutputs(NamedTuple):
    """What a vector step writes, one row per game: the observation and mask as the game then stands, the reward
    and flags; for a game that ended and restarted in the step (``SAME_STEP`` autoreset) its final observation and
    mask (the mask rows of the other games are zeros, their observation rows are left unwritten; without autoreset
    neither is written); for a game that terminated its scorecard (boxes, upper bonus, five-of-a-kind bonus,
    total; zeros for the other games)."""

    obs: np.ndarray
    mask: np.ndarray
    reward: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    illegal: np.ndarray
    final_obs: np.ndarray
    final_mask: np.ndarray
    final_card: np.ndarray

    @classmethod
    def empty(cls, mask: np.ndarray, obs_size: int) -> StepOutputs:
        """Fresh outputs for the games of ``mask`` (N, 32 + C), which the step writes in place (the vector env keeps
        it); the dtypes the step kernel is compiled for."""
        n, num_actions = mask.shape
        num_categories = num_actions - NUM_KEEP_ACTIONS
        return cls(np.empty((n, obs_size), dtype=np.float32), mask, np.empty(n, dtype=np.float64),
                   np.empty(n, dtype=np.bool_), np.empty(n, dtype=np.bool_), np.empty(n, dtype=np.bool_),
                   np.empty((n, obs_size), dtype=np.float32),  # the kernel zeroes the rows of running games
                   np.empty((n, num_actions), dtype=np.bool_), np.empty((n, num_categories + 3), dtype=np.int64))


class KernelInputs(NamedTuple):
    """The read-only arrays the kernels read besides the games' state (``ki``), built once per (rules, unique_keeps,
    autoreset, time_limit) by :func:`kernel_inputs`: the rule set's :class:`~yacht_env.rules.ScoringConstants`, the dice
    model's :class:`~yacht_env.dice.DiceConstants`, the env's configuration and legal keep patterns, and the observation
    encoder's arrays."""

    scoring: ScoringConstants  # the rules' parameters, score and Joker arrays (RuleSet.scoring)
    dice: D.DiceConstants  # five-of-a-kind faces, keep patterns, keep sizes and additions (dice.DICE_CONSTANTS)
    cfg: np.ndarray  # int64 configuration, indices C_*
    keep_mask: np.ndarray  # (252, 32) bool: the keep patterns the env allows (all, or one per distinct keep)
    encoder: O.EncoderConstants  # the observation encoder's arrays


@functools.cache
def kernel_inputs(rules: RuleSet, unique_keeps: bool, autoreset: bool = True,
                  time_limit: int | None = None) -> KernelInputs:
    """The kernels' arrays and configuration for a rule set and the env's options (built once per combination and
    shared: every array is read-only). ``autoreset``: a game that ends starts over in the same step (``SAME_STEP``);
    else it stays over until it is sent :data:`~yacht_env.engine.game.RESET_ACTION`. ``time_limit``: Gymnasium's
    ``TimeLimit`` (truncated after that many steps even where the game also terminated), None for none."""
    cfg = np.zeros(4, dtype=np.int64)
    cfg[C_NUM_CAT] = rules.num_categories
    cfg[C_YCAT] = rules.five_kind_category
    cfg[C_AUTORESET] = int(autoreset)
    cfg[C_TIME_LIMIT] = 0 if time_limit is None else time_limit
    cfg.setflags(write=False)
    return KernelInputs(scoring=rules.scoring, dice=D.DICE_CONSTANTS, cfg=cfg,
                        keep_mask=np.ascontiguousarray(KEEP_MASK_UNIQUE if unique_keeps else KEEP_MASK_ALL),
                        encoder=O.encoder_constants(rules))


MAX_BOX = 1000  # largest box score (and bonus count) a loaded state may hold: int16 upper totals cannot overflow


class Batch(NamedTuple):
    """The state of N games as arrays (row i is game i; ``st`` in the kernels). ``scores`` holds -1 for an open
    box. The arrays are written in place, never replaced."""

    hand: np.ndarray  # (N,) int16: hand index 0..251 of the sorted dice
    rolls: np.ndarray  # (N,) int8: rolls left in the turn (0..2)
    filled: np.ndarray  # (N,) int32: bit k set once box k is filled
    scores: np.ndarray  # (N, C) int16: box scores, -1 while open
    upper: np.ndarray  # (N,) int16: upper-section total
    bonus: np.ndarray  # (N,) int16: count of five-of-a-kind bonuses
    total: np.ndarray  # (N,) int32: points so far (the sum of the rewards)
    steps: np.ndarray  # (N,) int32: steps taken in the current episode
    rng: np.ndarray  # (N, 4) uint64: PCG64 rows, see yacht_env.engine.pcg64

    @classmethod
    def empty(cls, n: int, num_categories: int) -> Batch:
        return cls(
            hand=np.zeros(n, dtype=np.int16),
            rolls=np.zeros(n, dtype=np.int8),
            filled=np.zeros(n, dtype=np.int32),
            scores=np.full((n, num_categories), -1, dtype=np.int16),
            upper=np.zeros(n, dtype=np.int16),
            bonus=np.zeros(n, dtype=np.int16),
            total=np.zeros(n, dtype=np.int32),
            steps=np.zeros(n, dtype=np.int32),
            rng=np.zeros((n, 4), dtype=np.uint64),
        )

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in self)

    # ---- GameState <-> row: the one mapping (the vector env's states and loads) ------------------------------------
    def game_state(self, i: int, rules: RuleSet) -> GameState:
        """The :class:`~yacht_env.state.GameState` of row i (built anew from the arrays)."""
        scores = tuple(None if s < 0 else s for s in self.scores[i].tolist())
        return GameState(rules.name, tuple(D.HANDS[self.hand[i]].tolist()), int(self.rolls[i]), scores,
                         int(self.bonus[i]))

    def load_state(self, i: int, state: GameState) -> None:
        """Row i becomes ``state``, its episode's step count 0; its generator row is left as it is. Raises
        ``ValueError`` for a state the arrays cannot hold (a box score outside 0..MAX_BOX, a bonus count above it)."""
        c = self.scores.shape[1]
        if len(state.scores) != c:
            raise ValueError(f"state has {len(state.scores)} boxes, the batch {c}")
        if any(s is not None and not 0 <= s <= MAX_BOX for s in state.scores) or not 0 <= state.bonus_count <= MAX_BOX:
            raise ValueError(f"box scores and the bonus count must be in 0..{MAX_BOX} here, got {state}")
        self.hand[i] = state.hand
        self.rolls[i] = state.rolls_left
        self.filled[i] = state.filled_bits
        self.scores[i] = [-1 if s is None else s for s in state.scores]
        self.upper[i] = state.upper_total
        self.bonus[i] = state.bonus_count
        self.total[i] = state.total
        self.steps[i] = 0


