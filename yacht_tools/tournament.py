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
:mod:`yacht_tools.games`, and those that set ``state_suffices = True`` their states in its place; agents that set
``multiplayer_obs = True`` get the observation of :mod:`yacht_env.multiplayer` instead). Games of a match are played
in lockstep batches so that batched agents decide for many games at once.
"""

from __future__ import annotations

import itertools
import re
import shutil
from collections.abc import Sequence
from pathlib import PurePath
from typing import Any

import numpy as np

from yacht_agents.base import Agent
from yacht_agents.loader import check_seats, load_agent
from yacht_agents.model_kinds import model_suffixes
from yacht_env import multiplayer as MP
from yacht_env.rules import get_rules
from yacht_tools.games import Seating, play_seatings
from yacht_tools.messages import shown
from yacht_tools.progress import progress_bar
from yacht_tools.regret import RegretTally
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


class WinRegret:
    """The exact win-regret of every decision of a game of two, ``max_a W(a) - W(chosen)`` with ``W`` the mover's
    chance to win after each action when both play optimally from there (:func:`yacht_solver.solve_duel`),
    tallied per agent slot like ``yacht eval``'s regret (:class:`~yacht_tools.regret.RegretTally`); a slot whose
    tally is None is not measured (``optimal-duel``'s own regret is 0: no need to search its decisions twice)."""

    def __init__(self, rules: str, tallies: Sequence[RegretTally | None], offsets: Sequence[int]) -> None:
        from yacht_solver.duel import solve_duel

        self.duel = solve_duel(rules)
        self.tallies, self.offsets = list(tallies), list(offsets)
        self.rows: list[list[tuple[int, int, int, int, float]]] = [[] for _ in self.tallies]

    def decision(self, slot: int, game: int, state: Any, other: Any, action: int) -> None:
        if self.tallies[slot] is None:
            return
        self.rows[slot].append((self.offsets[slot] + game, state.turn, state.rolls_left, action,
                                self.duel.win_regret(state, other, action)))

    def flush(self) -> None:
        for tally, rows in zip(self.tallies, self.rows):
            if rows and tally is not None:
                g, t, r, a, x = (np.array(c) for c in zip(*rows))
                tally.add(g, t, r, a, x)
            rows.clear()


def play_match(agents: Sequence[Agent], rules: str, games: int, seed: int, match: int = 0,
               batch_size: int = DEFAULT_BATCH, progress: Any = None, regret: WinRegret | None = None
               ) -> np.ndarray:
    """Play ``games`` games between ``agents`` (2 to 8) with rotating seats; return their totals, shape
    ``(games, len(agents))``, column ``i`` being agent ``i`` whatever its seat.

    Raises ``ValueError`` if an agent plays an illegal action. ``progress`` (a tqdm bar or None) advances by one per
    finished game. ``regret`` (two players): every decision's exact win-regret is tallied for its agent's slot."""
    rs = get_rules(rules)
    n = MP.check_num_players(len(agents))
    if regret is not None and n != 2:
        raise ValueError(f"the win-regret is exact for games of two players, not {n}")
    for slot, agent in enumerate(agents):
        agent.seed(agent_seed(seed, match, slot))
    totals = np.zeros((games, n), dtype=np.int64)
    for start in range(0, games, batch_size):
        ids = list(range(start, min(games, start + batch_size)))
        seatings = []
        for g in ids:
            rng = np.random.default_rng(game_seed(seed, match, g))
            seatings.append(Seating(MP.new_seating(rs, n, rng), rng))
        hook = None
        if regret is not None:
            def hook(i: int, seat: int, st: Any, a: int, ids: list[int] = ids,
                     seatings: list[Seating] = seatings) -> None:
                regret.decision((seat + ids[i]) % n, ids[i], st, seatings[i].states[1 - seat], a)
        play_seatings(seatings, lambda i, seat, ids=ids: agents[(seat + ids[i]) % n], on_decision=hook,
                      on_over=None if progress is None else (lambda i: progress.update(1)))
        if regret is not None:
            regret.flush()
        for g, t in zip(ids, seatings):
            for seat, st in enumerate(t.states):
                totals[g, (seat + g) % n] = st.total
    return totals


def match_results(totals: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Win shares (float) and outcomes (+1 / 0 / -1) of every game of a match, shaped like ``totals``."""
    rows = totals.tolist()
    shares = np.array([MP.win_shares(r) for r in rows], dtype=np.float64).reshape(totals.shape)
    results = np.array([MP.outcome(r) for r in rows], dtype=np.int64).reshape(totals.shape)
    return shares, results


def agent_stats(shares: np.ndarray, results: np.ndarray, scores: np.ndarray) -> dict[str, Any]:
    """One agent's games, wins, draws, losses, win rate (with Wilson's interval) and scores, from its column of
    :func:`match_results` and of the totals."""
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
                   players: int = 2, *, batch_size: int = DEFAULT_BATCH, progress: bool | None = False,
                   win_regret: bool = False) -> dict[str, Any]:
    """Play every group of ``players`` distinct agents (every pair by default) ``games`` games each.

    ``agent_specs`` are :func:`agents.loader.load_agent` specs (``"optimal"``, ``"greedy"``, ``"random"``, model
    paths) or :class:`~agents.base.Agent` objects. Returns ``{"agents": {name: stats}, "matches": [...], "rules",
    "players", "games", "seed"}``; stats hold ``games``, ``wins``, ``draws``, ``losses``, ``win_rate`` (ties shared),
    ``win_rate_ci95``, ``mean_score`` and ``score_std``; each match holds its agents in slot order and the same
    stats per agent. ``progress``: report progress on stderr (:func:`~yacht_tools.progress.progress_bar`; None
    too). The result's ``seat_win_rate`` is each seat's mean win share, whoever sat there (the first-mover effect),
    with ``seat_win_rate_ci95``. ``win_regret`` (two players): each agent's stats gain ``win_regret``, the exact
    win-regret of its decisions (:class:`WinRegret`) by decision type and turn. Raises ``ValueError`` for bad
    input."""
    rs = get_rules(rules)
    games = check_int(games, "games", 1, MAX_GAMES)
    seed = check_int(seed, "seed", 0)
    players = check_int(players, "players", MP.MIN_PLAYERS, MP.MAX_PLAYERS)
    batch_size = check_int(batch_size, "batch_size", 1)
    if isinstance(agent_specs, (str, Agent)) or len(agent_specs) < players:
        raise ValueError(f"a tournament of {players}-player games needs at least {players} agents, got "
                         f"{list(agent_specs) if not isinstance(agent_specs, (str, Agent)) else [agent_specs]}")
    if win_regret and players != 2:
        raise ValueError(f"--win-regret is exact for games of two players, not {players}")
    for spec in agent_specs:
        check_seats(spec, players)
    agents, names = _make_agents(agent_specs, rs.name, seed)
    for agent, name in zip(agents, names):
        if players > getattr(agent, "max_players", MP.MAX_PLAYERS):
            raise ValueError(f"agent {name!r} plays games of at most {agent.max_players} players, not {players}")
    if len({id(a) for a in agents}) != len(agents):
        raise ValueError("the same Agent object is listed twice: pass separate agents (they are reseeded per match)")
    groups = list(itertools.combinations(range(len(agents)), players))
    tallies = [RegretTally(rs, games * sum(i in g for g in groups)) for i in range(len(agents))]
    seen = [0] * len(agents)
    per_agent: dict[int, list[np.ndarray]] = {i: [] for i in range(len(agents))}
    matches: list[dict[str, Any]] = []
    seat_won = np.zeros(players)
    with progress_bar(len(groups) * games, "tournament", "game", enabled=progress is not False, leave=False) as bar:
        for m, group in enumerate(groups):
            regret = WinRegret(rs.name, [tallies[i] for i in group], [seen[i] for i in group]) if win_regret else None
            totals = play_match([agents[i] for i in group], rs.name, games, seed, m, batch_size, bar, regret)
            for i in group:
                seen[i] += games
            shares, results = match_results(totals)
            g = np.arange(games)[:, None]
            seat_won += shares[g, (np.arange(players)[None, :] + g) % players].sum(axis=0)
            for col, i in enumerate(group):
                per_agent[i].append(np.stack([shares[:, col], results[:, col], totals[:, col]]))
            matches.append({"match": m, "agents": [names[i] for i in group], "games": games,
                            "stats": {names[i]: agent_stats(shares[:, col], results[:, col], totals[:, col])
                                      for col, i in enumerate(group)}})
    stats = {}
    for i, name in enumerate(names):
        data = np.concatenate(per_agent[i], axis=1)
        stats[name] = agent_stats(data[0], data[1], data[2])
        if win_regret:
            stats[name]["win_regret"] = tallies[i].summary()
    played = len(groups) * games
    return {"agents": stats, "matches": matches, "rules": rs.name, "players": players, "games": games, "seed": seed,
            "seat_win_rate": [float(w / played) for w in seat_won],
            "seat_win_rate_ci95": [list(wilson_interval(float(w), played)) for w in seat_won],
            "seating": "rotating: in game g seat s is taken by the match's agent (s + g) mod players",
            "win_rate": "mean win share: 1 for the sole highest total, 1/k each for k sharing it, else 0"}


# ---- report -------------------------------------------------------------------------------------------------------


_REPEAT = re.compile(r"(.*?)(#\d+)?")


def _is_path(name: str) -> bool:
    return "/" in name or "\\" in name or name.lower().endswith(model_suffixes())


def short_names(names: Sequence[str]) -> dict[str, str]:
    """A short name for each agent name of a report: a model file's stem (``best_model`` for
    ``runs/yacht/seed0/best_model.zip``), with as many of its folders as tell it from the others
    (``seed0/best_model``, ``seed1/best_model``); other names as they are. A ``#2`` suffix (the same agent twice)
    stays on."""
    parts = {}
    for n in names:
        base, repeat = _REPEAT.fullmatch(n).groups()  # type: ignore[union-attr]
        if _is_path(base):
            p = PurePath(base.replace("\\", "/"))
            parts[n] = ([*p.parent.parts, p.stem], repeat or "")
    def tail(n: str, depth: int) -> str:  # the file stem and depth - 1 of its folders
        segments, repeat = parts[n]
        return "/".join(segments[-depth:]) + repeat

    short = {n: n for n in names}
    for n, (segments, _) in parts.items():
        depth = 1
        while depth < len(segments) and any(
                (tail(m, depth) if m in parts else m) == tail(n, depth) for m in names if m != n):
            depth += 1
        short[n] = tail(n, depth)
    taken = list(short.values())
    return {n: name if taken.count(name) == 1 else n for n, name in short.items()}  # no tail tells it apart: whole


def format_report(result: dict[str, Any], width: int | None = None) -> str:
    """The tournament as text: one row per agent, then head-to-head. Model files are shown by short names
    (:func:`short_names`) in the tables, their paths listed once above them; the head-to-head table is cut into
    blocks of columns that fit ``width`` (default: the terminal's width, 80 where it is unknown)."""
    width = width or shutil.get_terminal_size((80, 24)).columns
    full = list(result["agents"])
    short = {n: shown(s, 60) for n, s in short_names(full).items()}  # from file names: escape codes shown, not sent
    names = [short[n] for n in full]
    stats = {short[n]: s for n, s in result["agents"].items()}
    w = max(8, *(len(n) for n in names)) + 2
    p = result["players"]
    lines = [f"Tournament: {result['rules']}, {p} players, {result['games']} games per match, "
             f"{len(result['matches'])} matches, seed {result['seed']}",
             f"W/D/L: games won, drawn, lost; win rate: ties shared (a coin flip wins {1 / p:.3f})", ""]
    if any(short[n] != n for n in full):
        lines += ["Agents:"] + [f"  {short[n]:<{w}}{shown(n)}" for n in full if short[n] != n] + [""]
    order = sorted(names, key=lambda n: (-stats[n]["win_rate"], names.index(n)))
    wdl = {n: f"{stats[n]['wins']}/{stats[n]['draws']}/{stats[n]['losses']}" for n in names}
    cw = max(len("W/D/L"), *(len(x) for x in wdl.values())) + 2
    lines.append(f"{'agent':<{w}}{'games':>6}{'W/D/L':>{cw}}{'win rate':>9}{'95% CI':>16}{'mean score':>11}{'std':>7}")
    for n in order:
        s = stats[n]
        lo, hi = s["win_rate_ci95"]
        lines.append(f"{n:<{w}}{s['games']:>6}{wdl[n]:>{cw}}{s['win_rate']:>9.3f}{f'[{lo:.3f}, {hi:.3f}]':>16}"
                     f"{s['mean_score']:>11.2f}{s['score_std']:>7.2f}")
    lines.append("")
    matches = [{"agents": [short[a] for a in m["agents"]], "stats": {short[a]: st for a, st in m["stats"].items()}}
               for m in result["matches"]]
    if p == 2:
        lines += ["Head-to-head: the row agent's win rate against the column agent,",
                  "in brackets the mean scores (row-column)"]
        cell = max(17, max(len(n) for n in names) + 2)
        pair: dict[tuple[str, str], tuple[float, float, float]] = {}
        for m in matches:
            a, b = m["agents"]
            sa, sb = m["stats"][a], m["stats"][b]
            pair[a, b] = (sa["win_rate"], sa["mean_score"], sb["mean_score"])
            pair[b, a] = (sb["win_rate"], sb["mean_score"], sa["mean_score"])
        per = max(1, (width - w) // cell)  # columns a block holds
        for first in range(0, len(order), per):
            cols = order[first:first + per]
            lines.append(" " * w + "".join(f"{c:>{cell}}" for c in cols))
            for r in order:
                row = []
                for c in cols:
                    if (r, c) in pair:
                        wr, ms, mo = pair[r, c]
                        row.append(f"{wr:.3f} ({ms:.0f}-{mo:.0f})")
                    else:
                        row.append("-")
                lines.append(f"{r:<{w}}" + "".join(f"{x:>{cell}}" for x in row))
            if first + per < len(order):
                lines.append("")
    else:
        lines.append("Matches: win rate (mean score) of each agent")
        for m in matches:
            parts = [f"{short.get(n, shown(n, 60))} {m['stats'][n]['win_rate']:.3f} ({m['stats'][n]['mean_score']:.1f})"
                     for n in m["agents"]]
            lines.append("  " + " | ".join(parts))
    if "seat_win_rate" in result:
        lines += ["", "Win rate by seat, whoever sat there (95% CI):"]
        lines += [f"  seat {k + 1}  {r:.4f}  [{lo:.4f}, {hi:.4f}]"
                  for k, (r, (lo, hi)) in enumerate(zip(result["seat_win_rate"], result["seat_win_rate_ci95"]))]
    regrets = [(short[n], s["win_regret"]) for n, s in result["agents"].items() if "win_regret" in s]
    if regrets:
        lines += ["", "Exact win-regret (chance to win lost against optimal play of the game of two):"]
        lines += [f"  {n}: {r['regret_per_game']:.5f} per game, {r['mean_regret']:.7f} per decision"
                  for n, r in regrets]
    return "\n".join(lines)
