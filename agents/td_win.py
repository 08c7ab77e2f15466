"""The TD agent of the game of two: a network of the chance to win, exact expectimax over the dice within the turn.

What is learned: ``W(a, b, lead)``, the chance that the player about to start a turn from turn-start state ``a``
wins (a tie counts half), the other player being at turn-start state ``b`` and behind by ``lead`` points (own total
minus the other's). Ending the turn in state ``a2`` with ``p`` points hands the dice to the other player, so it is
worth ``1 - W(b, a2, -(lead + p))``; after the game's last turn it is the result itself (1, 1/2 or 0). Those
end-of-turn values depend on the points as well as on the next state, which is what the reach search reads
(:func:`yacht_solver.reach_kernels.reach_decide`, one search of the turn for every objective), so each turn is
searched exactly with them: nothing about the dice is learned, only what the two scorecards and the lead are worth.
With the exact two-player table in place of ``W`` it plays as ``optimal-duel``.

The network (:class:`WinNet`) sees both scorecards' features (:class:`~yacht_agents.td_agent.StateSpace`) and the
lead over :data:`LEAD_SCALE`, and outputs a probability. Training: ``train.py`` with ``algo: td`` and ``players: 2``
(:mod:`yacht_training.td_heads_up`). Models are ``.pt`` files of the TD format whose metadata says ``players: 2``.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from yacht_agents.base import Agent
from yacht_agents.duel_agent import check_two
from yacht_agents.nets import read_model_file
from yacht_agents.objectives import turn_end_pairs
from yacht_agents.td_agent import FORMAT, StateSpace, ValueNet, load_td_agent
from yacht_env.actions import KEEP_MASK_UNIQUE, NUM_KEEP_ACTIONS
from yacht_env.rules import RuleSet
from yacht_env.state import GameState
from yacht_solver import reach_kernels as RK
from yacht_solver.ragged import Ragged
from yacht_solver.search.turn_constants import search_constants
from yacht_solver.search.turn_search import Positions

if TYPE_CHECKING:
    import torch

__all__ = ["LEAD_SCALE", "TDWinAgent", "TurnEnds", "WinNet", "load_td_model"]

LEAD_SCALE = 100.0
"""The lead enters the network as ``lead / LEAD_SCALE`` (part of feature layout version 1 of the game of two)."""

_KEEP_MASK = np.ascontiguousarray(KEEP_MASK_UNIQUE)
OUTCOMES_KEPT = 65536
"""Turn-start states whose turn ends :class:`EndLookup` keeps (a few kilobytes each); past that it starts afresh."""
TURNS_KEPT = 4096
"""Turns whose end-of-turn look-up :class:`TDWinAgent` keeps (each is searched at up to three decisions)."""


class WinNet(ValueNet):
    """``W(a, b, lead)``: the chance to win of the player to move (module docstring), for one rule set. What it
    values is an (N, 3) int array of rows ``(a, b, lead)``, ``a`` and ``b`` flat turn-start states."""

    players = 2

    def __init__(self, rules: str | RuleSet, hidden: Sequence[int] = (256, 256), activation: str = "relu",
                 value_scale: float = 1.0, net: torch.nn.Module | None = None) -> None:
        super().__init__(rules, hidden, activation, 1.0, net)  # a probability: value_scale is 1

    @classmethod
    def input_dim_of(cls, space: StateSpace) -> int:
        return 2 * space.feature_dim + 1

    def features(self, samples: np.ndarray) -> np.ndarray:
        """(N, 2 D + 1) float32: the mover's state features, the other's, then the lead over :data:`LEAD_SCALE`."""
        samples = np.asarray(samples, dtype=np.int64).reshape(-1, 3)
        return np.concatenate([self.space.features(samples[:, 0]), self.space.features(samples[:, 1]),
                               (samples[:, 2:3] / LEAD_SCALE).astype(np.float32)], axis=1)

    def output(self, x: torch.Tensor) -> torch.Tensor:
        import torch

        return torch.sigmoid(self.net(x).squeeze(1))


class TurnEnds(NamedTuple):
    """Where the turns of a batch of games end: ``game[k]`` ends its turn in state ``states[k]`` with ``points[k]``
    more, each pair once per game."""

    game: np.ndarray
    states: np.ndarray
    points: np.ndarray


class EndLookup:
    """The end-of-turn values of a batch of turns as one look-up the reach search reads (:class:`Ragged`): game
    ``g``'s values of state ``s`` sit in row ``s`` at ``g * width + need - points`` and the game is searched with the
    need ``g * width + need``, so that one search serves every game of the batch, each reading its own values."""

    def __init__(self, rules: RuleSet) -> None:
        self.space = StateSpace.of(rules)
        self.constants = search_constants(rules)
        self._outcomes: dict[tuple[int, int, int], tuple[np.ndarray, np.ndarray]] = {}
        self._offsets = np.zeros(self.space.size + 1, dtype=np.int64)
        self._rows = np.zeros(0, dtype=np.int64)  # the rows the last look-up set in ``_offsets``

    def outcomes(self, key: tuple[int, int, int]) -> tuple[np.ndarray, np.ndarray]:
        """Every (next state, points) the turn of turn-start state ``key`` can end in, once each (kept)."""
        got = self._outcomes.get(key)
        if got is None:
            if len(self._outcomes) >= OUTCOMES_KEPT:
                self._outcomes.clear()
            got = self._outcomes[key] = turn_end_pairs(self.constants, key)
        return got

    def ends(self, F: np.ndarray, u: np.ndarray, y: np.ndarray) -> TurnEnds:
        """The turn ends of the games at turn-start states ``(F, u, y)``."""
        parts = [self.outcomes((int(a), int(b), int(c))) for a, b, c in zip(F, u, y)]
        game = np.repeat(np.arange(len(parts)), [len(p[0]) for p in parts])
        return TurnEnds(game, np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]))

    def lookup(self, ends: TurnEnds, values: np.ndarray, games: int) -> tuple[Ragged, np.ndarray]:
        """The look-up holding ``values`` (one per end) and each game's need (class docstring)."""
        need = int(ends.points.max()) + 1
        width = need + 1
        rows, at = np.unique(ends.states, return_inverse=True)
        row_len = games * width
        starts = np.arange(len(rows), dtype=np.int64) * row_len
        self._offsets[self._rows] = 0  # the last look-up's rows emptied: no state outside this one's has a row
        self._offsets[self._rows + 1] = 0
        self._rows = rows
        self._offsets[rows + 1] = starts + row_len  # a row's end, or the next row's start where rows are adjacent
        self._offsets[rows] = starts
        data = np.zeros(len(rows) * row_len)
        data[starts[at] + ends.game * width + need - ends.points] = values
        return Ragged(data, self._offsets), np.arange(games, dtype=np.int64) * width + need


def final_share(lead: np.ndarray) -> np.ndarray:
    """The result of a finished game for a player ahead by ``lead``: 1 a win, 1/2 a tie, 0 a loss."""
    return (np.sign(lead) + 1.0) / 2.0


class TDWinAgent(Agent):
    """Plays a game of two to win with a :class:`WinNet` (module docstring). Deterministic."""

    name = "td"
    needs_state = True
    needs_obs = False
    wants_seating = True
    max_players = 2

    def __init__(self, rules: str | RuleSet = "yacht", model: WinNet | None = None, seed: int | None = None,
                 name: str = "td") -> None:
        super().__init__(rules)
        if model is None or not isinstance(model, WinNet):
            raise ValueError("TDWinAgent needs a WinNet (a model of the game of two)")
        if model.rules.name != self.rules.name:
            raise ValueError(f"the model is for rules {model.rules.name!r}, not {self.rules.name!r}")
        self.seed(seed)
        self.model = model
        self.name = name
        self.ends = EndLookup(self.rules)
        self._turns: OrderedDict[tuple, tuple[TurnEnds, np.ndarray]] = OrderedDict()

    def act(self, obs: np.ndarray, mask: np.ndarray, state: GameState | None = None) -> int:
        raise ValueError(f"{self.name} plays the game of two players only (it values both scorecards): a tournament "
                         "or yacht play --vs, not a game alone")

    def act_seated(self, states: Sequence[GameState], seat: int, mask: np.ndarray) -> int:
        """The action of ``seat`` in a game of two; the other seat's dice, if a position holds any, are not read."""
        check_two(states, self.name)
        return int(self.win_values(states[seat], states[1 - seat])[1])

    def win_values(self, me: GameState, other: GameState) -> tuple[np.ndarray, int]:
        """(32 + C,) this agent's chance to win after each legal action of ``me`` (NaN where illegal), and the
        action it plays."""
        key = self.space_key(me)
        lookup, needs = self.ends.lookup(*self._turn_ends(me, other), 1)
        pos = Positions(*(np.array([v], dtype=np.int64) for v in (*key, me.hand, me.rolls_left)))
        values = np.empty((1, NUM_KEEP_ACTIONS + self.rules.num_categories))
        actions = RK.reach_decide(self.ends.constants, lookup, pos, needs, _KEEP_MASK, values)
        return np.where(values[0] > -np.inf, values[0], np.nan), int(actions[0])

    def space_key(self, state: GameState) -> tuple[int, int, int]:
        """The turn-start key ``(F, u, y)`` of ``state``'s scorecard."""
        return tuple(int(k) for k in self.ends.space.key(state.filled_bits, state.upper_total, state.yahtzee_box))

    def _turn_ends(self, me: GameState, other: GameState) -> tuple[TurnEnds, np.ndarray]:
        """Where the turn of ``me`` against ``other`` can end and what each end is worth (kept for the turns in
        play; the look-up is made from them at each decision, since look-ups share their offsets)."""
        tkey = (me.scores, me.bonus_count, other.scores, other.bonus_count)
        got = self._turns.get(tkey)
        if got is None:
            F, u, y = self.space_key(me)
            ends = self.ends.ends(np.array([F]), np.array([u]), np.array([y]))
            lead = me.total + ends.points - other.total  # after this turn, before the other's
            if other.is_over and me.turn == self.rules.num_categories - 1:  # the game ends with this turn
                values = final_share(lead)
            else:
                space = self.ends.space
                b = int(space.flat(*self.space_key(other)))
                rows = np.stack([np.full(len(lead), b), ends.states, -lead], axis=1)
                values = 1.0 - self.model.predict(rows)
            got = self._turns[tkey] = (ends, values)
            if len(self._turns) > TURNS_KEPT:
                self._turns.popitem(last=False)
        return got


def load_td_model(path: str | Path, rules: str | RuleSet, seed: int | None = None) -> Agent:
    """The agent of a TD ``.pt`` model file: a :class:`~yacht_agents.td_agent.TDAgent` for a one-player model, a
    :class:`TDWinAgent` for one of the game of two; ``ValueError`` if the file is not one or does not fit."""
    _, meta = read_model_file(path, FORMAT, "a TD model", "train.py")
    if meta.get("players", 1) == 2:
        return TDWinAgent(rules, model=WinNet.load(path, rules), seed=seed, name=Path(path).stem)
    return load_td_agent(path, rules, seed)
