"""The colours of every picture of a game, one meaning each: the rgb_array frames of the environments and the HTML
replay page (:mod:`yacht_tools.replay_page`) draw with these, so a colour means the same thing everywhere."""

from __future__ import annotations

COLOURS: dict[str, str] = {
    "paper": "#faf8f2",      # background
    "ink": "#1d2330",        # text, pips, filled boxes' points
    "muted": "#6b7280",      # secondary text, open boxes, boxes the Joker forbids
    "line": "#cfc9b8",       # rules and borders
    "panel": "#efece3",      # panels behind a group
    "kept": "#2b8a3e",       # dice kept from the previous roll (border and label)
    "kept_bg": "#d3f9d8",    # ... their face
    "rolled": "#868e96",     # dice just rolled (border and label)
    "rolled_bg": "#ffffff",  # ... their face
    "filled_bg": "#e3e6ea",  # a filled box of the scorecard
    "open": "#1864ab",       # an open box: the points the current dice would score there
    "agent": "#d9480f",      # the agent's action (the last action in a frame)
    "best": "#6741d9",       # the optimal action and the optimal player's expectation
    "regret": "#c92a2a",     # points lost to a worse action; illegal actions
}
"""Colour of each meaning, as ``#rrggbb``."""


def rgb(name: str) -> tuple[int, int, int]:
    """The colour ``name`` of :data:`COLOURS` as an (r, g, b) tuple of 0..255."""
    h = COLOURS[name]
    return int(h[1:3], 16), int(h[3:5], 16), int(h[5:7], 16)
