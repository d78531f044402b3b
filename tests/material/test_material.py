"""The exercise material that teaches: sections in both languages, sources cited by title,
starters that import what their prompts use, and interviewer follow-ups linked to the question
bank (checked at start-up, served with the exercise, shown in the notebook).

Exercises are discovered from their folders; each content lint is shown failing on a bad input.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import httpx
import pytest

from api.content.catalog import ContentError, load_catalog
from api.content.followups import FILENAME, check_follow_ups, load_follow_ups
from api.content.notebooks import exercise_slugs
from api.content.questions import load_question_bank

REPO = Path(__file__).resolve().parents[2]
EXERCISES = REPO / "exercises"
SLUGS = exercise_slugs(REPO)
CATALOG = load_catalog(EXERCISES)

# The sections every exercise's prompt carries, in this order, per language.
SECTIONS = {
    "prompt.md": [
        "## What to write",
        "## Pitfalls interviewers look for",
        "## Why it works",
        "## Interviewer follow-ups",
        "## Cost and memory",
        "## Test yourself",
        "## Background",
    ],
    "prompt.zh.md": [
        "## 要写什么",
        "## 面试官会盯的坑",
        "## 为什么有效",
        "## 面试官的追问",
        "## 计算量与显存",
        "## 自我检验",
        "## 背景",
    ],
}

# Articles are cited by title and section, never by the file they are stored in.
ARTICLE_FILE = re.compile(r"\b00\d_(?:[0-9a-f]{16}|\*)")
# `F.something` in a prompt, unless banned, invites the learner to use torch.nn.functional as F.
USES_F = re.compile(r"\bF\.([a-z_]+)")
IMPORTS_F = re.compile(r"^import torch\.nn\.functional as F\b", re.MULTILINE)


def missing_sections(text: str, headings: list[str]) -> list[str]:
    lines = text.splitlines()
    found = [h for h in headings if h in lines]
    positions = [lines.index(h) for h in found]
    out_of_order = [] if positions == sorted(positions) else ["(sections out of order)"]
    return [h for h in headings if h not in lines] + out_of_order


def missing_imports(prompt: str, starter: str, banned: Sequence[str] = ()) -> list[str]:
    banned_f = {n.removeprefix("torch.nn.functional.") for n in banned}
    suggested = set(USES_F.findall(prompt)) - banned_f
    return ["torch.nn.functional as F"] if suggested and not IMPORTS_F.search(starter) else []


def test_the_lints_fire_on_bad_material() -> None:
    assert missing_sections("## What to write\n", SECTIONS["prompt.md"][:2]) == [
        "## Pitfalls interviewers look for"
    ]
    swapped = "## Pitfalls interviewers look for\n## What to write\n"
    assert missing_sections(swapped, SECTIONS["prompt.md"][:2]) == ["(sections out of order)"]
    old_starter = "import torch\nfrom torch import nn\n"
    assert missing_imports("use `F.silu` on the gate", old_starter) == ["torch.nn.functional as F"]
    assert missing_imports("use `F.silu` on the gate", "import torch.nn.functional as F\n") == []
    banned = ["torch.nn.functional.layer_norm"]
    assert missing_imports("`F.layer_norm` is not allowed", old_starter, banned) == []
    assert ARTICLE_FILE.search("as `000_*` says") and ARTICLE_FILE.search("002_8dc797ea2861abdb")


def test_exercises_are_discovered() -> None:
    assert {"layer_norm", "rms_norm", "swiglu_ffn", "residual_block"} <= set(SLUGS)


@pytest.mark.parametrize("slug", SLUGS)
@pytest.mark.parametrize("name", sorted(SECTIONS))
def test_prompt_carries_every_section(slug: str, name: str) -> None:
    text = (EXERCISES / slug / name).read_text(encoding="utf-8")
    assert missing_sections(text, SECTIONS[name]) == []
    assert f"`GET /exercises/{slug}`" in text  # says where the follow-ups are served


@pytest.mark.parametrize("slug", SLUGS)
def test_material_cites_articles_by_title_not_file(slug: str) -> None:
    texts = [p.read_text(encoding="utf-8") for p in (EXERCISES / slug).iterdir() if p.is_file()]
    texts.append((REPO / "solutions" / f"{slug}.py").read_text(encoding="utf-8"))
    for text in texts:
        assert not ARTICLE_FILE.search(text), ARTICLE_FILE.search(text)


@pytest.mark.parametrize("slug", SLUGS)
def test_starter_imports_what_its_prompt_uses(slug: str) -> None:
    starter = (EXERCISES / slug / "starter.py").read_text(encoding="utf-8")
    banned = CATALOG[slug].spec.banned
    for name in SECTIONS:
        prompt = (EXERCISES / slug / name).read_text(encoding="utf-8")
        assert missing_imports(prompt, starter, banned) == []


@pytest.mark.parametrize("slug", SLUGS)
def test_follow_ups_are_bilingual_and_link_to_the_question_bank(slug: str) -> None:
    follow_ups = load_follow_ups(EXERCISES / slug)
    assert len(follow_ups) >= 5
    bank = load_question_bank(EXERCISES / "questions")
    assert all(f.question in bank for f in follow_ups)
    assert len({f.question for f in follow_ups}) == len(follow_ups)
    assert all(re.search(r"[\u4e00-\u9fff]", f.ask_zh) for f in follow_ups)
    notebook = (REPO / "notebooks" / f"{slug}.py").read_text(encoding="utf-8")
    assert all(f"`{f.question}`" in notebook for f in follow_ups)


def test_a_dangling_follow_up_stops_the_service(tmp_path: Path) -> None:
    folder = tmp_path / "layer_norm"
    folder.mkdir()
    (folder / FILENAME).write_text(
        "follow_ups:\n  - question: no-such-question\n    ask: Why?\n    ask_zh: 为什么？\n",
        encoding="utf-8",
    )
    with pytest.raises(ContentError, match="'no-such-question' is not in the question bank"):
        check_follow_ups(tmp_path, ["layer_norm"], ["ln-biased-variance"])
    check_follow_ups(tmp_path, ["layer_norm"], ["no-such-question"])


def test_a_malformed_follow_ups_file_names_the_field(tmp_path: Path) -> None:
    (tmp_path / FILENAME).write_text(
        "follow_ups:\n  - question: ln-biased-variance\n    ask: Why n?\n", encoding="utf-8"
    )
    with pytest.raises(ContentError, match=r"followups\.yaml: field 'follow_ups\.0\.ask_zh'"):
        load_follow_ups(tmp_path)
    assert load_follow_ups(tmp_path / "absent") == ()


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_follow_ups_are_served_with_the_exercise(api: httpx.Client, lang: str) -> None:
    for slug in SLUGS:
        served = api.get(f"/exercises/{slug}", params={"lang": lang}).json()["follow_ups"]
        expected = load_follow_ups(EXERCISES / slug)
        assert [f["question_id"] for f in served] == [f.question for f in expected]
        assert [f["ask"] for f in served] == [f.text(lang) for f in expected]
        for follow_up in served:
            question = api.get(f"/questions/{follow_up['question_id']}", params={"lang": lang})
            assert question.status_code == 200, question.text
