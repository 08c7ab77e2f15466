"""The one memory limit of the solver's tables: ``YACHT_ENV_TABLE_GB``, read and checked here only.

Every table the solver builds (reach, distribution, two-player) compares what it needs, computed from the rule set's
sizes before anything is allocated, with :func:`table_limit_gb`; :func:`refuse_above_limit` words the refusal.
"""

from __future__ import annotations

import math
import os

MEMORY_ENV = "YACHT_ENV_TABLE_GB"
"""Environment variable: the most GB (10^9 bytes) one table may take while it is built (default 4)."""
DEFAULT_GB = 4.0


def table_limit_gb() -> float:
    """The limit in GB; ``ValueError`` for a value that is not a positive finite number (nan and inf would turn the
    guard off)."""
    raw = os.environ.get(MEMORY_ENV, f"{DEFAULT_GB:g}")
    try:
        limit = float(raw)
    except ValueError:
        limit = math.nan
    if not (math.isfinite(limit) and limit > 0):
        raise ValueError(f"{MEMORY_ENV} must be a positive number of GB (such as 4 or 14.5), got {raw!r}")
    return limit


def refuse_above_limit(need_bytes: float, what: str, detail: str) -> None:
    """``ValueError`` if ``need_bytes`` is above the limit: ``what`` needs the size (``detail`` says of what), the
    limit, and the setting that allows it."""
    limit = table_limit_gb()
    need = need_bytes / 1e9
    if need > limit:
        size = f"{need:,.2f} GB" if need >= 0.1 else f"{need * 1e3:.1f} MB"
        raise ValueError(f"{what} needs {size} of memory ({detail}), more than the {limit:g} GB allowed; set "
                         f"{MEMORY_ENV} to allow it (the documentation's page 'Distributions, targets, winning', "
                         "objectives.html, gives the time and the memory each table takes)")
