"""Every rule set as an OpenSpiel game, for one to several players, with the dice as chance nodes.

``import yacht_env.openspiel_game`` registers the game ``"yacht_env"`` with OpenSpiel (the ``openspiel`` extra)::

    import pyspiel
    import yacht_env.openspiel_game  # registers "yacht_env"

    game = pyspiel.load_game("yacht_env", {"rules": "yahtzee", "players": 2})

Parameters: ``rules``, any rule set name :func:`yacht_env.rules.get_rules` accepts (built-in or registered), and
``players``, 1 to :data:`MAX_PLAYERS`. Players take turns in seat order, one whole turn each, as in
:mod:`yacht_env.multiplayer`. Every roll is a chance node whose outcomes are the distinct hands with their exact
probabilities (:func:`yacht_env.chance.roll_outcomes`; a chance action is the hand's index in
:data:`yacht_env.dice.HANDS`, so ``max_chance_outcomes`` is 252): each player's first roll at the start, the dice
not kept after a keep, and the scoring player's next turn's roll after a score. The players' actions are the
environments' (``0..31`` keep the sorted dice picked by the bits, ``32 + k`` score box ``k``) and their legal
actions the environments' mask (:func:`yacht_env.actions.action_mask`: one keep per distinct kept multiset).

Returns: alone, the points (reward model ``REWARDS``: the reward of a score action is the points it adds, bonuses
included, so the returns are the final score, as in :class:`~yacht_env.env.YachtEnv`); with several players
(``TERMINAL``, as OpenSpiel's MCTS and AlphaZero need), +1 for the one highest total, -1 for every other player, 0
for all who share the highest total (a draw): zero-sum for two players.

Observation (and information-state) tensor of player ``p``: with several players, the seat to move counted from
``p`` (one-hot), then each player's :func:`yacht_env.observation.encode` from ``p``'s seat on; alone, exactly the
environment's observation. The game has perfect information and that observation is Markov, so the information
state adds nothing but the history, which its string gives. States serialise as their action history
(``pyspiel.serialize_game_and_state``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from yacht_env.extras import require

require("pyspiel", what="the OpenSpiel game (yacht_env.openspiel_game)")

import pyspiel  # noqa: E402

from yacht_env import dice as D  # noqa: E402
from yacht_env import observation as O  # noqa: E402
from yacht_env.actions import NUM_KEEP_ACTIONS, action_mask, describe_action  # noqa: E402
from yacht_env.chance import roll_outcomes, step_outcome  # noqa: E402
from yacht_env.objective import max_final_score  # noqa: E402
from yacht_env.rules import RuleSet, get_rules  # noqa: E402
from yacht_env.state import ROLLS_PER_TURN, GameState  # noqa: E402

SHORT_NAME = "yacht_env"
"""The name ``pyspiel.load_game`` takes (OpenSpiel's own ``"yacht"`` is Knizia's rules for two players)."""
MAX_PLAYERS = 8
"""The most players a game takes."""
_FIRST_ROLL = -1  # the pending "action" of a player's first roll of the game
_PARAMS = {"rules": "yacht", "players": 1}


def _game_type(players: int) -> pyspiel.GameType:
    T = pyspiel.GameType
    return T(short_name=SHORT_NAME, long_name="yacht-env dice games (Yacht, Yahtzee, Yatzy, Knizia, registered)",
             dynamics=T.Dynamics.SEQUENTIAL, chance_mode=T.ChanceMode.EXPLICIT_STOCHASTIC,
             information=T.Information.PERFECT_INFORMATION,
             utility=T.Utility.ZERO_SUM if players == 2 else T.Utility.GENERAL_SUM,
             reward_model=T.RewardModel.REWARDS if players == 1 else T.RewardModel.TERMINAL,
             max_num_players=MAX_PLAYERS, min_num_players=1,
             provides_information_state_string=True, provides_information_state_tensor=True,
             provides_observation_string=True, provides_observation_tensor=True,
             parameter_specification=dict(_PARAMS))


def _players(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_PLAYERS:
        raise ValueError(f"players must be an int in 1..{MAX_PLAYERS}, got {value!r}")
    return int(value)


class YachtGame(pyspiel.Game):
    """The OpenSpiel game of a rule set and a number of players (see the module docstring)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        p = {**_PARAMS, **(params or {})}
        unknown = sorted(set(p) - set(_PARAMS))
        if unknown:
            raise ValueError(f"unknown parameters {unknown} of {SHORT_NAME!r}; accepted: {sorted(_PARAMS)}")
        self.rules: RuleSet = get_rules(p["rules"])
        self.players = _players(p["players"])
        c = self.rules.num_categories
        alone = self.players == 1
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_KEEP_ACTIONS + c, max_chance_outcomes=D.NUM_HANDS, num_players=self.players,
            min_utility=0.0 if alone else -1.0, max_utility=float(max_final_score(self.rules)) if alone else 1.0,
            utility_sum=0.0 if self.players == 2 else None, max_game_length=ROLLS_PER_TURN * c * self.players)
        super().__init__(_game_type(self.players), info, {"rules": self.rules.name, "players": self.players})

    def new_initial_state(self) -> YachtState:
        return YachtState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> YachtObserver:
        if params:
            raise ValueError(f"the {SHORT_NAME} observer takes no parameters, got {params!r}")
        return YachtObserver(self, iig_obs_type)


class YachtState(pyspiel.State):
    """A position: every player's :class:`~yacht_env.state.GameState`, the seat to move, and a roll still to come."""

    def __init__(self, game: YachtGame) -> None:
        super().__init__(game)
        self.rules = game.rules
        self.n = game.players
        self.cards: list[GameState | None] = [None] * self.n
        """Each player's state (None before the player's first roll)."""
        self.seat = 0
        self.pending: tuple[int, int] | None = (0, _FIRST_ROLL)
        """The roll to come: (seat, the action that asked for it), or None at a decision."""
        self._returns = np.zeros(self.n)
        self._rewards = np.zeros(self.n)

    # ---- whose move ----------------------------------------------------------------------------------------
    def current_player(self) -> int:
        if self.pending is not None:
            return pyspiel.PlayerId.CHANCE
        if self._over():
            return pyspiel.PlayerId.TERMINAL
        return self.seat

    def _over(self) -> bool:
        return self.pending is None and all(c is not None and c.is_over for c in self.cards)

    def is_terminal(self) -> bool:
        return self._over()

    def _legal_actions(self, player: int) -> list[int]:
        card = self.cards[player]
        return [] if player != self.seat or card is None else np.flatnonzero(action_mask(card)).tolist()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        assert self.pending is not None
        seat, action = self.pending
        if action == _FIRST_ROLL:
            return [(h, float(D.HAND_PROBABILITY[h])) for h in range(D.NUM_HANDS)]
        return [(D.hand_index(o.dice), o.probability) for o in roll_outcomes(self.cards[seat], action)]

    # ---- moves ---------------------------------------------------------------------------------------------
    def _apply_action(self, action: int) -> None:
        if self.pending is not None:  # a roll: the rewards of the move before it stand until the next move
            self._roll(int(action))
            return
        self._rewards[:] = 0.0
        card = self.cards[self.seat]
        assert card is not None
        if action >= NUM_KEEP_ACTIONS:
            points = card.points(action - NUM_KEEP_ACTIONS)
            if self.n == 1:
                self._rewards[0] = points
                self._returns[0] += points
            if not roll_outcomes(card, action):  # the player's last box: nothing is rolled
                self.cards[self.seat] = step_outcome(card, action, None)[0]
                self._next_seat()
                return
        self.pending = (self.seat, int(action))

    def _roll(self, hand: int) -> None:
        """The pending roll comes out as hand ``hand``."""
        seat, action = self.pending  # type: ignore[misc]
        dice = tuple(int(f) for f in D.HANDS[hand])
        self.pending = None
        if action == _FIRST_ROLL:
            self.cards[seat] = GameState(self.rules.name, dice, ROLLS_PER_TURN - 1, (None,) * self.rules.num_categories)
            if seat + 1 < self.n:
                self.pending = (seat + 1, _FIRST_ROLL)
            return
        self.cards[seat] = step_outcome(self.cards[seat], action, dice)[0]
        if action >= NUM_KEEP_ACTIONS:
            self._next_seat()

    def _next_seat(self) -> None:
        self.seat = (self.seat + 1) % self.n
        if self._over() and self.n > 1:
            self._returns[:] = _outcome(self.cards)
            self._rewards[:] = self._returns

    # ---- results -------------------------------------------------------------------------------------------
    def returns(self) -> list[float]:
        return self._returns.tolist()

    def rewards(self) -> list[float]:
        return self._rewards.tolist()

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return "roll " + " ".join(str(int(f)) for f in D.HANDS[action])
        card = self.cards[player]
        if card is None:
            return f"action {action}"
        return describe_action(action, card)

    def __str__(self) -> str:
        lines = []
        for i, card in enumerate(self.cards):
            mark = "*" if i == self.seat and not self._over() else " "
            lines.append(f"{mark}p{i} " + ("(no roll yet)" if card is None else card.notation()))
        return "\n".join(lines)


def _outcome(cards: list[GameState | None]) -> np.ndarray:
    """+1 for the one highest total, -1 for the others, 0 for every player who shares the highest total."""
    totals = np.array([c.total for c in cards])  # type: ignore[union-attr]
    top = totals == totals.max()
    if top.sum() > 1:
        return np.where(top, 0.0, -1.0)
    return np.where(top, 1.0, -1.0)


class YachtObserver:
    """OpenSpiel's Python observer of the game: the tensor and string of a state from one player's seat."""

    def __init__(self, game: YachtGame, iig_obs_type: Any) -> None:
        self.n = game.players
        self.rules = game.rules
        self.history = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        self.card_size = O.size(self.rules)
        seat_part = self.n if self.n > 1 else 0
        self.tensor = np.zeros(seat_part + self.n * self.card_size, np.float32)
        self.dict = {"to_move": self.tensor[:seat_part],
                     "cards": self.tensor[seat_part:].reshape(self.n, self.card_size)}

    def set_from(self, state: YachtState, player: int) -> None:
        self.tensor.fill(0.0)
        if self.n > 1 and not state.is_terminal():
            self.dict["to_move"][(state.seat - player) % self.n] = 1.0
        for i in range(self.n):
            card = state.cards[(player + i) % self.n]
            if card is not None:
                O.encode(card, out=self.dict["cards"][i])

    def string_from(self, state: YachtState, player: int) -> str:
        if self.history:
            return f"p{player} " + " ".join(map(str, state.history()))
        return f"p{player}\n{state}"


pyspiel.register_game(_game_type(1), YachtGame)
