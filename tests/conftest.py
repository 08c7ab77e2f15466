"""Shared test helpers."""

from __future__ import annotations

import os

import numpy as np
import pytest

# keep the solver's disk cache out of the user's home during tests
os.environ.setdefault("YACHT_ENV_CACHE_DIR", os.path.join(os.path.dirname(__file__), "..", ".pytest_cache", "solver"))
# SB3 models made without a TensorBoard folder open an empty logger folder, by default a new /tmp/SB3-<date> each time
os.environ.setdefault("SB3_LOGDIR", os.path.join(os.path.dirname(__file__), "..", ".pytest_cache", "sb3"))


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(12345)
