"""Known mistakes for ``fused_add_rms_norm``, as runnable code with their bilingual text."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch

from drafts.fused_add_rms_norm.reference import fused_add_rms_norm as reference

Pair = tuple[torch.Tensor, torch.Tensor]


@dataclass(frozen=True)
class Mistake:
    name: str
    title: str
    explanation: str
    title_zh: str
    explanation_zh: str
    function: Callable[..., Pair]


def _rms_norm(h: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    f = h.float() if h.dtype in (torch.float16, torch.bfloat16) else h
    return (f * torch.rsqrt(f.pow(2).mean(-1, keepdim=True) + eps)).to(h.dtype) * weight


def normalises_x(x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float) -> Pair:
    return _rms_norm(x, weight, eps), x + residual


def returns_old_residual(
    x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float
) -> Pair:
    return _rms_norm(x + residual, weight, eps), residual


def outputs_swapped(
    x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float
) -> Pair:
    normed, new_residual = reference(x, residual, weight, eps)
    return new_residual, normed


def residual_is_normed(
    x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float
) -> Pair:
    normed = _rms_norm(x + residual, weight, eps)
    return normed, normed


def weight_ignored(
    x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float
) -> Pair:
    h = x + residual
    return _rms_norm(h, torch.ones_like(weight), eps), h


def eps_outside_sqrt(
    x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float
) -> Pair:
    h = x + residual
    f = h.float() if h.dtype in (torch.float16, torch.bfloat16) else h
    normed = (f / (f.pow(2).mean(-1, keepdim=True).sqrt() + eps)).to(h.dtype) * weight
    return normed, h


def stats_in_half(
    x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float
) -> Pair:
    h = x + residual
    return h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps) * weight, h


def residual_in_place(
    x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float
) -> Pair:
    residual += x  # what vLLM's kernel does to its buffers; here it changes the caller's tensor
    return _rms_norm(residual, weight, eps), residual


MISTAKES = (
    Mistake(
        name="normalises_x_not_sum",
        title="Normalised x instead of x + residual",
        explanation=(
            "Your normed output is RMSNorm(x): the branch output before it joins the stream. The "
            "next block must read the stream as it now is, RMSNorm(x + residual); that is the "
            "point of fusing the add with the norm. Fix: h = x + residual, then normalise h."
        ),
        title_zh="归一化的是 x，而不是 x + residual",
        explanation_zh=(
            "你的 normed 输出是 RMSNorm(x)，也就是分支输出在并入残差流之前的样子。下一个块要读的是"
            "残差流现在的样子，即 RMSNorm(x + residual)；把加法和归一化融合在一起，为的就是这个。"
            "改法：先 h = x + residual，再对 h 做归一化。"
        ),
        function=normalises_x,
    ),
    Mistake(
        name="returns_old_residual",
        title="Returned the old residual instead of x + residual",
        explanation=(
            "Your second output is the residual you were given, so the caller's stream never "
            "receives this layer's update x: the next add builds on a stale stream and the layer "
            "is skipped for every later block. Fix: return (normed, x + residual)."
        ),
        title_zh="返回的是旧的 residual，而不是 x + residual",
        explanation_zh=(
            "你的第二个输出就是传进来的 residual，于是调用方的残差流永远收不到这一层的更新 x："
            "下一次相加建立在过期的残差流上，对之后所有的块来说这一层等于被跳过了。"
            "改法：return (normed, x + residual)。"
        ),
        function=returns_old_residual,
    ),
    Mistake(
        name="outputs_swapped",
        title="Outputs in the wrong order: (new_residual, normed)",
        explanation=(
            "You returned the new residual first. The contract, like vLLM's, is "
            "(normed, new_residual): the normalised tensor feeds the next branch, the sum "
            "becomes the stream. Fix: return normed, new_residual."
        ),
        title_zh="输出顺序反了：(new_residual, normed)",
        explanation_zh=(
            "你把新的 residual 放在了第一个。本题接口和 vLLM 一样是 (normed, new_residual)："
            "归一化后的张量送进下一个分支，相加的结果成为新的残差流。"
            "改法：return normed, new_residual。"
        ),
        function=outputs_swapped,
    ),
    Mistake(
        name="residual_is_normed",
        title="The new residual is the normalised sum",
        explanation=(
            "You returned the normalised tensor as the new residual too. The stream must keep "
            "the raw sum x + residual; replacing it by its normalised copy rescales the stream "
            "at every layer, which is post-norm, not the pre-norm this fusion serves. Fix: "
            "return (normed, x + residual)."
        ),
        title_zh="新的 residual 成了归一化后的和",
        explanation_zh=(
            "你把归一化后的张量也当成了新的 residual 返回。残差流必须保留原始的和 x + residual；"
            "用归一化后的副本替换它，等于每层都重新缩放残差流，那是后置归一化，而不是这种融合所服务"
            "的前置归一化。改法：return (normed, x + residual)。"
        ),
        function=residual_is_normed,
    ),
    Mistake(
        name="weight_ignored",
        title="The weight is not applied",
        explanation=(
            "Your normed output is the sum divided by its RMS, without the per-feature gain. "
            "Fix: multiply by weight after normalising."
        ),
        title_zh="没有乘 weight",
        explanation_zh=(
            "你的 normed 输出只是和除以它的 RMS，缺了逐特征的增益。改法：归一化之后乘上 weight。"
        ),
        function=weight_ignored,
    ),
    Mistake(
        name="eps_outside_sqrt",
        title="eps added outside the square root",
        explanation=(
            "You divided by sqrt(mean(h^2)) + eps. RMSNorm puts eps inside, rsqrt(mean(h^2) + "
            "eps); the two differ a lot for tokens with a tiny RMS. Fix: torch.rsqrt(ms + eps)."
        ),
        title_zh="eps 加在了平方根外面",
        explanation_zh=(
            "你除以的是 sqrt(mean(h^2)) + eps。RMSNorm 把 eps 放在根号里：rsqrt(mean(h^2) + eps)；"
            "RMS 很小的 token 上两者差别很大。改法：torch.rsqrt(ms + eps)。"
        ),
        function=eps_outside_sqrt,
    ),
    Mistake(
        name="stats_in_half_precision",
        title="Mean square computed in float16: the squares overflow",
        explanation=(
            "For float16 inputs you squared in float16. Its largest finite value is 65504, so "
            "any |h| above about 256 squares to inf, the rsqrt gives 0 and the whole token's "
            "output becomes 0 (or NaN). Compute the statistics in float32 and cast the "
            "normalised result back: h.float(), then .to(h.dtype)."
        ),
        title_zh="在 float16 下计算均方值：平方溢出",
        explanation_zh=(
            "输入是 float16 时你直接在 float16 下求平方。float16 的最大有限值是 65504，"
            "|h| 超过 256 左右平方就成了 inf，rsqrt 得到 0，"
            "整个 token 的输出都变成 0（或 NaN）。应当在 float32 下计算统计量，"
            "再把归一化结果转回原 dtype：先 h.float()，最后 .to(h.dtype)。"
        ),
        function=stats_in_half,
    ),
    Mistake(
        name="residual_updated_in_place",
        title="The caller's residual was modified in place",
        explanation=(
            "You wrote residual += x (or add_). vLLM's CUDA kernel does update its buffers in "
            "place, but this contract is the functional form: the caller may still need the old "
            "residual, and autograd refuses in-place updates of leaves that require grad. Fix: "
            "new_residual = x + residual."
        ),
        title_zh="原地修改了调用方的 residual",
        explanation_zh=(
            "你写了 residual += x（或 add_）。vLLM 的 CUDA 算子确实会原地更新它的缓冲区，但本题接口"
            "是函数式的：调用方可能还要用旧的 residual，而且 autograd 不允许原地修改需要梯度的叶子"
            "张量。改法：new_residual = x + residual。"
        ),
        function=residual_in_place,
    ),
)
