"""The wrong-reduction-axis finding: the exercise's declared computation along another axis
explains the learner's output; nothing else (another mistake, non-default parameters, an
exercise that declares nothing) makes it fire. And scoped diagnoses read as sentences."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import torch
import torch.nn.functional as F

from api.content.catalog import load_catalog
from api.grading import findings
from api.grading.diagnosis import _scoped
from api.grading.findings import Discrepancy
from api.grading.scope import Condition

EXERCISES = Path(__file__).resolve().parents[2] / "exercises"


def _layer_norm(x: torch.Tensor, axis: int) -> torch.Tensor:
    moved = x.movedim(axis, -1)
    return F.layer_norm(moved, moved.shape[-1:], eps=1e-5).movedim(-1, axis)


def _fits(a: torch.Tensor, c: torch.Tensor) -> bool:
    return bool(torch.allclose(a.double(), c.double(), rtol=1e-4, atol=1e-5))


def _discrepancy(
    actual: torch.Tensor,
    x: torch.Tensor,
    along: Callable[[int], torch.Tensor] | None,
    case: str = "c",
) -> Discrepancy:
    return Discrepancy(
        case=case,
        description="x = N(0,1)",
        step=0,
        target="output",
        actual=actual,
        truth=_layer_norm(x.double(), -1),
        step_input=x,
        is_output=True,
        fits=_fits,
        along=along,
    )


def _x(*shape: int) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(0), dtype=torch.float64)


def test_statistics_over_the_sequence_axis_are_named() -> None:
    x = _x(2, 5, 16)
    found = findings.axis([_discrepancy(_layer_norm(x, 1), x, lambda k: _layer_norm(x, k))])
    assert found is not None
    assert (found.kind, found.axis, found.expected_axis) == ("axis", 1, 2)
    assert "dim 1 (size 5)" in found.text and "dim 2 (size 16)" in found.text
    assert "第 1 维（大小 5）" in found.text_zh and "第 2 维（大小 16）" in found.text_zh


def test_another_discrepancy_is_no_axis() -> None:
    x = _x(2, 5, 16)
    wrong_scale = 2 * _layer_norm(x, -1)
    assert findings.axis([_discrepancy(wrong_scale, x, lambda k: _layer_norm(x, k))]) is None


def test_nothing_declared_nothing_found() -> None:
    x = _x(2, 5, 16)
    assert findings.axis([_discrepancy(_layer_norm(x, 1), x, None)]) is None


def test_a_reference_the_declared_computation_misses_gives_no_finding() -> None:
    # The case loads a weight the declared computation does not know of: the reference along
    # its own axis no longer matches the truth, so no axis can be claimed.
    x = _x(2, 5, 16)
    d = _discrepancy(_layer_norm(x, 1), x, lambda k: 3 * _layer_norm(x, k))
    assert findings.axis([d]) is None


def test_a_size_one_axis_is_no_statistic() -> None:
    x = _x(1, 16)
    zeros = torch.zeros_like(x)
    assert findings.axis([_discrepancy(zeros, x, lambda k: _layer_norm(x, k))]) is None


def _declared(
    slug: str,
) -> Callable[[str, torch.Tensor, int, Mapping[str, torch.Tensor] | None], torch.Tensor]:
    reduction = load_catalog(EXERCISES)[slug].spec.reduction
    assert reduction is not None
    return reduction


def test_declared_reductions_reproduce_their_references_along_the_feature_axis() -> None:
    x = _x(4, 3, 6)
    assert torch.allclose(_declared("layer_norm")("", x, 2, None), _layer_norm(x, -1))
    rms = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)
    assert torch.allclose(_declared("rms_norm")("", x, 2, None), rms)
    assert torch.allclose(_declared("softmax")("log_softmax", x, 2, None), x.log_softmax(-1))
    bn = F.batch_norm(x, None, None, training=True, eps=1e-5)
    assert torch.allclose(_declared("batch_norm_1d")("", x, 1, None), bn)


def test_scoped_part_quotes_the_title_in_its_own_clause() -> None:
    class _Mistake:
        name, title, title_zh = (
            "always_post_norm",
            "norm_first ignored: post-norm",
            "忽略了 norm_first",
        )

    class _Match:
        mistake = _Mistake()

    cond = Condition("norm_first", ("True",), "with norm_first=True", "norm_first=True")
    part = _scoped(_Match(), ["a", "b"], cond)  # type: ignore[arg-type]
    assert part.text == (
        "On the 2 failing cases with norm_first=True, your code behaves as the known mistake "
        "“norm_first ignored: post-norm” describes."
    )
    assert part.text_zh == (
        "在 norm_first=True 的 2 个失败用例上，你的代码与已知错误“忽略了 norm_first”的描述一致。"
    )
