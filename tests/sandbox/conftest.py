"""Fixtures for the sandbox tests; the machinery lives in ``sandbox_attempt``."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sandbox_attempt import Runner, attempt

from api.grading import sandbox
from api.grading.sandbox import Layer, LayerStatus


@pytest.fixture(scope="session")
def status() -> dict[Layer, LayerStatus]:
    """Probed once, as the zygote does; every forked child inherits the prepared state."""
    return sandbox.prepare()


@pytest.fixture
def run(status: dict[Layer, LayerStatus]) -> Iterator[Runner]:
    yield attempt
