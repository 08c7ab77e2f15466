"""The Gymnasium environment: one game, stepped in plain Python by the readable transitions of the game.

:class:`YachtEnv` holds its game as a :class:`~yacht_env.state.GameState` and steps it with the transitions of
:mod:`yacht_env.state` (:func:`~yacht_env.state.new_game`, :func:`~yacht_env.state.reroll_pattern`,
:func:`~yacht_env.state.score_category`); the observation is :func:`yacht_env.observation.encode` and the mask
:func:`yacht_env.actions.action_mask`. It imports no numba and compiles nothing, so the first ``gym.make`` plays at
once. The vector engine (:class:`~yacht_env.vector.YachtVectorEnv`) compiles the same rules and the same encoder;
``tests/test_vector.py`` holds game i of it to this environment seeded ``seed + i``, die for die.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from yacht_env import observation as O
from yacht_env.actions import NUM_KEEP_ACTIONS, action_mask, check_action, describe_action, illegal_reason
from yacht_env.frames import check_pillow, draw_frame
from yacht_env.i18n import check_lang
from yacht_env.objective import objective_of
from yacht_env.randomness import check_seed_value
from yacht_env.render import LastAction, last_action, render_text, warn_no_render_mode
from yacht_env.rules import get_rules
from yacht_env.state import GameState, new_game, parse, reroll_pattern, score_category, scorecard

_NOT_STARTED, _PLAYING, _OVER = range(3)

ENGINES = ("auto", "python", "compiled")
"""The values of ``YachtEnv(engine=...)``."""


def compiled_step_ready() -> bool:
    """Whether the vector engine's step kernel loads at once here: already loaded in this process, or in numba's
    cache for the current sources (looked up without importing numba)."""
    if "yacht_env.engine.batch_kernels" in sys.modules:
        return True
    from yacht_env.jit.cache_manifest import kernel_cached

    return kernel_cached(str(Path(__file__).parent / "engine" / "batch_kernels.py"), "step_games")


AUTO_SWITCH_STEPS = 2000
"""``engine="auto"``: the steps after which the next reset moves a Python-stepped env to the compiled kernel (where
it is in numba's cache): short scripts never wait for numba's import (about a second), long runs step faster."""


def engine_of(engine: str) -> str:
    """``engine`` checked against :data:`ENGINES`; ``ValueError`` naming the accepted values otherwise."""
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(map(repr, ENGINES))}, got {engine!r}")
    return engine


class YachtEnv(gym.Env[np.ndarray, np.int64]):
    """
    ## Description
    Solitaire Yacht or one of its relatives (Yahtzee, Scandinavian Yatzy, Knizia's Yacht): one turn per category;
    in each the player rolls five dice up to three times, keeping any dice between rolls, then fills one open
    category of the scorecard. The goal is the highest total. Rules: the documentation's Rules page (every rule
    set, with its sources) and :mod:`yacht_env.rules.definitions`.

    ## Action Space
    ``Discrete(32 + C)`` with C categories (12 in Yacht and Knizia's Yacht, 13 in Yahtzee, 15 in Yatzy). Actions
    0..31 keep a subset of the *sorted* dice (bit i keeps die i) and roll the others; action 32 + k scores
    category k in the rule set's order (``env.unwrapped.rules.category_ids``). The legal-action mask is
    ``env.action_masks()`` (bool) and ``info["action_mask"]`` (int8): keeps only while rolls remain, never
    keep-all (31), one pattern per distinct kept multiset when ``unique_keeps`` (default); scores only for open
    categories the Joker rule allows.

    ## Observation Space
    A flat float32 ``Box`` in ``[0, high]`` with named slices (:func:`yacht_env.observation.layout`): dice counts,
    sorted dice one-hot, rolls left, open categories, points each category would add now, turn, for rule sets with
    an upper bonus (Yahtzee, Yatzy) the capped upper total and the upper-bonus flag, and for Yahtzee the Yahtzee
    box (open / 50 / 0). It is Markov.
    :func:`yacht_env.observation.decode` reads it back.

    ## Starting State
    An empty scorecard and the first roll of the first turn (two rolls left). ``options={"state": ...}`` starts
    from a given :class:`~yacht_env.state.GameState` or its notation instead.

    ## Rewards
    0 for a keep; for a score action the points it adds, bonuses included (upper bonus when reached, 100 per extra
    Yahtzee). The rewards of an episode sum exactly to the final score.

    ## Engine and randomness
    Two engines step the game, with the same results bit for bit (``tests/test_vector.py``): ``"python"``, the
    transitions of :mod:`yacht_env.state` in plain Python (no numba, nothing to compile), and ``"compiled"``, the
    vector engine's numba kernel on a one-game batch (:mod:`yacht_env.engine.one_game`, several times faster a
    step). ``engine="auto"`` (default) starts in plain Python, so that a first ``gym.make`` never waits for numba,
    and at the first reset after :data:`AUTO_SWITCH_STEPS` steps moves to the compiled kernel where it is in numba's
    cache (any use of the vector engine puts it there; at once where this process already loaded it);
    ``env.unwrapped.engine`` says which one steps the game now. ``env.state`` is the current state. The dice come
    from ``env.np_random`` as :func:`yacht_env.randomness.roll` draws them (raw outputs of its bit generator), so
    whoever draws from ``env.np_random`` continues the very stream of the dice. A Generator set with ``env.np_random
    = g`` must have a PCG64 bit generator, the one the vector engine reproduces (:meth:`YachtVectorEnv.generator
    <yacht_env.vector.YachtVectorEnv.generator>` hands a game over to this environment).

    ## Episode End
    Terminated when every category is filled. Truncated by Gymnasium's ``TimeLimit``, which ``gym.make`` adds at
    the length of the longest legal game (:func:`yacht_env.state.longest_game`: 3 steps a turn), so only illegal
    actions reach it; ``gym.make(id, max_episode_steps=N)`` sets another length. The class alone never truncates.

    ## Information
    ``info["action_mask"]`` (int8) after reset and every step; ``info["illegal_action"]`` (bool) on every step;
    at the end ``info["final_score"]`` and ``info["scorecard"]`` (box per category, upper bonus, bonuses, total).

    ## Arguments
    - ``rules``: a rule set name of :data:`yacht_env.rules.RULESETS` (``"yacht"``, ``"yahtzee"``,
      ``"yahtzee-free-joker"``, ``"yatzy"``, ``"knizia"``; each stated on the documentation's Rules page).
    - ``render_mode``: ``None`` (``render()`` warns and returns None), ``"ansi"`` (``render()`` returns text),
      ``"human"`` (prints it) or ``"rgb_array"`` (``render()`` returns a (480, 640, 3) uint8 picture:
      :mod:`yacht_env.frames`; needs Pillow).
    - ``strict``: an in-space action the mask forbids raises ``ValueError``. Otherwise (default) it is a no-op:
      the state is unchanged, the reward is 0 and ``info["illegal_action"]`` is True.
    - ``unique_keeps``: one keep action per distinct kept multiset (default True).
    - ``lang``: language of the text rendering (:data:`yacht_env.i18n.LANGUAGES`).
    - ``engine``: ``"auto"`` (default), ``"python"`` or ``"compiled"`` (see Engine and randomness).
    - ``objective``: ``"points"`` (default: the rewards above) or ``"reach"`` with ``target=T``: reward 1 at the
      end of a game whose final score is at least T, else 0, and one more observation column, the points still
      needed (normalised; :mod:`yacht_env.objective`).

    ## Version History
    - v0: initial version.
    """

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 4}

    def __init__(self, rules: str = "yacht", render_mode: str | None = None, strict: bool = False,
                 unique_keeps: bool = True, lang: str = "en", objective: str = "points",
                 target: int | None = None, engine: str = "auto") -> None:
        self.rules = get_rules(rules)
        self._auto = engine_of(engine) == "auto"
        self.engine = "compiled" if engine == "compiled" or (self._auto and "yacht_env.engine.batch_kernels"
                                                             in sys.modules) else "python"
        """The engine that steps the game now: ``"python"`` or ``"compiled"`` (see the class docstring)."""
        self.objective = objective_of(self.rules, objective, target)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"unknown render_mode {render_mode!r}; accepted: None, 'ansi', 'human', 'rgb_array'")
        if render_mode == "rgb_array":
            check_pillow()
        self.render_mode = render_mode
        self.strict = bool(strict)
        self.unique_keeps = bool(unique_keeps)
        self.lang = check_lang(lang)
        self.action_space = spaces.Discrete(NUM_KEEP_ACTIONS + self.rules.num_categories)
        self.observation_space = spaces.Box(0.0, O.high(self.rules), dtype=np.float32)
        if self.objective is not None:
            self.observation_space = self.objective.space(self.observation_space)
        self._n_actions = int(self.action_space.n)
        self._status = _NOT_STARTED
        self._state: GameState | None = None
        self._mask = np.zeros(self._n_actions, dtype=np.bool_)
        self._last: LastAction | None = None  # the last action, for the text and the frames
        self._game: Any = None  # the compiled path's OneGame (yacht_env.engine.one_game)
        self._rng_in_row = False  # the compiled path: the dice stream is in the game's row, not in np_random
        self._busy = threading.Lock()  # held by reset and step: a second thread raises instead of tearing the game
        self._lean = False  # the step has nothing to do besides the compiled kernel's
        self._python_steps = 0  # steps taken by the Python engine (engine="auto" moves on after AUTO_SWITCH_STEPS)
        if self.engine == "compiled":
            self._use_compiled()

    # ---- Gymnasium API -------------------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[np.ndarray, dict[str, Any]]:
        if options is not None and not isinstance(options, dict):
            raise ValueError(f"options must be None or a dict (key 'state': a GameState or its notation), got "
                             f"{options!r}")
        start = (options or {}).get("state")
        st = None
        if start is not None:
            st = parse(start, self.rules.name) if isinstance(start, str) else start
            if not isinstance(st, GameState) or st.rules != self.rules.name or st.is_over:
                raise ValueError(f"options['state'] must be an unfinished {self.rules.name} GameState or notation, "
                                 f"got {start!r}")
        seed = check_seed_value(seed)  # a numpy integer as an int; a bool, float or set refused in one line
        with self._one_thread():
            super().reset(seed=seed)
            if seed is not None:
                self._rng_in_row = False  # a new np_random
            if self._auto and self._game is None and self._python_steps >= AUTO_SWITCH_STEPS:
                self._auto = False  # looked up once
                if compiled_step_ready():
                    self._use_compiled()
            if self._game is None:
                self._state = new_game(self.rules, self.np_random) if st is None else st
                self._mask = action_mask(self._state, self.unique_keeps)
                obs = O.encode(self._state)
            else:
                self._sync_rng()
                if st is None:
                    self._game.reset()
                else:
                    self._game.load(st, O.encode(st), action_mask(st, self.unique_keeps))
                self._state = st
                obs = self._game.out.obs[0].copy()
            self._status = _PLAYING
            self._last = None
            if self.objective is not None:
                obs = self.objective.observe(obs, 0 if st is None else st.total)
        if self.render_mode == "human":
            self.render()
        return obs, {"action_mask": self._mask.view(np.int8).copy()}

    def step(self, action: Any) -> tuple[np.ndarray, SupportsFloat, bool, bool, dict[str, Any]]:
        if self._status != _PLAYING:
            self._not_playing(action)
        a = action if type(action) is int and 0 <= action < self._n_actions else check_action(action, self._n_actions)
        if self._lean:  # the compiled engine with nothing around it: the hot path of training loops
            if not self._busy.acquire(blocking=False):
                self._busy_error()
            try:
                return self._step_compiled(a)
            finally:
                self._busy.release()
        with self._one_thread():
            legal = bool(self._mask[a])
            if self.strict and not legal:
                raise ValueError(f"action {a} ({describe_action(a, self.state)}) is illegal: "
                                 f"{self.illegal_reason(a)}")
            if self.render_mode is not None:
                self._last = last_action(self.state, a, legal)
            if self._game is None:
                obs, reward, terminated, truncated, info = self._step_python(a, legal)
            else:
                obs, reward, terminated, truncated, info = self._step_compiled(a)
            if self.objective is not None:
                total = self.state.total  # type: ignore[union-attr] - a game is on after a step
                obs, reward = self.objective.observe(obs, total), float(self.objective.reward(terminated, total))
        if self.render_mode == "human":
            self.render()
        return obs, float(reward), terminated, truncated, info

    def _step_python(self, a: int, legal: bool) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """The step by the transitions of :mod:`yacht_env.state`."""
        st = self._state
        assert st is not None
        self._python_steps += 1
        reward = 0
        if legal:
            if a < NUM_KEEP_ACTIONS:
                st = reroll_pattern(st, a, self.np_random)
            else:
                st, reward = score_category(st, a - NUM_KEEP_ACTIONS, self.np_random)
            self._state = st
            self._mask = action_mask(st, self.unique_keeps)
        terminated = st.is_over
        info: dict[str, Any] = {"action_mask": self._mask.view(np.int8).copy(), "illegal_action": not legal}
        if terminated:
            self._status = _OVER
            info["final_score"] = st.total
            info["scorecard"] = scorecard(st)
        return O.encode(st), reward, terminated, False, info

    def _step_compiled(self, a: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """The step by the vector engine's kernel on the one-game batch (the same rules, encoder and dice)."""
        game = self._game
        if not self._rng_in_row:
            self._sync_rng()
        game.step(a)
        self._state = None  # built from the arrays when asked for
        out = game.out
        terminated = bool(out.terminated[0])
        info: dict[str, Any] = {"action_mask": self._mask8.copy(), "illegal_action": bool(out.illegal[0])}
        if terminated:
            self._status = _OVER
            card = game.scorecard(self.rules)
            info["final_score"] = card["total"]
            info["scorecard"] = card
        return self._obs_row.copy(), float(out.reward[0]), terminated, False, info

    def _busy_error(self) -> None:
        raise RuntimeError("this YachtEnv is being reset or stepped by another thread: one env is used from one "
                           "thread at a time (make one env per thread)")

    def _sync_rng(self) -> None:
        """The compiled path: the game's row takes over the dice stream from ``np_random``."""
        if not self._rng_in_row:
            self._game.seed_from(gym.Env.np_random.fget(self).bit_generator)  # type: ignore[attr-defined]
            self._rng_in_row = True

    @contextmanager
    def _one_thread(self) -> Iterator[None]:
        if not self._busy.acquire(blocking=False):
            self._busy_error()
        try:
            yield
        finally:
            self._busy.release()

    def render(self) -> str | np.ndarray | None:
        """The text (``render_mode="ansi"``) or picture (``"rgb_array"``) of the game; ``"human"`` prints the text.
        Without a render mode it warns and returns None, as Gymnasium's environments do."""
        if self.render_mode is None:
            warn_no_render_mode(self.metadata["render_modes"])
            return None
        if self._status == _NOT_STARTED:
            return None
        if self.render_mode == "rgb_array":
            return draw_frame(self.state, self._last)
        text = render_text(self.state, self.lang, self._last)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    # ---- state and randomness ------------------------------------------------------------------------------
    @property
    def state(self) -> GameState | None:
        """The current :class:`~yacht_env.state.GameState` (None before the first reset)."""
        if self._state is None and self._game is not None and self._status != _NOT_STARTED:
            self._state = self._game.state(self.rules)
        return self._state

    @property
    def np_random(self) -> np.random.Generator:
        """The environment's Generator, the stream of the dice (seeded at random on first use if unset)."""
        g = gym.Env.np_random.fget(self)  # type: ignore[attr-defined]
        if self._rng_in_row:  # the compiled path hands the stream back: whoever draws from g continues the dice
            self._game.seed_into(g.bit_generator)
            self._rng_in_row = False
        return g

    @np_random.setter
    def np_random(self, value: np.random.Generator) -> None:
        if not isinstance(value, np.random.Generator) or not isinstance(value.bit_generator, np.random.PCG64):
            raise ValueError(f"np_random must be a numpy Generator over a PCG64 bit generator, got {value!r}")
        gym.Env.np_random.fset(self, value)  # type: ignore[attr-defined]
        self._rng_in_row = False

    def __getstate__(self) -> dict[str, Any]:
        """A pickled env keeps its game as a state and its dice in ``np_random`` (a compiled game is made anew)."""
        if self._rng_in_row:
            self.np_random  # noqa: B018  (hands the dice stream back to np_random)
        st = self.state
        d = {k: v for k, v in self.__dict__.items() if k not in ("_game", "_busy", "_mask8", "_obs_row")}
        d["_state"], d["_mask"] = st, self._mask.copy()
        return d

    def __setstate__(self, d: dict[str, Any]) -> None:
        self.__dict__.update(d)
        self._busy = threading.Lock()
        self._game = None
        if self.engine == "compiled":
            from yacht_env.engine.one_game import OneGame

            game = OneGame(self.rules, self.unique_keeps, O.size(self.rules))
            if self._state is not None:
                game.load(self._state, O.encode(self._state), self._mask)
            self._use_compiled(game)

    def _use_compiled(self, game: Any = None) -> None:
        """From now on the compiled kernel steps the game (``game``, or a new one that the next reset starts)."""
        from yacht_env.engine.one_game import OneGame

        self.engine = "compiled"
        self._lean = not self.strict and self.render_mode is None and self.objective is None
        self._bind_game(game or OneGame(self.rules, self.unique_keeps, O.size(self.rules)))

    def _bind_game(self, game: Any) -> None:
        """The compiled path's game, and views of its rows that the step reads."""
        self._game = game
        self._mask = game.out.mask[0]
        self._mask8 = self._mask.view(np.int8)
        self._obs_row = game.out.obs[0]

    def _not_playing(self, action: Any) -> None:
        if self._status == _NOT_STARTED:
            raise RuntimeError("call reset() before step()")
        check_action(action, self._n_actions)
        raise RuntimeError("the game is over: call reset() before step()")

    # ---- masks ---------------------------------------------------------------------------------------------
    def action_masks(self) -> np.ndarray:
        """Bool mask of the legal actions (called by sb3-contrib's MaskablePPO)."""
        return self._mask.copy()

    def illegal_reason(self, action: int) -> str:
        """Why ``action`` is illegal now ("" if it is legal)."""
        return illegal_reason(self.state, action, self.unique_keeps)
