"""One game of several players from ``yacht tournament``, decision by decision, with the solver's view of each.

The game is identified as in :mod:`yacht_tools.tournament`: the agent list, ``players``, the tournament ``seed``,
the ``match`` (index into the groups of ``players`` agents, in :func:`itertools.combinations` order) and the
``game`` within the match. It is replayed exactly as the tournament played it: the same dice
(``game_seed(seed, match, game)``), the same seats (seat ``s`` is the group's agent ``(s + game) mod players``) and
the agents reseeded as at the start of the match; an agent that draws random numbers draws them here for this game
alone, so its moves match the tournament's only where it plays this game alone there (a batch of one).

Every decision is a :func:`yacht_tools.replay.decision_record` of the seat to act (the solver's values are those of
the solitaire game: the expected final score of that player under optimal play), plus ``seat``, ``player``,
``turn`` (1-based), ``points`` of a score action (box and any bonus) and ``total`` after it.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np

from yacht_agents.base import Agent
from yacht_agents.loader import check_seats
from yacht_env import multiplayer as MP
from yacht_env.actions import NUM_KEEP_ACTIONS
from yacht_env.i18n import check_lang
from yacht_env.render import action_label, render_board, verdict
from yacht_env.rules import get_rules
from yacht_env.state import GameState, parse
from yacht_solver import solution_or_none
from yacht_tools.games import Seating, play_seatings
from yacht_tools.messages import regret_text, text
from yacht_tools.replay import decision_record, legend_lines
from yacht_tools.seeds import agent_seed, check_int, game_seed
from yacht_tools.tournament import _make_agents as make_agents


def replay_multiplayer(agent_specs: Sequence[str | Agent], rules: str = "yacht", seed: int = 0, *, players: int = 2,
                       match: int = 0, game: int = 0, lang: str = "en", regret: bool = True, win_regret: bool = False
                 ) -> dict[str, Any]:
    """Replay game ``game`` of match ``match`` of ``yacht tournament --agents ... --players ... --seed ...``.

    Returns ``rules``, ``players`` (the names by seat), ``seed``, ``match``, ``game``, ``game_seed``, ``lang``,
    ``final_scores`` (by seat), ``winners``, ``optimal_value`` (the solver's expected score of a new solitaire game,
    None without solver), ``regret`` (by seat), ``final_states`` (by seat) and ``decisions`` (see the module
    docstring). ``win_regret`` (two players): each decision also gets ``win_chance`` and ``best_win_chance``, the
    mover's exact chance to win after the move played and after the best one (the solved game of two,
    :func:`yacht_solver.solve_duel`). ``ValueError`` names a bad argument and what is accepted."""
    specs = [agent_specs] if isinstance(agent_specs, (str, Agent)) else list(agent_specs)
    players = check_int(players, "players", MP.MIN_PLAYERS, MP.MAX_PLAYERS)
    if len(specs) < players:
        raise ValueError(f"a game of {players} players needs at least {players} agents (--agents), got {specs}")
    rs, lang, seed, game = get_rules(rules), check_lang(lang), check_int(seed, "seed", 0), check_int(game, "game", 0)
    if win_regret and players != 2:
        raise ValueError(f"the exact win chance is of games of two players, not {players}")
    for spec in specs:  # as the tournament does: before any table is loaded or solved
        check_seats(spec, players)
    agents, names = make_agents(specs, rs.name, seed)
    groups = list(itertools.combinations(range(len(agents)), players))
    match = check_int(match, "match", 0, len(groups) - 1)
    group = groups[match]
    for slot, i in enumerate(group):
        agents[i].seed(agent_seed(seed, match, slot))
    seat_slot = [(s + game) % players for s in range(players)]
    seat_names = [names[group[slot]] for slot in seat_slot]
    sol = solution_or_none(rs) if regret else None
    if win_regret:
        from yacht_solver.duel import solve_duel

        duel = solve_duel(rs)
    rng = np.random.default_rng(game_seed(seed, match, game))
    seating = Seating(MP.new_seating(rs, players, rng), rng)
    decisions: list[dict[str, Any]] = []

    def record(_: int, seat: int, state: GameState, action: int) -> None:
        dec = decision_record(state, action, sol)
        if win_regret:
            q = duel.action_win_probabilities(state, seating.states[1 - seat])
            dec |= {"win_chance": float(q[action]), "best_win_chance": float(np.nanmax(q))}
        decisions.append({"seat": seat, "player": seat_names[seat], "turn": state.turn + 1, **dec})

    play_seatings([seating], lambda _, seat: agents[group[seat_slot[seat]]], on_decision=record)
    _fill_points(decisions, rs.name, seating.states)
    finals = [st.total for st in seating.states]
    return {
        "rules": rs.name, "players": seat_names, "seed": seed, "match": match, "game": game,
        "game_seed": game_seed(seed, match, game), "lang": lang, "final_scores": finals,
        "winners": [seat_names[s] for s, t in enumerate(finals) if t == max(finals)],
        "optimal_value": float(sol.start_value) if sol is not None else None,
        "regret": [sum(d["regret"] for d in decisions if d["seat"] == s) if sol is not None else None
                   for s in range(players)],
        "final_states": [st.to_dict() for st in seating.states],
        "decisions": decisions,
    }


def _fill_points(decisions: list[dict[str, Any]], rules: str, finals: Sequence[GameState]) -> None:
    """``points`` and ``total`` of each score action: the total of the seat's next position minus this one's."""
    nxt: dict[int, int] = {s: st.total for s, st in enumerate(finals)}
    for d in reversed(decisions):
        total = parse(d["state"], rules).total
        if d["action"] >= NUM_KEEP_ACTIONS:
            d["points"], d["total"] = nxt[d["seat"]] - total, nxt[d["seat"]]
        else:
            d["points"], d["total"] = None, None
        nxt[d["seat"]] = total


def format_multiplayer_replay(record: dict[str, Any], lang: str | None = None) -> str:
    """The record of :func:`replay_multiplayer` as text: each decision of each player with the optimal one and the
    regret where known, then the scorecards side by side and the winner."""
    lang = check_lang(lang or record.get("lang", "en"))
    rs = get_rules(record["rules"])
    lines = [f"{rs.title} - {', '.join(record['players'])} - {text('seed', lang)}: {record['seed']} "
             f"(match {record['match']}, game {record['game']})"]
    lines += legend_lines(lang, regret=any(d["regret"] is not None for d in record["decisions"]), multiplayer=True)
    for d in record["decisions"]:
        head = (f"{d['player']}  {text('turn', lang)} {d['turn']}  {text('roll', lang)} {d['roll']}: "
                f"{' '.join(map(str, d['dice']))}   -> {action_label(d['action'], d['dice'], rs, lang)}")
        if d["points"] is not None:
            head += f" = {d['points']}   {text('total', lang)} {d['total']}"
        if d["regret"] is not None and d["action"] != d["best_action"]:
            head += (f"   [{text('best', lang)}: {action_label(d['best_action'], d['dice'], rs, lang)}; "
                     f"{text('regret', lang)} {regret_text(d['regret'])}]")
        if "win_chance" in d:
            head += f"   P(win) {d['win_chance']:.4f} (best {d['best_win_chance']:.4f})"
        lines.append(head)
    states = [GameState.from_dict(s) for s in record["final_states"]]
    lines += ["", render_board(states, record["players"], lang, with_verdict=False),
              verdict(states, record["players"], lang)]
    return "\n".join(lines)
