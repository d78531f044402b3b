"""Grading spec for ``rms_norm_backward``: RMSNorm as a ``torch.autograd.Function`` whose
hand-written backward is what gets graded, against ``torch.nn.functional.rms_norm``.

Each call is ``RMSNormFunction.apply(x, weight, eps)`` with a random upstream gradient. The
grader runs the learner's backward node itself and compares the output and the gradients of x
and weight exactly as backward returns them (a weight gradient of shape (T, D) for a (B, T, D)
input fails, though autograd would have summed it down); it checks that the output's
``grad_fn`` is the learner's node and that forward keeps its tensors with
``ctx.save_for_backward``.
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F

from api.grading.allowlist import ELEMENTARY
from api.grading.draw import norm_function_cases
from api.grading.spec import Case, ExerciseSpec, KnownMistake


class Reference(torch.autograd.Function):
    """``F.rms_norm`` behind the contract's ``apply``; autograd differentiates it."""

    @staticmethod
    def apply(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
        return F.rms_norm(x, (x.shape[-1],), weight, eps)


def make_cases(gen: torch.Generator) -> list[Case]:
    return norm_function_cases(gen, bias=False, default_eps=1e-6, zero_row=True)


# ---- Known mistakes: the right forward, one wrong backward each. ----

Grads = tuple[torch.Tensor, torch.Tensor, None]


class _RightForward(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
        rstd = torch.rsqrt((x * x).mean(-1, keepdim=True) + eps)
        x_hat = x * rstd
        ctx.save_for_backward(x, x_hat, rstd, weight)
        return x_hat * weight


def _dweight(dy: torch.Tensor, x_hat: torch.Tensor) -> torch.Tensor:
    return (dy * x_hat).reshape(-1, dy.shape[-1]).sum(0)


class ProjectionTermDropped(_RightForward):
    @staticmethod
    def backward(ctx: Any, dy: torch.Tensor) -> Grads:
        _, x_hat, rstd, weight = ctx.saved_tensors
        return rstd * dy * weight, _dweight(dy, x_hat), None  # the RMS held constant


class LayerNormMeanTermCopied(_RightForward):
    @staticmethod
    def backward(ctx: Any, dy: torch.Tensor) -> Grads:
        _, x_hat, rstd, weight = ctx.saved_tensors
        g = dy * weight
        # LayerNorm's backward, mean(g) term included, pasted onto RMSNorm.
        dx = rstd * (g - g.mean(-1, keepdim=True) - x_hat * (g * x_hat).mean(-1, keepdim=True))
        return dx, _dweight(dy, x_hat), None


class WeightGradNotSummed(_RightForward):
    @staticmethod
    def backward(ctx: Any, dy: torch.Tensor) -> Grads:
        _, x_hat, rstd, weight = ctx.saved_tensors
        g = dy * weight
        dx = rstd * (g - x_hat * (g * x_hat).mean(-1, keepdim=True))
        return dx, (dy * x_hat).sum(0), None  # (T, D) for (B, T, D) input


class RmsRecomputedWithoutEps(_RightForward):
    @staticmethod
    def backward(ctx: Any, dy: torch.Tensor) -> Grads:
        x, _, _, weight = ctx.saved_tensors
        # Recomputes the statistic from x, as the plain RMS, forgetting eps.
        rstd = 1.0 / x.pow(2).mean(-1, keepdim=True).sqrt()
        x_hat = x * rstd
        g = dy * weight
        dx = rstd * (g - x_hat * (g * x_hat).mean(-1, keepdim=True))
        return dx, _dweight(dy, x_hat), None


class WeightMissingFromDx(_RightForward):
    @staticmethod
    def backward(ctx: Any, dy: torch.Tensor) -> Grads:
        _, x_hat, rstd, _ = ctx.saved_tensors
        dx = rstd * (dy - x_hat * (dy * x_hat).mean(-1, keepdim=True))
        return dx, _dweight(dy, x_hat), None


MISTAKES = (
    KnownMistake(
        name="dx_projection_term_dropped",
        title="dx without the term through the RMS",
        explanation=(
            "Your dx is rstd * dy * weight: the derivative with the root mean square held "
            "constant. The RMS depends on every x_i, and its path contributes "
            "-rstd * x_hat * mean(g * x_hat) with g = dy * weight. Without it, dx is not "
            "orthogonal to x (scaling the row leaves y unchanged, so it must be). Fix: "
            "dx = rstd * (g - x_hat * mean(g * x_hat))."
        ),
        title_zh="dx 漏掉了经过 RMS 的那一项",
        explanation_zh=(
            "你的 dx 是 rstd * dy * weight，也就是把均方根当作常数时的导数。均方根依赖每个 x_i，"
            "经由它的那条路径贡献 -rstd * x_hat * mean(g * x_hat)，"
            "其中 g = dy * weight。少了这一项，"
            "dx 就不与 x 正交（整行缩放不改变 y，所以它必须正交）。改法："
            "dx = rstd * (g - x_hat * mean(g * x_hat))。"
        ),
        build=ProjectionTermDropped,
    ),
    KnownMistake(
        name="layer_norm_mean_term_copied",
        title="LayerNorm's mean(g) term in an RMSNorm backward",
        explanation=(
            "Your dx subtracts mean(g) as LayerNorm's backward does. That term comes from "
            "differentiating the mean that LayerNorm subtracts; RMSNorm subtracts no mean, so it "
            "has no such term (and its dx need not sum to zero over the row: shifting the row "
            "changes RMSNorm's output). Fix: dx = rstd * (g - x_hat * mean(g * x_hat))."
        ),
        title_zh="在 RMSNorm 的反向里照搬了 LayerNorm 的 mean(g) 项",
        explanation_zh=(
            "你的 dx 像 LayerNorm 的反向那样减去了 mean(g)。这一项来自对 LayerNorm 减去的均值求导；"
            "RMSNorm 不减均值，也就没有这一项（它的 dx 在一行上的和也不必为零："
            "整行平移会改变 RMSNorm "
            "的输出）。改法：dx = rstd * (g - x_hat * mean(g * x_hat))。"
        ),
        build=LayerNormMeanTermCopied,
    ),
    KnownMistake(
        name="weight_grad_not_summed",
        title="weight gradient not summed over every leading dim",
        explanation=(
            "Your backward sums dy * x_hat over dim 0 only, so for (B, T, D) input dweight has "
            "shape (T, D), not (D,). weight is shared by every row of every leading dim, so its "
            "gradient sums over all of them. Autograd happens to reduce a broadcastable "
            "gradient to the parameter's shape, which hides this through autograd; the contract "
            "asks for gradients shaped like the inputs. Fix: sum over "
            "tuple(range(dy.dim() - 1))."
        ),
        title_zh="weight 的梯度没有在所有前置维度上求和",
        explanation_zh=(
            "你的 backward 只在第 0 维上对 dy * x_hat 求和，输入是 (B, T, D) 时 dweight 的形状是 "
            "(T, D) 而不是 (D,)。所有前置维度上的每一行都共享 weight，梯度要在这些维度上全部求和。"
            "autograd 恰好会把可广播的梯度归约成参数的形状，所以通过 autograd 使用时看不出问题；"
            "但约定要求返回与输入同形状的梯度。改法：在 tuple(range(dy.dim() - 1)) 上求和。"
        ),
        build=WeightGradNotSummed,
    ),
    KnownMistake(
        name="rms_recomputed_without_eps",
        title="RMS recomputed without eps in backward",
        explanation=(
            "Your forward divides by sqrt(mean(x^2) + eps), but your backward recomputes the "
            "statistic from x as sqrt(mean(x^2)), without eps. Where the mean square is not much "
            "larger than eps (small activations, or a large eps) the two differ, and on an "
            "all-zero row the backward divides by zero. The backward must differentiate exactly "
            "what the forward computed: save x_hat and 1/rms in forward and reuse them."
        ),
        title_zh="backward 里重新计算 RMS 时漏了 eps",
        explanation_zh=(
            "你的 forward 除以 sqrt(mean(x^2) + eps)，backward 却从 x 重新计算 sqrt(mean(x^2))，"
            "没有加 eps。均方值没有远大于 eps 时（激活值很小，"
            "或者 eps 较大），两者就不一样；遇到全零"
            "的行，backward 还会除以零。反向必须对前向实际计算的函数求导："
            "在 forward 里保存 x_hat 和 "
            "1/rms，backward 直接复用。"
        ),
        build=RmsRecomputedWithoutEps,
    ),
    KnownMistake(
        name="dx_without_weight",
        title="dx computed from dy instead of dy * weight",
        explanation=(
            "Your dx uses dy where the gradient reaching x_hat is g = dy * weight: y = x_hat * "
            "weight, so every path from x to the loss passes through the gain. Default weights "
            "of ones hide this. Fix: g = dy * weight, then dx = rstd * (g - x_hat * "
            "mean(g * x_hat))."
        ),
        title_zh="dx 用的是 dy 而不是 dy * weight",
        explanation_zh=(
            "你的 dx 直接用了 dy，而到达 x_hat 的梯度是 g = dy * weight：y = x_hat * weight，从 x "
            "到损失的每条路径都要经过这个增益。weight 取默认的全 1 时看不出来。"
            "改法：g = dy * weight，"
            "再算 dx = rstd * (g - x_hat * mean(g * x_hat))。"
        ),
        build=WeightMissingFromDx,
    ),
)


SPEC = ExerciseSpec(
    slug="rms_norm_backward",
    class_name="RMSNormFunction",
    reference=Reference,
    make_cases=make_cases,
    mistakes=MISTAKES,
    # What a solution is made of: anything else it runs is refused (api/grading/allowlist.py).
    allowed=ELEMENTARY,
    banned=(
        "torch.nn.functional.rms_norm",
        "torch.rms_norm",
        "torch.nn.RMSNorm",
        "torch.nn.functional.layer_norm",
        "torch.layer_norm",
        "torch.nn.LayerNorm",
        "torch.autograd.grad",
        "torch.autograd.backward",
        "torch.func.vjp",
        "torch.func.grad",
        "torch.Tensor.backward",
        "aten._fused_rms_norm_backward",
        # Grad mode is off inside backward; switching it on is how autograd would be made to
        # do the backward's work (caught in the source).
        "torch.enable_grad",
        "torch.set_grad_enabled",
    ),
    kind="autograd_function",
    save_for_backward=True,
)
