"""The one game loop in Python: seatings of one or more players, played in lockstep, each agent asked once per round.

Evaluation's reference path, tournaments and the terminal game drive it. A *seating* is one game: one
:class:`~yacht_env.state.GameState` per seat and the seating's generator (the seat to act and the transitions are
those of :mod:`yacht_env.multiplayer`: a seating of one seat is the single-player game). Each round, every unfinished
seating's seat to act is asked for its action, and the agent of each seat decides for all the seatings it acts in at
once (``act_batch``), so batched agents decide for many games at a time.

What agents get: the mask of legal actions, their own state when ``needs_state``, and the observation: the
single-player one (:func:`yacht_env.observation.encode`), the multiplayer one where the agent sets
``multiplayer_obs = True``, or an empty one where it sets ``needs_obs = False`` (or ``state_suffices = True``: it is
then given its states instead, which it reads in place of the observation). An agent that sets
``wants_seating = True`` (the person at the terminal) is also shown the whole seating before it acts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from yacht_agents.base import Agent
from yacht_env import multiplayer as MP
from yacht_env import observation as O
from yacht_env.actions import action_mask, describe_action
from yacht_env.state import GameState

Decision = Callable[[int, int, GameState, int], None]
"""Called as ``hook(seating, seat, state, action)`` before each action is applied."""


@dataclass
class Seating:
    """One game: the states of its seats and the generator of its dice."""

    states: tuple[GameState, ...]
    rng: np.random.Generator
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def over(self) -> bool:
        return MP.is_over(self.states)


def _observations(agent: Agent, seatings: Sequence[Seating], seats: Sequence[int]) -> np.ndarray:
    states = [t.states[s] for t, s in zip(seatings, seats)]
    if getattr(agent, "multiplayer_obs", False):
        return np.stack([MP.encode(t.states, s) for t, s in zip(seatings, seats)])
    if getattr(agent, "needs_obs", True) and not getattr(agent, "state_suffices", False):
        return np.stack([O.encode(st) for st in states])
    return np.zeros((len(states), 0), dtype=np.float32)


def play_seatings(seatings: list[Seating], seat_agent: Callable[[int, int], Agent], *,
                  on_decision: Decision | None = None, on_over: Callable[[int], None] | None = None) -> list[Seating]:
    """Play every seating to its end; ``seat_agent(seating, seat)`` is the agent of a seat. Returns the seatings (their
    final states). ``on_decision`` sees every decision before it is applied, ``on_over(seating)`` every seating that
    ends. Raises ``ValueError`` if an agent plays an illegal action or answers for the wrong number of games."""
    active = [i for i, t in enumerate(seatings) if not t.over]
    while active:
        groups: dict[int, tuple[Agent, list[int], list[int]]] = {}
        for i in active:
            seat = MP.seat_to_act(seatings[i].states)
            assert seat is not None
            agent = seat_agent(i, seat)
            groups.setdefault(id(agent), (agent, [], []))
            groups[id(agent)][1].append(i)
            groups[id(agent)][2].append(seat)
        for agent, ids, seats in groups.values():
            group = [seatings[i] for i in ids]
            states = [t.states[s] for t, s in zip(group, seats)]
            masks = np.stack([action_mask(st) for st in states])
            if getattr(agent, "wants_seating", False):
                acts = [agent.act_seated(t.states, s, masks[k]) for k, (t, s) in enumerate(zip(group, seats))]
            else:
                obs = _observations(agent, group, seats)
                given = agent.needs_state or getattr(agent, "state_suffices", False)
                if agent.batched:
                    acts = np.asarray(agent.act_batch(obs, masks, states if given else None)).tolist()
                else:
                    acts = [agent.act(obs[k], masks[k], states[k] if given else None) for k in range(len(states))]
            if len(acts) != len(states):
                raise ValueError(f"agent {agent.name!r} returned {len(acts)} actions for {len(states)} games")
            for i, s, st, m, a in zip(ids, seats, states, masks, acts):
                if isinstance(a, np.integer):
                    a = int(a)
                if not (isinstance(a, int) and 0 <= a < m.size and m[a]):
                    what = describe_action(a, st) if isinstance(a, int) and 0 <= a < m.size else "out of range"
                    raise ValueError(f"agent {agent.name!r} played illegal action {a!r} ({what}) in state {st}")
                if on_decision is not None:
                    on_decision(i, s, st, a)
                seatings[i].states, _, _ = MP.play(seatings[i].states, a, seatings[i].rng, check=False)
        still = []
        for i in active:
            if seatings[i].over:
                if on_over is not None:
                    on_over(i)
            else:
                still.append(i)
        active = still
    return seatings
