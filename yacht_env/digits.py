"""Whole numbers: what counts as an integer value (:func:`is_int`), and integers written as text (the command line,
agent specs such as ``optimal-reach:200``): ASCII decimal digits only. Python's ``int()`` also takes ``1_0`` and the
digits of other scripts (``٧``), and gives up on thousands of digits with advice about
``sys.set_int_max_str_digits``; :func:`parse_digits` takes none of them."""

from __future__ import annotations

import re

import numpy as np

MAX_DIGITS = 30
"""The longest number read (more than any count, seed or score here needs)."""
_DIGITS = re.compile(rf"-?[0-9]{{1,{MAX_DIGITS}}}")


def parse_digits(text: str) -> int | None:
    """The integer ``text`` writes in ASCII decimal digits (an optional ``-``, spaces around it ignored), else
    ``None`` (``1_0``, ``٧``, ``+1``, ``1.0``, an empty string, more than :data:`MAX_DIGITS` digits)."""
    stripped = text.strip(" \t\r\n")
    return int(stripped) if _DIGITS.fullmatch(stripped) else None


def is_int(v: object) -> bool:
    """An integer (Python or numpy), not a bool and not a float, even an integral one."""
    return type(v) is int or isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))
