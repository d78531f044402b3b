"""A server whose shortest interview is seconds long, so time running out is tested for real."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from api.content.questions import QuestionBank, load_question_bank
from tests.support import REPO, Server, start_server, stop_server

# 0.01 minutes: the shortest interview a test may ask for (0.6 s). Only tests lower it.
SHORTEST_MINUTES = "0.01"


@pytest.fixture(scope="session")
def bank() -> QuestionBank:
    return load_question_bank(Path(REPO) / "exercises" / "questions")


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = start_server(
        tmp_path_factory.mktemp("interviews"),
        ADDNORM_SUBMISSIONS_PER_MINUTE="1000",
        ADDNORM_INTERVIEW_MIN_MINUTES=SHORTEST_MINUTES,
    )
    yield srv
    stop_server(srv)
