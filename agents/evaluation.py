"""Evaluate an agent: play seeded games, then summarise the scores against optimal play.

Seeds. Game ``j`` of an evaluation with seed ``s`` draws its dice from ``np.random.default_rng(game_seed(s, j))``
with ``game_seed(s, j)`` the first 64-bit word of ``np.random.SeedSequence(s, spawn_key=(j,))``. That is exactly
the generator ``YachtEnv.reset(seed=game_seed(s, j))`` installs, so any game can be replayed in the environment
with the same actions and gets the same dice. Every agent sees the same seed for game ``j`` (common random
numbers), and the agent itself is reseeded with ``s`` before the first game: an evaluation is deterministic for a
seed (and a batch size, for agents that draw random numbers).

Engines. :func:`play_games` plays the games through the transitions of :mod:`yacht_env.state` (what the single
environment does, minus the observation encoding for agents that do not read it), in lockstep batches: each step
collects the masks (and observations / states) of all unfinished games of a batch and asks the agent once through
``act_batch``, so batched agents decide for many games at a time. :func:`play_games_vector` plays them on the
vectorised engine (:class:`yacht_env.vector.env.YachtVectorEnv`, bit-identical to the single environment): it is
used for batched agents that need neither the game state nor the per-decision regret (``engine="auto"``).
Both give the same games for the same seeds; only an agent's own random draws may differ, as the vector engine
asks the agent for every slot of a batch, finished games included.

Regret. For every decision of the agent, ``max_a Q(s, a) - Q(s, chosen)`` with ``Q`` the solver's
``action_values`` (expected final score under optimal play afterwards). Its mean per decision says how far from
optimal each choice is; its sum per game estimates the agent's expected loss against optimal play, so
``optimal_value - mean`` should be close to ``regret_per_game``.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from tqdm.auto import tqdm

from agents.base import Agent
from yacht_env import observation as O
from yacht_env.actions import NUM_KEEP_ACTIONS, action_mask, describe_action
from yacht_env.rules import RuleSet, get_rules
from yacht_env.state import GameState, new_game, reroll_pattern, score_category

Z95 = 1.959963984540054  # two-sided 95 % normal quantile
DEFAULT_BATCH = 256

DecisionHook = Callable[[int, GameState, int], None]
"""Called as ``hook(game, state, action)`` before each action is applied."""


# ---- checks -----------------------------------------------------------------------------------------------------


def _check_int(value: Any, what: str, minimum: int) -> int:
    """``value`` as an int if it is an integer >= ``minimum`` (an int, or a string of digits), else ``ValueError``
    naming ``what`` and what is accepted."""
    accepted = "a positive integer" if minimum == 1 else "a non-negative integer"
    v = value
    if isinstance(v, str):
        try:
            v = int(v.strip())
        except ValueError:
            raise ValueError(f"{what} must be {accepted}, got {value!r}") from None
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or v < minimum:
        raise ValueError(f"{what} must be {accepted}, got {value!r}")
    return int(v)


def check_episodes(episodes: Any) -> int:
    """``episodes`` as an int if it is an integer >= 1, else ``ValueError``."""
    return _check_int(episodes, "episodes", 1)


def check_seed(seed: Any) -> int:
    """``seed`` as an int if it is an integer >= 0, else ``ValueError``."""
    return _check_int(seed, "seed", 0)


def game_seed(seed: int, game: int) -> int:
    """The seed of game ``game`` of an evaluation seeded with ``seed`` (see the module docstring)."""
    return int(np.random.SeedSequence(seed, spawn_key=(game,)).generate_state(1, np.uint64)[0])


# ---- playing ----------------------------------------------------------------------------------------------------


def play_games(agent: Agent, rules: str | RuleSet, seeds: Sequence[int], *, on_decision: DecisionHook | None = None,
               batch_size: int = DEFAULT_BATCH, progress: Any = None) -> list[GameState]:
    """Play one game per seed with ``agent``; return the final states, in the order of ``seeds``.

    Raises ``ValueError`` if the agent plays an illegal action. ``progress`` (a tqdm bar or None) is advanced
    by one per finished game.
    """
    rs = get_rules(rules)
    if agent.rules.name != rs.name:
        raise ValueError(f"agent {agent.name!r} plays rules {agent.rules.name!r}, not {rs.name!r}")
    needs_obs = bool(getattr(agent, "needs_obs", True))
    needs_state = bool(agent.needs_state)
    finals: list[GameState | None] = [None] * len(seeds)
    for start in range(0, len(seeds), batch_size):
        rngs = [np.random.default_rng(s) for s in seeds[start:start + batch_size]]
        states = [new_game(rs, r) for r in rngs]
        active = list(range(len(states)))
        while active:
            current = [states[i] for i in active]
            masks = np.stack([action_mask(s) for s in current])
            if needs_obs:
                obs = np.stack([O.encode(s) for s in current])
            else:
                obs = np.zeros((len(current), 0), dtype=np.float32)
            actions = np.asarray(agent.act_batch(obs, masks, current if needs_state else None))
            if actions.shape != (len(current),):
                raise ValueError(f"agent {agent.name!r} returned {actions.shape} actions for {len(current)} games")
            still: list[int] = []
            for i, s, m, a in zip(active, current, masks, actions.tolist()):
                if not (isinstance(a, int) and 0 <= a < m.size and m[a]):
                    what = describe_action(a, s) if isinstance(a, int) and 0 <= a < m.size else "out of range"
                    raise ValueError(f"agent {agent.name!r} played illegal action {a!r} ({what}) in state {s}")
                if on_decision is not None:
                    on_decision(start + i, s, a)
                if a < NUM_KEEP_ACTIONS:
                    new = reroll_pattern(s, a, rngs[i])
                else:
                    new, _ = score_category(s, a - NUM_KEEP_ACTIONS, rngs[i])
                states[i] = new
                if a >= NUM_KEEP_ACTIONS and new.is_over:  # only scoring can end a game
                    finals[start + i] = new
                    if progress is not None:
                        progress.update(1)
                else:
                    still.append(i)
            active = still
    return finals  # type: ignore[return-value]  # every game ends


class RegretMeter:
    """Accumulates the regret of every decision (see the module docstring) from ``action_values(state)``."""

    def __init__(self, action_values: Callable[[GameState], np.ndarray], episodes: int) -> None:
        self.action_values = action_values
        self.per_game = np.zeros(episodes)
        self.sums = {"keep": 0.0, "score": 0.0}
        self.counts = {"keep": 0, "score": 0}

    def __call__(self, game: int, state: GameState, action: int) -> None:
        q = self.action_values(state)
        r = max(float(np.fmax.reduce(q) - q[action]), 0.0)  # fmax skips the NaN of illegal actions; clip noise
        if math.isnan(r):
            raise ValueError(f"the solver gives no value for action {action} in state {state}")
        kind = "keep" if action < NUM_KEEP_ACTIONS else "score"
        self.per_game[game] += r
        self.sums[kind] += r
        self.counts[kind] += 1

    def summary(self) -> dict[str, Any]:
        n = self.counts["keep"] + self.counts["score"]
        return {
            "mean_regret": (self.sums["keep"] + self.sums["score"]) / n if n else 0.0,
            "regret_per_game": float(self.per_game.mean()) if self.per_game.size else 0.0,
            "mean_regret_keep": self.sums["keep"] / self.counts["keep"] if self.counts["keep"] else 0.0,
            "mean_regret_score": self.sums["score"] / self.counts["score"] if self.counts["score"] else 0.0,
            "decisions": n,
        }


# ---- statistics -------------------------------------------------------------------------------------------------


def summarise(rules: str | RuleSet, totals: np.ndarray, boxes: np.ndarray, upper_bonus: np.ndarray,
              bonus_count: np.ndarray, optimal_value: float | None = None) -> dict[str, Any]:
    """Statistics of finished games: ``totals`` (n,), ``boxes`` (n, C) box scores, ``upper_bonus`` (n,) bool,
    ``bonus_count`` (n,) Yahtzee bonuses. Engine-independent (single environment or batch engine)."""
    rs = get_rules(rules)
    totals = np.asarray(totals, dtype=np.float64)
    n = totals.size
    mean = float(totals.mean())
    std = float(totals.std(ddof=1)) if n > 1 else 0.0
    half = Z95 * std / math.sqrt(n)
    out: dict[str, Any] = {
        "rules": rs.name,
        "episodes": int(n),
        "mean": mean,
        "std": std,
        "ci95": [mean - half, mean + half],
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
    if rs.five_kind_bonus:
        bc = np.asarray(bonus_count)
        out["yahtzee_bonus_rate"] = float((bc > 0).mean())
        out["yahtzee_bonus_mean"] = float(bc.mean())
    out["scores"] = [int(t) for t in totals]
    return out


def play_games_vector(agent: Agent, rules: str | RuleSet, seeds: Sequence[int], *, batch_size: int = 4096,
                      progress: Any = None) -> list[GameState]:
    """:func:`play_games` on the vectorised engine, for agents that act on observations and masks alone.

    Game j is ``YachtEnv(rules).reset(seed=seeds[j])`` played by the agent. A slot whose game ended keeps playing
    the autoreset game until the whole batch is done; those moves are ignored.
    """
    from yacht_env.vector.env import YachtVectorEnv

    rs = get_rules(rules)
    if agent.rules.name != rs.name:
        raise ValueError(f"agent {agent.name!r} plays rules {agent.rules.name!r}, not {rs.name!r}")
    if agent.needs_state:
        raise ValueError(f"agent {agent.name!r} needs game states: use play_games")
    finals: list[GameState | None] = [None] * len(seeds)
    ids = rs.category_ids
    for start in range(0, len(seeds), batch_size):
        batch = [int(x) for x in seeds[start:start + batch_size]]
        n = len(batch)
        envs = YachtVectorEnv(n, rules=rs)
        obs, _ = envs.reset(seed=batch)
        done = np.zeros(n, dtype=np.bool_)
        while not done.all():
            masks = envs.action_masks()
            actions = np.asarray(agent.act_batch(obs, masks, None), dtype=np.int64)
            if actions.shape != (n,):
                raise ValueError(f"agent {agent.name!r} returned {actions.shape} actions for {n} games")
            live = ~done
            ok = (actions >= 0) & (actions < masks.shape[1])
            legal = ok & masks[np.arange(n), np.where(ok, actions, 0)]
            if not legal[live].all():
                i = int(np.flatnonzero(live & ~legal)[0])
                raise ValueError(f"agent {agent.name!r} played illegal action {int(actions[i])} in state "
                                 f"{envs.state(i)}")
            obs, _, term, _, info = envs.step(actions)
            ended = np.flatnonzero(term & live)
            if ended.size:
                card = info["final_info"]["scorecard"]
                for i in ended.tolist():
                    dice = O.decode(info["final_obs"][i], rs)["dice"]
                    scores = tuple(int(card[c][i]) for c in ids)
                    bonus = int(card["yahtzee_bonus"][i]) // rs.five_kind_bonus if rs.five_kind_bonus else 0
                    finals[start + i] = GameState(rs.name, tuple(dice), 0, scores, bonus)
                done[ended] = True
                if progress is not None:
                    progress.update(int(ended.size))
        envs.close()
    return finals  # type: ignore[return-value]  # every game ends


def _finals_arrays(finals: Sequence[GameState]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    totals = np.array([s.total for s in finals], dtype=np.int64)
    boxes = np.array([s.scores for s in finals], dtype=np.int64)
    upper = np.array([s.upper_bonus > 0 for s in finals], dtype=np.bool_)
    bonus = np.array([s.bonus_count for s in finals], dtype=np.int64)
    return totals, boxes, upper, bonus


# ---- evaluate ---------------------------------------------------------------------------------------------------


def optimal_solution(rules: str | RuleSet, agent: Agent | None = None) -> Any | None:
    """The solver's solution for ``rules`` (the agent's own if it has one), or None if the solver does not cover
    them."""
    sol = getattr(agent, "solution", None)
    if sol is not None:
        return sol
    from agents.optimal import load_solution

    try:
        return load_solution(rules)
    except ValueError:
        return None


ENGINES = ("auto", "python", "vector")


def evaluate(agent: Agent | str, rules: str | RuleSet, episodes: int, seed: int = 0, *, regret: bool = True,
             progress: bool = False, solution: Any = None, batch_size: int = DEFAULT_BATCH,
             engine: str = "auto") -> dict[str, Any]:
    """Play ``episodes`` seeded games with ``agent`` (an :class:`Agent` or a :func:`~agents.loader.load_agent`
    spec) and return their statistics (see :func:`summarise`), with ``agent``, ``seed``, ``elapsed_s``,
    ``engine`` and, when ``regret`` and the solver covers the rules, the regret fields of :class:`RegretMeter`.

    ``solution``: the solver's solution to compare against (default: solved / loaded from the solver's cache).
    ``engine``: ``python`` (:func:`play_games`), ``vector`` (:func:`play_games_vector`) or ``auto`` (the vector
    engine for batched agents that need no game state when no regret is measured).
    """
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; accepted: {', '.join(ENGINES)}")
    rs = get_rules(rules)
    n = check_episodes(episodes)
    seed = check_seed(seed)
    if not isinstance(batch_size, int) or batch_size < 1:
        raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}")
    if isinstance(agent, str):
        from agents.loader import load_agent

        agent = load_agent(agent, rs, seed)
    else:
        agent.seed(seed)
    sol = solution if solution is not None else optimal_solution(rs, agent)
    meter = RegretMeter(_action_values_fn(sol, agent), n) if regret and sol is not None else None
    if engine == "auto":
        engine = "vector" if agent.batched and not agent.needs_state and meter is None else "python"
    if engine == "vector" and meter is not None:
        raise ValueError("the vector engine cannot measure regret (it needs every game state): use engine='python' "
                         "or regret=False")
    t0 = time.perf_counter()
    seeds = [game_seed(seed, j) for j in range(n)]
    with tqdm(total=n, disable=not progress, unit="game", desc=f"{agent.name} on {rs.name}") as bar:
        if engine == "vector":
            finals = play_games_vector(agent, rs, seeds, progress=bar)
        else:
            finals = play_games(agent, rs, seeds, on_decision=meter, batch_size=batch_size, progress=bar)
    elapsed = time.perf_counter() - t0
    result: dict[str, Any] = {"agent": agent.name, "seed": seed, "engine": engine}
    result.update(summarise(rs, *_finals_arrays(finals),
                            optimal_value=None if sol is None else float(sol.start_value)))
    if meter is not None:
        result.update(meter.summary())
    result["elapsed_s"] = elapsed
    return result


def _action_values_fn(solution: Any, agent: Agent) -> Callable[[GameState], np.ndarray]:
    """``state -> action values`` from the solver (the optimal agent's own method when it has one)."""
    own = getattr(agent, "action_values", None)
    if own is not None and getattr(agent, "solution", None) is solution:
        return own
    return lambda state: np.asarray(solution.action_values(state, unique_keeps=True), dtype=np.float64)


# ---- output -----------------------------------------------------------------------------------------------------


def write_json(result: dict[str, Any], path: str | Path) -> None:
    """Write ``result`` as JSON (``scores`` included)."""
    Path(path).write_text(json.dumps(result, indent=1) + "\n")


def format_report(result: dict[str, Any]) -> str:
    """A readable multi-line report of an :func:`evaluate` result."""
    rs = get_rules(result["rules"])
    lo, hi = result["ci95"]
    lines = [
        f"{result['agent']} on {rs.title}: {result['episodes']} games, seed {result['seed']}",
        f"  mean     {result['mean']:.2f}   (95% CI {lo:.2f} .. {hi:.2f})",
        f"  std      {result['std']:.2f}",
        f"  median   {result['median']:g}   min {result['min']}   max {result['max']}",
    ]
    if result.get("optimal_value") is not None:
        lines.append(f"  optimal  {result['optimal_value']:.4f} expected -> {result['percent_of_optimal']:.2f} % "
                     "of optimal")
    else:
        lines.append("  optimal  n/a (the solver does not cover these rules)")
    if "upper_bonus_rate" in result:
        lines.append(f"  upper bonus      {100 * result['upper_bonus_rate']:.1f} % of games")
    if "yahtzee_bonus_rate" in result:
        lines.append(f"  Yahtzee bonus    {100 * result['yahtzee_bonus_rate']:.1f} % of games, "
                     f"{result['yahtzee_bonus_mean']:.3f} per game")
    if "mean_regret" in result:
        lines.append(f"  regret   {result['mean_regret']:.4f} per decision ({result['decisions']} decisions: "
                     f"keep {result['mean_regret_keep']:.4f}, score {result['mean_regret_score']:.4f}), "
                     f"{result['regret_per_game']:.3f} per game")
    lines.append("")
    lines.append(f"  {'category':<18}{'mean':>8}{'hit rate':>10}")
    for c in result["categories"].values():
        lines.append(f"  {c['name']:<18}{c['mean']:>8.2f}{100 * c['hit_rate']:>9.1f}%")
    if "elapsed_s" in result:
        lines.append("")
        lines.append(f"  played in {result['elapsed_s']:.1f} s")
    return "\n".join(lines)


def plot_scores(result: dict[str, Any], path: str | Path, optimal_scores: Sequence[int] | None = None) -> None:
    """Save a PNG histogram of ``result['scores']``, drawn over the optimal player's scores when given.

    Uses matplotlib's Agg canvas directly (no pyplot, no global backend change).
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    scores = np.asarray(result["scores"])
    both = scores if optimal_scores is None else np.concatenate([scores, np.asarray(optimal_scores)])
    width = 5
    bins = np.arange(width * (int(both.min()) // width), int(both.max()) + 2 * width, width)
    fig = Figure(figsize=(8, 4.5))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    if optimal_scores is not None:
        opt = np.asarray(optimal_scores)
        ax.hist(opt, bins=bins, color="0.75", label=f"optimal (mean {opt.mean():.1f})")
    ax.hist(scores, bins=bins, histtype="step", linewidth=1.8, color="C0",
            label=f"{result.get('agent', 'agent')} (mean {scores.mean():.1f})")
    ax.axvline(scores.mean(), color="C0", linestyle="--", linewidth=1)
    if result.get("optimal_value"):
        ax.axvline(result["optimal_value"], color="C3", linestyle=":", linewidth=1.2,
                   label=f"optimal expected {result['optimal_value']:.1f}")
    title = get_rules(result["rules"]).title if "rules" in result else ""
    ax.set_title(f"{title}: final scores, {scores.size} games")
    ax.set_xlabel("final score")
    ax.set_ylabel("games")
    ax.legend()
    fig.tight_layout()
    fig.savefig(str(path), format="png", dpi=100)
