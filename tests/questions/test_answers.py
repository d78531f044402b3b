"""Answer checking per type, malformed answers, and the public view."""

from __future__ import annotations

import re
from typing import Any

import pytest
from pydantic import TypeAdapter

from api.content.questions import (
    LANGS,
    AnswerShapeError,
    MultipleSelectQuestion,
    NumericQuestion,
    Question,
    QuestionBank,
    QuestionNotFound,
    check_answer,
    public_view,
)

_ADAPTER: TypeAdapter[Question] = TypeAdapter(Question)

BASE: dict[str, Any] = {
    "topic": "ffn",
    "difficulty": 2,
    "prompt": "Prompt?",
    "prompt_zh": "问题？",
    "explanation": "Because.",
    "explanation_zh": "因为。",
    "source": {
        "article": "FFN, Residual Addition, LN",
        "section": "1.1 FFN（Feed Forward Network，前馈层）",
    },
    "references": ["Vaswani et al. 2017, Attention Is All You Need"],
}
CHOICES = [
    {"text": "zero", "text_zh": "零"},
    {"text": "one", "text_zh": "一"},
    {"text": "two", "text_zh": "二"},
    {"text": "three", "text_zh": "三"},
]


def make(**fields: Any) -> Question:
    return _ADAPTER.validate_python({**BASE, **fields})


SINGLE = make(id="s", type="single_choice", choices=CHOICES, answer=2)
CODE = make(id="c", type="code_reading", choices=CHOICES[:3], answer=1, code="x = 1\n")
MULTI = make(id="m", type="multiple_select", choices=CHOICES, answer=[3, 1])
TF = make(id="t", type="true_false", answer=False)
NUM_ABS = make(
    id="n", type="numeric", answer=-1.3416, tolerance={"absolute": 0.001}, unit="u", unit_zh="单位"
)
NUM_REL = make(id="r", type="numeric", answer=2099712, tolerance={"relative": 0.01})
NUM_EXACT = make(id="e", type="numeric", answer=1024, tolerance={"absolute": 0})


# --------------------------------------------------------------------------- grading


def test_single_choice() -> None:
    assert check_answer(SINGLE, 2).correct
    wrong = check_answer(SINGLE, 0)
    assert not wrong.correct
    assert wrong.correct_answer == 2
    assert wrong.correct_answer_text == "two"
    assert check_answer(SINGLE, 0, "zh").correct_answer_text == "二"


def test_code_reading() -> None:
    assert check_answer(CODE, 1).correct
    assert not check_answer(CODE, 2).correct


def test_multiple_select_order_free_and_exact() -> None:
    assert check_answer(MULTI, [1, 3]).correct
    assert check_answer(MULTI, [3, 1]).correct
    assert not check_answer(MULTI, [1]).correct  # a subset is not enough
    assert not check_answer(MULTI, [0, 1, 3]).correct  # nor a superset
    assert not check_answer(MULTI, []).correct  # "none apply" is a valid, wrong answer
    result = check_answer(MULTI, [3, 1], "zh")
    assert result.answer == [1, 3] and result.correct_answer == [1, 3]
    assert result.correct_answer_text == "一；三"


def test_true_false() -> None:
    assert check_answer(TF, False).correct
    result = check_answer(TF, True, "zh")
    assert not result.correct and result.correct_answer is False
    assert result.correct_answer_text == "错误"


def test_numeric_absolute_tolerance() -> None:
    assert check_answer(NUM_ABS, -1.3416).correct
    assert check_answer(NUM_ABS, -1.342).correct
    assert check_answer(NUM_ABS, -1.3406).correct  # at the edge of 0.001
    assert not check_answer(NUM_ABS, -1.3396).correct
    assert not check_answer(NUM_ABS, -1.1619).correct
    assert check_answer(NUM_ABS, -1.3416, "zh").correct_answer_text == "-1.3416 单位"


def test_numeric_relative_tolerance() -> None:
    assert check_answer(NUM_REL, 2_100_000).correct
    assert check_answer(NUM_REL, 2_080_000).correct
    assert not check_answer(NUM_REL, 2_097_152 * 1.02).correct


def test_numeric_exact_accepts_int_or_float() -> None:
    assert check_answer(NUM_EXACT, 1024).correct
    assert check_answer(NUM_EXACT, 1024.0).correct
    assert not check_answer(NUM_EXACT, 1023).correct
    assert check_answer(NUM_EXACT, 1024).correct_answer_text == "1024"


def test_result_carries_explanation_source_and_references() -> None:
    en = check_answer(SINGLE, 0)
    zh = check_answer(SINGLE, 0, "zh")
    assert en.explanation == "Because." and zh.explanation == "因为。"
    assert en.source.article == "FFN, Residual Addition, LN"
    assert en.references == ["Vaswani et al. 2017, Attention Is All You Need"]
    # The result is plain JSON for the API and the answers table.
    dumped = en.model_dump(mode="json")
    assert dumped["source"] == BASE["source"] and dumped["correct"] is False


# --------------------------------------------------------------------------- malformed answers


@pytest.mark.parametrize(
    ("question", "raw", "expected", "problem"),
    [
        (SINGLE, "2", "an integer choice index 0..3", "got a string"),
        (SINGLE, True, "an integer choice index 0..3", "got a boolean"),
        (SINGLE, 2.0, "an integer choice index 0..3", "got a float"),
        (SINGLE, 1.5, "an integer choice index 0..3", "non-integer"),
        (SINGLE, 4, "an integer choice index 0..3", "out of range"),
        (SINGLE, -1, "an integer choice index 0..3", "out of range"),
        (SINGLE, None, "an integer choice index 0..3", "null"),
        (SINGLE, [2], "an integer choice index 0..3", "got a list"),
        (CODE, 3, "an integer choice index 0..2", "out of range"),
        (MULTI, 1, "a list of distinct choice indices, each 0..3", "got int"),
        (MULTI, [1, 1], "a list of distinct choice indices", "repeated"),
        (MULTI, [1, 4], "a list of distinct choice indices", "out of range"),
        (MULTI, [1, "3"], "a list of distinct choice indices", "string"),
        (MULTI, {"0": True}, "a list of distinct choice indices", "object"),
        (TF, "false", "true or false", "got a string"),
        (TF, 0, "true or false", "got int"),
        (TF, None, "true or false", "null"),
        (NUM_ABS, "1.34", "a number", "got a string"),
        (NUM_ABS, True, "a number", "got a boolean"),
        (NUM_ABS, [1.0], "a number", "got a list"),
        (NUM_ABS, float("nan"), "a number", "non-finite"),
        (NUM_ABS, float("inf"), "a number", "non-finite"),
    ],
)
def test_malformed_answers(question: Question, raw: object, expected: str, problem: str) -> None:
    with pytest.raises(AnswerShapeError) as info:
        check_answer(question, raw)
    err = info.value
    assert expected in err.expected
    assert problem in err.problem
    assert str(err).startswith("Expected ")
    assert err.question_id == question.id
    assert any("\u4e00" <= ch <= "\u9fff" for ch in err.expected_zh)
    # The Chinese refusal is Chinese throughout, the problem too (it once read "Expected
    # 一个选项下标整数 0..3; got a boolean"); JSON's own words (true, false, null) stay.
    assert err.detail("en") == str(err)
    assert not ENGLISH.search(err.detail("zh")), err.detail("zh")


ENGLISH = re.compile(
    r"\b(Expected|got|index|range|repeated|finite|boolean|string|list|object|float|number|int|a)\b"
)


# --------------------------------------------------------------------------- public view


def test_public_view_hides_the_key() -> None:
    for q in (SINGLE, CODE, MULTI, TF, NUM_ABS):
        for lang in LANGS:
            view = public_view(q, lang)
            data = view.model_dump()
            assert set(data) == {
                "id",
                "topic",
                "type",
                "difficulty",
                "prompt",
                "choices",
                "code",
                "unit",
                "answer_format",
            }
            assert "Because" not in str(data) and "因为" not in str(data)


def test_public_view_language() -> None:
    en = public_view(SINGLE, "en")
    zh = public_view(SINGLE, "zh")
    assert en.prompt == "Prompt?" and zh.prompt == "问题？"
    assert en.choices is not None and zh.choices is not None
    assert [(c.index, c.text) for c in zh.choices] == [(0, "零"), (1, "一"), (2, "二"), (3, "三")]
    assert en.answer_format == "an integer choice index 0..3"
    assert public_view(TF).choices is None
    assert public_view(CODE).code == "x = 1\n"
    assert public_view(NUM_ABS, "zh").unit == "单位"


def test_bank_lookup_and_filters(bank: QuestionBank) -> None:
    with pytest.raises(QuestionNotFound):
        bank.get("no-such-question")
    assert "ln-biased-variance" in bank
    ln = bank.select(topic="layer_norm")
    assert ln and all(q.topic == "layer_norm" for q in ln)
    numeric_ffn = bank.select(topic="ffn", type="numeric")
    assert numeric_ffn and all(isinstance(q, NumericQuestion) for q in numeric_ffn)
    assert sum(bank.count_by_topic().values()) == len(bank)


def test_every_bank_question_rejects_a_wrong_answer(bank: QuestionBank) -> None:
    for q in bank:
        wrong: object
        match q.type:
            case "single_choice" | "code_reading":
                wrong = (q.answer + 1) % len(q.choices)
            case "multiple_select":
                assert isinstance(q, MultipleSelectQuestion)
                wrong = [i for i in range(len(q.choices)) if i not in q.answer]
            case "true_false":
                wrong = not q.answer
            case _:
                assert isinstance(q, NumericQuestion)
                rel = (q.tolerance.relative or 0.0) * abs(q.answer)
                tol = max(q.tolerance.absolute or 0.0, rel)
                wrong = q.answer + 10 * tol + 1
        assert not check_answer(q, wrong).correct, q.id
