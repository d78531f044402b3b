"""Grading spec for ``rms_norm``: RMSNorm from scratch, graded against ``nn.RMSNorm``.

RMSNorm (Zhang & Sennrich, 2019; the norm of Llama and most recent LLMs) drops LayerNorm's
mean-centring and bias: y = x / sqrt(mean(x^2) + eps) * weight.
"""

from __future__ import annotations

from collections.abc import Mapping

import torch
from torch import nn

from api.grading.allowlist import ELEMENTARY
from api.grading.draw import norm_cases
from api.grading.spec import Case, ExerciseSpec, KnownMistake


def reference(dim: int, eps: float = 1e-6) -> nn.Module:
    # nn.RMSNorm's own default eps is None (finfo(dtype).eps); the contract fixes 1e-6.
    return nn.RMSNorm(dim, eps=eps)


def make_cases(gen: torch.Generator) -> list[Case]:
    return norm_cases(gen, default_eps=1e-6, bias=False)


class _Scaled(nn.Module):
    """The contract's constructor and parameter; subclasses implement one mistake each."""

    def __init__(self, dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))


def _mean_square(x: torch.Tensor) -> torch.Tensor:
    return x.pow(2).mean(-1, keepdim=True)


class MeanCentred(_Scaled):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        centred = x - x.mean(-1, keepdim=True)
        return centred * torch.rsqrt(_mean_square(centred) + self.eps) * self.weight


class EpsOutsideSqrt(_Scaled):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x / (torch.sqrt(_mean_square(x)) + self.eps) * self.weight


class SumInsteadOfMean(_Scaled):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.rsqrt(x.pow(2).sum(-1, keepdim=True) + self.eps) * self.weight


class NoSqrt(_Scaled):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x / (_mean_square(x) + self.eps) * self.weight


class NoEps(_Scaled):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.rsqrt(_mean_square(x)) * self.weight


class WeightNotApplied(_Scaled):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.rsqrt(_mean_square(x) + self.eps)


class DetachedStatistics(_Scaled):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.rsqrt(_mean_square(x) + self.eps).detach() * self.weight


class WrongAxis(_Scaled):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.rsqrt(x.pow(2).mean(0, keepdim=True) + self.eps) * self.weight


class WithBias(_Scaled):
    def __init__(self, dim: int, eps: float = 1e-6) -> None:
        super().__init__(dim, eps)
        self.bias = nn.Parameter(torch.zeros(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.rsqrt(_mean_square(x) + self.eps) * self.weight + self.bias


MISTAKES = (
    KnownMistake(
        name="mean_centred",
        title="Mean subtracted: that is LayerNorm, not RMSNorm",
        explanation=(
            "You subtracted the mean before dividing, which turns RMSNorm back into LayerNorm "
            "(without its bias). RMSNorm's whole point is to skip the centring: it rescales x by "
            "its root mean square, sqrt(mean(x^2) + eps), and keeps the mean where it was, which "
            "is cheaper and works as well in practice (Llama, Mistral). Fix: "
            "x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight, with no x - mean."
        ),
        title_zh="减去了均值：这是 LayerNorm，不是 RMSNorm",
        explanation_zh=(
            "你在除法之前减去了均值，这就把 RMSNorm 又变回了（不带 bias 的）LayerNorm。RMSNorm "
            "的要点正是省掉中心化：它只用均方根 sqrt(mean(x^2) + eps) 对 x 做缩放，不改变均值，"
            "计算更省，效果也相当（Llama、Mistral 都在用）。改法："
            "x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight，不要 x - mean。"
        ),
        build=MeanCentred,
    ),
    KnownMistake(
        name="eps_outside_sqrt",
        title="eps added outside the square root",
        explanation=(
            "You divided by sqrt(mean(x^2)) + eps. nn.RMSNorm divides by sqrt(mean(x^2) + eps): "
            "eps is added to the mean square. The two differ when the mean square is small or "
            "eps is large, and an all-zero row gives a NaN gradient with eps outside the root. "
            "Fix: torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)."
        ),
        title_zh="eps 加在了根号外面",
        explanation_zh=(
            "你除以的是 sqrt(mean(x^2)) + eps，而 nn.RMSNorm 除以 sqrt(mean(x^2) + eps)：eps "
            "应该加在均方值上。均方值较小或 eps 较大时两者明显不同；而且全零的一行在 eps 加在根号外"
            "时会得到 NaN 梯度。改法：torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)。"
        ),
        build=EpsOutsideSqrt,
    ),
    KnownMistake(
        name="sum_instead_of_mean",
        title="Sum of squares instead of their mean (an L2 norm)",
        explanation=(
            "You divided by sqrt(sum(x^2) + eps), the L2 norm, instead of the root *mean* "
            "square. The output is then smaller by a factor sqrt(dim) and its scale depends on "
            "the width of the layer. Fix: x.pow(2).mean(-1, keepdim=True), not .sum(-1)."
        ),
        title_zh="用了平方和而不是平方的均值（变成了 L2 范数）",
        explanation_zh=(
            "你除以的是 sqrt(sum(x^2) + eps)，即 L2 范数，而不是均方根。这样输出会小 sqrt(dim) "
            "倍，而且尺度随层宽变化。改法：用 x.pow(2).mean(-1, keepdim=True)，而不是 .sum(-1)。"
        ),
        build=SumInsteadOfMean,
    ),
    KnownMistake(
        name="no_sqrt",
        title="Divided by the mean square, without the square root",
        explanation=(
            "You divided x by mean(x^2) + eps instead of its square root, so the output's scale "
            "is 1 / rms instead of 1. Fix: multiply by torch.rsqrt(mean(x^2) + eps)."
        ),
        title_zh="除以了均方值，忘了开平方",
        explanation_zh=(
            "你用 x 除以 mean(x^2) + eps，而不是它的平方根，于是输出的尺度变成了 1 / rms 而不是 1。"
            "改法：乘以 torch.rsqrt(mean(x^2) + eps)。"
        ),
        build=NoSqrt,
    ),
    KnownMistake(
        name="no_eps",
        title="eps not used",
        explanation=(
            "You divided by sqrt(mean(x^2)) with no eps (or stored eps and never used it). An "
            "all-zero row then gives 0 / 0 = NaN, and with a non-default eps every output is "
            "off. Fix: torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)."
        ),
        title_zh="没有使用 eps",
        explanation_zh=(
            "你直接除以 sqrt(mean(x^2))，没有加 eps（或者保存了 eps 却没用上）。全零的一行会得到 "
            "0 / 0 = NaN；eps 不是默认值时，所有输出都会偏离。改法："
            "torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)。"
        ),
        build=NoEps,
    ),
    KnownMistake(
        name="weight_not_applied",
        title="weight not applied",
        explanation=(
            "You returned the normalised x without multiplying by self.weight. The parameter "
            "exists but does nothing and never receives a gradient; the output is wrong as soon "
            "as the weight is not all ones. Fix: multiply the normalised x by self.weight."
        ),
        title_zh="没有乘 weight",
        explanation_zh=(
            "你返回了归一化后的 x，却没有乘 self.weight。参数虽然注册了却不起作用，"
            "也永远拿不到梯度；只要 weight 不全为 1，输出就是错的。"
            "改法：归一化之后乘以 self.weight。"
        ),
        build=WeightNotApplied,
    ),
    KnownMistake(
        name="detached_statistics",
        title="RMS detached from the graph",
        explanation=(
            "Your forward output is right but the gradient with respect to x is not: the root "
            "mean square was detached (.detach(), .data or no_grad), so backprop treats it as a "
            "constant. The true gradient also flows through the RMS and removes the component "
            "of the upstream gradient along x. Fix: keep the statistic in the autograd graph."
        ),
        title_zh="把均方根从计算图中 detach 了",
        explanation_zh=(
            "你的前向输出是对的，但对 x 的梯度不对：均方根被 detach 了（.detach()、.data 或 "
            "no_grad），反向传播把它当成了常数。真实的梯度也会流经均方根，去掉上游梯度沿 x 方向的"
            "分量。改法：让这个统计量留在 autograd 计算图里。"
        ),
        build=DetachedStatistics,
    ),
    KnownMistake(
        name="wrong_axis",
        title="Mean square over the first dimension instead of the last",
        explanation=(
            "You averaged x^2 over dim 0 (across the batch). RMSNorm rescales each feature "
            "vector on its own, over the last dimension, independently of the other rows. "
            "Fix: x.pow(2).mean(-1, keepdim=True)."
        ),
        title_zh="在第一个维度而不是最后一个维度上求均方",
        explanation_zh=(
            "你在 dim 0（跨 batch）上对 x^2 求均值。RMSNorm 对每个特征向量单独缩放，作用在最后一个"
            "维度上，与其他行无关。改法：x.pow(2).mean(-1, keepdim=True)。"
        ),
        build=WrongAxis,
    ),
    KnownMistake(
        name="with_bias",
        title="An extra bias parameter",
        explanation=(
            "Your module has a bias parameter. RMSNorm has only a scale (weight): no centring "
            "and no shift, which is part of why it is cheaper than LayerNorm. The grader loads "
            "exactly one parameter, weight (dim,). Fix: remove the bias."
        ),
        title_zh="多了一个 bias 参数",
        explanation_zh=(
            "你的模块里有 bias 参数。RMSNorm 只有缩放参数 weight：既不中心化也不平移，这也是它比 "
            "LayerNorm 更省的原因之一。评测只加载一个参数 weight (dim,)。改法：去掉 bias。"
        ),
        build=WithBias,
    ),
)


def along_axis(
    function: str, x: torch.Tensor, axis: int, state: Mapping[str, torch.Tensor] | None
) -> torch.Tensor:
    """RMSNorm with its mean square along ``axis``, the weight still on the features (the
    axis finding). Default eps: a case with another eps matches no axis."""
    y = x * torch.rsqrt(x.pow(2).mean(axis, keepdim=True) + 1e-6)
    return y if state is None else y * state["weight"]


SPEC = ExerciseSpec(
    slug="rms_norm",
    reduces_rows=True,
    reduction=along_axis,
    # Llama's RMSNorm computes in float32 (``x.float()``) whatever the input: the contract
    # admits it for float64 too, and the prompt says so.
    float32_internals=True,
    class_name="RMSNorm",
    reference=reference,
    make_cases=make_cases,
    mistakes=MISTAKES,
    # What a solution is made of: anything else it runs is refused (api/grading/allowlist.py).
    allowed=ELEMENTARY,
    banned=(
        "torch.nn.functional.rms_norm",
        "torch.rms_norm",
        "torch.nn.RMSNorm",
        # LayerNorm of [x, -x] has mean 0 and variance mean(x^2): RMSNorm in disguise.
        "torch.nn.functional.layer_norm",
        "torch.layer_norm",
        "torch.native_layer_norm",
        "torch.nn.LayerNorm",
        "aten.rms_norm",
        "aten._fused_rms_norm",
        "aten.native_layer_norm",
        "aten.layer_norm",
    ),
)
