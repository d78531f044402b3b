"""Grading spec for ``bf16_norm_precision``, a lab: where a LayerNorm computed in bfloat16 loses
precision as the mean of its rows grows relative to their spread.

For each offset ``o`` (a ratio mean/std, the rows of ``x`` being N(0,1)) the learner casts
``x + o`` to bfloat16 and normalises those rows four ways: (0) LayerNorm with two-pass
statistics in bfloat16, (1) LayerNorm with one-pass statistics E[x²] - E[x]² in bfloat16,
(2) LayerNorm with its statistics in float32 and the result cast back, (3) RMSNorm in bfloat16.
Each is compared with the same norm computed in float64 on the very bfloat16 rows it saw (the
error of the statistics, not of the input's rounding): per row the relative L2 error, then the
median over the rows, then log10. The answer is ``(4, len(offsets))`` in x's dtype.

The finding: bfloat16's one-pass variance cancels catastrophically (its error grows like o²
and reaches 100% by o = 16-32, where the variance rounds to zero), the two-pass one grows like o
(the mean rounded to bfloat16 shifts every centred value), float32 statistics stay flat at the
rounding of the bfloat16 output, and RMSNorm, which subtracts nothing, has nothing to cancel.

Deterministic: bfloat16 arithmetic on the CPU rounds the same way on every run, so the contract
pins each arm's operations (``.mean`` over the last dim, ``/ torch.sqrt``) and the rows come in
odd counts (one middle row: ``median`` and ``quantile(0.5)`` agree). ``x`` is float64 or
float32 (widened exactly before the offset is added); the answer is in x's dtype. The
answers are compared as log10 values (``tolerance_scale``, below): a correct experiment matches
to about 1e-6 (F.layer_norm in float32 or a float64 reference by F.layer_norm included); every
known mistake misses by 0.1 or more.
"""

from __future__ import annotations

import torch

from api.grading.draw import described, normal
from api.grading.phrase import Phrase, same
from api.grading.spec import Call, Case, ExerciseSpec, KnownMistake, LabChart

BF16, F32, F64 = torch.bfloat16, torch.float32, torch.float64
EPS = 1e-5
CHART_CASE = "sweep_1_to_128"


def _layer_norm(x: torch.Tensor, *, unbiased: bool = False) -> torch.Tensor:
    """Two-pass LayerNorm at ``x``'s own dtype, no affine: every step rounds to that dtype."""
    mu = x.mean(dim=-1, keepdim=True)
    d = x - mu
    var = (d * d).mean(dim=-1, keepdim=True)
    if unbiased:
        var = var * x.shape[-1] / (x.shape[-1] - 1)
    return d / torch.sqrt(var + EPS)


def _one_pass(x: torch.Tensor, *, eps_outside: bool = False) -> torch.Tensor:
    """LayerNorm with the variance as E[x²] - E[x]², clamped at zero (it can round below)."""
    mu = x.mean(dim=-1, keepdim=True)
    var = ((x * x).mean(dim=-1, keepdim=True) - mu * mu).clamp(min=0)
    if eps_outside:
        return (x - mu) / (torch.sqrt(var) + EPS)
    return (x - mu) / torch.sqrt(var + EPS)


def _rms_norm(x: torch.Tensor) -> torch.Tensor:
    return x / torch.sqrt((x * x).mean(dim=-1, keepdim=True) + EPS)


def _error(y: torch.Tensor, ref: torch.Tensor, how: dict[str, bool]) -> torch.Tensor:
    """Median over rows of the relative L2 error of ``y`` against the float64 ``ref``."""
    per_row: torch.Tensor = (y.to(F64) - ref).norm(dim=-1)
    if not how.get("absolute"):
        per_row = per_row / ref.norm(dim=-1)
    return per_row.mean() if how.get("mean_of_rows") else per_row.median()


def _measure(x: torch.Tensor, offsets: torch.Tensor, **how: bool) -> torch.Tensor:
    """The reference experiment, with switches for the known mistakes."""
    columns = []
    for o in offsets.tolist():
        shifted = x.to(F64) + o
        xb = shifted.to(BF16)
        seen = shifted if how.get("ref_before_cast") else xb.to(F64)
        ref = _layer_norm(seen, unbiased=how.get("unbiased_ref", False))
        ref_rms = _layer_norm(seen) if how.get("rms_centred") else _rms_norm(seen)
        two = _layer_norm(xb)
        one = _one_pass(xb, eps_outside=how.get("eps_outside", False))
        # The float32 arm's statistics, or (the mistake) bfloat16's own.
        f32 = _layer_norm(xb if how.get("no_upcast") else xb.to(F32)).to(BF16)
        rms = _layer_norm(xb) if how.get("rms_centred") else _rms_norm(xb)
        arms = [(two, ref), (one, ref), (f32, ref), (rms, ref_rms)]
        if how.get("swapped"):
            arms[0], arms[1] = arms[1], arms[0]
        columns.append(torch.stack([_error(y, r, how) for y, r in arms]))
    return torch.stack(columns, dim=1).log10().to(x.dtype)


def bf16_norm_precision(x: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    return _measure(x, offsets)


def make_cases(gen: torch.Generator) -> list[Case]:
    """The figure's sweep (mean/std from 1 to 128 in powers of two), then other widths, row
    counts, offsets between the powers of two and a smaller spread. Rows come in odd counts."""
    cases: list[Case] = []

    def add(
        name: str,
        shape: tuple[int, int],
        offsets: list[float],
        dtype: torch.dtype = F64,
        std: float = 1.0,
    ) -> None:
        x = normal(gen, shape, dtype, std=std)
        o = torch.tensor(offsets, dtype=F64)
        what = "N(0,1)" if std == 1.0 else f"{std:g} N(0,1)"
        n, lo, hi = len(offsets), f"{offsets[0]:g}", f"{offsets[-1]:g}"
        sweep = Phrase(f"{n} offsets from {lo} to {hi}", f"{n} 个偏移（从 {lo} 到 {hi}）")
        said = described(x, same(what), sweep)
        cases.append(
            Case(
                name=name,
                description=said.en,
                description_zh=said.zh,
                x=x,
                # Autograd on, as for every lab's call; the experiment needs none.
                steps=(Call((x, o), autograd=True),),
            )
        )

    add(CHART_CASE, (65, 64), [2.0**k for k in range(8)])
    add("small_offsets", (33, 64), [0.0, 0.25, 0.5, 1.0])
    add("wide_rows", (17, 600), [1.0, 4.0, 16.0, 64.0])
    add("narrow_rows", (65, 16), [1.0, 8.0, 32.0])
    add("many_rows", (257, 32), [2.0, 16.0, 128.0])
    add("between_powers", (33, 96), [3.0, 6.0, 12.0, 24.0, 48.0, 96.0])
    add("small_spread", (33, 128), [0.1, 0.8, 3.2, 6.4], std=0.1)
    add("one_row", (1, 300), [1.0, 16.0, 64.0])
    # float32 rows: the sweep forms x + offset in float64 all the same (x widens exactly).
    add("float32_rows", (65, 64), [1.0, 4.0, 16.0, 64.0], F32)
    add("float32_wide_rows", (9, 200), [2.0, 8.0, 32.0], F32)
    add("float32_one_offset", (33, 48), [24.0], F32)
    return cases


def _mistake(**how: bool):  # type: ignore[no-untyped-def]
    def build(x: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
        return _measure(x, offsets, **how)

    return build


def _known(
    name: str, title: str, explanation: str, title_zh: str, explanation_zh: str, **how: bool
) -> KnownMistake:
    return KnownMistake(
        name=name,
        title=title,
        explanation=explanation,
        title_zh=title_zh,
        explanation_zh=explanation_zh,
        build=_mistake(**how),
    )


MISTAKES = (
    _known(
        "reference_before_cast",
        "The reference normalises the rows before their cast to bfloat16",
        "Your float64 reference normalises x + offset as drawn, not the bfloat16 rows the arms "
        "received. The error then measures the input's own rounding (its spacing grows with the "
        "offset), which no norm can undo: even the float32-statistics arm and RMSNorm grow with "
        "the offset. Compute the reference on xb.double(), the rows each arm saw.",
        "参考结果归一化的是转成 bfloat16 之前的行",
        "你的 float64 参考结果归一化的是原始的 x + offset，"
        "而不是各方案实际拿到的 bfloat16 行。"
        "这样测到的是输入本身的舍入误差（其间距随偏移增大），任何归一化都无法消除："
        "连 float32 统计量方案和 RMSNorm 的误差也随偏移增长。"
        "请在 xb.double() 上计算参考结果，也就是每个方案看到的行。",
        ref_before_cast=True,
    ),
    _known(
        "absolute_error",
        "The absolute error, not the relative one",
        "You measured the norm of the difference without dividing by the reference's norm. "
        "A normalised row of width d has norm about sqrt(d), so the numbers move with the width "
        "and cannot be compared with bfloat16's unit roundoff (2^-8). Divide each row's error "
        "norm by the reference row's norm.",
        "用了绝对误差，而不是相对误差",
        "你测的是差值的范数，没有除以参考结果的范数。宽度为 d 的归一化行，范数约为 sqrt(d)，"
        "这样得到的数字随宽度变化，也无法与 bfloat16 的单位舍入误差（2^-8）比较。"
        "请把每行误差的范数除以参考行的范数。",
        absolute=True,
    ),
    _known(
        "passes_swapped",
        "One-pass and two-pass variance swapped",
        "Your row 0 holds the one-pass arm and row 1 the two-pass arm. Row 0 is the two-pass "
        "variance, the mean of (x - mean)²; row 1 the one-pass one, E[x²] - E[x]², the one "
        "that cancels catastrophically once the mean is large.",
        "单遍与两遍方差弄反了",
        "你的第 0 行是单遍方案，第 1 行是两遍方案。第 0 行应是两遍方差，即 (x - mean)² 的均值；"
        "第 1 行是单遍方差 E[x²] - E[x]²，均值一大就会发生灾难性抵消的正是它。",
        swapped=True,
    ),
    _known(
        "float32_arm_not_upcast",
        "The float32-statistics arm never leaves bfloat16",
        "Your row 2 equals the bfloat16 two-pass arm: the statistics were computed before (or "
        "without) the cast to float32. Cast the bfloat16 rows with .float() first, compute the "
        "mean, variance and normalisation in float32, and cast only the result back to "
        "bfloat16 (CUDA's autocast computes layer_norm in float32 the same way, though it "
        "returns the float32 result).",
        "float32 统计量方案始终停留在 bfloat16",
        "你的第 2 行与 bfloat16 两遍方案完全相同：统计量是在转成 float32 之前（或根本没转）算的。"
        "请先用 .float() 转换 bfloat16 行，在 float32 里计算均值、方差和归一化，"
        "只把结果转回 bfloat16（CUDA 上的 autocast 也是这样在 float32 中计算 layer_norm，"
        "只是返回 float32 结果）。",
        no_upcast=True,
    ),
    _known(
        "unbiased_reference",
        "The reference's variance is the unbiased one",
        "Your float64 reference divides the variance by d - 1 (torch.var's default), while "
        "LayerNorm divides by d. Every LayerNorm arm then carries a scale error of about "
        "1/(2d) on top of its rounding: a floor near 0.8% at d = 64 that hides float32's "
        "0.16%. Pass correction=0 (unbiased=False), or take the mean of the squared deviations.",
        "参考结果用了无偏方差",
        "你的 float64 参考结果把方差除以 d - 1（torch.var 的默认做法），而 LayerNorm 除以 d。"
        "于是每个 LayerNorm 方案在舍入误差之外都多了约 1/(2d) 的缩放误差：d = 64 时误差下限约为 "
        "0.8%，把 float32 的 0.16% 掩盖了。请传入 correction=0（unbiased=False），"
        "或直接对偏差的平方求均值。",
        unbiased_ref=True,
    ),
    _known(
        "rms_norm_centred",
        "The RMSNorm arm subtracts the mean",
        "Your row 3 is a LayerNorm: it subtracts the mean before dividing. RMSNorm divides x by "
        "sqrt(mean(x²) + eps) and subtracts nothing, which is exactly why it has no difference "
        "of large numbers to cancel and stays flat as the offset grows.",
        "RMSNorm 方案减去了均值",
        "你的第 3 行其实是 LayerNorm：它在相除之前减去了均值。RMSNorm 用 x 除以 "
        "sqrt(mean(x²) + eps)，什么也不减，正因如此它没有大数相减可抵消，"
        "偏移增大时误差保持平稳。",
        rms_centred=True,
    ),
    _known(
        "mean_of_rows",
        "The mean error over the rows, not the median",
        "You averaged the per-row errors. Where the one-pass variance starts to cancel, a few "
        "rows whose variance rounded to zero are off by a factor of about 300 (1/sqrt(eps)) "
        "and dominate a mean; the contract takes the median over the rows, which says what a "
        "typical row suffers.",
        "对各行误差取了均值，而不是中位数",
        "你对各行的误差取了平均。单遍方差开始抵消时，少数方差被舍入为零的行误差会达到约 300 倍"
        "（1/sqrt(eps)），主导了均值；本题约定对各行取中位数，它反映的是一行典型的误差。",
        mean_of_rows=True,
    ),
    _known(
        "eps_outside_sqrt",
        "eps added to the standard deviation, outside the square root",
        "Your one-pass arm divides by sqrt(var) + eps. Where the variance has cancelled to zero "
        "this divides by 1e-5 instead of sqrt(1e-5), an error of 1e5 instead of about 300. "
        "LayerNorm adds eps to the variance, inside the square root: (x - mean) / "
        "sqrt(var + eps).",
        "eps 加在了标准差上，在平方根外面",
        "你的单遍方案除以的是 sqrt(var) + eps。方差抵消为零时，这相当于除以 1e-5 而不是 "
        "sqrt(1e-5)，误差是 1e5 倍而不是约 300 倍。LayerNorm 把 eps 加在方差上、平方根里面："
        "(x - mean) / sqrt(var + eps)。",
        eps_outside=True,
    ),
)


SPEC = ExerciseSpec(
    slug="bf16_norm_precision",
    class_name="bf16_norm_precision",
    reference=bf16_norm_precision,
    make_cases=make_cases,
    mistakes=MISTAKES,
    kind="function",
    # The experiment casts between bfloat16, float32 and float64 and may use F.layer_norm for
    # its float32 arm or its reference: no allow-list, nothing banned.
    allowed=None,
    ranks=(2,),
    trains=False,
    # The answer is float64 log10 values computed from bfloat16 arms (float32 internals are the
    # point of row 2): float64 cases within 1e-3 of the value plus 2e-4 of the case's largest
    # magnitude (the float32-computation tolerance times 100), float32 cases within 2% plus
    # 2e-3. Over 30 seeds a correct experiment used at most 13% of that (F.layer_norm's float32
    # arm flips a bfloat16 rounding now and then) and every mistake missed by 380 times or more.
    float32_internals=True,
    tolerance_scale=100.0,
    chart=LabChart(
        case=CHART_CASE,
        series=("bf16 two-pass", "bf16 one-pass", "float32 statistics", "bf16 RMSNorm"),
        series_zh=("bf16 两遍", "bf16 单遍", "float32 统计量", "bf16 RMSNorm"),
        x_label="i: rows' mean/std = 2^(i-1)",
        x_label_zh="i：行的均值/标准差 = 2^(i-1)",
        y_label="log10 median relative error",
        y_label_zh="log10 相对误差的中位数",
        title="LayerNorm in bfloat16 as the mean grows, 65 rows of width 64",
        title_zh="均值增大时 bfloat16 中的 LayerNorm，65 行、宽度 64",
    ),
)
