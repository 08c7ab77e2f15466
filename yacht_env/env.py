"""The Gymnasium environment: a thin layer over :mod:`yacht_env.state`."""

from __future__ import annotations

from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from yacht_env import observation as O
from yacht_env.actions import KEEP_ALL, NUM_KEEP_ACTIONS, action_mask, describe_action
from yacht_env.i18n import check_lang
from yacht_env.render import render_text
from yacht_env.rules import get_rules
from yacht_env.state import GameState, new_game, parse, reroll_pattern, score_category


def check_action(action: Any, n: int) -> int:
    """Return ``action`` as an int if it is an integer in ``0..n-1``, else raise ``ValueError``."""
    a = action
    if isinstance(a, np.ndarray) and a.shape in ((), (1,)):
        a = a.reshape(())[()]
    if isinstance(a, (bool, np.bool_)) or not isinstance(a, (int, np.integer)):
        raise ValueError(f"action must be an integer in 0..{n - 1}, got {action!r} of type {type(action).__name__}")
    if not 0 <= a < n:
        raise ValueError(f"action {int(a)} is outside the action space: accepted 0..{n - 1}")
    return int(a)


class YachtEnv(gym.Env[np.ndarray, np.int64]):
    """
    ## Description
    Solitaire Yacht (or Yahtzee): twelve (thirteen) turns; in each the player rolls five dice up to three times,
    keeping any dice between rolls, then fills one open category of the scorecard. The goal is the highest total.
    Rules: ``../shared/RULES.md`` and :mod:`yacht_env.rules`.

    ## Action Space
    ``Discrete(32 + C)`` with C = 12 (Yacht) or 13 (Yahtzee). Actions 0..31 keep a subset of the *sorted* dice
    (bit i keeps die i) and roll the others; action 32 + k scores category k in the rule set's order
    (``env.unwrapped.rules.category_ids``). The legal-action mask is ``env.action_masks()`` (bool) and
    ``info["action_mask"]`` (int8): keeps only while rolls remain, never keep-all (31), one pattern per distinct
    kept multiset when ``unique_keeps`` (default); scores only for open categories the Joker rule allows.

    ## Observation Space
    A flat float32 ``Box`` in ``[0, high]`` with named slices (:func:`yacht_env.observation.layout`): dice counts,
    sorted dice one-hot, rolls left, open categories, points each category would add now, turn, and for Yahtzee
    the capped upper total, the upper-bonus flag and the Yahtzee box (open / 50 / 0). It is Markov.
    :func:`yacht_env.observation.decode` reads it back.

    ## Starting State
    An empty scorecard and the first roll of the first turn (two rolls left). ``options={"state": ...}`` starts
    from a given :class:`~yacht_env.state.GameState` or its notation instead.

    ## Rewards
    0 for a keep; for a score action the points it adds, bonuses included (upper bonus when reached, 100 per extra
    Yahtzee). The rewards of an episode sum exactly to the final score.

    ## Episode End
    Terminated when every category is filled. Truncated after ``max_steps`` steps, which only illegal actions can
    reach (a legal game takes at most 3 steps a turn).

    ## Information
    ``info["action_mask"]`` (int8) after reset and every step; ``info["illegal_action"]`` (bool) on every step;
    at the end ``info["final_score"]`` and ``info["scorecard"]`` (box per category, upper bonus, bonuses, total).

    ## Arguments
    - ``rules``: ``"yacht"``, ``"yahtzee"`` or ``"yahtzee-free-joker"``.
    - ``render_mode``: ``None``, ``"ansi"`` (``render()`` returns text) or ``"human"`` (prints it).
    - ``strict``: an in-space action the mask forbids raises ``ValueError``. Otherwise (default) it is a no-op:
      the state is unchanged, the reward is 0 and ``info["illegal_action"]`` is True.
    - ``unique_keeps``: one keep action per distinct kept multiset (default True).
    - ``max_steps``: truncation limit, only reached through illegal actions.
    - ``lang``: language of the text rendering (:data:`yacht_env.i18n.LANGUAGES`).

    ## Version History
    - v0: initial version.
    """

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 4}

    def __init__(self, rules: str = "yacht", render_mode: str | None = None, strict: bool = False,
                 unique_keeps: bool = True, max_steps: int = 256, lang: str = "en") -> None:
        self.rules = get_rules(rules)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"unknown render_mode {render_mode!r}; accepted: None, 'ansi', 'human'")
        if not isinstance(max_steps, int) or max_steps < 3 * self.rules.num_categories:
            raise ValueError(f"max_steps must be an int >= {3 * self.rules.num_categories}, got {max_steps!r}")
        self.render_mode = render_mode
        self.strict = bool(strict)
        self.unique_keeps = bool(unique_keeps)
        self.max_steps = max_steps
        self.lang = check_lang(lang)
        self.action_space = spaces.Discrete(NUM_KEEP_ACTIONS + self.rules.num_categories)
        self.observation_space = spaces.Box(0.0, O.high(self.rules), dtype=np.float32)
        self.state: GameState | None = None
        self._mask = np.zeros(self.action_space.n, dtype=np.bool_)
        self._steps = 0

    # ---- Gymnasium API -------------------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        start = (options or {}).get("state")
        if start is None:
            self.state = new_game(self.rules, self.np_random)
        else:
            st = parse(start, self.rules.name) if isinstance(start, str) else start
            if not isinstance(st, GameState) or st.rules != self.rules.name or st.is_over:
                raise ValueError(f"options['state'] must be an unfinished {self.rules.name} GameState or notation, "
                                 f"got {start!r}")
            self.state = st
        self._steps = 0
        self._mask = action_mask(self.state, self.unique_keeps)
        if self.render_mode == "human":
            self.render()
        return O.encode(self.state), {"action_mask": self._mask.astype(np.int8)}

    def step(self, action: Any) -> tuple[np.ndarray, SupportsFloat, bool, bool, dict[str, Any]]:
        if self.state is None:
            raise RuntimeError("call reset() before step()")
        a = check_action(action, int(self.action_space.n))
        if self.state.is_over:
            raise RuntimeError("the game is over: call reset() before step()")
        self._steps += 1
        reward = 0
        illegal = not self._mask[a]
        if illegal:
            if self.strict:
                raise ValueError(f"action {a} ({describe_action(a, self.state)}) is illegal: "
                                 f"{self.illegal_reason(a)}")
        elif a < NUM_KEEP_ACTIONS:
            self.state = reroll_pattern(self.state, a, self.np_random)
        else:
            self.state, reward = score_category(self.state, a - NUM_KEEP_ACTIONS, self.np_random)
        terminated = self.state.is_over
        truncated = not terminated and self._steps >= self.max_steps
        self._mask = action_mask(self.state, self.unique_keeps)
        info: dict[str, Any] = {"action_mask": self._mask.astype(np.int8), "illegal_action": illegal}
        if terminated:
            info["final_score"] = self.state.total
            info["scorecard"] = scorecard(self.state)
        if self.render_mode == "human":
            self.render()
        return O.encode(self.state), float(reward), terminated, truncated, info

    def render(self) -> str | None:
        if self.state is None:
            return None
        text = render_text(self.state, self.lang)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    # ---- masks ---------------------------------------------------------------------------------------------
    def action_masks(self) -> np.ndarray:
        """Bool mask of the legal actions (called by sb3-contrib's MaskablePPO)."""
        return self._mask.copy()

    def illegal_reason(self, action: int) -> str:
        """Why ``action`` is illegal now ("" if it is legal)."""
        st = self.state
        if st is None or self._mask[action]:
            return ""
        if action < NUM_KEEP_ACTIONS:
            if st.rolls_left == 0:
                return "no rolls left this turn; score a category"
            if action == KEEP_ALL:
                return "keeping all five dice wastes a roll; score a category instead"
            return "another keep action keeps the same dice (unique_keeps=True)"
        k = action - NUM_KEEP_ACTIONS
        cid = self.rules.category_ids[k]
        if st.scores[k] is not None:
            return f"category {cid!r} is already filled"
        allowed = ", ".join(self.rules.category_ids[i] for i in st.legal_categories())
        return f"the Joker rule forbids {cid!r} with this Yahtzee; allowed: {allowed}"


def scorecard(state: GameState) -> dict[str, Any]:
    """The scorecard of a state: every box, the bonuses and the total."""
    card: dict[str, Any] = dict(zip(state.ruleset.category_ids, state.scores))
    card["upper_bonus"] = state.upper_bonus
    card["yahtzee_bonus"] = state.bonus_count * state.ruleset.five_kind_bonus
    card["total"] = state.total
    return card
