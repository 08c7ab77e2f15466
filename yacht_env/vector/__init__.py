"""The vectorised engine: N games in arrays, stepped at once by numba kernels (see :mod:`yacht_env.vector.env`)."""

from __future__ import annotations

from yacht_env.vector.env import YachtVectorEnv
from yacht_env.vector.kernels import LegalActionSampler

__all__ = ["LegalActionSampler", "YachtVectorEnv"]
