"""Grading spec for ``gelu``: GELU from scratch, exact (erf) and tanh forms, graded against
``nn.GELU(approximate=...)``.

Contract: ``class GELU(nn.Module)``, ``__init__(self, approximate: str = "none")``, no
parameters or buffers, elementwise on any shape, same shape and dtype as ``x``. Each form is
right only for its own flag.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from api.grading import draw
from api.grading.allowlist import ELEMENTARY
from api.grading.phrase import (
    AGAIN_IN_EVAL_MODE_ON_A_NEW_INPUT,
    IN_TRAIN_MODE,
    Phrase,
    more_calls,
    no_parameters,
    points_on,
    same,
)
from api.grading.spec import Case, ExerciseSpec, InitValue, KnownMistake, Layout, Step

FLAGS = ("none", "tanh")
_SQRT_HALF = 1.0 / math.sqrt(2.0)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


def reference(approximate: str = "none") -> nn.Module:
    return nn.GELU(approximate=approximate)


def _uniform(gen: torch.Generator, n: int, low: float, high: float) -> torch.Tensor:
    return low + (high - low) * torch.rand(n, generator=gen)


def _tag(flag: str | None) -> str:
    """The flag in a case name (names are identifiers: verdicts quote them)."""
    return {"none": "exact", "tanh": "tanh"}.get(flag or "", "default")


def make_cases(gen: torch.Generator) -> list[Case]:
    """Every family once per flag (19 cases), drawn fresh from ``gen``."""
    cases: list[Case] = []

    def add(
        name: str,
        what: Phrase | str,
        x: torch.Tensor,
        flag: str | None,
        *,
        backward: bool = True,
        layout: Layout = "contiguous",
    ) -> None:
        init: dict[str, InitValue] = {} if flag is None else {"approximate": flag}
        label = same("GELU()" if flag is None else f'approximate="{flag}"')
        # A formula reads the same in both languages.
        words = draw.described(x, what if isinstance(what, Phrase) else same(what), label)
        cases.append(
            draw.scenario(
                name=f"{name}_{_tag(flag)}",
                description=words.en,
                description_zh=words.zh,
                steps=[draw.call(gen, x, backward=backward, layout=layout)],
                init_kwargs=init,
                state=None,
            )
        )

    def repeated(flag: str) -> None:
        # One module called again and again: train mode, an (empty) optimiser step, every rank,
        # a leading dim of 1, feature sizes past 128 that are no power of two. GELU has no
        # state, so nothing may change between calls.
        label = same(f'approximate="{flag}"')
        xs = [
            draw.normal(gen, (1, 2, 3, 200), torch.float32) * 3,
            draw.normal(gen, (300,), torch.float32) * 3,
            draw.normal(gen, (5, 131), torch.float32) * 3,
            draw.normal(gen, (2, 3, 17), torch.float32) * 3,
        ]
        steps: list[Step] = [draw.call(gen, xs[0], train=True, note=IN_TRAIN_MODE)]
        steps.append(draw.update(gen, {}, note=no_parameters("GELU")))
        steps += [draw.call(gen, x, note=AGAIN_IN_EVAL_MODE_ON_A_NEW_INPUT) for x in xs[1:]]
        words = draw.described(xs[0], same("N(0,1) * 3"), label, more_calls(3))
        cases.append(
            draw.scenario(
                name=f"called_again_{_tag(flag)}",
                description=words.en,
                description_zh=words.zh,
                steps=steps,
                init_kwargs={"approximate": flag},
                state=None,
            )
        )

    for flag in FLAGS:
        repeated(flag)
        # The whole curve: the negative tail, the dip near -0.75, the near-identity right side.
        grid = torch.linspace(-10.0, 10.0, 401) + 0.01 * torch.rand(401, generator=gen)
        add("curve", points_on(401, -10, 10), grid, flag)
        add("curve_float64", points_on(401, -10, 10), grid.double(), flag)
        # Where exact and tanh differ most (4.7e-4 near x = -2.7), on its own so the largest
        # output does not set the scale of the allowed error.
        add("bump", points_on(48, -4, -1), _uniform(gen, 48, -4.0, -1.0), flag)
        # |x| up to 1e4: x^3 reaches 1e12 (fine in float32); tanh and erf saturate.
        add("large", "N(0,1) * 1e4", draw.normal(gen, (6, 5), torch.float32) * 1e4, flag)
        add("tiny", "N(0,1) * 1e-3", draw.normal(gen, (4, 7), torch.float64) * 1e-3, flag)
        add(
            "transposed",
            Phrase("N(0,1), a transposed view", "N(0,1)，转置后的视图"),
            draw.normal(gen, (3, 13), torch.float32),
            flag,
            layout="transposed",
        )
        # bfloat16 on the negative tail, where 1 + erf(...) cancels in half precision.
        tail = _uniform(gen, 64, -5.0, -3.0)
        add("tail_bfloat16", points_on(64, -5, -3), tail.to(torch.bfloat16), flag)
        # Forward only, under no_grad, where an in-place change of x is looked for.
        add("forward_only", "N(0,1)", draw.normal(gen, (3, 9), torch.float32), flag, backward=False)
    add("default_flag", "N(0,1) * 3", draw.normal(gen, (5, 8), torch.float32) * 3, None)
    return cases


# ---- Known mistakes: the contract's constructor, one error each. ----


class _Gelu(nn.Module):
    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate


def _exact(x: torch.Tensor) -> torch.Tensor:
    return 0.5 * x * (1.0 + torch.erf(x * _SQRT_HALF))


def _tanh(x: torch.Tensor, scale: float = _SQRT_2_OVER_PI, cubic: float = 0.044715) -> torch.Tensor:
    return 0.5 * x * (1.0 + torch.tanh(scale * (x + cubic * x**3)))


def _wide(x: torch.Tensor) -> torch.Tensor:
    """float32 for half-precision inputs, so each mistake below has exactly one error."""
    return x.float() if x.dtype in (torch.float16, torch.bfloat16) else x


class ErfWithoutSqrt2(_Gelu):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        xf = _wide(x)
        if self.approximate == "tanh":
            return _tanh(xf).to(x.dtype)
        return (0.5 * xf * (1.0 + torch.erf(xf))).to(x.dtype)


class TanhMissingCubic(_Gelu):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        xf = _wide(x)
        if self.approximate == "tanh":
            return _tanh(xf, cubic=0.0).to(x.dtype)
        return _exact(xf).to(x.dtype)


class WrongTanhScale(_Gelu):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        xf = _wide(x)
        if self.approximate == "tanh":
            return _tanh(xf, scale=math.sqrt(2.0) / math.pi).to(x.dtype)
        return _exact(xf).to(x.dtype)


class WrongCubicCoefficient(_Gelu):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        xf = _wide(x)
        if self.approximate == "tanh":
            return _tanh(xf, cubic=0.0044715).to(x.dtype)
        return _exact(xf).to(x.dtype)


class SigmoidApproximation(_Gelu):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        xf = _wide(x)
        return (xf * torch.sigmoid(1.702 * xf)).to(x.dtype)


class FlagIgnoredTanh(_Gelu):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        xf = _wide(x)
        return _tanh(xf).to(x.dtype)


class FlagIgnoredExact(_Gelu):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        xf = _wide(x)
        return _exact(xf).to(x.dtype)


class HalfPrecisionInternals(_Gelu):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # Every intermediate rounded to x.dtype: right in float32/float64, wrong on the
        # bfloat16/float16 tail.
        if self.approximate == "tanh":
            return _tanh(x)
        return _exact(x)


MISTAKES = (
    KnownMistake(
        name="erf_without_sqrt2",
        title="erf(x) instead of erf(x / sqrt(2))",
        explanation=(
            "You computed 0.5 * x * (1 + erf(x)). Phi, the standard normal CDF, is "
            "(1 + erf(x / sqrt(2))) / 2: erf is defined for a normal with variance 1/2, so its "
            "argument must be scaled by 1 / sqrt(2). Without it the curve is too steep (your "
            "GELU(-1) is -0.079 instead of -0.159). Fix: torch.erf(x / math.sqrt(2))."
        ),
        title_zh="用了 erf(x) 而不是 erf(x / sqrt(2))",
        explanation_zh=(
            "你算的是 0.5 * x * (1 + erf(x))。标准正态分布的累积分布函数 Phi 等于 "
            "(1 + erf(x / sqrt(2))) / 2：erf 对应的是方差为 1/2 的正态分布，所以自变量要先乘 "
            "1 / sqrt(2)。漏掉后曲线过陡（你的 GELU(-1) 是 -0.079，正确值是 -0.159）。"
            "改法：torch.erf(x / math.sqrt(2))。"
        ),
        build=ErfWithoutSqrt2,
    ),
    KnownMistake(
        name="tanh_missing_cubic",
        title='"tanh" form without the cubic term',
        explanation=(
            'With approximate="tanh" you computed 0.5 * x * (1 + tanh(sqrt(2/pi) * x)), '
            "dropping 0.044715 * x^3. The cubic term is what bends tanh onto the normal CDF; "
            "without it the curve is off by up to 0.034 near |x| = 2. Fix: "
            "tanh(sqrt(2 / pi) * (x + 0.044715 * x ** 3))."
        ),
        title_zh="tanh 近似漏掉了三次项",
        explanation_zh=(
            '在 approximate="tanh" 时你算的是 0.5 * x * (1 + tanh(sqrt(2/pi) * x))，少了 '
            "0.044715 * x^3。正是这个三次项把 tanh 曲线拉到贴近正态分布的累积分布函数；没有它，"
            "在 |x| = 2 附近误差可达 0.034。改法：tanh(sqrt(2 / pi) * (x + 0.044715 * x ** 3))。"
        ),
        build=TanhMissingCubic,
    ),
    KnownMistake(
        name="wrong_tanh_scale",
        title="sqrt(2) / pi instead of sqrt(2 / pi)",
        explanation=(
            "Your tanh form scales by math.sqrt(2) / math.pi (0.450) instead of "
            "math.sqrt(2 / math.pi) (0.798). The constant comes from matching the slope of Phi "
            "at 0, Phi'(0) = 1 / sqrt(2 pi); with the wrong one the curve is far too flat. Fix: "
            "math.sqrt(2 / math.pi)."
        ),
        title_zh="常数写成了 sqrt(2) / pi，而不是 sqrt(2 / pi)",
        explanation_zh=(
            "你的 tanh 近似乘的是 math.sqrt(2) / math.pi（0.450），而不是 math.sqrt(2 / math.pi)"
            "（0.798）。这个常数来自让近似在 0 点的斜率与 Phi 一致，Phi'(0) = 1 / sqrt(2 pi)；"
            "写错后曲线明显过平。改法：math.sqrt(2 / math.pi)。"
        ),
        build=WrongTanhScale,
    ),
    KnownMistake(
        name="wrong_cubic_coefficient",
        title="Cubic coefficient 0.0044715 instead of 0.044715",
        explanation=(
            "Your tanh form uses 0.0044715 for the cubic term, ten times too small (a dropped "
            "digit). The error reaches about 0.03 near |x| = 2. Fix: 0.044715, "
            "best as a named constant."
        ),
        title_zh="三次项系数写成了 0.0044715（应为 0.044715）",
        explanation_zh=(
            "你的 tanh 近似中三次项系数是 0.0044715，小了十倍（多打或少打了一位）。"
            "误差在 |x| = 2 附近约 0.03。改法：用 0.044715，最好定义成具名常量。"
        ),
        build=WrongCubicCoefficient,
    ),
    KnownMistake(
        name="sigmoid_approximation",
        title="x * sigmoid(1.702 x): a third form the contract does not ask for",
        explanation=(
            "You computed x * sigmoid(1.702 * x), the cheapest approximation in the GELU paper. "
            'It is off by up to 0.02 from the exact form, and it is not the "tanh" form either. '
            'Each flag must give its own formula: erf for "none", the tanh expression for '
            '"tanh".'
        ),
        title_zh="用了 x * sigmoid(1.702 x)：题目并没有要求这第三种形式",
        explanation_zh=(
            "你算的是 x * sigmoid(1.702 * x)，这是 GELU 论文里最便宜的一种近似。它与精确形式最多"
            '相差约 0.02，也不是 "tanh" 近似。每个参数值必须对应它自己的公式："none" 用 erf，'
            '"tanh" 用 tanh 表达式。'
        ),
        build=SigmoidApproximation,
    ),
    KnownMistake(
        name="flag_ignored_tanh",
        title='approximate ignored: always the "tanh" form',
        explanation=(
            "Your module computes the tanh approximation whatever approximate says. With "
            'approximate="none" the exact form is asked for: the two differ by up to 4.7e-4 '
            "(near x = -2.7), far above float32 rounding, and a checkpoint trained with one "
            "drifts under the other. Fix: branch on self.approximate."
        ),
        title_zh='忽略了 approximate 参数：总是用 "tanh" 近似',
        explanation_zh=(
            '无论 approximate 取什么值，你的模块都在算 tanh 近似。approximate="none" 要求的是'
            "精确形式：两者最多相差 4.7e-4（x = -2.7 附近），远大于 float32 的舍入误差；用一种形式"
            "训练的权重换成另一种推理时，结果会漂移。改法：根据 self.approximate 分支。"
        ),
        build=FlagIgnoredTanh,
    ),
    KnownMistake(
        name="flag_ignored_exact",
        title="approximate ignored: always the exact form",
        explanation=(
            "Your module computes the exact erf form whatever approximate says. A model trained "
            'with approximate="tanh" (GPT-2, for one) expects the tanh form: the two differ by '
            "up to 4.7e-4. Fix: branch on self.approximate."
        ),
        title_zh="忽略了 approximate 参数：总是用精确形式",
        explanation_zh=(
            "无论 approximate 取什么值，你的模块都在算基于 erf 的精确形式。用 "
            'approximate="tanh" 训练的模型（比如 GPT-2）需要的是 tanh 近似：两者最多相差 '
            "4.7e-4。改法：根据 self.approximate 分支。"
        ),
        build=FlagIgnoredExact,
    ),
    KnownMistake(
        name="half_precision_internals",
        title="Computed in bfloat16/float16: the negative tail is lost",
        explanation=(
            "For a bfloat16 or float16 input you computed every step in that dtype. For x "
            "below about -2, 1 + erf(x / sqrt(2)) (or 1 + tanh(...)) is the difference of two "
            "numbers close to 1, and bfloat16 keeps only 8 bits: the result loses most of its "
            "digits (GELU(-3) comes out 45% off, GELU(-4) as 0). PyTorch computes in float32 "
            "and rounds once. Fix: y = formula(x.float()).to(x.dtype)."
        ),
        title_zh="在 bfloat16/float16 中直接计算：负半轴的尾部精度丢失",
        explanation_zh=(
            "输入为 bfloat16 或 float16 时，你的每一步都在该精度下计算。x 小于约 -2 时，"
            "1 + erf(x / sqrt(2))（或 1 + tanh(...)）是两个接近 1 的数相减，而 bfloat16 只有 8 位"
            "有效位：结果几乎丢光了有效数字（GELU(-3) 偏差约 45%，GELU(-4) 直接变成 0）。"
            "PyTorch 在 float32 中计算，最后只舍入一次。改法：y = formula(x.float()).to(x.dtype)。"
        ),
        build=HalfPrecisionInternals,
    ),
)


SPEC = ExerciseSpec(
    slug="gelu",
    class_name="GELU",
    reference=reference,
    make_cases=make_cases,
    mistakes=MISTAKES,
    # What a solution is made of: anything else it runs is refused (api/grading/allowlist.py).
    allowed=ELEMENTARY,
    banned=(
        "torch.nn.functional.gelu",
        "torch.nn.GELU",
        "torch._C._nn.gelu",
        "aten.gelu",
        "aten.gelu_backward",
    ),
)
