"""Several players: Yacht or Yahtzee for 2 to 8 players, as game logic and as a PettingZoo AEC environment.

Each player fills their own scorecard with their own :class:`~yacht_env.state.GameState`. Turns rotate: player 0
plays a whole turn (up to three rolls, then a score), then player 1, and so on; the game ends when every scorecard
is full and the highest total wins. Players sharing the highest total share the win (a draw).

Who is to act follows from the states alone (:func:`seat_to_act`: the first seat with the fewest filled boxes), so
a position is just one ``GameState`` per seat. Dice come from one generator shared by the table. A player's dice
for a turn are rolled when their previous turn ends (:func:`~yacht_env.state.score_category` rolls them), and at
the start of the game every seat rolls in seat order; no one sees another player's dice, so this is the same game
as rolling at the start of the turn, and every player's state is at every moment a valid single-player state.

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

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding

from yacht_env import observation as O
from yacht_env.actions import NUM_KEEP_ACTIONS, action_mask, describe_action, num_actions
from yacht_env.env import check_action, scorecard
from yacht_env.i18n import category_name, check_lang, text
from yacht_env.render import render_dice
from yacht_env.rules import NUM_UPPER, RuleSet, get_rules
from yacht_env.state import GameState, new_game, parse, reroll_pattern, score_category

try:  # PettingZoo is the optional ``multiplayer`` extra; the game logic above the environment works without it
    from pettingzoo import AECEnv
    from pettingzoo.utils.wrappers import OrderEnforcingWrapper, TerminateIllegalWrapper

    HAS_PETTINGZOO = True
except ModuleNotFoundError:  # pragma: no cover - exercised only without the extra
    AECEnv = object  # type: ignore[assignment,misc]
    HAS_PETTINGZOO = False

MIN_PLAYERS = 2
MAX_PLAYERS = 8
SCORE_SCALE = 100.0
REWARD_MODES = ("points", "win")
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
    best = np.maximum(rs.score_table.max(axis=0), rs.joker_table.max(axis=0))
    extra = rs.five_kind_bonus * (rs.num_categories - 1) if rs.five_kind_bonus else 0
    return int(best.sum()) + rs.upper_bonus + extra


def new_table(rules: str | RuleSet, num_players: int, rng: np.random.Generator) -> tuple[GameState, ...]:
    """A new game for ``num_players``: empty scorecards, each seat's first roll made, in seat order."""
    rs = get_rules(rules)
    return tuple(new_game(rs, rng) for _ in range(check_num_players(num_players)))


def seat_to_act(states: Sequence[GameState]) -> int | None:
    """The seat to act: the first seat with the fewest filled boxes; ``None`` once every scorecard is full."""
    turns = [s.turn for s in states]
    seat = min(range(len(states)), key=lambda i: (turns[i], i))
    return None if states[seat].is_over else seat


def is_over(states: Sequence[GameState]) -> bool:
    return all(s.is_over for s in states)


def play(states: Sequence[GameState], action: int, rng: np.random.Generator, unique_keeps: bool = True,
         check: bool = True) -> tuple[tuple[GameState, ...], int, int]:
    """Apply ``action`` (of the ``Discrete(32 + C)`` space) for the seat to act.

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
        new, pts = score_category(st, action - NUM_KEEP_ACTIONS, rng)
    return tuple(states[:seat]) + (new,) + tuple(states[seat + 1:]), seat, pts


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
    rs = get_rules(rules)
    n = check_num_players(num_players)
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
    return max(s.stop for s in layout(rules, num_players).values())


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
    lay = layout(rs, n)
    obs = np.zeros(size(rs, n), dtype=np.float32)
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
            d["yahtzee_box"] = [None, 50, 0][int(obs[lay[f"opponent_{j}_yahtzee_box"]].argmax())]
        opponents.append(d)
    out["opponents"] = opponents
    return out


# ---- rendering ----------------------------------------------------------------------------------------------------


def render_table(states: Sequence[GameState], names: Sequence[str] | None = None, lang: str = "en") -> str:
    """All scorecards side by side, with the dice of the player to act (marked ``*``) or the result at the end."""
    rs = states[0].ruleset
    n = len(states)
    names = list(names) if names is not None else [f"player_{i}" for i in range(n)]
    seat = seat_to_act(states)
    heads = [("*" if i == seat else "") + names[i] for i in range(n)]
    width = max(6, *(len(h) + 2 for h in heads))
    labels = [category_name(c, lang, rs.name) for c in rs.category_ids]
    lw = max(len(x) for x in labels + [text("total", lang), text("upper_total", lang), text("yahtzee_bonus", lang)])
    lw += 2

    def row(label: str, values: Sequence[Any]) -> str:
        return f"  {label:<{lw}}" + "".join(f"{str(v):>{width}}" for v in values)

    lines = [row("", heads)]
    for k, label in enumerate(labels):
        lines.append(row(label, ["-" if s.scores[k] is None else s.scores[k] for s in states]))
        if k == NUM_UPPER - 1 and rs.has_upper_bonus:
            lines.append(row(text("upper_total", lang), [s.upper_total for s in states]))
            lines.append(row(text("upper_bonus", lang), [s.upper_bonus for s in states]))
    if rs.five_kind_bonus:
        lines.append(row(text("yahtzee_bonus", lang), [s.bonus_count * rs.five_kind_bonus for s in states]))
    totals = [s.total for s in states]
    lines.append(row(text("total", lang), totals))
    if seat is None:
        res = outcome(totals)
        best = [names[i] for i in range(n) if res[i] >= 0]
        verdict = ("winner: " if len(best) == 1 else "draw: ") + ", ".join(best) + f" ({max(totals)})"
        head = f"{rs.title} - {n} players - {text('game_over', lang)} - {verdict}"
    else:
        st = states[seat]
        head = (f"{rs.title} - {n} players - {text('turn', lang)} {st.turn + 1}/{rs.num_categories} - "
                f"{names[seat]}   {text('dice', lang)}: {render_dice(st)}   {text('rolls_left', lang)}: "
                f"{st.rolls_left}")
    return head + "\n" + "\n".join(lines)


# ---- the PettingZoo environment ---------------------------------------------------------------------------------


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
    - ``rules``: a rule set name of :data:`yacht_env.rules.RULESETS` (``docs/rules.md``).
    - ``reward``: ``"points"`` or ``"win"``.
    - ``render_mode``: ``None``, ``"ansi"`` or ``"human"``: every scorecard side by side.
    - ``unique_keeps``: one keep action per distinct kept multiset (default True), as in the single environment.
    - ``lang``: language of the rendering.

    An illegal action raises ``ValueError`` naming the action and the agent; :func:`env` with ``illegal_reward``
    uses PettingZoo's ``TerminateIllegalWrapper`` instead.

    ``reset(seed=..., options={"states": [GameState or notation, ...]})`` starts from a given position: one state
    per seat, the seat to act being the first with the fewest filled boxes (unknown option keys are ignored).

    ## Version History
    - v0: initial version.
    """

    metadata = {"render_modes": ["ansi", "human"], "name": "yacht_multiplayer_v0", "is_parallelizable": False,
                "render_fps": 1}

    def __init__(self, num_players: int = 2, rules: str = "yacht", reward: str = "points",
                 render_mode: str | None = None, unique_keeps: bool = True, lang: str = "en") -> None:
        if not HAS_PETTINGZOO:  # pragma: no cover
            raise ModuleNotFoundError("the multiplayer environment needs PettingZoo: "
                                      "pip install 'yacht-env[multiplayer]'")
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
        if seed is not None or self._rng is None:
            self._rng, _ = seeding.np_random(seed)
        start = (options or {}).get("states")
        self._states = new_table(self.rules, self.num_players, self._rng) if start is None else self._position(start)
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
        return states

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.agent_name_mapping[agent]
        mask = np.zeros(self.action_spaces[agent].n, dtype=np.int8)
        if agent == self.agent_selection and seat == seat_to_act(self._states):
            mask[:] = action_mask(self._states[seat], self.unique_keeps)
        return {"observation": encode(self._states, seat), "action_mask": mask}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        a = check_action(action, int(self.action_spaces[agent].n))
        seat = self.agent_name_mapping[agent]
        st = self._states[seat]
        if not action_mask(st, self.unique_keeps)[a]:
            raise ValueError(f"{agent}: action {a} ({describe_action(a, st)}) is illegal: "
                             f"{self._illegal_reason(st, a)}")
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

    def _illegal_reason(self, st: GameState, a: int) -> str:
        if a < NUM_KEEP_ACTIONS:
            if st.rolls_left == 0:
                return "no rolls left this turn; score a category"
            if a == NUM_KEEP_ACTIONS - 1:
                return "keeping all five dice wastes a roll; score a category instead"
            return "another keep action keeps the same dice (unique_keeps=True)"
        k = a - NUM_KEEP_ACTIONS
        cid = self.rules.category_ids[k]
        if st.scores[k] is not None:
            return f"category {cid!r} is already filled"
        allowed = ", ".join(self.rules.category_ids[i] for i in st.legal_categories())
        return f"the Joker rule forbids {cid!r} with this Yahtzee; allowed: {allowed}"

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi' or 'human'")
            return None
        if not self._states:
            return None
        out = render_table(self._states, self.possible_agents, self.lang)
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
    made it (PettingZoo's ``TerminateIllegalWrapper``) instead of raising ``ValueError``."""
    e: AECEnv = raw_env(num_players=num_players, rules=rules, reward=reward, render_mode=render_mode, **kwargs)
    if illegal_reward is not None:
        e = TerminateIllegalWrapper(e, illegal_reward=float(illegal_reward))
    return OrderEnforcingWrapper(e)


__all__ = ["MAX_PLAYERS", "MIN_PLAYERS", "REWARD_MODES", "SCORE_SCALE", "bounds", "check_num_players", "decode",
           "encode", "env", "is_over", "layout", "max_total", "new_table", "outcome", "play", "ranks", "raw_env",
           "render_table", "seat_to_act", "size", "win_shares"]
