from __future__ import annotations

import polars as pl
import pytest
from hypothesis import settings

from tests.helpers import sweep_frame

settings.register_profile("ci", max_examples=60, deadline=None, derandomize=True)
settings.register_profile("dev", max_examples=30, deadline=None)
settings.load_profile("ci")


@pytest.fixture
def sweep() -> pl.DataFrame:
    return sweep_frame()
