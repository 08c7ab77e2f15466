"""Several players: the game of 2 to 8 players as pure logic, and its observation (no PettingZoo).

See :mod:`yacht_env.multiplayer` for the rules of play, the dice and the observation layout.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

import numpy as np

from yacht_env import observation as O
from yacht_env.actions import NUM_KEEP_ACTIONS, action_mask, describe_action
from yacht_env.render import render_board
from yacht_env.rules import RuleSet, get_rules
from yacht_env.state import GameState, deal, end_turn, reroll_pattern, unrolled_game

MIN_PLAYERS = 2
MAX_PLAYERS = 8
SCORE_SCALE = 100.0
OUTCOME_NAMES = {1: "win", 0: "draw", -1: "loss"}


# ---- game logic -------------------------------------------------------------------------------------------------


def check_num_players(num_players: Any) -> int:
    """Return ``num_players`` as an int if it is an integer in 2..8, else raise ``ValueError``."""
    n = num_players
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)) or not MIN_PLAYERS <= n <= MAX_PLAYERS:
        raise ValueError(f"num_players must be an integer in {MIN_PLAYERS}..{MAX_PLAYERS}, got {num_players!r}")
    return int(n)


def max_total(rules: str | RuleSet) -> int:
    """An upper bound on a final score (exact for Yacht, 297, and Yahtzee, 1575), for observation bounds."""
    rs = get_rules(rules)
    best = np.maximum(rs.box_scores.max(axis=0), rs.joker_scores.max(axis=0))
    extra = rs.five_kind_bonus * (rs.num_categories - 1) if rs.five_kind_bonus else 0
    return int(best.sum()) + rs.upper_bonus + extra


def new_seating(rules: str | RuleSet, num_players: int, rng: np.random.Generator) -> tuple[GameState, ...]:
    """A new game for ``num_players``: empty scorecards, the first roll of seat 0 made, the other seats awaiting
    theirs (each is rolled when the seat's first turn begins, :func:`play`)."""
    rs = get_rules(rules)
    return deal_turn(tuple(unrolled_game(rs) for _ in range(check_num_players(num_players))), rng)


def seat_to_act(states: Sequence[GameState]) -> int | None:
    """The seat to act: the first seat with the fewest filled boxes; ``None`` once every scorecard is full."""
    turns = [s.turn for s in states]
    seat = turns.index(min(turns))
    return None if states[seat].is_over else seat


def is_over(states: Sequence[GameState]) -> bool:
    return all(s.is_over for s in states)


def deal_turn(states: Sequence[GameState], rng: np.random.Generator) -> tuple[GameState, ...]:
    """``states`` with the first roll of the seat to act made from ``rng`` if its turn has not begun (it awaits its
    roll); as they are otherwise. The one place where a seat's turn begins: a seat rolls at the start of its own
    turn, so no seat holds dice it has not played yet."""
    seat = seat_to_act(states)
    if seat is None or not states[seat].awaits_roll:
        return tuple(states)
    return tuple(states[:seat]) + (deal(states[seat], rng),) + tuple(states[seat + 1:])


def check_position(states: Sequence[GameState]) -> None:
    """``ValueError`` unless ``states`` is a position of the game: every seat that is neither to act nor finished is
    between its turns, with no dice (``dice -`` in the notation; its roll is made when its turn begins)."""
    seat = seat_to_act(states)
    for i, s in enumerate(states):
        if i != seat and not s.is_over and not s.awaits_roll:
            raise ValueError(f"seat {i} is between its turns (seat {seat} is to act) but holds dice "
                             f"{list(s.dice)}: a seat rolls at the start of its own turn, so give it no dice "
                             "('dice -', rolls 3)")


def play(states: Sequence[GameState], action: int, rng: np.random.Generator, unique_keeps: bool = True,
         check: bool = True) -> tuple[tuple[GameState, ...], int, int]:
    """Apply ``action`` (of the ``Discrete(32 + C)`` space) for the seat to act.

    A score ends the seat's turn (:func:`~yacht_env.state.end_turn`) and the next seat to act rolls its first roll
    from ``rng`` (:func:`deal_turn`): with one seat, the draw :func:`~yacht_env.state.score_category` makes, so a
    one-seat game is the single-player game, roll for roll.

    Returns the new states, the seat that acted and the points its action added (0 for a keep). Raises
    ``ValueError`` if the game is over or (with ``check``) the action is illegal for that seat."""
    seat = seat_to_act(states)
    if seat is None:
        raise ValueError("the game is over: every scorecard is full")
    st = states[seat]
    if check and not action_mask(st, unique_keeps)[action]:
        raise ValueError(f"action {action} ({describe_action(action, st)}) is illegal for seat {seat} in {st}")
    if action < NUM_KEEP_ACTIONS:
        new, pts = reroll_pattern(st, action, rng), 0
    else:
        new, pts = end_turn(st, action - NUM_KEEP_ACTIONS)
    after = tuple(states[:seat]) + (new,) + tuple(states[seat + 1:])
    return (after if action < NUM_KEEP_ACTIONS else deal_turn(after, rng)), seat, pts


def outcome(totals: Sequence[int]) -> list[int]:
    """Result of each seat: +1 for the sole highest total, 0 for each of several sharing the highest total (a draw,
    however many share it, all players included), -1 for everyone below the highest total."""
    top = max(totals)
    sharing = sum(t == top for t in totals)
    return [(1 if sharing == 1 else 0) if t == top else -1 for t in totals]


def win_shares(totals: Sequence[int]) -> list[float]:
    """Share of the win of each seat: 1/k for each of the k seats with the highest total, 0 for the others.

    With two players a tie counts half for each, the usual way to count a win rate."""
    top = max(totals)
    sharing = sum(t == top for t in totals)
    return [1.0 / sharing if t == top else 0.0 for t in totals]


def ranks(totals: Sequence[int]) -> list[int]:
    """Standard competition rank of each seat: 1 + the number of seats with a strictly higher total."""
    return [1 + sum(u > t for u in totals) for t in totals]


# ---- observation --------------------------------------------------------------------------------------------------


def layout(rules: str | RuleSet, num_players: int) -> dict[str, slice]:
    """Named slices of the multiplayer observation: the single-player slices, then those of the module table."""
    return dict(_layout(get_rules(rules), check_num_players(num_players)))


@cache
def _layout(rs: RuleSet, n: int) -> dict[str, slice]:
    """:func:`layout`, computed once per rule set and number of players (callers must not change it: every observation
    reads it, the heads-up self-play env's each step)."""
    c = rs.num_categories
    out = dict(O.layout(rs))
    sizes: list[tuple[str, int]] = [("total", 1), ("lead", 1), ("rank", 1), ("seat", n)]
    for j in range(1, n):
        sizes += [(f"opponent_{j}_total", 1), (f"opponent_{j}_open", c)]
        if rs.has_upper_bonus:
            sizes += [(f"opponent_{j}_upper_total", 1)]
        if rs.has_five_kind_box:
            sizes += [(f"opponent_{j}_yahtzee_box", 3)]
    i = O.size(rs)
    for name, k in sizes:
        out[name] = slice(i, i + k)
        i += k
    return out


def size(rules: str | RuleSet, num_players: int) -> int:
    """Columns of the multiplayer observation."""
    return max(s.stop for s in _layout(get_rules(rules), check_num_players(num_players)).values())


def bounds(rules: str | RuleSet, num_players: int) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper bounds of the multiplayer observation."""
    rs = get_rules(rules)
    lay = layout(rs, num_players)
    n = size(rs, num_players)
    low = np.zeros(n, dtype=np.float32)
    high = np.ones(n, dtype=np.float32)
    high[: O.size(rs)] = O.high(rs)
    top = max_total(rs) / SCORE_SCALE
    for name in ["total"] + [f"opponent_{j}_total" for j in range(1, num_players)]:
        high[lay[name]] = top
    low[lay["lead"]] = -top
    high[lay["lead"]] = top
    return low, high


def encode(states: Sequence[GameState], seat: int) -> np.ndarray:
    """The multiplayer observation of the player in ``seat``."""
    st = states[seat]
    rs = st.ruleset
    n = len(states)
    lay = _layout(rs, n)
    obs = np.zeros(max(s.stop for s in lay.values()), dtype=np.float32)
    O.encode(st, obs[: O.size(rs)])
    totals = [s.total for s in states]
    own = totals[seat]
    others = [totals[(seat + j) % n] for j in range(1, n)]
    obs[lay["total"].start] = own / SCORE_SCALE
    obs[lay["lead"].start] = (own - max(others)) / SCORE_SCALE
    obs[lay["rank"].start] = sum(t > own for t in others) / (n - 1)
    obs[lay["seat"].start + seat] = 1.0
    for j in range(1, n):
        opp = states[(seat + j) % n]
        obs[lay[f"opponent_{j}_total"].start] = opp.total / SCORE_SCALE
        o = lay[f"opponent_{j}_open"].start
        for k, s in enumerate(opp.scores):
            if s is None:
                obs[o + k] = 1.0
        if rs.has_upper_bonus:
            thr = rs.upper_bonus_threshold
            obs[lay[f"opponent_{j}_upper_total"].start] = min(opp.upper_total, thr) / thr
        if rs.has_five_kind_box:
            box = opp.yahtzee_box
            obs[lay[f"opponent_{j}_yahtzee_box"].start + (0 if box is None else 1 if box > 0 else 2)] = 1.0
    return obs


def decode(obs: np.ndarray, rules: str | RuleSet, num_players: int) -> dict[str, Any]:
    """Readable fields of a multiplayer observation: those of :func:`yacht_env.observation.decode`, then total,
    lead, rank (opponents strictly ahead), seat, and per opponent (in playing order) total, open categories and,
    for bonus rules, capped upper total and Yahtzee box."""
    rs = get_rules(rules)
    n = check_num_players(num_players)
    obs = np.asarray(obs, dtype=np.float64)
    if obs.shape != (size(rs, n),):
        raise ValueError(f"observation for rules {rs.name!r} and {n} players must have shape ({size(rs, n)},), "
                         f"got {obs.shape}")
    lay = layout(rs, n)
    out = O.decode(obs[: O.size(rs)], rs)
    out["total"] = round(obs[lay["total"].start] * SCORE_SCALE)
    out["lead"] = round(obs[lay["lead"].start] * SCORE_SCALE)
    out["rank"] = round(obs[lay["rank"].start] * (n - 1))
    out["seat"] = int(obs[lay["seat"]].argmax())
    opponents = []
    for j in range(1, n):
        d: dict[str, Any] = {
            "total": round(obs[lay[f"opponent_{j}_total"].start] * SCORE_SCALE),
            "open": [c for c, v in zip(rs.category_ids, obs[lay[f"opponent_{j}_open"]]) if v > 0.5],
        }
        if rs.has_upper_bonus:
            d["upper_total_capped"] = round(obs[lay[f"opponent_{j}_upper_total"].start] * rs.upper_bonus_threshold)
        if rs.has_five_kind_box:
            d["yahtzee_box"] = [None, rs.five_kind_box_score, 0][int(obs[lay[f"opponent_{j}_yahtzee_box"]].argmax())]
        opponents.append(d)
    out["opponents"] = opponents
    return out


# ---- rendering ----------------------------------------------------------------------------------------------------


def render_seating(states: Sequence[GameState], names: Sequence[str] | None = None, lang: str = "en") -> str:
    """All scorecards side by side, with the dice of the player to act (marked ``*``) or the result at the end
    (:func:`yacht_env.render.render_board`)."""
    return render_board(states, names, lang, seat=seat_to_act(states))
