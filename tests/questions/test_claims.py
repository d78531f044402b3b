"""The claims lint (claims.py) over the question bank, the exercise prompts and the follow-ups.

A wrong claim of the articles may be quoted only where it is corrected: in a question, by its
explanation; in an exercise prompt, within the same paragraph. Shown firing on bad text first.
"""

from __future__ import annotations

import re

import pytest

from api.content.followups import load_follow_ups
from api.content.questions import (
    CodeReadingQuestion,
    Lang,
    MultipleSelectQuestion,
    QuestionBank,
    SingleChoiceQuestion,
)
from tests.questions.claims import offences
from tests.questions.conftest import REPO

EXERCISES = REPO / "exercises"
SLUGS = sorted(p.parent.name for p in EXERCISES.glob("*/prompt.md"))
PROMPTS: dict[Lang, str] = {"en": "prompt.md", "zh": "prompt.zh.md"}


def paragraphs(markdown: str) -> list[str]:
    return [p for p in re.split(r"\n\s*\n", markdown) if p.strip()]


def test_the_claims_lint_fires() -> None:
    bad = "Post-norm keeps its scale fixed and regularises strongly."
    assert offences(bad, bad, "en") == ["post-norm regularises more strongly"]
    fixed = bad + " That is asserted, not shown."
    assert offences(fixed, fixed, "en") == []
    assert offences("pre-norm needs a learning-rate warm-up", "", "en")
    assert offences("Pre-Norm 起步慢、需要预热", "", "zh")
    assert not offences("Pre-Norm 起步慢、需要预热，Xiong 等人的结论正好说反了", "……说反了", "zh")
    # Wrong in every wording: no context makes them acceptable.
    assert offences("it saves one full round trip", "Xiong not shown LLaMA", "en")
    assert offences("Post-Norm 的有效深度", "并无证据", "zh")
    assert offences("学习率热身", "", "zh")


def _question_texts(q: object, lang: Lang) -> list[str]:
    texts = [q.prompt if lang == "en" else q.prompt_zh]  # type: ignore[attr-defined]
    if isinstance(q, SingleChoiceQuestion | MultipleSelectQuestion | CodeReadingQuestion):
        texts += [c.text if lang == "en" else c.text_zh for c in q.choices]
    return texts


def test_questions_quote_claims_only_with_their_correction(bank: QuestionBank) -> None:
    found = []
    for q in bank:
        for lang in ("en", "zh"):
            explanation = q.explanation if lang == "en" else q.explanation_zh
            # The explanation itself must not state a claim it does not correct.
            for text in [*_question_texts(q, lang), explanation]:
                found += [(q.id, lang, name) for name in offences(text, explanation, lang)]
    assert found == []


@pytest.mark.parametrize("slug", SLUGS)
def test_exercise_prompts_cite_claims_only_with_their_correction(slug: str) -> None:
    found = []
    for lang, name in PROMPTS.items():
        for paragraph in paragraphs((EXERCISES / slug / name).read_text(encoding="utf-8")):
            found += [
                (lang, claim, paragraph[:80]) for claim in offences(paragraph, paragraph, lang)
            ]
    for f in load_follow_ups(EXERCISES / slug):
        for lang, ask in (("en", f.ask), ("zh", f.ask_zh)):
            found += [(lang, claim, ask) for claim in offences(ask, ask, lang)]  # type: ignore[arg-type]
    assert found == []
