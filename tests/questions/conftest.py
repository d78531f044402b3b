from __future__ import annotations

from pathlib import Path

import pytest

from api.questions import QuestionBank, load_question_bank

REPO = Path(__file__).resolve().parents[2]
QUESTIONS_DIR = REPO / "exercises" / "questions"


@pytest.fixture(scope="session")
def bank() -> QuestionBank:
    return load_question_bank(QUESTIONS_DIR)
