"""The Chinese wording of verdicts, in-process: every case and step description of every
exercise in the catalog has its Chinese, the check and message templates are said in Chinese,
and anything unknown stays English rather than failing.

Over HTTP: tests/api/test_verdict_language.py."""

from __future__ import annotations

import ast
import re
from dataclasses import replace

import pytest
import torch

from api.content.catalog import load_catalog
from api.grading import coverage, verdict_zh
from api.grading.verdict import describe_step
from tests.support import REPO

CATALOG = load_catalog(REPO / "exercises")
CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.mark.parametrize("slug", sorted(CATALOG))
def test_every_case_and_step_description_has_its_chinese(slug: str) -> None:
    spec = CATALOG[slug].spec
    for seed in (0, 1, 2):
        for case in coverage.cases(spec, torch.Generator().manual_seed(seed)):
            assert verdict_zh.untranslated(case.description) == [], (case.name, case.description)
            # As verdict_zh.fill renders it: the spec's own Chinese, else the derived one.
            zh = case.description_zh or verdict_zh.description(case.description)
            assert CJK.search(zh), (case.name, zh)
            for k in range(len(case.scenario)):
                en = describe_step(case, k, spec.kind)
                if en:
                    assert verdict_zh.untranslated_step(en) == [], (case.name, en)
                    zh = verdict_zh.step(en)
                    assert zh.startswith(f"第 {k + 1}/") and "call" not in zh, (en, zh)


def test_an_unknown_fragment_stays_english_and_is_reported() -> None:
    en = "x = N(0,1), shape (2, 3), float32, a brand-new family"
    assert verdict_zh.untranslated(en) == ["a brand-new family"]
    assert verdict_zh.description(en) == "x = N(0,1)，形状 (2, 3)，float32，a brand-new family"
    assert verdict_zh.untranslated_step("step 2 of 3: a brand-new note") == ["a brand-new note"]
    assert verdict_zh.step("step 2 of 3: a brand-new note") == "第 2/3 步：a brand-new note"


@pytest.mark.parametrize(
    ("en", "zh"),
    [
        (
            "differs from the reference by up to 0.0828 (relative 0.0318) at index (0, 12); "
            "allowed 0.000574 there",
            "与参考结果最多相差 0.0828（相对误差 0.0318），位于索引 (0, 12)；"
            "该处允许的误差为 0.000574",
        ),
        ("matches (max error 1e-07, allowed 2e-05)", "一致（最大误差 1e-07，允许 2e-05）"),
        (
            "NaN where the reference is finite (first at index (1, 2))",
            "在参考结果为有限值的位置出现了 NaN（首次出现在索引 (1, 2)）",
        ),
        # The wording stored before the duplicated word was fixed still reads, and so does the
        # one before "yours are none" became "your module has none".
        (
            "parameters do not match the contract: expected w1.weight (4, 2); yours are none",
            "与约定不符：应为 w1.weight (4, 2)；你的模块里一个也没有",
        ),
        (
            "do not match the contract: expected running_mean (8,); your module has none",
            "与约定不符：应为 running_mean (8,)；你的模块里一个也没有",
        ),
        (
            "do not match the contract: expected weight (8,); yours are w (8,), b (8,)",
            "与约定不符：应为 weight (8,)；你的是 w (8,)、b (8,)",
        ),
        ("is float64, expected float32 (the input's)", "是 float64，应为 float32（与输入相同）"),
        ("ValueError: boom", "ValueError: boom"),  # an exception's own text stays as raised
    ],
)
def test_check_messages(en: str, zh: str) -> None:
    assert verdict_zh.check_message(en) == zh


def test_failed_message_is_rebuilt_from_the_checks_and_the_diagnosis() -> None:
    view = {
        "message": "3 of 16 cases failed. First: 'small_dim' (x = N(0,1), shape (4, 5), float64, "
        "random weight/bias, default eps = 1e-05): output differs from the reference by up to "
        "0.1 (relative 0.2) at index (0, 1); allowed 0.001 there. This looks like a known "
        "mistake: Unbiased variance.",
        "checks": [
            {"case": "default_init", "passed": True, "target": "output", "message": "matches"},
            {
                "case": "small_dim",
                "passed": False,
                "target": "output",
                "description": "x = N(0,1), shape (4, 5), float64, random weight/bias, "
                "default eps = 1e-05",
                "step_description": "",
                "message": "differs from the reference by up to 0.1 (relative 0.2) at index "
                "(0, 1); allowed 0.001 there",
            },
        ],
        "diagnosis": {"name": "unbiased_variance", "title_zh": "使用了无偏方差"},
    }
    zh = verdict_zh.message(view)
    assert zh == (
        "16 个用例中有 3 个未通过。第一个未通过的是用例 'small_dim'（x = N(0,1)，形状 (4, 5)，"
        "float64，weight/bias 取随机值，默认 eps = 1e-05），检查项「输出」：与参考结果最多相差 0.1"
        "（相对误差 0.2），位于索引 (0, 1)；该处允许的误差为 0.001。"
        "这看起来是一个常见错误：“使用了无偏方差”。"
    )
    # A message in a shape nobody taught it: no Chinese, so the reader falls back to English.
    assert verdict_zh.message({"message": "Something new happened."}) is None


def test_chinese_starters_are_the_english_starters_with_other_comments() -> None:
    found = sorted(REPO.glob("exercises/*/starter.zh.py"))
    assert found, "no starter.zh.py at all"
    for path in found:
        english = (path.parent / "starter.py").read_text(encoding="utf-8")
        chinese = path.read_text(encoding="utf-8")
        assert ast.dump(ast.parse(chinese)) == ast.dump(ast.parse(english)), path
        assert CJK.search(chinese) and not CJK.search(english), path
        assert CATALOG[path.parent.name].starter_for("zh") == chinese


def test_an_exercise_without_a_chinese_starter_serves_the_english_one() -> None:
    exercise = next(iter(CATALOG.values()))
    plain = replace(exercise, starter_zh=None)
    assert plain.starter_for("zh") == plain.starter == plain.starter_for("en")
