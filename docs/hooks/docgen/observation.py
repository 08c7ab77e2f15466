"""The observation layout of every rule set, from :func:`yacht_env.observation.layout`, and the table of
environment ids, from the rule definitions.

The meaning of each slice is the table in :mod:`yacht_env.observation`'s docstring (the code's own statement of
it); a slice the layout has and that table lacks fails the build.
"""

from __future__ import annotations

import gymnasium as gym

import yacht_env
from docgen.table import table
from yacht_env import observation as O
from yacht_env.actions import NUM_KEEP_ACTIONS
from yacht_env.rules import RULESETS


def slice_meanings() -> dict[str, str]:
    """Slice name -> meaning, read from the layout table of the observation module's docstring (a row with an empty
    name continues the row above)."""
    out: dict[str, str] = {}
    last = None
    for line in (O.__doc__ or "").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.lstrip().startswith("|") or len(cells) != 3 or set(cells[0]) <= {"-"} or cells[0] == "name":
            continue
        if cells[0]:
            last = cells[0]
            out[last] = cells[2]
        elif last is not None:
            out[last] += " " + cells[2]
    return out


def _added_in(name: str) -> int:
    """The first layout version whose layouts have slice ``name`` (for a rule set that has it at all)."""
    for version in O.LAYOUT_VERSIONS:
        if any(name in O.layout(r, version) for r in RULESETS):
            return version
    raise ValueError(f"observation slice {name!r} is in no layout version")


def observation_tables() -> str:
    """One table per rule set: every slice of the observation with its columns, size, meaning and layout version."""
    meanings = slice_meanings()
    parts = []
    for name, rs in RULESETS.items():
        lay = O.layout(name)
        missing = [s for s in lay if s not in meanings]
        if missing:
            raise ValueError(f"observation slices {missing} of rules {name!r} have no meaning in the layout table of "
                             "yacht_env/observation.py's docstring")
        rows = [(f"`{s}`", f"{sl.start}–{sl.stop - 1}", sl.stop - sl.start, _added_in(s), meanings[s])
                for s, sl in lay.items()]
        env_id = f"`{rs.env_id}`, " if rs.env_id else ""
        parts.append(f"### {rs.title} (`{name}`)\n\n{env_id}{O.size(name)} float32 columns (layout "
                     f"{O.LAYOUT_VERSION}; layout 1: the first {O.size(name, 1)}).\n\n"
                     + table(["slice", "columns", "size", "since layout", "meaning"], rows, "llrrl"))
    return "\n".join(parts)


def env_ids_table() -> str:
    """Every registered environment id with its rule set, action count, observation size and registered
    ``max_episode_steps`` (read from gymnasium's registry)."""
    rows = [(f"`{env_id}`", f"`{name}`", RULESETS[name].title, RULESETS[name].num_categories,
             f"`Discrete({NUM_KEEP_ACTIONS + RULESETS[name].num_categories})`", O.size(name),
             gym.spec(env_id).max_episode_steps)
            for name, env_id in yacht_env.ENV_IDS.items()]
    return table(["id", "rules", "game", "categories", "action space", "observation size", "max_episode_steps"],
                 rows, "lllrlrr")
