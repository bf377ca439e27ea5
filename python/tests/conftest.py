"""Shared set-up of the gridops Python tests: the package under test, seeded generators and a
small Hypothesis profile (the whole suite must stay fast on a loaded 2-core machine)."""

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "gridops",
    max_examples=int(os.environ.get("GRIDOPS_HYPOTHESIS_EXAMPLES", "25")),
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("gridops")


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


def shared_dir():
    """../shared of the checkout (conformance data), or None."""
    d = os.environ.get("GRIDOPS_SHARED_DIR")
    if not d:
        d = os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared")
    return d if os.path.isdir(d) else None
