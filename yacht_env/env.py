"""The Gymnasium environment of one game: the Gymnasium API, rendering and the objective around an engine.

:class:`YachtEnv` checks what it is given (actions, seeds, start states), keeps the episode's status, renders, and
hands the game to its engine (:mod:`yacht_env.single_engine`: plain Python, the compiled kernel, or the first then
the second), which starts games, steps them and answers for the state, the legal actions and the scorecard. The
engines play the same games bit for bit (``tests/test_single_engines.py``); the vector engine
(:class:`~yacht_env.vector.YachtVectorEnv`) plays them too, game i of it die for die this environment seeded
``seed + i`` (``tests/test_vector.py``).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from yacht_env import observation as O
from yacht_env.actions import NUM_KEEP_ACTIONS, check_action, describe_action, illegal_reason
from yacht_env.frames import check_pillow, draw_frame
from yacht_env.i18n import check_lang
from yacht_env.objective import objective_of
from yacht_env.randomness import check_seed_value
from yacht_env.render import LastAction, last_action, render_text, warn_no_render_mode
from yacht_env.rules import get_rules
from yacht_env.single_engine import make_engine
from yacht_env.state import GameState, parse

_NOT_STARTED, _PLAYING, _OVER = range(3)


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
    The game is stepped by one engine, chosen when the env is made (:mod:`yacht_env.single_engine`), with the same
    results bit for bit (``tests/test_single_engines.py``): ``"python"``, the transitions of :mod:`yacht_env.state`
    in plain Python (no numba, nothing to compile), ``"compiled"``, the vector engine's numba kernel on a one-game
    batch (several times faster a step), and ``"auto"`` (default), which plays in plain Python, so that a first
    ``gym.make`` never waits for numba, and from the first new game after
    :data:`~yacht_env.single_engine.AUTO_SWITCH_STEPS` steps with the compiled kernel where it is in numba's cache
    (any use of the vector engine puts it there; at once where this process already loaded it);
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
        self._engine_name = engine
        self._engine = make_engine(engine, self.rules, self.unique_keeps)
        self._status = _NOT_STARTED
        self._last: LastAction | None = None  # the last action, for the text and the frames
        self._watched = self.strict or render_mode is not None  # the step checks or records the action first
        self._busy = threading.Lock()  # held by reset and step: a second thread raises instead of tearing the game

    @property
    def engine(self) -> str:
        """The engine that steps the game now: ``"python"`` or ``"compiled"`` (see the class docstring)."""
        return self._engine.name

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
            self._engine.use(gym.Env.np_random.fget(self))  # type: ignore[attr-defined] - made on first use
            obs = self._engine.start(st)
            self._status = _PLAYING
            self._last = None
            if self.objective is not None:
                obs = self.objective.observe(obs, 0 if st is None else st.total)
        if self.render_mode == "human":
            self.render()
        return obs, {"action_mask": self._engine.mask().view(np.int8).copy()}

    def step(self, action: Any) -> tuple[np.ndarray, SupportsFloat, bool, bool, dict[str, Any]]:
        if self._status != _PLAYING:
            self._not_playing(action)
        a = action if type(action) is int and 0 <= action < self._n_actions else check_action(action, self._n_actions)
        if not self._busy.acquire(blocking=False):
            self._busy_error()
        try:
            engine = self._engine
            if self._watched:
                self._check_and_record(a)
            obs, reward, terminated, illegal, mask = engine.step(a)
            info: dict[str, Any] = {"action_mask": mask, "illegal_action": illegal}
            if terminated:
                self._status = _OVER
                card = engine.scorecard()
                info["final_score"] = card["total"]
                info["scorecard"] = card
            if self.objective is not None:
                total = engine.state().total
                obs, reward = self.objective.observe(obs, total), float(self.objective.reward(terminated, total))
        finally:
            self._busy.release()
        if self.render_mode == "human":
            self.render()
        return obs, reward, terminated, False, info

    def _check_and_record(self, a: int) -> None:
        """``strict``: an illegal action raises; a render mode: the action is kept for the text and the frames."""
        legal = bool(self._engine.mask()[a])
        if self.strict and not legal:
            raise ValueError(f"action {a} ({describe_action(a, self.state)}) is illegal: {self.illegal_reason(a)}")
        if self.render_mode is not None:
            self._last = last_action(self.state, a, legal)

    def _busy_error(self) -> None:
        raise RuntimeError("this YachtEnv is being reset or stepped by another thread: one env is used from one "
                           "thread at a time (make one env per thread)")

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
        return None if self._status == _NOT_STARTED else self._engine.state()

    @property
    def np_random(self) -> np.random.Generator:
        """The environment's Generator, the stream of the dice (seeded at random on first use if unset): whoever
        draws from it continues the dice stream, and the dice continue after those draws."""
        self._engine.release()
        return gym.Env.np_random.fget(self)  # type: ignore[attr-defined]

    @np_random.setter
    def np_random(self, value: np.random.Generator) -> None:
        if not isinstance(value, np.random.Generator) or not isinstance(value.bit_generator, np.random.PCG64):
            raise ValueError(f"np_random must be a numpy Generator over a PCG64 bit generator, got {value!r}")
        gym.Env.np_random.fset(self, value)  # type: ignore[attr-defined]
        self._engine.use(value)

    def __getstate__(self) -> dict[str, Any]:
        """A pickled env keeps its game as a state and its dice in ``np_random``; its engine is made anew."""
        self._engine.release()
        d = {k: v for k, v in self.__dict__.items() if k not in ("_engine", "_busy")}
        d["_game_state"], d["_engine_now"] = self.state, self.engine
        return d

    def __setstate__(self, d: dict[str, Any]) -> None:
        st, now = d.pop("_game_state"), d.pop("_engine_now")
        self.__dict__.update(d)
        self._busy = threading.Lock()
        self._engine = make_engine("compiled" if now == "compiled" else self._engine_name, self.rules,
                                   self.unique_keeps)
        if self._np_random is not None:
            self._engine.use(self._np_random)
        if st is not None:
            self._engine.start(st)

    def _not_playing(self, action: Any) -> None:
        if self._status == _NOT_STARTED:
            raise RuntimeError("call reset() before step()")
        check_action(action, self._n_actions)
        raise RuntimeError("the game is over: call reset() before step()")

    # ---- masks ---------------------------------------------------------------------------------------------
    def action_masks(self) -> np.ndarray:
        """Bool mask of the legal actions (called by sb3-contrib's MaskablePPO)."""
        return self._engine.mask().copy()

    def illegal_reason(self, action: int) -> str:
        """Why ``action`` is illegal now ("" if it is legal)."""
        return illegal_reason(self.state, action, self.unique_keeps)
