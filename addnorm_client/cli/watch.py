"""Watch mode's file watching: one file, polled, debounced.

Polling the file's ``stat`` every 100 ms costs nothing measurable and behaves the same on every
file system and editor; event APIs (inotify) lose the file when an editor saves by writing a new
file and renaming it over the old one, which vim and many IDEs do. Debounced: a save counts once
the file has stopped changing for ``quiet`` seconds, so an editor's truncate-then-write, or a
formatter rewriting the file right after the save, triggers one run rather than two, and never
a run on a half-written file. A save that leaves the content unchanged triggers nothing. A save
that is not UTF-8 text is reported once (``NotText``, the same words as ``addnorm check``), and
watching goes on.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from addnorm_client.cli.workfile import not_text
from addnorm_client.client import AddnormError

Stamp = tuple[int, int, int] | None  # (inode, size, mtime_ns), None while the file is missing


def _stamp(path: Path) -> Stamp:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class NotText(AddnormError):
    """The file changed to content that is not UTF-8 text; ``str()`` says so."""


@dataclass(frozen=True)
class _Content:
    text: str | None  # None: not UTF-8
    digest: str


class FileWatcher:
    def __init__(
        self,
        path: Path,
        *,
        quiet: float = 0.3,
        poll: float = 0.1,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.path = path
        self.quiet = quiet
        self.poll = poll
        self._clock = clock
        self._sleep = sleep
        self._seen = _stamp(path)
        self._last_text: str | None = None

    def accept(self, text: str) -> None:
        """Record ``text`` as handled, so only a later, different content counts as a change."""
        self._last_text = _digest(text.encode())

    def next_change(self, timeout: float | None = None) -> str | None:
        """Block until the file holds new content that has been still for ``quiet`` seconds.

        Returns that content, or None once ``timeout`` seconds pass without one. Raises
        ``NotText`` once for new content that is not UTF-8; the next call goes on watching.
        """
        changed_at: float | None = None
        give_up = None if timeout is None else self._clock() + timeout
        while give_up is None or self._clock() < give_up:
            stamp = _stamp(self.path)
            now = self._clock()
            if stamp != self._seen:
                self._seen, changed_at = stamp, now
            elif changed_at is not None and stamp is not None and now - changed_at >= self.quiet:
                changed_at = None
                content = self._read()
                if content is not None and content.digest != self._last_text:
                    self._last_text = content.digest
                    if content.text is None:
                        raise NotText(str(not_text(self.path)))
                    return content.text
            self._sleep(self.poll)
        return None

    def _read(self) -> _Content | None:
        """The file's content, or None while it cannot be read (mid-save): wait for the next
        change."""
        try:
            text = self.path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            try:
                return _Content(None, _digest(self.path.read_bytes()))
            except OSError:
                return None
        except OSError:
            return None
        return _Content(text, _digest(text.encode()))
