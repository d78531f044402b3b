"""Grading spec for ``checkpointed_ffn``: the FFN ``linear2(gelu(linear1(x)))`` (exact GELU)
whose activations are recomputed in backward instead of stored, graded on outputs and
gradients against the plain module **and on memory**: the bytes the forward keeps for backward
(measured in the child, one count per storage, the module's parameters excluded, tensors left
on a custom Function's ctx included) must stay within twice the input's bytes plus a constant
allowance for state whose size does not depend on the input (the CPU generator's state, 5056
bytes, that a checkpoint with preserve_rng_state keeps). Keeping the hidden activations costs
``2 * N * hidden`` elements more, over that budget in every case (sized for it); keeping the
input and recomputing stays under it.

What the measurement cannot see, and the prompt says so: tensors hidden in module attributes
or closures (caching is wrong on its own: the module is called again after parameter updates).

What a solution legitimately needs (for the per-exercise allow-list): a torch.autograd.Function
(save_for_backward, no_grad/enable_grad, torch.autograd.grad or backward inside backward),
F.linear / matmul, F.gelu. torch.utils.checkpoint and the saved-tensor hook machinery are
banned.
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from api.grading.allowlist import ELEMENTARY
from api.grading.draw import call, described, ffn_parameters, normal, scenario, update
from api.grading.phrase import (
    FORWARD_ONLY_NO_GRAD,
    RANDOM_WEIGHT_BIAS,
    TRAIN_UPDATE_EVAL,
    Phrase,
    non_contiguous,
    same,
)
from api.grading.phrase import modes as called_in
from api.grading.spec import Call, Case, ExerciseSpec, KnownMistake, Layout, Step

F32, F64 = torch.float32, torch.float64


class Reference(nn.Module):
    """The plain FFN: the same function, its memory not graded (only the learner's is)."""

    def __init__(self, dim: int, hidden_dim: int) -> None:
        super().__init__()
        self.linear1 = nn.Linear(dim, hidden_dim)
        self.linear2 = nn.Linear(hidden_dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.linear2(F.gelu(self.linear1(x)))
        return out


# State of a constant size, whatever the input: the CPU generator's state (5056 bytes), which
# PyTorch's reentrant checkpoint keeps on its ctx with preserve_rng_state=True (the default) so
# that a dropout inside draws the same mask when recomputed. The budget is about activations:
# this much is allowed on top, and every case is sized so that keeping one hidden activation
# beside the input (N * hidden elements, hidden > dim) exceeds the budget with it by at least
# a tenth (``tests/grading/test_laws.py``); at hidden = dim only both activations do.
CONSTANT_STATE_BYTES = int(torch.get_rng_state().numel())


def budget(case: Case, step: Call) -> int:
    """Twice the input's bytes, the input (or a copy of it) being what recomputation starts
    from, plus ``CONSTANT_STATE_BYTES`` for state whose size does not depend on the input."""
    x = step.inputs[0]
    return 2 * x.numel() * x.element_size() + CONSTANT_STATE_BYTES


def make_cases(gen: torch.Generator) -> list[Case]:
    """Twelve scenarios; every call but the no-grad ones runs backward and is measured."""
    cases: list[Case] = []

    def add(
        name: str,
        shape: tuple[int, ...],
        hidden: int,
        dtype: torch.dtype,
        *,
        modes: tuple[bool, ...] = (True,),
        backward: bool = True,
        layout: Layout = "contiguous",
        std: float = 1.0,
    ) -> None:
        dim = shape[-1]
        params = ffn_parameters(gen, dim, hidden, dtype)
        steps: list[Step] = []
        for k, train in enumerate(modes):
            if k:
                steps.append(update(gen, params))
            x = normal(gen, shape, dtype, std=std)
            steps.append(call(gen, x, backward=backward, train=train, layout=layout))
        first = next(s for s in steps if isinstance(s, Call)).inputs[0]
        what = "N(0,1)" if std == 1.0 else f"{std:g} * N(0,1)"
        extra = [Phrase(f"hidden width {hidden}", f"隐藏层宽度 {hidden}"), RANDOM_WEIGHT_BIAS]
        if layout != "contiguous":
            extra.append(non_contiguous(layout))
        if not backward:
            extra.append(FORWARD_ONLY_NO_GRAD)
        extra.append(
            TRAIN_UPDATE_EVAL
            if modes == (True, False)
            else called_in("train" if t else "eval" for t in modes)
        )
        words = described(first, same(what), *extra)
        cases.append(
            scenario(
                name=name,
                description=words.en,
                description_zh=words.zh,
                steps=steps,
                init_kwargs={"dim": dim, "hidden_dim": hidden},
                state=params,
            )
        )

    add("rows_2d", (8, 64), 256, F32)
    add("sequence_3d_f64", (2, 5, 32), 128, F64)
    add("train_update_eval", (16, 32), 128, F32, modes=(True, False))
    add("strided_4d", (2, 2, 6, 16), 96, F32, layout="strided")
    add("vector_1d", (40,), 800, F64)
    add("batch_of_one", (1, 16, 40), 160, F32)
    add("wide_144", (8, 144), 400, F32)
    add("transposed", (24, 24), 96, F32, layout="transposed")
    add("large_inputs", (16, 20), 80, F64, std=3.0)
    add("hidden_equals_dim", (40, 24), 24, F64)
    add("forward_no_grad", (4, 32), 128, F32, backward=False)
    add("eval_f64", (16, 16), 64, F64, modes=(False,))
    return cases


# --- Known mistakes: recomputation written, one error in its backward. Keeping the
# activations is the grader's own ``saved_bytes_over_budget``; parameters without gradients
# fail on the missing gradients themselves (the verdict names the parameter).

Grads = tuple[torch.Tensor | None, ...]


def _ffn(x: torch.Tensor, *params: torch.Tensor) -> torch.Tensor:
    w1, b1, w2, b2 = params
    return F.linear(F.gelu(F.linear(x, w1, b1)), w2, b2)


class _Recomputed(torch.autograd.Function):
    upstream_ignored = False

    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, *params: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x, *params)
        return _ffn(x, *params)

    @classmethod
    def _backward(cls, ctx: Any, grad: torch.Tensor) -> Grads:
        x, *params = ctx.saved_tensors
        with torch.enable_grad():
            leaves = [t.detach().requires_grad_(True) for t in (x, *params)]
            out = _ffn(leaves[0], *leaves[1:])
            upstream = torch.ones_like(out) if cls.upstream_ignored else grad
            grads = torch.autograd.grad(out, leaves, upstream)
        return tuple(grads)


class _UpstreamIgnored(_Recomputed):
    upstream_ignored = True

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> Grads:
        return _UpstreamIgnored._backward(ctx, grad)


def _module(function: type[torch.autograd.Function]) -> type[nn.Module]:
    class Checkpointed(Reference):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            a, b = self.linear1, self.linear2
            out: torch.Tensor = function.apply(x, a.weight, a.bias, b.weight, b.bias)  # type: ignore[no-untyped-call]
            return out

    return Checkpointed


MISTAKES = (
    KnownMistake(
        name="upstream_gradient_ignored",
        title="The recomputed output backpropagated from ones, not from grad_output",
        explanation=(
            "Your backward recomputes the FFN and differentiates it with out.sum() (or "
            "torch.ones_like(out)) as the upstream gradient. A Function's backward receives "
            "dL/d(output) as its argument: pass it on, torch.autograd.grad(out, inputs, "
            "grad_output), so the chain rule reaches the layers before this one."
        ),
        title_zh="重算的输出从全 1 开始反向传播，而不是从 grad_output",
        explanation_zh=(
            "你的 backward 重新计算了 FFN，却用 out.sum()（或 torch.ones_like(out)）作为上游梯度"
            "求导。Function 的 backward 的参数就是 dL/d(output)：要把它传下去，"
            "torch.autograd.grad(out, inputs, grad_output)，链式法则才能到达前面的层。"
        ),
        build=_module(_UpstreamIgnored),
    ),
)


SPEC = ExerciseSpec(
    slug="checkpointed_ffn",
    class_name="CheckpointedFFN",
    reference=Reference,
    make_cases=make_cases,
    mistakes=MISTAKES,
    # Three matmul-sized reductions, and the backward through a second forward.
    tolerance_scale=2.0,
    saved_bytes_budget=budget,
    # What a solution is made of, with the FFN's activations (its contract composes them):
    # anything else it runs is refused (api/grading/allowlist.py).
    allowed=(*ELEMENTARY, "activations"),
    banned=(
        "torch.utils.checkpoint.checkpoint",
        "torch.utils.checkpoint.checkpoint_sequential",
        "torch.utils.checkpoint.CheckpointFunction",
        "torch.autograd.graph.saved_tensors_hooks",
        "torch.autograd.graph.save_on_cpu",
        "torch.autograd.graph.disable_saved_tensors_hooks",
    ),
)
