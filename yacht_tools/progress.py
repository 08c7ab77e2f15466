"""Progress of long commands on stderr, also when nobody watches a terminal.

On a terminal: tqdm's bar, redrawn in place. Where stderr is not a terminal (piped, captured, a log file), tqdm's
redraws would be carriage returns in one endless line, or nothing at all: there it writes a plain line every
:data:`LINE_INTERVAL_S` seconds instead, after :data:`DELAY_S` seconds of quiet (a short run writes nothing).
``yacht eval``, ``yacht tournament`` and ``train.py`` report through :func:`progress_bar`. Every bar has a total: a
run that goes past it (PPO learns in whole rollouts) moves the total with it, so that a bar ends at 100%, never at
tqdm's ``0% 57344/?``.
"""

from __future__ import annotations

import sys
from typing import Any, TextIO

from tqdm.auto import tqdm

from yacht_env.jit.numba_cache import compile_seconds

LINE_INTERVAL_S = 5.0
"""Seconds between two progress lines where stderr is not a terminal."""

DELAY_S = 2.0
"""Seconds before the first progress line where stderr is not a terminal."""


LINE_FORMAT = "{desc}: {percentage:3.0f}% {n_fmt}/{total_fmt} {unit} [{elapsed}<{remaining}, {rate_fmt}{postfix}]"
"""A progress line: ``tournament: 40% 800/2000 game [00:14<00:21, 57.01game/s]``."""


class LineWriter:
    """A file for tqdm that turns each redraw (``\\r`` and the status) into a line of its own."""

    def __init__(self, file: TextIO) -> None:
        self.file = file

    def write(self, s: str) -> int:
        line = s.replace("\r", "").strip()
        if line:
            self.file.write(line + "\n")
            self.file.flush()
        return len(s)

    def flush(self) -> None:
        self.file.flush()


class Bar(tqdm):
    """tqdm whose total grows to the count when the count passes it: the percentage, the rate and the time left stay
    shown, and a finished run reads 100% (tqdm itself drops a passed total and shows ``?`` and 0%). The seconds
    numba spends compiling while the bar is open do not count: its clock starts when the work does, so a cold
    start (the compile announced on a line of its own) shows no rate or time left made of compile time. Nor does the
    wait for the first update (a model's first calls, tables read, a first batch): the rate and the time left are
    measured from the first update on, and shown from the second (a first line of ``1.30s/game`` and twenty
    minutes left, for a run that then ends in a second, is what a warm-up alone would show)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._compiled = compile_seconds()
        self._warming = True
        super().__init__(*args, **kwargs)

    def update(self, n: float | None = 1) -> bool | None:
        """Advance by ``n``; past the total, the total becomes the new count. The first update only counts: the
        rate starts from it."""
        compiled = compile_seconds()
        if compiled > self._compiled and not self.disable:  # move the clock past the compile
            self.start_t += compiled - self._compiled
            self.last_print_t += compiled - self._compiled
            self._compiled = compiled
        if self.total is not None and n is not None and self.n + n > self.total:
            self.total = self.n + n
        if self._warming and n and not self.disable:
            self._warming = False
            self.n += n
            self.last_print_n, self.last_print_t = self.n, self._time()  # the rate's first interval starts here
            return None
        return super().update(n)


def _isatty(file: Any) -> bool:
    try:
        return bool(file.isatty())
    except (AttributeError, ValueError):  # no such method, or a closed file
        return False


def progress_bar(total: int | None, desc: str | None = None, unit: str = "it", enabled: bool = True,
                 file: TextIO | None = None, **kwargs: Any) -> Bar:
    """A tqdm bar over ``total`` ``unit`` on ``file`` (stderr): redrawn in place on a terminal, else a line every
    :data:`LINE_INTERVAL_S` s once :data:`DELAY_S` s have passed. ``enabled=False``: a bar that shows nothing.
    Other keyword arguments go to tqdm (``initial``, ``leave``...)."""
    if not enabled:
        return Bar(total=total, desc=desc, unit=unit, disable=True, **kwargs)
    file = file if file is not None else sys.stderr
    if _isatty(file):  # drawn at the first update: after a compile, which then has its own lines above
        return Bar(total=total, desc=desc, unit=unit, file=file, dynamic_ncols=True, delay=kwargs.pop("delay", 0.1),
                   **kwargs)
    return Bar(total=total, desc=desc, unit=unit, file=LineWriter(file), mininterval=LINE_INTERVAL_S,
                delay=DELAY_S, bar_format=LINE_FORMAT, **{**kwargs, "leave": True})
