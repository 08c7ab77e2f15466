"""What a caller of the vector environment may pass, checked: the autoreset mode, ``reset``'s seeds and options, the
actions of a step. Each check names what was wrong and what is accepted; none touches a game."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode

from yacht_env.randomness import MAX_SEED, check_seed_value

_MODE_NAMES = {"nextstep": AutoresetMode.NEXT_STEP, "samestep": AutoresetMode.SAME_STEP,
               "disabled": AutoresetMode.DISABLED}


def autoreset_mode_of(mode: AutoresetMode | str) -> AutoresetMode:
    """``mode`` as an :class:`~gymnasium.vector.AutoresetMode`: the enum itself, its value (``"NextStep"``) or its
    name in either case (``"next_step"``, ``"SAME_STEP"``, ``"disabled"``); else ``ValueError`` naming the modes."""
    if isinstance(mode, AutoresetMode):
        return mode
    if isinstance(mode, str) and mode.replace("_", "").lower() in _MODE_NAMES:
        return _MODE_NAMES[mode.replace("_", "").lower()]
    raise ValueError(f"autoreset_mode must be an AutoresetMode or one of 'next_step', 'same_step', 'disabled', "
                     f"got {mode!r}")


def reset_mask(options: Any, n: int) -> np.ndarray | None:
    """The games a reset restarts: None for all (``options`` None or ``{}``), else a copy of the checked
    ``options["reset_mask"]``, a (n,) bool array with at least one True."""
    if options is None or (isinstance(options, dict) and not options):
        return None
    if not isinstance(options, dict) or set(options) != {"reset_mask"}:
        raise ValueError(f"YachtVectorEnv.reset takes options None, {{}} or {{'reset_mask': (N,) bool array}}, "
                         f"got {options!r}")
    m = options["reset_mask"]
    if not isinstance(m, np.ndarray) or m.dtype != np.bool_ or m.shape != (n,):
        raise ValueError(f"options['reset_mask'] must be a numpy bool array of shape ({n},), got "
                         f"{type(m).__name__} {getattr(m, 'dtype', '')} {getattr(m, 'shape', '')}".rstrip())
    if not m.any():
        raise ValueError("options['reset_mask'] must be True for at least one game")
    return m.copy()


def seed_list(seed: Any, n: int) -> list[int | None]:
    """The seed of each of ``n`` games from ``reset(seed=...)`` (not None): an int gives game ``i`` ``seed + i``; a
    sequence gives one seed (or None) per game."""
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, (bool, np.bool_)):
        if not 0 <= seed < MAX_SEED - n:
            raise ValueError(f"seed must be a non-negative int (game i gets seed + i), got {seed!r}")
        return [int(seed) + i for i in range(n)]
    if isinstance(seed, (str, bytes)) or not isinstance(seed, (Sequence, np.ndarray)) or (
            isinstance(seed, np.ndarray) and seed.ndim == 0):
        raise ValueError(f"seed must be None, a non-negative int or a sequence of {n} of them (or None), "
                         f"got {seed!r}")
    seeds = list(seed)
    if len(seeds) != n:
        raise ValueError(f"seed sequence must have one seed per game ({n}), got {len(seeds)}")
    return [check_seed_value(s, f"seed[{j}]") for j, s in enumerate(seeds)]


def action_array(actions: Any, n: int, n_actions: int, skip: np.ndarray | None) -> np.ndarray:
    """The actions of a step of ``n`` games as an int64 array, each in ``0..n_actions - 1``; the games of ``skip``
    (which start over instead) are neither checked nor handed their action (0 in their place, in a copy: the
    caller's array is never written)."""
    a = np.asarray(actions)
    if a.shape != (n,):
        raise ValueError(f"actions must have shape ({n},), got {a.shape}")
    if a.dtype.kind not in "iu":
        raise ValueError(f"actions must be integers in 0..{n_actions - 1}, got dtype {a.dtype}")
    if a.dtype.kind == "u" and a.size and a.max() > np.iinfo(np.int64).max:
        raise ValueError(f"actions must be integers in 0..{n_actions - 1}, got {a.max()}")
    a = np.ascontiguousarray(a, dtype=np.int64)
    bad = (a < 0) | (a >= n_actions)
    if skip is not None:
        bad &= ~skip
        a = np.where(skip, 0, a)
    outside = np.flatnonzero(bad)
    if outside.size:
        i = int(outside[0])
        raise ValueError(f"action {int(a[i])} of game {i} is outside the action space: accepted 0..{n_actions - 1}")
    return a
