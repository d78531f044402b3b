"""Malformed content stops start-up with an error naming the file and the field."""

from __future__ import annotations

import copy
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from api.content.questions import QuestionBankError, load_question_bank
from tests.questions.conftest import QUESTIONS_DIR

GOOD: dict[str, Any] = {
    "id": "ln-sample",
    "topic": "layer_norm",
    "type": "single_choice",
    "difficulty": "easy",
    "prompt": "Over which dimension does LayerNorm normalise?",
    "prompt_zh": "LayerNorm 沿哪个维度归一化？",
    "choices": [
        {"text": "The last (feature) dimension", "text_zh": "最后一维（特征维）"},
        {"text": "The batch dimension", "text_zh": "批次维"},
    ],
    "answer": 0,
    "explanation": "Each token is normalised over its own features.",
    "explanation_zh": "每个 token 在它自己的特征上归一化。",
    "source": {"article": "FFN, Residual Addition, LN", "section": "2.1 LayerNorm"},
}


def _bank_dir(tmp_path: Path, files: dict[str, list[dict[str, Any]]]) -> Path:
    shutil.copy(QUESTIONS_DIR / "_sources.yaml", tmp_path / "_sources.yaml")
    for name, questions in files.items():
        (tmp_path / name).write_text(
            yaml.safe_dump({"questions": questions}, allow_unicode=True), encoding="utf-8"
        )
    return tmp_path


def _with(**changes: Any) -> dict[str, Any]:
    q = copy.deepcopy(GOOD)
    for key, value in changes.items():
        if value is None:
            q.pop(key, None)
        else:
            q[key] = value
    return q


def _error(tmp_path: Path, files: dict[str, list[dict[str, Any]]]) -> str:
    with pytest.raises(QuestionBankError) as info:
        load_question_bank(_bank_dir(tmp_path, files))
    return str(info.value)


def test_good_file_loads(tmp_path: Path) -> None:
    bank = load_question_bank(_bank_dir(tmp_path, {"layer_norm.yaml": [GOOD]}))
    assert [q.id for q in bank] == ["ln-sample"]
    assert bank.get("ln-sample").difficulty == 1  # "easy" is stored as 1


def test_answer_index_out_of_range(tmp_path: Path) -> None:
    msg = _error(tmp_path, {"layer_norm.yaml": [_with(answer=2)]})
    assert "layer_norm.yaml: questions[0] (id 'ln-sample').answer:" in msg
    assert "out of range for 2 choices" in msg


def test_missing_zh_text(tmp_path: Path) -> None:
    msg = _error(tmp_path, {"layer_norm.yaml": [_with(prompt_zh=None)]})
    assert "layer_norm.yaml" in msg and "prompt_zh" in msg and "required" in msg.lower()


def test_empty_zh_text(tmp_path: Path) -> None:
    msg = _error(tmp_path, {"layer_norm.yaml": [_with(explanation_zh="   ")]})
    assert "explanation_zh" in msg


def test_english_pasted_into_zh_field(tmp_path: Path) -> None:
    msg = _error(tmp_path, {"layer_norm.yaml": [_with(prompt_zh="Over which dimension?")]})
    assert "prompt_zh" in msg and "Chinese" in msg


def test_missing_choice_translation(tmp_path: Path) -> None:
    choices = [{"text": "A"}, {"text": "B", "text_zh": "乙"}]
    msg = _error(tmp_path, {"layer_norm.yaml": [_with(choices=choices)]})
    assert "choices.0.text_zh" in msg


def test_duplicate_ids_across_files(tmp_path: Path) -> None:
    other = _with(topic="rms_norm")
    msg = _error(tmp_path, {"layer_norm.yaml": [GOOD], "rms_norm.yaml": [other]})
    assert "duplicate id 'ln-sample'" in msg
    assert "rms_norm.yaml" in msg and "layer_norm.yaml" in msg


def test_unknown_topic_file(tmp_path: Path) -> None:
    msg = _error(tmp_path, {"vision.yaml": [_with(topic="vision")]})
    assert "vision.yaml" in msg and "unknown topic" in msg


def test_unknown_topic_in_a_part_file(tmp_path: Path) -> None:
    msg = _error(tmp_path, {"vision.heads.yaml": [_with(topic="attention")]})
    assert "vision.heads.yaml" in msg and "unknown topic" in msg


def test_a_topic_split_over_part_files(tmp_path: Path) -> None:
    files = {
        "attention.yaml": [_with(id="a-one", topic="attention")],
        "attention.heads.yaml": [_with(id="a-two", topic="attention")],
    }
    bank = load_question_bank(_bank_dir(tmp_path, files))
    assert {q.id for q in bank} == {"a-one", "a-two"}


def test_a_part_file_holds_its_own_topic_only(tmp_path: Path) -> None:
    msg = _error(tmp_path, {"attention.heads.yaml": [_with(topic="moe")]})
    assert "does not match the file" in msg and "attention.heads.yaml" in msg


def test_beyond_the_material_needs_references(tmp_path: Path) -> None:
    # `source: null` says "not in the course articles"; the references must then say where.
    msg = _error(tmp_path, {"layer_norm.yaml": [GOOD | {"source": None}]})
    assert "references" in msg and "not in the course articles" in msg


def test_a_missing_source_is_not_taken_for_null(tmp_path: Path) -> None:
    msg = _error(tmp_path, {"layer_norm.yaml": [_with(source=None)]})
    assert "source" in msg and "required" in msg.lower()


def test_beyond_the_material_with_references_loads(tmp_path: Path) -> None:
    question = GOOD | {"source": None, "references": ["Vaswani et al. 2017, Attention"]}
    (loaded,) = list(load_question_bank(_bank_dir(tmp_path, {"layer_norm.yaml": [question]})))
    assert loaded.source is None and loaded.references


def test_unknown_topic_value(tmp_path: Path) -> None:
    msg = _error(tmp_path, {"layer_norm.yaml": [_with(topic="vision")]})
    assert "topic" in msg and "layer_norm.yaml" in msg


def test_topic_must_match_file(tmp_path: Path) -> None:
    msg = _error(tmp_path, {"layer_norm.yaml": [_with(topic="rms_norm")]})
    assert "does not match the file" in msg


def test_unknown_type(tmp_path: Path) -> None:
    msg = _error(tmp_path, {"layer_norm.yaml": [_with(type="essay")]})
    assert "essay" in msg or "type" in msg


def test_unknown_source_article(tmp_path: Path) -> None:
    source = {"article": "No Such Article", "section": "2.1 LayerNorm"}
    msg = _error(tmp_path, {"layer_norm.yaml": [_with(source=source)]})
    assert "source.article" in msg and "No Such Article" in msg


def test_source_by_file_name_is_refused(tmp_path: Path) -> None:
    # The material's file names mean nothing to a learner; a citation gives the title.
    source = {"file": "000_e4e6a0ab7f589b41.txt", "section": "2.1 LayerNorm"}
    msg = _error(tmp_path, {"layer_norm.yaml": [_with(source=source)]})
    assert "source.file" in msg and "source.article" in msg


def test_unknown_section(tmp_path: Path) -> None:
    source = {"article": "FFN, Residual Addition, LN", "section": "9.9 Nowhere"}
    msg = _error(tmp_path, {"layer_norm.yaml": [_with(source=source)]})
    assert "source.section" in msg and "9.9 Nowhere" in msg


def test_boolean_is_not_a_choice_index(tmp_path: Path) -> None:
    msg = _error(tmp_path, {"layer_norm.yaml": [_with(answer=True)]})
    assert "answer" in msg


def test_multiple_select_repeated_index(tmp_path: Path) -> None:
    q = _with(type="multiple_select", answer=[0, 0])
    msg = _error(tmp_path, {"layer_norm.yaml": [q]})
    assert "same choice twice" in msg


def test_numeric_needs_a_tolerance(tmp_path: Path) -> None:
    q = _with(type="numeric", answer=6, choices=None)
    msg = _error(tmp_path, {"layer_norm.yaml": [q]})
    assert "tolerance" in msg
    q["tolerance"] = {}
    msg = _error(tmp_path, {"layer_norm.yaml": [q]})
    assert "absolute" in msg and "relative" in msg


def test_numeric_rejects_choices(tmp_path: Path) -> None:
    q = _with(type="numeric", answer=6, tolerance={"absolute": 0})
    msg = _error(tmp_path, {"layer_norm.yaml": [q]})
    assert "choices" in msg and "xtra" in msg  # "Extra inputs are not permitted"


def test_true_false_needs_a_bool(tmp_path: Path) -> None:
    q = _with(type="true_false", answer="yes", choices=None)
    msg = _error(tmp_path, {"layer_norm.yaml": [q]})
    assert "answer" in msg


def test_code_reading_needs_code(tmp_path: Path) -> None:
    msg = _error(tmp_path, {"layer_norm.yaml": [_with(type="code_reading")]})
    assert "code" in msg


def test_bad_difficulty(tmp_path: Path) -> None:
    msg = _error(tmp_path, {"layer_norm.yaml": [_with(difficulty=4)]})
    assert "difficulty" in msg


def test_bad_id(tmp_path: Path) -> None:
    msg = _error(tmp_path, {"layer_norm.yaml": [_with(id="LN Sample")]})
    assert ".id" in msg


def test_duplicate_yaml_key(tmp_path: Path) -> None:
    _bank_dir(tmp_path, {})
    text = yaml.safe_dump({"questions": [GOOD]}, allow_unicode=True, sort_keys=False)
    assert "  answer: 0\n" in text
    text = text.replace("  answer: 0\n", "  answer: 0\n  answer: 1\n")
    (tmp_path / "layer_norm.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(QuestionBankError, match=r"layer_norm\.yaml.*duplicate key 'answer'"):
        load_question_bank(tmp_path)


def test_invalid_yaml(tmp_path: Path) -> None:
    _bank_dir(tmp_path, {})
    (tmp_path / "ffn.yaml").write_text("questions:\n  - id: [unclosed\n", encoding="utf-8")
    with pytest.raises(QuestionBankError, match=r"ffn\.yaml: invalid YAML"):
        load_question_bank(tmp_path)


def test_wrong_top_level(tmp_path: Path) -> None:
    _bank_dir(tmp_path, {})
    (tmp_path / "ffn.yaml").write_text(yaml.safe_dump([GOOD]), encoding="utf-8")
    with pytest.raises(QuestionBankError, match="questions"):
        load_question_bank(tmp_path)


def test_missing_sources_manifest(tmp_path: Path) -> None:
    with pytest.raises(QuestionBankError, match=r"_sources\.yaml"):
        load_question_bank(tmp_path)


def test_missing_directory(tmp_path: Path) -> None:
    with pytest.raises(QuestionBankError, match="not found"):
        load_question_bank(tmp_path / "nope")
