"""Settings refuse an insecure sandbox outside development."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from api.config import Settings


def test_insecure_sandbox_is_refused_in_production() -> None:
    with pytest.raises(ValidationError, match="refused with ADDNORM_ENVIRONMENT=production"):
        Settings(environment="production", sandbox="insecure")


def test_insecure_sandbox_is_allowed_for_development() -> None:
    assert Settings(environment="development", sandbox="insecure").sandbox == "insecure"


def test_unknown_sandbox_profile_is_refused() -> None:
    with pytest.raises(ValidationError):
        Settings(sandbox="none")  # type: ignore[arg-type]


def test_queue_deadlines_below_the_longest_job_are_refused() -> None:
    # Redis would hand a job still being graded to a second worker.
    with pytest.raises(ValidationError, match="VISIBILITY_TIMEOUT_SECONDS=10 must exceed"):
        Settings(visibility_timeout_seconds=10, time_limit_seconds=8, queue_timeout_seconds=5)
    with pytest.raises(ValidationError, match="SWEEP_AFTER_SECONDS=12 must exceed"):
        Settings(sweep_after_seconds=12, time_limit_seconds=8, queue_timeout_seconds=5)


def test_queue_mode_needs_a_redis_broker() -> None:
    with pytest.raises(ValidationError, match="redis:// or rediss://"):
        Settings(broker_url="amqp://guest@localhost//")
    queued = Settings(broker_url="redis://127.0.0.1:6379/3")
    assert queued.queue_mode and queued.shared_redis_url == "redis://127.0.0.1:6379/3"
    assert not Settings().queue_mode and Settings().shared_redis_url is None
