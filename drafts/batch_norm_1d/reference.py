"""Reference, banned built-ins and edge-case scenarios for ``batch_norm_1d``.

BatchNorm has state, so a case is a scenario: build (default init or loaded state), then steps in
train or eval mode, each compared on the output, the gradients and the buffers; between steps an
optimiser-like update changes the parameters, so state cached from an earlier call shows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import torch
from torch import nn


def reference(num_features: int, eps: float = 1e-5, momentum: float = 0.1) -> nn.Module:
    return nn.BatchNorm1d(num_features, eps=eps, momentum=momentum)


BANNED = (
    "torch.nn.BatchNorm1d",
    "torch.nn.BatchNorm2d",
    "torch.nn.BatchNorm3d",
    "torch.nn.SyncBatchNorm",
    "torch.nn.LazyBatchNorm1d",
    "torch.nn.functional.batch_norm",
    "torch.batch_norm",
    "torch.native_batch_norm",
    "torch._native_batch_norm_legit",
    "torch.nn.functional.instance_norm",
    "torch.nn.functional.group_norm",
    "torch.nn.functional.layer_norm",
    "torch.nn.InstanceNorm1d",
    "torch.nn.GroupNorm",
)


@dataclass(frozen=True)
class Step:
    mode: Literal["train", "eval"]
    x: torch.Tensor
    backward: bool = True
    # After the step, every parameter moves by -lr * its gradient (the optimiser's job).
    update_lr: float = 0.0


@dataclass(frozen=True)
class Scenario:
    family: str
    description: str
    init_kwargs: dict[str, Any]
    steps: list[Step]
    state: dict[str, torch.Tensor] | None = None
    dtype: torch.dtype = torch.float32
    tags: tuple[str, ...] = field(default_factory=tuple)


def _randn(gen: torch.Generator, *shape: int, dtype: torch.dtype) -> torch.Tensor:
    return torch.randn(*shape, generator=gen, dtype=torch.float64).to(dtype)


def _channel_offsets(gen: torch.Generator, c: int, dtype: torch.dtype) -> torch.Tensor:
    # Channels with different means and scales, as real features have: a statistic taken over
    # the wrong axis mixes them and shows.
    return _randn(gen, c, dtype=dtype) * 3


def _random_state(gen: torch.Generator, c: int, dtype: torch.dtype) -> dict[str, torch.Tensor]:
    return {
        "weight": 1 + 0.5 * _randn(gen, c, dtype=dtype),
        "bias": _randn(gen, c, dtype=dtype),
        "running_mean": _randn(gen, c, dtype=dtype),
        "running_var": 0.5 + torch.rand(c, generator=gen, dtype=torch.float64).to(dtype) * 2,
        "num_batches_tracked": torch.tensor(int(torch.randint(1, 50, (1,), generator=gen))),
    }


def make_scenarios(gen: torch.Generator) -> list[Scenario]:
    """Fresh scenarios per generator; every family a known mistake needs to be seen is here."""
    f32, f64 = torch.float32, torch.float64
    out: list[Scenario] = []

    def ri(lo: int, hi: int) -> int:
        return int(torch.randint(lo, hi + 1, (1,), generator=gen))

    # Training then eval, 2-D, default init: the running statistics after three batches, then
    # used in eval. Momentum 0.1 against 0.9 and biased against unbiased all show in the buffers.
    c = ri(3, 9)
    off = _channel_offsets(gen, c, f32)
    steps = [Step("train", _randn(gen, ri(4, 12), c, dtype=f32) * 2 + off, update_lr=0.1)]
    steps += [Step("train", _randn(gen, ri(4, 12), c, dtype=f32) + off, update_lr=0.1)]
    steps += [Step("train", _randn(gen, ri(4, 12), c, dtype=f32) + off)]
    steps += [Step("eval", _randn(gen, ri(2, 6), c, dtype=f32) + off)]
    out.append(
        Scenario(
            "train_then_eval_2d",
            "(N, C): three training steps then eval",
            {"num_features": c},
            steps,
        )
    )

    # 3-D input (N, C, L): statistics over N and L per channel. Positions differ in scale, so
    # statistics over N alone (per position) are far from the per-channel ones.
    c, n, length = ri(2, 6), ri(2, 5), ri(3, 9)
    pos = torch.linspace(0.5, 3.0, length, dtype=f32)
    x3 = _randn(gen, n, c, length, dtype=f32) * pos + _channel_offsets(gen, c, f32)[:, None]
    steps = [Step("train", x3, update_lr=0.1)]
    steps += [Step("train", _randn(gen, n, c, length, dtype=f32) * pos)]
    steps += [Step("eval", _randn(gen, n + 1, c, length, dtype=f32))]
    out.append(
        Scenario(
            "train_then_eval_3d",
            "(N, C, L): two training steps then eval",
            {"num_features": c},
            steps,
        )
    )

    # Eval from a loaded state: the running statistics alone decide the output, and must not
    # move. Repeated eval calls must give the same result.
    c = ri(3, 8)
    x = _randn(gen, ri(2, 6), c, ri(1, 5), dtype=f32)
    # The parameter update between the two calls catches a scale and shift fused from the
    # running statistics and cached on the first call.
    steps = [Step("eval", x, update_lr=0.1), Step("eval", x, backward=False)]
    out.append(
        Scenario(
            "eval_loaded_state",
            "eval with loaded running statistics, a parameter update, eval again",
            {"num_features": c},
            steps,
            state=_random_state(gen, c, f32),
        )
    )

    # Training from a loaded state with non-default momentum and eps: the state history and the
    # momentum weighting together.
    c = ri(3, 8)
    x = _randn(gen, ri(3, 8), c, dtype=f32) * 0.05 + 1.0
    steps = [Step("train", x), Step("train", x * 3 - 1), Step("eval", x)]
    out.append(
        Scenario(
            "momentum_eps",
            "momentum 0.3, eps 0.01, small-variance input",
            {"num_features": c, "momentum": 0.3, "eps": 1e-2},
            steps,
            state=_random_state(gen, c, f32),
        )
    )

    # Small batch: N = 2 in 2-D (the unbiased factor is 2), and N = 1 in 3-D (pooling over L).
    c = ri(2, 6)
    steps = [
        Step("train", _randn(gen, 2, c, dtype=f32) + 1),
        Step("eval", _randn(gen, 3, c, dtype=f32)),
    ]
    out.append(
        Scenario(
            "batch_of_two",
            "(2, C): the unbiased factor n / (n - 1) is 2",
            {"num_features": c},
            steps,
        )
    )
    c = ri(2, 6)
    steps = [Step("train", _randn(gen, 1, c, ri(3, 7), dtype=f32) * 2)]
    steps += [Step("eval", _randn(gen, 1, c, 4, dtype=f32))]
    out.append(
        Scenario(
            "batch_of_one_3d", "(1, C, L): statistics over L alone", {"num_features": c}, steps
        )
    )

    # A constant channel in training: batch variance 0, so the output is bias and the gradient
    # with respect to x is finite.
    c = ri(3, 6)
    x = _randn(gen, ri(3, 6), c, dtype=f32)
    x[:, 0] = 2.5
    out.append(
        Scenario(
            "constant_channel",
            "one channel constant over the batch",
            {"num_features": c},
            [Step("train", x)],
        )
    )

    # Large per-channel offset in float64: the naive E[x^2] - E[x]^2 cancels.
    c = ri(3, 6)
    x = _randn(gen, ri(4, 9), c, ri(2, 5), dtype=f64) + 1e4
    steps = [Step("train", x), Step("eval", x)]
    out.append(
        Scenario(
            "offset_float64", "float64 input around 1e4", {"num_features": c}, steps, dtype=f64
        )
    )

    # Non-contiguous input: (N, L, C) data transposed to (N, C, L), as after a Linear.
    c = ri(3, 6)
    xt = (_randn(gen, ri(2, 4), ri(3, 6), c, dtype=f32) + _channel_offsets(gen, c, f32)).transpose(
        1, 2
    )
    steps = [Step("train", xt, update_lr=0.1), Step("eval", xt)]
    out.append(
        Scenario("transposed_input", "(N, C, L) as a transposed view", {"num_features": c}, steps)
    )
    return out
