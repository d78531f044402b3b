"""Grading spec for ``silu_function``: SiLU as a ``torch.autograd.Function`` whose
hand-written backward is what gets graded, against ``torch.nn.functional.silu``.

Contract: static ``forward(ctx, x)`` returning ``x * sigmoid(x)`` (same shape and dtype) and
static ``backward(ctx, grad_output)`` returning ``grad_output * s * (1 + x * (1 - s))``; called
as ``SiLUFunction.apply(x)``. The grader checks that the output's ``grad_fn`` is this
Function's node (``backward_not_used`` otherwise), so a right forward with a wrong backward
fails; the contract asks for ``ctx.save_for_backward`` (``saved_on_ctx_attribute`` otherwise).
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F

from api.grading import draw
from api.grading.allowlist import ELEMENTARY
from api.grading.phrase import AGAIN_ON_A_NEW_INPUT, Phrase, more_calls, points_on, same
from api.grading.spec import Case, ExerciseSpec, KnownMistake, Layout, Step


class Reference:
    """``F.silu`` behind the same ``apply`` the grader calls on a submission."""

    @staticmethod
    def apply(x: torch.Tensor) -> torch.Tensor:
        return F.silu(x)


def make_cases(gen: torch.Generator) -> list[Case]:
    """Ten scenarios, drawn fresh from ``gen``."""
    cases: list[Case] = []

    def add(
        name: str,
        what: Phrase | str,
        x: torch.Tensor,
        *,
        backward: bool = True,
        layout: Layout = "contiguous",
    ) -> None:
        # A formula reads the same in both languages.
        words = draw.described(x, what if isinstance(what, Phrase) else same(what))
        cases.append(
            draw.scenario(
                name=name,
                description=words.en,
                description_zh=words.zh,
                steps=[draw.call(gen, x, backward=backward, layout=layout)],
                init_kwargs={},
                state=None,
            )
        )

    # Called again and again on new shapes (nothing may be cached across calls): every rank,
    # a leading dim of 1, feature sizes past 128 that are no power of two. A Function has no
    # module: no train mode, no parameters to update.
    xs = [
        draw.normal(gen, (1, 2, 3, 200), torch.float32) * 3,
        draw.normal(gen, (300,), torch.float32) * 3,
        draw.normal(gen, (5, 131), torch.float32) * 3,
        draw.normal(gen, (2, 3, 17), torch.float32) * 3,
    ]
    steps: list[Step] = [draw.call(gen, xs[0])]
    steps += [draw.call(gen, x, note=AGAIN_ON_A_NEW_INPUT) for x in xs[1:]]
    words = draw.described(xs[0], same("N(0,1) * 3"), more_calls(3))
    cases.append(
        draw.scenario(
            name="called_again",
            description=words.en,
            description_zh=words.zh,
            steps=steps,
            init_kwargs={},
            state=None,
        )
    )
    add("standard_normal", "N(0,1)", draw.normal(gen, (2, 5, 9), torch.float32))
    # The whole curve: the minimum near x = -1.28, the derivative's peak of 1.1 near x = 2.4.
    grid = torch.linspace(-10.0, 10.0, 401) + 0.01 * torch.rand(401, generator=gen)
    add("curve", points_on(401, -10, 10), grid)
    add("curve_float64", points_on(401, -10, 10), grid.double())
    # Large |x|: exp(x) overflows above 88.7 in float32 (709 in float64); sigmoid must not.
    add("large", "N(0,1) * 100", draw.normal(gen, (8, 6), torch.float32) * 100)
    add("huge_float64", "N(0,1) * 1e4", draw.normal(gen, (5, 4), torch.float64) * 1e4)
    add("tiny", "N(0,1) * 1e-3", draw.normal(gen, (3, 7), torch.float64) * 1e-3)
    add(
        "transposed",
        Phrase("N(0,1), a transposed view", "N(0,1)，转置后的视图"),
        draw.normal(gen, (3, 11), torch.float32),
        layout="transposed",
    )
    add("bfloat16", "N(0,1) * 3", draw.normal(gen, (6, 32), torch.bfloat16) * 3)
    # Forward only, under no_grad, where an in-place change of x is looked for.
    add("forward_only", "N(0,1)", draw.normal(gen, (3, 5), torch.float32), backward=False)
    return cases


# ---- Known mistakes: a right forward (mostly) and one wrong thing each. ----


def _wide(t: torch.Tensor) -> torch.Tensor:
    return t.float() if t.dtype in (torch.float16, torch.bfloat16) else t


class _SiLU(torch.autograd.Function):
    """Right forward, saving x; subclasses override ``local`` (the derivative) or more."""

    @staticmethod
    def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x)
        xf = _wide(x)
        return (xf * torch.sigmoid(xf)).to(x.dtype)

    @staticmethod
    def local(x: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
        return s * (1 + x * (1 - s))

    @classmethod
    def grad(cls, ctx: Any, grad_output: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        xf = _wide(x)
        return (_wide(grad_output) * cls.local(xf, torch.sigmoid(xf))).to(x.dtype)


class DerivativeSigmoidOnly(_SiLU):
    @staticmethod
    def local(x: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
        return s

    @staticmethod
    def backward(ctx: Any, grad_output: torch.Tensor) -> torch.Tensor:
        return DerivativeSigmoidOnly.grad(ctx, grad_output)


class DerivativeOfSigmoid(_SiLU):
    @staticmethod
    def local(x: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
        return s * (1 - s)

    @staticmethod
    def backward(ctx: Any, grad_output: torch.Tensor) -> torch.Tensor:
        return DerivativeOfSigmoid.grad(ctx, grad_output)


class DerivativeMissingSigmoidFactor(_SiLU):
    @staticmethod
    def local(x: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
        return s + x * (1 - s)

    @staticmethod
    def backward(ctx: Any, grad_output: torch.Tensor) -> torch.Tensor:
        return DerivativeMissingSigmoidFactor.grad(ctx, grad_output)


class GradOutputIgnored(_SiLU):
    @staticmethod
    def backward(ctx: Any, grad_output: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        xf = _wide(x)
        s = torch.sigmoid(xf)
        return (s * (1 + xf * (1 - s))).to(x.dtype)


def _unstable_sigmoid(x: torch.Tensor) -> torch.Tensor:
    e = torch.exp(x)
    return e / (1 + e)


class UnstableSigmoid(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x)
        xf = _wide(x)
        return (xf * _unstable_sigmoid(xf)).to(x.dtype)

    @staticmethod
    def backward(ctx: Any, grad_output: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        xf = _wide(x)
        s = _unstable_sigmoid(xf)
        return (_wide(grad_output) * s * (1 + xf * (1 - s))).to(x.dtype)


MISTAKES = (
    KnownMistake(
        name="derivative_sigmoid_only",
        title="Backward returns grad_output * sigmoid(x): the product rule's second term is lost",
        explanation=(
            "Your backward multiplies grad_output by sigmoid(x), as if SiLU were x times a "
            "constant. SiLU is x * s(x), a product of two functions of x: its derivative is "
            "s + x * s'(x) = s + x * s * (1 - s). The forward matches, so only the gradients "
            "show it (off by up to 0.22 near |x| = 1.5). Fix: grad_output * s * (1 + x * (1 - s))."
        ),
        title_zh="反向传播返回 grad_output * sigmoid(x)：漏掉了乘积法则的第二项",
        explanation_zh=(
            "你的 backward 用 grad_output 乘以 sigmoid(x)，就好像 SiLU 是 x 乘一个常数。SiLU 是 "
            "x * s(x)，两个关于 x 的函数相乘，导数为 s + x * s'(x) = s + x * s * (1 - s)。前向"
            "结果是对的，所以只有梯度能暴露这个错误（在 |x| = 1.5 附近最多差 0.22）。改法："
            "grad_output * s * (1 + x * (1 - s))。"
        ),
        build=DerivativeSigmoidOnly,
    ),
    KnownMistake(
        name="derivative_of_sigmoid",
        title="Backward uses sigmoid's derivative s * (1 - s) instead of SiLU's",
        explanation=(
            "Your backward returns grad_output * s * (1 - s), the derivative of sigmoid alone, "
            "not of x * sigmoid(x). For large x it goes to 0 while SiLU's slope goes to 1, so "
            "positive activations would stop learning. Fix: s * (1 + x * (1 - s))."
        ),
        title_zh="反向传播用了 sigmoid 的导数 s * (1 - s)，而不是 SiLU 的导数",
        explanation_zh=(
            "你的 backward 返回 grad_output * s * (1 - s)，这是 sigmoid 本身的导数，而不是 "
            "x * sigmoid(x) 的导数。x 很大时它趋于 0，而 SiLU 的斜率趋于 1，于是正的激活将不再"
            "学习。改法：s * (1 + x * (1 - s))。"
        ),
        build=DerivativeOfSigmoid,
    ),
    KnownMistake(
        name="derivative_missing_sigmoid_factor",
        title="Backward uses s + x * (1 - s): a factor s dropped from the second term",
        explanation=(
            "Your backward computes s + x * (1 - s). The second term of the product rule is "
            "x * sigmoid'(x) = x * s * (1 - s): the factor s was lost, so for negative x the "
            "gradient is far off (at x = -5 you give -5.0 instead of -0.027). Fix: "
            "s + x * s * (1 - s), i.e. s * (1 + x * (1 - s))."
        ),
        title_zh="反向传播算成了 s + x * (1 - s)：第二项漏了一个因子 s",
        explanation_zh=(
            "你的 backward 计算的是 s + x * (1 - s)。乘积法则的第二项是 x * sigmoid'(x) = "
            "x * s * (1 - s)：漏掉了因子 s，所以 x 为负时梯度偏差很大（x = -5 时你给出 -5.0，"
            "正确值约为 -0.027）。改法：s + x * s * (1 - s)，即 s * (1 + x * (1 - s))。"
        ),
        build=DerivativeMissingSigmoidFactor,
    ),
    KnownMistake(
        name="grad_output_ignored",
        title="Backward returns the local derivative, not times grad_output",
        explanation=(
            "Your backward returns dSiLU/dx alone. backward receives the gradient of the loss "
            "with respect to the output and must return the gradient with respect to the "
            "input: by the chain rule, grad_output * dSiLU/dx. Without the product, every "
            "layer below sees the same gradient whatever the loss. Fix: multiply by "
            "grad_output."
        ),
        title_zh="反向传播只返回了局部导数，没有乘以 grad_output",
        explanation_zh=(
            "你的 backward 只返回了 dSiLU/dx。backward 接收的是损失对输出的梯度，要返回的是损失"
            "对输入的梯度：按链式法则，等于 grad_output * dSiLU/dx。少了这个乘法，无论损失是什么，"
            "下面的层看到的梯度都一样。改法：乘上 grad_output。"
        ),
        build=GradOutputIgnored,
    ),
    KnownMistake(
        name="unstable_sigmoid",
        title="sigmoid as exp(x) / (1 + exp(x)): NaN for large x",
        explanation=(
            "You computed sigmoid(x) as exp(x) / (1 + exp(x)). exp overflows above 88.7 in "
            "float32 (709 in float64), giving inf / inf = NaN for large positive x, in the "
            "forward and the backward alike. torch.sigmoid (or 1 / (1 + exp(-x)), which "
            "tends to 1 / inf = 0 for large negative x, not NaN) is stable. Fix: torch.sigmoid."
        ),
        title_zh="用 exp(x) / (1 + exp(x)) 计算 sigmoid：x 很大时得到 NaN",
        explanation_zh=(
            "你把 sigmoid(x) 写成了 exp(x) / (1 + exp(x))。float32 中 exp 的输入超过 88.7（"
            "float64 中超过 709）就会溢出，x 为很大的正数时得到 inf / inf = NaN，前向和反向都"
            "一样。torch.sigmoid（或 1 / (1 + exp(-x))，x 为很大的负数时趋于 1 / inf = 0，而不是 "
            "NaN）是数值稳定的。改法：用 torch.sigmoid。"
        ),
        build=UnstableSigmoid,
    ),
)


SPEC = ExerciseSpec(
    slug="silu_function",
    class_name="SiLUFunction",
    reference=Reference,
    make_cases=make_cases,
    mistakes=MISTAKES,
    # What a solution is made of: anything else it runs is refused (api/grading/allowlist.py).
    allowed=ELEMENTARY,
    banned=(
        "torch.nn.functional.silu",
        "torch.nn.SiLU",
        "aten.silu",
        "aten.silu_backward",
        # A hand-written backward computes the derivative itself. (The grader's own backward
        # call goes to the engine directly, so banning torch.autograd.backward is safe.)
        "torch.autograd.grad",
        "torch.autograd.backward",
        "torch.Tensor.backward",
        # Grad mode is off inside backward; switching it on is how autograd would be made to
        # do the backward's work (caught in the source).
        "torch.enable_grad",
        "torch.set_grad_enabled",
    ),
    kind="autograd_function",
    save_for_backward=True,
)
