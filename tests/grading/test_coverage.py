"""The platform's cases (``api/grading/coverage.py``) and the precision float64 is judged at:
every exercise meets them, every prompt says so in the words the code generates, and each
closes the class of wrong code it is for (the variants in ``exercises/*/variants`` show each
class failing, in process and over HTTP)."""

from __future__ import annotations

import pytest
import torch

from api.content.catalog import load_catalog
from api.grading import coverage
from api.grading.draw import MAX_NUMEL
from api.grading.spec import FLOAT64_OWN, Call, Update
from tests.support import REPO

CATALOG = load_catalog(REPO / "exercises")
SLUGS = list(CATALOG)
# The exercises whose prompt admits float32 internals for float64 input (Llama's RMSNorm, and the
# LLaMA layer built on it; the bfloat16 lab, whose float32 arm is the point and whose answers
# are log10 errors).
ADMITS_FLOAT32 = {"rms_norm", "ffn_block", "bf16_norm_precision", "decoder_block"}


@pytest.mark.parametrize("slug", SLUGS)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_prompt_states_the_platform_cases_and_the_precision(slug: str, lang: str) -> None:
    spec = CATALOG[slug].spec
    name = "prompt.md" if lang == "en" else "prompt.zh.md"
    text = (REPO / "exercises" / slug / name).read_text(encoding="utf-8")
    wanted = coverage.statement(spec, lang)
    assert wanted and wanted in text, f"{slug} {name}: run python -m api.content.statements --write"
    assert coverage.with_statement(text, spec, lang) == text


@pytest.mark.parametrize("slug", SLUGS)
def test_repeated_calls_draw_fresh_data_of_one_shape(slug: str) -> None:
    spec = CATALOG[slug].spec
    case = next(
        c
        for c in coverage.cases(spec, torch.Generator().manual_seed(4))
        if c.name == "repeated_calls"
    )
    calls = [s for s in case.scenario if isinstance(s, Call)]
    assert len(calls) >= 3
    first = calls[0].inputs[0]
    for later in calls[1:]:
        x = later.inputs[0]
        assert x.shape == first.shape and x.dtype == first.dtype
        assert not torch.equal(x, first), "fresh data on every call"
    if spec.kind == "module" and case.state is not None and spec.trains:
        # Before and after an update of the parameters.
        k = next(i for i, s in enumerate(case.scenario) if isinstance(s, Update))
        assert sum(isinstance(s, Call) for s in case.scenario[k:]) >= 2


def test_the_given_module_is_kept_under_every_option() -> None:
    for slug in ("norm_block", "residual_block"):
        spec = CATALOG[slug].spec
        drawn = coverage.cases(spec, torch.Generator().manual_seed(2))
        given = [c for c in drawn if c.module_args and c.raises is None]
        options = {k for c in given for k, v in c.init_kwargs.items() if isinstance(v, bool | str)}
        assert options, slug
        for key in options:
            values = {c.init_kwargs.get(key) for c in given}
            kept = {c.init_kwargs.get(key) for c in given if c.state is None}
            assert values <= kept, (slug, key, values - kept)


@pytest.mark.parametrize("slug", [s for s in SLUGS if CATALOG[s].spec.reduces_rows])
def test_bfloat16_rows_where_the_exercise_reduces_them(slug: str) -> None:
    drawn = {
        c.name: c for c in coverage.cases(CATALOG[slug].spec, torch.Generator().manual_seed(1))
    }
    constant, offset = drawn["bfloat16_constant_rows"], drawn["bfloat16_offset_8"]
    for case in (constant, offset):
        x = case.x
        assert x.dtype == torch.bfloat16
        # A size that is no power of two: a sum of equal values is then rounded in bfloat16.
        assert x.shape[-1] & (x.shape[-1] - 1)
    rows = constant.x.reshape(-1, constant.x.shape[-1])
    assert bool((rows == rows[:, :1]).all())
    # On every row, the sum rounded to bfloat16 and divided by the size is not the value.
    n = rows.shape[-1]
    value = rows[:, 0].float()
    rounded_mean = ((value * n).to(torch.bfloat16).float() / n).to(torch.bfloat16).float()
    assert bool((rounded_mean != value).all())
    assert abs(float(offset.x.double().mean()) - coverage.BF16_OFFSET) < 1.0


@pytest.mark.parametrize("slug", SLUGS)
def test_float64_is_judged_at_its_own_precision_unless_the_prompt_admits_float32(slug: str) -> None:
    spec = CATALOG[slug].spec
    assert spec.float32_internals == (slug in ADMITS_FLOAT32)
    scale = spec.tolerance(torch.float64) / spec.tolerance_scale
    assert scale == (1.0 if spec.float32_internals else FLOAT64_OWN)
    assert spec.tolerance(torch.float32) == spec.tolerance_scale


@pytest.mark.parametrize("slug", SLUGS)
def test_platform_cases_are_small_and_come_before_the_construction_cases(slug: str) -> None:
    spec = CATALOG[slug].spec
    own = spec.make_cases(torch.Generator().manual_seed(6))
    drawn = coverage.cases(spec, torch.Generator().manual_seed(6))
    added = [c for c in drawn if c.name not in {o.name for o in own}]
    assert added and len(drawn) == len(own) + len(added)
    raises = [c.raises is not None for c in drawn]
    assert raises == sorted(raises), "construction cases last"
    for case in added:
        for step in case.scenario:
            tensors = [*step.inputs, *(step.grad_outputs or ())] if isinstance(step, Call) else []
            tensors += list(step.deltas.values()) if isinstance(step, Update) else []
            assert all(t.numel() <= MAX_NUMEL for t in tensors), case.name
        assert case.description_zh, case.name


def test_platform_cases_are_reproducible_from_the_seed() -> None:
    spec = CATALOG["layer_norm"].spec
    a = coverage.cases(spec, torch.Generator().manual_seed(9))
    b = coverage.cases(spec, torch.Generator().manual_seed(9))
    assert [c.name for c in a] == [c.name for c in b]
    for ca, cb in zip(a, b, strict=True):
        assert torch.equal(ca.x, cb.x)
