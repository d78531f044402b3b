"""Grading spec for ``dropout``: inverted dropout as a module, ``Dropout(p=0.5)``, graded by its
law (``api/grading/laws.py``), with ``F.dropout(x, p, training=self.training)`` as the reference.

Contract: in training, zero each element with probability ``p`` and scale the kept ones by
``1 / (1 - p)``, a fresh mask on every call, drawn however the learner likes (``bernoulli_``,
``rand_like(x) > p``, a draw contiguous on a transposed input); the identity in eval mode;
``p = 0`` the identity in training too, ``p = 1`` zeros (and zero gradients, no NaN); ``p``
outside ``[0, 1]`` raises ``ValueError``. The gradient is the upstream gradient times the same
mask and scale: whatever computes it (autograd, or a hand-written backward) uses the forward's
mask, never a new draw.

Grading: the grader seeds torch's generator before every call, so code that draws as
``nn.Dropout`` does (``torch.empty_like(x).bernoulli_(1 - p)``) matches the reference value by
value (the fast path). Anything else is judged by the law, in the parent: every output element
0 or x / (1 - p), the dropped fraction within 6 sigma of p (binomial, over the elements where x
is not 0), the gradient the upstream one times the forward's mask and scale, two training
calls of one shape never the same mask, the identity in eval and at p = 0, zeros at p = 1.
The known mistakes are named from the replayed stream where the learner draws as nn.Dropout
does, and from what broke the law otherwise (``laws.dropout_law``'s signs).

What a solution legitimately needs (for the per-exercise allow-list): a random draw, arithmetic,
zeros_like / where for p = 1, and self.training. The dropout built-ins (nn.Dropout and its
family, F.dropout, torch.dropout, native_dropout) are banned.
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from api.grading.allowlist import ELEMENTARY
from api.grading.draw import call, described, normal, raises, scenario, seed, update
from api.grading.laws import dropout_law
from api.grading.phrase import (
    FORWARD_ONLY_NO_GRAD,
    TWO_FORWARDS_ONE_BACKWARD,
    constructor_raises,
    default_value,
    modes,
    no_parameters,
    non_contiguous,
    same,
)
from api.grading.spec import Case, ExerciseSpec, InitValue, KnownMistake, Layout, Step

F32, F64 = torch.float32, torch.float64


class Reference(nn.Module):
    def __init__(self, p: float = 0.5) -> None:
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.dropout(x, self.p, self.training)


def make_cases(gen: torch.Generator) -> list[Case]:
    """Thirteen scenarios and two construction cases. The train-train-eval scenario comes first:
    it tells a cached mask and the classic (non-inverted) scaling apart from the rest."""
    cases: list[Case] = []

    def add(
        name: str,
        shape: tuple[int, ...],
        dtype: torch.dtype,
        trains: tuple[bool, ...],
        *,
        p: float | None = 0.5,
        backward: bool = True,
        layout: Layout = "contiguous",
        what: str = "N(0,1)",
        held: bool = False,
    ) -> None:
        init: dict[str, InitValue] = {} if p is None else {"p": p}
        steps: list[Step] = []
        first: torch.Tensor | None = None
        for k, train in enumerate(trains):
            if k and not held:
                steps.append(update(gen, {}, note=no_parameters("Dropout")))
            x = normal(gen, shape, dtype)
            first = x if first is None else first
            # p = 1 in training: zeros, checked forward only (zeros computed from x or made
            # afresh are both right; the gradient of a dropped unit is 0 either way).
            grads = backward and not (train and p == 1.0)
            # held: every call's backward waits for the last one's (two micro-batches).
            defer = held and k < len(trains) - 1
            steps.append(
                call(
                    gen, x, backward=grads, train=train, seed=seed(gen), layout=layout, defer=defer
                )
            )
        assert first is not None
        extra = [default_value("p", "0.5") if p is None else same(f"p={p:g}")]
        if layout != "contiguous":
            extra.append(non_contiguous(layout))
        if not backward:
            extra.append(FORWARD_ONLY_NO_GRAD)
        if held:
            extra.append(TWO_FORWARDS_ONE_BACKWARD)
        extra.append(modes("train" if t else "eval" for t in trains))
        prob = 0.5 if p is None else p
        words = described(first, same(what), *extra)
        cases.append(
            scenario(
                name=name,
                description=words.en,
                description_zh=words.zh,
                steps=steps,
                init_kwargs=init,
                state=None,
                stochastic=any(trains) and 0.0 < prob < 1.0,
            )
        )

    # Two training calls of one module on the same shape: a mask cached on the first call is
    # reused on the second; then eval, where classic dropout scales by (1 - p).
    # The calls' backwards are held for the last call's (two forwards before one backward): a
    # mask kept on the module and replaced by the next forward shows in the earlier gradients.
    add("train_train_eval_3d", (2, 5, 16), F32, (True, True, False), held=True)
    add("p_0.1_f64", (4, 33), F64, (True, False), p=0.1)
    add("p_0.9", (5, 40), F32, (True,), p=0.9)
    add("p_1_zeros", (3, 20), F64, (True, False), p=1.0)
    add("p_0_identity", (3, 20), F32, (True,), p=0.0)
    add("eval_only_wide", (4, 200), F32, (False, False), p=0.5)
    add("strided_4d", (2, 3, 4, 8), F32, (True,), p=0.25, layout="strided")
    add("vector_1d", (300,), F32, (True,), p=0.3)
    add("batch_of_one", (1, 7, 24), F32, (True, False), p=0.2)
    add("default_p_f64", (6, 12), F64, (True,), p=None)
    add("transposed", (6, 9), F32, (True,), p=0.4, layout="transposed")
    add("no_grad_train", (4, 30), F32, (True,), p=0.5, backward=False)
    add("no_grad_eval", (4, 10), F64, (False,), p=0.5, backward=False)
    for p in (1.5, -0.1):
        said = constructor_raises(f"Dropout(p={p:g})", "ValueError")
        cases.append(
            raises(
                "ValueError",
                name=f"p_{p:g}_raises",
                description=said.en,
                description_zh=said.zh,
                init_kwargs={"p": p},
            )
        )
    return cases


# --- Known mistakes: the contract's constructor, one error each. ---


class _Base(nn.Module):
    def __init__(self, p: float = 0.5) -> None:
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p

    def _mask(self, x: torch.Tensor) -> torch.Tensor:
        return torch.empty_like(x).bernoulli_(1 - self.p)

    def _inverted(self, x: torch.Tensor) -> torch.Tensor:
        if not self.training or self.p == 0.0:
            return x
        if self.p == 1.0:
            return x * torch.zeros_like(x)
        return x * self._mask(x) / (1 - self.p)


class NotRescaled(_Base):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not self.training:
            return x
        return x * self._mask(x)


class ClassicDropout(_Base):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not self.training:
            return x * (1 - self.p)
        return x * self._mask(x)


class DropoutInEval(_Base):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.p == 0.0:
            return x
        if self.p == 1.0:
            return x * torch.zeros_like(x)
        return x * self._mask(x) / (1 - self.p)


class KeepProbabilitySwapped(_Base):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not self.training:
            return x
        # p read as the probability of keeping a unit (TensorFlow 1's keep_prob).
        keep = torch.empty_like(x).bernoulli_(self.p)
        return x * keep / self.p if self.p > 0 else x * keep


class NanAtPOne(_Base):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not self.training:
            return x
        return x * self._mask(x) / (1 - self.p)


class MaskCached(_Base):
    def __init__(self, p: float = 0.5) -> None:
        super().__init__(p)
        self.mask: torch.Tensor | None = None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not self.training or self.p == 0.0:
            return x
        if self.p == 1.0:
            return x * torch.zeros_like(x)
        if self.mask is None or self.mask.shape != x.shape:
            self.mask = self._mask(x)  # kept "for backward", and reused by the next call
        return x * self.mask / (1 - self.p)


class NotValidated(nn.Module):
    def __init__(self, p: float = 0.5) -> None:
        super().__init__()
        self.p = p

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.dropout(x, self.p, self.training)


class _RedrawFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, p: float) -> torch.Tensor:
        ctx.p = p
        return x * torch.empty_like(x).bernoulli_(1 - p) / (1 - p)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor, None]:
        # A new mask: the forward's was not kept.
        return grad * torch.empty_like(grad).bernoulli_(1 - ctx.p) / (1 - ctx.p), None


class MaskRedrawnInBackward(_Base):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not self.training or self.p in (0.0, 1.0):
            return self._inverted(x)
        out: torch.Tensor = _RedrawFunction.apply(x, self.p)  # type: ignore[no-untyped-call]
        return out


class _HeldMaskFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, module: Any) -> torch.Tensor:
        ctx.module = module
        out: torch.Tensor = x * module.mask
        return out

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor, None]:
        # The module's mask as it is now: a later forward has replaced it.
        return grad * ctx.module.mask, None


class MaskOverwrittenBeforeBackward(_Base):
    def __init__(self, p: float = 0.5) -> None:
        super().__init__(p)
        self.mask: torch.Tensor | None = None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not self.training or self.p in (0.0, 1.0):
            return self._inverted(x)
        self.mask = self._mask(x) / (1 - self.p)
        out: torch.Tensor = _HeldMaskFunction.apply(x, self)  # type: ignore[no-untyped-call]
        return out


MISTAKES = (
    KnownMistake(
        name="not_rescaled",
        title="Kept units not scaled by 1/(1 - p)",
        explanation=(
            "In training you zeroed units but left the kept ones as they were, so the expected "
            "output is (1 - p) * x in training and x in eval: the next layer sees activations "
            "of a different size in the two modes. Inverted dropout divides the kept units by "
            "1 - p in training so that eval needs nothing."
        ),
        title_zh="保留的单元没有乘以 1/(1 - p)",
        explanation_zh=(
            "训练时你把部分单元置零，却没有放大保留下来的单元，于是训练时输出的期望是 (1 - p) * x，"
            "eval 时是 x：下一层在两种模式下看到的激活尺度不同。inverted dropout 在训练时把保留的"
            "单元除以 1 - p，这样 eval 时什么都不用做。"
        ),
        build=NotRescaled,
    ),
    KnownMistake(
        name="classic_dropout",
        title="Classic dropout: no scaling in training, (1 - p) in eval",
        explanation=(
            "You wrote the original (2014) dropout: mask without scaling in training, and "
            "multiply by 1 - p at test time. Its expectation matches, but the contract is "
            "inverted dropout, what nn.Dropout does: scale by 1/(1 - p) in training and leave "
            "eval as the identity, so that inference costs nothing."
        ),
        title_zh="经典 dropout：训练时不缩放，eval 时乘以 (1 - p)",
        explanation_zh=(
            "你写的是最初（2014 年）的 dropout：训练时只乘掩码不缩放，测试时乘以 1 - p。期望是一致"
            "的，但本题要求的是 inverted dropout，也就是 nn.Dropout 的做法：训练时乘以 1/(1 - p)，"
            "eval 时保持恒等，推理时没有任何额外开销。"
        ),
        build=ClassicDropout,
    ),
    KnownMistake(
        name="dropout_in_eval",
        title="Dropout applied in eval mode too",
        explanation=(
            "Your forward drops units whatever the mode: self.training is never read. In eval "
            "(model.eval(), inference) dropout must be the identity, or every prediction is "
            "random."
        ),
        title_zh="eval 模式下也做了 dropout",
        explanation_zh=(
            "无论处于哪种模式，你的 forward 都会丢弃单元：从来没有读取 self.training。在 eval 模式"
            "（model.eval()、推理）下 dropout 必须是恒等映射，否则每次预测都是随机的。"
        ),
        build=DropoutInEval,
    ),
    KnownMistake(
        name="keep_probability_swapped",
        title="p read as the probability of keeping a unit",
        explanation=(
            "You kept each unit with probability p and scaled by 1/p: p as TensorFlow 1's "
            "keep_prob. In nn.Dropout, and here, p is the probability of *dropping* a unit: "
            "keep with probability 1 - p, bernoulli_(1 - p), and scale by 1/(1 - p)."
        ),
        title_zh="把 p 当成了保留单元的概率",
        explanation_zh=(
            "你以概率 p 保留每个单元并乘以 1/p：把 p 当成了 TensorFlow 1 的 keep_prob。在 "
            "nn.Dropout 和本题中，p 是*丢弃*单元的概率：以 1 - p 的概率保留，bernoulli_(1 - p)，"
            "并乘以 1/(1 - p)。"
        ),
        build=KeepProbabilitySwapped,
    ),
    KnownMistake(
        name="nan_at_p_one",
        title="p = 1 divides by zero",
        explanation=(
            "With p = 1 every unit is dropped and 1 - p = 0: x * 0 / 0 is NaN. The contract, "
            "like nn.Dropout, returns zeros for p = 1 (and a zero gradient): special-case it "
            "before dividing."
        ),
        title_zh="p = 1 时除以零",
        explanation_zh=(
            "p = 1 时所有单元都被丢弃，1 - p = 0：x * 0 / 0 是 NaN。本题与 nn.Dropout 一样，"
            "p = 1 时返回全零（梯度也为零）：在做除法之前单独处理这种情况。"
        ),
        build=NanAtPOne,
    ),
    KnownMistake(
        name="mask_cached_across_calls",
        title="The mask drawn once and reused on later calls",
        explanation=(
            "You kept the mask on the module (self.mask) and drew it only when there was none "
            "of that shape, so every later training call drops the same units. Dropout draws "
            "a fresh mask on every call; the mask backward needs is kept by autograd (or by "
            "ctx.save_for_backward in a hand-written Function), never on the module."
        ),
        title_zh="掩码只抽一次，之后的调用一直复用",
        explanation_zh=(
            "你把掩码存在模块上（self.mask），只有还没有同形状的掩码时才重新抽取，于是之后每次训练"
            "调用都丢弃同样的单元。dropout 每次调用都要抽取新的掩码；backward 需要的掩码由 autograd"
            "保存（手写 Function 时用 ctx.save_for_backward），而不是存在模块上。"
        ),
        build=MaskCached,
    ),
    KnownMistake(
        name="p_not_validated",
        title="p outside [0, 1] accepted",
        explanation=(
            "Your constructor accepts any p. A probability outside [0, 1] is a bug in the "
            "caller (a percentage passed as 10, a sign error); nn.Dropout raises ValueError "
            "for it, and so must this module, at construction."
        ),
        title_zh="接受了 [0, 1] 之外的 p",
        explanation_zh=(
            "你的构造函数接受任意 p。[0, 1] 之外的概率是调用方的 bug（把百分比写成 10、符号写错）；"
            "nn.Dropout 会为此抛出 ValueError，本模块也必须在构造时抛出。"
        ),
        build=NotValidated,
    ),
    KnownMistake(
        name="mask_redrawn_in_backward",
        title="A new mask drawn in backward",
        explanation=(
            "Your hand-written backward draws a mask of its own instead of using the forward's, "
            "so the gradient flows through units the forward dropped and misses units it kept. "
            "Save the mask (ctx.save_for_backward(mask)) in forward and multiply the upstream "
            "gradient by it and 1/(1 - p), or let autograd differentiate x * mask / (1 - p)."
        ),
        title_zh="backward 里重新抽了一个掩码",
        explanation_zh=(
            "你手写的 backward 自己抽了一个新掩码，而不是用 forward 的那个，于是梯度流过了 forward "
            "丢弃的单元，却漏掉了它保留的单元。应在 forward 里保存掩码"
            "（ctx.save_for_backward(mask)），"
            "把上游梯度乘以它和 1/(1 - p)，或者干脆让 autograd 对 x * mask / (1 - p) 求导。"
        ),
        build=MaskRedrawnInBackward,
    ),
    KnownMistake(
        name="mask_overwritten_before_backward",
        title="The backward reads the mask the module holds now, not its own call's",
        explanation=(
            "Your hand-written backward reads the mask from the module (self.mask), which the "
            "next forward replaces. Called twice before one backward (two micro-batches, a "
            "module used twice, gradient checkpointing), the first call's gradient goes "
            "through the second call's mask. Keep each call's mask with its own graph: "
            "ctx.save_for_backward(mask), or let autograd differentiate x * mask / (1 - p)."
        ),
        title_zh="backward 读的是模块当前的掩码，而不是本次调用的掩码",
        explanation_zh=(
            "你手写的 backward 从模块上读取掩码（self.mask），而下一次 forward 会把它换掉。"
            "如果在一次 backward 之前调用了两次（两个 micro-batch、同一模块用了两次、梯度检查点），"
            "第一次调用的梯度就会经过第二次调用的掩码。应当让每次调用的掩码跟着它自己的计算图："
            "用 ctx.save_for_backward(mask) 保存，或者直接让 autograd 对 x * mask / (1 - p) 求导。"
        ),
        build=MaskOverwrittenBeforeBackward,
    ),
)


SPEC = ExerciseSpec(
    slug="dropout",
    class_name="Dropout",
    reference=Reference,
    make_cases=make_cases,
    mistakes=MISTAKES,
    # Any correct draw passes: a case the replayed stream does not match is judged by the law.
    law=dropout_law(lambda case: float(case.init_kwargs.get("p", 0.5))),
    # What a solution is made of: anything else it runs is refused (api/grading/allowlist.py).
    allowed=ELEMENTARY,
    banned=(
        "torch.nn.functional.dropout",
        "torch.nn.functional.dropout1d",
        "torch.nn.functional.dropout2d",
        "torch.nn.functional.dropout3d",
        "torch.nn.functional.alpha_dropout",
        "torch.nn.functional.feature_alpha_dropout",
        "torch.dropout",
        "torch.alpha_dropout",
        "torch.feature_dropout",
        "torch.native_dropout",
        "torch.nn.Dropout",
        "torch.nn.Dropout1d",
        "torch.nn.Dropout2d",
        "torch.nn.Dropout3d",
        "torch.nn.AlphaDropout",
        "torch.nn.FeatureAlphaDropout",
        "aten.dropout",
        "aten.native_dropout",
        "aten.native_dropout_backward",
        "aten.feature_dropout",
        "aten.alpha_dropout",
    ),
)
