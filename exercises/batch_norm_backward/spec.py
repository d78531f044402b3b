"""Grading spec for ``batch_norm_backward``: BatchNorm in training mode as a
``torch.autograd.Function`` whose hand-written backward is what gets graded, against
``torch.nn.functional.batch_norm(x, None, None, weight, bias, training=True, eps=eps)``.

Each call is ``BatchNormFunction.apply(x, weight, bias, eps)`` on ``(N, C)`` or ``(N, C, L)``:
statistics per channel over every other axis (``N``, or ``N`` and ``L``), biased variance, eps
inside the sqrt; no running statistics (a Function has no state: those are the module's, see
``batch_norm_1d``). The grader runs the learner's backward node itself and compares the output
and the gradients of x, weight and bias exactly as backward returns them (a weight gradient of
shape ``(C, L)`` fails, though autograd would have summed it down), checks that the output's
``grad_fn`` is the learner's node and that forward keeps its tensors with
``ctx.save_for_backward``.

What a solution legitimately needs (for the per-exercise allow-list): mean / sum / var over
dims, rsqrt / sqrt, reshape / view / unsqueeze, elementwise arithmetic. No norm built-in, and
no autograd inside backward.
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F

from api.grading.allowlist import ELEMENTARY
from api.grading.draw import choice, norm_function_case, normal, randint, shape_for
from api.grading.phrase import (
    BATCH_OF_TWO,
    CHANNEL_OFFSETS,
    ONE_SEQUENCE,
    Phrase,
    channels_offset_by,
)
from api.grading.spec import Case, ExerciseSpec, KnownMistake, Layout

F32, F64 = torch.float32, torch.float64


class Reference(torch.autograd.Function):
    """``F.batch_norm`` in training mode behind the contract's ``apply``; autograd
    differentiates it."""

    @staticmethod
    def apply(
        x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float
    ) -> torch.Tensor:
        return F.batch_norm(x, None, None, weight, bias, training=True, eps=eps)


def make_cases(gen: torch.Generator) -> list[Case]:
    """Fourteen families, one call each. Order matters for naming: the families that separate
    similar mistakes (few rows, the (N, C, L) reductions, random weights) come first."""
    cases: list[Case] = []

    def add(
        name: str,
        what: Phrase | str,
        x: torch.Tensor,
        *,
        eps: float = 1e-5,
        default_params: bool = False,
        backward: bool = True,
        layout: Layout = "contiguous",
        extra: tuple[Phrase, ...] = (),
    ) -> None:
        cases.append(
            norm_function_case(
                gen,
                name=name,
                what=what,
                x=x,
                eps=eps,
                bias=True,
                default_params=default_params,
                backward=backward,
                layout=layout,
                feature_axis=1,
                notes=extra,
            )
        )

    def shape(ndim: int, channels: int, max_rows: int = 32) -> tuple[int, ...]:
        return shape_for(gen, ndim, channels, max_rows=max_rows, axis=1)

    add("few_rows_f64", "N(0,1) * 2 + 1", normal(gen, (randint(gen, 3, 5), 7), F64) * 2 + 1)
    add("sequence_3d", "N(0,1)", normal(gen, (randint(gen, 3, 5), 6, randint(gen, 5, 9)), F32))
    add("rows_2d", "N(0,1)", normal(gen, (randint(gen, 12, 24), 10), F32))
    add(
        "sequence_3d_f64",
        "N(0,1) * 2 + 1",
        normal(gen, (randint(gen, 2, 4), 5, randint(gen, 3, 6)), F64) * 2 + 1,
    )
    add("large_eps", "N(0,1)", normal(gen, (randint(gen, 3, 6), 4), F64), eps=0.1)
    add(
        "one_sequence",
        "N(0,1)",
        normal(gen, (1, randint(gen, 3, 8), randint(gen, 12, 20)), F32),
        extra=(ONE_SEQUENCE,),
    )
    add(
        "batch_of_two",
        "N(0,1)",
        normal(gen, (2, randint(gen, 4, 9)), F64),
        extra=(BATCH_OF_TWO,),
    )
    offsets = normal(gen, (1, 8, 1), F32, std=100.0)
    add(
        "channel_offsets",
        CHANNEL_OFFSETS,
        normal(gen, (4, 8, 12), F32) + offsets,
        extra=(channels_offset_by("100 * N(0,1)"),),
    )
    add(
        "default_params_transposed",
        "N(0,1)",
        normal(gen, shape(3, 12), F32),
        default_params=True,
        layout="transposed",
    )
    add("strided_2d_f64", "N(0,1)", normal(gen, shape(2, 16), F64), layout="strided")
    odd = choice(gen, [150, 200, 300])
    add("wide_channels", "N(0,1)", normal(gen, (randint(gen, 4, 8), odd), F32))
    add("tiny_inputs", "N(0,1) * 1e-3", normal(gen, shape(3, 6), F32) * 1e-3)
    add("forward_only", "N(0,1)", normal(gen, shape(3, 8), F32), backward=False)
    add("forward_only_2d", "N(0,1)", normal(gen, shape(2, 20), F64), backward=False)
    return cases


# ---- Known mistakes: the right forward, one wrong backward each. ----

Grads = tuple[torch.Tensor, torch.Tensor, torch.Tensor, None]


def _dims(x: torch.Tensor) -> tuple[int, ...]:
    """Every axis but the channels'."""
    return (0,) if x.dim() == 2 else (0, 2)


def _per_channel(t: torch.Tensor, like: torch.Tensor) -> torch.Tensor:
    return t.view(1, -1) if like.dim() == 2 else t.view(1, -1, 1)


class _RightForward(torch.autograd.Function):
    @staticmethod
    def forward(
        ctx: Any, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float
    ) -> torch.Tensor:
        dims = _dims(x)
        mean = x.mean(dims, keepdim=True)
        var = ((x - mean) ** 2).mean(dims, keepdim=True)
        rstd = torch.rsqrt(var + eps)
        x_hat = (x - mean) * rstd
        ctx.save_for_backward(x, x_hat, rstd, weight)
        ctx.eps = eps
        return x_hat * _per_channel(weight, x) + _per_channel(bias, x)


def _param_grads(dy: torch.Tensor, x_hat: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    dims = _dims(dy)
    return (dy * x_hat).sum(dims), dy.sum(dims)


def _dx(g: torch.Tensor, x_hat: torch.Tensor, rstd: torch.Tensor, dims: tuple[int, ...]) -> Any:
    return rstd * (g - g.mean(dims, keepdim=True) - x_hat * (g * x_hat).mean(dims, keepdim=True))


class MeanTermsDropped(_RightForward):
    @staticmethod
    def backward(ctx: Any, dy: torch.Tensor) -> Grads:
        _, x_hat, rstd, weight = ctx.saved_tensors
        dweight, dbias = _param_grads(dy, x_hat)
        return rstd * dy * _per_channel(weight, dy), dweight, dbias, None


class VarianceTermDropped(_RightForward):
    @staticmethod
    def backward(ctx: Any, dy: torch.Tensor) -> Grads:
        _, x_hat, rstd, weight = ctx.saved_tensors
        dweight, dbias = _param_grads(dy, x_hat)
        g = dy * _per_channel(weight, dy)
        return rstd * (g - g.mean(_dims(dy), keepdim=True)), dweight, dbias, None


class WeightMissingFromDx(_RightForward):
    @staticmethod
    def backward(ctx: Any, dy: torch.Tensor) -> Grads:
        _, x_hat, rstd, _ = ctx.saved_tensors
        dweight, dbias = _param_grads(dy, x_hat)
        return _dx(dy, x_hat, rstd, _dims(dy)), dweight, dbias, None


class BackwardOverBatchOnly(_RightForward):
    @staticmethod
    def backward(ctx: Any, dy: torch.Tensor) -> Grads:
        _, x_hat, rstd, weight = ctx.saved_tensors
        # Written for (N, C): every reduction over dim 0, whatever the rank.
        g = dy * _per_channel(weight, dy)
        return _dx(g, x_hat, rstd, (0,)), (dy * x_hat).sum(0), dy.sum(0), None


class ParamGradsNotSummedOverLength(_RightForward):
    @staticmethod
    def backward(ctx: Any, dy: torch.Tensor) -> Grads:
        _, x_hat, rstd, weight = ctx.saved_tensors
        g = dy * _per_channel(weight, dy)
        return _dx(g, x_hat, rstd, _dims(dy)), (dy * x_hat).sum(0), dy.sum(0), None


class CountIsBatchSize(_RightForward):
    @staticmethod
    def backward(ctx: Any, dy: torch.Tensor) -> Grads:
        _, x_hat, rstd, weight = ctx.saved_tensors
        dims = _dims(dy)
        dweight, dbias = _param_grads(dy, x_hat)
        g = dy * _per_channel(weight, dy)
        n = dy.shape[0]  # the batch size, not the N * L values each channel's statistics saw
        dx = rstd * (
            g - g.sum(dims, keepdim=True) / n - x_hat * (g * x_hat).sum(dims, keepdim=True) / n
        )
        return dx, dweight, dbias, None


class WeightGradFromX(_RightForward):
    @staticmethod
    def backward(ctx: Any, dy: torch.Tensor) -> Grads:
        x, x_hat, rstd, weight = ctx.saved_tensors
        dims = _dims(dy)
        g = dy * _per_channel(weight, dy)
        return _dx(g, x_hat, rstd, dims), (dy * x).sum(dims), dy.sum(dims), None


class VarianceRecomputedUnbiased(_RightForward):
    @staticmethod
    def backward(ctx: Any, dy: torch.Tensor) -> Grads:
        x, _, _, weight = ctx.saved_tensors
        dims = _dims(dy)
        mean = x.mean(dims, keepdim=True)
        rstd = torch.rsqrt(x.var(dims, keepdim=True) + ctx.eps)  # torch.var: n - 1
        x_hat = (x - mean) * rstd
        dweight, dbias = _param_grads(dy, x_hat)
        g = dy * _per_channel(weight, dy)
        return _dx(g, x_hat, rstd, dims), dweight, dbias, None


MISTAKES = (
    KnownMistake(
        name="dx_mean_terms_dropped",
        title="dx without its two batch-mean terms",
        explanation=(
            "Your dx is rstd * dy * weight: the derivative of x_hat with the batch mean and "
            "variance held constant. In training both are computed from the batch, so every "
            "x reaches every output of its channel: the full derivative subtracts two means "
            "over the channel's N (or N * L) values, dx = rstd * (g - mean(g) - x_hat * "
            "mean(g * x_hat)) with g = dy * weight. Holding the statistics constant is the "
            "derivative of eval mode (running statistics), not of training."
        ),
        title_zh="dx 漏掉了两个 batch 均值项",
        explanation_zh=(
            "你的 dx 是 rstd * dy * weight，这是把 batch 的均值和方差当作常数时 x_hat 的导数。"
            "训练时两者都由 batch 算出，每个 x 会影响同一通道的所有输出：完整的导数要减去该通道"
            " N（或 N * L）个值上的两个均值，dx = rstd * (g - mean(g) - x_hat * "
            "mean(g * x_hat))，g = dy * weight。"
            "把统计量当常数是 eval 模式（用滑动统计量）的导数，不是训练模式的。"
        ),
        build=MeanTermsDropped,
    ),
    KnownMistake(
        name="dx_variance_term_dropped",
        title="dx without the variance term",
        explanation=(
            "Your dx subtracts mean(g) but not x_hat * mean(g * x_hat): you differentiated "
            "through the batch mean but treated the batch variance as a constant. The variance "
            "depends on every value of the channel too; its path contributes -rstd * x_hat * "
            "mean(g * x_hat). Fix: dx = rstd * (g - mean(g) - x_hat * mean(g * x_hat))."
        ),
        title_zh="dx 漏掉了方差那一项",
        explanation_zh=(
            "你的 dx 减去了 mean(g)，却没有减去 x_hat * mean(g * x_hat)：对 batch 均值求了导，却把"
            " batch 方差当成常数。方差同样依赖该通道的每个值，经由它的路径贡献 -rstd * x_hat * "
            "mean(g * x_hat)。改法：dx = rstd * (g - mean(g) - x_hat * mean(g * x_hat))。"
        ),
        build=VarianceTermDropped,
    ),
    KnownMistake(
        name="dx_without_weight",
        title="dx computed from dy instead of dy * weight",
        explanation=(
            "Your dx uses dy where the gradient reaching x_hat is g = dy * weight (per "
            "channel): y = x_hat * weight + bias, so every path from x to the loss passes "
            "through the scale. Default weights of ones hide this; trained ones do not."
        ),
        title_zh="dx 用的是 dy 而不是 dy * weight",
        explanation_zh=(
            "你的 dx 直接用了 dy，而到达 x_hat 的梯度是 g = dy * weight（按通道）："
            "y = x_hat * weight + bias，从 x 到损失的每条路径都要经过这个缩放。weight 取默认的"
            "全 1 时看不出来，训练后的权重就不行了。"
        ),
        build=WeightMissingFromDx,
    ),
    KnownMistake(
        name="backward_over_batch_only",
        title="Backward reduces over N only on (N, C, L) input",
        explanation=(
            "Your backward takes its means and sums over dim 0 alone, as for (N, C) input. "
            "On (N, C, L) the forward's statistics are per channel over N and L together, so "
            "the backward must reduce over dims (0, 2) too: dx's two mean terms and the "
            "weight and bias gradients (which come back shaped (C, L) instead of (C,))."
        ),
        title_zh="输入为 (N, C, L) 时，backward 只在 N 上归约",
        explanation_zh=(
            "你的 backward 只在第 0 维上求均值和求和，就像输入是 (N, C) 一样。输入为 (N, C, L) 时，"
            "forward 的统计量是每个通道在 N 和 L 上一起算的，所以 backward 也要在 (0, 2) 维上归约："
            "dx 的两个均值项，以及 weight 和 bias 的梯度（否则形状是 (C, L) 而不是 (C,)）。"
        ),
        build=BackwardOverBatchOnly,
    ),
    KnownMistake(
        name="param_grads_not_summed_over_length",
        title="weight and bias gradients not summed over L",
        explanation=(
            "Your dx is right, but the weight and bias gradients are summed over N only, so "
            "for (N, C, L) input they have shape (C, L), not (C,). weight and bias are shared "
            "by every position of every sequence: sum over dims (0, 2). Autograd would sum a "
            "broadcastable gradient down for you, hiding this; the contract asks for gradients "
            "shaped like the inputs."
        ),
        title_zh="weight 和 bias 的梯度没有在 L 上求和",
        explanation_zh=(
            "你的 dx 是对的，但 weight 和 bias 的梯度只在 N 上求和，输入为 (N, C, L) 时形状是 "
            "(C, L) 而不是 (C,)。weight 和 bias 被每条序列的每个位置共享：要在 (0, 2) 维上求和。"
            "autograd "
            "会替你把可广播的梯度归约下去，从而掩盖这个问题；本题要求返回与输入同形状的梯度。"
        ),
        build=ParamGradsNotSummedOverLength,
    ),
    KnownMistake(
        name="count_is_batch_size",
        title="The mean terms divided by N instead of N * L",
        explanation=(
            "Your dx divides the two sums over the channel by x.shape[0]. Each channel's "
            "statistics are taken over N * L values on (N, C, L) input (N on (N, C)), and the "
            "two terms are means over those same values: divide by x.numel() // x.shape[1]."
        ),
        title_zh="均值项除以了 N 而不是 N * L",
        explanation_zh=(
            "你的 dx 把通道上的两个求和除以了 x.shape[0]。输入为 (N, C, L) 时，每个通道的统计量"
            "是在 N * L 个值上算的（(N, C) 时是 N 个），这两项是同一批值上的均值：应除以 "
            "x.numel() // x.shape[1]。"
        ),
        build=CountIsBatchSize,
    ),
    KnownMistake(
        name="weight_grad_from_x",
        title="weight gradient computed from x instead of x_hat",
        explanation=(
            "Your dweight sums dy * x. The weight multiplies the normalised x_hat, not x: "
            "dweight = sum(dy * x_hat) over every axis but the channels'. With inputs already "
            "near zero mean and unit variance the two look alike; with offsets they do not."
        ),
        title_zh="weight 的梯度用了 x 而不是 x_hat",
        explanation_zh=(
            "你的 dweight 是对 dy * x 求和。weight 乘的是归一化后的 x_hat，不是 x："
            "dweight = sum(dy * x_hat)，在除通道外的所有维度上求和。输入本来就接近零均值、单位"
            "方差时两者差不多；有偏移时就不一样了。"
        ),
        build=WeightGradFromX,
    ),
    KnownMistake(
        name="variance_recomputed_unbiased",
        title="Variance recomputed unbiased in backward",
        explanation=(
            "Your forward is right, but your backward recomputes the statistics from x with "
            "x.var(), which divides by n - 1, so its 1/std and x_hat are not the forward's. "
            "BatchNorm normalises with the biased variance (the unbiased one only goes into "
            "the running estimate). Save x_hat and 1/std in forward and reuse them."
        ),
        title_zh="backward 里重新计算方差时用了无偏方差",
        explanation_zh=(
            "你的 forward 是对的，但 backward 从 x 重新计算统计量时用了 x.var()，它除以 n - 1，"
            "算出的 1/std 和 x_hat 都和 forward 的不一样。BatchNorm 归一化用的是有偏方差（无偏方差"
            "只用于滑动估计）。在 forward 里保存 x_hat 和 1/std，backward 直接复用。"
        ),
        build=VarianceRecomputedUnbiased,
    ),
)


SPEC = ExerciseSpec(
    slug="batch_norm_backward",
    class_name="BatchNormFunction",
    reference=Reference,
    make_cases=make_cases,
    mistakes=MISTAKES,
    feature_axis=1,
    ranks=(2, 3),
    # What a solution is made of: anything else it runs is refused (api/grading/allowlist.py).
    allowed=ELEMENTARY,
    banned=(
        "torch.nn.functional.batch_norm",
        "torch.batch_norm",
        "torch.native_batch_norm",
        "torch._native_batch_norm_legit",
        "torch._native_batch_norm_legit_no_training",
        "torch._batch_norm_impl_index",
        "torch.nn.BatchNorm1d",
        "torch.nn.BatchNorm2d",
        "torch.nn.BatchNorm3d",
        "torch.nn.LazyBatchNorm1d",
        "torch.nn.SyncBatchNorm",
        "torch.nn.functional.instance_norm",
        "torch.nn.functional.group_norm",
        "torch.nn.functional.layer_norm",
        "torch.nn.InstanceNorm1d",
        "torch.nn.GroupNorm",
        "aten.native_batch_norm_backward",
        "aten.batch_norm_backward",
        "aten._batch_norm_impl_index_backward",
        "aten.native_batch_norm",
        "aten._native_batch_norm_legit",
        "aten._native_batch_norm_legit_functional",
        "aten.batch_norm_backward_elemt",
        "aten.batch_norm_backward_reduce",
        "torch.autograd.grad",
        "torch.autograd.backward",
        "torch.func.vjp",
        "torch.func.grad",
        "torch.Tensor.backward",
        # Grad mode is off inside backward; switching it on is how autograd would be made to
        # do the backward's work (caught in the source).
        "torch.enable_grad",
        "torch.set_grad_enabled",
    ),
    kind="autograd_function",
    save_for_backward=True,
)
