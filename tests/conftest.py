"""Shared test helpers."""

from __future__ import annotations

import os

import numpy as np
import pytest

# keep the solver's disk cache out of the user's home during tests
os.environ.setdefault("YACHT_ENV_CACHE_DIR", os.path.join(os.path.dirname(__file__), "..", ".pytest_cache", "solver"))



@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(12345)
