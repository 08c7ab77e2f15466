"""Optional dependencies: a clear message naming the extra to install, before any work is done."""

from __future__ import annotations

import importlib.util

EXTRAS = {"torch": "train", "stable_baselines3": "train", "sb3_contrib": "train", "yaml": "train",
          "matplotlib": "plot", "pettingzoo": "multiplayer", "ray": "rllib",
          "PIL": "render", "moviepy": "video", "selenium": "browser"}
"""The extra of ``yacht-env`` that installs each optional package."""


def require(*modules: str, what: str) -> None:
    """``ModuleNotFoundError`` naming ``what`` needs them and the ``pip install "yacht-env[extra]"`` command, unless
    every one of the top-level ``modules`` (keys of :data:`EXTRAS`) can be imported. Looks them up without
    importing them."""
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        extras = sorted({EXTRAS.get(m, m) for m in missing})
        cmd = " ".join(f'pip install "yacht-env[{e}]"' for e in extras)
        raise ModuleNotFoundError(f"{what} needs {', '.join(missing)}, which is not installed: {cmd}",
                                  name=missing[0])
