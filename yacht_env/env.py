"""The Gymnasium environment: one game, stepped in plain Python by the readable transitions of the game.

:class:`YachtEnv` holds its game as a :class:`~yacht_env.state.GameState` and steps it with the transitions of
:mod:`yacht_env.state` (:func:`~yacht_env.state.new_game`, :func:`~yacht_env.state.reroll_pattern`,
:func:`~yacht_env.state.score_category`); the observation is :func:`yacht_env.observation.encode` and the mask
:func:`yacht_env.actions.action_mask`. It imports no numba and compiles nothing, so the first ``gym.make`` plays at
once. The vector engine (:class:`~yacht_env.vector.YachtVectorEnv`) compiles the same rules and the same encoder;
``tests/test_vector.py`` holds game i of it to this environment seeded ``seed + i``, die for die.
"""

from __future__ import annotations

from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from yacht_env import observation as O
from yacht_env.actions import NUM_KEEP_ACTIONS, action_mask, check_action, describe_action, illegal_reason
from yacht_env.engine.batch import check_max_steps
from yacht_env.frames import LastAction, check_pillow, draw_frame, last_action
from yacht_env.i18n import check_lang
from yacht_env.objective import ReachTracker, objective_of
from yacht_env.render import render_text
from yacht_env.rules import get_rules
from yacht_env.state import GameState, new_game, parse, reroll_pattern, score_category, scorecard

_NOT_STARTED, _PLAYING, _OVER = range(3)


class YachtEnv(gym.Env[np.ndarray, np.int64]):
    """
    ## Description
    Solitaire Yacht or one of its relatives (Yahtzee, Scandinavian Yatzy, Knizia's Yacht): one turn per category;
    in each the player rolls five dice up to three times, keeping any dice between rolls, then fills one open
    category of the scorecard. The goal is the highest total. Rules: ``docs/rules.md`` (every rule set, with its
    sources) and :mod:`yacht_env.rules.definitions`.

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
    The game is a :class:`~yacht_env.state.GameState` stepped by the transitions of :mod:`yacht_env.state` in plain
    Python (no numba, nothing to compile). ``env.state`` is the current state. The dice come from ``env.np_random``
    as :func:`yacht_env.randomness.roll` draws them (raw outputs of its bit generator), so whoever draws from
    ``env.np_random`` continues the very stream of the dice. A Generator set with ``env.np_random = g`` must have a
    PCG64 bit generator, the one the vector engine reproduces (:meth:`YachtVectorEnv.generator
    <yacht_env.vector.YachtVectorEnv.generator>` hands a game over to this environment).

    ## Episode End
    Terminated when every category is filled. Truncated after ``max_steps`` steps, which only illegal actions can
    reach (a legal game takes at most 3 steps a turn).

    ## Information
    ``info["action_mask"]`` (int8) after reset and every step; ``info["illegal_action"]`` (bool) on every step;
    at the end ``info["final_score"]`` and ``info["scorecard"]`` (box per category, upper bonus, bonuses, total).

    ## Arguments
    - ``rules``: a rule set name of :data:`yacht_env.rules.RULESETS` (``"yacht"``, ``"yahtzee"``,
      ``"yahtzee-free-joker"``, ``"yatzy"``, ``"knizia"``; each stated in ``docs/rules.md``).
    - ``render_mode``: ``None``, ``"ansi"`` (``render()`` returns text), ``"human"`` (prints it) or
      ``"rgb_array"`` (``render()`` returns a (480, 640, 3) uint8 picture: :mod:`yacht_env.frames`; needs Pillow).
    - ``strict``: an in-space action the mask forbids raises ``ValueError``. Otherwise (default) it is a no-op:
      the state is unchanged, the reward is 0 and ``info["illegal_action"]`` is True.
    - ``unique_keeps``: one keep action per distinct kept multiset (default True).
    - ``max_steps``: truncation limit, only reached through illegal actions (an int, at least 3 steps a turn, at
      most 2**31 - 1).
    - ``lang``: language of the text rendering (:data:`yacht_env.i18n.LANGUAGES`).
    - ``objective``: ``"points"`` (default: the rewards above) or ``"reach"`` with ``target=T``: reward 1 at the
      end of a game whose final score is at least T, else 0, and one more observation column, the points still
      needed (normalised; :mod:`yacht_env.objective`).

    ## Version History
    - v0: initial version.
    """

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 4}

    def __init__(self, rules: str = "yacht", render_mode: str | None = None, strict: bool = False,
                 unique_keeps: bool = True, max_steps: int = 256, lang: str = "en", objective: str = "points",
                 target: int | None = None) -> None:
        self.rules = get_rules(rules)
        self.objective = objective_of(self.rules, objective, target)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"unknown render_mode {render_mode!r}; accepted: None, 'ansi', 'human', 'rgb_array'")
        if render_mode == "rgb_array":
            check_pillow()
        self.render_mode = render_mode
        self.strict = bool(strict)
        self.unique_keeps = bool(unique_keeps)
        self.max_steps = check_max_steps(max_steps, self.rules.num_categories)
        self.lang = check_lang(lang)
        self.action_space = spaces.Discrete(NUM_KEEP_ACTIONS + self.rules.num_categories)
        self.observation_space = spaces.Box(0.0, O.high(self.rules), dtype=np.float32)
        self._reach = None if self.objective is None else ReachTracker(self.objective)
        if self.objective is not None:
            self.observation_space = self.objective.space(self.observation_space)
        self._n_actions = int(self.action_space.n)
        self._status = _NOT_STARTED
        self._state: GameState | None = None
        self._mask = np.zeros(self._n_actions, dtype=np.bool_)
        self._steps = 0  # steps of this episode, for max_steps
        self._last: LastAction | None = None  # the last action, for rgb_array frames

    # ---- Gymnasium API -------------------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[np.ndarray, dict[str, Any]]:
        if options is not None and not isinstance(options, dict):
            raise ValueError(f"options must be None or a dict (key 'state': a GameState or its notation), got "
                             f"{options!r}")
        super().reset(seed=seed)
        start = (options or {}).get("state")
        if start is None:
            self._state = new_game(self.rules, self.np_random)
        else:
            st = parse(start, self.rules.name) if isinstance(start, str) else start
            if not isinstance(st, GameState) or st.rules != self.rules.name or st.is_over:
                raise ValueError(f"options['state'] must be an unfinished {self.rules.name} GameState or notation, "
                                 f"got {start!r}")
            self._state = st
        self._steps = 0
        self._status = _PLAYING
        self._last = None
        self._mask = action_mask(self._state, self.unique_keeps)
        obs = O.encode(self._state)
        if self._reach is not None:
            obs = self._reach.reset(obs, self._state.total)
        if self.render_mode == "human":
            self.render()
        return obs, {"action_mask": self._mask.view(np.int8).copy()}

    def step(self, action: Any) -> tuple[np.ndarray, SupportsFloat, bool, bool, dict[str, Any]]:
        if self._status != _PLAYING:
            self._not_playing(action)
        a = action if type(action) is int and 0 <= action < self._n_actions else check_action(action, self._n_actions)
        st = self._state
        assert st is not None
        legal = bool(self._mask[a])
        if self.strict and not legal:
            raise ValueError(f"action {a} ({describe_action(a, st)}) is illegal: {self.illegal_reason(a)}")
        if self.render_mode == "rgb_array":
            self._last = last_action(st, a, legal)
        self._steps += 1
        reward = 0
        if legal:
            if a < NUM_KEEP_ACTIONS:
                st = reroll_pattern(st, a, self.np_random)
            else:
                st, reward = score_category(st, a - NUM_KEEP_ACTIONS, self.np_random)
            self._state = st
            self._mask = action_mask(st, self.unique_keeps)
        terminated = st.is_over
        truncated = not terminated and self._steps >= self.max_steps
        obs = O.encode(st)
        if self._reach is not None:
            obs, reward = self._reach.step(obs, reward, terminated)
        info: dict[str, Any] = {"action_mask": self._mask.view(np.int8).copy(), "illegal_action": not legal}
        if terminated:
            self._status = _OVER
            info["final_score"] = st.total
            info["scorecard"] = scorecard(st)
        if self.render_mode == "human":
            self.render()
        return obs, float(reward), terminated, truncated, info

    def render(self) -> str | np.ndarray | None:
        if self._status == _NOT_STARTED:
            return None
        if self.render_mode == "rgb_array":
            return draw_frame(self.state, self._last)
        text = render_text(self.state, self.lang)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    # ---- state and randomness ------------------------------------------------------------------------------
    @property
    def state(self) -> GameState | None:
        """The current :class:`~yacht_env.state.GameState` (None before the first reset)."""
        return self._state

    @property
    def np_random(self) -> np.random.Generator:
        """The environment's Generator, the stream of the dice (seeded at random on first use if unset)."""
        return gym.Env.np_random.fget(self)  # type: ignore[attr-defined]

    @np_random.setter
    def np_random(self, value: np.random.Generator) -> None:
        if not isinstance(value, np.random.Generator) or not isinstance(value.bit_generator, np.random.PCG64):
            raise ValueError(f"np_random must be a numpy Generator over a PCG64 bit generator, got {value!r}")
        gym.Env.np_random.fset(self, value)  # type: ignore[attr-defined]

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
