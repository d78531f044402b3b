from __future__ import annotations

from pathlib import Path

import pytest

from api.content.questions import QuestionBank, load_question_bank

REPO = Path(__file__).resolve().parents[2]
QUESTIONS_DIR = REPO / "exercises" / "questions"


@pytest.fixture(scope="session")
def bank() -> QuestionBank:
    return load_question_bank(QUESTIONS_DIR)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    # The lint's strategy table stays in the output of every run that played it, pass or fail.
    from tests.questions.test_lint import STRATEGY_REPORT

    for report in STRATEGY_REPORT:
        terminalreporter.write_sep("-", "question bank: guessing strategies (score vs chance)")
        terminalreporter.write_line(report)
