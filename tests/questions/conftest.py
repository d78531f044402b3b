from __future__ import annotations

from pathlib import Path

import pytest

from api.content.questions import QuestionBank, load_question_bank
from tests import report

REPO = Path(__file__).resolve().parents[2]
QUESTIONS_DIR = REPO / "exercises" / "questions"


@pytest.fixture(scope="session")
def bank() -> QuestionBank:
    return load_question_bank(QUESTIONS_DIR)


def pytest_sessionfinish(session: pytest.Session) -> None:
    # The lint's strategy table stays in the output of every run that played it, pass or fail
    # (printed under the summary by tests/conftest.py, from whichever xdist worker played it).
    from tests.questions.test_lint import STRATEGY_REPORT

    for table in STRATEGY_REPORT:
        report.add("question bank: guessing strategies (score vs chance)", [table])
