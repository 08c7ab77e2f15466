"""The vector environment: N games of Yacht or Yahtzee in arrays, stepped together by numba kernels.

It is the ``vector_entry_point`` of ``Yacht-v0``, ``Yahtzee-v1`` and ``YahtzeeFreeJoker-v1``::

    envs = gymnasium.make_vec("Yacht-v0", num_envs=4096, vectorization_mode="vector_entry_point")

Game i behaves exactly like ``YachtEnv(rules)`` reset with ``seed=seeds[i]`` and then reset without a seed after
every episode: same dice, float32-identical observations, masks, rewards, flags and final scores. ``objective`` and
``target`` are those of ``YachtEnv`` (:mod:`yacht_env.objective`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from yacht_env import observation as O
from yacht_env.actions import NUM_KEEP_ACTIONS, describe_action, illegal_reason
from yacht_env.engine import batch_kernels as K
from yacht_env.engine import pcg64 as P
from yacht_env.engine.batch import Batch, StepOutputs, check_max_steps, make_tables
from yacht_env.engine.game import RESET_ACTION
from yacht_env.frames import LastAction, check_pillow, draw_frame, last_action
from yacht_env.i18n import check_lang
from yacht_env.objective import VectorReachTracker, objective_of
from yacht_env.render import render_text
from yacht_env.rules import RuleSet, get_rules
from yacht_env.state import GameState

_MAX_SEED = 2**128  # SeedSequence takes any non-negative int; keep seeds to a sane size


MAX_NUM_ENVS = 1 << 24
"""The most games one vector environment holds (their state is a few hundred bytes each)."""

class YachtVectorEnv(VectorEnv):
    """
    N independent games of solitaire Yacht / Yahtzee held in arrays and stepped at once by numba kernels.

    ## Spaces
    ``single_action_space`` / ``single_observation_space`` are those of :class:`yacht_env.env.YachtEnv`
    (``Discrete(32 + C)`` and the float32 ``Box`` of :mod:`yacht_env.observation`); ``action_space`` is
    ``MultiDiscrete([32 + C] * N)`` and ``observation_space`` the (N, D) batch.

    ## Seeding
    ``reset(seed=s)`` with an int seeds game i with ``s + i`` (as gymnasium's Sync/AsyncVectorEnv and SB3 do);
    ``reset(seed=[s_0, ..., s_{N-1}])`` seeds each game with its own non-negative int. Game i's dice come from
    ``PCG64(SeedSequence(s_i))``, the generator ``YachtEnv.reset(seed=s_i)`` makes, reproduced in numba. ``reset()``
    without a seed continues every game's generator (a first unseeded reset draws random seeds, kept in
    :attr:`seeds`).

    ## Autoreset
    ``metadata["autoreset_mode"]`` is ``AutoresetMode.SAME_STEP``: a game that terminates or truncates is reset
    within the same ``step``; the returned observation and mask are the new game's, and the info carries the
    ending: ``info["final_obs"]`` (N, D) float32, rows valid where ``info["_final_obs"]``;
    ``info["final_info"]`` (valid where ``info["_final_info"]``) with ``final_score``, ``scorecard`` (dict of
    (N,) arrays: each box, ``upper_bonus``, ``yahtzee_bonus``, ``total``; valid where ``final_info["_scorecard"]``,
    the games that terminated),
    ``action_mask`` and ``illegal_action`` of the last step; ``info["final_score"]`` (N,) int64, valid where
    ``info["_final_score"]`` (the games that terminated this step). These keys appear only when a game ended.

    ## Info on every step
    ``info["action_mask"]`` (N, A) int8 and ``info["illegal_action"]`` (N,) bool, each with an all-True ``_`` key
    as gymnasium's vector infos have. ``action_masks()`` returns the (N, A) bool masks (for MaskablePPO).

    ## Arguments
    ``num_envs``, and the options of :class:`yacht_env.env.YachtEnv`: ``rules``, ``strict`` (an illegal action
    raises ``ValueError`` naming the game, before any game moves), ``unique_keeps``, ``max_steps``, ``lang`` and
    ``render_mode`` (``None``, ``"ansi"``: ``render()`` returns one text per game, or ``"rgb_array"``: one picture
    per game, :mod:`yacht_env.frames`). ``max_episode_steps``, which ``make_vec`` passes when given, overrides
    ``max_steps``. One thread steps the games.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(self, num_envs: int = 1, rules: str | RuleSet = "yacht", render_mode: str | None = None,
                 strict: bool = False, unique_keeps: bool = True, max_steps: int = 256, lang: str = "en",
                 max_episode_steps: int | None = None, objective: str = "points",
                 target: int | None = None) -> None:
        if (isinstance(num_envs, (bool, np.bool_)) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1
                or num_envs > MAX_NUM_ENVS):
            raise ValueError(f"num_envs must be an int in 1..{MAX_NUM_ENVS:,}, got {num_envs!r}")
        self.rules = get_rules(rules)
        if max_episode_steps is not None:
            max_steps = max_episode_steps
        c = self.rules.num_categories
        max_steps = check_max_steps(max_steps, c)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"unknown render_mode {render_mode!r}; accepted: None, 'ansi', 'rgb_array'")
        if render_mode == "rgb_array":
            check_pillow()
        self.num_envs = int(num_envs)
        self.render_mode = render_mode
        self.strict = bool(strict)
        self.unique_keeps = bool(unique_keeps)
        self.max_steps = int(max_steps)
        self.lang = check_lang(lang)
        self.num_actions = NUM_KEEP_ACTIONS + c
        self.obs_size = O.size(self.rules)
        self.single_action_space = spaces.Discrete(self.num_actions)
        self.single_observation_space = spaces.Box(0.0, O.high(self.rules), dtype=np.float32)
        self.objective = objective_of(self.rules, objective, target)
        self._reach = None if self.objective is None else VectorReachTracker(self.objective, self.num_envs)
        if self.objective is not None:
            self.single_observation_space = self.objective.space(self.single_observation_space)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self._t = make_tables(self.rules, self.unique_keeps, self.max_steps)
        self._b = Batch.empty(self.num_envs, c)
        self._st, self._tb = self._b.arrays(), self._t.arrays()
        self._mask = np.zeros((self.num_envs, self.num_actions), dtype=np.bool_)
        self._all = np.ones(self.num_envs, dtype=np.bool_)
        self._all.setflags(write=False)
        self._category_ids = tuple(self.rules.category_ids)
        self.seeds: np.ndarray | None = None
        """The per-game seeds of the last seeded reset (object array of ints), or None before it."""
        self._ready = False
        self._last: list[LastAction | None] = [None] * self.num_envs  # each game's last action, for rgb_array

    # ---- Gymnasium API ---------------------------------------------------------------------------------------
    def reset(self, *, seed: int | Sequence[int] | None = None, options: dict[str, Any] | None = None
              ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start a new game in every slot. See the class docstring for the seeds."""
        if options is not None and (not isinstance(options, dict) or options):
            raise ValueError(f"YachtVectorEnv.reset takes no options (None or {{}}), got {options!r}")
        seeds = self._resolve_seeds(seed)
        if seeds is not None:
            self._b.rng[:] = P.seed_states(seeds)
            self.seeds = np.array(seeds, dtype=object)
            if isinstance(seed, (int, np.integer)):
                self._np_random, self._np_random_seed = seeding.np_random(int(seed))
        self._ready = True
        self._last = [None] * self.num_envs
        obs = self._step(np.full(self.num_envs, RESET_ACTION, dtype=np.int64)).obs
        if self._reach is not None:
            obs = self._reach.reset(obs)
        return obs, {"action_mask": self._mask.view(np.int8).copy(), "_action_mask": self._all}

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Step every game; finished games restart in the same step (``AutoresetMode.SAME_STEP``)."""
        if not self._ready:
            raise RuntimeError("call reset() before step()")
        a = self._check_actions(actions)
        c = self.rules.num_categories
        before = self.states() if self.render_mode == "rgb_array" else None
        legal = self.action_masks()[np.arange(self.num_envs), a] if before is not None else None
        out = self._step(a)
        obs, reward, terminated, truncated = out.obs, out.reward, out.terminated, out.truncated
        illegal, final_obs, final_mask, final_card = out.illegal, out.final_obs, out.final_mask, out.final_card
        done = terminated | truncated
        if before is not None:  # a game that ended has restarted: its frame shows the new roll
            self._last = [None if done[i] else last_action(st, a[i], legal[i]) for i, st in enumerate(before)]
        if self._reach is not None:
            obs, reward, final_obs = self._reach.step(obs, reward, terminated, truncated, final_obs)
        info: dict[str, Any] = {"action_mask": self._mask.view(np.int8).copy(), "_action_mask": self._all,
                                "illegal_action": illegal, "_illegal_action": self._all}
        if done.any():
            final_score = final_card[:, c + 2].astype(np.int64)
            card: dict[str, Any] = {cid: final_card[:, k] for k, cid in enumerate(self._category_ids)}
            card.update(upper_bonus=final_card[:, c], yahtzee_bonus=final_card[:, c + 1], total=final_score)
            info["final_obs"] = final_obs
            info["_final_obs"] = done
            info["final_info"] = {
                "final_score": final_score, "_final_score": terminated,
                "scorecard": card, "_scorecard": terminated,
                "action_mask": final_mask.view(np.int8), "_action_mask": done,
                "illegal_action": illegal, "_illegal_action": done,
            }
            info["_final_info"] = done
            info["final_score"] = final_score
            info["_final_score"] = terminated
        return obs, reward, terminated, truncated, info

    def _step(self, a: np.ndarray) -> StepOutputs:
        """Run the step kernel over every game; its fresh outputs (``mask`` is the env's own, updated in place)."""
        out = StepOutputs.empty(self._mask, self.obs_size)
        K.step_games(a, self._st, self._tb, out)
        return out

    def render(self) -> tuple[str, ...] | tuple[np.ndarray, ...] | None:
        """One text (``render_mode="ansi"``) or one (480, 640, 3) uint8 picture (``"rgb_array"``) per game, else
        None."""
        if self.render_mode is None or not self._ready:
            return None
        if self.render_mode == "rgb_array":
            return tuple(draw_frame(self.state(i), self._last[i]) for i in range(self.num_envs))
        return tuple(render_text(self.state(i), self.lang) for i in range(self.num_envs))

    # ---- masks and states ----------------------------------------------------------------------------------
    def action_masks(self) -> np.ndarray:
        """(N, A) bool masks of the legal actions of the current games (a copy)."""
        return self._mask.copy()

    def state(self, i: int) -> GameState:
        """The :class:`~yacht_env.state.GameState` of game ``i`` now (built on demand)."""
        return self._b.game_state(self._check_index(i), self.rules)

    def states(self) -> list[GameState]:
        """The states of all games (a Python loop: for agents that need states, not for the hot path)."""
        return [self.state(i) for i in range(self.num_envs)]

    def positions(self) -> dict[str, np.ndarray]:
        """The positions of all games as (N,) int64 arrays (copies): ``hand`` (index of the sorted dice),
        ``rolls`` left, ``filled`` bits, ``upper`` total, ``five_box`` (the five-of-a-kind box's score, -1 while
        open or where the rules have none), ``bonus`` count and ``total`` so far."""
        if not self._ready:
            raise RuntimeError("call reset() first")
        b = self._b
        ycat = self.rules.five_kind_category
        five = b.scores[:, ycat].astype(np.int64) if ycat >= 0 else np.full(self.num_envs, -1, dtype=np.int64)
        return {"hand": b.hand.astype(np.int64), "rolls": b.rolls.astype(np.int64),
                "filled": b.filled.astype(np.int64), "upper": b.upper.astype(np.int64), "five_box": five,
                "bonus": b.bonus.astype(np.int64), "total": b.total.astype(np.int64)}

    def generator(self, i: int) -> np.random.Generator:
        """A numpy Generator continuing game ``i``'s dice stream (a copy: drawing from it does not move game i)."""
        return P.to_generator(self._b.rng[self._check_index(i)])

    def episode_steps(self) -> np.ndarray:
        """(N,) steps taken in each current episode (truncation happens at ``max_steps``)."""
        return self._b.steps.astype(np.int64)

    def memory_per_game(self) -> dict[str, float]:
        """Bytes per game: the game state, and the arrays a step returns (obs, masks, rewards, flags, final obs,
        final masks and scorecards)."""
        n, c, a, d = self.num_envs, self.rules.num_categories, self.num_actions, self.obs_size
        state = (self._b.nbytes + self._mask.nbytes) / n
        step_out = d * 4 + a + 8 + 3 + d * 4 + a + (c + 3) * 4 + 8 + a  # + int8 mask copy in info
        return {"state": state, "step_outputs": float(step_out), "total": state + step_out}

    # ---- checks --------------------------------------------------------------------------------------------
    def _check_index(self, i: Any) -> int:
        if isinstance(i, (bool, np.bool_)) or not isinstance(i, (int, np.integer)) or not 0 <= i < self.num_envs:
            raise IndexError(f"game index must be an int in 0..{self.num_envs - 1}, got {i!r}")
        if not self._ready:
            raise RuntimeError("call reset() first")
        return int(i)

    def _resolve_seeds(self, seed: Any) -> list[int] | None:
        n = self.num_envs
        if seed is None:
            if self.seeds is None:
                return [int(s) for s in np.random.default_rng().integers(0, 2**63, size=n, dtype=np.int64)]
            return None
        if isinstance(seed, (int, np.integer)) and not isinstance(seed, (bool, np.bool_)):
            if not 0 <= seed < _MAX_SEED - n:
                raise ValueError(f"seed must be a non-negative int (game i gets seed + i), got {seed!r}")
            return [int(seed) + i for i in range(n)]
        if isinstance(seed, (str, bytes)) or not isinstance(seed, (Sequence, np.ndarray)):
            raise ValueError(f"seed must be None, a non-negative int or a sequence of {n} of them, got {seed!r}")
        seeds = list(seed)
        if len(seeds) != n:
            raise ValueError(f"seed sequence must have one seed per game ({n}), got {len(seeds)}")
        for j, s in enumerate(seeds):
            if isinstance(s, (bool, np.bool_)) or not isinstance(s, (int, np.integer)) or not 0 <= s < _MAX_SEED:
                raise ValueError(f"seed[{j}] must be a non-negative int, got {s!r}")
        return [int(s) for s in seeds]

    def _check_actions(self, actions: Any) -> np.ndarray:
        a = np.asarray(actions)
        if a.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},), got {a.shape}")
        if a.dtype.kind not in "iu":
            raise ValueError(f"actions must be integers in 0..{self.num_actions - 1}, got dtype {a.dtype}")
        if a.dtype.kind == "u" and a.size and a.max() > np.iinfo(np.int64).max:
            raise ValueError(f"actions must be integers in 0..{self.num_actions - 1}, got {a.max()}")
        a = np.ascontiguousarray(a, dtype=np.int64)
        outside = np.flatnonzero((a < 0) | (a >= self.num_actions))
        if outside.size:
            i = int(outside[0])
            raise ValueError(f"action {int(a[i])} of game {i} is outside the action space: "
                             f"accepted 0..{self.num_actions - 1}")
        if not self.strict:
            return a
        # the held mask is the current games' legal actions (the kernels write it with every step)
        illegal = np.flatnonzero(~self._mask[np.arange(self.num_envs), a])
        if illegal.size:
            i = int(illegal[0])
            st = self.state(i)
            act = int(a[i])
            raise ValueError(f"game {i}: action {act} ({describe_action(act, st)}) is illegal: "
                             f"{illegal_reason(st, act, self.unique_keeps)}")
        return a

