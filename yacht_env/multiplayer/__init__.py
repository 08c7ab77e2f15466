"""Several players: Yacht or Yahtzee for 2 to 8 players, as game logic and as a PettingZoo AEC environment.

Each player fills their own scorecard with their own :class:`~yacht_env.state.GameState`. Turns rotate: player 0
plays a whole turn (up to three rolls, then a score), then player 1, and so on; the game ends when every scorecard
is full and the highest total wins. Players sharing the highest total share the win (a draw).

Who is to act follows from the states alone (:func:`seat_to_act`: the first seat with the fewest filled boxes), so
a position is just one ``GameState`` per seat. Dice come from one generator shared by the game, and each seat rolls
at the start of its own turn (:func:`deal_turn`, made by :func:`play` when a turn ends and by :func:`new_seating` for
seat 0): a seat between its turns holds no dice (:attr:`~yacht_env.state.GameState.awaits_roll`), so no player, and
no agent, can see a roll before it is made. A seat's state during its turn is a valid single-player state.

Agents written for the single-player environment play here unchanged: they act on their own state
(``env.unwrapped.state_of(agent)``) and its single-player observation (``env.unwrapped.single_observation(agent)``).

Observation of the multiplayer environment (float32, see :func:`layout`): the player's single-player observation
(:mod:`yacht_env.observation`, size S) followed by

| name                     | size | meaning                                                                        |
|--------------------------|------|--------------------------------------------------------------------------------|
| total                    | 1    | own total so far / 100                                                         |
| lead                     | 1    | (own total - best opponent total) / 100: negative when behind the leader      |
| rank                     | 1    | opponents with a strictly higher total / (N - 1); 0 = leading or tied for lead  |
| seat                     | N    | one-hot of the own seat (0 plays first in each round)                          |
| opponent_j_total         | 1    | for j = 1..N-1, the player j seats after the observer: their total / 100       |
| opponent_j_open          | C    | their open categories                                                          |
| opponent_j_upper_total   | 1    | (bonus rules only) their upper total capped at the threshold, / threshold      |
| opponent_j_yahtzee_box   | 3    | (bonus rules only) their Yahtzee box one-hot: open, holds 50, holds 0          |

Opponents are listed in the order they play after the observer, so the vector means the same from every seat.
"""

from __future__ import annotations

from yacht_env.multiplayer.env import HAS_PETTINGZOO, REWARD_MODES, env, raw_env
from yacht_env.multiplayer.seating import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    OUTCOME_NAMES,
    SCORE_SCALE,
    bounds,
    check_num_players,
    check_position,
    deal_turn,
    decode,
    encode,
    is_over,
    layout,
    max_total,
    new_seating,
    outcome,
    play,
    ranks,
    render_seating,
    seat_to_act,
    size,
    win_shares,
)

__all__ = ["HAS_PETTINGZOO", "MAX_PLAYERS", "MIN_PLAYERS", "OUTCOME_NAMES", "REWARD_MODES", "SCORE_SCALE", "bounds",
           "check_num_players", "check_position", "deal_turn", "decode", "encode", "env", "is_over", "layout",
           "max_total", "new_seating", "outcome", "play", "ranks", "raw_env", "render_seating", "seat_to_act", "size",
           "win_shares"]
