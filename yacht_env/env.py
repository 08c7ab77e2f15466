"""The Gymnasium environment: one game held in arrays and stepped by the vector engine's numba kernels.

:class:`YachtEnv` keeps its game as a one-game batch of :mod:`yacht_env.engine` and steps it with the
same compiled rules as :class:`~yacht_env.vector.YachtVectorEnv`, with little Python around the call. The readable
reference of the game is :mod:`yacht_env.state` (:func:`~yacht_env.state.new_game`,
:func:`~yacht_env.state.reroll_pattern`, :func:`~yacht_env.state.score_category`); ``tests/test_env.py`` holds the
two to the same games, die for die. ``env.state`` builds the :class:`~yacht_env.state.GameState` on demand.
"""

from __future__ import annotations

from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding

from yacht_env import observation as O
from yacht_env.actions import NUM_KEEP_ACTIONS, check_action, describe_action, illegal_reason
from yacht_env.engine import pcg64 as P
from yacht_env.engine.batch import check_max_steps
from yacht_env.engine.single import OneGame
from yacht_env.i18n import check_lang
from yacht_env.objective import ReachTracker, objective_of
from yacht_env.render import render_text
from yacht_env.rules import get_rules
from yacht_env.state import GameState, parse, scorecard

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
    The game lives in arrays and is stepped by the numba kernels of the engine
    (:mod:`yacht_env.engine.single`); :mod:`yacht_env.state` is the readable reference of the same transitions.
    ``env.state`` is the current :class:`~yacht_env.state.GameState`, built on demand (and kept until the next
    step). The dice come from ``env.np_random`` exactly as :func:`yacht_env.randomness.roll` draws them: at reset
    (and at the first step after ``np_random`` was read or replaced) the kernel takes over the state of its PCG64
    bit generator, and reading ``env.np_random`` writes the state the kernel advanced to back into that Generator.
    So whoever draws from ``env.np_random`` continues the very stream of the dice, and the kernel continues after
    those draws; read ``env.np_random`` anew after steps rather than keeping the Generator across them (a kept one
    is not advanced by the steps). A Generator set with ``env.np_random = g`` must have a PCG64 bit generator.

    ## Episode End
    Terminated when every category is filled. Truncated after ``max_steps`` steps, which only illegal actions can
    reach (a legal game takes at most 3 steps a turn).

    ## Information
    ``info["action_mask"]`` (int8) after reset and every step; ``info["illegal_action"]`` (bool) on every step;
    at the end ``info["final_score"]`` and ``info["scorecard"]`` (box per category, upper bonus, bonuses, total).

    ## Arguments
    - ``rules``: a rule set name of :data:`yacht_env.rules.RULESETS` (``"yacht"``, ``"yahtzee"``,
      ``"yahtzee-free-joker"``, ``"yatzy"``, ``"knizia"``; each stated in ``docs/rules.md``).
    - ``render_mode``: ``None``, ``"ansi"`` (``render()`` returns text) or ``"human"`` (prints it).
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

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 4}

    def __init__(self, rules: str = "yacht", render_mode: str | None = None, strict: bool = False,
                 unique_keeps: bool = True, max_steps: int = 256, lang: str = "en", objective: str = "points",
                 target: int | None = None) -> None:
        self.rules = get_rules(rules)
        self.objective = objective_of(self.rules, objective, target)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"unknown render_mode {render_mode!r}; accepted: None, 'ansi', 'human'")
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
        # the game: a one-game batch stepped by the vector engine's kernel (yacht_env.engine.single)
        self._n_actions = int(self.action_space.n)
        self._game = OneGame(self.rules, self.unique_keeps, self.max_steps, self.strict, O.size(self.rules))
        self._b = self._game.batch
        self._mask = self._game.mask[0]
        self._mask8 = self._mask.view(np.int8)
        self._status = _NOT_STARTED
        self._state: GameState | None = None  # env.state, built on demand, dropped at every step
        self._rng_loaded = False  # the kernel's generator row continues self._np_random, untouched since

    # ---- Gymnasium API -------------------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[np.ndarray, dict[str, Any]]:
        if options is not None and not isinstance(options, dict):
            raise ValueError(f"options must be None or a dict (key 'state': a GameState or its notation), got "
                             f"{options!r}")
        super().reset(seed=seed)
        if seed is not None:
            self._rng_loaded = False
        start = (options or {}).get("state")
        if start is None:
            if not self._rng_loaded:
                self._load_rng()
            self._game.reset()
            self._state = None
        else:
            st = parse(start, self.rules.name) if isinstance(start, str) else start
            if not isinstance(st, GameState) or st.rules != self.rules.name or st.is_over:
                raise ValueError(f"options['state'] must be an unfinished {self.rules.name} GameState or notation, "
                                 f"got {start!r}")
            self._game.load(st)
            self._state = st
        obs = self._game.obs[0].copy()
        if self._reach is not None:
            obs = self._reach.reset(obs, 0 if self._state is None else self._state.total)  # None: a new game
        self._status = _PLAYING
        if self.render_mode == "human":
            self.render()
        return obs, {"action_mask": self._mask8.copy()}

    def step(self, action: Any) -> tuple[np.ndarray, SupportsFloat, bool, bool, dict[str, Any]]:
        if self._status != _PLAYING:
            self._not_playing(action)
        a = action if type(action) is int and 0 <= action < self._n_actions else check_action(action, self._n_actions)
        if not self._rng_loaded:
            self._load_rng()
        if self.strict and not self._mask[a]:
            raise ValueError(f"action {a} ({describe_action(a, self.state)}) is illegal: {self.illegal_reason(a)}")
        reward, terminated, truncated, illegal = self._game.step(a)
        obs = self._game.obs[0].copy()
        self._state = None
        if self._reach is not None:
            obs, reward = self._reach.step(obs, reward, terminated)
        info: dict[str, Any] = {"action_mask": self._mask8.copy(), "illegal_action": illegal}
        if terminated:
            self._status = _OVER
            st = self.state
            info["final_score"] = st.total
            info["scorecard"] = scorecard(st)
        if self.render_mode == "human":
            self.render()
        return obs, reward, terminated, truncated, info

    def render(self) -> str | None:
        if self._status == _NOT_STARTED:
            return None
        text = render_text(self.state, self.lang)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    # ---- state and randomness ------------------------------------------------------------------------------
    @property
    def state(self) -> GameState | None:
        """The current :class:`~yacht_env.state.GameState` (None before the first reset), built from the arrays on
        demand and kept until the next step."""
        if self._state is None and self._status != _NOT_STARTED:
            self._state = self._b.game_state(0, self.rules)
        return self._state

    @property
    def np_random(self) -> np.random.Generator:
        """The environment's Generator, brought up to date with the dice drawn so far (see the class docstring)."""
        gen = gym.Env.np_random.fget(self)  # type: ignore[attr-defined]
        if self._rng_loaded:
            P.write_state(self._b.rng[0], gen.bit_generator)
            self._rng_loaded = False  # the caller may draw from it: the kernel reloads it before the next dice
        return gen

    @np_random.setter
    def np_random(self, value: np.random.Generator) -> None:
        if not isinstance(value, np.random.Generator) or not isinstance(value.bit_generator, np.random.PCG64):
            raise ValueError(f"np_random must be a numpy Generator over a PCG64 bit generator, got {value!r}")
        gym.Env.np_random.fset(self, value)  # type: ignore[attr-defined]
        self._rng_loaded = False

    def _load_rng(self) -> None:
        """The kernel takes over the current state of ``np_random`` (seeding it at random first if unset)."""
        if self._np_random is None:
            self._np_random, self._np_random_seed = seeding.np_random()
        self._b.rng[0] = P.state_row(self._np_random.bit_generator)
        self._rng_loaded = True

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._b = self._game.batch  # views into the game's arrays, not the copies pickling made of them
        self._mask = self._game.mask[0]
        self._mask8 = self._mask.view(np.int8)

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
