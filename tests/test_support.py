"""The suite's own guard on its servers: a traceback in a server's log fails the test that
stopped it (``tests.support.stop_server``)."""

from __future__ import annotations

from pathlib import Path

from tests.support import logged_tracebacks

SAMPLE = """INFO:     127.0.0.1:5000 - "POST /exercises/layer_norm/submissions HTTP/1.1" 201 Created
ERROR:    Exception in ASGI application
Traceback (most recent call last):
  File "api/http/submissions.py", line 1, in create_submission
ValueError: boom
INFO:     127.0.0.1:5000 - "GET /health HTTP/1.1" 200 OK
"""


def test_a_logged_traceback_is_found_with_what_was_logged_with_it(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    log.write_text(SAMPLE + SAMPLE)
    found = logged_tracebacks(log, context=3)
    assert len(found) == 2
    assert found[0].splitlines() == [
        "ERROR:    Exception in ASGI application",
        "Traceback (most recent call last):",
        '  File "api/http/submissions.py", line 1, in create_submission',
        "ValueError: boom",
    ]


def test_a_traceback_behind_a_log_prefix_is_found(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    log.write_text(
        "INFO:     Waiting for application startup.\nERROR:    " + SAMPLE.split("\n", 2)[2]
    )
    found = logged_tracebacks(log, context=1)
    assert found == [
        "INFO:     Waiting for application startup.\nERROR:    Traceback (most recent call last):"
    ]


def test_a_clean_log_and_a_missing_one_hold_none(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    log.write_text(SAMPLE.replace("Traceback (most recent call last):", "no traceback here"))
    assert logged_tracebacks(log) == []
    assert logged_tracebacks(tmp_path / "absent.log") == []
