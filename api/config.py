"""Settings from the environment (prefix ``ADDNORM_``); nothing else in the app reads os.environ."""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

REPO_ROOT = Path(__file__).resolve().parent.parent


def _default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "addnorm"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="ADDNORM_", env_ignore_empty=True)

    environment: Literal["development", "production"] = "development"
    data_dir: Path = Field(default_factory=_default_data_dir)
    database_url: str | None = None
    # Exercise content and question bank; the repo's own by default.
    content_dir: Path = REPO_ROOT / "exercises"

    # Sandbox profile: strict (every layer), standard, or none (development only). See SECURITY.md.
    sandbox: Literal["strict", "standard", "insecure"] = "strict"
    grader_slots: int = Field(default=2, ge=1, le=64)
    time_limit_seconds: float = Field(default=5.0, gt=0, le=60)
    cpu_seconds: int = Field(default=10, ge=1, le=120)
    queue_timeout_seconds: float = Field(default=10.0, gt=0)

    # Shortest mock interview a learner may ask for, in minutes. Tests lower it to make the
    # clock run out in seconds; a real interview of a few minutes would be pointless.
    interview_min_minutes: float = Field(default=10.0, gt=0, le=180)

    # Fairness: per learner.
    max_concurrent_gradings: int = Field(default=2, ge=1)
    submissions_per_minute: int = Field(default=30, ge=1)

    @model_validator(mode="after")
    def _no_insecure_sandbox_in_production(self) -> Settings:
        if self.environment == "production" and self.sandbox == "insecure":
            raise ValueError(
                "ADDNORM_SANDBOX=insecure lets submissions read files and open sockets; it is "
                "for development only and refused with ADDNORM_ENVIRONMENT=production"
            )
        return self

    @property
    def sqlalchemy_url(self) -> str:
        return self.database_url or f"sqlite:///{self.data_dir / 'addnorm.db'}"


@lru_cache
def get_settings() -> Settings:
    return Settings()
