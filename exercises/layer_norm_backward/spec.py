"""Grading spec for ``layer_norm_backward``: LayerNorm as a ``torch.autograd.Function`` whose
hand-written backward is what gets graded, against ``torch.nn.functional.layer_norm``.

Each call is ``LayerNormFunction.apply(x, weight, bias, eps)`` with a random upstream gradient.
The grader runs the learner's backward node itself and compares the output and the gradients
of x, weight and bias exactly as backward returns them (a weight gradient of shape (T, D) for a
(B, T, D) input fails, though autograd would have summed it down); it checks that the output's
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
    """``F.layer_norm`` behind the contract's ``apply``; autograd differentiates it."""

    @staticmethod
    def apply(
        x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float
    ) -> torch.Tensor:
        return F.layer_norm(x, (x.shape[-1],), weight, bias, eps)


def make_cases(gen: torch.Generator) -> list[Case]:
    return norm_function_cases(gen, bias=True, default_eps=1e-5, zero_row=False)


# ---- Known mistakes: the right forward, one wrong backward each. ----

Grads = tuple[torch.Tensor, torch.Tensor, torch.Tensor, None]


class _RightForward(torch.autograd.Function):
    @staticmethod
    def forward(
        ctx: Any, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float
    ) -> torch.Tensor:
        mean = x.mean(-1, keepdim=True)
        var = ((x - mean) ** 2).mean(-1, keepdim=True)
        rstd = torch.rsqrt(var + eps)
        x_hat = (x - mean) * rstd
        ctx.save_for_backward(x, x_hat, rstd, weight)
        ctx.eps = eps
        return x_hat * weight + bias


def _param_grads(dy: torch.Tensor, x_hat: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    d = dy.shape[-1]
    return (dy * x_hat).reshape(-1, d).sum(0), dy.reshape(-1, d).sum(0)


class MeanTermsDropped(_RightForward):
    @staticmethod
    def backward(ctx: Any, dy: torch.Tensor) -> Grads:
        _, x_hat, rstd, weight = ctx.saved_tensors
        dweight, dbias = _param_grads(dy, x_hat)
        return rstd * dy * weight, dweight, dbias, None  # as if mean and var were constants


class VarianceTermDropped(_RightForward):
    @staticmethod
    def backward(ctx: Any, dy: torch.Tensor) -> Grads:
        _, x_hat, rstd, weight = ctx.saved_tensors
        dweight, dbias = _param_grads(dy, x_hat)
        g = dy * weight
        return rstd * (g - g.mean(-1, keepdim=True)), dweight, dbias, None


class WeightMissingFromDx(_RightForward):
    @staticmethod
    def backward(ctx: Any, dy: torch.Tensor) -> Grads:
        _, x_hat, rstd, _ = ctx.saved_tensors
        dweight, dbias = _param_grads(dy, x_hat)
        g = dy  # should be dy * weight: the gradient reaching x_hat passes through the scale
        dx = rstd * (g - g.mean(-1, keepdim=True) - x_hat * (g * x_hat).mean(-1, keepdim=True))
        return dx, dweight, dbias, None


class ParamGradsNotSummed(_RightForward):
    @staticmethod
    def backward(ctx: Any, dy: torch.Tensor) -> Grads:
        _, x_hat, rstd, weight = ctx.saved_tensors
        g = dy * weight
        dx = rstd * (g - g.mean(-1, keepdim=True) - x_hat * (g * x_hat).mean(-1, keepdim=True))
        # Sums over dim 0 only, as if x were always (N, D): (T, D) for (B, T, D) input.
        return dx, (dy * x_hat).sum(0), dy.sum(0), None


class VarianceRecomputedUnbiased(_RightForward):
    @staticmethod
    def backward(ctx: Any, dy: torch.Tensor) -> Grads:
        x, _, _, weight = ctx.saved_tensors
        # Recomputes the statistics from x with torch.var's default (n - 1).
        mean = x.mean(-1, keepdim=True)
        rstd = torch.rsqrt(x.var(-1, keepdim=True) + ctx.eps)
        x_hat = (x - mean) * rstd
        dweight, dbias = _param_grads(dy, x_hat)
        g = dy * weight
        dx = rstd * (g - g.mean(-1, keepdim=True) - x_hat * (g * x_hat).mean(-1, keepdim=True))
        return dx, dweight, dbias, None


MISTAKES = (
    KnownMistake(
        name="dx_mean_terms_dropped",
        title="dx without its two mean terms",
        explanation=(
            "Your dx is rstd * dy * weight: the derivative of x_hat with the mean and the "
            "variance held constant. Both depend on every element of the row, so each x_i "
            "reaches the output three ways, and the full derivative subtracts two row means: "
            "dx = rstd * (g - mean(g) - x_hat * mean(g * x_hat)) with g = dy * weight. Without "
            "them dx does not sum to zero over the row (it should: shifting the whole row leaves "
            "y unchanged) and is not orthogonal to x_hat (scaling the row leaves y unchanged too)."
        ),
        title_zh="dx 漏掉了两个均值项",
        explanation_zh=(
            "你的 dx 是 rstd * dy * weight，这是把均值和方差当作常数时 x_hat 的导数。可均值和方差"
            "依赖整行的每个元素，每个 x_i 通过三条路径影响输出，完整的导数要减去两个行均值："
            "dx = rstd * (g - mean(g) - x_hat * mean(g * x_hat))，其中 g = dy * weight。"
            "少了它们，dx 在一行上的和不为零（本应为零：整行平移不改变 y），也不与 x_hat 正交"
            "（整行缩放同样不改变 y）。"
        ),
        build=MeanTermsDropped,
    ),
    KnownMistake(
        name="dx_variance_term_dropped",
        title="dx without the variance term",
        explanation=(
            "Your dx subtracts mean(g) but not x_hat * mean(g * x_hat): you differentiated "
            "through the mean but treated the variance as a constant. The variance depends on "
            "every x_i too; its path contributes -rstd * x_hat * mean(g * x_hat). Fix: "
            "dx = rstd * (g - mean(g) - x_hat * mean(g * x_hat)) with g = dy * weight."
        ),
        title_zh="dx 漏掉了方差那一项",
        explanation_zh=(
            "你的 dx 减去了 mean(g)，却没有减去 x_hat * mean(g * x_hat)：对均值求了导，却把方差"
            "当成常数。方差同样依赖每个 x_i，经由它的那条路径贡献 -rstd * x_hat * mean(g * x_hat)。"
            "改法：dx = rstd * (g - mean(g) - x_hat * mean(g * x_hat))，g = dy * weight。"
        ),
        build=VarianceTermDropped,
    ),
    KnownMistake(
        name="dx_without_weight",
        title="dx computed from dy instead of dy * weight",
        explanation=(
            "Your dx uses dy where the gradient reaching x_hat is g = dy * weight: y = x_hat * "
            "weight + bias, so every path from x to the loss passes through the scale. Default "
            "weights of ones hide this; trained ones do not. Fix: g = dy * weight, then "
            "dx = rstd * (g - mean(g) - x_hat * mean(g * x_hat))."
        ),
        title_zh="dx 用的是 dy 而不是 dy * weight",
        explanation_zh=(
            "你的 dx 直接用了 dy，而到达 x_hat 的梯度是 g = dy * weight："
            "y = x_hat * weight + bias，"
            "从 x 到损失的每条路径都要经过这个缩放。weight 取默认的全 1 时看不出来，训练后的权重就"
            "不行了。改法：g = dy * weight，再算 dx = rstd * ("
            "g - mean(g) - x_hat * mean(g * x_hat))。"
        ),
        build=WeightMissingFromDx,
    ),
    KnownMistake(
        name="param_grads_not_summed",
        title="weight and bias gradients not summed over every leading dim",
        explanation=(
            "Your backward sums dy * x_hat and dy over dim 0 only, so for (B, T, D) input it "
            "returns weight and bias gradients of shape (T, D), not (D,). weight and bias are "
            "shared by every row of every leading dim, so their gradients sum over all of them. "
            "Autograd happens to reduce a broadcastable gradient to the parameter's shape, which "
            "hides this when the Function is used through autograd; the contract asks for "
            "gradients shaped like the inputs, as any caller of backward (a fused kernel, a "
            "gradient-accumulation buffer) expects. Fix: sum over tuple(range(dy.dim() - 1))."
        ),
        title_zh="weight 和 bias 的梯度没有在所有前置维度上求和",
        explanation_zh=(
            "你的 backward 只在第 0 维上对 dy * x_hat 和 dy 求和，输入是 (B, T, D) 时返回的 weight "
            "和 bias 梯度形状是 (T, D) 而不是 (D,)。weight 和 bias 被所有前置维度上的每一行共享，"
            "梯度要在这些维度上全部求和。autograd 恰好会把可广播的梯度归约成参数的形状，"
            "所以通过 autograd 使用时看不出问题；但约定要求返回与输入同形状的梯度，"
            "任何直接调用 backward 的代码（融合算子、梯度累加缓冲区）都这样假设。"
            "改法：在 tuple(range(dy.dim() - 1)) 上求和。"
        ),
        build=ParamGradsNotSummed,
    ),
    KnownMistake(
        name="variance_recomputed_unbiased",
        title="Variance recomputed unbiased in backward",
        explanation=(
            "Your forward is right, but your backward recomputes the statistics from x with "
            "x.var(), which divides by n - 1, so its 1/std and x_hat are not the forward's. The "
            "backward must differentiate the function the forward computed: biased variance, "
            "eps inside the sqrt. Better still, save x_hat and 1/std in forward and reuse them: "
            "recomputing is a second chance to get the statistics wrong."
        ),
        title_zh="backward 里重新计算方差时用了无偏方差",
        explanation_zh=(
            "你的 forward 是对的，但 backward 从 x 重新计算统计量时用了 x.var()，它除以 n - 1，"
            "算出的 1/std 和 x_hat 都和 forward 的不一样。backward 必须对 forward 实际计算的那个"
            "函数求导：有偏方差，eps 在根号里。更好的做法是在 forward 里保存 x_hat 和 1/std，"
            "backward 直接复用：重新计算等于再给自己一次算错统计量的机会。"
        ),
        build=VarianceRecomputedUnbiased,
    ),
)


SPEC = ExerciseSpec(
    slug="layer_norm_backward",
    class_name="LayerNormFunction",
    reference=Reference,
    make_cases=make_cases,
    mistakes=MISTAKES,
    # What a solution is made of: anything else it runs is refused (api/grading/allowlist.py).
    allowed=ELEMENTARY,
    banned=(
        "torch.nn.functional.layer_norm",
        "torch.layer_norm",
        "torch.native_layer_norm",
        "torch.nn.LayerNorm",
        "torch.nn.functional.group_norm",
        "torch.nn.functional.instance_norm",
        "torch.nn.functional.batch_norm",
        "torch.autograd.grad",
        "torch.autograd.backward",
        "torch.func.vjp",
        "torch.func.grad",
        "torch.Tensor.backward",
        "aten.native_layer_norm_backward",
        # Grad mode is off inside backward; switching it on is how autograd would be made to
        # do the backward's work (caught in the source).
        "torch.enable_grad",
        "torch.set_grad_enabled",
    ),
    kind="autograd_function",
    save_for_backward=True,
)
