"""Grading spec for ``adamw_step``: an optimiser class ``AdamW(params, lr=1e-3,
betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2)`` with ``step()`` and ``zero_grad()``, graded
over many steps against ``torch.optim.AdamW`` (its default single-tensor path, amsgrad off).

Per parameter with a gradient, at its own step count ``t`` (1 on its first update):
``p *= 1 - lr * wd`` (decoupled decay, before the moments), ``m = b1 m + (1 - b1) g``,
``v = b2 v + (1 - b2) g^2``, ``p -= lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps)``.
A parameter whose ``.grad`` is None is skipped: no decay, no moment update, its count not
advanced. ``params`` is an iterable of tensors (read once) or of parameter groups (dicts with
``params`` and their own ``lr``, ``weight_decay``, ``betas``, ``eps``; missing ones take the
constructor's). ``zero_grad()`` sets every gradient to None (torch's default), or zeros.

The optimiser updates its parameters in place, which is the contract: each case hands the
learner's class parameters built from its tensors at the first call and calls ``step`` (or
``zero_grad``) on it again and again, after the grader writes fresh gradients; every
parameter's values and ``.grad`` are compared after every call (``spec.Parameters``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import torch

from api.grading.draw import described, normal, randint
from api.grading.phrase import Phrase, non_contiguous, same
from api.grading.spec import (
    Call,
    Case,
    ExerciseSpec,
    HandedAs,
    InitValue,
    KnownMistake,
    Layout,
    Parameters,
    ParamGroup,
)

F32, F64 = torch.float32, torch.float64


@dataclass(frozen=True)
class _Errors:
    """Which known mistake a ``_Reference`` makes (all False: the contract)."""

    l2: bool = False  # wd * p added to the gradient (Adam), no decoupled decay
    no_bias_correction: bool = False
    step_ahead: bool = False  # the bias correction one step ahead (t + 1)
    eps_inside: bool = False  # sqrt(v_hat + eps)
    decay_lr: str = "lr"  # "lr": p *= 1 - lr*wd; "none": 1 - wd; "twice": 1 - lr*lr*wd
    ignore_group_lr: bool = False
    ignore_group_wd: bool = False
    amsgrad: bool = False
    global_step: bool = False  # one step count for every parameter
    none_as_zero: bool = False  # a parameter without .grad updated as if its gradient were 0


class _Reference:
    """AdamW as ``torch.optim.AdamW`` computes it on the CPU (single-tensor path), from scratch;
    ``errors`` switches on one known mistake."""

    def __init__(
        self,
        params: Any,
        lr: float = 1e-3,
        betas: Sequence[float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
        *,
        errors: _Errors = _Errors(),
    ) -> None:
        self.errors = errors
        self.defaults: dict[str, Any] = {
            "lr": lr,
            "betas": tuple(betas),
            "eps": eps,
            "weight_decay": weight_decay,
        }
        given = list(params)
        groups = given if given and isinstance(given[0], dict) else [{"params": given}]
        self.param_groups: list[dict[str, Any]] = []
        for g in groups:
            group = {**self.defaults, **g, "params": list(g["params"])}
            group["betas"] = tuple(group["betas"])
            self.param_groups.append(group)
        self.state: dict[torch.Tensor, dict[str, Any]] = {}
        self.steps_taken = 0

    def zero_grad(self, set_to_none: bool = True) -> None:
        for group in self.param_groups:
            for p in group["params"]:
                p.grad = None

    @torch.no_grad()
    def step(self) -> None:
        e = self.errors
        self.steps_taken += 1
        for group in self.param_groups:
            lr = self.defaults["lr"] if e.ignore_group_lr else group["lr"]
            wd = self.defaults["weight_decay"] if e.ignore_group_wd else group["weight_decay"]
            beta1, beta2 = group["betas"]
            eps = group["eps"]
            for p in group["params"]:
                grad = p.grad
                if grad is None:
                    if not e.none_as_zero:
                        continue
                    grad = torch.zeros_like(p)
                state = self.state.setdefault(p, {})
                if not state:
                    state["step"] = 0
                    state["exp_avg"] = torch.zeros_like(p)
                    state["exp_avg_sq"] = torch.zeros_like(p)
                    state["max_exp_avg_sq"] = torch.zeros_like(p)
                state["step"] += 1
                t = self.steps_taken if e.global_step else state["step"]
                if e.step_ahead:
                    t += 1
                if e.l2:
                    grad = grad.add(p, alpha=wd)
                else:
                    scale = {"lr": lr, "none": 1.0, "twice": lr * lr}[e.decay_lr]
                    p.mul_(1 - scale * wd)
                m, v = state["exp_avg"], state["exp_avg_sq"]
                m.lerp_(grad, 1 - beta1)
                v.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                if e.amsgrad:
                    torch.maximum(state["max_exp_avg_sq"], v, out=state["max_exp_avg_sq"])
                    v = state["max_exp_avg_sq"]
                correction1 = 1.0 if e.no_bias_correction else 1 - beta1**t
                correction2 = 1.0 if e.no_bias_correction else 1 - beta2**t
                if e.eps_inside:
                    denom = (v / correction2).add(eps).sqrt()
                else:
                    denom = (v.sqrt() / math.sqrt(correction2)).add_(eps)
                p.addcdiv_(m, denom, value=-lr / correction1)


def AdamW(params: Any, **kwargs: Any) -> _Reference:
    return _Reference(params, **kwargs)


def _with(**errors: Any) -> Any:
    return partial(_Reference, errors=_Errors(**errors))


# --- the cases ----------------------------------------------------------------------------------

# A small Transformer-like model: an embedding, a projection, a norm, an output layer.
NAMES = ("embed.weight", "proj.weight", "norm.weight", "norm.bias", "head.weight", "head.bias")
WEIGHTS = (0, 1, 4)  # matrices: decayed in the usual recipe
NO_DECAY = (2, 3, 5)  # the norm's weight and bias, the biases: no decay


def _model(gen: torch.Generator, dtype: torch.dtype, vocab: int, dim: int) -> list[torch.Tensor]:
    return [
        normal(gen, (vocab, dim), dtype),
        normal(gen, (dim, dim), dtype, std=dim**-0.5),
        1.0 + normal(gen, (dim,), dtype, std=0.1),
        normal(gen, (dim,), dtype, std=0.1),
        normal(gen, (vocab, dim), dtype, std=dim**-0.5),
        normal(gen, (vocab,), dtype, std=0.1),
    ]


def _groups(*groups: tuple[Iterable[int], dict[str, Any]]) -> tuple[ParamGroup, ...]:
    return tuple(
        ParamGroup(tuple(ids), tuple((k, v) for k, v in options.items())) for ids, options in groups
    )


def make_cases(gen: torch.Generator) -> list[Case]:
    """Twelve scenarios of 5 to 14 calls each on a small model's six parameters: the first call
    builds the optimiser and steps, every later call writes fresh gradients and steps (or calls
    zero_grad). What each shows: decoupled decay against L2, the bias correction (missing, or a
    step ahead), eps outside the square root (tiny gradients), the decay's lr, parameter groups
    (no decay on norms and biases; layer-wise learning rates), a parameter without a gradient
    on some steps, gradients that shrink (an amsgrad-like max shows), lr 0, weight decay 0,
    beta1 0, float64."""
    cases: list[Case] = []

    def run(
        name: str,
        what: Phrase,
        dtype: torch.dtype,
        steps: int,
        *extra: Phrase,
        kwargs: dict[str, InitValue] | None = None,
        scale: Sequence[float] | float = 1.0,
        groups: tuple[ParamGroup, ...] = (),
        form: HandedAs = "list",
        frozen: dict[int, tuple[int, ...]] | None = None,
        zero_grad_after: tuple[int, ...] = (),
        layout: Layout = "contiguous",
        vocab: int | None = None,
        dim: int | None = None,
    ) -> None:
        params = _model(
            gen,
            dtype,
            vocab if vocab is not None else randint(gen, 6, 12),
            dim if dim is not None else randint(gen, 8, 24),
        )
        scales = [scale] * steps if isinstance(scale, float | int) else list(scale)
        calls: list[Call] = []
        for k in range(steps):
            grads = tuple(normal(gen, p.shape, dtype, std=float(scales[k])) for p in params)
            how = Parameters(
                names=NAMES,
                form="groups" if groups else form,
                no_grad=(frozen or {}).get(k, ()),
                groups=groups,
            )
            calls.append(Call(tuple(params), grads, layout=layout, parameters=how))
            if k in zero_grad_after:
                calls.append(
                    Call(
                        tuple(params),
                        None,
                        layout=layout,
                        function="zero_grad",
                        parameters=Parameters(names=NAMES, form=how.form, groups=groups),
                    )
                )
        words = [*extra, Phrase(f"{steps} steps", f"{steps} 步")]
        for key, value in (kwargs or {}).items():
            words.append(
                same(f"{key} = {value:g}" if isinstance(value, float) else f"{key} = {value}")
            )
        if layout != "contiguous":
            words.append(non_contiguous(layout))
        said = described(params[0], what, *words)
        cases.append(
            Case(
                name=name,
                description=said.en,
                description_zh=said.zh,
                x=params[0],
                init_kwargs=dict(kwargs or {}),
                steps=tuple(calls),
            )
        )

    weights = Phrase("a small model's weights", "一个小模型的权重")
    # A large lr and decay: decoupled decay against L2, the decay's lr, over twelve steps.
    run(
        "decay_large_12_steps",
        weights,
        F64,
        12,
        kwargs={"lr": 0.05, "weight_decay": 0.1},
    )
    run("defaults_8_steps", weights, F32, 8, zero_grad_after=(3,))
    # The usual recipe: weights decayed, norms and biases not.
    run(
        "no_decay_group",
        weights,
        F64,
        10,
        Phrase(
            "two groups: weights with lr 0.05 and weight_decay 0.1, norm and biases with the "
            "constructor's lr 0.005 and weight_decay 0",
            "两个参数组：权重的 lr 为 0.05、weight_decay 为 0.1，归一化层和偏置用构造函数的 "
            "lr 0.005 和 weight_decay 0",
        ),
        kwargs={"lr": 0.005, "weight_decay": 0.0},
        groups=_groups((WEIGHTS, {"lr": 0.05, "weight_decay": 0.1}), (NO_DECAY, {})),
    )
    # Layer-wise learning rates as groups (the article's norm_lr = 0.1 x base_lr).
    run(
        "layerwise_lr_groups",
        weights,
        F32,
        8,
        Phrase(
            "layer-wise learning rates: the norm at 0.1 x the base lr, the head at 0.5 x",
            "分层学习率：归一化层为基础学习率的 0.1 倍，输出层为 0.5 倍",
        ),
        kwargs={"lr": 0.01, "weight_decay": 0.05},
        groups=_groups(
            ((0, 1), {}),
            ((2, 3), {"lr": 0.001, "weight_decay": 0.0}),
            ((4, 5), {"lr": 0.005}),
        ),
    )
    # One parameter without a gradient on some steps: skipped, its state and count untouched.
    run(
        "frozen_on_some_steps",
        weights,
        F64,
        9,
        Phrase(
            "embed.weight without a gradient on steps 2 to 5, norm.bias on step 7",
            "embed.weight 在第 2 到 5 步没有梯度，norm.bias 在第 7 步没有梯度",
        ),
        kwargs={"lr": 0.1},
        frozen={1: (0,), 2: (0,), 3: (0,), 4: (0,), 6: (3,)},
    )
    # Gradients of 1e-4: v_hat is about 1e-8, where eps inside the root is 40%.
    run(
        "tiny_gradients",
        Phrase(
            "a small model's weights, gradients 1e-4 * N(0,1)",
            "一个小模型的权重，梯度为 1e-4 * N(0,1)",
        ),
        F64,
        6,
        kwargs={"lr": 0.01},
        scale=1e-4,
    )
    # Gradients that shrink tenfold after three steps: v falls, an amsgrad-like max does not.
    run(
        "shrinking_gradients",
        Phrase(
            "a small model's weights, gradients 10 * N(0,1) for 3 steps, then 0.1 * N(0,1)",
            "一个小模型的权重，前 3 步梯度为 10 * N(0,1)，之后为 0.1 * N(0,1)",
        ),
        F32,
        10,
        Phrase("one group with betas (0.9, 0.5)", "一个参数组，betas 为 (0.9, 0.5)"),
        kwargs={"lr": 0.05},
        scale=[10.0, 10.0, 10.0] + [0.1] * 7,
        groups=_groups((range(6), {"betas": (0.9, 0.5)})),
    )
    run("lr_zero", weights, F64, 5, kwargs={"lr": 0.0, "weight_decay": 0.1})
    run("weight_decay_zero", weights, F32, 6, kwargs={"lr": 0.01, "weight_decay": 0.0})
    run(
        "beta1_zero_group",
        weights,
        F64,
        7,
        Phrase("one group with betas (0, 0.999)", "一个参数组，betas 为 (0, 0.999)"),
        kwargs={"lr": 0.01},
        groups=_groups((range(6), {"betas": (0.0, 0.999)})),
    )
    # Parameters handed as a generator (model.parameters()); a (1, n) embedding, n past 128.
    run(
        "generator_row_embedding",
        Phrase(
            "a small model's weights, handed as a generator (as model.parameters() is)",
            "一个小模型的权重，以生成器传入（和 model.parameters() 一样）",
        ),
        F32,
        6,
        kwargs={"lr": 0.01},
        form="generator",
        vocab=1,
        dim=2 * randint(gen, 70, 100) + 1,
    )
    # A transposed embedding in memory, a larger eps, 14 steps.
    run(
        "long_run_transposed",
        weights,
        F64,
        14,
        kwargs={"lr": 0.003, "eps": 1e-6, "weight_decay": 0.1},
        layout="transposed",
    )
    return cases


# --- Known mistakes --------------------------------------------------------------------------

MISTAKES = (
    KnownMistake(
        name="l2_not_decoupled",
        title="Weight decay added to the gradient (Adam's L2), not decoupled",
        explanation=(
            "You added weight_decay * p to the gradient before the moments. That is Adam with L2 "
            "regularisation: the decay then goes through m / (sqrt(v) + eps) and is rescaled "
            "per weight, so weights with large gradients are barely decayed. AdamW decouples it: "
            "p *= 1 - lr * weight_decay, apart from the gradient, before the Adam step."
        ),
        title_zh="权重衰减加在了梯度上（Adam 的 L2），没有解耦",
        explanation_zh=(
            "你在更新矩估计之前把 weight_decay * p 加到了梯度上。这是带 L2 正则的 Adam：衰减项会"
            "经过 m / (sqrt(v) + eps)，被按权重重新缩放，梯度大的权重几乎不衰减。AdamW 把它解耦："
            "在 Adam 这一步之前、与梯度无关地做 p *= 1 - lr * weight_decay。"
        ),
        build=_with(l2=True),
    ),
    KnownMistake(
        name="no_bias_correction",
        title="No bias correction of m and v",
        explanation=(
            "m and v start at 0, so early on they are biased towards 0: m by a factor "
            "1 - beta1^t, v by 1 - beta2^t. Without dividing them back (m_hat, v_hat) the first "
            "steps are the wrong size: about 3.16 lr at step 1 with the default betas, where "
            "AdamW's is lr."
        ),
        title_zh="没有对 m 和 v 做偏差修正",
        explanation_zh=(
            "m 和 v 从 0 开始，所以早期它们偏向 0：m 偏小 1 - beta1^t 倍，v 偏小 1 - beta2^t 倍。"
            "不把它们除回来（m_hat、v_hat），前几步的大小就不对：默认 betas 下第 1 步约为 3.16 lr，"
            "而 AdamW 的第 1 步是 lr。"
        ),
        build=_with(no_bias_correction=True),
    ),
    KnownMistake(
        name="bias_correction_step_ahead",
        title="The bias correction one step ahead (t + 1)",
        explanation=(
            "The correction uses the parameter's own step count t, 1 on its first update: "
            "m_hat = m / (1 - beta1^t). Your count was one ahead (started at 1 and incremented "
            "before use, or beta^(t + 1)), so every correction is too small and the early steps "
            "are off."
        ),
        title_zh="偏差修正提前了一步（t + 1）",
        explanation_zh=(
            "修正用的是该参数自己的步数 t，第一次更新时为 1：m_hat = m / (1 - beta1^t)。"
            "你的计数多了"
            "一步（从 1 开始并在使用前先加一，或者用了 beta^(t + 1)），所以每次修正都偏小，前几步"
            "的大小不对。"
        ),
        build=_with(step_ahead=True),
    ),
    KnownMistake(
        name="eps_inside_sqrt",
        title="eps inside the square root",
        explanation=(
            "Adam divides by sqrt(v_hat) + eps. You divided by sqrt(v_hat + eps): with eps = "
            "1e-8 that acts like 1e-4 outside the root, and damps every parameter whose "
            "gradients are small (here 1e-4, where it is 40% of the step)."
        ),
        title_zh="eps 放在了平方根里面",
        explanation_zh=(
            "Adam 除以的是 sqrt(v_hat) + eps。你除以的是 sqrt(v_hat + eps)：eps = 1e-8 时相当于在"
            "根号外加了 1e-4，会压低梯度很小的参数的每一步（这里梯度为 1e-4，影响达到步长的 40%）。"
        ),
        build=_with(eps_inside=True),
    ),
    KnownMistake(
        name="decay_lr_scaling",
        title="The decoupled decay not multiplied by lr once",
        explanation=(
            "AdamW's decay is p *= 1 - lr * weight_decay: weight_decay is relative to the "
            "learning rate. Without lr (p *= 1 - weight_decay) the weights shrink by 10% a step "
            "at weight_decay 0.1, even at lr 0; with lr twice the decay all but vanishes."
        ),
        title_zh="解耦的衰减没有恰好乘一次 lr",
        explanation_zh=(
            "AdamW 的衰减是 p *= 1 - lr * weight_decay：weight_decay 是相对于学习率而言的。不乘 lr"
            "（p *= 1 - weight_decay）时，weight_decay 为 0.1 的权重每步缩小 10%，lr 为 0 也一样；"
            "乘了两次 lr，衰减就几乎没了。"
        ),
        build=_with(decay_lr="none"),
        forms=(_with(decay_lr="twice"),),
    ),
    KnownMistake(
        name="group_options_ignored",
        title="The parameter groups' own lr or weight_decay ignored",
        explanation=(
            "Each parameter group may set its own lr and weight_decay (no decay on norms and "
            "biases, layer-wise learning rates); only what a group leaves out takes the "
            "constructor's value. You used the constructor's values for every group: read "
            "group['lr'] and group['weight_decay'] inside the loop over groups."
        ),
        title_zh="忽略了参数组自己的 lr 或 weight_decay",
        explanation_zh=(
            "每个参数组都可以设置自己的 lr 和 weight_decay（归一化层和偏置不做衰减、分层学习率）；"
            "只有参数组没有给出的项才用构造函数的值。你对每个参数组都用了构造函数的值：应在遍历参数组"
            "的循环里读取 group['lr'] 和 group['weight_decay']。"
        ),
        build=_with(ignore_group_lr=True, ignore_group_wd=True),
        forms=(_with(ignore_group_wd=True), _with(ignore_group_lr=True)),
    ),
    KnownMistake(
        name="amsgrad_max",
        title="The running max of v used (AMSGrad), not v itself",
        explanation=(
            "You divided by the square root of the largest v seen so far. That is AMSGrad "
            "(amsgrad=True), not AdamW's default: when gradients shrink, v falls and the step "
            "grows back to about lr, while the max keeps the step small for a long time."
        ),
        title_zh="用了 v 的历史最大值（AMSGrad），而不是 v 本身",
        explanation_zh=(
            "你除以的是迄今为止最大的 v 的平方根。这是 AMSGrad（amsgrad=True），不是 AdamW 的默认"
            "行为：梯度变小时，v 随之下降，步长会回到 lr 左右；"
            "而用最大值时步长会在很长时间里都偏小。"
        ),
        build=_with(amsgrad=True),
    ),
    KnownMistake(
        name="global_step_count",
        title="One step count for every parameter",
        explanation=(
            "The bias correction uses each parameter's own count of updates: torch keeps "
            "state['step'] per parameter. You counted calls of step() once for the optimiser, "
            "so a parameter that had no gradient on some steps is corrected as if it had been "
            "updated every time."
        ),
        title_zh="所有参数共用一个步数",
        explanation_zh=(
            "偏差修正用的是每个参数自己被更新的次数：torch 为每个参数单独保存 state['step']。你只为"
            "整个优化器统计了 step() 的调用次数，所以某些步没有梯度的参数，也被当成每一步都更新过来"
            "修正。"
        ),
        build=_with(global_step=True),
    ),
    KnownMistake(
        name="none_grad_updated",
        title="A parameter without a gradient updated as if its gradient were 0",
        explanation=(
            "A parameter whose .grad is None (frozen, or not used in this forward) must be "
            "skipped: no decay, no moment update, its step count not advanced. You treated the "
            "missing gradient as zeros, so it was decayed and its moments kept moving it."
        ),
        title_zh="没有梯度的参数被当成梯度为 0 来更新",
        explanation_zh=(
            ".grad 为 None 的参数（被冻结，或者这次前向没用到）必须跳过：不衰减，不更新矩估计，"
            "步数也"
            "不增加。你把缺失的梯度当成了全零，于是它被衰减了，矩估计也继续推动它移动。"
        ),
        build=_with(none_as_zero=True),
    ),
)


SPEC = ExerciseSpec(
    slug="adamw_step",
    class_name="AdamW",
    kind="optimizer",
    reference=AdamW,
    make_cases=make_cases,
    mistakes=MISTAKES,
    ranks=(2,),
    trains=False,
    # torch.optim's Adam and AdamW (and their functional forms, however reached) do the whole
    # step. Subclassing torch.optim.Optimizer for its parameter-group handling is allowed: the
    # step is the learner's. Elementwise ops, foreach ops included, stay allowed.
    banned=(
        "torch.optim.AdamW",
        "torch.optim.Adam",
        "torch.optim.adamw.AdamW",
        "torch.optim.adam.Adam",
        "torch.optim.adam.adam",
        "torch.optim.adamw.adamw",
        "torch.optim._functional.adam",
        "torch.optim._functional.adamw",
        "torch._fused_adam_",
        "torch._fused_adamw_",
        "aten._fused_adam_",
        "aten._fused_adamw_",
    ),
)
