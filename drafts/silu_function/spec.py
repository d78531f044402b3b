"""Draft spec for ``silu_function``: a custom autograd.Function whose backward is graded.

Contract: ``class SiLUFunction(torch.autograd.Function)`` with static ``forward(ctx, x)``
returning ``x * sigmoid(x)`` (same shape and dtype) and static ``backward(ctx, grad_output)``
returning ``grad_output * s * (1 + x * (1 - s))``; called as ``SiLUFunction.apply(x)``. Behaves
like ``torch.nn.functional.silu`` (output and gradient of ``x``), and beyond the values:

- the output's ``grad_fn`` is this Function's node and its ``backward`` runs exactly once per
  backward pass (the learner's backward is the one used, not autograd's);
- what backward needs is kept with ``ctx.save_for_backward`` (seen by saved-tensor hooks);
- backward computes the derivative itself: no ``torch.autograd.grad`` / ``.backward`` inside.
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F
from _draft import Case, Mistake

SLUG = "silu_function"
KIND = "autograd_function"
CLASS_NAME = "SiLUFunction"
TOPICS = ("activations",)
TITLE = "SiLU with a hand-written backward"
TITLE_ZH = "手写反向传播的 SiLU"
DIFFICULTY = "medium"

# Whatever computes SiLU or its derivative in one call, and autograd itself inside backward.
# torch.sigmoid, torch.exp, torch.tanh stay allowed.
BANNED = (
    "torch.nn.functional.silu",
    "torch.nn.SiLU",
    "torch.ops.aten.silu",
    "torch.ops.aten.silu_backward",
    "torch.autograd.grad",
    "torch.autograd.backward",
    "torch.Tensor.backward",
    "torch.func",
)
BANNED_ATEN = ("silu", "silu_", "silu_backward")
BANNED_NAMES = ("silu",)


class Reference:
    """``F.silu`` behind the same ``apply`` the grader calls on a submission."""

    @staticmethod
    def apply(x: torch.Tensor) -> torch.Tensor:
        return F.silu(x)


reference = Reference


def _randn(gen: torch.Generator, shape: tuple[int, ...], dtype: torch.dtype) -> torch.Tensor:
    return torch.randn(shape, generator=gen, dtype=torch.float64).to(dtype)


def make_cases(gen: torch.Generator) -> list[Case]:
    cases: list[Case] = []

    def add(name: str, description: str, x: torch.Tensor, grad: bool = True) -> None:
        g = _randn(gen, tuple(x.shape), x.dtype) if grad else None
        cases.append(Case(name, description, x, {}, g))

    ndim = int(torch.randint(1, 5, (1,), generator=gen))
    shape = tuple(int(d) for d in torch.randint(1, 9, (ndim,), generator=gen))
    add("standard_normal", f"randn{shape}, float32", _randn(gen, shape, torch.float32))
    # The whole curve, including the minimum near x = -1.28 and the derivative's peak of
    # 1.1 near x = 2.4.
    grid = torch.linspace(-10.0, 10.0, 401, dtype=torch.float64)
    grid = grid + 0.01 * torch.rand(401, generator=gen, dtype=torch.float64)
    add("curve_float64", "401 points on [-10, 10], float64", grid)
    add("curve", "401 points on [-10, 10], float32", grid.float())
    # Large |x|: exp(x) overflows above 88.7 in float32; sigmoid must not.
    add("large", "randn(8, 6) * 100, float32", _randn(gen, (8, 6), torch.float32) * 100)
    add("huge", "randn(5, 4) * 1e4, float64", _randn(gen, (5, 4), torch.float64) * 1e4)
    add(
        "tiny",
        "randn(3, 7) * 1e-3, float64 (SiLU(x) ~ x / 2)",
        _randn(gen, (3, 7), torch.float64) * 1e-3,
    )
    add(
        "transposed",
        "randn(11, 3).t(), non-contiguous, float32",
        _randn(gen, (11, 3), torch.float32).t(),
    )
    add("bfloat16", "randn(6, 32) * 3, bfloat16", _randn(gen, (6, 32), torch.bfloat16) * 3)
    add("float16", "randn(4, 16) * 3, float16", _randn(gen, (4, 16), torch.float16) * 3)
    add(
        "no_grad",
        "randn(3, 5), float32, forward only",
        _randn(gen, (3, 5), torch.float32),
        grad=False,
    )
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


class SavedOnCtxAttribute(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
        ctx.x = x  # not ctx.save_for_backward(x)
        xf = _wide(x)
        return (xf * torch.sigmoid(xf)).to(x.dtype)

    @staticmethod
    def backward(ctx: Any, grad_output: torch.Tensor) -> torch.Tensor:
        x = ctx.x
        xf = _wide(x)
        s = torch.sigmoid(xf)
        return (_wide(grad_output) * s * (1 + xf * (1 - s))).to(x.dtype)


class BackwardBypassed(torch.autograd.Function):
    """``apply`` overridden with plain tensor ops: autograd differentiates those, and the
    hand-written backward (wrong here, and never run) goes unseen by a values-only check."""

    @staticmethod
    def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x)
        return x * torch.sigmoid(x)

    @staticmethod
    def backward(ctx: Any, grad_output: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        return grad_output * torch.sigmoid(x)

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        x = args[0]
        xf = _wide(x)
        return (xf * torch.sigmoid(xf)).to(x.dtype)


# Mistakes whose values are right (gradcheck cannot see them; the structural checks do), and
# one that is right below exp's overflow, where gradcheck looks.
GRADCHECK_BLIND = ("saved_on_ctx_attribute", "backward_bypassed", "unstable_sigmoid")

MISTAKES = (
    Mistake(
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
    Mistake(
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
    Mistake(
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
    Mistake(
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
    Mistake(
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
    Mistake(
        name="saved_on_ctx_attribute",
        title="x kept as ctx.x instead of ctx.save_for_backward(x)",
        explanation=(
            "Your forward stores x as an attribute of ctx. The gradients come out right, but "
            "autograd does not know about the tensor: it cannot check that x was not modified "
            "in place before backward (you would silently get a wrong gradient), saved-tensor "
            "hooks (activation offloading, checkpointing) never see it, and the reference "
            "cycle it creates can keep it alive after the graph is freed. Fix: "
            "ctx.save_for_backward(x) in forward, (x,) = ctx.saved_tensors in backward."
        ),
        title_zh="把 x 存成了 ctx.x，而不是用 ctx.save_for_backward(x)",
        explanation_zh=(
            "你的 forward 把 x 存成 ctx 的一个属性。梯度数值是对的，但 autograd 并不知道这个张量："
            "它无法检查 x 在反向传播前是否被原地修改（那样你会悄无声息地得到错误的梯度），"
            "saved-tensor hooks（激活卸载、重计算）看不到它，而且由此产生的引用环可能让它在计算图"
            "释放后仍然占着内存。改法：forward 中用 ctx.save_for_backward(x)，backward 中用 "
            "(x,) = ctx.saved_tensors 取回。"
        ),
        build=SavedOnCtxAttribute,
    ),
    Mistake(
        name="backward_bypassed",
        title="The hand-written backward is never run",
        explanation=(
            "The output of SiLUFunction.apply(x) was not produced by your Function (apply "
            "was overridden, or the work was done outside forward), so autograd differentiated "
            "plain tensor ops and your backward never ran. The exercise grades the backward you "
            "wrote: the output's grad_fn must be SiLUFunction's node. Fix: do the work in "
            "forward and let the inherited apply call it."
        ),
        title_zh="手写的 backward 从未被执行",
        explanation_zh=(
            "SiLUFunction.apply(x) 的输出不是由你的 Function 产生的（apply 被重写了，或计算是在 "
            "forward 之外完成的），于是 autograd 对普通张量运算求导，你写的 backward 一次也没有"
            "运行。本题评测的正是你手写的 backward：输出的 grad_fn 必须是 SiLUFunction 的节点。"
            "改法：在 forward 中完成计算，使用继承来的 apply。"
        ),
        build=BackwardBypassed,
    ),
)
