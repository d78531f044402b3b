"""The tolerance follows the case's conditioning (``comparison.reference_outcome``): correct
code that rounds where torch's own run happens not to passes, and the allowance stays far below
what a mistake moves."""

from __future__ import annotations

import torch

from api.grading import comparison, coverage
from api.grading.spec import ExerciseSpec
from tests.exercises.test_specs_inprocess import ROOT, grade_in_process, load_spec

# Two spellings of a mean that is a rounding off on a constant row: 1/D is not exact in float32.
MATMUL_MEAN = """
import torch
from torch import nn
class LayerNorm(nn.Module):
    def __init__(self, dim, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim))
    def forward(self, x):
        mean = x @ (torch.ones(x.shape[-1], 1) / x.shape[-1])
        var = ((x - mean) ** 2).mean(-1, keepdim=True)
        return (x - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias
"""
SCALED_SUM_MEAN = MATMUL_MEAN.replace(
    "x @ (torch.ones(x.shape[-1], 1) / x.shape[-1])",
    "(x * (1.0 / x.shape[-1])).sum(-1, keepdim=True)",
)
# A mistake the constant rows must still catch: eps added after the square root.
EPS_OUTSIDE = MATMUL_MEAN.replace(
    "torch.sqrt(var + self.eps)", "(torch.sqrt(var) + self.eps)"
).replace("x @ (torch.ones(x.shape[-1], 1) / x.shape[-1])", "x.mean(-1, keepdim=True)")


def _constant_rows(spec: ExerciseSpec, seed: int) -> list:
    cases = coverage.cases(spec, torch.Generator().manual_seed(seed))
    return [c for c in cases if c.name == "constant_rows"]


def test_an_ill_conditioned_case_allows_what_a_rounding_moves() -> None:
    spec = load_spec("layer_norm")
    (case,) = _constant_rows(spec, 0)
    expected = comparison.reference_outcome(spec, case)
    native, truth = expected.native.tensors["0.output"], expected.truth.tensors["0.output"]
    # torch's own mean is exact on k/4 constants: its run alone would allow nothing.
    assert float((native.double() - truth).abs().max()) == 0.0
    assert expected.spread["0.output"] > 1e-6
    # A well-conditioned case moves by about a rounding, far below its tolerance.
    rows = next(
        c
        for c in coverage.cases(spec, torch.Generator().manual_seed(0))
        if c.name == "default_init"
    )
    calm = comparison.reference_outcome(spec, rows)
    rtol, _ = comparison.TOLERANCES[torch.float32]
    magnitude = float(calm.truth.tensors["0.output"].abs().max())
    assert calm.spread["0.output"] < 1e-3 * rtol * magnitude


def test_correct_means_that_round_pass_on_every_seed() -> None:
    spec = load_spec("layer_norm")
    for seed in range(12):
        cases = _constant_rows(spec, seed)
        for source in (MATMUL_MEAN, SCALED_SUM_MEAN):
            result = grade_in_process(source, spec, cases)
            assert result.status == "passed", f"seed {seed}: {result.message}"


def test_a_mistake_on_constant_rows_still_fails() -> None:
    spec = load_spec("layer_norm")
    for seed in range(4):
        result = grade_in_process(EPS_OUTSIDE, spec, _constant_rows(spec, seed))
        assert result.status == "failed", result.message


def test_a_bfloat16_constant_row_with_float32_statistics_by_matmul_passes() -> None:
    """float32 parameters next to bfloat16 rows: the weight's gradient sums the magnified
    rounding over every row, which an independent draw per element would underestimate."""
    spec = load_spec("mixed_precision_norm")
    source = (
        ROOT / "exercises/mixed_precision_norm/variants/passed_matmul_statistics.py"
    ).read_text()
    for seed in range(16):
        cases = coverage.cases(spec, torch.Generator().manual_seed(seed))
        rows = [c for c in cases if c.name == "bfloat16_constant_rows"]
        result = grade_in_process(source, spec, rows)
        assert result.status == "passed", f"seed {seed}: {result.message}"
