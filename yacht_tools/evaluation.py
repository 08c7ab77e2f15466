"""Evaluate any policy: play seeded games, then summarise the scores against optimal play, with the regret broken
down where the points go.

Seeds. Game ``j`` of an evaluation with seed ``s`` is the game ``YachtEnv.reset(seed=game_seed(s, j))`` plays
(:mod:`yacht_tools.seeds`), so any game can be replayed in the environment with the same actions. Every agent sees
the same seed for game ``j`` (common random numbers), and the agent itself is reseeded with ``s`` before the first
game: an evaluation is deterministic for a seed (and a batch size, for agents that draw random numbers).

Engines. ``vector`` plays the games on the vectorised engine (:class:`yacht_env.vector.YachtVectorEnv`,
bit-identical to the single environment), asking the agent once per step for all the games of a batch that are
still running; the solver's action values of those positions, for the regret, are computed over the whole batch in
compiled code (:func:`yacht_tools.regret.search_values`). ``python`` plays them through the pure transitions of
:mod:`yacht_env.state` in lockstep (:mod:`yacht_tools.games`), asking the solver state by state: the readable
reference the tests hold the vector engine to. ``auto`` (default) takes the vector engine unless the agent needs
:class:`~yacht_env.state.GameState` objects. Both give the same games for the same seeds; only an agent's own random
draws may differ, as the engines batch the games differently.

What comes back (:func:`evaluate`): the statistics of :func:`summarise`, the regret fields of
:class:`~yacht_tools.regret.RegretTally` when the solver covers the rules, and (``compare``) the optimal player's
mean and bonus rates on the same seeds. ``elapsed_s`` leaves out the time numba spent compiling.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from yacht_agents.base import Agent
from yacht_agents.loader import as_agent, check_seats
from yacht_agents.optimal import OptimalAgent
from yacht_agents.search import TurnKeys
from yacht_env.jit.stopwatch import Stopwatch
from yacht_env.memory import available_bytes
from yacht_env.rules import RuleSet, get_rules
from yacht_env.state import GameState, new_game
from yacht_env.vector import YachtVectorEnv
from yacht_solver import Solution, solution_or_none
from yacht_tools.games import Seating, play_seatings
from yacht_tools.messages import shown
from yacht_tools.progress import progress_bar
from yacht_tools.regret import RegretTally, regrets, search_values
from yacht_tools.seeds import check_episodes, check_seed, game_seeds
from yacht_tools.stats import mean_interval

ENGINES = ("auto", "python", "vector")
DEFAULT_BATCH = 4096
MAX_EPISODES = 100_000_000
"""The most games one evaluation plays: the per-game results are kept in memory (and in the JSON)."""


# ---- finished games ----------------------------------------------------------------------------------------------


class Finals:
    """The final scorecards of ``n`` games, filled in as they end, in the narrowest types that hold them (a total is
    at most 1,575, a box 50): :func:`finals_bytes` a game."""

    def __init__(self, rules: RuleSet, n: int) -> None:
        self.rules = rules
        self.totals = np.zeros(n, dtype=np.int32)
        self.boxes = np.zeros((n, rules.num_categories), dtype=np.int16)
        self.upper_bonus = np.zeros(n, dtype=np.bool_)
        self.bonus_count = np.zeros(n, dtype=np.int16)

    def add_state(self, j: int, state: GameState) -> None:
        self.totals[j] = state.total
        self.boxes[j] = state.scores
        self.upper_bonus[j] = state.upper_bonus > 0
        self.bonus_count[j] = state.bonus_count


def finals_bytes(rules: RuleSet) -> int:
    """Bytes :class:`Finals` keeps per game."""
    return 4 + 2 * rules.num_categories + 1 + 2


SUMMARY_BYTES_PER_GAME = 8 + 8 + 8 + 32
"""What :func:`summarise` holds per game at its peak: the totals as float64, the copy its median sorts, and the list
``scores`` (a pointer and, for a score above 256, an int object)."""
JSON_BYTES_PER_GAME = 8
"""What writing the per-game scores as JSON adds per game (the text, a few digits and a comma each)."""


def evaluation_bytes(rules: str | RuleSet, episodes: int, *, regret: bool = True, compare: bool = False,
                     json_out: bool = False) -> int:
    """The memory an evaluation of ``episodes`` games keeps at its peak for its per-game results (final scorecards,
    the regret of each game, the statistics and the list of scores, twice with the optimal player's games beside
    ``compare``): the figure :func:`check_evaluation_memory` holds against the memory available. The games
    themselves are played in batches of :data:`DEFAULT_BATCH`: a few MB, whatever ``episodes``."""
    rs = get_rules(rules)
    per_game = finals_bytes(rs) + SUMMARY_BYTES_PER_GAME + 8 * bool(regret) + JSON_BYTES_PER_GAME * bool(json_out)
    if compare:
        per_game += finals_bytes(rs) + SUMMARY_BYTES_PER_GAME
    return int(episodes) * per_game


def check_evaluation_memory(rules: str | RuleSet, episodes: int, **kwargs: bool) -> None:
    """``ValueError`` up front, saying the memory it would need, if an evaluation of ``episodes`` games would keep
    more per-game results than the memory available (:func:`evaluation_bytes`; ``kwargs`` as there): a run of
    100,000,000 games must not be killed for memory half way."""
    need, free = evaluation_bytes(rules, episodes, **kwargs), available_bytes()
    if free is not None and need > free:
        raise ValueError(f"{episodes:,} games would keep up to {need / 1e9:.1f} GB of per-game results in memory, "
                         f"more than the {free / 1e9:.1f} GB available: evaluate fewer games (several runs with "
                         "other seeds add up)")


def five_kind_categories(rules: RuleSet) -> list[int]:
    """The boxes of five of a kind (Yacht's Yacht, Yahtzee's Yahtzee)."""
    return [k for k, c in enumerate(rules.categories) if c.kind == "five_kind"]


def summarise(rules: str | RuleSet, totals: np.ndarray, boxes: np.ndarray, upper_bonus: np.ndarray,
              bonus_count: np.ndarray, optimal_value: float | None = None) -> dict[str, Any]:
    """Statistics of finished games: ``totals`` (n,), ``boxes`` (n, C) box scores, ``upper_bonus`` (n,) bool,
    ``bonus_count`` (n,) Yahtzee bonuses. Engine-independent."""
    rs = get_rules(rules)
    totals = np.asarray(totals, dtype=np.float64)
    mean, std, lo, hi = mean_interval(totals)
    out: dict[str, Any] = {
        "rules": rs.name,
        "episodes": int(totals.size),
        "mean": mean,
        "std": std,
        "ci95": [lo, hi],
        "median": float(np.median(totals)),
        "min": int(totals.min()),
        "max": int(totals.max()),
        "optimal_value": optimal_value,
        "percent_of_optimal": None if not optimal_value else 100.0 * mean / optimal_value,
    }
    boxes = np.asarray(boxes)
    out["categories"] = {
        cid: {"name": rs.categories[k].name, "mean": float(boxes[:, k].mean()),
              "hit_rate": float((boxes[:, k] != 0).mean())}
        for k, cid in enumerate(rs.category_ids)
    }
    if rs.has_upper_bonus:
        out["upper_bonus_rate"] = float(np.mean(upper_bonus))
    five = five_kind_categories(rs)
    if five:
        out["five_of_a_kind_rate"] = float((boxes[:, five] > 0).any(axis=1).mean())
    if rs.five_kind_bonus:
        bc = np.asarray(bonus_count)
        out["yahtzee_bonus_rate"] = float((bc > 0).mean())
        out["yahtzee_bonus_mean"] = float(bc.mean())
    out["scores"] = [int(t) for t in totals]
    return out


# ---- the vector engine -------------------------------------------------------------------------------------------


def _keys(pos: dict[str, np.ndarray], idx: np.ndarray, sol: Solution) -> TurnKeys:
    lay = sol.layout
    u = np.minimum(pos["upper"][idx], lay.threshold) if lay.threshold else np.zeros(idx.size, dtype=np.int64)
    y = lay.five_kind_flags(pos["five_box"][idx])
    return TurnKeys(pos["filled"][idx], u, y, pos["hand"][idx], pos["rolls"][idx])


def play_vector(agent: Agent, rules: RuleSet, seed: int, n: int, *, tally: RegretTally | None = None,
                solution: Solution | None = None, batch_size: int = DEFAULT_BATCH, progress: Any = None) -> Finals:
    """Play games ``0..n-1`` of the evaluation seeded ``seed`` on the vector engine (see the module docstring);
    with ``tally``, the regret of every decision against ``solution``."""
    finals = Finals(rules, n)
    flat = None if solution is None else np.ascontiguousarray(solution.values, dtype=np.float64).reshape(-1)
    own = isinstance(agent, OptimalAgent) and solution is not None and agent.solution is solution
    ids = rules.category_ids
    for start in range(0, n, batch_size):
        b = min(batch_size, n - start)
        envs = YachtVectorEnv(b, rules=rules, autoreset_mode="same_step")
        obs, _ = envs.reset(seed=game_seeds(seed, start, start + b))
        live = np.ones(b, dtype=np.bool_)
        while live.any():
            masks = envs.action_masks()
            idx = np.flatnonzero(live)
            q = best = pos = None
            if flat is not None and (tally is not None or own):
                pos = envs.positions()
                q, best = search_values(rules, flat, _keys(pos, idx, solution))
            if own:
                acts = best
            else:
                states = [envs.state(int(i)) for i in idx] if agent.needs_state else None
                acts = np.asarray(agent.act_batch(obs[idx], masks[idx], states))
            if acts.shape != (idx.size,):
                raise ValueError(f"agent {agent.name!r} returned {acts.shape} actions for {idx.size} games")
            acts = acts.astype(np.int64)
            ok = (acts >= 0) & (acts < masks.shape[1])
            legal = ok & masks[idx, np.where(ok, acts, 0)]
            if not legal.all():
                k = int(np.flatnonzero(~legal)[0])
                raise ValueError(f"agent {agent.name!r} played illegal action {int(acts[k])} in state "
                                 f"{envs.state(int(idx[k]))}")
            if tally is not None and q is not None and pos is not None:
                filled = pos["filled"][idx]
                turns = ((filled[:, None] >> np.arange(rules.num_categories)) & 1).sum(axis=1)
                tally.add(start + idx, turns, pos["rolls"][idx], acts, regrets(q, acts))
            full = masks.argmax(axis=1).astype(np.int64)  # finished slots play their autoreset game, ignored
            full[idx] = acts
            obs, _, term, _, info = envs.step(full)
            ended = np.flatnonzero(term & live)
            if ended.size:
                card = info["final_info"]["scorecard"]
                j = start + ended
                finals.totals[j] = card["total"][ended]
                finals.boxes[j] = np.stack([card[c][ended] for c in ids], axis=1)
                finals.upper_bonus[j] = card["upper_bonus"][ended] > 0
                if rules.five_kind_bonus:
                    finals.bonus_count[j] = card["yahtzee_bonus"][ended] // rules.five_kind_bonus
                live[ended] = False
                if progress is not None:
                    progress.update(int(ended.size))
        envs.close()
    return finals


# ---- the reference: pure transitions in lockstep ------------------------------------------------------------------


def play_games(agent: Agent, rules: str | RuleSet, seeds: Sequence[int], *, on_decision: Any = None,
               batch_size: int = 256, progress: Any = None) -> list[GameState]:
    """Play one game per seed with ``agent`` through the pure transitions (:mod:`yacht_tools.games`); return the
    final states, in the order of ``seeds``. ``on_decision(game, state, action)`` sees every decision."""
    rs = get_rules(rules)
    if agent.rules.name != rs.name:
        raise ValueError(f"agent {agent.name!r} plays rules {agent.rules.name!r}, not {rs.name!r}")
    finals: list[GameState] = []
    for lo in range(0, len(seeds), batch_size):
        rngs = [np.random.default_rng(s) for s in seeds[lo:lo + batch_size]]
        seatings = [Seating((new_game(rs, r),), r) for r in rngs]
        hook = None if on_decision is None else (lambda i, seat, st, a, lo=lo: on_decision(lo + i, st, a))
        play_seatings(seatings, lambda i, seat: agent, on_decision=hook,
                      on_over=None if progress is None else (lambda i: progress.update(1)))
        finals.extend(t.states[0] for t in seatings)
    return finals


class RegretMeter:
    """The regret of every decision of the reference path, from ``action_values(state)`` (NaN where illegal)."""

    def __init__(self, action_values: Any, tally: RegretTally) -> None:
        self.action_values = action_values
        self.tally = tally
        self.rows: list[tuple[int, int, int, int, float]] = []

    def __call__(self, game: int, state: GameState, action: int) -> None:
        q = np.asarray(self.action_values(state), dtype=np.float64)
        r = float(regrets(q[None], np.array([action]))[0])
        self.rows.append((game, state.turn, state.rolls_left, action, r))

    def flush(self) -> None:
        if self.rows:
            g, t, r, a, x = (np.array(col) for col in zip(*self.rows))
            self.tally.add(g, t, r, a, x)
            self.rows = []


def play_python(agent: Agent, rules: RuleSet, seed: int, n: int, *, tally: RegretTally | None = None,
                solution: Any = None, batch_size: int = 256, progress: Any = None) -> Finals:
    """:func:`play_vector` through the reference path."""
    meter = None
    if tally is not None and solution is not None:
        meter = RegretMeter(lambda s: solution.action_values(s, unique_keeps=True), tally)
    states = play_games(agent, rules, game_seeds(seed, 0, n), on_decision=meter,
                        batch_size=batch_size, progress=progress)
    if meter is not None:
        meter.flush()
    finals = Finals(rules, n)
    for j, st in enumerate(states):
        finals.add_state(j, st)
    return finals


# ---- evaluate ---------------------------------------------------------------------------------------------------


def optimal_solution(rules: RuleSet, agent: Agent | None = None) -> Solution | None:
    """The solver's solution for ``rules`` (the agent's own if it has one), or None if the solver does not cover
    them."""
    own = getattr(agent, "solution", None)
    return own if own is not None else solution_or_none(rules)


def evaluate(agent: Any, rules: str | RuleSet, episodes: int, seed: int = 0, *, regret: bool = True,
             progress: bool = False, solution: Any = None, batch_size: int | None = None, engine: str = "auto",
             compare: bool | None = None, agent_seed: int | None = None) -> dict[str, Any]:
    """Play ``episodes`` seeded games with ``agent`` and return their statistics against optimal play.

    ``agent``: an :class:`~yacht_agents.base.Agent`, a :func:`~yacht_agents.loader.load_agent` spec, a
    stable-baselines3 model, or a batch callable ``policy(obs (N, D), masks (N, A)) -> actions (N,)``
    (:func:`~yacht_agents.loader.as_agent`). ``regret``: measure the regret of every decision against the solver
    (where it covers the rules). ``solution``: the solver's solution to compare against (default: solved or loaded
    from the solver's cache). ``engine``: see the module docstring. ``compare`` (default: with ``regret``): also
    play the optimal agent on the same seeds and report its mean and bonus rates beside the agent's.
    ``agent_seed`` (default: ``seed``): the seed of the agent's own random draws, for several draws of one agent
    on the same games.
    """
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; accepted: {', '.join(ENGINES)}")
    check_seats(agent, 1)  # optimal-duel refused before its table is loaded or solved
    rs = get_rules(rules)
    n = check_episodes(episodes)
    if n > MAX_EPISODES:
        raise ValueError(f"episodes must be at most {MAX_EPISODES:,} (the per-game results are kept in memory), "
                         f"got {n:,}")
    seed = check_seed(seed)
    if batch_size is not None and (not isinstance(batch_size, int) or batch_size < 1):
        raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}")
    check_evaluation_memory(rs, n, regret=regret, compare=regret if compare is None else compare)
    agent = as_agent(agent, rs, seed if agent_seed is None else check_seed(agent_seed))
    sol = solution if solution is not None else optimal_solution(rs, agent)
    searchable = sol is not None and hasattr(sol, "values")
    if engine == "auto":
        engine = "python" if agent.needs_state or (regret and sol is not None and not searchable) else "vector"
    if engine == "vector" and regret and sol is not None and not searchable:
        raise ValueError("the vector engine measures regret from the solver's value table: this solution has none; "
                         "use engine='python'")
    tally = RegretTally(rs, n) if regret and sol is not None else None
    play = play_vector if engine == "vector" else play_python
    with progress_bar(n, f"{shown(agent.name)} on {rs.name}", "game", enabled=progress) as bar, \
            Stopwatch() as sw:
        finals = play(agent, rs, seed, n, tally=tally, solution=sol, progress=bar,
                      batch_size=batch_size or (DEFAULT_BATCH if engine == "vector" else 256))
    result: dict[str, Any] = {"agent": agent.name, "seed": seed, "engine": engine}
    result.update(summarise(rs, finals.totals, finals.boxes, finals.upper_bonus, finals.bonus_count,
                            optimal_value=None if sol is None else float(sol.start_value)))
    if tally is not None:
        result.update(tally.summary())
    result["elapsed_s"] = sw.seconds
    if compare is None:
        compare = regret
    if compare and searchable:
        result["optimal_same_seeds"] = optimal_same_seeds(rs, n, seed, sol, agent, result, finals)
    return result


def optimal_same_seeds(rules: RuleSet, n: int, seed: int, sol: Solution, agent: Agent, result: dict[str, Any],
                       finals: Finals) -> dict[str, Any]:
    """The optimal player's mean and bonus rates on the seeds of an evaluation (the agent's own games when the
    agent is the optimal one)."""
    if not (isinstance(agent, OptimalAgent) and agent.solution is sol):
        finals = play_vector(OptimalAgent(rules, solution=sol), rules, seed, n, solution=sol)
    s = summarise(rules, finals.totals, finals.boxes, finals.upper_bonus, finals.bonus_count, sol.start_value)
    keys = ("mean", "upper_bonus_rate", "five_of_a_kind_rate", "yahtzee_bonus_rate", "yahtzee_bonus_mean")
    out = {k: s[k] for k in keys if k in s}
    out["scores"] = s["scores"]
    return out
