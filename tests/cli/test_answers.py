"""What a learner types at the quiz prompt, turned into the answer the API takes."""

from __future__ import annotations

from typing import Any

import pytest

from addnorm_client.cli.answers import NotAnAnswer, parse_answer

CHOICES = [{"index": i, "text": t} for i, t in enumerate("abcd")]


def q(kind: str) -> dict[str, Any]:
    return {
        "type": kind,
        "choices": CHOICES
        if "choice" in kind or kind in ("multiple_select", "code_reading")
        else None,
    }


@pytest.mark.parametrize(
    ("kind", "text", "answer"),
    [
        ("single_choice", " 2\n", 2),
        ("code_reading", "0", 0),
        ("multiple_select", "3, 1", [1, 3]),
        ("multiple_select", "0 2", [0, 2]),
        ("multiple_select", "1，2", [1, 2]),
        ("true_false", "T", True),
        ("true_false", "no", False),
        ("true_false", "对", True),
        ("numeric", "1e-5", 1e-5),
        ("numeric", "0.667", 0.667),
    ],
)
def test_answers_a_learner_types(kind: str, text: str, answer: Any) -> None:
    assert parse_answer(q(kind), text) == answer


@pytest.mark.parametrize(
    ("kind", "text", "advice"),
    [
        ("single_choice", "4", "0..3"),
        ("single_choice", "1 2", "exactly one"),
        ("single_choice", "b", "0..3"),
        ("multiple_select", "1 1", "once"),
        ("true_false", "maybe", "true or false"),
        ("numeric", "nan", "finite"),
        ("numeric", "two", "a number"),
        ("ranking", "1", "cannot answer"),
    ],
)
def test_what_does_not_fit_says_what_would(kind: str, text: str, advice: str) -> None:
    with pytest.raises(NotAnAnswer, match=advice):
        parse_answer(q(kind), text)
