"""A random block graded by its law (``spec.Law``, ``api/grading/laws.py``), and the platform's
two forwards before one backward (``Call.defer``): each test fails on the grader before them."""

from __future__ import annotations

import math
from pathlib import Path

import torch

from api.content.catalog import load_exercise
from api.grading import laws
from api.grading.spec import Call
from tests.exercises import golden

ROOT = Path(__file__).resolve().parents[2]

RAND_LIKE = """
import torch
from torch import nn


class Dropout(nn.Module):
    def __init__(self, p=0.5):
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(p)
        self.p = p

    def forward(self, x):
        if not self.training or self.p == 0:
            return x
        if self.p == 1:
            return torch.zeros_like(x)
        return x * (torch.rand_like(x) > self.p) / (1 - self.p)
"""

# Right but for one thing: the mask lives on the module and the hand-written backward reads
# it there, so a second forward before the first backward replaces it.
OVERWRITTEN = """
import torch
from torch import nn


class _Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, module):
        ctx.module = module
        return x * module.mask

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.module.mask, None


class Dropout(nn.Module):
    def __init__(self, p=0.5):
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(p)
        self.p = p
        self.mask = None

    def forward(self, x):
        if not self.training or self.p == 0:
            return x
        if self.p == 1:
            return torch.zeros_like(x)
        self.mask = torch.empty_like(x).bernoulli_(1 - self.p) / (1 - self.p)
        return _Scale.apply(x, self)
"""

# LayerNorm that keeps its normalised input on the module for a hand-written backward.
LAYER_NORM_KEPT = """
import torch
from torch import nn


class _Affine(torch.autograd.Function):
    @staticmethod
    def forward(ctx, xhat, weight, bias, module):
        module.xhat = xhat
        ctx.module = module
        return xhat * weight + bias

    @staticmethod
    def backward(ctx, grad):
        xhat = ctx.module.xhat  # the latest call's, not this one's
        d = grad.shape[-1]
        dweight = (grad * xhat).reshape(-1, d).sum(0)
        return grad * ctx.module.weight, dweight, grad.reshape(-1, d).sum(0), None


class LayerNorm(nn.Module):
    def __init__(self, dim, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim))

    def forward(self, x):
        mean = x.mean(-1, keepdim=True)
        var = ((x - mean) ** 2).mean(-1, keepdim=True)
        xhat = (x - mean) / torch.sqrt(var + self.eps)
        return _Affine.apply(xhat, self.weight, self.bias, self)
"""


def _spec(slug: str):  # type: ignore[no-untyped-def]
    return load_exercise(ROOT / "exercises" / slug).spec


def test_a_correct_dropout_drawn_with_rand_like_passes() -> None:
    result = golden.grade(RAND_LIKE, _spec("dropout"))
    assert result.status == "passed", result.message


def test_a_mask_overwritten_between_two_forwards_fails_named() -> None:
    result = golden.grade(OVERWRITTEN, _spec("dropout"))
    assert result.status == "failed", result.message
    assert result.diagnosis is not None
    assert result.diagnosis.name == "mask_overwritten_before_backward"


def test_every_module_is_called_twice_before_one_backward() -> None:
    # The platform's repeated_calls case holds its first call's backward: a LayerNorm whose
    # backward reads what the module kept gives the first call the second call's gradient.
    result = golden.grade(LAYER_NORM_KEPT, _spec("layer_norm"))
    assert result.status == "failed", result.message
    failing = {c.case for c in result.checks if not c.passed}
    assert failing == {"repeated_calls"}, failing  # right wherever backward follows each call


def test_a_chunk_of_only_inf_counted_into_the_empty_state_is_named() -> None:
    source = (ROOT / "exercises/online_softmax/variants/failed_empty_chunk_counted.py").read_text()
    result = golden.grade(source, _spec("online_softmax"))
    assert result.status == "failed", result.message
    assert result.diagnosis is not None and result.diagnosis.name == "empty_chunk_counted"


def test_binomial_bounds_hold_a_fair_count_and_refuse_the_swapped_one() -> None:
    lo, hi = laws.binomial_bounds(132, 0.1)
    assert lo <= 13.2 <= hi
    assert not lo <= 132 * 0.9 <= hi  # p read as the keep probability
    gen = torch.Generator().manual_seed(0)
    # A correct draw stays inside on a thousand tries.
    counts = (torch.rand(1000, 500, generator=gen) < 0.3).sum(-1)
    lo, hi = laws.binomial_bounds(500, 0.3)
    assert bool(((counts >= lo) & (counts <= hi)).all())
    s_lo, s_hi = laws.normal_std_bounds(10_000, 0.02)
    assert s_lo < 0.02 < s_hi and s_hi < 0.02 * math.sqrt(2)


def test_a_checkpoint_that_keeps_the_generator_state_passes_on_small_inputs() -> None:
    # PyTorch's reentrant checkpoint with preserve_rng_state=True keeps 5056 bytes of
    # generator state on its ctx: every case's input is under 2.5 KB, where that alone used to
    # break a budget of twice the input's bytes.
    path = ROOT / "exercises/checkpointed_ffn/variants/passed_reentrant_rng_state.py"
    result = golden.grade(path.read_text(), _spec("checkpointed_ffn"))
    assert result.status == "passed", result.message


def test_the_memory_budget_still_catches_kept_activations_in_every_case() -> None:
    spec = _spec("checkpointed_ffn")
    assert spec.saved_bytes_budget is not None
    for case in spec.make_cases(torch.Generator().manual_seed(1)):
        hidden = int(case.init_kwargs["hidden_dim"])
        for step in case.scenario:
            if not isinstance(step, Call) or not step.backward:
                continue
            x = step.inputs[0]
            rows = x.numel() // x.shape[-1]
            # x and one hidden activation (h or gelu(h)); at hidden = dim, x, h and gelu(h)
            kept = (
                x.numel() + rows * hidden * (1 if hidden > x.shape[-1] else 2)
            ) * x.element_size()
            assert kept > 1.1 * spec.saved_bytes_budget(case, step), case.name
