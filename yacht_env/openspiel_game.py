"""Every rule set as an OpenSpiel game, for one to several players, with the dice as chance nodes.

``import yacht_env.openspiel_game`` registers the game ``"yacht_env"`` with OpenSpiel (the ``openspiel`` extra)::

    import pyspiel
    import yacht_env.openspiel_game  # registers "yacht_env"

    game = pyspiel.load_game("yacht_env", {"rules": "yahtzee", "players": 2})

Parameters: ``rules``, any rule set name :func:`yacht_env.rules.get_rules` accepts (built-in or registered);
``players``, 1 to :data:`MAX_PLAYERS`; ``step_rewards`` (one player only, default False). Players take turns in seat
order, one whole turn each, as in :mod:`yacht_env.multiplayer`, and each seat's dice are rolled when its turn begins:
a seat between its turns holds no dice (:attr:`yacht_env.state.GameState.awaits_roll`). Every roll is a chance node
whose outcomes are the distinct hands with their exact probabilities (a chance action is the hand's index in
:data:`yacht_env.dice.HANDS`, so ``max_chance_outcomes`` is 252): the first roll of each turn (all 252 hands), and the
dice not kept after a keep (:func:`yacht_env.chance.roll_outcomes`). A score ends the turn
(:func:`yacht_env.state.end_turn`); the next seat's first roll follows (alone, the same seat's). The players' actions
are the environments' (``0..31`` keep the sorted dice picked by the bits, ``32 + k`` score box ``k``) and their legal
actions the environments' mask (:func:`yacht_env.actions.action_mask`: one keep per distinct kept multiset). Any other
action, or a chance action that is not an outcome of the roll, is a ``ValueError`` and changes nothing.

Returns: alone, the final score, given at the end (reward model ``TERMINAL``, as OpenSpiel's MCTS and AlphaZero
need). With several players (``TERMINAL``): +1 for the one highest total, -1 for every other player, 0 for all who
share the highest total (a draw): zero-sum for two. ``rewards()`` is the reward of the last transition, as OpenSpiel
defines it, so the rewards of a game sum to its returns; a roll's is 0. With ``step_rewards=True`` (one player,
``REWARDS``, for ``rl_environment``) each box's points, bonuses included, are a reward of their own, as
:class:`~yacht_env.env.YachtEnv` gives them; they come with the next turn's first roll (the last box's with the score):
``rl_environment`` reads the rewards after it has made the rolls that follow an action, so each of its steps gets
the points of the box it scored.

Observation (and information-state) tensor of player ``p``: with several players, the seat to move counted from
``p`` (one-hot), then each player's :func:`yacht_env.observation.encode` from ``p``'s seat on (a seat between its
turns: its boxes, no dice); alone, exactly the environment's observation. The game has perfect information and that
observation is Markov, so the information state adds nothing but the history, which its string gives.

Serialisation: a state is its game's parameters and its action history, nothing else. ``pyspiel.serialize_game_and_
state`` writes them (OpenSpiel's Python games add a ``__dict__=`` line; this game's says only that the state is its
history), and ``pyspiel.deserialize_game_and_state``, ``game.deserialize_state`` and ``pickle`` rebuild the state by
replaying the history through the legal-action checks. OpenSpiel unpickles the ``__dict__=`` line of a Python game's
state: a line that names any Python object (the way a pickle runs code) is refused before the object is looked up,
by an audit hook (:func:`sys.addaudithook`) that acts only inside the deserialisation of a state of this game, and any
content but this game's own line is refused: one ``ValueError`` line, nothing run. (A line of an empty dict gives
OpenSpiel nothing to set, so the history is replayed through the same checks when the state is first used.)
"""

from __future__ import annotations

import sys
import threading
from typing import Any

import numpy as np

from yacht_env.extras import require

require("pyspiel", what="the OpenSpiel game (yacht_env.openspiel_game)")

import pyspiel  # noqa: E402

from yacht_env import dice as D  # noqa: E402
from yacht_env import observation as O  # noqa: E402
from yacht_env.actions import NUM_KEEP_ACTIONS, action_mask, describe_action, illegal_reason  # noqa: E402
from yacht_env.chance import roll_outcomes  # noqa: E402
from yacht_env.objective import max_final_score  # noqa: E402
from yacht_env.rules import RuleSet, get_rules  # noqa: E402
from yacht_env.state import ROLLS_PER_TURN, GameState, deal_to, end_turn, reroll_to, unrolled_game  # noqa: E402

SHORT_NAME = "yacht_env"
"""The name ``pyspiel.load_game`` takes (OpenSpiel's own ``"yacht"`` is Knizia's rules for two players)."""
MAX_PLAYERS = 8
"""The most players a game takes."""
_DEAL = -1  # the pending roll is the first of the seat's turn (else it is the keep action that asked for it)
_PARAMS = {"rules": "yacht", "players": 1, "step_rewards": False}
_MARK, _MARK_VALUE = "serialized_as", "history"
"""The one entry of a state's ``__dict__`` (what OpenSpiel writes on the ``__dict__=`` line): the state is its
history."""


def _game_type(players: int, step_rewards: bool = False) -> pyspiel.GameType:
    T = pyspiel.GameType
    return T(short_name=SHORT_NAME, long_name="yacht-env dice games (Yacht, Yahtzee, Yatzy, Knizia, registered)",
             dynamics=T.Dynamics.SEQUENTIAL, chance_mode=T.ChanceMode.EXPLICIT_STOCHASTIC,
             information=T.Information.PERFECT_INFORMATION,
             utility=T.Utility.ZERO_SUM if players == 2 else T.Utility.GENERAL_SUM,
             reward_model=T.RewardModel.REWARDS if step_rewards else T.RewardModel.TERMINAL,
             max_num_players=MAX_PLAYERS, min_num_players=1,
             provides_information_state_string=True, provides_information_state_tensor=True,
             provides_observation_string=True, provides_observation_tensor=True,
             parameter_specification=dict(_PARAMS))


def _players(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_PLAYERS:
        raise ValueError(f"players must be an int in 1..{MAX_PLAYERS}, got {value!r}")
    return int(value)


def _step_rewards(value: Any, players: int) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"step_rewards must be True or False, got {value!r}")
    if value and players > 1:
        raise ValueError(f"step_rewards=True is for one player (the points of each box); with {players} players the "
                         "rewards are the win, draw or loss at the end")
    return value


class YachtGame(pyspiel.Game):
    """The OpenSpiel game of a rule set and a number of players (see the module docstring)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        p = {**_PARAMS, **(params or {})}
        unknown = sorted(set(p) - set(_PARAMS))
        if unknown:
            raise ValueError(f"unknown parameters {unknown} of {SHORT_NAME!r}; accepted: {sorted(_PARAMS)}")
        self.rules: RuleSet = get_rules(p["rules"])
        self.players = _players(p["players"])
        self.step_rewards = _step_rewards(p["step_rewards"], self.players)
        c = self.rules.num_categories
        alone = self.players == 1
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_KEEP_ACTIONS + c, max_chance_outcomes=D.NUM_HANDS, num_players=self.players,
            min_utility=0.0 if alone else -1.0, max_utility=float(max_final_score(self.rules)) if alone else 1.0,
            utility_sum=0.0 if self.players == 2 else None, max_game_length=ROLLS_PER_TURN * c * self.players)
        super().__init__(_game_type(self.players, self.step_rewards), info,
                         {"rules": self.rules.name, "players": self.players, "step_rewards": self.step_rewards})

    def new_initial_state(self) -> YachtState:
        _GUARD.site = _site(sys._getframe().f_back)  # OpenSpiel may deserialise into it: _refuse_named_objects
        return YachtState(self)

    def deserialize_state(self, text: str) -> YachtState:
        """The state ``text`` (``state.serialize()``) describes: its action history replayed through the legal-action
        checks. Nothing else is read (and nothing unpickled): any other content is a one-line ``ValueError``."""
        return _from_text(self, text)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> YachtObserver:
        if params:
            raise ValueError(f"the {SHORT_NAME} observer takes no parameters, got {params!r}")
        return YachtObserver(self, iig_obs_type)


class _Seating:
    """The position behind a :class:`YachtState`: each seat's card, the seat to move, the roll to come, the rewards,
    and how many actions made it (``moves``; ``checked``: whether it is known to be the C++ history's)."""

    __slots__ = ("cards", "seat", "pending", "returns", "rewards", "owed", "moves", "checked")

    def __init__(self, game: YachtGame) -> None:
        self.cards: list[GameState] = [unrolled_game(game.rules)] * game.players
        self.seat = 0
        self.pending: int | None = _DEAL
        """The roll to come (:data:`_DEAL`, or the keep action that asked for it), or None at a decision."""
        self.returns = [0.0] * game.players
        self.rewards = [0.0] * game.players
        self.owed = 0.0
        """(``step_rewards``) the points of the score just made, the reward of the next turn's roll."""
        self.moves = 0
        self.checked = False

    def copy(self) -> _Seating:
        t = object.__new__(_Seating)
        t.cards, t.seat, t.pending = list(self.cards), self.seat, self.pending
        t.returns, t.rewards, t.owed = list(self.returns), list(self.rewards), self.owed
        t.moves, t.checked = self.moves, True
        return t

    def over(self) -> bool:
        return self.pending is None and all(c.is_over for c in self.cards)

    def to_move(self) -> int:
        if self.pending is not None:
            return pyspiel.PlayerId.CHANCE
        return pyspiel.PlayerId.TERMINAL if self.over() else self.seat

    def outcomes(self) -> list[tuple[int, float]]:
        """The chance outcomes of the roll to come: (hand index, probability)."""
        if self.pending == _DEAL:
            return list(_DEAL_OUTCOMES)  # a new list: callers shuffle it (OpenSpiel's MCTS does)
        card = self.cards[self.seat]
        keep = D.keep_index(D.pattern_faces(card.dice, self.pending))
        found = _KEEP_OUTCOMES.get(keep)
        if found is None:
            outs = roll_outcomes(card, self.pending)
            hands = D.hand_indices(np.array([o.dice for o in outs])).tolist()
            found = _KEEP_OUTCOMES[keep] = tuple((h, o.probability) for h, o in zip(hands, outs))
        return list(found)

    def apply(self, game: YachtGame, action: Any) -> None:
        """``action`` played (a chance action at a chance node): checked first, and refused with nothing changed."""
        if self.pending is not None:
            self._roll(action)
        elif self.over():
            raise ValueError(f"the game is over: no action is accepted (got {action!r})")
        else:
            self._decide(game, action)
        self.moves += 1

    def _roll(self, hand: Any) -> None:
        outcomes = self.outcomes()
        if not _is_int(hand) or not (0 <= hand < D.NUM_HANDS and (self.pending == _DEAL or
                                                                    any(h == hand for h, _ in outcomes))):
            card = self.cards[self.seat]
            what = (f"a hand index in 0..{D.NUM_HANDS - 1} (the turn's first roll)" if self.pending == _DEAL else
                    f"the indices of the {len(outcomes)} hands that hold the kept dice "
                    f"{' '.join(map(str, D.pattern_faces(card.dice, self.pending))) or '(none)'}: "
                    f"{[h for h, _ in outcomes]}")
            raise ValueError(f"chance action {hand!r} is not an outcome of this roll; accepted: {what}")
        dice = tuple(int(f) for f in D.HANDS[hand])
        card = self.cards[self.seat]
        self.cards[self.seat] = (deal_to(card, dice) if self.pending == _DEAL else
                                 reroll_to(card, D.pattern_faces(card.dice, self.pending), dice))
        self.rewards = [0.0] * len(self.cards)
        if self.pending == _DEAL and self.owed:  # step_rewards: the score's points come with the next turn's roll
            self.rewards[self.seat], self.owed = self.owed, 0.0
            self.returns[self.seat] += self.rewards[self.seat]
        self.pending = None

    def _decide(self, game: YachtGame, action: Any) -> None:
        card = self.cards[self.seat]
        mask = action_mask(card)
        if not _is_int(action) or not 0 <= action < len(mask) or not mask[action]:
            why = f" ({illegal_reason(card, int(action))})" if _is_int(action) and 0 <= action < len(mask) else ""
            raise ValueError(f"action {action!r} is not legal for player {self.seat}{why}; accepted: "
                             f"{np.flatnonzero(mask).tolist()}")
        a = int(action)
        self.rewards = [0.0] * len(self.cards)
        if a < NUM_KEEP_ACTIONS:
            self.pending = a
            return
        card, points = end_turn(card, a - NUM_KEEP_ACTIONS)
        self.cards[self.seat] = card
        over = all(c.is_over for c in self.cards)
        if game.step_rewards and over:
            self.rewards[self.seat] = float(points)
            self.returns[self.seat] += points
        elif game.step_rewards:
            self.owed = float(points)
        if over:
            final = [float(card.total)] if game.players == 1 else _outcome(self.cards).tolist()
            if not game.step_rewards:
                self.rewards, self.returns = list(final), list(final)
            return
        self.seat = (self.seat + 1) % game.players
        self.pending = _DEAL


_DEAL_OUTCOMES = tuple((h, float(D.HAND_PROBABILITY[h])) for h in range(D.NUM_HANDS))
_KEEP_OUTCOMES: dict[int, tuple[tuple[int, float], ...]] = {}
"""The kept dice (:func:`yacht_env.dice.keep_index`) -> the roll's outcomes as (hand index, probability)."""


def _is_int(v: Any) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


class YachtState(pyspiel.State):
    """A position: every player's :class:`~yacht_env.state.GameState`, the seat to move, and a roll still to come.

    Its Python side holds one attribute OpenSpiel sees (``serialized_as = "history"``, what it writes on the
    ``__dict__=`` line of a serialisation); the position lives in a slot, rebuilt from the action history whenever
    OpenSpiel's C++ side made the state (a deserialisation, a clone made in C++)."""

    __slots__ = ("_game", "_t", "__dict__")

    def __init__(self, game: YachtGame) -> None:
        super().__init__(game)
        object.__setattr__(self, "_game", game)
        object.__setattr__(self, "_t", _Seating(game))
        object.__setattr__(self, _MARK, _MARK_VALUE)

    def __setattr__(self, name: str, value: Any) -> None:
        """Only OpenSpiel's deserialisation sets an attribute, the one its serialisation wrote: the history is then
        replayed. Anything else is refused."""
        _GUARD.site = None
        if name != _MARK or type(value) is not str or value != _MARK_VALUE:
            raise ValueError(f"a {SHORT_NAME} state is its game's parameters and action history only: refused the "
                             f"attribute {name!r} = {_short(value)} (a serialisation's __dict__ line holds "
                             f"{{{_MARK!r}: {_MARK_VALUE!r}}} and nothing else)")
        object.__setattr__(self, "_t", _replayed(self._game, self.full_history(), self.move_number()))
        object.__setattr__(self, name, value)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as the game's parameters and the action history (unpickled by replaying it)."""
        return _restore, (self._game.get_parameters(), [(pa.player, pa.action) for pa in self.full_history()])

    def _seating(self) -> _Seating:
        """The position, rebuilt from the history when OpenSpiel's C++ side moved it on (a clone made in C++)."""
        t = self._t
        if t.moves != self.move_number() or not t.checked:
            if t.moves != self.move_number() or len(self.history()) != t.moves:
                t = _replayed(self._game, self.full_history(), self.move_number())
                object.__setattr__(self, "_t", t)
            t.checked = True
        return t

    @property
    def cards(self) -> tuple[GameState, ...]:
        """Each seat's card (a seat between its turns holds no dice: ``awaits_roll``)."""
        return tuple(self._seating().cards)

    @property
    def seat(self) -> int:
        """The seat whose turn it is (its roll to come, at a chance node)."""
        return self._seating().seat

    def clone(self) -> YachtState:
        c = super().clone()
        object.__setattr__(c, "_t", self._seating().copy())
        return c

    # ---- whose move ----------------------------------------------------------------------------------------
    def current_player(self) -> int:
        return self._seating().to_move()

    def is_terminal(self) -> bool:
        return self._seating().over()

    def _legal_actions(self, player: int) -> list[int]:
        t = self._seating()
        if t.pending is not None or player != t.seat or t.over():
            return []
        return np.flatnonzero(action_mask(t.cards[player])).tolist()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        t = self._seating()
        return [] if t.pending is None else t.outcomes()

    # ---- moves ---------------------------------------------------------------------------------------------
    def _apply_action(self, action: int) -> None:
        self._seating().apply(self._game, action)

    # ---- results -------------------------------------------------------------------------------------------
    def returns(self) -> list[float]:
        return list(self._seating().returns)

    def rewards(self) -> list[float]:
        return list(self._seating().rewards)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return ("roll " + " ".join(str(int(f)) for f in D.HANDS[action]) if 0 <= action < D.NUM_HANDS else
                    f"chance action {action}")
        card = self._seating().cards[player]
        if card.awaits_roll or not 0 <= action < NUM_KEEP_ACTIONS + self._game.rules.num_categories:
            return f"action {action}"
        return describe_action(action, card)

    def __str__(self) -> str:
        t = self._seating()
        lines = []
        for i, card in enumerate(t.cards):
            mark = "*" if i == t.seat and not t.over() else " "
            lines.append(f"{mark}p{i} {card.notation()}")
        return "\n".join(lines)


def _outcome(cards: list[GameState]) -> np.ndarray:
    """+1 for the one highest total, -1 for the others, 0 for every player who shares the highest total."""
    totals = np.array([c.total for c in cards])
    top = totals == totals.max()
    if top.sum() > 1:
        return np.where(top, 0.0, -1.0)
    return np.where(top, 1.0, -1.0)


# ---- serialisation: the parameters and the action history, nothing else ------------------------------------------


def _short(value: Any) -> str:
    text = repr(value) if isinstance(value, (str, int, float, bool, type(None))) else f"a {type(value).__name__}"
    return text if len(text) <= 60 else text[:57] + "..."


def _max_moves(game: YachtGame) -> int:
    """The longest history: a turn is at most three rolls and three decisions, one turn per box and seat."""
    return 2 * ROLLS_PER_TURN * game.rules.num_categories * game.players


def _replayed(game: YachtGame, history: list[Any], move_number: int) -> _Seating:
    """The position ``history`` (OpenSpiel's ``PlayerAction`` list, or (player, action) pairs) leads to, each action
    checked as :meth:`_Seating.apply` checks it and played by the player to move."""
    if len(history) > _max_moves(game) or move_number != len(history):
        raise ValueError(f"a {SHORT_NAME} history holds at most {_max_moves(game)} actions and move_number counts "
                         f"them; got {len(history)} actions and move_number {move_number}")
    t = _Seating(game)
    for i, pa in enumerate(history):
        player, action = (pa.player, pa.action) if hasattr(pa, "player") else pa
        if player != t.to_move():
            raise ValueError(f"the history's action {i} ({action}) is player {player}'s, but {_who(t.to_move())} is "
                             "to move")
        t.apply(game, action)
    t.checked = True
    return t


def _who(player: int) -> str:
    return {pyspiel.PlayerId.CHANCE: "chance", pyspiel.PlayerId.TERMINAL: "no one (the game is over)"}.get(
        player, f"player {player}")


def _canonical_dict_lines() -> frozenset[str]:
    """The ``__dict__=`` lines OpenSpiel writes for a state of this game (one per pickle protocol it may use)."""
    import base64
    import pickle

    return frozenset("__dict__=" + base64.b64encode(pickle.dumps({_MARK: _MARK_VALUE}, protocol=p)).decode()
                     for p in range(2, pickle.HIGHEST_PROTOCOL + 1))


_DICT_LINES = _canonical_dict_lines()


def _from_text(game: YachtGame, text: Any) -> YachtState:
    """The state of ``game`` that ``text`` (``state.serialize()``: ``history=``, ``move_number=`` and OpenSpiel's
    ``__dict__=`` lines) describes, its history replayed; nothing unpickled."""
    from yacht_env.digits import parse_digits

    limit = 40 * _max_moves(game) + 200
    lines = text.removesuffix("\n").split("\n") if isinstance(text, str) and len(text) <= limit else []
    if len(lines) != 3 or not lines[0].startswith("history=") or not lines[1].startswith("move_number="):
        raise ValueError(f"a serialised {SHORT_NAME} state is three lines, 'history=player:action,...', "
                         f"'move_number=N' and OpenSpiel's '__dict__=' line, at most {limit} characters; got "
                         f"{_short(text)}")
    if lines[2] not in _DICT_LINES:
        raise ValueError(f"a serialised {SHORT_NAME} state is its action history only: refused the line "
                         f"{_short(lines[2])} (this game's __dict__ line says {{{_MARK!r}: {_MARK_VALUE!r}}}); "
                         "nothing was unpickled")
    items = [x.split(":") for x in lines[0][len("history="):].split(",")] if lines[0] != "history=" else []
    pairs = [tuple(parse_digits(v) for v in x) for x in items]
    move_number = parse_digits(lines[1][len("move_number="):])
    if move_number is None or any(len(p) != 2 or None in p for p in pairs):
        raise ValueError(f"a serialised {SHORT_NAME} history is 'player:action' pairs of integers joined by commas, "
                         f"and move_number an integer; got {_short(lines[0])}, {_short(lines[1])}")
    _replayed(game, pairs, move_number)  # refuses a bad history before any state is made
    state = game.new_initial_state()
    _GUARD.site = None
    for _, action in pairs:
        state.apply_action(action)
    return state


def _restore(params: dict[str, Any], history: list[tuple[int, int]]) -> YachtState:
    """A pickled state: its game from ``params`` and its ``history`` replayed (see :meth:`YachtState.__reduce__`)."""
    game = pyspiel.load_game(SHORT_NAME, params)
    if not isinstance(game, YachtGame) or not isinstance(history, list):
        raise ValueError(f"a pickled {SHORT_NAME} state holds its game's parameters and a list of (player, action)")
    _replayed(game, history, len(history))
    state = game.new_initial_state()
    _GUARD.site = None
    for _, action in history:
        state.apply_action(action)
    return state


# ---- the guard: OpenSpiel unpickles a Python state's __dict__ line; a state of this game names no object ----------


class _Guard(threading.local):
    site: tuple[Any, int] | None = None
    """Where (code, instruction) the Python call that is making a new state of this game is, until the state is
    set up: a pickle that looks up an object from that same call is the ``__dict__=`` line of a deserialisation."""


_GUARD = _Guard()


def _site(frame: Any) -> tuple[Any, int]:
    return (None, -1) if frame is None else (frame.f_code, frame.f_lasti)


def _refuse_named_objects(event: str, args: tuple[Any, ...]) -> None:
    """An audit hook: refuse ``pickle.find_class`` (the step by which a pickle reaches code) while OpenSpiel
    deserialises a state of this game; a state's own ``__dict__`` line names no object. Inert otherwise."""
    if event != "pickle.find_class" or _GUARD.site is None:
        return
    if _site(sys._getframe().f_back) == _GUARD.site:
        _GUARD.site = None
        module, name = args
        raise ValueError(f"refused: a serialised {SHORT_NAME} state is its action history only, and this one's "
                         f"__dict__ line names the Python object {module}.{name}; nothing was unpickled")


sys.addaudithook(_refuse_named_objects)


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
        t = state._seating()
        self.tensor.fill(0.0)
        if self.n > 1 and not t.over():
            self.dict["to_move"][(t.seat - player) % self.n] = 1.0
        for i in range(self.n):
            O.encode(t.cards[(player + i) % self.n], out=self.dict["cards"][i])

    def string_from(self, state: YachtState, player: int) -> str:
        if self.history:
            return f"p{player} " + " ".join(map(str, state.history()))
        return f"p{player}\n{state}"


pyspiel.register_game(_game_type(1), YachtGame)
