"""The single environment's engine: one game behind one small interface, chosen once when the env is made.

:class:`yacht_env.env.YachtEnv` asks its engine for a new game (:meth:`GameEngine.start`), a step
(:meth:`GameEngine.step`), the legal actions, the state and the final scorecard, and tells it which generator the
dice come from (:meth:`GameEngine.use`); it has no other knowledge of how the game is stepped. Three engines play the
same games bit for bit (``tests/test_single_engines.py``):

- :class:`PythonEngine`: the readable transitions of :mod:`yacht_env.state` and the encoder of
  :mod:`yacht_env.observation` in plain Python (no numba, nothing to compile: a first game starts at once);
- :class:`~yacht_env.engine.one_game.CompiledEngine`: the vector engine's numba kernel on a one-game batch, several
  times faster a step, but its first use in a process loads numba and the kernel (about half a second from numba's
  cache: ``python benchmarks/bench_cold_start.py``);
- :class:`AutoEngine` (``engine="auto"``, the default): the Python engine for short runs, the compiled one for long
  runs where its kernel is in numba's cache, so neither a first game nor a long run waits.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from yacht_env import observation as O
from yacht_env.actions import NUM_KEEP_ACTIONS, action_mask
from yacht_env.rules import RuleSet
from yacht_env.state import GameState, new_game, reroll_pattern, score_category, scorecard

ENGINES = ("auto", "python", "compiled")
"""The values of ``YachtEnv(engine=...)``."""

AUTO_SWITCH_STEPS = 2000
""":class:`AutoEngine`: the steps after which the next new game is played by the compiled kernel (where it is in
numba's cache): short scripts never wait for numba's import, long runs step faster."""

StepResult = tuple[np.ndarray, float, bool, bool, np.ndarray]
"""What :meth:`GameEngine.step` returns: the observation (a new array), the reward, whether the game is over,
whether the action was illegal (then nothing changed), and the legal actions now as a new int8 array (what
``info["action_mask"]`` holds)."""


class GameEngine(Protocol):
    """One game and its step, with the dice drawn from the generator given to :meth:`use`."""

    name: str
    """``"python"`` or ``"compiled"``: the engine that steps the game now."""

    def use(self, rng: np.random.Generator) -> None:
        """The dice continue ``rng``'s stream from now on (a no-op where ``rng`` is the generator in use)."""

    def release(self) -> None:
        """The generator in use continues the dice stream exactly where the game left it (before someone else
        draws from it)."""

    def start(self, state: GameState | None) -> np.ndarray:
        """A new game from the dice stream, or the game ``state``; its observation."""

    def step(self, action: int) -> StepResult:
        """Play ``action`` (in the action space; an illegal one changes nothing)."""

    def mask(self) -> np.ndarray:
        """The bool mask of the legal actions now (the engine's own array: copy it to keep it)."""

    def state(self) -> GameState:
        """The game now."""

    def scorecard(self) -> dict[str, int]:
        """The final scorecard (every box, the bonuses and the total) of the game the last step ended."""


class PythonEngine:
    """The transitions of :mod:`yacht_env.state` in plain Python; the dice come straight from the generator."""

    name = "python"

    def __init__(self, rules: RuleSet, unique_keeps: bool) -> None:
        self.rules, self.unique_keeps = rules, unique_keeps
        self.rng: np.random.Generator | None = None
        self.steps = 0  # steps played, for AutoEngine
        self._state: GameState | None = None
        self._mask = np.zeros(NUM_KEEP_ACTIONS + rules.num_categories, dtype=np.bool_)

    def use(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def release(self) -> None:
        """Nothing to hand back: every die was drawn from the generator itself."""

    def start(self, state: GameState | None) -> np.ndarray:
        self._state = new_game(self.rules, self.rng) if state is None else state
        self._mask = action_mask(self._state, self.unique_keeps)
        return O.encode(self._state)

    def step(self, action: int) -> StepResult:
        st = self._state
        assert st is not None, "start() first"
        self.steps += 1
        legal = bool(self._mask[action])
        reward = 0
        if legal:
            if action < NUM_KEEP_ACTIONS:
                st = reroll_pattern(st, action, self.rng)
            else:
                st, reward = score_category(st, action - NUM_KEEP_ACTIONS, self.rng)
            self._state = st
            self._mask = action_mask(st, self.unique_keeps)
        return O.encode(st), float(reward), st.is_over, not legal, self._mask.view(np.int8).copy()

    def mask(self) -> np.ndarray:
        return self._mask

    def state(self) -> GameState:
        assert self._state is not None, "start() first"
        return self._state

    def scorecard(self) -> dict[str, int]:
        return scorecard(self.state())


def kernel_loaded() -> bool:
    """Whether this process has loaded the compiled engine's kernel (a look at ``sys.modules``, not an import)."""
    return "yacht_env.engine.batch_kernels" in sys.modules


def compiled_step_ready() -> bool:
    """Whether the compiled engine's kernel loads at once here: already loaded in this process, or in numba's cache
    for the current sources (looked up without importing numba)."""
    if kernel_loaded():
        return True
    from yacht_env.jit.numba_cache import kernel_cached

    return kernel_cached(str(Path(__file__).parent / "engine" / "batch_kernels.py"), "step_games")


def compiled_engine(rules: RuleSet, unique_keeps: bool) -> GameEngine:
    """A :class:`~yacht_env.engine.one_game.CompiledEngine` (imported here: numba loads only when one is made)."""
    from yacht_env.engine.one_game import CompiledEngine

    return CompiledEngine(rules, unique_keeps)


class AutoEngine:
    """The Python engine first; at the first new game after :data:`AUTO_SWITCH_STEPS` steps, the compiled engine
    where its kernel is in numba's cache (at once where this process has loaded it). The game in progress and the
    dice stream go on unchanged."""

    def __init__(self, rules: RuleSet, unique_keeps: bool) -> None:
        self._rules, self._unique_keeps = rules, unique_keeps
        loaded = kernel_loaded()
        self._looked = loaded  # whether the move to the compiled engine was decided
        self._bind(compiled_engine(rules, unique_keeps) if loaded else PythonEngine(rules, unique_keeps))

    def _bind(self, inner: Any) -> None:
        """``inner`` plays from now on: its methods become this engine's (no call in between on the step path)."""
        self.inner = inner
        self.name: str = inner.name
        self.use, self.release, self.step = inner.use, inner.release, inner.step
        self.mask, self.state, self.scorecard = inner.mask, inner.state, inner.scorecard

    def start(self, state: GameState | None) -> np.ndarray:
        inner = self.inner
        if not self._looked and inner.steps >= AUTO_SWITCH_STEPS:
            self._looked = True  # looked up once
            if compiled_step_ready():
                compiled = compiled_engine(self._rules, self._unique_keeps)
                if inner.rng is not None:
                    compiled.use(inner.rng)
                self._bind(compiled)
        return self.inner.start(state)


def make_engine(engine: str, rules: RuleSet, unique_keeps: bool) -> GameEngine:
    """The engine named ``engine`` (one of :data:`ENGINES`); ``ValueError`` naming the accepted values otherwise."""
    if engine == "python":
        return PythonEngine(rules, unique_keeps)
    if engine == "compiled":
        return compiled_engine(rules, unique_keeps)
    if engine == "auto":
        return AutoEngine(rules, unique_keeps)
    raise ValueError(f"engine must be one of {', '.join(map(repr, ENGINES))}, got {engine!r}")
