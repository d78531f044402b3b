"""Watch mode driven by real file writes: the debouncer alone, then ``addnorm watch`` end to end."""

from __future__ import annotations

import queue
import subprocess
import sys
import threading
import time
from collections.abc import Iterable
from pathlib import Path

from addnorm_client.cli.watch import FileWatcher
from tests.catalog_topics import exercise_topics
from tests.cli.conftest import DETACHED, SOLUTION, UNBIASED, Learner, one_line_error

STARTER_HEAD = "# addnorm: exercise layer_norm\n"


def test_a_burst_of_writes_is_one_change_and_an_identical_save_none(tmp_path: Path) -> None:
    path = tmp_path / "f.py"
    path.write_text("a = 1\n")
    watcher = FileWatcher(path, quiet=0.3, poll=0.02)
    watcher.accept(path.read_text())

    def burst() -> None:
        for text in ("a = 2\n", "", "a = 3\n"):  # a truncate-then-write save, then a formatter
            path.write_text(text)
            time.sleep(0.05)

    writer = threading.Thread(target=burst)
    writer.start()
    assert watcher.next_change(timeout=10) == "a = 3\n"
    writer.join()
    assert watcher.next_change(timeout=0.6) is None  # nothing more happened

    path.write_text("a = 3\n")  # saved again, same content
    assert watcher.next_change(timeout=0.8) is None
    path.unlink()  # an editor's rename-over: gone for a moment, then back changed
    time.sleep(0.1)
    path.write_text("a = 4\n")
    assert watcher.next_change(timeout=10) == "a = 4\n"


class Lines:
    """A subprocess's stdout, read by a thread, so the test can wait for a line with a deadline."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.seen: list[str] = []
        self._queue: queue.Queue[str] = queue.Queue()
        assert process.stdout is not None
        self._stream = process.stdout
        self._reader = threading.Thread(target=self._pump, args=(process.stdout,), daemon=True)
        self._reader.start()

    def close(self) -> None:
        """After the process ended: the reader hits end of file, then the pipe is closed."""
        self._reader.join(timeout=10)
        self._stream.close()

    def _pump(self, stream: Iterable[str]) -> None:
        for line in stream:
            self._queue.put(line)

    def wait_for(self, text: str, timeout: float = 120) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self._queue.get(timeout=0.5)
            except queue.Empty:
                continue
            self.seen.append(line)
            if text in line:
                return line
        raise AssertionError(f"no line with {text!r} in:\n{''.join(self.seen)}")


def test_watch_rechecks_and_resubmits_on_every_save(signed_up: Learner) -> None:
    assert signed_up.run("start", "layer_norm").returncode == 0
    path = signed_up.home / "layer_norm.py"
    process = subprocess.Popen(
        [sys.executable, "-m", "api.cli", "watch", "layer_norm.py", "--exit-on-pass"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=signed_up.env,
        cwd=signed_up.home,
        start_new_session=True,  # no terminal to read
    )
    out = Lines(process)
    try:
        # The starter fails its local cases, so nothing is submitted.
        out.wait_for("0 of 4 local cases match")
        out.wait_for("not submitted")
        out.wait_for("watching")

        path.write_text(STARTER_HEAD + UNBIASED)
        out.wait_for("local cases match")
        out.wait_for("not submitted")

        path.write_text(STARTER_HEAD + DETACHED)
        # The forward pass is right, the gradients are not: the local backward check says so.
        out.wait_for("is not the forward's derivative")
        out.wait_for("not submitted")

        path.write_text(STARTER_HEAD + SOLUTION)
        out.wait_for("4 of 4 local cases match")
        out.wait_for("layer_norm: PASSED")
        out.wait_for(f"1/{len(exercise_topics())} exercises solved")
        out.wait_for("next: addnorm start")
        assert process.wait(timeout=60) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        out.close()


def test_watch_says_when_a_save_is_not_utf8_and_keeps_watching(signed_up: Learner) -> None:
    """The same one line as ``addnorm check`` says for that file, then the next save runs."""
    assert signed_up.run("start", "layer_norm").returncode == 0
    path = signed_up.home / "layer_norm.py"
    process = subprocess.Popen(
        [sys.executable, "-m", "api.cli", "watch", "layer_norm.py", "--exit-on-pass"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=signed_up.env,
        cwd=signed_up.home,
        start_new_session=True,
    )
    out = Lines(process)
    try:
        out.wait_for("watching")
        path.write_bytes(STARTER_HEAD.encode() + b"x = '\xff\xfe'\n")
        checked = signed_up.run("check", "layer_norm.py")
        said = one_line_error(checked)
        assert "not UTF-8" in said, said
        assert out.wait_for(said, timeout=60).strip() == said
        out.wait_for("watching")

        path.write_text(STARTER_HEAD + SOLUTION)
        out.wait_for("layer_norm: PASSED")
        assert process.wait(timeout=60) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        out.close()
