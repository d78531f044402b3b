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
