"""Verdict phrases written in both languages where they are produced (``api.grading.phrase``):
every spec's case descriptions and step notes (``AT_SOURCE``: the whole catalogue), every
step description and the static checks' findings say their Chinese without ``verdict_zh``'s
rules, in the same words the rules gave (stored verdicts read the same); so do the verdict's own
sentences and every check's target and message, and the grader no longer derives anything."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
import torch

from api.content.catalog import load_catalog
from api.grading import check_words, coverage, draw, verdict_zh
from api.grading.phrase import Phrase
from api.grading.step_words import step_words
from api.grading.verdict import Check, Verdict
from tests.support import REPO

CATALOG = load_catalog(REPO / "exercises")
CJK = re.compile(r"[\u4e00-\u9fff]")
# Two English words in a row: a sentence, not an identifier, dtype or formula.
ENGLISH_RUN = re.compile(r"(?<![\w.])[A-Za-z]{2,}(?:[ ,'’-]+[A-Za-z]{2,})+(?![\w.(])")
# Names of architectures written so in Chinese too, and code: a call with its arguments
# ("NormBlock(32, sublayer, placement='postnorm')") reads the same in both languages.
TERMS = re.compile(r"\b(?:Pre|Post)-Norm\b|\b[A-Z]\w*\((?:[^()]|\([^()]*\))*\)")


def english_runs(zh: str) -> list[str]:
    return ENGLISH_RUN.findall(TERMS.sub("", zh))


def _no_rules(*_: Any, **__: Any) -> Any:
    raise AssertionError("derived by verdict_zh instead of written at the source")


@pytest.fixture
def without_rules(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in ("description", "step", "note", "call_note"):
        monkeypatch.setattr(verdict_zh, name, _no_rules)
    yield


# Every exercise's case table says its descriptions in both languages itself.
AT_SOURCE = tuple(sorted(CATALOG))


@pytest.mark.parametrize("slug", AT_SOURCE)
def test_case_descriptions_are_written_in_chinese(without_rules: None, slug: str) -> None:
    cases = CATALOG[slug].spec.make_cases(torch.Generator().manual_seed(0))
    assert len(cases) >= 5
    for case in cases:
        zh = case.description_zh
        # A contract case is one clause ("Dropout(p=1.5)：构造函数应抛出 ValueError").
        assert CJK.search(zh) and ("，" in zh or case.raises), (case.name, zh)
        assert english_runs(zh) == [], (case.name, zh)
        # Full-width commas between the parts; a half-width one only inside a shape, an
        # interval or a formula.
        assert ", " not in re.sub(r"\([^()]*\)|\[[^][]*\]", "", zh), (case.name, zh)
        # Every step's note too: a step described without the rules.
        for k in range(len(case.scenario)):
            said = step_words(case, k, CATALOG[slug].spec.kind).zh
            assert ENGLISH_RUN.findall(said) == [], (case.name, k, said)


def test_norm_step_descriptions_are_written_in_chinese(without_rules: None) -> None:
    cases = draw.norm_cases(torch.Generator().manual_seed(0), default_eps=1e-5, bias=True)
    (case,) = [c for c in cases if c.name == "train_update_eval"]
    said = [step_words(case, k) for k in range(len(case.scenario))]
    shape = tuple(case.scenario[2].inputs[0].shape)
    assert [w.zh for w in said] == [
        "第 1/3 步：以 train 模式调用并做反向传播",
        "第 2/3 步：按优化器的方式更新每个参数",
        f"第 3/3 步：以 eval 模式调用并做反向传播，输入形状为 {shape}（参数更新之后，批大小为 1）",
    ]
    assert said[2].en.startswith("step 3 of 3: eval-mode call with backward, input of shape")


@pytest.mark.parametrize("slug", sorted(CATALOG))
def test_source_wording_is_the_wording_stored_verdicts_had(slug: str) -> None:
    """The Chinese written at the source equals what the rules derive from its English: a
    verdict stored before reads the same as a new one (and the goldens do not move)."""
    spec = CATALOG[slug].spec
    for seed in (0, 1):
        for case in spec.make_cases(torch.Generator().manual_seed(seed)):
            if slug in AT_SOURCE:
                assert case.description_zh == verdict_zh.description(case.description)
        for case in coverage.cases(spec, torch.Generator().manual_seed(seed)):
            for k in range(len(case.scenario)):
                words = step_words(case, k, spec.kind)
                assert words.zh == (verdict_zh.step(words.en) if words.en else ""), words


def test_value_checks_say_what_they_found_in_chinese(monkeypatch: pytest.MonkeyPatch) -> None:
    """A wrong LayerNorm graded in-process: every value check's message has its Chinese from
    ``check_words``, with the rules for check messages disabled."""
    from tests.exercises import golden

    monkeypatch.setattr(verdict_zh, "check_message", _no_rules)
    monkeypatch.setattr(verdict_zh, "message", lambda view: "")  # the summary: not moved yet
    spec = CATALOG["layer_norm"].spec
    code = (REPO / "exercises/layer_norm/variants/failed_unbiased_variance.py").read_text()
    v = golden.grade(code, spec)
    assert v.status == "failed"
    valued = [c for c in v.checks if c.max_abs_error is not None or "NaN" in c.message]
    assert len(valued) > 10
    for c in valued:
        assert CJK.search(c.message_zh) and ENGLISH_RUN.findall(c.message_zh) == [], c
    said = {c.message_zh.split("（")[0].split("最多")[0] for c in valued}
    assert said >= {"一致", "与参考结果", "在参考结果为有限值的位置出现了 NaN"}, said


@pytest.mark.parametrize(
    "words",
    [
        check_words.matches(1e-7, 2e-5),
        check_words.differs(0.0828, 0.0318, [0, 12], 0.000574),
        check_words.nonfinite("NaN where the reference is finite", [3]),
        check_words.nonfinite("a different value where the reference is infinite", [0, 1]),
    ],
)
def test_check_words_are_what_the_rules_derived(words: Phrase) -> None:
    assert words.zh == verdict_zh.check_message(words.en)


# Code the static checks refuse, one finding each (the layer_norm exercise: a class; softmax:
# functions).
REFUSED = [
    ("layer_norm", "x = (\n"),
    ("layer_norm", "def f(:\n    pass\n"),
    ("layer_norm", "x = " + "(" * 300 + ")" * 300 + "\n"),
    ("layer_norm", "x = 1\x00\n"),
    ("layer_norm", "import torch\n"),
    ("softmax", "import torch\n"),
    ("layer_norm", "#" * (70 * 1024)),
    (
        "layer_norm",
        "import torch.nn.functional as F\nfrom torch import nn\n\n\nclass LayerNorm(nn.Module):\n"
        "    def forward(self, x):\n        return F.layer_norm(x, x.shape[-1:])\n",
    ),
]


@pytest.mark.parametrize(("slug", "code"), REFUSED)
def test_static_findings_are_written_in_chinese(
    monkeypatch: pytest.MonkeyPatch, slug: str, code: str
) -> None:
    """A refused submission's message has its Chinese from the static check itself, the rules
    for the verdict's message disabled; where a rule knew the English it says the same."""
    from api.grading.grader import static_verdict

    spec = CATALOG[slug].spec
    derived = static_verdict(code, spec)
    assert derived is not None
    with monkeypatch.context() as m:
        m.setattr(verdict_zh, "message", _no_rules)
        v = static_verdict(code, spec)
    assert v is not None and v.message == derived.message
    assert CJK.search(v.message_zh), v.message_zh
    # Python's own error text (after the colon) stays as Python wrote it.
    python_said = "SyntaxError" in v.message or "cannot be parsed" in v.message
    said = v.message_zh.split("：")[0] if python_said else v.message_zh
    assert ENGLISH_RUN.findall(said) == [], v.message_zh
    rules = verdict_zh.message({"message": v.message})
    assert rules is None or rules == v.message_zh, (v.message_zh, rules)


# --- the verdict's own sentences (``verdict_words``) -------------------------------------------

_FRAME_SOURCES = {
    "passed": (REPO / "solutions" / "layer_norm.py").read_text(),
    "failed": (REPO / "exercises/layer_norm/variants/failed_unbiased_variance.py").read_text(),
    "error": (REPO / "exercises/layer_norm/variants/error_view_needs_contiguous.py").read_text(),
    "rejected": (REPO / "exercises/layer_norm/variants/rejected_getattr.py").read_text(),
    "refused": """
import torch
from torch import nn
class LayerNorm(nn.Module):
    def __init__(self, dim, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim))
    def forward(self, x):
        return getattr(torch, 'log' + 'sumexp')(x, -1, keepdim=True) * 0 + x
""",
    "loading": "import torch\nraise ValueError('at load')\n",
    "undefined": "import torch\n",
}


def _derived(result: Verdict) -> str | None:
    """What ``verdict_zh`` makes of the verdict's English (a stored verdict's reading)."""
    view = result.model_dump(mode="json")
    view["message_zh"] = ""
    return verdict_zh.message(view)


@pytest.mark.parametrize("kind", sorted(_FRAME_SOURCES))
def test_the_verdict_frame_is_written_in_chinese(
    monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    from tests.exercises.golden import grade

    spec = CATALOG["layer_norm"].spec
    written = grade(_FRAME_SOURCES[kind], spec)
    assert CJK.search(written.message_zh), written.message
    assert not english_runs(written.message_zh.split("：", 1)[0]), written.message_zh
    # The same words the rules derived before, so stored verdicts read alike.
    assert written.message_zh == _derived(written), written.message
    # And none of them came from the rules: with them raising, the same verdict.
    monkeypatch.setattr(verdict_zh, "message", _no_rules)
    assert grade(_FRAME_SOURCES[kind], spec).message_zh == written.message_zh


def test_run_time_frames_are_written_in_chinese(monkeypatch: pytest.MonkeyPatch) -> None:
    from api.grading import verdict

    monkeypatch.setattr(verdict_zh, "message", _no_rules)
    spec = CATALOG["layer_norm"].spec
    common: dict[str, Any] = {"truncated": False, "signal": None, "time_limit": 5.0}
    said = [
        verdict.decide(spec, [], body=b"", timed_out=True, **common),
        verdict.decide(spec, [], body=b"", timed_out=False, **{**common, "truncated": True}),
        verdict.decide(spec, [], body=b"\x00garbage", timed_out=False, **common),
        verdict.decide(spec, [], body=b"", timed_out=False, **{**common, "signal": "SIGKILL"}),
    ]
    assert [v.status for v in said] == ["timeout", "failed", "crashed", "crashed"]
    for v in said:
        assert CJK.search(v.message_zh) and not english_runs(v.message_zh), v.message_zh
        monkeypatch.undo()
        assert v.message_zh == _derived(v)
        monkeypatch.setattr(verdict_zh, "message", _no_rules)
    assert "SIGKILL" in said[3].message_zh and "5 秒" in said[0].message_zh


def test_an_unknown_refused_operation_says_what_to_do_in_chinese() -> None:
    from api.grading import allowlist

    instead = allowlist.instead("aten::some_op_without_advice")
    assert CJK.search(instead.zh) and not english_runs(instead.zh)


# Exercises whose variants between them meet every kind of check: a hand-written backward and
# what it saves, a constructor's contract, the memory budget, an input updated in place.
_EVERY_CHECK = ("layer_norm_backward", "norm_block", "checkpointed_ffn", "fused_add_rms_norm")


@pytest.mark.parametrize("slug", _EVERY_CHECK)
def test_new_verdicts_need_no_rules(monkeypatch: pytest.MonkeyPatch, slug: str) -> None:
    """Every variant of the exercise graded with the rules replaced by a function that
    raises: the case descriptions, steps, what each check compares and found, and the
    verdict's own sentences are all written at the source, in the words the rules gave."""
    from tests.exercises.golden import grade

    names = ("description", "step", "note", "call_note", "check_message", "message", "target")
    for name in names:
        monkeypatch.setattr(verdict_zh, name, _no_rules)
    spec = CATALOG[slug].spec
    variants = sorted((REPO / "exercises" / slug / "variants").glob("*.py"))
    assert len(variants) >= 10
    checks: list[Check] = []
    for path in variants:
        result = grade(path.read_text(), spec)
        assert CJK.search(result.message_zh), (path.name, result.message)
        for c in result.checks:
            assert c.description_zh and c.message_zh and c.target_zh, (path.name, c.case)
        checks.extend(result.checks)
    monkeypatch.undo()
    targets = {c.target: c.target_zh for c in checks}
    assert len(targets) >= 5
    assert targets == {en: verdict_zh.target(en) for en in targets}
