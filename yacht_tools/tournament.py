"""All-play-all tournaments between agents in the multiplayer game.

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
:mod:`yacht_tools.games`; agents that set ``multiplayer_obs = True`` get the observation of
:mod:`yacht_env.multiplayer` instead). Games of a match are played in lockstep batches so that batched agents
decide for many games at once.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np

from yacht_agents.base import Agent
from yacht_agents.loader import load_agent
from yacht_env import multiplayer as MP
from yacht_env.rules import get_rules
from yacht_tools.games import Table, play_tables
from yacht_tools.messages import shown
from yacht_tools.progress import progress_bar
from yacht_tools.seeds import agent_seed, check_int, game_seed
from yacht_tools.stats import wilson_interval

DEFAULT_BATCH = 128
MAX_GAMES = 10_000_000
"""The most games per match: the scores of a match are held in memory (about 150 MB at the most)."""


# ---- agents -------------------------------------------------------------------------------------------------------


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
            agent = load_agent(spec, rules, seed=agent_seed(seed, 1 << 32, i))
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
        agent.seed(agent_seed(seed, match, slot))
    totals = np.zeros((games, n), dtype=np.int64)
    for start in range(0, games, batch_size):
        ids = list(range(start, min(games, start + batch_size)))
        tables = []
        for g in ids:
            rng = np.random.default_rng(game_seed(seed, match, g))
            tables.append(Table(MP.new_table(rs, n, rng), rng))
        play_tables(tables, lambda i, seat, ids=ids: agents[(seat + ids[i]) % n],
                    on_over=None if progress is None else (lambda i: progress.update(1)))
        for g, t in zip(ids, tables):
            for seat, st in enumerate(t.states):
                totals[g, (seat + g) % n] = st.total
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
    stats per agent. ``progress``: report progress on stderr (:func:`~yacht_tools.progress.progress_bar`; None
    too). Raises ``ValueError`` for bad input."""
    rs = get_rules(rules)
    games = check_int(games, "games", 1, MAX_GAMES)
    seed = check_int(seed, "seed", 0)
    players = check_int(players, "players", MP.MIN_PLAYERS, MP.MAX_PLAYERS)
    batch_size = check_int(batch_size, "batch_size", 1)
    if isinstance(agent_specs, (str, Agent)) or len(agent_specs) < players:
        raise ValueError(f"a tournament of {players}-player games needs at least {players} agents, got "
                         f"{list(agent_specs) if not isinstance(agent_specs, (str, Agent)) else [agent_specs]}")
    agents, names = _make_agents(agent_specs, rs.name, seed)
    if len({id(a) for a in agents}) != len(agents):
        raise ValueError("the same Agent object is listed twice: pass separate agents (they are reseeded per match)")
    groups = list(itertools.combinations(range(len(agents)), players))
    per_agent: dict[int, list[np.ndarray]] = {i: [] for i in range(len(agents))}
    matches: list[dict[str, Any]] = []
    with progress_bar(len(groups) * games, "tournament", "game", enabled=progress is not False, leave=False) as bar:
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
    disp = {n: shown(n, 60) for n in names}  # names from file names: escape codes shown, never sent
    w = max(8, *(len(d) for d in disp.values())) + 2
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
        lines.append(f"{disp[n]:<{w}}{s['games']:>7}{s['wins']:>7}{s['draws']:>7}{s['losses']:>7}{s['win_rate']:>10.3f}"
                     f"{f'[{lo:.3f}, {hi:.3f}]':>18}{s['mean_score']:>12.2f}{s['score_std']:>8.2f}")
    lines.append("")
    if p == 2:
        lines.append("Head-to-head: win rate of the row agent against the column agent (mean scores row-column)")
        cell = max(18, w)
        lines.append(" " * w + "".join(f"{disp[n]:>{cell}}" for n in order))
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
            lines.append(f"{disp[r]:<{w}}" + "".join(f"{x:>{cell}}" for x in row))
    else:
        lines.append("Matches: win rate (mean score) of each agent")
        for m in result["matches"]:
            parts = [f"{disp[n]} {m['stats'][n]['win_rate']:.3f} ({m['stats'][n]['mean_score']:.1f})"
                     for n in m["agents"]]
            lines.append("  " + " | ".join(parts))
    return "\n".join(lines)
