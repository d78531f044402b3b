"""Generic findings, named for every exercise rather than by a spec's mistakes: each fires on
two different spellings of its mistake, in two exercises where it can (graded in process on the
platform's cases; tests/grading/test_exercises_over_http.py grades the same variants over HTTP).
"""

from __future__ import annotations

import dataclasses

import pytest

from tests.exercises.test_specs_inprocess import cases_for, grade_in_process, load_spec
from tests.support import REPO


def grade(slug: str, variant: str, seed: int = 3) -> object:
    code = (REPO / "exercises" / slug / "variants" / f"{variant}.py").read_text()
    return grade_in_process(code, load_spec(slug), cases_for(slug, seed))


@pytest.mark.parametrize(
    ("slug", "variant"),
    [
        ("layer_norm_backward", "failed_dweight_times_weight"),
        ("rms_norm_backward", "failed_dweight_times_weight"),
    ],
)
def test_a_gradient_times_a_parameter_is_found(slug: str, variant: str) -> None:
    v = grade(slug, variant)
    found = [f for f in v.findings if f.kind == "gradient_scaled"]  # type: ignore[attr-defined]
    assert v.status == "failed" and found, v.message  # type: ignore[attr-defined]
    assert found[0].target == "grad of input[1]"
    assert "multiplied by input[1]" in found[0].text
    assert "乘以 input[1]" in found[0].text_zh


@pytest.mark.parametrize(
    ("slug", "variant"),
    [
        ("feed_forward", "failed_unknown_activation_falls_back"),
        ("glu_ffn", "failed_unknown_activation_falls_back"),
    ],
)
def test_an_option_accepted_without_raising_is_found(slug: str, variant: str) -> None:
    v = grade(slug, variant)
    found = [f for f in v.findings if f.kind == "no_raise"]  # type: ignore[attr-defined]
    assert found, v.message  # type: ignore[attr-defined]
    assert "without raising ValueError" in found[0].text
    assert "activation=" in found[0].text and "ValueError" in found[0].text_zh


@pytest.mark.parametrize(
    ("slug", "variant"),
    [("layer_norm", "failed_batch_of_one_shortcut"), ("rms_norm", "failed_batch_of_one_fast_path")],
)
def test_a_batch_of_one_shortcut_is_found(slug: str, variant: str) -> None:
    v = grade(slug, variant)
    found = [f for f in v.findings if f.kind == "batch_of_one"]  # type: ignore[attr-defined]
    assert found, v.message  # type: ignore[attr-defined]
    assert "batch of one" in found[0].text and "批大小为 1" in found[0].text_zh
    # A correct solution meets the same batches and gets no such finding (it passes).
    solution = (REPO / "solutions" / f"{slug}.py").read_text()
    assert grade_in_process(solution, load_spec(slug), cases_for(slug, 3)).status == "passed"


def test_a_batch_of_one_is_said_once_when_several_cases_show_it() -> None:
    """Two failing cases, both on a batch of one: the scope finding ("only cases with a call on
    a batch of one fail") would repeat the batch-of-one finding, which also says why."""
    slug = "layer_norm"
    code = (REPO / "exercises" / slug / "variants" / "failed_batch_of_one_shortcut.py").read_text()
    spec, cases = load_spec(slug), cases_for(slug, 3)
    once = grade_in_process(code, spec, cases)
    failing = {c.case for c in once.checks if not c.passed}  # type: ignore[attr-defined]
    assert len(failing) == 1
    shown = next(c for c in cases if c.name in failing)
    twice = grade_in_process(code, spec, [*cases, dataclasses.replace(shown, name="again")])
    kinds = [f.kind for f in twice.findings]  # type: ignore[attr-defined]
    assert kinds.count("batch_of_one") == 1, kinds
    assert not any(f.kind == "scope" for f in twice.findings), kinds  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("slug", "variant", "name"),
    [
        ("layer_norm", "failed_float32_internals", "float32_internals"),
        ("fused_add_rms_norm", "failed_float32_internals_hf_style", "float32_internals"),
        ("layer_norm", "failed_bf16_sum_then_divide", "low_precision_statistics"),
        ("layer_norm", "failed_bf16_statistics_by_sum", "low_precision_statistics"),
        ("layer_norm_backward", "failed_gradient_float64", "wrong_gradient_dtype"),
    ],
)
@pytest.mark.parametrize("seed", [3, 11])
def test_precision_mistakes_are_named_whatever_the_seed(
    slug: str, variant: str, name: str, seed: int
) -> None:
    v = grade(slug, variant, seed)
    assert v.status == "failed", v.message  # type: ignore[attr-defined]
    assert v.diagnosis is not None and v.diagnosis.name == name, v.message  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("slug", "variant", "target"),
    [
        ("layer_norm", "failed_bias_init_ones", "bias"),
        ("layer_norm", "failed_init_swapped", "weight, bias"),
    ],
)
def test_a_parameter_started_at_a_constant_is_found(slug: str, variant: str, target: str) -> None:
    v = grade(slug, variant)
    found = [f for f in v.findings if f.kind == "default_init"]  # type: ignore[attr-defined]
    assert found and found[0].target == target, v.message  # type: ignore[attr-defined]
    assert "initialised to 1" in found[0].text and "初始化为 1" in found[0].text_zh


def test_a_module_started_at_zero_is_found() -> None:
    v = grade("rms_norm", "failed_weight_init_zeros")
    found = [f for f in v.findings if f.kind == "default_init"]  # type: ignore[attr-defined]
    assert found and found[0].value == 0.0, v.message  # type: ignore[attr-defined]
    assert "set to zero" in found[0].text
