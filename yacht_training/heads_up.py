"""Heads-up self-play: the game of two as an SB3 ``VecEnv`` whose other seat is played by a snapshot of the learner.

Each of the ``num_envs`` games is a seating of two (:mod:`yacht_env.multiplayer`: the same transitions, seat order and
observation as the PettingZoo environment). The learner plays one seat, alternating game by game so that it moves
first half the time; the other seat is played by :class:`SnapshotOpponent`, a frozen copy of the learner's policy
that samples from its masked distribution; training copies the learner's weights into it at the start of every
rollout, so the learner plays against itself as it was one update ago (``train.py`` with ``players: 2``). The
opponent's moves happen inside ``step``, batched over every game where it is to act, so the learner sees only its own
decisions.

Reward: the game's result at the end (+1 a win, 0 a draw, -1 a loss), plus potential-based shaping (Ng, Harada and
Russell, ICML 1999) with the potential ``reward_scale * lead`` (own total minus the other's) at each of the
learner's decisions and 0 once the game is over. With ``gamma = 1`` the shaping terms of a game sum to minus the
potential of its first decision, which no decision changes, so the policy that maximises the shaped return is the
one that maximises the chance to win; the shaping only gives the early updates a signal to follow.

Seeds: game ``k`` of slot ``i`` rolls from ``default_rng(game_seed(seed, i, k))``; the opponent samples from its own
generator seeded from ``seed``. This module imports SB3 and torch; :mod:`yacht_env` itself never does.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env.base_vec_env import VecEnvObs, VecEnvStepReturn

from yacht_agents.random_agent import RandomAgent
from yacht_agents.sb3_agent import action_scores
from yacht_env import multiplayer as MP
from yacht_env.actions import action_mask, check_action, describe_action, illegal_reason, num_actions
from yacht_env.rules import RuleSet, get_rules
from yacht_env.state import GameState
from yacht_env.vector.env import MAX_NUM_ENVS
from yacht_tools.seeds import agent_seed, check_int, game_seed
from yacht_training.sb3_vec_env import SharedVecEnv

SEATS = 2
Opponent = Callable[[np.ndarray, np.ndarray], np.ndarray]
"""``opponent(obs (N, D) float32, masks (N, A) bool) -> (N,)`` legal actions of the other seat."""


class SnapshotOpponent:
    """A frozen copy of a masked actor-critic policy that samples its actions (refreshed by :meth:`update`)."""

    def __init__(self, policy: Any, seed: int) -> None:
        import torch

        self.policy = copy.deepcopy(policy).eval()
        self.gen = torch.Generator(device="cpu").manual_seed(agent_seed(seed, 0))

    def update(self, policy: Any) -> None:
        """Copy ``policy``'s current weights into the snapshot."""
        self.policy.load_state_dict(policy.state_dict())

    def __call__(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        import torch

        probs = torch.softmax(torch.as_tensor(action_scores(self.policy, obs, masks)), dim=1)  # 0 where illegal
        return torch.multinomial(probs, 1, generator=self.gen).squeeze(1).numpy().astype(np.int64)


MAX_SHAPING = 1e6
"""The largest shaping potential :class:`HeadsUpVecEnv` accepts, ``reward_scale`` times the highest score: float32
rewards of that size still tell a game's result of 1 apart (their step is 1/16)."""


def _check_reward_scale(value: Any, rules: RuleSet) -> float:
    """``value`` as the shaping's ``reward_scale``: a finite number in ``0..MAX_SHAPING / highest score`` (0: no
    shaping), else a ``ValueError`` saying so."""
    top = MP.max_total(rules)
    ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))
    if not ok or not np.isfinite(value) or not 0 <= value <= MAX_SHAPING / top:
        raise ValueError(f"reward_scale must be a finite number in 0..{MAX_SHAPING / top:.6g} (the shaping potential "
                         f"per point of lead: at most {MAX_SHAPING:,.0f} at {rules.name}'s highest score, {top}, so "
                         f"that float32 rewards keep the game's result of 1), got {value!r}")
    return float(value)


class HeadsUpVecEnv(SharedVecEnv):
    """``num_envs`` games of two, the learner in one seat, ``opponent`` in the other (module docstring)."""

    def __init__(self, num_envs: int, rules: str | RuleSet = "yacht", *, seed: int = 0, reward_scale: float = 0.02,
                 unique_keeps: bool = True, opponent: Opponent | None = None) -> None:
        self.rules = get_rules(rules)
        num_envs = check_int(num_envs, "num_envs", 1, MAX_NUM_ENVS)
        self.base_seed = check_int(seed, "seed", 0)
        self.reward_scale = _check_reward_scale(reward_scale, self.rules)
        self.unique_keeps = bool(unique_keeps)
        self.render_mode = None  # SB3 reads it; the seatings have no picture
        # until another is set (training sets a snapshot of the learner), the other seat plays uniformly at random
        self.opponent: Opponent = opponent or RandomAgent(self.rules, seed=agent_seed(seed, 1)).act_batch
        low, high = MP.bounds(self.rules, SEATS)
        super().__init__(num_envs, spaces.Box(low, high, dtype=np.float32), spaces.Discrete(num_actions(self.rules)))
        self.seatings: list[tuple[GameState, ...]] = []
        self.rngs: list[np.random.Generator] = []
        self.seats = np.zeros(num_envs, dtype=np.int64)
        self.games = np.zeros(num_envs, dtype=np.int64)
        self.potential = np.zeros(num_envs, dtype=np.float64)

    # ---- one game ------------------------------------------------------------------------------------------
    def _new_game(self, i: int) -> None:
        """Slot ``i``'s next game, played to the learner's first decision."""
        k = int(self.games[i])
        rng = np.random.default_rng(game_seed(self.base_seed, i, k))
        self.seats[i] = (i + k) % SEATS
        self.games[i] = k + 1
        if len(self.seatings) <= i:
            self.seatings.append(MP.new_seating(self.rules, SEATS, rng))
            self.rngs.append(rng)
        else:
            self.seatings[i], self.rngs[i] = MP.new_seating(self.rules, SEATS, rng), rng
        self._opponent_moves([i])
        self.potential[i] = self._lead(i) * self.reward_scale

    def _lead(self, i: int) -> int:
        me = int(self.seats[i])
        return self.seatings[i][me].total - self.seatings[i][1 - me].total

    def _opponent_moves(self, slots: Sequence[int]) -> None:
        """Let the opponent play in ``slots`` until the learner is to act or the game is over (batched)."""
        todo = [i for i in slots if MP.seat_to_act(self.seatings[i]) not in (None, self.seats[i])]
        while todo:
            obs = np.stack([MP.encode(self.seatings[i], 1 - int(self.seats[i])) for i in todo])
            masks = np.stack([action_mask(self.seatings[i][1 - int(self.seats[i])], self.unique_keeps) for i in todo])
            for i, a in zip(todo, self.opponent(obs, masks)):
                self.seatings[i] = MP.play(self.seatings[i], int(a), self.rngs[i], self.unique_keeps)[0]
            todo = [i for i in todo if MP.seat_to_act(self.seatings[i]) not in (None, self.seats[i])]

    def _obs(self) -> np.ndarray:
        return np.stack([MP.encode(t, int(s)) for t, s in zip(self.seatings, self.seats)])

    # ---- VecEnv API ----------------------------------------------------------------------------------------
    def reset(self) -> VecEnvObs:
        """Start a new game in every slot (after ``seed(s)``, from seed ``s``), played to the learner's first
        decision."""
        seed = self._seeds[0] if self._seeds and self._seeds[0] is not None else None
        if seed is not None:
            self.base_seed = int(seed)
        self.games[:] = 0
        self.seatings, self.rngs = [], []
        for i in range(self.num_envs):
            self._new_game(i)
        self._reset_seeds()
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return self._obs()

    def step_async(self, actions: np.ndarray) -> None:
        """Keep the learner's actions for :meth:`step_wait`, checked first: one legal action per game, else a
        ``ValueError`` naming the game and the action (and no game moves)."""
        acts = np.asarray(actions)
        if acts.size != self.num_envs:
            raise ValueError(f"step needs one action per game: {self.num_envs} actions, got {acts.size} (shape "
                             f"{acts.shape})")
        acts = acts.reshape(self.num_envs)
        n = int(self.action_space.n)
        for i, (seating, seat) in enumerate(zip(self.seatings, self.seats.tolist())):
            a = check_action(acts[i], n)
            if not action_mask(seating[seat], self.unique_keeps)[a]:
                raise ValueError(f"game {i}: action {a} ({describe_action(a, seating[seat])}) is illegal: "
                                 f"{illegal_reason(seating[seat], a, self.unique_keeps)}")
        super().step_async(acts.astype(np.int64))

    def step_wait(self) -> VecEnvStepReturn:
        """Play the learner's actions, then the opponent's until the learner is to act again; an ended game gives its
        result (``infos[i]['outcome']``) and is replaced by the slot's next one."""
        for i, a in enumerate(self._take_actions().tolist()):
            self.seatings[i] = MP.play(self.seatings[i], a, self.rngs[i], self.unique_keeps, check=False)[0]
        self._opponent_moves(range(self.num_envs))
        rewards = np.zeros(self.num_envs, dtype=np.float32)
        dones = np.zeros(self.num_envs, dtype=bool)
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for i in range(self.num_envs):
            if MP.is_over(self.seatings[i]):
                me = int(self.seats[i])
                totals = [s.total for s in self.seatings[i]]
                result = MP.outcome(totals)[me]
                rewards[i] = result - self.potential[i]
                dones[i] = True
                infos[i] = {"terminal_observation": MP.encode(self.seatings[i], me), "TimeLimit.truncated": False,
                            "final_score": totals[me], "outcome": result}
                self._new_game(i)
            else:
                now = self._lead(i) * self.reward_scale
                rewards[i] = now - self.potential[i]
                self.potential[i] = now
        return self._obs(), rewards, dones, infos

    def close(self) -> None:
        """Nothing to release: the seatings are plain data."""
        pass

    def action_masks(self) -> np.ndarray:
        """(N, A) bool masks of the learner's legal actions."""
        return np.stack([action_mask(t[int(s)], self.unique_keeps) for t, s in zip(self.seatings, self.seats)])
