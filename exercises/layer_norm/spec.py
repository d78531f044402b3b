"""Grading spec for ``layer_norm``: LayerNorm from scratch, graded against ``nn.LayerNorm``.

Every known mistake below keeps the contract's constructor and parameters, so the grader can
load the same state into it and compare outputs and gradients with the learner's.
"""

from __future__ import annotations

from collections.abc import Mapping

import torch
from torch import nn

from api.grading.allowlist import ELEMENTARY
from api.grading.draw import norm_cases
from api.grading.spec import Case, ExerciseSpec, KnownMistake


def reference(dim: int, eps: float = 1e-5) -> nn.Module:
    # nn.LayerNorm names its first argument normalized_shape; the contract calls it dim.
    return nn.LayerNorm(dim, eps=eps)


def make_cases(gen: torch.Generator) -> list[Case]:
    return norm_cases(gen, default_eps=1e-5, bias=True)


class _Affine(nn.Module):
    """The contract's constructor and parameters; subclasses implement one mistake each."""

    def __init__(self, dim: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim))

    def affine(self, x_hat: torch.Tensor) -> torch.Tensor:
        return x_hat * self.weight + self.bias


def _unbiased_var(x: torch.Tensor, mean: torch.Tensor) -> torch.Tensor:
    # What x.var() computes, spelled out: at n = 1 it is 0/0 = NaN like x.var(), without the
    # "degrees of freedom <= 0" warning torch raises there.
    return ((x - mean) ** 2).sum(-1, keepdim=True) / (x.shape[-1] - 1)


class UnbiasedVariance(_Affine):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        mean = x.mean(-1, keepdim=True)
        var = _unbiased_var(x, mean)
        return self.affine((x - mean) / torch.sqrt(var + self.eps))


class UnbiasedStdPlusEps(_Affine):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        mean = x.mean(-1, keepdim=True)
        # x.std() itself, as learners write it: its backward is 0 (not NaN) where std = 0, which
        # is what their gradients show on constant rows.
        n = x.shape[-1]
        std = x.std(-1, keepdim=True) if n > 1 else torch.sqrt(_unbiased_var(x, mean))
        return self.affine((x - mean) / (std + self.eps))


class EpsOutsideSqrt(_Affine):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        mean = x.mean(-1, keepdim=True)
        std = x.std(-1, keepdim=True, unbiased=False)
        return self.affine((x - mean) / (std + self.eps))


class NoEps(_Affine):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        mean = x.mean(-1, keepdim=True)
        var = ((x - mean) ** 2).mean(-1, keepdim=True)
        return self.affine((x - mean) / torch.sqrt(var))


class NoSqrt(_Affine):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        mean = x.mean(-1, keepdim=True)
        var = ((x - mean) ** 2).mean(-1, keepdim=True)
        return self.affine((x - mean) / (var + self.eps))


class NaiveVariance(_Affine):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        mean = x.mean(-1, keepdim=True)
        var = (x * x).mean(-1, keepdim=True) - mean * mean
        return self.affine((x - mean) / torch.sqrt(var + self.eps))


class WeightBiasNotApplied(_Affine):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        mean = x.mean(-1, keepdim=True)
        var = ((x - mean) ** 2).mean(-1, keepdim=True)
        return (x - mean) / torch.sqrt(var + self.eps)


class WeightBiasSwapped(_Affine):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        mean = x.mean(-1, keepdim=True)
        var = ((x - mean) ** 2).mean(-1, keepdim=True)
        return (x - mean) / torch.sqrt(var + self.eps) * self.bias + self.weight


class DetachedStatistics(_Affine):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        mean = x.mean(-1, keepdim=True).detach()
        var = ((x - mean) ** 2).mean(-1, keepdim=True).detach()
        return self.affine((x - mean) / torch.sqrt(var + self.eps))


class WrongAxis(_Affine):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        mean = x.mean(0, keepdim=True)
        var = ((x - mean) ** 2).mean(0, keepdim=True)
        return self.affine((x - mean) / torch.sqrt(var + self.eps))


class AllDims(_Affine):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        mean = x.mean()
        var = ((x - mean) ** 2).mean()
        return self.affine((x - mean) / torch.sqrt(var + self.eps))


MISTAKES = (
    KnownMistake(
        name="unbiased_variance",
        title="Unbiased variance (divides by n - 1)",
        explanation=(
            "You computed the variance with x.var() (or torch.var's default), which divides by "
            "n - 1. LayerNorm uses the biased (population) variance, dividing by n: it "
            "normalises this one vector, it does not estimate a population's variance. The "
            "difference is a factor sqrt(n / (n - 1)), invisible at n = 1024 but 7% at n = 8 "
            "and NaN at n = 1. Fix: x.var(-1, keepdim=True, unbiased=False), or "
            "((x - mean) ** 2).mean(-1, keepdim=True)."
        ),
        title_zh="使用了无偏方差（除以 n - 1）",
        explanation_zh=(
            "你用 x.var()（或 torch.var 的默认参数）计算方差，它除以 n - 1。LayerNorm 用的是有偏"
            "（总体）方差，除以 n：它只是对这一个向量做归一化，并不是在估计总体方差。两者相差 "
            "sqrt(n / (n - 1)) 倍：n = 1024 时几乎看不出，n = 8 时约 7%，n = 1 时直接得到 NaN。"
            "改法：x.var(-1, keepdim=True, unbiased=False)，或 ((x - mean) ** 2).mean(-1, "
            "keepdim=True)。"
        ),
        build=UnbiasedVariance,
    ),
    KnownMistake(
        name="unbiased_std_plus_eps",
        title="x.std() + eps: unbiased std, eps outside the sqrt",
        explanation=(
            "You divided by x.std(-1) + eps, a version that circulates in blog posts (and in the "
            "article this exercise draws on). It has two errors at once: std() is unbiased (n - 1) "
            "while LayerNorm divides by n, and eps is added to the standard deviation instead of "
            "to the variance under the square root. Fix: (x - mean) / torch.sqrt(var + eps) with "
            "var = x.var(-1, keepdim=True, unbiased=False)."
        ),
        title_zh="x.std() + eps：无偏标准差，eps 加在根号外",
        explanation_zh=(
            "你除以的是 x.std(-1) + eps，这种写法在不少博客里流传（本题参考的文章里也有）。它同时犯"
            "了两个错误：std() 默认是无偏估计（除以 n - 1），而 LayerNorm 除以 n；eps 加在了标准差"
            "上，而不是根号里的方差上。改法：(x - mean) / torch.sqrt(var + eps)，其中 var = "
            "x.var(-1, keepdim=True, unbiased=False)。"
        ),
        build=UnbiasedStdPlusEps,
    ),
    KnownMistake(
        name="eps_outside_sqrt",
        title="eps added outside the square root",
        explanation=(
            "You divided by sqrt(var) + eps. nn.LayerNorm divides by sqrt(var + eps): eps belongs "
            "to the variance. The two agree when the variance is large, but differ a lot when it "
            "is small (tiny inputs, a large eps) and only sqrt(var + eps) keeps the gradient "
            "finite when the variance is exactly 0. Fix: torch.rsqrt(var + eps) or "
            "1 / torch.sqrt(var + eps)."
        ),
        title_zh="eps 加在了根号外面",
        explanation_zh=(
            "你除以的是 sqrt(var) + eps，而 nn.LayerNorm 除以 sqrt(var + eps)：eps 应该加在方差"
            "上。方差较大时两者几乎一样，但方差很小（输入很小、eps 较大）时差别明显，而且方差恰好"
            "为 0 时只有 sqrt(var + eps) 能让梯度保持有限。改法：torch.rsqrt(var + eps) 或 "
            "1 / torch.sqrt(var + eps)。"
        ),
        build=EpsOutsideSqrt,
    ),
    KnownMistake(
        name="no_eps",
        title="eps not used",
        explanation=(
            "You divided by sqrt(var) without eps (or stored eps and never used it). A row whose "
            "entries are all equal has variance 0, and 0 / 0 gives NaN; with a non-default eps "
            "the outputs are off everywhere. Fix: divide by torch.sqrt(var + self.eps)."
        ),
        title_zh="没有使用 eps",
        explanation_zh=(
            "你直接除以 sqrt(var)，没有加 eps（或者保存了 eps 却没用上）。一行数全都相等时方差为 "
            "0，0 / 0 得到 NaN；eps 不是默认值时，所有输出都会偏离。改法：除以 "
            "torch.sqrt(var + self.eps)。"
        ),
        build=NoEps,
    ),
    KnownMistake(
        name="no_sqrt",
        title="Divided by the variance instead of the standard deviation",
        explanation=(
            "You divided (x - mean) by var + eps instead of its square root, so the output does "
            "not have unit variance: its scale is 1 / std. Fix: divide by torch.sqrt(var + eps)."
        ),
        title_zh="除以了方差而不是标准差",
        explanation_zh=(
            "你用 (x - mean) 除以 var + eps，而不是它的平方根，所以输出的方差不是 1，而是被缩放了 "
            "1 / std 倍。改法：除以 torch.sqrt(var + eps)。"
        ),
        build=NoSqrt,
    ),
    KnownMistake(
        name="naive_variance",
        title="Variance as E[x^2] - E[x]^2 (catastrophic cancellation)",
        explanation=(
            "You computed the variance as mean(x^2) - mean(x)^2. It is algebraically right but "
            "numerically fragile: for float32 inputs around 1e3 both terms are about 1e6 and "
            "their difference (about 1) loses most of its digits, and it can even come out "
            "negative (NaN after the sqrt). Fix: subtract the mean first, "
            "var = ((x - mean) ** 2).mean(-1, keepdim=True), or use torch.var_mean."
        ),
        title_zh="用 E[x^2] - E[x]^2 计算方差（灾难性抵消）",
        explanation_zh=(
            "你用 mean(x^2) - mean(x)^2 计算方差。代数上没错，但数值上很脆弱：float32 输入在 1e3 "
            "附近时两项都约为 1e6，二者之差（约为 1）丢掉了大部分有效数字，甚至可能算出负数（开方"
            "后得到 NaN）。改法：先减去均值，var = ((x - mean) ** 2).mean(-1, keepdim=True)，"
            "或使用 torch.var_mean。"
        ),
        build=NaiveVariance,
    ),
    KnownMistake(
        name="weight_bias_not_applied",
        title="weight and bias not applied",
        explanation=(
            "You returned the normalised x_hat without the affine step. The parameters exist "
            "but do nothing, so the output is wrong as soon as they move away from their initial "
            "ones and zeros, and they never receive a gradient. Fix: return "
            "x_hat * self.weight + self.bias."
        ),
        title_zh="没有乘 weight、加 bias",
        explanation_zh=(
            "你直接返回了归一化后的 x_hat，漏掉了仿射变换。参数虽然注册了却不起作用：一旦它们离开"
            "初始值（全 1、全 0），输出就是错的，而且它们永远拿不到梯度。改法：返回 "
            "x_hat * self.weight + self.bias。"
        ),
        build=WeightBiasNotApplied,
    ),
    KnownMistake(
        name="weight_bias_swapped",
        title="weight and bias swapped",
        explanation=(
            "You computed x_hat * bias + weight: the scale (gamma, weight) and the shift (beta, "
            "bias) are swapped. With the default init this gives 0 * x_hat + 1 = all ones. "
            "Fix: x_hat * self.weight + self.bias."
        ),
        title_zh="weight 和 bias 用反了",
        explanation_zh=(
            "你算的是 x_hat * bias + weight：缩放（gamma，即 weight）和平移（beta，即 bias）"
            "用反了。在默认初始化下结果是 0 * x_hat + 1，即全为 1。"
            "改法：x_hat * self.weight + self.bias。"
        ),
        build=WeightBiasSwapped,
    ),
    KnownMistake(
        name="detached_statistics",
        title="Mean and variance detached from the graph",
        explanation=(
            "Your forward output is right but the gradient with respect to x is not: the mean "
            "and variance were detached (.detach(), .data or a no_grad block), so backprop treats "
            "them as constants. The true gradient of LayerNorm flows through the statistics "
            "too: it removes the mean of the upstream gradient and its component along x_hat. "
            "Fix: keep mean and var in the autograd graph."
        ),
        title_zh="把均值和方差从计算图中 detach 了",
        explanation_zh=(
            "你的前向输出是对的，但对 x 的梯度不对：均值和方差被 detach 了（.detach()、.data 或 "
            "no_grad），反向传播把它们当成了常数。LayerNorm 的真实梯度也会流经这些统计量：它会减去"
            "上游梯度的均值以及沿 x_hat 方向的分量。改法：让 mean 和 var 留在 autograd 计算图里。"
        ),
        build=DetachedStatistics,
    ),
    KnownMistake(
        name="wrong_axis",
        title="Statistics over the first dimension instead of the last",
        explanation=(
            "You took the mean and variance over dim 0 (the batch), which is BatchNorm's axis, "
            "not LayerNorm's. LayerNorm normalises each feature vector on its own, over the last "
            "dimension, so its result does not depend on the other rows in the batch. Fix: "
            "mean(-1, keepdim=True) and var over -1."
        ),
        title_zh="在第一个维度而不是最后一个维度上求统计量",
        explanation_zh=(
            "你在 dim 0（batch 维）上求均值和方差，这是 BatchNorm 的做法，不是 LayerNorm。"
            "LayerNorm 对每个特征向量单独归一化，作用在最后一个维度上，因此结果与 batch 里的其他行"
            "无关。改法：mean(-1, keepdim=True)，方差同样沿 -1 计算。"
        ),
        build=WrongAxis,
    ),
    KnownMistake(
        name="all_dims",
        title="Statistics over the whole tensor",
        explanation=(
            "You called x.mean() and x.var() without a dim, so a single mean and variance were "
            "taken over the whole batch. LayerNorm needs one mean and one variance per vector "
            "along the last dimension. Fix: x.mean(-1, keepdim=True) (keepdim so the result "
            "broadcasts back against x)."
        ),
        title_zh="在整个张量上求统计量",
        explanation_zh=(
            "你调用 x.mean() 和 x.var() 时没有指定 dim，于是整个 batch 只算出了一个均值和一个方差。"
            "LayerNorm 需要沿最后一个维度、对每个向量各算一个均值和方差。改法：x.mean(-1, "
            "keepdim=True)（keepdim 让结果能与 x 广播）。"
        ),
        build=AllDims,
    ),
)


def along_axis(
    function: str, x: torch.Tensor, axis: int, state: Mapping[str, torch.Tensor] | None
) -> torch.Tensor:
    """LayerNorm with its statistics along ``axis``, the weight and bias still on the features
    (the axis finding). Default eps: a case with another eps matches no axis."""
    moved = x.movedim(axis, -1)
    y = torch.nn.functional.layer_norm(moved, moved.shape[-1:], eps=1e-5).movedim(-1, axis)
    return y if state is None else y * state["weight"] + state["bias"]


SPEC = ExerciseSpec(
    slug="layer_norm",
    reduces_rows=True,
    reduction=along_axis,
    class_name="LayerNorm",
    reference=reference,
    make_cases=make_cases,
    mistakes=MISTAKES,
    # What a solution is made of: anything else it runs is refused (api/grading/allowlist.py).
    allowed=ELEMENTARY,
    banned=(
        "torch.nn.functional.layer_norm",
        "torch.layer_norm",
        "torch.native_layer_norm",
        "torch.nn.LayerNorm",
        "torch.nn.functional.rms_norm",
        "torch.rms_norm",
        "torch.nn.RMSNorm",
        # Other norms normalise over the last dim too once x is reshaped to (rows, dim).
        "torch.nn.functional.group_norm",
        "torch.group_norm",
        "torch.native_group_norm",
        "torch.nn.GroupNorm",
        "torch.nn.functional.instance_norm",
        "torch.instance_norm",
        "torch.nn.functional.batch_norm",
        "torch.batch_norm",
        "torch.native_batch_norm",
        "aten.native_layer_norm",
        "aten.layer_norm",
        "aten.rms_norm",
        "aten._fused_rms_norm",
        "aten.native_group_norm",
        "aten.group_norm",
        "aten.native_batch_norm",
        "aten._native_batch_norm_legit",
        "aten._native_batch_norm_legit_no_training",
        "aten._batch_norm_with_update",
        "aten._batch_norm_no_update",
        "aten.batch_norm",
        "aten.instance_norm",
    ),
)
