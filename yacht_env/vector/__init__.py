"""The vectorised environment: N games in arrays, stepped at once by the engine's numba kernels (see
:mod:`yacht_env.vector.env`)."""

from __future__ import annotations

from yacht_env.engine.sampler import LegalActionSampler
from yacht_env.vector.env import YachtVectorEnv

__all__ = ["LegalActionSampler", "YachtVectorEnv"]
