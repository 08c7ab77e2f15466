"""The numbers of a training config that may change over a run: a constant, or a linear schedule.

``lin_<start>`` decays from start to 0 over the run, in the spirit of rl-baselines3-zoo; ``lin_<start>_<end>`` goes
from start to end (the model-free policy's entropy weights and learning rate).
"""

from __future__ import annotations

import math
import reprlib
from typing import Any

_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = 80
_REPR.maxlist = _REPR.maxdict = 8
_REPR.maxlong = 40


def short_value(value: Any) -> str:
    """``repr(value)`` cut to fit one line of a message (a config value may be a huge nest or string)."""
    return _REPR.repr(value)


def schedule_value(value: float | str, key: str) -> float:
    """Start value of a number or ``lin_<start>`` schedule (validating it)."""
    if isinstance(value, str):
        if not value.startswith("lin_"):
            raise ValueError(f"config key {key!r}: a schedule is a number or 'lin_<start>', got {short_value(value)}")
        try:
            return float(value[4:])
        except ValueError:
            raise ValueError(f"config key {key!r}: cannot read the start of schedule {short_value(value)}") from None
    return float(value)


def schedule_ends(value: float | str, key: str) -> tuple[float, float]:
    """``(start, end)`` of a number (both the same), ``lin_<start>`` (end 0) or ``lin_<start>_<end>``, each finite."""
    if isinstance(value, str) and value.startswith("lin_") and value.count("_") == 2:
        try:
            start, end = (float(v) for v in value[4:].split("_"))
        except ValueError:
            raise ValueError(f"config key {key!r}: cannot read schedule {short_value(value)}; accepted: a number, "
                             "'lin_<start>' or 'lin_<start>_<end>'") from None
    elif isinstance(value, str):
        if not value.startswith("lin_"):
            raise ValueError(f"config key {key!r}: a schedule is a number, 'lin_<start>' or 'lin_<start>_<end>', "
                             f"got {short_value(value)}")
        start, end = schedule_value(value, key), 0.0
    else:
        start = end = float(value)
    if not (math.isfinite(start) and math.isfinite(end)):
        raise ValueError(f"config key {key!r}: schedule {short_value(value)} must have finite ends")
    return start, end
