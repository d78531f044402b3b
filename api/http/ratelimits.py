"""Rate limits by client address and by learner, in moving windows.

In this process's memory by default (``moving_window``); in Redis when one is configured (queue
mode), through the ``limits`` library, so every API process counts against one limit, as the
grading limits in ``api.http.fairness`` do. If Redis cannot be reached the count falls back to
this process's memory (logged): the limit then holds per process instead of per deployment,
which is weaker but still a bound.

Each refusal is ``Limited``: a 429 with ``Retry-After`` and a one-line reason in English and
Chinese (``api.http.limited`` turns it into the answer).
"""

from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass

from limits import RateLimitItem, RateLimitItemPerHour, RateLimitItemPerMinute
from limits.storage import RedisStorage
from limits.strategies import MovingWindowRateLimiter

from api.config import Settings
from api.http.moving_window import MovingWindows

log = logging.getLogger("addnorm.ratelimits")


class Limited(Exception):
    # Not a frozen dataclass: an exception raised through a dependency's context manager gets
    # its traceback assigned.
    def __init__(
        self, reason: str, reason_zh: str, retry_after: int, *, subject: str = "requests"
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.reason_zh = reason_zh
        self.retry_after = retry_after
        # The API's one line: "Too many <subject>: <reason>".
        self.subject = subject


@dataclass(frozen=True)
class Rule:
    item: RateLimitItem
    reason: str
    reason_zh: str
    subject: str = "requests"


def rules(settings: Settings) -> dict[str, Rule]:
    s = settings
    return {
        # Per client address.
        "requests": Rule(
            RateLimitItemPerMinute(s.requests_per_minute),
            f"more than {s.requests_per_minute} requests a minute from your address",
            f"你的地址每分钟的请求超过 {s.requests_per_minute} 次",
        ),
        "signups": Rule(
            RateLimitItemPerHour(s.signups_per_hour),
            f"more than {s.signups_per_hour} accounts an hour from your address",
            f"你的地址每小时创建的账户超过 {s.signups_per_hour} 个",
        ),
        "signins": Rule(
            RateLimitItemPerMinute(s.signins_per_minute),
            f"more than {s.signins_per_minute} sign-in attempts a minute from your address",
            f"你的地址每分钟尝试登录超过 {s.signins_per_minute} 次",
        ),
        "address_submissions": Rule(
            RateLimitItemPerHour(s.address_submissions_per_hour),
            f"more than {s.address_submissions_per_hour} submissions an hour from your address",
            f"你的地址每小时提交超过 {s.address_submissions_per_hour} 次",
            "submissions",
        ),
        # Per learner.
        "submissions": Rule(
            RateLimitItemPerHour(s.submissions_per_hour),
            f"more than {s.submissions_per_hour} submissions an hour",
            f"每小时提交超过 {s.submissions_per_hour} 次",
            "submissions",
        ),
        "static_stored": Rule(
            RateLimitItemPerHour(max(s.static_rejections_stored_per_hour, 1)),
            "",
            "",
        ),
        "answers": Rule(
            RateLimitItemPerHour(s.answers_per_hour),
            f"more than {s.answers_per_hour} answers an hour",
            f"每小时作答超过 {s.answers_per_hour} 次",
        ),
        "interviews": Rule(
            RateLimitItemPerHour(s.interviews_per_hour),
            f"more than {s.interviews_per_hour} mock interviews started an hour",
            f"每小时开始的模拟面试超过 {s.interviews_per_hour} 场",
        ),
        "interview_clock": Rule(
            RateLimitItemPerHour(s.interview_clock_per_hour),
            f"more than {s.interview_clock_per_hour} items opened or left an hour",
            f"每小时打开或离开题目超过 {s.interview_clock_per_hour} 次",
        ),
        "draft_saves": Rule(
            RateLimitItemPerHour(s.draft_saves_per_hour),
            f"more than {s.draft_saves_per_hour} draft saves an hour",
            f"每小时保存草稿超过 {s.draft_saves_per_hour} 次",
        ),
    }


class ClientLimits:
    def __init__(self, settings: Settings) -> None:
        self.rules = rules(settings)
        self.static_budget = settings.static_rejections_stored_per_hour
        self._memory = MovingWindows()
        self._shared: MovingWindowRateLimiter | None = None
        url = settings.shared_redis_url
        if url is not None:
            storage = RedisStorage(
                url,
                key_prefix=f"{settings.redis_prefix}ratelimits",
                socket_timeout=2,
                socket_connect_timeout=2,
            )
            self._shared = MovingWindowRateLimiter(storage)

    def _hit(self, rule: Rule, key: str) -> tuple[bool, float]:
        """Count one against ``key``; whether it was within the limit, and when the oldest
        counted hit leaves the window."""
        if self._shared is not None:
            try:
                allowed = self._shared.hit(rule.item, key)
                reset = self._shared.get_window_stats(rule.item, key).reset_time
                return allowed, reset
            except Exception as exc:  # redis errors come in several classes
                log.warning("shared rate limits unavailable, counting in this process: %s", exc)
        return self._memory.hit(key, rule.item.amount, rule.item.get_expiry())

    def hit(self, name: str, key: str | int) -> None:
        """Count one request of kind ``name`` for ``key`` (an address or a learner id), or raise
        Limited."""
        rule = self.rules[name]
        allowed, reset = self._hit(rule, f"{name}:{key}")
        if not allowed:
            wait = max(1, math.ceil(reset - time.time()))
            raise Limited(rule.reason, rule.reason_zh, wait, subject=rule.subject)

    def may_store_static_rejection(self, user_id: int) -> bool:
        """Whether another submission the static check refused may be stored this hour."""
        if self.static_budget == 0:
            return False
        allowed, _ = self._hit(self.rules["static_stored"], f"static_stored:{user_id}")
        return allowed
