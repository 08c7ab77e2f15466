"""All-play-all tournaments between agents in the multiplayer game, and the ``yacht tournament`` command.

Every group of ``players`` distinct agents (every pair by default) plays a *match* of ``games`` games. Seats rotate
within a match: in game ``g`` seat ``s`` is taken by the group's agent ``(s + g) mod players``, so each agent plays
first equally often (exactly when ``games`` is a multiple of ``players``, else within one game).

Results. A game gives each seat a *win share*: 1 to the sole highest total, ``1/k`` to each of ``k`` players sharing
the highest total (with two players a tie counts half), 0 to the others. An agent's win rate is its mean win share;
its 95 % interval is Wilson's score interval on that rate over its games. Wins, draws (a shared highest total) and
losses are counted as in :func:`yacht_env.multiplayer.outcome`. In a ``players``-player game a coin flip wins
``1/players`` of the time.

Seeds. Game ``g`` of match ``m`` (matches in the order of :func:`itertools.combinations` over the agent list)
rolls its dice from ``np.random.default_rng(game_seed(seed, m, g))``, with ``game_seed`` the first 64-bit word of
``np.random.SeedSequence(seed, spawn_key=(m, g))``; that is the generator ``yacht_env.multiplayer.raw_env`` installs
on ``reset(seed=game_seed(seed, m, g))``, so any game can be replayed in the environment. Agents are reseeded at the
start of every match from ``(seed, m, slot)``. A tournament is therefore deterministic for a seed (and the batch
size, for agents that draw random numbers).

Agents act as in the single-player game: ``act(obs, mask, state)`` with their own state, its single-player
observation and its mask (agents that set ``needs_obs = False`` get an empty observation, as in
:mod:`agents.evaluation`; agents that set ``multiplayer_obs = True`` get the observation of
:mod:`yacht_env.multiplayer` instead). Games of a match are played in lockstep batches so that batched agents
decide for many games at once.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from tqdm.auto import tqdm

from agents.base import Agent
from yacht_env import multiplayer as MP
from yacht_env import observation as O
from yacht_env.actions import action_mask, describe_action
from yacht_env.rules import RULESETS, get_rules
from yacht_env.state import GameState

Z95 = 1.959963984540054  # two-sided 95 % normal quantile
DEFAULT_BATCH = 128


# ---- checks and seeds -------------------------------------------------------------------------------------------


def _check_int(value: Any, what: str, low: int, high: int | None = None) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < low or (
            high is not None and value > high):
        bound = f"an integer >= {low}" if high is None else f"an integer in {low}..{high}"
        raise ValueError(f"{what} must be {bound}, got {value!r}")
    return int(value)


def game_seed(seed: int, match: int, game: int) -> int:
    """The dice seed of game ``game`` of match ``match`` (see the module docstring)."""
    return int(np.random.SeedSequence(seed, spawn_key=(match, game)).generate_state(1, np.uint64)[0])


def _agent_seed(seed: int, *key: int) -> int:
    """Seeds for the agents, from spawn keys of another length than the games' (so never a game's seed)."""
    return int(np.random.SeedSequence(seed, spawn_key=(*key, 1)).generate_state(1, np.uint64)[0])


def wilson_interval(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson's score interval for a proportion ``successes / n`` (``successes`` may count ties as halves)."""
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1.0 - p) / n + z * z / (4 * n * n)) / denom
    lo = 0.0 if successes <= 0 else max(0.0, centre - half)  # exact ends: the bounds are 0 and 1 there
    hi = 1.0 if successes >= n else min(1.0, centre + half)
    return lo, hi


def _make_agents(agent_specs: Sequence[str | Agent], rules: str, seed: int) -> tuple[list[Agent], list[str]]:
    """Agents and unique display names (a repeated name gets ``#2``, ``#3``...)."""
    agents: list[Agent] = []
    names: list[str] = []
    for i, spec in enumerate(agent_specs):
        if isinstance(spec, Agent):
            agent = spec
            if agent.rules.name != rules:
                raise ValueError(f"agent {agent.name!r} plays rules {agent.rules.name!r}, not {rules!r}")
            name = agent.name
        elif isinstance(spec, str):
            from agents.loader import load_agent

            agent = load_agent(spec, rules, seed=_agent_seed(seed, 1 << 32, i))
            name = spec.strip()
        else:
            raise ValueError(f"an agent must be a spec string or an Agent, got {spec!r}")
        base, k = name, 2
        while name in names:
            name, k = f"{base}#{k}", k + 1
        agents.append(agent)
        names.append(name)
    return agents, names


# ---- playing ------------------------------------------------------------------------------------------------------


def play_match(agents: Sequence[Agent], rules: str, games: int, seed: int, match: int = 0,
               batch_size: int = DEFAULT_BATCH, progress: Any = None) -> np.ndarray:
    """Play ``games`` games between ``agents`` (2 to 8) with rotating seats; return their totals, shape
    ``(games, len(agents))``, column ``i`` being agent ``i`` whatever its seat.

    Raises ``ValueError`` if an agent plays an illegal action. ``progress`` (a tqdm bar or None) advances by one per
    finished game."""
    rs = get_rules(rules)
    n = MP.check_num_players(len(agents))
    for slot, agent in enumerate(agents):
        agent.seed(_agent_seed(seed, match, slot))
    needs_obs = [bool(getattr(a, "needs_obs", True)) for a in agents]
    mp_obs = [bool(getattr(a, "multiplayer_obs", False)) for a in agents]
    totals = np.zeros((games, n), dtype=np.int64)
    for start in range(0, games, batch_size):
        ids = list(range(start, min(games, start + batch_size)))
        rngs = {g: np.random.default_rng(game_seed(seed, match, g)) for g in ids}
        tables: dict[int, tuple[GameState, ...]] = {g: MP.new_table(rs, n, rngs[g]) for g in ids}
        active = ids
        while active:
            groups: dict[int, list[tuple[int, int]]] = {}
            for g in active:
                seat = MP.seat_to_act(tables[g])
                assert seat is not None
                groups.setdefault((seat + g) % n, []).append((g, seat))
            for slot in sorted(groups):
                agent, todo = agents[slot], groups[slot]
                states = [tables[g][seat] for g, seat in todo]
                masks = np.stack([action_mask(s) for s in states])
                if mp_obs[slot]:
                    obs = np.stack([MP.encode(tables[g], seat) for g, seat in todo])
                elif needs_obs[slot]:
                    obs = np.stack([O.encode(s) for s in states])
                else:
                    obs = np.zeros((len(states), 0), dtype=np.float32)
                if agent.batched:
                    acts = np.asarray(agent.act_batch(obs, masks, states)).tolist()
                else:
                    acts = [agent.act(obs[i], masks[i], states[i]) for i in range(len(states))]
                if len(acts) != len(states):
                    raise ValueError(f"agent {agent.name!r} returned {len(acts)} actions for {len(states)} games")
                for (g, _seat), s, m, a in zip(todo, states, masks, acts):
                    if isinstance(a, np.integer):
                        a = int(a)
                    if not (isinstance(a, int) and 0 <= a < m.size and m[a]):
                        what = describe_action(a, s) if isinstance(a, int) and 0 <= a < m.size else "out of range"
                        raise ValueError(f"agent {agent.name!r} played illegal action {a!r} ({what}) in state {s}")
                    tables[g], _, _ = MP.play(tables[g], a, rngs[g], check=False)
            still = []
            for g in active:
                if MP.is_over(tables[g]):
                    for seat, st in enumerate(tables[g]):
                        totals[g, (seat + g) % n] = st.total
                    if progress is not None:
                        progress.update(1)
                else:
                    still.append(g)
            active = still
    return totals


def match_results(totals: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Win shares (float) and outcomes (+1 / 0 / -1) of every game of a match, shaped like ``totals``."""
    rows = totals.tolist()
    shares = np.array([MP.win_shares(r) for r in rows], dtype=np.float64).reshape(totals.shape)
    results = np.array([MP.outcome(r) for r in rows], dtype=np.int64).reshape(totals.shape)
    return shares, results


def _stats(shares: np.ndarray, results: np.ndarray, scores: np.ndarray) -> dict[str, Any]:
    n = int(scores.size)
    won = float(shares.sum())
    lo, hi = wilson_interval(won, n)
    return {
        "games": n,
        "wins": int((results == 1).sum()),
        "draws": int((results == 0).sum()),
        "losses": int((results == -1).sum()),
        "win_rate": won / n if n else 0.0,
        "win_rate_ci95": [lo, hi],
        "mean_score": float(scores.mean()) if n else 0.0,
        "score_std": float(scores.std(ddof=1)) if n > 1 else 0.0,
    }


def run_tournament(agent_specs: Sequence[str | Agent], games: int, seed: int = 0, rules: str = "yacht",
                   players: int = 2, *, batch_size: int = DEFAULT_BATCH, progress: bool | None = False
                   ) -> dict[str, Any]:
    """Play every group of ``players`` distinct agents (every pair by default) ``games`` games each.

    ``agent_specs`` are :func:`agents.loader.load_agent` specs (``"optimal"``, ``"greedy"``, ``"random"``, model
    paths) or :class:`~agents.base.Agent` objects. Returns ``{"agents": {name: stats}, "matches": [...], "rules",
    "players", "games", "seed"}``; stats hold ``games``, ``wins``, ``draws``, ``losses``, ``win_rate`` (ties shared),
    ``win_rate_ci95``, ``mean_score`` and ``score_std``; each match holds its agents in slot order and the same
    stats per agent. ``progress``: a tqdm bar (None: only on a terminal). Raises ``ValueError`` for bad input."""
    rs = get_rules(rules)
    games = _check_int(games, "games", 1)
    seed = _check_int(seed, "seed", 0)
    players = _check_int(players, "players", MP.MIN_PLAYERS, MP.MAX_PLAYERS)
    batch_size = _check_int(batch_size, "batch_size", 1)
    if isinstance(agent_specs, (str, Agent)) or len(agent_specs) < players:
        raise ValueError(f"a tournament of {players}-player games needs at least {players} agents, got "
                         f"{list(agent_specs) if not isinstance(agent_specs, (str, Agent)) else [agent_specs]}")
    agents, names = _make_agents(agent_specs, rs.name, seed)
    if len({id(a) for a in agents}) != len(agents):
        raise ValueError("the same Agent object is listed twice: pass separate agents (they are reseeded per match)")
    groups = list(itertools.combinations(range(len(agents)), players))
    per_agent: dict[int, list[np.ndarray]] = {i: [] for i in range(len(agents))}
    matches: list[dict[str, Any]] = []
    disable = None if progress is None else not progress
    with tqdm(total=len(groups) * games, desc="tournament", unit="game", disable=disable, leave=False) as bar:
        for m, group in enumerate(groups):
            totals = play_match([agents[i] for i in group], rs.name, games, seed, m, batch_size, bar)
            shares, results = match_results(totals)
            for col, i in enumerate(group):
                per_agent[i].append(np.stack([shares[:, col], results[:, col], totals[:, col]]))
            matches.append({"match": m, "agents": [names[i] for i in group], "games": games,
                            "stats": {names[i]: _stats(shares[:, col], results[:, col], totals[:, col])
                                      for col, i in enumerate(group)}})
    stats = {}
    for i, name in enumerate(names):
        data = np.concatenate(per_agent[i], axis=1)
        stats[name] = _stats(data[0], data[1], data[2])
    return {"agents": stats, "matches": matches, "rules": rs.name, "players": players, "games": games, "seed": seed,
            "seating": "rotating: in game g seat s is taken by the match's agent (s + g) mod players",
            "win_rate": "mean win share: 1 for the sole highest total, 1/k each for k sharing it, else 0"}


# ---- report -------------------------------------------------------------------------------------------------------


def format_report(result: dict[str, Any]) -> str:
    """The tournament as text: one row per agent, then head-to-head."""
    names = list(result["agents"])
    w = max(8, *(len(n) for n in names)) + 2
    p = result["players"]
    lines = [f"Tournament: {result['rules']}, {p} players, {result['games']} games per match, "
             f"{len(result['matches'])} matches, seed {result['seed']} (win rate: ties shared; a coin flip wins "
             f"{1 / p:.3f})", ""]
    lines.append(f"{'agent':<{w}}{'games':>7}{'wins':>7}{'draws':>7}{'losses':>7}{'win rate':>10}"
                 f"{'95% CI':>18}{'mean score':>12}{'std':>8}")
    order = sorted(names, key=lambda n: (-result["agents"][n]["win_rate"], names.index(n)))
    for n in order:
        s = result["agents"][n]
        lo, hi = s["win_rate_ci95"]
        lines.append(f"{n:<{w}}{s['games']:>7}{s['wins']:>7}{s['draws']:>7}{s['losses']:>7}{s['win_rate']:>10.3f}"
                     f"{f'[{lo:.3f}, {hi:.3f}]':>18}{s['mean_score']:>12.2f}{s['score_std']:>8.2f}")
    lines.append("")
    if p == 2:
        lines.append("Head-to-head: win rate of the row agent against the column agent (mean scores row-column)")
        cell = max(18, w)
        lines.append(" " * w + "".join(f"{n:>{cell}}" for n in order))
        pair: dict[tuple[str, str], tuple[float, float, float]] = {}
        for m in result["matches"]:
            a, b = m["agents"]
            sa, sb = m["stats"][a], m["stats"][b]
            pair[a, b] = (sa["win_rate"], sa["mean_score"], sb["mean_score"])
            pair[b, a] = (sb["win_rate"], sb["mean_score"], sa["mean_score"])
        for r in order:
            row = []
            for c in order:
                if (r, c) in pair:
                    wr, ms, mo = pair[r, c]
                    row.append(f"{wr:.3f} ({ms:.0f}-{mo:.0f})")
                else:
                    row.append("-")
            lines.append(f"{r:<{w}}" + "".join(f"{x:>{cell}}" for x in row))
    else:
        lines.append("Matches: win rate (mean score) of each agent")
        for m in result["matches"]:
            parts = [f"{n} {m['stats'][n]['win_rate']:.3f} ({m['stats'][n]['mean_score']:.1f})" for n in m["agents"]]
            lines.append("  " + " | ".join(parts))
    return "\n".join(lines)


# ---- command line -------------------------------------------------------------------------------------------------


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """The ``yacht tournament`` sub-parser."""
    p = subparsers.add_parser(
        "tournament", help="all-play-all between agents: win rates and mean scores",
        description="Every pair (or group of --players) of the agents plays --games games with rotating seats; "
                    "prints win rates (ties shared, Wilson 95%% interval) and mean scores per agent and "
                    "head-to-head. Deterministic for a seed.")
    p.add_argument("--agents", nargs="+", required=True, metavar="SPEC",
                   help="agents: random, greedy, optimal, or a saved model (at least --players of them)")
    p.add_argument("--games", type=int, default=1000, help="games per match (default 1000)")
    p.add_argument("--seed", type=int, default=0, help="seed of the dice and the agents (default 0)")
    p.add_argument("--rules", default="yacht", help=f"rule set: {', '.join(RULESETS)} (default: yacht; docs/rules.md)")
    p.add_argument("--players", type=int, default=2, help="players per game, 2 to 8 (default 2)")
    p.add_argument("--batch-size", type=int, default=DEFAULT_BATCH, help=argparse.SUPPRESS)
    p.add_argument("--json", metavar="PATH", help="also write the results as JSON to PATH")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def run(args: argparse.Namespace) -> int:
    """Run ``yacht tournament``: print the table, write the JSON if asked."""
    if args.json:
        parent = Path(args.json).expanduser().resolve().parent
        if not parent.is_dir():
            raise ValueError(f"cannot write --json {args.json!r}: directory {str(parent)!r} does not exist")
    result = run_tournament(args.agents, args.games, args.seed, args.rules, args.players,
                            batch_size=args.batch_size, progress=False if args.no_progress else None)
    print(format_report(result))
    if args.json:
        Path(args.json).expanduser().write_text(json.dumps(result, indent=2) + "\n")
        print(f"\nwrote {args.json}", file=sys.stderr)
    return 0
