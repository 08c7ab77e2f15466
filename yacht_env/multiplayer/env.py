"""Several players as a PettingZoo AEC environment (the optional ``multiplayer`` extra)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding

from yacht_env import observation as O
from yacht_env.actions import action_mask, check_action, describe_action, illegal_reason, num_actions
from yacht_env.extras import require
from yacht_env.i18n import check_lang
from yacht_env.multiplayer.seating import (
    OUTCOME_NAMES,
    bounds,
    check_num_players,
    check_position,
    deal_turn,
    encode,
    is_over,
    new_seating,
    outcome,
    play,
    ranks,
    render_seating,
    seat_to_act,
)
from yacht_env.randomness import check_seed_value
from yacht_env.render import warn_no_render_mode
from yacht_env.rules import get_rules
from yacht_env.state import GameState, parse, scorecard

try:  # PettingZoo is the optional ``multiplayer`` extra; the game logic of .seating works without it
    from pettingzoo import AECEnv
    from pettingzoo.utils.wrappers import OrderEnforcingWrapper, TerminateIllegalWrapper

    HAS_PETTINGZOO = True
except ModuleNotFoundError:  # pragma: no cover - exercised only without the extra
    AECEnv = object  # type: ignore[assignment,misc]
    HAS_PETTINGZOO = False

REWARD_MODES = ("points", "win")


if HAS_PETTINGZOO:
    class _OrderEnforcing(OrderEnforcingWrapper):
        """PettingZoo's order-enforcing wrapper, but a ``step()`` once every agent has left the game is refused with
        the raw environment's ``ValueError`` instead of a warning and nothing done (a loop that steps on would
        otherwise spin unnoticed). A finished agent's own ``step(None)``, before it leaves, stays PettingZoo's
        dead step."""

        def step(self, action: Any) -> None:
            if self._has_reset and not self.agents:
                self.env.unwrapped.step(action)  # raises: the game ended and every agent left
            super().step(action)


class raw_env(AECEnv):  # noqa: N801  (PettingZoo's naming convention)
    """
    ## Description
    Yacht (or Yahtzee) for 2 to 8 players, as a PettingZoo AEC environment. Agents ``player_0`` .. ``player_{N-1}``
    play whole turns in seat order; each fills their own scorecard; when every scorecard is full the highest total
    wins, and players sharing it draw. See the module docstring for the rules of play and the dice.

    ## Action Space
    ``Discrete(32 + C)`` per agent, as in the single-player environment (:mod:`yacht_env.actions`).

    ## Observation Space
    ``Dict(observation=Box(float32), action_mask=Box(int8, 0..1))``. ``observation`` is the agent's single-player
    observation followed by its total, lead over the best opponent, rank, seat, and each opponent's total and open
    categories (plus capped upper total and Yahtzee box for bonus rules); layout in the module docstring and
    :func:`layout`, read back by :func:`decode`. ``action_mask`` is the agent's legal actions when it is the agent
    to act, all zeros otherwise and once the game is over.

    ## Rewards
    - ``"points"`` (default): the points each score action adds goes to the player who scored (bonuses included),
      like the single-player environment; each player's rewards sum to their final score.
    - ``"win"``: 0 until the end; then +1 for the sole highest total, 0 for every player sharing the highest total
      (a draw, whatever the number sharing it, all players included), -1 for every other player.

    ## Episode End
    All agents terminate together after the last score of the last player. No truncation: every legal game ends.
    Then ``infos[agent]`` holds ``final_score``, ``final_scores`` (every agent), ``outcome`` ("win", "draw" or
    "loss"), ``rank`` (1 + players strictly ahead) and ``scorecard``.

    ## Arguments
    - ``num_players``: 2 to 8.
    - ``rules``: a rule set name of :data:`yacht_env.rules.RULESETS` (stated on the documentation's Rules page).
    - ``reward``: ``"points"`` or ``"win"``.
    - ``render_mode``: ``None``, ``"ansi"`` or ``"human"``: every scorecard side by side.
    - ``unique_keeps``: one keep action per distinct kept multiset (default True), as in the single environment.
    - ``lang``: language of the rendering.

    An illegal action raises ``ValueError`` naming the action and the agent; :func:`env` with ``illegal_reward``
    uses PettingZoo's ``TerminateIllegalWrapper`` instead.

    ``reset(seed=..., options={"states": [GameState or notation, ...]})`` starts from a given position: one state
    per seat, the seat to act being the first with the fewest filled boxes (unknown option keys are ignored). Every
    other unfinished seat is between its turns and holds no dice (``dice -``); the seat to act may hold its dice, or
    none, and then rolls them from the seeded generator.

    ## Version History
    - v0: initial version.
    """

    metadata = {"render_modes": ["ansi", "human"], "name": "yacht_multiplayer_v0", "is_parallelizable": False,
                "render_fps": 1}

    def __init__(self, num_players: int = 2, rules: str = "yacht", reward: str = "points",
                 render_mode: str | None = None, unique_keeps: bool = True, lang: str = "en") -> None:
        if not HAS_PETTINGZOO:  # tests/test_base_install.py
            require("pettingzoo", what="the multiplayer environment")
        super().__init__()
        self.rules = get_rules(rules)
        self.num_players = check_num_players(num_players)
        if reward not in REWARD_MODES:
            raise ValueError(f"unknown reward {reward!r}; accepted: {', '.join(REWARD_MODES)}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"unknown render_mode {render_mode!r}; accepted: None, 'ansi', 'human'")
        self.reward_mode = reward
        self.render_mode = render_mode
        self.unique_keeps = bool(unique_keeps)
        self.lang = check_lang(lang)
        self.possible_agents = [f"player_{i}" for i in range(self.num_players)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        n_act = num_actions(self.rules)
        low, high = bounds(self.rules, self.num_players)
        self.observation_spaces = {
            a: spaces.Dict({
                "observation": spaces.Box(low, high, dtype=np.float32),
                "action_mask": spaces.Box(0, 1, shape=(n_act,), dtype=np.int8),
            })
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(n_act) for a in self.possible_agents}
        self._rng: np.random.Generator | None = None
        self._states: tuple[GameState, ...] = ()

    # ---- PettingZoo API ----------------------------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if options is not None and not isinstance(options, dict):
            raise ValueError(f"options must be None or a dict (key 'states': a list of {self.num_players} GameStates "
                             f"or notations), got {options!r}")
        seed = check_seed_value(seed)  # the environments' one seed check (Gymnasium's takes True, refuses np.int64)
        if seed is not None or self._rng is None:
            self._rng, _ = seeding.np_random(seed)
        start = (options or {}).get("states")
        self._states = new_seating(self.rules, self.num_players, self._rng) if start is None else self._position(start)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        seat = seat_to_act(self._states)
        assert seat is not None
        self.agent_selection = self.possible_agents[seat]
        if self.render_mode == "human":
            self.render()

    def _position(self, start: Any) -> tuple[GameState, ...]:
        if isinstance(start, (str, GameState)) or not isinstance(start, Sequence) or len(start) != self.num_players:
            raise ValueError(f"options['states'] must be a list of {self.num_players} GameStates or notations, "
                             f"got {start!r}")
        states = tuple(parse(s, self.rules.name) if isinstance(s, str) else s for s in start)
        for s in states:
            if not isinstance(s, GameState) or s.rules != self.rules.name:
                raise ValueError(f"options['states'] must hold {self.rules.name} GameStates, got {s!r}")
        if is_over(states):
            raise ValueError("options['states'] is a finished game: at least one scorecard must have an open box")
        try:
            check_position(states)
        except ValueError as e:
            raise ValueError(f"options['states']: {e}") from None
        return deal_turn(states, self._rng)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.agent_name_mapping[agent]
        mask = np.zeros(self.action_spaces[agent].n, dtype=np.int8)
        if agent == self.agent_selection and seat == seat_to_act(self._states):
            mask[:] = action_mask(self._states[seat], self.unique_keeps)
        return {"observation": encode(self._states, seat), "action_mask": mask}

    def step(self, action: Any) -> None:
        if not self._states:
            raise ValueError("step() before reset(): call reset() to start a game")
        if not self.agents:
            raise ValueError("step() after the game ended and every agent left: call reset() for a new game")
        agent = self.agent_selection
        if agent not in self.agents:
            raise ValueError(f"agent_selection is {agent!r}, not an agent in the game: {', '.join(self.agents)}")
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = self.agent_name_mapping[agent]
        if seat != seat_to_act(self._states):  # agent_selection was set by hand: one seat's move, another's points
            raise ValueError(f"agent_selection is {agent!r}, but it is the turn of "
                             f"{self.possible_agents[seat_to_act(self._states)]!r}: the environment chooses the agent "
                             "to act (read agent_selection, do not set it)")
        a = check_action(action, int(self.action_spaces[agent].n))
        st = self._states[seat]
        if not action_mask(st, self.unique_keeps)[a]:
            raise ValueError(f"{agent}: action {a} ({describe_action(a, st)}) is illegal: "
                             f"{illegal_reason(st, a, self.unique_keeps)}")
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        self._states, _, pts = play(self._states, a, self._rng, self.unique_keeps, check=False)
        if self.reward_mode == "points":
            self.rewards[agent] = float(pts)
        nxt = seat_to_act(self._states)
        if nxt is None:
            self._finish()
            self.agent_selection = self.possible_agents[(seat + 1) % self.num_players]
        else:
            self.agent_selection = self.possible_agents[nxt]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _finish(self) -> None:
        """Every scorecard is full: outcome rewards (``win`` mode), terminations and final infos."""
        totals = [s.total for s in self._states]
        res = outcome(totals)
        rk = ranks(totals)
        final = dict(zip(self.possible_agents, totals))
        for i, a in enumerate(self.possible_agents):
            if self.reward_mode == "win":
                self.rewards[a] = float(res[i])
            self.terminations[a] = True
            self.infos[a] = {"final_score": totals[i], "final_scores": dict(final), "outcome": OUTCOME_NAMES[res[i]],
                             "rank": rk[i], "scorecard": scorecard(self._states[i])}

    def render(self) -> str | None:
        if self.render_mode is None:
            warn_no_render_mode(self.metadata["render_modes"])
            return None
        if not self._states:
            return None
        out = render_seating(self._states, self.possible_agents, self.lang)
        if self.render_mode == "human":
            print(out)
            return None
        return out

    def close(self) -> None:
        pass

    # ---- single-player views, for agents written for the single-player environment ---------------------------
    @property
    def states(self) -> tuple[GameState, ...]:
        """One GameState per seat."""
        return self._states

    def state_of(self, agent: str) -> GameState:
        """The agent's own single-player game state."""
        return self._states[self.agent_name_mapping[agent]]

    def single_observation(self, agent: str) -> np.ndarray:
        """The agent's observation in the single-player environment's layout."""
        return O.encode(self.state_of(agent))

    def action_masks(self, agent: str | None = None) -> np.ndarray:
        """Bool mask of the legal actions of ``agent`` (default: the agent to act); all False off turn."""
        return self.observe(agent or self.agent_selection)["action_mask"].astype(bool)

    def totals(self) -> dict[str, int]:
        """Each agent's total so far."""
        return {a: s.total for a, s in zip(self.possible_agents, self._states)}


def env(num_players: int = 2, rules: str = "yacht", reward: str = "points", render_mode: str | None = None,
        illegal_reward: float | None = None, **kwargs: Any) -> AECEnv:
    """The multiplayer environment with PettingZoo's order-enforcing wrapper (``env.unwrapped`` is the
    :class:`raw_env`). With ``illegal_reward`` an illegal action ends the game with that reward for the player who
    made it (PettingZoo's ``TerminateIllegalWrapper``) instead of raising ``ValueError``. A ``step()`` after every
    agent has left the game (each finished agent steps ``None`` once, then leaves) raises ``ValueError``: call
    ``reset()`` for a new game."""
    e: AECEnv = raw_env(num_players=num_players, rules=rules, reward=reward, render_mode=render_mode, **kwargs)
    if illegal_reward is not None:
        e = TerminateIllegalWrapper(e, illegal_reward=float(illegal_reward))
    return _OrderEnforcing(e)


__all__ = ["HAS_PETTINGZOO", "REWARD_MODES", "env", "raw_env"]
