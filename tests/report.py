"""The suite's end-of-run tables (the hostile verdicts observed, the question bank's guessing
strategies), printed under the test summary by ``tests/conftest.py``.

A conftest adds its lines at ``pytest_sessionfinish``; under pytest-xdist each worker's lines
travel to the controller (``dump`` on the worker, ``load`` on the controller), so a parallel run
prints the same tables as a serial one, each worker's rows under one title.
"""

from __future__ import annotations

import json

_SECTIONS: dict[str, list[str]] = {}


def add(title: str, lines: list[str]) -> None:
    _SECTIONS.setdefault(title, []).extend(lines)


def sections() -> list[tuple[str, list[str]]]:
    return [(title, lines) for title, lines in _SECTIONS.items() if lines]


def dump() -> str:
    return json.dumps(_SECTIONS)


def load(text: str) -> None:
    for title, lines in json.loads(text).items():
        add(str(title), [str(line) for line in lines])
