"""Settings from the environment (prefix ``ADDNORM_``); nothing else in the app reads os.environ."""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

if TYPE_CHECKING:
    from api.clients import Network

REPO_ROOT = Path(__file__).resolve().parent.parent


def _default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "addnorm"


def _default_grader_slots() -> int:
    """One grading per core this process may run on, plus one (at most 17): a slot spends part
    of each job forking and locking down the next child, or waiting for the service to send
    work, and the spare slot keeps every core busy meanwhile (on 2 cores, 2026-11-30: +10-14%
    verdicts/s against 2 slots, measured in turn under the same load; README.md's history)."""
    return min(len(os.sched_getaffinity(0)), 16) + 1


def _default_deciders() -> int:
    """Decider processes (api.grading.deciders): none below four cores, else half the cores (at
    most four). A decider moves the decision off the service's core, which bounds a deployment
    once the other cores keep up: on 2 cores (2026-12-04, interleaved rounds, 16 clients) it
    halved the service's CPU per failing verdict (34.5 -> 16.9 ms) but gave the same verdicts/s
    (21.1 vs 21.6 failing, 24.8 vs 26.9 passing; one core: 11.6 vs 11.4), the cores and not the
    service being the limit there. From four cores on the service becomes the limit (~30 ms per
    failing verdict caps it near 30/s where 4 cores carry ~50): there a decider pays for its
    ~300 MiB (docs/benchmarks.md)."""
    return deciders_for(len(os.sched_getaffinity(0)))


def deciders_for(cores: int) -> int:
    """The default number of deciders on ``cores`` cores (``_default_deciders``)."""
    return 0 if cores < 4 else min(4, cores // 2)


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="ADDNORM_", env_ignore_empty=True)

    environment: Literal["development", "production"] = "development"
    data_dir: Path = Field(default_factory=_default_data_dir)
    database_url: str | None = None
    # Exercise content and question bank; the repo's own by default.
    content_dir: Path = REPO_ROOT / "exercises"
    # Worked solutions (``<slug>.py``), served once a learner has earned them (api.help).
    solutions_dir: Path = REPO_ROOT / "solutions"

    # Sandbox profile: strict (every layer), standard, or none (development only). See SECURITY.md.
    sandbox: Literal["strict", "standard", "insecure"] = "strict"
    grader_slots: int = Field(default_factory=_default_grader_slots, ge=1, le=64)
    time_limit_seconds: float = Field(default=5.0, gt=0, le=60)
    cpu_seconds: int = Field(default=10, ge=1, le=120)
    queue_timeout_seconds: float = Field(default=10.0, gt=0)
    # Decider processes (api.grading.deciders): where a verdict is decided, beside the service
    # instead of on its core. 0 decides in the service's own process, as queue-mode workers do.
    deciders: int = Field(default_factory=_default_deciders, ge=0, le=16)

    # Shortest mock interview a learner may ask for, in minutes. Tests lower it to make the
    # clock run out in seconds; a real interview of a few minutes would be pointless.
    interview_min_minutes: float = Field(default=10.0, gt=0, le=180)
    # Submissions a mock interview takes per coding item (ADDNORM_INTERVIEW_MAX_ATTEMPTS); a
    # learner may ask for fewer or more (up to 10) when starting one.
    interview_max_attempts: int = Field(default=3, ge=1, le=10)

    # Who may create a learner over POST /users: anyone (open), holders of an operator's invite
    # code (invite), or nobody but an operator (closed: POST /admin/learners). See
    # docs/operators.md.
    registration: Literal["open", "invite", "closed"] = "open"

    # Fairness: per learner.
    max_concurrent_gradings: int = Field(default=2, ge=1)
    submissions_per_minute: int = Field(default=30, ge=1)

    # Limits per client address (api.clients: the socket peer, or X-Forwarded-For from one of
    # ADDNORM_TRUSTED_PROXIES, a comma-separated list of addresses and CIDRs; none by default).
    # See docs/shared-deployment.md for the bounds they give and SECURITY.md for what they do not.
    trusted_proxies: str = ""
    requests_per_minute: int = Field(default=1200, ge=1)
    signups_per_hour: int = Field(default=10, ge=1)
    signins_per_minute: int = Field(default=30, ge=1)
    address_submissions_per_hour: int = Field(default=360, ge=1)
    # Gradings one address may have running or waiting for a slot at once (embedded mode).
    gradings_per_address: int = Field(default=4, ge=1)
    # Open connections, and connections without a complete request head, per address.
    connections_per_address: int = Field(default=64, ge=1)
    idle_connections_per_address: int = Field(default=16, ge=1)
    # Quotas per learner.
    submissions_per_hour: int = Field(default=120, ge=1)
    # Submissions refused by the static check (syntax, banned call, size) stored per hour; past
    # it the verdict is answered and nothing is stored.
    static_rejections_stored_per_hour: int = Field(default=10, ge=0)
    answers_per_hour: int = Field(default=300, ge=1)
    draft_saves_per_hour: int = Field(default=240, ge=1)
    # Mock interviews started, and their item clocks moved (opening or leaving an item).
    interviews_per_hour: int = Field(default=20, ge=1)
    interview_clock_per_hour: int = Field(default=600, ge=1)
    drafts_per_learner: int = Field(default=32, ge=1)
    draft_bytes_per_learner: int = Field(default=256 << 10, ge=1024)

    # A browser session ends after this many hours (signed out or not); see api.learning.sessions.
    session_hours: float = Field(default=168.0, gt=0, le=24 * 366)
    # /health's detail (sandbox layers, counters) for anyone; off: strangers see only "ok".
    health_details: bool = False
    # The API reference pages (/docs, /redoc): server-rendered from the schema, no script.
    api_docs: bool = True

    # Queue mode: with a broker (Redis) the API records and enqueues, `addnorm worker` grades.
    broker_url: str | None = None
    # Redis for verdict notices and limits shared by every API process; the broker's by default.
    redis_url: str | None = None
    # Prefix of every Redis key and Celery queue this deployment uses, so several can share one.
    redis_prefix: str = Field(default="addnorm:", min_length=1, max_length=64)
    # How long a submit request waits for the worker's verdict before answering 202 + Location.
    verdict_wait_seconds: float = Field(default=5.0, ge=0, le=60)
    # A delivered but unacknowledged task goes back to the queue after this long (Redis
    # transport); it must exceed the longest job, which is at most time_limit_seconds.
    visibility_timeout_seconds: int = Field(default=300, ge=10)
    # Rows left `queued`/`grading` this long (no verdict) are re-sent by the sweeper...
    sweep_after_seconds: float = Field(default=120.0, gt=0)
    sweep_interval_seconds: float = Field(default=15.0, gt=0)
    # ...until this old, or graded this many times without a verdict: then closed as not graded.
    give_up_after_seconds: float = Field(default=3600.0, gt=0)
    max_attempts: int = Field(default=3, ge=1, le=20)
    # Worker threads per `addnorm worker`; the grader pool's slots by default.
    worker_concurrency: int | None = Field(default=None, ge=1, le=64)

    @model_validator(mode="after")
    def _no_insecure_sandbox_in_production(self) -> Settings:
        if self.environment == "production" and self.sandbox == "insecure":
            raise ValueError(
                "ADDNORM_SANDBOX=insecure lets submissions read files and open sockets; it is "
                "for development only and refused with ADDNORM_ENVIRONMENT=production"
            )
        return self

    @model_validator(mode="after")
    def _queue_deadlines_above_the_longest_job(self) -> Settings:
        # A job holds its task at most the grading time limit (plus the wait for a slot): a
        # shorter redelivery or sweep would grade a healthy job twice while it still runs.
        longest = self.time_limit_seconds + self.queue_timeout_seconds
        if self.visibility_timeout_seconds <= longest:
            raise ValueError(
                f"ADDNORM_VISIBILITY_TIMEOUT_SECONDS={self.visibility_timeout_seconds} must exceed "
                f"the longest job ({longest:g} s: time limit plus queue timeout)"
            )
        if self.sweep_after_seconds <= longest:
            raise ValueError(
                f"ADDNORM_SWEEP_AFTER_SECONDS={self.sweep_after_seconds:g} must exceed the "
                f"longest job ({longest:g} s: time limit plus queue timeout)"
            )
        if self.broker_url is not None and not self.broker_url.startswith(
            ("redis://", "rediss://")
        ):
            raise ValueError("ADDNORM_BROKER_URL must be a redis:// or rediss:// URL")
        return self

    @model_validator(mode="after")
    def _trusted_proxies_parse(self) -> Settings:
        from api.clients import parse_networks

        parse_networks(self.trusted_proxies)  # raises, naming the bad entry
        return self

    @property
    def proxies(self) -> tuple[Network, ...]:
        from api.clients import parse_networks

        return parse_networks(self.trusted_proxies)

    @property
    def queue_mode(self) -> bool:
        return self.broker_url is not None

    @property
    def shared_redis_url(self) -> str | None:
        """Redis for notices and shared limits: ADDNORM_REDIS_URL, else the broker's."""
        return self.redis_url or self.broker_url

    @property
    def sqlalchemy_url(self) -> str:
        return self.database_url or f"sqlite:///{self.data_dir / 'addnorm.db'}"


@lru_cache
def get_settings() -> Settings:
    return Settings()
