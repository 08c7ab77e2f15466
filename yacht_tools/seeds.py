"""Seeds of evaluations, tournaments and replays, derived one way everywhere, and the checks of counts and seeds.

Game ``key`` of a run seeded with ``s`` draws its dice from ``np.random.default_rng(game_seed(s, *key))``, with
``game_seed(s, *key)`` the first 64-bit word of ``np.random.SeedSequence(s, spawn_key=key)``: for an evaluation the
key is the game's index ``(j,)``, for a tournament ``(match, game)``. That is exactly the generator
``YachtEnv.reset(seed=game_seed(s, *key))`` installs, so any game can be replayed in the environment.
"""

from __future__ import annotations

import reprlib
from typing import Any

import numpy as np

from yacht_env.digits import parse_digits


def game_seed(seed: int, *key: int) -> int:
    """The dice seed of the game ``key`` of a run seeded with ``seed`` (see the module docstring)."""
    return int(np.random.SeedSequence(seed, spawn_key=tuple(key)).generate_state(1, np.uint64)[0])


def game_seeds(seed: int, start: int, stop: int) -> list[int]:
    """``[game_seed(seed, j) for j in range(start, stop)]``."""
    return [game_seed(seed, j) for j in range(start, stop)]


def agent_seed(seed: int, *key: int) -> int:
    """A seed for an agent, from spawn keys one longer than the games' (so never a game's seed)."""
    return int(np.random.SeedSequence(seed, spawn_key=(*key, 1)).generate_state(1, np.uint64)[0])


def check_int(value: Any, what: str, minimum: int, maximum: int | None = None) -> int:
    """``value`` as an int if it is an integer in ``minimum..maximum`` (an int, or a string of digits), else
    ``ValueError`` naming ``what`` and what is accepted."""
    if minimum == 1 and maximum is None:
        accepted = "a positive integer"
    elif minimum == 0 and maximum is None:
        accepted = "a non-negative integer"
    else:
        accepted = f"an integer in {minimum}..{maximum}" if maximum is not None else f"an integer >= {minimum}"
    v = value
    if isinstance(v, str):  # ASCII digits: int() would take 1_0 and other scripts' digits
        v = parse_digits(v)
        if v is None:
            raise ValueError(f"{what} must be {accepted}{_ascii_hint(value)}, got {reprlib.repr(value)}")
    if (isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or v < minimum
            or (maximum is not None and v > maximum)):
        raise ValueError(f"{what} must be {accepted}, got {reprlib.repr(value)}")
    return int(v)


def _ascii_hint(text: str) -> str:
    """The words that say why ``text`` is refused where Python's ``int()`` would have read it (``1_0``, ``٧``)."""
    try:
        int(text)
    except ValueError:
        return ""
    return " in ASCII digits 0-9"


def check_seed(seed: Any) -> int:
    """``seed`` as an int if it is an integer >= 0, else ``ValueError``."""
    return check_int(seed, "seed", 0)


def check_episodes(episodes: Any) -> int:
    """``episodes`` as an int if it is an integer >= 1, else ``ValueError``."""
    return check_int(episodes, "episodes", 1)
