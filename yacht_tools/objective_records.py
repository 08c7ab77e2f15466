"""Records of a new game's objective curves: the expected-score optimal player's exact final-score distribution and
P*(T), the best probability of a final score of at least T. The large rule sets' tables take 12 to 22 minutes
each to solve, so their curves are recorded once (``python benchmarks/objective_curves.py --rules R --record``) and
the documentation draws them from the file.

A record (``R-objective-curves.json``) holds the rule set, the command that wrote it, its highest score,
``distribution[s]`` = P(final = s) and ``reach[T]`` = P*(T) for every score 0 .. the highest, each to
:data:`DIGITS` significant digits, and the distribution's mean. It is written atomically and read back as JSON only
(never unpickled or run), checked before use: at most :data:`MAX_BYTES`, exactly the keys of :data:`KEYS`, the rule
set its name says, both curves of one probability per score.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from yacht_env.files import read_regular, write_text_atomic
from yacht_env.objective import max_final_score
from yacht_env.rules import get_rules
from yacht_solver import ScoreDistribution

__all__ = ["DIGITS", "KEYS", "MAX_BYTES", "Curves", "check_record", "make_record", "read_record", "record_path",
           "write_record"]

DIGITS = 12  # significant digits of each number: the mean of the recorded distribution is the table's to 1e-9
KEYS = ("rules", "command", "max_score", "mean", "distribution", "reach")
MAX_BYTES = 256 * 1024  # Yahtzee's record (two curves of 1,576 scores) is about 53 kB
MAX_COMMAND = 300  # characters of the command line a record names
SUM_TOLERANCE = 1e-6  # how far a recorded sum may be from exact: the tables behind the records are float32


class Curves(NamedTuple):
    """A new game's curves: the expected-score player's distribution ``dist`` and ``best[T]`` = P*(T)."""

    rules: str
    dist: ScoreDistribution
    best: np.ndarray


def record_path(rules: str, folder: str | Path) -> Path:
    """The record of ``rules`` in ``folder``."""
    return Path(folder) / f"{rules}-objective-curves.json"


def _rounded(values: np.ndarray, top: int, what: str) -> list[float]:
    """``values[0 .. top]`` to :data:`DIGITS` significant digits; beyond ``top`` (no game scores more) only 0."""
    if np.any(np.asarray(values)[top + 1:] != 0):
        raise ValueError(f"{what} has non-zero entries beyond the highest score {top}")
    return [float(f"{float(v):.{DIGITS}g}") for v in values[: top + 1]]


def make_record(c: Curves, command: str) -> dict[str, Any]:
    """The record of ``c`` (cut at the highest score and rounded); ``command``: the command line that makes it."""
    top = max_final_score(get_rules(c.rules))
    return {"rules": c.rules, "command": command, "max_score": top, "mean": float(f"{c.dist.mean:.{DIGITS}g}"),
            "distribution": _rounded(c.dist.probabilities, top, "the distribution"),
            "reach": _rounded(c.best, top, "the reach curve")}


def write_record(c: Curves, command: str, folder: str | Path) -> Path:
    """Write the record of ``c`` into ``folder`` (atomically); its path."""
    return write_text_atomic(record_path(c.rules, folder), json.dumps(make_record(c, command), indent=1) + "\n")


def _refuse_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number JSON allows")  # json.loads reads NaN and Infinity unless told not to


def _number(value: object, what: str, low: float, high: float) -> float:
    """``value`` if it is a JSON number (not a boolean) within ``low .. high``, else a ``ValueError`` naming it."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
        raise ValueError(f"{what} is {str(value)[:40]}; a number from {low:g} to {high:g} is accepted")
    return float(value)


def _curve(value: object, what: str, length: int) -> np.ndarray:
    """``value`` as an array if it is a list of ``length`` probabilities, else a ``ValueError`` naming it."""
    if not isinstance(value, list) or len(value) != length:
        got = f"a list of {len(value):,}" if isinstance(value, list) else f"a {type(value).__name__}"
        raise ValueError(f"{what} is {got}; a list of {length:,} probabilities (one per score from 0 to the "
                         "highest) is accepted")
    for i, v in enumerate(value):
        _number(v, f"{what}[{i}]", 0.0, 1.0)
    return np.asarray(value, dtype=np.float64)


def check_record(data: object, rules: str, name: str) -> tuple[Curves, str]:
    """The curves of the parsed record ``data`` of ``rules`` and the command that wrote it, every key checked;
    ``name``: the file, for messages."""
    if not isinstance(data, dict) or sorted(data) != sorted(KEYS):
        got = (", ".join(sorted(map(str, data)))[:200] or "no key") if isinstance(data, dict) else type(data).__name__
        raise ValueError(f"{name} holds {got}; an object of exactly the keys {', '.join(KEYS)} is accepted")
    if data["rules"] != rules:
        raise ValueError(f"{name} is the record of {str(data['rules'])[:40]!r}; one of {rules!r} is accepted")
    command = data["command"]
    if not isinstance(command, str) or not 0 < len(command) <= MAX_COMMAND:
        raise ValueError(f"{name}: command is not a command line of 1 to {MAX_COMMAND} characters")
    top = max_final_score(get_rules(rules))
    if isinstance(data["max_score"], bool) or data["max_score"] != top:
        raise ValueError(f"{name}: max_score is {str(data['max_score'])[:40]}; {rules}'s highest score, {top}, "
                         "is accepted")
    _number(data["mean"], f"{name}: mean", 0.0, top)
    probabilities = _curve(data["distribution"], f"{name}: distribution", top + 1)
    total = float(probabilities.sum())
    if abs(total - 1.0) > SUM_TOLERANCE:
        raise ValueError(f"{name}: the distribution's probabilities sum to {total:.6g}; a distribution summing to 1 "
                         "is accepted")
    dist = ScoreDistribution(probabilities)
    if abs(dist.mean - data["mean"]) > SUM_TOLERANCE * top:
        raise ValueError(f"{name}: mean {data['mean']} is not the distribution's mean {dist.mean:.6f}")
    best = _curve(data["reach"], f"{name}: reach", top + 1)
    if abs(best[0] - 1.0) > SUM_TOLERANCE or (np.diff(best) > SUM_TOLERANCE).any():
        raise ValueError(f"{name}: reach must start at 1 (every game scores at least 0) and never rise with the "
                         "target")
    return Curves(rules, dist, best), command


def read_record(rules: str, folder: str | Path) -> tuple[Curves, str]:
    """The recorded curves of ``rules`` in ``folder`` and the command that wrote them: the file read within
    :data:`MAX_BYTES`, parsed as JSON and checked (:func:`check_record`); a ``ValueError`` says what is wrong."""
    path = record_path(rules, folder)
    name = repr(str(path))
    raw = read_regular(path, MAX_BYTES, name)  # a missing, large or special file refused before it is read
    try:
        data = json.loads(raw.decode("utf-8"), parse_constant=_refuse_constant)
    except (ValueError, RecursionError) as e:  # not UTF-8, not JSON, NaN or Infinity, nested too deep
        raise ValueError(f"{name} is not JSON ({str(e)[:80]}); the JSON the recorder writes is accepted") from None
    return check_record(data, rules, name)
