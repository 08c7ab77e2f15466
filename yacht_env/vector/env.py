"""The vector environment: N games of Yacht or Yahtzee in arrays, stepped together by numba kernels.

It is the ``vector_entry_point`` of ``Yacht-v0``, ``Yahtzee-v1`` and ``YahtzeeFreeJoker-v1``::

    envs = gymnasium.make_vec("Yacht-v0", num_envs=4096, vectorization_mode="vector_entry_point")

Game i behaves exactly like ``YachtEnv(rules)`` reset with ``seed=seeds[i]`` and then reset without a seed after
every episode: same dice, float32-identical observations, masks, rewards, flags and final scores. ``objective`` and
``target`` are those of ``YachtEnv`` (:mod:`yacht_env.objective`).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from yacht_env import observation as O
from yacht_env.actions import NUM_KEEP_ACTIONS, describe_action, illegal_reason
from yacht_env.engine import batch_kernels as K
from yacht_env.engine import pcg64 as PCG
from yacht_env.engine.batch import Batch, StepOutputs, check_time_limit, kernel_inputs
from yacht_env.engine.game import RESET_ACTION, SKIP_ACTION
from yacht_env.frames import check_pillow, draw_frame
from yacht_env.i18n import check_lang
from yacht_env.memory import available_bytes
from yacht_env.objective import objective_of
from yacht_env.randomness import MAX_SEED, check_seed_value
from yacht_env.render import render_text, warn_no_render_mode
from yacht_env.rules import RuleSet, get_rules
from yacht_env.state import GameState
from yacht_env.vector.last_moves import LastMoves

MAX_NUM_ENVS = 1 << 24
"""The most games one vector environment holds (see :meth:`YachtVectorEnv.memory_per_game` for their memory: a
constructor refuses up front what the machine's free memory cannot hold)."""


# ---- what a caller may pass, checked: the autoreset mode, reset's seeds and options, the actions of a step ----------
# Each check names what was wrong and what is accepted; none touches a game.

_MODE_NAMES = {"nextstep": AutoresetMode.NEXT_STEP, "samestep": AutoresetMode.SAME_STEP,
               "disabled": AutoresetMode.DISABLED}


def autoreset_mode_of(mode: AutoresetMode | str) -> AutoresetMode:
    """``mode`` as an :class:`~gymnasium.vector.AutoresetMode`: the enum itself, its value (``"NextStep"``) or its
    name in either case (``"next_step"``, ``"SAME_STEP"``, ``"disabled"``); else ``ValueError`` naming the modes."""
    if isinstance(mode, AutoresetMode):
        return mode
    if isinstance(mode, str) and mode.replace("_", "").lower() in _MODE_NAMES:
        return _MODE_NAMES[mode.replace("_", "").lower()]
    raise ValueError(f"autoreset_mode must be an AutoresetMode or one of 'next_step', 'same_step', 'disabled', "
                     f"got {mode!r}")


def reset_mask(options: Any, n: int) -> np.ndarray | None:
    """The games a reset restarts: None for all (``options`` None or ``{}``), else a copy of the checked
    ``options["reset_mask"]``, a (n,) bool array with at least one True."""
    if options is None or (isinstance(options, dict) and not options):
        return None
    if not isinstance(options, dict) or set(options) != {"reset_mask"}:
        raise ValueError(f"YachtVectorEnv.reset takes options None, {{}} or {{'reset_mask': (N,) bool array}}, "
                         f"got {options!r}")
    m = options["reset_mask"]
    if not isinstance(m, np.ndarray) or m.dtype != np.bool_ or m.shape != (n,):
        raise ValueError(f"options['reset_mask'] must be a numpy bool array of shape ({n},), got "
                         f"{type(m).__name__} {getattr(m, 'dtype', '')} {getattr(m, 'shape', '')}".rstrip())
    if not m.any():
        raise ValueError("options['reset_mask'] must be True for at least one game")
    return m.copy()


def seed_list(seed: Any, n: int) -> list[int | None]:
    """The seed of each of ``n`` games from ``reset(seed=...)`` (not None): an int gives game ``i`` ``seed + i``; a
    sequence gives one seed (or None) per game."""
    if isinstance(seed, np.ndarray) and seed.ndim == 0:
        seed = check_seed_value(seed)
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, (bool, np.bool_)):
        if not 0 <= seed < MAX_SEED - n:
            raise ValueError(f"seed must be a non-negative int (game i gets seed + i), got {seed!r}")
        return [int(seed) + i for i in range(n)]
    if isinstance(seed, (str, bytes)) or not isinstance(seed, (Sequence, np.ndarray)):
        raise ValueError(f"seed must be None, a non-negative int or a sequence of {n} of them (or None), "
                         f"got {seed!r}")
    seeds = list(seed)
    if len(seeds) != n:
        raise ValueError(f"seed sequence must have one seed per game ({n}), got {len(seeds)}")
    return [check_seed_value(s, f"seed[{j}]") for j, s in enumerate(seeds)]


def action_array(actions: Any, n: int, n_actions: int, skip: np.ndarray | None) -> np.ndarray:
    """The actions of a step of ``n`` games as an int64 array, each in ``0..n_actions - 1``; the games of ``skip``
    (which start over instead) are neither checked nor handed their action (0 in their place, in a copy: the
    caller's array is never written)."""
    a = np.asarray(actions)
    if a.shape != (n,):
        raise ValueError(f"actions must have shape ({n},), got {a.shape}")
    if a.dtype.kind not in "iu":
        raise ValueError(f"actions must be integers in 0..{n_actions - 1}, got dtype {a.dtype}")
    if a.dtype.kind == "u" and a.size and a.max() > np.iinfo(np.int64).max:
        raise ValueError(f"actions must be integers in 0..{n_actions - 1}, got {a.max()}")
    a = np.ascontiguousarray(a, dtype=np.int64)
    bad = (a < 0) | (a >= n_actions)
    if skip is not None:
        bad &= ~skip
        a = np.where(skip, 0, a)
    outside = np.flatnonzero(bad)
    if outside.size:
        i = int(outside[0])
        raise ValueError(f"action {int(a[i])} of game {i} is outside the action space: accepted 0..{n_actions - 1}")
    return a


class YachtVectorEnv(VectorEnv):
    """
    N independent games of solitaire Yacht / Yahtzee held in arrays and stepped at once by numba kernels.

    A drop-in for ``gymnasium.vector.SyncVectorEnv`` over :class:`yacht_env.env.YachtEnv` (``gym.make_vec(id, n,
    vectorization_mode="sync")``): with the same autoreset mode, step limit and seeds, every observation, reward,
    flag and info entry is the same, key for key and dtype for dtype (``tests/test_vector_conformance.py``).

    ## Spaces
    ``single_action_space`` / ``single_observation_space`` are those of :class:`yacht_env.env.YachtEnv`
    (``Discrete(32 + C)`` and the float32 ``Box`` of :mod:`yacht_env.observation`); ``action_space`` is
    ``MultiDiscrete([32 + C] * N)`` and ``observation_space`` the (N, D) batch.

    ## Seeding
    ``reset(seed=s)`` with an int seeds game i with ``s + i`` (as gymnasium's Sync/AsyncVectorEnv and SB3 do);
    ``reset(seed=[s_0, ..., s_{N-1}])`` seeds each game with its own non-negative int (``None`` entries continue
    that game's dice). Game i's dice come from ``PCG64(SeedSequence(s_i))``, the generator
    ``YachtEnv.reset(seed=s_i)`` makes, reproduced in numba. ``reset()`` without a seed continues every game's
    generator (a first unseeded reset draws random seeds, kept in :attr:`seeds`).

    ## Autoreset (``autoreset_mode``, also in ``metadata["autoreset_mode"]``)
    - ``NEXT_STEP`` (default, as in every Gymnasium vector env): a game that ended stays as it ended for one step;
      the next ``step`` ignores its action and starts its new game (reward 0, flags False, only ``action_mask`` in
      its info).
    - ``SAME_STEP``: a game that ends restarts within the same ``step``; the returned observation and mask are the
      new game's, ``info["final_obs"]`` (object array, the ended games' last observations, else None) and
      ``info["final_info"]`` (the ended games' step info) carry the ending.
    - ``DISABLED``: nothing restarts by itself; ``reset(options={"reset_mask": m})`` restarts the games where the
      bool array ``m`` is True (it works in every mode); stepping a game that ended raises ``RuntimeError``.

    ## Info
    As ``SyncVectorEnv`` builds it from the single env's infos, each key with its ``_key`` mask of the games that
    reported it: ``action_mask`` (N, A) int8 and ``illegal_action`` (N,) bool of the games that stepped;
    ``final_score`` (N,) int64 and ``scorecard`` (dict of (N,) int64: each box, ``upper_bonus``, ``yahtzee_bonus``,
    ``total``) of the games that terminated (under ``SAME_STEP`` these are inside ``final_info``).
    ``action_masks()`` returns the (N, A) bool masks (for MaskablePPO).

    ## Arguments
    ``num_envs``, ``autoreset_mode``, and the options of :class:`yacht_env.env.YachtEnv`: ``rules``, ``strict``
    (an illegal action raises ``ValueError`` naming the game, before any game moves), ``unique_keeps``,
    ``lang``, ``objective``, ``target`` and ``render_mode`` (``None``, ``"ansi"``: ``render()``
    returns one text per game, ``"human"``: every reset and step prints them, or ``"rgb_array"``: one picture per
    game, :mod:`yacht_env.frames`). ``max_episode_steps`` (which ``make_vec`` passes when given) is Gymnasium's
    ``TimeLimit`` and the one truncation: any positive length; a game is truncated once it has taken that many steps,
    also where it terminated at that step; ``None`` (default): never. One thread steps the games; one env is not to
    be stepped from two threads at once (that raises ``RuntimeError``).
    """

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 4,
                "autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, num_envs: int = 1, rules: str | RuleSet = "yacht", render_mode: str | None = None,
                 strict: bool = False, unique_keeps: bool = True, lang: str = "en",
                 max_episode_steps: int | None = None, objective: str = "points",
                 target: int | None = None, autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP) -> None:
        if (isinstance(num_envs, (bool, np.bool_)) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1
                or num_envs > MAX_NUM_ENVS):
            raise ValueError(f"num_envs must be an int in 1..{MAX_NUM_ENVS:,}, got {num_envs!r}")
        self.rules = get_rules(rules)
        self.autoreset_mode = autoreset_mode_of(autoreset_mode)
        self.metadata = {**type(self).metadata, "autoreset_mode": self.autoreset_mode}
        c = self.rules.num_categories
        self.max_episode_steps = check_time_limit(max_episode_steps)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"unknown render_mode {render_mode!r}; accepted: None, 'ansi', 'human', 'rgb_array'")
        if render_mode == "rgb_array":
            check_pillow()
        self.num_envs = int(num_envs)
        self._check_memory()
        self.render_mode = render_mode
        self.strict = bool(strict)
        self.unique_keeps = bool(unique_keeps)
        self.lang = check_lang(lang)
        self.num_actions = NUM_KEEP_ACTIONS + c
        self.obs_size = O.size(self.rules)
        self.single_action_space = spaces.Discrete(self.num_actions)
        self.single_observation_space = spaces.Box(0.0, O.high(self.rules), dtype=np.float32)
        self.objective = objective_of(self.rules, objective, target)
        if self.objective is not None:
            self.single_observation_space = self.objective.space(self.single_observation_space)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self._same_step = self.autoreset_mode is AutoresetMode.SAME_STEP
        self._inputs = kernel_inputs(self.rules, self.unique_keeps, self._same_step, self.max_episode_steps)
        self._b = Batch.empty(self.num_envs, c)
        self._mask = np.zeros((self.num_envs, self.num_actions), dtype=np.bool_)
        self._ended = np.zeros(self.num_envs, dtype=np.bool_)  # games that ended at the last step (not restarted)
        self._kept_obs: np.ndarray | None = None  # DISABLED: the last observations, for a partial reset
        self._category_ids = tuple(self.rules.category_ids)
        self.seeds: np.ndarray | None = None
        """The per-game seeds of the last seeded reset (object array of ints), or None before it."""
        self._ready = False
        self._busy = threading.Lock()  # held by reset and step: a second thread raises instead of tearing a game
        self._last = LastMoves.none(self.num_envs)  # each game's last action, for the renders

    # ---- Gymnasium API ---------------------------------------------------------------------------------------
    def reset(self, *, seed: int | Sequence[int | None] | None = None, options: dict[str, Any] | None = None
              ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start a new game in every slot, or with ``options={"reset_mask": m}`` in the slots where ``m`` is True
        (the others keep their game and show it again). See the class docstring for the seeds."""
        chosen = self._reset_mask(options)
        with self._one_thread():
            seeds = self._resolve_seeds(seed, chosen)
            if seeds is not None:
                self._seed(seeds)
                if isinstance(seed, (int, np.integer)):
                    self._np_random, self._np_random_seed = seeding.np_random(int(seed))
            if chosen is None:
                obs = self._step(np.full(self.num_envs, RESET_ACTION, dtype=np.int64)).obs
                self._ended[:] = False
                self._last = LastMoves.none(self.num_envs)
            else:
                obs = self._restart(chosen)
            self._ready = True
            if self._kept_obs is not None or self.autoreset_mode is AutoresetMode.DISABLED:
                self._kept_obs, obs = obs, obs.copy()
            if self.objective is not None:
                obs = self.objective.observe(obs, self._b.total)
            if chosen is None:
                info = {"action_mask": self._mask.view(np.int8).copy(),
                        "_action_mask": np.ones(self.num_envs, dtype=np.bool_)}
            else:  # one pass: the restarted games' rows, zeros elsewhere
                info = {"action_mask": (self._mask & chosen[:, None]).view(np.int8), "_action_mask": chosen.copy()}
        if self.render_mode == "human":
            self.render()
        return obs, info

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Step every game (see the class docstring for what happens to the games that ended)."""
        if not self._ready:
            raise RuntimeError("call reset() before step()")
        with self._one_thread():
            restarting = None  # NEXT_STEP: the games that ended at the last step, started over in this one
            if self.autoreset_mode is AutoresetMode.NEXT_STEP and self._ended.any():
                restarting = self._ended.copy()
            elif self.autoreset_mode is AutoresetMode.DISABLED and self._ended.any():
                i = int(np.flatnonzero(self._ended)[0])
                raise RuntimeError(f"game {i} has ended and autoreset_mode is DISABLED: restart it first with "
                                   f"reset(options={{'reset_mask': mask}})")
            a = self._check_actions(actions, restarting)
            if restarting is not None:
                a[restarting] = RESET_ACTION
            before = Batch(*(x.copy() for x in self._b)) if self.render_mode is not None else None
            legal = self._mask[np.arange(self.num_envs), np.maximum(a, 0)] if before is not None else None
            out = self._step(a)
            result = self._results(out, restarting)
            if before is not None and legal is not None:
                self._remember(before, a, legal, result[2] | result[3], restarting)
        if self.render_mode == "human":
            self.render()
        return result

    def _results(self, out: StepOutputs, restarting: np.ndarray | None
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """What ``step`` returns, laid out as ``SyncVectorEnv`` lays out the single envs' results."""
        n = self.num_envs
        obs, reward, terminated, truncated = out.obs, out.reward, out.terminated, out.truncated
        done = terminated | truncated
        any_done = bool(done.any())
        total = self.rules.num_categories + 2  # the total's column in the scorecards
        if self._kept_obs is not None:
            self._kept_obs, obs = obs, obs.copy()
        if self.objective is not None:
            obs = self.objective.observe(obs, self._b.total)
            reward = self.objective.reward(terminated, out.final_card[:, total])
        info: dict[str, Any] = {"action_mask": self._mask.view(np.int8).copy(),
                                "_action_mask": np.ones(n, dtype=np.bool_)}
        if self._same_step:
            stepped = ~done if any_done else None  # the ended games' step info goes into final_info
        else:
            stepped = None if restarting is None else ~restarting
        if stepped is None:
            info["illegal_action"], info["_illegal_action"] = out.illegal, np.ones(n, dtype=np.bool_)
        elif stepped.any():
            info["illegal_action"], info["_illegal_action"] = out.illegal & stepped, stepped
        if not self._same_step:
            self._ended = done
        if not any_done:
            pass
        elif self._same_step:
            rows = np.flatnonzero(done).tolist()
            final_obs = out.final_obs
            if self.objective is not None:
                final_obs = self.objective.observe(final_obs, out.final_card[:, total])
            kept = np.empty(n, dtype=object)  # None in every row
            for i in rows:
                kept[i] = final_obs[i]
            final = {"action_mask": out.final_mask.view(np.int8), "_action_mask": done.copy(),
                     "illegal_action": out.illegal & done, "_illegal_action": done.copy()}
            self._add_scorecards(final, out.final_card, terminated, truncated)
            info["final_obs"], info["_final_obs"] = kept, done.copy()
            info["final_info"], info["_final_info"] = final, done
        else:
            self._add_scorecards(info, out.final_card, terminated, truncated)
        return obs, reward, terminated, truncated, info

    def _add_scorecards(self, info: dict[str, Any], final_card: np.ndarray, terminated: np.ndarray,
                        truncated: np.ndarray) -> None:
        """``final_score`` and ``scorecard`` of the games that terminated (what the single env's info holds at the
        end), int64 as ``SyncVectorEnv`` batches Python ints, zeros elsewhere."""
        if not terminated.any():
            return
        c = self.rules.num_categories
        card = final_card  # int64, fresh from this step
        if truncated.any():  # the card of a game that was truncated and not terminated is not reported
            card[truncated & ~terminated] = 0
        names = (*self._category_ids, "upper_bonus", "yahtzee_bonus", "total")
        scorecard: dict[str, Any] = {}
        for k, name in enumerate(names):
            scorecard[name], scorecard[f"_{name}"] = card[:, k], terminated.copy()
        info["final_score"], info["_final_score"] = card[:, c + 2].copy(), terminated.copy()
        info["scorecard"], info["_scorecard"] = scorecard, terminated.copy()

    def _remember(self, before: Batch, a: np.ndarray, legal: np.ndarray, done: np.ndarray,
                  restarting: np.ndarray | None) -> None:
        """Each game's last action for its text and its frame, none for a game that started over: kept as arrays
        (the games before the step, the actions), made into a move only for the games a render shows."""
        started = done if self._same_step else restarting
        self._last = LastMoves(before, a.copy(), legal, np.zeros(self.num_envs, dtype=np.bool_) if started is None
                               else started.copy())

    def _restart(self, chosen: np.ndarray) -> np.ndarray:
        """Restart the games of ``chosen``; the observations of all games (the others' as they were)."""
        obs = self._kept_obs
        if obs is None:  # not kept (only DISABLED, where every end needs this, keeps them): shown anew
            obs = np.empty((self.num_envs, self.obs_size), dtype=np.float32)
            K.show_games(self._b, self._inputs, obs, self._mask)
        out = StepOutputs.empty(self._mask, self.obs_size)._replace(obs=obs)
        K.step_games(np.where(chosen, RESET_ACTION, SKIP_ACTION).astype(np.int64), self._b, self._inputs, out)
        self._ended[chosen] = False
        if self.render_mode == "rgb_array":
            for i in np.flatnonzero(chosen).tolist():
                self._last.forget(i)
        return obs

    def _step(self, a: np.ndarray) -> StepOutputs:
        """Run the step kernel over every game; its fresh outputs (``mask`` is the env's own, updated in place)."""
        out = StepOutputs.empty(self._mask, self.obs_size)
        K.step_games(a, self._b, self._inputs, out)
        return out

    def __getstate__(self) -> dict[str, Any]:
        """A pickled (or deep-copied) vector env keeps its games, dice streams and settings; its thread guard is made
        anew (subprocess and Ray workers receive envs by pickling)."""
        return {k: v for k, v in self.__dict__.items() if k != "_busy"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._busy = threading.Lock()

    @contextmanager
    def _one_thread(self) -> Iterator[None]:
        if not self._busy.acquire(blocking=False):
            raise RuntimeError("this YachtVectorEnv is being reset or stepped by another thread: one env is used "
                               "from one thread at a time (make one env per thread)")
        try:
            yield
        finally:
            self._busy.release()

    def render(self) -> tuple[str, ...] | tuple[np.ndarray, ...] | None:
        """One text (``render_mode="ansi"``) or one (480, 640, 3) uint8 picture (``"rgb_array"``) per game;
        ``"human"`` prints the texts and returns None; without a render mode it warns and returns None."""
        if self.render_mode is None:
            warn_no_render_mode(self.metadata["render_modes"])
        if self.render_mode is None or not self._ready:
            return None
        if self.render_mode == "rgb_array":
            return tuple(draw_frame(self.state(i), self._last.get(i, self.rules)) for i in range(self.num_envs))
        texts = tuple(render_text(self.state(i), self.lang, self._last.get(i, self.rules))
                      for i in range(self.num_envs))
        if self.render_mode == "human":
            for i, text in enumerate(texts):
                print(f"game {i}:\n{text}" if self.num_envs > 1 else text)
            return None
        return texts

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
        return PCG.to_generator(self._b.rng[self._check_index(i)])

    def episode_steps(self) -> np.ndarray:
        """(N,) steps taken in each current episode (with ``max_episode_steps``, a game is truncated at that count)."""
        return self._b.steps.astype(np.int64)

    def memory_per_game(self) -> dict[str, float]:
        """Bytes per game, as a stepping loop holds them at its peak: ``state`` (the game, its held mask and, under
        ``DISABLED``, its kept observation), ``step_outputs`` (what one step allocates: observations, final
        observations, masks, scorecards, rewards, flags, the info's arrays and the checked actions) and ``total``,
        the state and two steps' outputs (a step makes its arrays while the caller still holds the previous
        step's) and the caller's copy of the masks with its actions."""
        return self._memory_per_game(self.rules, self.autoreset_mode, self.obs_size)

    @staticmethod
    def _memory_per_game(rules: RuleSet, mode: AutoresetMode, d: int) -> dict[str, float]:
        c = rules.num_categories
        a = NUM_KEEP_ACTIONS + c
        kept = 4 * d if mode is AutoresetMode.DISABLED else 0  # the observations a partial reset shows again
        state = 2 + 1 + 4 + 2 * c + 2 + 2 + 4 + 4 + 32 + a + 1 + kept
        step = 4 * d + 4 * d + a + 8 * (c + 3) + 8 + 3 + a + (c + 8) + 8 + 8
        caller = a + 8
        return {"state": float(state), "step_outputs": float(step), "total": float(state + 2 * step + caller)}

    def _check_memory(self) -> None:
        """``ValueError`` before anything is allocated if the games would not fit in the machine's free memory."""
        free = available_bytes()
        per_game = self._memory_per_game(self.rules, self.autoreset_mode, O.size(self.rules))["total"]
        if free is not None and self.num_envs * per_game > free:
            raise ValueError(f"{self.num_envs:,} games need about {self.num_envs * per_game / 1e9:.1f} GB "
                             f"({per_game / 1024:.1f} KiB a game while stepping), more than the "
                             f"{free / 1e9:.1f} GB of free memory here; use fewer games")

    # ---- checks --------------------------------------------------------------------------------------------
    def _check_index(self, i: Any) -> int:
        if isinstance(i, (bool, np.bool_)) or not isinstance(i, (int, np.integer)) or not 0 <= i < self.num_envs:
            raise IndexError(f"game index must be an int in 0..{self.num_envs - 1}, got {i!r}")
        if not self._ready:
            raise RuntimeError("call reset() first")
        return int(i)

    def _reset_mask(self, options: Any) -> np.ndarray | None:
        """The games a reset restarts: None for all, else the checked ``options["reset_mask"]``."""
        m = reset_mask(options, self.num_envs)
        if m is not None and not self._ready:
            raise RuntimeError("call reset() without a reset_mask first: the other games have no game to keep")
        return m

    def _resolve_seeds(self, seed: Any, chosen: np.ndarray | None) -> list[int | None] | None:
        """The seed of each game this reset seeds (None: it continues its dice), or None if it seeds none."""
        n = self.num_envs
        if seed is None:
            if self.seeds is None:
                return [int(s) for s in np.random.default_rng().integers(0, 2**63, size=n, dtype=np.int64)]
            return None
        seeds = seed_list(seed, n)
        if chosen is not None:
            seeds = [s if chosen[i] else None for i, s in enumerate(seeds)]
        if self.seeds is None:  # a first reset: the games without a seed get a random one
            fresh = np.random.default_rng().integers(0, 2**63, size=n, dtype=np.int64)
            seeds = [int(fresh[i]) if s is None else s for i, s in enumerate(seeds)]
        return seeds

    def _seed(self, seeds: list[int | None]) -> None:
        """Seed the generator of each game with an int in ``seeds`` (the others keep theirs)."""
        rows = [i for i, s in enumerate(seeds) if s is not None]
        if not rows:
            return
        self._b.rng[rows] = PCG.seed_states([seeds[i] for i in rows])
        if self.seeds is None:
            self.seeds = np.full(self.num_envs, None, dtype=object)
        for i in rows:
            self.seeds[i] = seeds[i]

    def _check_actions(self, actions: Any, skip: np.ndarray | None) -> np.ndarray:
        """The actions as int64, checked: in the action space, and legal if ``strict``; the games of ``skip`` (which
        start over instead) are not checked, as ``SyncVectorEnv`` never hands their action to a game."""
        a = action_array(actions, self.num_envs, self.num_actions, skip)
        if not self.strict:
            return a
        # the held mask is the current games' legal actions (the kernels write it with every step)
        wrong = ~self._mask[np.arange(self.num_envs), a]
        if skip is not None:
            wrong &= ~skip
        illegal = np.flatnonzero(wrong)
        if illegal.size:
            i = int(illegal[0])
            st = self.state(i)
            act = int(a[i])
            raise ValueError(f"game {i}: action {act} ({describe_action(act, st)}) is illegal: "
                             f"{illegal_reason(st, act, self.unique_keeps)}")
        return a
