"""The explain item's length in words, in English and in Chinese (which has no spaces)."""

from __future__ import annotations

import pytest

from api.content.interview_rubric import explanation_words


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("It normalises over the last dim, eps inside the sqrt.", 10),
        ("x = (x - mean) / sqrt(var + eps)", 6),
        # Each Chinese character counts; Latin runs inside Chinese text count once each.
        ("归一化在最后一维上进行", 11),
        ("LayerNorm 的方差用有偏估计", 9),
        ("归一化在最后一维上进行，eps 放在平方根里面。", 19),
        # Punctuation alone, full-width or not, and blanks are no words.
        ("。，、！？", 0),
        ("  ... --- ", 0),
        ("", 0),
        # Japanese kana and Korean syllables are counted the same way.
        ("ひらがな", 4),
        ("정규화", 3),
    ],
)
def test_words_are_counted_with_or_without_spaces(text: str, words: int) -> None:
    assert explanation_words(text) == words


def test_a_chinese_explanation_is_not_one_word() -> None:
    text = (
        "均值和方差都在最后一维上计算，方差用有偏估计，eps 加在方差上再开方，"
        "反向传播时梯度要经过均值和方差。"
    )
    assert explanation_words(text) > 40
    assert len(text.split()) == 2  # what splitting on spaces made of it
