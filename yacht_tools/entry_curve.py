"""An outside entry's learning curve (``yacht bench evaluate --curve FILE``), read as data into the protocol's curve.

The file is its author's: a CSV with the header ``timesteps,mean`` or ``timesteps,percent_of_optimal``, or a JSON
list of ``{"timesteps": ..., "mean": ...}`` (or ``percent_of_optimal``) objects. It is read as data only, at most
:data:`MAX_CURVE_BYTES` and :data:`MAX_CURVE_ROWS` points; every number finite, the steps whole, increasing and at
most the steps the entry declares. The protocol's curve is then the point nearest each fifth of the budget,
normalised as a run's is (:func:`yacht_tools.protocol.curve_points`).
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from pathlib import Path
from typing import Any

from yacht_env.files import read_regular
from yacht_tools import protocol as P

MAX_CURVE_BYTES = 1 << 20
"""The largest curve file read (a curve of a thousand points is about 20 kB)."""
MAX_CURVE_ROWS = 10_000
"""The most points a curve file may hold."""
VALUES = ("mean", "percent_of_optimal")
"""What a point may give beside its steps: the mean score, or its percent of optimal play's."""
ACCEPTED = ("a CSV with the header timesteps,mean or timesteps,percent_of_optimal, or a JSON list of "
            "{\"timesteps\": N, \"mean\": X} objects")
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d{1,3})?")


def read_curve(path: str | Path, task: str, budget: str, steps: int) -> list[dict[str, Any]]:
    """The protocol's learning curve of an entry of ``task`` trained ``steps`` steps at ``budget``, from the file at
    ``path`` (module docstring); ``ValueError`` naming the file, the row and what is accepted."""
    where = str(path)
    if P.task_players(task) != 1:
        raise ValueError(f"--curve {where}: a learning curve is read for the one-player tasks (a score); on "
                         f"{task} leave --curve out")
    raw = read_regular(Path(path), MAX_CURVE_BYTES, f"the learning curve {where!r} (--curve)")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ValueError(f"{where}: not UTF-8 text; a learning curve is {ACCEPTED}") from None
    suffix = Path(path).suffix.lower()
    if suffix == ".csv":
        try:
            points, value = _csv_points(text, where)
        except csv.Error as e:  # a NUL byte, a field past csv's limit
            raise ValueError(f"{where}: not a CSV curve ({e}); a learning curve is {ACCEPTED}") from None
    elif suffix == ".json":
        points, value = _json_points(text, where)
    else:
        raise ValueError(f"{where}: a learning curve is a .csv or .json file: {ACCEPTED}")
    _check_steps(points, steps, where)
    optimal = P.references(task)["optimal"]
    evals = [{"timesteps": t, "mean": v if value == "mean" else v * optimal / 100.0,
              "percent_of_optimal": 100.0 * v / optimal if value == "mean" else v} for t, v, _ in points]
    curve = P.curve_points(evals, budget, P.references(task))
    if not curve:
        every = P.BUDGETS[budget] // P.CHECKPOINTS
        raise ValueError(f"{where}: no point lies near a fifth of the budget {budget} ({every:,}, {2 * every:,}, ... "
                         f"{P.BUDGETS[budget]:,} steps, within half a fifth): the protocol's curve is read there")
    return curve


def _csv_points(text: str, where: str) -> tuple[list[tuple[int, float, str]], str]:
    """The points of a CSV curve: (steps, value, where) per row, and which value its header names."""
    rows = csv.reader(io.StringIO(text, newline=""))
    header = [c.strip() for c in next(rows, [])]
    if len(header) != 2 or header[0] != "timesteps" or header[1] not in VALUES:
        raise ValueError(f"{where}: line 1: the header must be timesteps,mean or timesteps,percent_of_optimal, got "
                         f"{ascii(','.join(header))[:60]}")
    points = []
    for line, row in enumerate(rows, start=2):
        if not row:
            continue
        at = f"{where}: line {line}"
        if len(points) >= MAX_CURVE_ROWS:
            raise ValueError(f"{at}: more than {MAX_CURVE_ROWS:,} points (MAX_CURVE_ROWS)")
        if len(row) != 2:
            raise ValueError(f"{at}: a row is two numbers, timesteps and {header[1]}, got {len(row)} fields")
        points.append((_steps(row[0].strip(), at), _value(row[1].strip(), header[1], at), at))
    return points, header[1]


def _json_points(text: str, where: str) -> tuple[list[tuple[int, float, str]], str]:
    """The points of a JSON curve: (steps, value, where) per item, and which value its items give."""
    try:
        data = json.loads(text, parse_constant=lambda c: c)  # NaN and Infinity stay strings: refused below
    except (ValueError, RecursionError) as e:  # a JSONDecodeError, or an integer of thousands of digits
        raise ValueError(f"{where}: not JSON ({e}); a learning curve is {ACCEPTED}") from None
    if not isinstance(data, list) or not data:
        raise ValueError(f"{where}: a JSON curve is a non-empty list of {{\"timesteps\": N, \"mean\": X}} objects")
    if len(data) > MAX_CURVE_ROWS:
        raise ValueError(f"{where}: {len(data):,} points, more than {MAX_CURVE_ROWS:,} (MAX_CURVE_ROWS)")
    value = next((k for k in VALUES if isinstance(data[0], dict) and k in data[0]), VALUES[0])
    points = []
    for i, item in enumerate(data, start=1):
        at = f"{where}: point {i}"
        if not isinstance(item, dict) or set(item) != {"timesteps", value}:
            raise ValueError(f"{at}: each point is {{\"timesteps\": N, \"{value}\": X}} (the first point's keys), "
                             f"got {ascii(item)[:60]}")
        t, v = item["timesteps"], item[value]
        if type(t) is not int:
            raise ValueError(f"{at}: timesteps must be a whole number of steps, got {ascii(t)[:40]}")
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise ValueError(f"{at}: {value} must be a finite number, got {ascii(v)[:40]}")
        points.append((t, float(v), at))
    return points, value


def _steps(text: str, at: str) -> int:
    """A CSV row's steps: a whole number written in digits."""
    if not text.isascii() or not text.isdigit() or len(text) > 15:
        raise ValueError(f"{at}: timesteps must be a whole number of steps (digits), got {ascii(text)[:40]}")
    return int(text)


def _value(text: str, what: str, at: str) -> float:
    """A CSV row's mean (or percent of optimal): a finite decimal number."""
    if not _NUMBER.fullmatch(text) or not math.isfinite(float(text)):
        raise ValueError(f"{at}: {what} must be a finite decimal number, got {ascii(text)[:40]}")
    return float(text)


def _check_steps(points: list[tuple[int, float, str]], steps: int, where: str) -> None:
    """The points' steps: at least one point, not negative, increasing, the last at most the declared ``steps``."""
    if not points:
        raise ValueError(f"{where}: no points; a learning curve is {ACCEPTED}")
    last = -1
    for t, _, at in points:
        if t < 0:
            raise ValueError(f"{at}: timesteps must not be negative, got {t}")
        if t <= last:
            raise ValueError(f"{at}: timesteps must increase from point to point, got {t:,} after {last:,}")
        if t > steps:
            raise ValueError(f"{at}: timesteps {t:,} is past the {steps:,} steps the entry declares "
                             "(--training-steps)")
        last = t
