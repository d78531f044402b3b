"""Grading spec for ``fused_add_rms_norm``: the residual add and the next block's RMSNorm in
one function, ``fused_add_rms_norm(x, residual, weight, eps) -> (normed, new_residual)``, the
form inference engines (vLLM, TensorRT-LLM) use between two half-layers.

``new_residual = x + residual`` is the stream the next add builds on, ``normed`` its RMSNorm
times ``weight``, the next branch's input. The reference uses ``F.rms_norm``, in float32 for
half-precision inputs (as vLLM's and Hugging Face's RMSNorm do), and returns both in the
inputs' dtype. Gradients flow to ``x``, ``residual`` and ``weight`` from both outputs.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from api.grading.allowlist import ELEMENTARY
from api.grading.draw import described, normal, randint
from api.grading.phrase import RANDOM_WEIGHT, Phrase, same, view_zh
from api.grading.spec import Call, Case, ExerciseSpec, KnownMistake, Layout

Pair = tuple[torch.Tensor, torch.Tensor]
HALF = (torch.float16, torch.bfloat16)
F32, F64, BF16, F16 = torch.float32, torch.float64, torch.bfloat16, torch.float16


def reference(x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float) -> Pair:
    new_residual = x + residual
    if new_residual.dtype in HALF:
        stats = F.rms_norm(new_residual.float(), new_residual.shape[-1:], eps=eps)
        normed = stats.to(new_residual.dtype) * weight
    else:
        normed = F.rms_norm(new_residual, new_residual.shape[-1:], weight, eps)
    return normed, new_residual


_BACKWARD_FROM_BOTH = Phrase("backward from both outputs", "从两个输出做反向传播")
_FORWARD_ONLY = Phrase("forward only, under no_grad", "在 no_grad 下只做前向")


def make_cases(gen: torch.Generator) -> list[Case]:
    """Twelve families, drawn fresh from ``gen``. The stream much larger than the branch comes
    first: it tells normalising x from normalising the sum, and the old residual from the new."""
    cases: list[Case] = []

    def add(
        name: str,
        shape: tuple[int, ...],
        dtype: torch.dtype,
        *,
        eps: float = 1e-6,
        x_scale: float = 1.0,
        r_scale: float = 3.0,
        r_offset: float = 0.0,
        backward: bool = True,
        layout: Layout = "contiguous",
    ) -> None:
        dim = shape[-1]
        # Drawn in float32 and rounded once, so half-precision inputs are exactly representable.
        x = normal(gen, shape, F32, std=x_scale).to(dtype)
        residual = (normal(gen, shape, F32, std=r_scale) + r_offset).to(dtype)
        weight = (1 + 0.5 * normal(gen, (dim,), F32)).to(dtype)
        grads = (normal(gen, shape, dtype), normal(gen, shape, dtype)) if backward else None
        what = f"{x_scale:g} * N(0,1)"
        stream = f"residual = {r_scale:g} * N(0,1)" + (f" + {r_offset:g}" if r_offset else "")
        extra = [same(stream), RANDOM_WEIGHT, same(f"eps = {eps:g}")]
        if layout != "contiguous":
            extra.append(Phrase(f"x a non-contiguous ({layout}) view", f"x 为{view_zh(layout)}"))
        extra.append(_BACKWARD_FROM_BOTH if backward else _FORWARD_ONLY)
        step = Call((x, residual, weight), grads, layout=layout, args=(eps,))
        said = described(x, same(what), *extra)
        cases.append(
            Case(
                name=name,
                description=said.en,
                description_zh=said.zh,
                x=x,
                steps=(step,),
            )
        )

    add("stream_much_larger_f64", (2, randint(gen, 3, 6), 24), F64, x_scale=0.1, r_scale=10.0)
    # Second: where an in-place update of the residual returns a value instead of raising
    # (autograd refuses it on a leaf that requires grad), and the child stops after three raises.
    add("forward_no_grad", (3, 48), F32, backward=False)
    add("standard_2d", (randint(gen, 3, 8), 32), F32)
    add("vector_1d", (64,), F64)
    add("leading_one_4d", (1, 2, 3, 16), F32)
    add("dim_1", (7, 1), F64)
    add("tiny_sum_small_eps", (4, 40), F64, eps=1e-5, x_scale=1e-4, r_scale=1e-4)
    add("wide_4096", (2, 4096), F32)
    add("transposed_300", (randint(gen, 4, 9), 300), F32, layout="transposed")
    add("bfloat16", (4, 256), BF16, backward=False)
    add("float16_square_overflow", (3, 128), F16, r_offset=300.0, r_scale=20.0, backward=False)
    add("float16", (5, 64), F16, backward=False)
    return cases


# --- Known mistakes: the contract's signature, one error each. Half-precision statistics are
# computed in float32 in every mistake but the one about them.


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
    KnownMistake(
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
        build=normalises_x,
    ),
    KnownMistake(
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
        build=returns_old_residual,
    ),
    KnownMistake(
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
        build=outputs_swapped,
    ),
    KnownMistake(
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
            "用归一化后的副本替换它，等于每层都重新缩放残差流，那是 Post-Norm，而不是这种融合所服务"
            "的 Pre-Norm。改法：return (normed, x + residual)。"
        ),
        build=residual_is_normed,
    ),
    KnownMistake(
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
        build=weight_ignored,
    ),
    KnownMistake(
        name="eps_outside_sqrt",
        title="eps added outside the square root",
        explanation=(
            "You divided by sqrt(mean(h^2)) + eps. RMSNorm puts eps inside, rsqrt(mean(h^2) + "
            "eps); the two differ a lot for tokens with a tiny RMS. Fix: torch.rsqrt(ms + eps)."
        ),
        title_zh="eps 加在了根号外面",
        explanation_zh=(
            "你除以的是 sqrt(mean(h^2)) + eps。RMSNorm 把 eps 放在根号里：rsqrt(mean(h^2) + eps)；"
            "RMS 很小的 token 上两者差别很大。改法：torch.rsqrt(ms + eps)。"
        ),
        build=eps_outside_sqrt,
    ),
    KnownMistake(
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
        build=stats_in_half,
    ),
    KnownMistake(
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
        build=residual_in_place,
    ),
)


SPEC = ExerciseSpec(
    slug="fused_add_rms_norm",
    reduces_rows=True,
    class_name="fused_add_rms_norm",
    kind="function",
    reference=reference,
    make_cases=make_cases,
    mistakes=MISTAKES,
    # The whole-norm built-ins, however reached; rsqrt, pow and mean stay allowed. LayerNorm of
    # [h, -h] has mean 0 and variance mean(h^2): RMSNorm in disguise.
    # What a solution is made of: anything else it runs is refused (api/grading/allowlist.py).
    allowed=ELEMENTARY,
    banned=(
        "torch.nn.RMSNorm",
        "torch.nn.functional.rms_norm",
        "torch.rms_norm",
        "torch.nn.LayerNorm",
        "torch.nn.functional.layer_norm",
        "torch.layer_norm",
        "torch.native_layer_norm",
        "aten.rms_norm",
        "aten._fused_rms_norm",
        "aten.layer_norm",
        "aten.native_layer_norm",
    ),
)
