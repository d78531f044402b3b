"""Grading spec for ``mixed_precision_norm``: a LayerNorm for half-precision activations.

The statistics and the affine are computed in (at least) float32 and the result is rounded once
to the input's dtype. Most cases keep the module as built (``cast_module=False``): float32
master weights next to float16 or bfloat16 activations, as in mixed-precision training, where a
float32 parameter silently promotes the output (``wrong_output_dtype``); the others cast the
model to the activations' dtype (``module.half()``). Inputs are ill-conditioned on purpose: a
large common offset (the mean rounded to half precision is off by the spread itself) and
float16 values whose squares overflow past 65504.

The reference is ``F.layer_norm`` on a float32 (float64 for float64) copy, rounded to the input
dtype: what ``nn.LayerNorm`` does internally for half inputs, spelled out so it also holds for
float32 parameters next to a half input. The truth is the same function in float64 on the same
(exactly representable) values.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from api.grading.allowlist import ELEMENTARY
from api.grading.draw import call, choice, described, normal, randint, scenario, update
from api.grading.phrase import (
    DEFAULT_INIT,
    RANDOM_WEIGHT_BIAS,
    TRAIN_UPDATE_EVAL,
    Phrase,
    listing,
    non_contiguous,
    same,
)
from api.grading.spec import Case, ExerciseSpec, InitValue, KnownMistake, Layout, Step


class MixedPrecisionLayerNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        compute = torch.promote_types(x.dtype, torch.float32)
        y = F.layer_norm(
            x.to(compute),
            (x.shape[-1],),
            self.weight.to(compute),
            self.bias.to(compute),
            self.eps,
        )
        return y.to(x.dtype)


BANNED = (
    "torch.nn.functional.layer_norm",
    "torch.layer_norm",
    "torch.native_layer_norm",
    "torch.nn.LayerNorm",
    "torch.nn.functional.rms_norm",
    "torch.nn.functional.group_norm",
    "torch.nn.functional.batch_norm",
    "torch.nn.functional.instance_norm",
    "aten.layer_norm",
    "aten.native_layer_norm",
    "aten.rms_norm",
    "aten._fused_rms_norm",
    "aten.group_norm",
    "aten.native_group_norm",
    "aten.batch_norm",
    "aten.native_batch_norm",
)


_NOT_CAST = Phrase("float32 parameters (not cast)", "float32 参数（不随输入转换）")
_CAST = Phrase("model cast to x's dtype", "模型转换为 x 的 dtype")
# The last call's note only repeats its mode: nothing to add in Chinese.
_EVAL = Phrase("eval", "")


def make_cases(gen: torch.Generator) -> list[Case]:
    f16, bf16, f32, f64 = torch.float16, torch.bfloat16, torch.float32, torch.float64
    cases: list[Case] = []

    def ri(lo: int, hi: int) -> int:
        return randint(gen, lo, hi)

    def add(
        name: str,
        what: Phrase | str,
        x: torch.Tensor,
        *,
        eps: float = 1e-5,
        master: bool = True,
        random_state: bool = True,
        layout: Layout = "contiguous",
        last_backward: bool = True,
    ) -> None:
        """Train with backward, an update, eval. ``master``: float32 parameters next to the
        input (not cast); otherwise the model is cast to the input's dtype."""
        d = x.shape[-1]
        pdtype = f32 if master and x.dtype in (f16, bf16) else x.dtype
        state = None
        if random_state:
            state = {
                "weight": 1 + normal(gen, (d,), pdtype, std=0.5),
                "bias": normal(gen, (d,), pdtype),
            }
        kwargs: dict[str, InitValue] = {"dim": d}
        if eps != 1e-5:
            kwargs["eps"] = eps
        params = _NOT_CAST if pdtype != x.dtype else _CAST
        if x.dtype in (f32, f64):
            name_ = "float32" if x.dtype == f32 else "float64"
            params = Phrase(f"{name_} parameters", f"{name_} 参数")
        init = RANDOM_WEIGHT_BIAS if random_state else DEFAULT_INIT
        extra = [params, init, same(f"eps = {eps:g}"), TRAIN_UPDATE_EVAL]
        if layout != "contiguous":
            extra.append(non_contiguous(layout))
        steps: list[Step] = [call(gen, x, train=True, layout=layout)]
        if state is not None:
            steps.append(update(gen, state, scale=0.05))
        steps.append(call(gen, x, backward=last_backward, layout=layout, note=_EVAL))
        said = described(x, what if isinstance(what, Phrase) else same(what), *extra)
        cases.append(
            scenario(
                name=name,
                description=said.en,
                description_zh=said.zh,
                steps=steps,
                init_kwargs=kwargs,
                state=state,
                cast_module=pdtype == x.dtype,
            )
        )

    # Order matters: the verdict names a mistake from the first failing cases, and the offset
    # cases tell the three precision mistakes apart.
    # Ill conditioned: a large common offset. Its mean rounded to half precision is off by up
    # to a quarter unit (ulp 0.5 at 512..1024 in float16, at 64..128 in bfloat16), the size
    # of the spread itself. A dozen rows or more: a small total error by luck is unlikely.
    add(
        "offset_float16",
        "N(0,1) + 1000",
        normal(gen, (ri(12, 24), ri(32, 128)), f32).add(1000.0).to(f16),
    )
    add(
        "offset_bfloat16",
        "N(0,1) + 100",
        normal(gen, (ri(12, 24), ri(32, 128)), f32).add(100.0).to(bf16),
    )
    # float16 values whose squares overflow (300^2 = 90000 > 65504).
    add(
        "square_overflow_float16",
        listing([same("300 * N(0,1)"), Phrase("squares past 65504", "平方超过 65504")]),
        normal(gen, (ri(2, 6), ri(16, 64)), f32, std=300.0).to(f16),
        master=False,
    )
    # Well conditioned, both half formats, master weights or a cast model.
    add(
        "normal_float16",
        "N(0,1)",
        normal(gen, (ri(2, 4), ri(3, 5), ri(16, 96)), f16),
    )
    add(
        "normal_bfloat16_cast",
        "N(0,1)",
        normal(gen, (ri(2, 6), ri(32, 128)), bf16),
        master=False,
    )
    # Tiny float16 values with a small eps: var + eps must not be rounded to half.
    add(
        "tiny_float16",
        "1e-3 * N(0,1)",
        normal(gen, (ri(2, 6), ri(16, 64)), f32, std=1e-3).to(f16),
        eps=1e-7,
    )
    add(
        "float32_offset",
        "N(0,1) + 3",
        normal(gen, (ri(2, 6), ri(8, 64)), f32) + 3.0,
    )
    add(
        "float64_offset_1e4",
        "N(0,1) + 1e4",
        normal(gen, (ri(2, 6), ri(8, 64)), f64) + 1e4,
    )
    # Default parameters on a transposed half view, as the model is built (float32 weights).
    add(
        "default_params_view",
        "N(0,1) + 500",
        normal(gen, (ri(2, 4), ri(8, 24), 40), f32).add(500.0).to(f16),
        random_state=False,
        layout="transposed",
    )
    add(
        "vector_1d_float16",
        "N(0,1) + 200",
        normal(gen, (choice(gen, [48, 80]),), f32).add(200.0).to(f16),
        last_backward=False,
    )
    # A leading batch of 1, four dims, a feature size that is no power of two.
    add(
        "odd_dim_4d_float16",
        "N(0,1)",
        normal(gen, (1, 2, 3, choice(gen, [200, 300])), f16),
    )
    return cases


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


_CAST_FIX = (
    "Fix: xf = x.float(); compute mean, var (two-pass), x_hat and the affine on xf, with "
    "weight.float() and bias.float(); return y.to(x.dtype)."
)
_CAST_FIX_ZH = (
    "改法：xf = x.float()；在 xf 上计算均值、方差（两遍法）、x_hat 和仿射变换，weight、bias 也转成 "
    "float()；最后 return y.to(x.dtype)。"
)

MISTAKES = (
    KnownMistake(
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
    ),
    KnownMistake(
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
    ),
    KnownMistake(
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
    ),
)


SPEC = ExerciseSpec(
    slug="mixed_precision_norm",
    reduces_rows=True,
    class_name="MixedPrecisionLayerNorm",
    reference=MixedPrecisionLayerNorm,
    make_cases=make_cases,
    mistakes=MISTAKES,
    # What a solution is made of: anything else it runs is refused (api/grading/allowlist.py).
    allowed=ELEMENTARY,
    banned=BANNED,
)
