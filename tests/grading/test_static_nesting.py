"""The static check on pathological source: an ``error`` verdict in plain words, never an
exception out of the service (these raised RecursionError/MemoryError into a 500)."""

from __future__ import annotations

import threading

import pytest

from api.grading import static

TAIL = "\nclass LayerNorm:\n    pass\n"
DEEP = {
    "unary_minus": "x = " + "-" * 60_000 + "1",
    "not": "x = " + "not " * 15_000 + "1",
    "lambdas": "x = " + "lambda: " * 7_000 + "1",
    "parentheses": "x = " + "(" * 30_000 + "1" + ")" * 30_000,
    "chained_calls": "x = f" + "()" * 30_000,
    "attributes": "x = a" + ".b" * 30_000,
    "sum": "x = 1" + "+1" * 30_000,
    "power": "x = 2" + "**2" * 20_000,
}


@pytest.mark.parametrize("name", sorted(DEEP))
def test_deep_nesting_is_an_error_verdict(name: str) -> None:
    problems: list[static.StaticProblem | None] = []
    # In a worker thread, as the API runs it (a smaller stack than the main thread's, if any).
    worker = threading.Thread(
        target=lambda: problems.append(
            static.check(DEEP[name] + TAIL, class_name="LayerNorm", banned=())
        )
    )
    worker.start()
    worker.join()
    assert len(problems) == 1
    problem = problems[0]
    assert problem is not None and problem.status == "error"
    assert "nested too deeply" in problem.message


@pytest.mark.parametrize(
    ("code", "words"),
    [
        ("x = '\ud800'" + TAIL, "cannot be parsed"),
        ("x = 1\x00" + TAIL, "null bytes"),
        ("x = (" + TAIL, "SyntaxError at line 1"),
    ],
)
def test_unparseable_text_is_an_error_verdict(code: str, words: str) -> None:
    problem = static.check(code, class_name="LayerNorm", banned=())
    assert problem is not None and problem.status == "error"
    assert words in problem.message


def test_moderate_nesting_is_still_graded() -> None:
    """The guard is the parser's own: ordinary deep-ish code passes the static check."""
    code = "x = " + "(" * 50 + "1" + ")" * 50 + "\ny = " + "-" * 100 + "1" + TAIL
    assert static.check(code, class_name="LayerNorm", banned=()) is None
