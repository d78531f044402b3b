"""Known mistakes for ``mixed_precision_norm``, each with the contract's constructor."""

from __future__ import annotations

import torch
from torch import nn

from drafts._draft import DraftMistake


class _Contract(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim))


class StaysInHalf(_Contract):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # Everything in x.dtype: the textbook LayerNorm run on half tensors.
        mean = x.mean(-1, keepdim=True)
        var = ((x - mean) ** 2).mean(-1, keepdim=True)
        x_hat = (x - mean) / torch.sqrt(var + self.eps)
        return x_hat * self.weight.to(x.dtype) + self.bias.to(x.dtype)


class StatsRoundedToHalf(_Contract):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        xf = x.float()
        mean = xf.mean(-1, keepdim=True)
        var = ((xf - mean) ** 2).mean(-1, keepdim=True)
        # Statistics in float32, then rounded to half and used in half.
        mean_h, rstd_h = mean.to(x.dtype), torch.rsqrt(var + self.eps).to(x.dtype)
        return (x - mean_h) * rstd_h * self.weight.to(x.dtype) + self.bias.to(x.dtype)


class OnePassVariance(_Contract):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        xf = x.to(torch.promote_types(x.dtype, torch.float32))
        mean = xf.mean(-1, keepdim=True)
        var = (xf * xf).mean(-1, keepdim=True) - mean * mean  # E[x^2] - E[x]^2
        y = (xf - mean) * torch.rsqrt(var.clamp_min(0) + self.eps) * self.weight + self.bias
        return y.to(x.dtype)


class NotCastBack(_Contract):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        xf = x.to(torch.promote_types(x.dtype, torch.float32))
        mean = xf.mean(-1, keepdim=True)
        var = ((xf - mean) ** 2).mean(-1, keepdim=True)
        return (xf - mean) * torch.rsqrt(var + self.eps) * self.weight + self.bias  # float32


class PromotedByParameters(_Contract):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        xf = x.to(torch.promote_types(x.dtype, torch.float32))
        mean = xf.mean(-1, keepdim=True)
        var = ((xf - mean) ** 2).mean(-1, keepdim=True)
        x_hat = ((xf - mean) * torch.rsqrt(var + self.eps)).to(x.dtype)
        # Cast back before the affine: float32 weights promote the result to float32 again.
        return x_hat * self.weight + self.bias


_CAST_FIX = (
    "Fix: xf = x.float(); compute mean, var (two-pass), x_hat and the affine on xf, with "
    "weight.float() and bias.float(); return y.to(x.dtype)."
)
_CAST_FIX_ZH = (
    "改法：xf = x.float()；在 xf 上计算均值、方差（两遍法）、x_hat 和仿射变换，weight、bias 也转成 "
    "float()；最后 return y.to(x.dtype)。"
)

MISTAKES = (
    DraftMistake(
        name="stays_in_half",
        title="Statistics computed in half precision",
        explanation=(
            "You computed the mean and variance in the input's dtype. float16 overflows past "
            "65504, so from a deviation of 256 on the squ"
            "ared deviations are inf, the variance is inf "
            "and every output collapses to bias. Both half formats keep few significant bits "
            "(11 in float16, 8 in bfloat16): a mean of values around 1000 in float16 (100 in "
            "bfloat16) is rounded by up to a quarter unit, as large as the spread it is "
            "subtracted from, and the output is off by that much. " + _CAST_FIX
        ),
        title_zh="统计量在半精度下计算",
        explanation_zh=(
            "你在输入的 dtype 下计算均值和方差。float16 超过 65504 就溢出，偏差达到 256 时它的平方"
            "就是 inf，方差随之为 inf，所有输出都塌缩成 bias。两种半精度的有效位都很少（float16 "
            "11 位，bfloat16 8 位）：float16 下 1000 附近（bfloat16 下 100 附近）"
            "的值求出的均值，舍入"
            "误差可达四分之一个单位，和要减去它的那点离散程度一样大，输出也就错了这么多。"
            + _CAST_FIX_ZH
        ),
        build=StaysInHalf,
        fails_on=("offset_float16", "offset_bfloat16", "square_overflow_float16"),
    ),
    DraftMistake(
        name="statistics_rounded_to_half",
        title="Statistics computed in float32, then rounded to half before use",
        explanation=(
            "You computed the mean and variance in float32 but cast them to the input's dtype "
            "and normalised in half precision. The rounding you avoided in the reduction comes "
            "back when the mean is stored: around 1000 in float16 (100 in bfloat16) it moves by "
            "up to a quarter unit, as much as the spread of the data. Keep the whole "
            "normalisation in float32 and round once, at the end. " + _CAST_FIX
        ),
        title_zh="统计量在 float32 下算好，却先舍入成半精度再用",
        explanation_zh=(
            "你在 float32 下算了均值和方差，却把它们转回输入的 dtype，在半精度下做归一化。归约时"
            "躲开的舍入误差在保存均值时又回来了：float16 下 1000 附近（bfloat16 下 100 附近）它会"
            "偏移四分之一个单位，和数据本身的离散程度一样大。整个归一化都要留在 float32 里，只在"
            "最后舍入一次。" + _CAST_FIX_ZH
        ),
        build=StatsRoundedToHalf,
        fails_on=("offset_float16", "offset_bfloat16"),
    ),
    DraftMistake(
        name="one_pass_variance",
        title="Variance as E[x^2] - E[x]^2",
        explanation=(
            "You upcast, but computed the variance in one pass as mean(x^2) - mean(x)^2. Around "
            "1000 both terms are about 1e6 and agree in their first six or seven digits; their "
            "difference, the variance of about 1, keeps only the last one or two, and float32 "
            "has about seven. The mistake is the formula, not the dtype: subtract the mean first "
            "(two passes), or use Welford's update."
        ),
        title_zh="用 E[x^2] - E[x]^2 计算方差",
        explanation_zh=(
            "你做了类型提升，但用一遍法 mean(x^2) - mean(x)^2 计算方差。数值在 1000 附近时，两项都"
            "约为 1e6，前六七位数字完全相同；它们的差，也就是约为 1 的方差，"
            "只剩最后一两位有效数字，"
            "而 float32 总共只有约七位。问题出在公式上，不在 dtype：先减去均值（两遍法），"
            "或者用 Welford 算法。"
        ),
        build=OnePassVariance,
        fails_on=("offset_float16",),
    ),
    DraftMistake(
        name="not_cast_back",
        title="Returns float32 for a half input",
        explanation=(
            "Your output is float32 for a float16 or bfloat16 input. The contract, and every "
            "layer after this one, expects the input's dtype: a float32 activation doubles the "
            "memory of everything downstream, and a matmul with half weights then fails or "
            "silently runs in float32. Fix: return y.to(x.dtype)."
        ),
        title_zh="半精度输入却返回 float32",
        explanation_zh=(
            "输入是 float16 或 bfloat16，你的输出却是 float32。"
            "约定以及后面的每一层都期望拿到输入的 "
            "dtype：float32 的激活会让下游的显存翻倍，和半精度权重做矩阵乘法时要么报错，要么悄悄在 "
            "float32 下运行。改法：return y.to(x.dtype)。"
        ),
        build=NotCastBack,
        fails_on=("normal_float16", "normal_bfloat16_cast", "offset_float16"),
    ),
    DraftMistake(
        name="promoted_by_parameters",
        title="Cast back before the affine: float32 parameters promote the output",
        explanation=(
            "You normalised in float32 and cast x_hat back to the input's dtype, then applied "
            "weight and bias. With the parameters kept in float32 (master weights, or a model "
            "that was not cast), x_hat * weight + bias is promoted to float32 again, so the "
            "output's dtype depends on the parameters' instead of the input's. Fix: apply the "
            "affine in float32 and cast once at the end, or cast the parameters to x.dtype."
        ),
        title_zh="在仿射变换之前就转回半精度：float32 参数又把输出提升成 float32",
        explanation_zh=(
            "你在 float32 下归一化，先把 x_hat 转回输入的 dtype，再乘 weight、加 bias。参数若保持 "
            "float32（主权重，或者模型没有整体转换），x_hat * weight + bias 又会被提升为 float32，"
            "输出的 dtype 就由参数而不是输入决定了。改法：仿射变换也在 float32 下做，最后统一转换"
            "一次；或者把参数转成 x.dtype。"
        ),
        build=PromotedByParameters,
        fails_on=("normal_float16", "offset_float16"),
    ),
)
