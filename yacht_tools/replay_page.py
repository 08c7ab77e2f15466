"""The replay page: one self-contained HTML file (styles, script and data inline; nothing fetched) that steps through a
replayed game with buttons and the arrow keys.

It takes the record of :func:`yacht_tools.replay.replay_game` (one player) or of
:func:`yacht_tools.multiplayer_replay.replay_multiplayer` (several) and shows, for every decision: the dice (those
the action keeps in the colour ``kept``), the agent's action (``agent``), the optimal action (``best``), the regret
(``regret``), the solver's value of every legal action as a bar chart, every player's scorecard with the points the
dice would score in each open box, and the running total against the optimal player's expectation (the expected
final score under optimal play from the position, ``best_value``), by turn. The value bars start at a round number
below the lowest value, not at zero (so that a point's difference shows), and the page says where. The end screen
gives each player's final score and expected points lost, and links to the game's three costliest decisions. The
numbers are the record's, printed with two decimals as the text replay prints them; colours are those of
:mod:`yacht_env.palette`.
"""

from __future__ import annotations

import html
import json
import re
from importlib import resources
from typing import Any

from yacht_env.actions import NUM_KEEP_ACTIONS
from yacht_env.dice import pattern_faces
from yacht_env.i18n import category_name, check_lang
from yacht_env.palette import COLOURS
from yacht_env.render import action_label
from yacht_env.rules import NUM_UPPER, RuleSet, get_rules
from yacht_env.state import GameState, parse
from yacht_tools.messages import points_text, regret_text, text


def _card(st: GameState, acting: bool, lang: str) -> list[dict[str, Any]]:
    """The rows of a scorecard: ``label``, ``box`` (text), ``kind`` (filled, open, sum, total) and, for the player
    to act, ``now``: the points the dice would score in an open box (``x``: the Joker rule forbids it)."""
    rs = st.ruleset
    legal = set(st.legal_categories()) if acting and not st.is_over else set()
    rows: list[dict[str, Any]] = []
    for k, cid in enumerate(rs.category_ids):
        box = st.scores[k]
        now = None if box is not None or not acting or st.is_over else (str(st.points(k)) if k in legal else "x")
        rows.append({"label": category_name(cid, lang, rs.name), "box": "-" if box is None else str(box),
                     "kind": "open" if box is None else "filled", "now": now, "action": NUM_KEEP_ACTIONS + k})
        if k == NUM_UPPER - 1 and rs.has_upper_bonus:
            rows.append({"label": text("upper_total", lang), "box": f"{st.upper_total}/{rs.upper_bonus_threshold}",
                         "kind": "sum"})
            rows.append({"label": text("upper_bonus", lang), "box": str(st.upper_bonus), "kind": "sum"})
    if rs.five_kind_bonus:
        rows.append({"label": text("yahtzee_bonus", lang), "box": str(st.bonus_count * rs.five_kind_bonus),
                     "kind": "sum"})
    rows.append({"label": text("total", lang), "box": str(st.total), "kind": "total"})
    return rows


def _decisions(record: dict[str, Any]) -> tuple[list[str], list[dict[str, Any]], list[GameState]]:
    """Player names, every decision (with ``seat``) in order, and the final states by seat, of either record."""
    if "turns" in record:  # one player: yacht_tools.replay
        decs = [{"seat": 0, "turn": t["turn"], **d} for t in record["turns"] for d in t["decisions"]]
        return [record["agent"]], decs, [GameState.from_dict(record["final_state"])]
    return list(record["players"]), list(record["decisions"]), [GameState.from_dict(s)
                                                               for s in record["final_states"]]


def _step(d: dict[str, Any], states: list[GameState], rs: RuleSet, names: list[str], lang: str,
          regret_sum: float | None) -> dict[str, Any]:
    st = states[d["seat"]]
    dice, a = d["dice"], d["action"]
    keeps = [False] * len(dice)
    for face in pattern_faces(dice, a) if a < NUM_KEEP_ACTIONS else ():
        keeps[next(i for i, (f, k) in enumerate(zip(dice, keeps)) if f == face and not k)] = True
    bars = None
    if d.get("action_values") is not None:
        bars = [{"action": k, "move": action_label(k, dice, rs, lang), "value": f"{v:.2f}", "v": v}
                for k, v in sorted(d["action_values"], key=lambda kv: (-kv[1], kv[0]))]
    return {
        "seat": d["seat"], "player": names[d["seat"]], "turn": d["turn"], "roll": d["roll"],
        "rolls_left": d["rolls_left"], "dice": dice, "keeps": keeps, "action": a,
        "move": action_label(a, dice, rs, lang), "command": d["move"], "best_action": d["best_action"],
        "best_move": None if d["best_action"] is None else action_label(d["best_action"], dice, rs, lang),
        "value": points_text(d["value"]), "best_value": points_text(d["best_value"]),
        "regret": regret_text(d["regret"]), "lost": d["regret"], "regret_sum": regret_text(regret_sum),
        "total": st.total, "expected": d["best_value"], "bars": bars,
        "cards": [_card(s, i == d["seat"], lang) for i, s in enumerate(states)],
    }


COSTLIEST = 3
"""How many of the game's costliest decisions the end screen lists."""


def _costliest(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The game's :data:`COSTLIEST` decisions that lost the most expected points (regret above zero), costliest
    first (the earlier of a tie first): the step to link to, who, when, the move and the optimal one, the regret."""
    lost = [(s["lost"], i) for i, s in enumerate(steps) if s["lost"] is not None and s["lost"] > 0]
    lost.sort(key=lambda ri: (-ri[0], ri[1]))
    return [{"step": i, "player": steps[i]["player"], "turn": steps[i]["turn"], "roll": steps[i]["roll"],
             "dice": steps[i]["dice"], "move": steps[i]["move"], "best_move": steps[i]["best_move"],
             "value": steps[i]["value"], "best_value": steps[i]["best_value"], "regret": steps[i]["regret"]}
            for _, i in lost[:COSTLIEST]]


def page_data(record: dict[str, Any], lang: str | None = None) -> dict[str, Any]:
    """What the page shows, step by step: one step per decision and a last one for the end of the game."""
    lang = check_lang(lang or record.get("lang", "en"))
    rs = get_rules(record["rules"])
    names, decs, finals = _decisions(record)
    states = [GameState(rs.name, (1, 1, 1, 1, 1), 2, (None,) * rs.num_categories) for _ in names]  # empty cards
    sums: list[float | None] = [0.0 if record.get("optimal_value") is not None else None for _ in names]
    steps = []
    for d in decs:
        states[d["seat"]] = parse(d["state"], rs.name)
        s = d["seat"]
        if sums[s] is not None and d["regret"] is not None:
            sums[s] += d["regret"]
        steps.append(_step(d, states, rs, names, lang, sums[s]))
    costliest = _costliest(steps)
    finals_rows = [_card(st, False, lang) for st in finals]
    totals = [st.total for st in finals]
    winners = [names[i] for i, t in enumerate(totals) if t == max(totals)]
    return {
        "title": rs.title, "rules": rs.name, "players": names, "seed": record["seed"], "lang": lang,
        "match": record.get("match"), "game": record.get("game"), "num_categories": rs.num_categories,
        "optimal_value": points_text(record.get("optimal_value")), "optimal": record.get("optimal_value"),
        "steps": steps,
        "end": {"cards": finals_rows, "totals": totals, "winners": winners,
                "regret": [regret_text(x) for x in sums], "costliest": costliest},
        "words": {k: text(k, lang) for k in ("turn", "roll", "dice", "total", "regret", "best", "agent", "seed",
                                              "rolls_left", "final_score", "optimal_value", "regret_total",
                                              "game_over", "category")},
    }


def _asset(name: str) -> str:
    return resources.files("yacht_tools").joinpath("page", name).read_text(encoding="utf-8")


_PLACEHOLDER = re.compile(r"/\*\{\{(COLOURS|CSS|JS)\}\}\*/|\{\{(TITLE|LANG|DATA)\}\}")
"""The template's placeholders: ``{{NAME}}`` in the markup, ``/*{{NAME}}*/`` inside the style and script blocks."""


def json_for_script(data: Any) -> str:
    """``data`` as JSON that can sit inside a ``<script>`` block whatever its strings hold: ``<``, ``>`` and ``&``
    written as ``\\u`` escapes, so that no ``</script>`` ends the block and no ``<!--`` changes how the browser
    reads it (a name such as ``<!--<script>.pt`` gave a blank page). ``JSON.parse`` reads back the same strings."""
    text = json.dumps(data, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def page_html(record: dict[str, Any], lang: str | None = None) -> str:
    """The replay page of ``record`` as one HTML document (no external resources). The template is filled in one
    pass, so that nothing filled in (a player's name holding ``{{DATA}}``) is read as a placeholder."""
    data = page_data(record, lang)
    colours = "".join(f"--{k.replace('_', '-')}:{v};" for k, v in COLOURS.items())
    who = ", ".join(data["players"])
    values = {"TITLE": html.escape(f"{data['title']} - {who} - seed {data['seed']}"), "LANG": html.escape(data["lang"]),
              "COLOURS": f":root{{{colours}}}", "CSS": _asset("replay.css"), "DATA": json_for_script(data),
              "JS": _asset("replay.js")}
    return _PLACEHOLDER.sub(lambda m: values[m.group(1) or m.group(2)], _asset("replay.html"))
