"""Start-up work that runs beside the rest of start-up: the sandbox's zygote boots while the
service reads its content and migrates its database (``api.main.build_context``).

A plain thread, joined before the service answers anything: the work's exception (a sandbox
layer missing, the zygote refusing its configuration) is raised in the joining thread, so a
start that cannot be trusted still stops the service, exactly as when it ran in line."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from api.grading import allowlist
from api.grading.pool import GraderPool

if TYPE_CHECKING:
    from api.config import Settings
    from api.content.catalog import Exercise


def pool_for(settings: Settings, catalog: dict[str, Exercise]) -> GraderPool:
    """The grader pool the settings ask for, armed with every exercise's backstop list: the
    service's and a queue worker's alike."""
    return GraderPool(
        slots=settings.grader_slots,
        profile=settings.sandbox,
        cpu_seconds=settings.cpu_seconds,
        queue_timeout=settings.queue_timeout_seconds,
        banned=[
            allowlist.spec_backstop(e.spec.banned, e.spec.allowed, e.spec.kind)
            for e in catalog.values()
        ],
    )


class StartInBackground:
    """``work()`` on its own thread from construction; ``wait()`` joins it and re-raises."""

    def __init__(self, work: Callable[[], None], name: str = "addnorm-start") -> None:
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(work,), name=name, daemon=True)
        self._thread.start()

    def _run(self, work: Callable[[], None]) -> None:
        try:
            work()
        except BaseException as exc:  # handed to wait(): raised where start-up is decided
            self._error = exc

    def wait(self) -> None:
        self._thread.join()
        if self._error is not None:
            error, self._error = self._error, None
            raise error

    def wait_quietly(self) -> None:
        """Join, dropping the work's own error: for a start-up already failing of another
        cause, which is the one to report."""
        self._thread.join()
        self._error = None
