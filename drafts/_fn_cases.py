"""Edge-case families for the hand-written-backward norms (``layer_norm_backward``,
``rms_norm_backward``): one forward and one backward per case, through ``Function.apply``."""

from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class FnCase:
    family: str
    description: str
    x: torch.Tensor
    weight: torch.Tensor
    bias: torch.Tensor | None
    eps: float
    dtype: torch.dtype = torch.float32


def make_fn_cases(gen: torch.Generator, *, bias: bool, default_eps: float) -> list[FnCase]:
    f32, f64 = torch.float32, torch.float64

    def ri(lo: int, hi: int) -> int:
        return int(torch.randint(lo, hi + 1, (1,), generator=gen))

    def randn(*shape: int, dtype: torch.dtype = f32) -> torch.Tensor:
        return torch.randn(*shape, generator=gen, dtype=f64).to(dtype)

    def params(
        d: int, dtype: torch.dtype = f32, default: bool = False
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        if default:
            w, b = torch.ones(d, dtype=dtype), torch.zeros(d, dtype=dtype)
        else:
            # Weights away from 1 so that forgetting weight in dx shows; a bias so that dbias is
            # not the only thing right by accident.
            w, b = 1 + 0.5 * randn(d, dtype=dtype), randn(d, dtype=dtype)
        return w, (b if bias else None)

    out: list[FnCase] = []

    def add(
        family: str,
        description: str,
        x: torch.Tensor,
        eps: float = default_eps,
        default: bool = False,
    ) -> None:
        w, b = params(x.shape[-1], x.dtype, default)
        out.append(FnCase(family, description, x, w, b, eps, x.dtype))

    add("rows_2d", "(N, D) standard normal", randn(ri(2, 8), ri(16, 64)))
    # Few features: the mean terms of dx are a large share of it, and n / (n - 1) is far from 1.
    add("few_features", "(N, D) with D from 2 to 6", randn(ri(3, 8), ri(2, 6)) * 2 + 1)
    # Leading dims beyond one: the parameter gradients must be summed over all of them.
    add("leading_3d", "(B, T, D)", randn(ri(2, 4), ri(2, 5), ri(4, 12)))
    add("leading_4d", "(B, H, T, D)", randn(2, ri(2, 3), ri(2, 4), ri(3, 9)))
    add("single_row_3d", "(1, 1, D): a leading batch of 1", randn(1, 1, ri(5, 33)))
    add("vector_1d", "(D,): no leading dim at all", randn(ri(5, 40)))
    # Inputs whose mean square is comparable to eps: where eps sits in the statistic shows.
    add(
        "tiny_inputs",
        "(N, D) scaled by 1e-3, eps 1e-5",
        randn(ri(2, 6), ri(4, 16)) * 1e-3,
        eps=1e-5,
    )
    add("large_eps", "eps = 0.1 on a few features", randn(ri(2, 6), ri(3, 8)), eps=0.1)
    add("offset_float32", "float32 around 1e3", randn(ri(2, 6), ri(8, 32)) + 1e3)
    add("float64", "float64 (N, T, D)", randn(ri(2, 3), ri(2, 4), ri(4, 24), dtype=f64))
    add("default_params", "weight ones, bias zeros", randn(ri(2, 6), ri(4, 24)), default=True)
    # A transposed, non-contiguous view: .view() on it fails.
    add(
        "transposed",
        "a non-contiguous (T, B, D) view",
        randn(ri(2, 4), ri(2, 5), ri(4, 12)).transpose(0, 1),
    )
    x = randn(ri(3, 6), ri(4, 12))
    x[0] = 0.75  # a constant row: variance 0, x_hat 0 in LayerNorm
    x[1] = 0.0  # an all-zero row: only eps keeps RMSNorm's statistic off zero
    add("constant_row", "a constant row and an all-zero row", x)
    return out
