"""Reference, banned built-ins and edge-case scenarios for ``mixed_precision_norm``.

The reference computes in float32 (float64 for float64 input) and rounds once to the input's
dtype: it is what ``nn.LayerNorm`` does internally for half inputs, spelled out so that it also
holds for float32 parameters with a half input (mixed-dtype ``F.layer_norm`` is not supported
for every pair). The truth is the same function in float64 on the same (exactly representable)
values; the grader allows what the reference's own final rounding errs, times eight.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import torch
import torch.nn.functional as F
from torch import nn


class _Reference(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        compute = torch.promote_types(x.dtype, torch.float32)
        y = F.layer_norm(
            x.to(compute),
            (x.shape[-1],),
            self.weight.to(compute),
            self.bias.to(compute),
            self.eps,
        )
        return y.to(x.dtype)


def reference(dim: int, eps: float = 1e-5) -> nn.Module:
    return _Reference(dim, eps)


BANNED = (
    "torch.nn.functional.layer_norm",
    "torch.layer_norm",
    "torch.native_layer_norm",
    "torch.nn.LayerNorm",
    "torch.nn.functional.rms_norm",
    "torch.nn.functional.group_norm",
    "torch.nn.functional.batch_norm",
    "torch.nn.functional.instance_norm",
)


@dataclass(frozen=True)
class Step:
    mode: Literal["train", "eval"]
    x: torch.Tensor
    backward: bool = True
    update_lr: float = 0.0


@dataclass(frozen=True)
class Scenario:
    family: str
    description: str
    init_kwargs: dict[str, Any]
    steps: list[Step]
    state: dict[str, torch.Tensor] | None = None
    dtype: torch.dtype = torch.float16
    # The parameters' dtype: float32 master weights with half activations, or None for a model
    # cast to the activations' dtype (module.half()).
    param_dtype: torch.dtype | None = torch.float32
    tags: tuple[str, ...] = field(default_factory=tuple)


def make_scenarios(gen: torch.Generator) -> list[Scenario]:
    f16, bf16, f32, f64 = torch.float16, torch.bfloat16, torch.float32, torch.float64
    out: list[Scenario] = []

    def ri(lo: int, hi: int) -> int:
        return int(torch.randint(lo, hi + 1, (1,), generator=gen))

    def randn(
        *shape: int, dtype: torch.dtype, scale: float = 1.0, offset: float = 0.0
    ) -> torch.Tensor:
        # Drawn in float64, rounded once to the scenario's dtype: every value is exactly what
        # the learner's module receives, and exactly representable in the float64 truth.
        return (torch.randn(*shape, generator=gen, dtype=f64) * scale + offset).to(dtype)

    def state(d: int, dtype: torch.dtype) -> dict[str, torch.Tensor]:
        return {
            "weight": (1 + 0.5 * torch.randn(d, generator=gen, dtype=f64)).to(dtype),
            "bias": torch.randn(d, generator=gen, dtype=f64).to(dtype),
        }

    def add(
        family: str,
        description: str,
        x: torch.Tensor,
        *,
        eps: float = 1e-5,
        param_dtype: torch.dtype | None = f32,
        random_state: bool = True,
    ) -> None:
        d = x.shape[-1]
        pd = param_dtype or x.dtype
        st = state(d, pd) if random_state else None
        steps = [Step("train", x, update_lr=0.05), Step("eval", x)]
        out.append(
            Scenario(family, description, {"dim": d, "eps": eps}, steps, st, x.dtype, param_dtype)
        )

    # Well conditioned: every correct way of writing it passes, in both half formats and with
    # the parameters kept in float32 or cast with the model.
    add(
        "normal_float16",
        "float16 N(0,1), float32 parameters",
        randn(ri(2, 6), ri(3, 5), ri(16, 96), dtype=f16),
    )
    add(
        "normal_bfloat16_cast",
        "bfloat16 N(0,1), model cast to bfloat16",
        randn(ri(2, 6), ri(32, 128), dtype=bf16),
        param_dtype=None,
    )
    # Ill conditioned: a large common offset. Its mean rounded to half precision is off by up to
    # a quarter unit (ulp 0.5 at 512..1024 in float16, at 64..128 in bfloat16), the size of
    # the spread itself. Rounding is luck per row: a dozen rows or more make a small total
    # error across all of them vanishingly unlikely.
    add(
        "offset_float16",
        "float16 around 1000, spread 1",
        randn(ri(12, 24), ri(32, 128), dtype=f16, offset=1000.0),
    )
    add(
        "offset_bfloat16",
        "bfloat16 around 100, spread 1",
        randn(ri(12, 24), ri(32, 128), dtype=bf16, offset=100.0),
    )
    # float16 values whose square overflows (300^2 = 90000 > 65504): a variance in float16 is
    # inf, and the output collapses to bias.
    add(
        "square_overflow_float16",
        "float16 with spread 300: squares past 65504",
        randn(ri(2, 6), ri(16, 64), dtype=f16, scale=300.0),
        param_dtype=None,
    )
    # Tiny float16 values: squares around 1e-6 are subnormal in float16 (fewer significant bits),
    # which a small eps exposes.
    add(
        "tiny_float16",
        "float16 spread 1e-3, eps 1e-7",
        randn(ri(2, 6), ri(16, 64), dtype=f16, scale=1e-3),
        eps=1e-7,
    )
    # float32 and float64 inputs: computed in their own precision and returned in it.
    add(
        "float32",
        "float32 input, float32 parameters",
        randn(ri(2, 6), ri(8, 64), dtype=f32, offset=3.0),
    )
    add(
        "float64",
        "float64 input around 1e4",
        randn(ri(2, 6), ri(8, 64), dtype=f64, offset=1e4),
        param_dtype=None,
    )
    # Default parameters (ones and zeros) on a transposed half view.
    xt = randn(ri(8, 24), ri(2, 4), dtype=f16, offset=500.0).transpose(0, 1)
    add(
        "default_params_view",
        "default parameters, transposed float16 view around 500",
        xt,
        random_state=False,
    )
    return out
