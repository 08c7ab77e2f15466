"""Optional dependencies: a clear message naming the extra to install, before any work is done.

``pip install yacht-env`` (or ``pip install .`` in a checkout) installs the environments, the solver, the built-in
agents and the ``yacht`` tools; what needs more names its extra and prints the README's install line for it.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence

EXTRAS = {"torch": "train", "stable_baselines3": "train", "sb3_contrib": "train", "yaml": "train",
          "pydantic": "train", "scipy": "train",
          "matplotlib": "plot", "pettingzoo": "multiplayer", "ray": "rllib",
          "PIL": "render", "moviepy": "video", "selenium": "browser", "pyspiel": "openspiel"}
"""The extra of ``yacht-env`` that installs each optional package (by its top-level module)."""

TORCH_EXTRAS = ("train", "rllib")
"""The extras that bring torch: their message says how to get its CPU-only build."""

TORCH_CPU_LINE = "pip install torch --index-url https://download.pytorch.org/whl/cpu"
"""PyTorch's documented install of its CPU-only build on Linux (PyPI's torch is the CUDA build there)."""


def install_line(extra: str) -> str:
    """The README's command that installs ``extra``: ``pip install "yacht-env[train]"``."""
    return f'pip install "yacht-env[{extra}]"'


def words(items: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def missing_message(missing: Sequence[str], what: str) -> str:
    """The sentence for ``what`` lacking the top-level modules ``missing`` (keys of :data:`EXTRAS`): what it
    needs, the extra(s) that install them, the install line(s) and, for torch, its CPU-only build."""
    unknown = [m for m in missing if m not in EXTRAS]
    if unknown:
        raise ValueError(f"no extra of yacht-env installs {words(unknown)}; known: {', '.join(EXTRAS)}")
    extras = sorted({EXTRAS[m] for m in missing})
    verb = "is" if len(missing) == 1 else "are"
    msg = (f"{what} needs {words(list(missing))}, which {verb} not installed; install the {words(extras)} "
           f"extra{'s' if len(extras) > 1 else ''}: {' and '.join(install_line(e) for e in extras)}")
    if any(e in TORCH_EXTRAS for e in extras):
        msg += f" (on Linux PyPI's torch is the CUDA build; for the CPU-only build run {TORCH_CPU_LINE} first)"
    return msg


def require(*modules: str, what: str) -> None:
    """``ModuleNotFoundError`` saying that ``what`` needs the missing ones of the top-level ``modules`` (keys of
    :data:`EXTRAS`) and how to install them (:func:`missing_message`), unless every one can be imported. Looks them
    up without importing them."""
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        raise ModuleNotFoundError(missing_message(missing, what), name=missing[0])
