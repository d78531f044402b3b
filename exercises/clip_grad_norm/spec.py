"""Grading spec for ``clip_grad_norm``: ``clip_grad_norm_(parameters, max_norm, norm_type=2.0)``
as ``torch.nn.utils.clip_grad_norm_`` does it (with its default ``error_if_nonfinite=False``).

The total norm is the ``norm_type``-norm of every gradient at once (the norms of the single
gradients, taken as one vector, normed again); ``inf`` is the largest absolute entry. Every
gradient is multiplied in place by ``clamp(max_norm / (total + 1e-6), max=1)``, so gradients
under the threshold are left as they are and a non-finite total scales them as torch does (an
infinite total gives 0 times each entry, an infinity becoming NaN; a NaN total makes every
gradient NaN). The return value is the total norm *before* clipping, a 0-d tensor. Parameters
whose ``.grad`` is None are skipped; no gradient at all returns ``tensor(0.)``. ``parameters``
is an iterable (a list, or a generator read once, as ``model.parameters()`` is) or a single
tensor.

The call updates the gradients in place, which is the contract: each call hands the learner
fresh parameters built from the case's tensors (``spec.Parameters``) and compares the return
value and every parameter's values and gradient after it.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable
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
)

F32, F64 = torch.float32, torch.float64
INF = float("inf")
EPS = 1e-6  # torch's: clip_coef = max_norm / (total_norm + 1e-6)


def _as_list(parameters: Any) -> list[torch.Tensor]:
    if isinstance(parameters, torch.Tensor):
        return [parameters]
    return list(parameters)


def _total(grads: list[torch.Tensor], norm_type: float) -> torch.Tensor:
    norms = [torch.linalg.vector_norm(g, norm_type) for g in grads]
    total: torch.Tensor = torch.linalg.vector_norm(torch.stack(norms), norm_type)
    return total


def _scale(grads: Iterable[torch.Tensor], coef: torch.Tensor) -> None:
    for g in grads:
        g.mul_(coef.to(g.dtype))


@torch.no_grad()
def clip_grad_norm_(parameters: Any, max_norm: float, norm_type: float = 2.0) -> torch.Tensor:
    params = _as_list(parameters)
    grads = [p.grad for p in params if p.grad is not None]
    if not grads:
        return torch.tensor(0.0)
    total = _total(grads, float(norm_type))
    coef = torch.clamp(max_norm / (total + EPS), max=1.0)
    _scale(grads, coef)
    return total


# --- the cases ----------------------------------------------------------------------------------

LINEAR = ("embed.weight", "norm.weight", "linear.weight", "linear.bias")


def _grads_of(
    gen: torch.Generator, params: list[torch.Tensor], std: float
) -> tuple[torch.Tensor, ...]:
    return tuple(normal(gen, p.shape, p.dtype, std=std) for p in params)


def make_cases(gen: torch.Generator) -> list[Case]:
    """Fourteen cases, one call each, every one on parameters built afresh: a small model's
    weights (an embedding, a norm's weight, a linear layer) whose gradients are scaled in
    place. What each shows: the global norm against per-tensor clipping, the cap at 1, the
    norm returned before clipping, the norm type (1, 3, inf), the 1e-6 in the coefficient,
    gradients that are None, a single tensor, a generator, a non-finite total."""
    cases: list[Case] = []

    def clip(
        name: str,
        what: Phrase,
        params: list[torch.Tensor],
        grads: tuple[torch.Tensor, ...] | None,
        max_norm: float,
        *extra: Phrase,
        norm_type: float | None = None,
        names: tuple[str, ...] = LINEAR,
        form: HandedAs = "list",
        no_grad: tuple[int, ...] = (),
        layout: Layout = "contiguous",
    ) -> None:
        words: list[Phrase] = [*extra, same(f"max_norm = {max_norm:g}")]
        kwargs: dict[str, InitValue] = {}
        if norm_type is not None:
            kwargs["norm_type"] = norm_type
            words.append(same(f"norm_type = {norm_type:g}"))
        if layout != "contiguous":
            words.append(non_contiguous(layout))
        if form == "tensor":
            words.append(Phrase("a single tensor, not a list", "传入单个张量，而不是列表"))
        if form == "generator":
            words.append(
                Phrase(
                    "handed as a generator (as model.parameters() is)",
                    "以生成器传入（和 model.parameters() 一样）",
                )
            )
        if no_grad:
            words.append(
                Phrase(
                    f"{len(no_grad)} parameter(s) with .grad None",
                    f"{len(no_grad)} 个参数的 .grad 为 None",
                )
            )
        if grads is None:
            words.append(Phrase("no gradient at all", "没有任何梯度"))
        said = described(params[0], what, *words)
        how = Parameters(names=names[: len(params)], form=form, no_grad=no_grad)
        step = Call(tuple(params), grads, layout=layout, args=(max_norm,), parameters=how)
        cases.append(
            Case(
                name=name,
                description=said.en,
                description_zh=said.zh,
                x=params[0],
                init_kwargs=kwargs,
                steps=(step,),
            )
        )

    def model(dtype: torch.dtype, vocab: int, dim: int, out: int) -> list[torch.Tensor]:
        return [
            normal(gen, (vocab, dim), dtype, std=0.02),
            1.0 + normal(gen, (dim,), dtype, std=0.1),
            normal(gen, (out, dim), dtype, std=dim**-0.5),
            normal(gen, (out,), dtype, std=0.1),
        ]

    big = Phrase("gradients 3 * N(0,1)", "梯度为 3 * N(0,1)")
    # The global norm far above max_norm: every gradient scaled by one coefficient.
    params = model(F32, randint(gen, 20, 40), randint(gen, 130, 200), randint(gen, 8, 16))
    clip("global_norm_clips", big, params, _grads_of(gen, params, 3.0), 1.0)
    # Norms of very different sizes: clipping each tensor by its own norm shows at once.
    params = model(F64, randint(gen, 10, 20), randint(gen, 24, 40), randint(gen, 4, 8))
    grads: tuple[torch.Tensor, ...] = (
        normal(gen, params[0].shape, F64, std=5.0),
        normal(gen, params[1].shape, F64, std=0.05),
        normal(gen, params[2].shape, F64, std=1.0),
        normal(gen, params[3].shape, F64, std=0.5),
    )
    clip(
        "uneven_norms",
        Phrase("gradients of very different sizes", "梯度大小相差悬殊"),
        params,
        grads,
        2.0,
        layout="transposed",
    )
    # Under the threshold: the gradients stay as they are (the coefficient is capped at 1).
    params = model(F32, randint(gen, 8, 16), randint(gen, 20, 40), randint(gen, 4, 8))
    clip(
        "under_the_threshold",
        Phrase("gradients 0.01 * N(0,1)", "梯度为 0.01 * N(0,1)"),
        params,
        _grads_of(gen, params, 0.01),
        5.0,
    )
    params = model(F64, randint(gen, 8, 16), randint(gen, 20, 40), randint(gen, 4, 8))
    clip("norm_type_1", big, params, _grads_of(gen, params, 3.0), 10.0, norm_type=1.0)
    params = model(F32, randint(gen, 8, 16), randint(gen, 20, 40), randint(gen, 4, 8))
    clip("norm_type_3", big, params, _grads_of(gen, params, 3.0), 1.0, norm_type=3.0)
    params = model(F64, randint(gen, 8, 16), randint(gen, 20, 40), randint(gen, 4, 8))
    clip("norm_type_inf", big, params, _grads_of(gen, params, 3.0), 1.5, norm_type=INF)
    # A total norm near 1e-5 against max_norm 1e-6: the 1e-6 in the coefficient is 10% here.
    params = model(F64, randint(gen, 20, 40), randint(gen, 60, 100), randint(gen, 8, 16))
    clip(
        "tiny_gradients",
        Phrase("gradients 1e-7 * N(0,1)", "梯度为 1e-7 * N(0,1)"),
        params,
        _grads_of(gen, params, 1e-7),
        1e-6,
    )
    # The norm's weight first (a 1-D parameter), the embedding and the bias without .grad.
    embed, norm, *linear = model(F32, randint(gen, 8, 16), randint(gen, 20, 40), randint(gen, 4, 8))
    params = [norm, embed, *linear]
    clip(
        "some_without_grad",
        big,
        params,
        _grads_of(gen, params, 3.0),
        1.0,
        names=("norm.weight", "embed.weight", "linear.weight", "linear.bias"),
        no_grad=(1, 3),
    )
    params = model(F32, randint(gen, 8, 16), randint(gen, 20, 40), randint(gen, 4, 8))
    clip("no_gradient_at_all", same("N(0,1)"), params, None, 1.0)
    # One tensor, handed as itself: iterating over it would walk its rows.
    weight = normal(gen, (randint(gen, 3, 6), randint(gen, 150, 250)), F32, std=0.05)
    clip(
        "single_tensor",
        big,
        [weight],
        (normal(gen, weight.shape, F32, std=3.0),),
        1.0,
        names=("weight",),
        form="tensor",
    )
    params = model(F64, randint(gen, 8, 16), randint(gen, 20, 40), randint(gen, 4, 8))
    clip("generator", big, params, _grads_of(gen, params, 3.0), 1.0, form="generator")
    # A weight of shape (1, n), n past 128 and no power of two.
    n = 2 * randint(gen, 70, 120) + 1
    params = [normal(gen, (1, n), F32, std=0.05), *model(F32, 8, n, 6)[1:]]
    clip(
        "row_vector_weight",
        big,
        params,
        _grads_of(gen, params, 3.0),
        1.0,
        names=("head.weight", "norm.weight", "linear.weight", "linear.bias"),
    )
    # Non-finite totals, as torch's default error_if_nonfinite=False leaves them.
    params = model(F64, randint(gen, 8, 16), randint(gen, 20, 40), randint(gen, 4, 8))
    grads = _grads_of(gen, params, 3.0)
    grads[2].view(-1)[randint(gen, 0, grads[2].numel() - 1)] = INF
    clip(
        "infinite_gradient",
        Phrase("gradients 3 * N(0,1), one entry inf", "梯度为 3 * N(0,1)，其中一个元素为 inf"),
        params,
        grads,
        1.0,
    )
    params = model(F32, randint(gen, 8, 16), randint(gen, 20, 40), randint(gen, 4, 8))
    grads = _grads_of(gen, params, 0.01)
    grads[0].view(-1)[randint(gen, 0, grads[0].numel() - 1)] = math.nan
    clip(
        "nan_gradient",
        Phrase(
            "gradients 0.01 * N(0,1), one entry NaN", "梯度为 0.01 * N(0,1)，其中一个元素为 NaN"
        ),
        params,
        grads,
        1.0,
    )
    return cases


# --- Known mistakes --------------------------------------------------------------------------


def _grads(parameters: Any) -> list[torch.Tensor]:
    return [p.grad for p in _as_list(parameters) if p.grad is not None]


@torch.no_grad()
def _per_tensor(parameters: Any, max_norm: float, norm_type: float = 2.0) -> torch.Tensor:
    grads = _grads(parameters)
    if not grads:
        return torch.tensor(0.0)
    total = _total(grads, float(norm_type))
    for g in grads:
        own = torch.linalg.vector_norm(g, float(norm_type))
        g.mul_(torch.clamp(max_norm / (own + EPS), max=1.0))
    return total


@torch.no_grad()
def _not_capped(parameters: Any, max_norm: float, norm_type: float = 2.0) -> torch.Tensor:
    grads = _grads(parameters)
    if not grads:
        return torch.tensor(0.0)
    total = _total(grads, float(norm_type))
    _scale(grads, max_norm / (total + EPS))
    return total


@torch.no_grad()
def _clipped_norm(parameters: Any, max_norm: float, norm_type: float = 2.0) -> torch.Tensor:
    grads = _grads(parameters)
    if not grads:
        return torch.tensor(0.0)
    _scale(grads, torch.clamp(max_norm / (_total(grads, float(norm_type)) + EPS), max=1.0))
    return _total(grads, float(norm_type))


@torch.no_grad()
def _always_l2(parameters: Any, max_norm: float, norm_type: float = 2.0) -> torch.Tensor:
    del norm_type
    return clip_grad_norm_(parameters, max_norm, 2.0)


@torch.no_grad()
def _inf_summed(parameters: Any, max_norm: float, norm_type: float = 2.0) -> torch.Tensor:
    grads = _grads(parameters)
    if not grads:
        return torch.tensor(0.0)
    p = float(norm_type)
    # The per-tensor maxima added up, as if the inf norm combined like the 1-norm.
    total = torch.stack([g.abs().max() for g in grads]).sum() if math.isinf(p) else _total(grads, p)
    _scale(grads, torch.clamp(max_norm / (total + EPS), max=1.0))
    return total


@torch.no_grad()
def _no_eps(parameters: Any, max_norm: float, norm_type: float = 2.0) -> torch.Tensor:
    grads = _grads(parameters)
    if not grads:
        return torch.tensor(0.0)
    total = _total(grads, float(norm_type))
    _scale(grads, torch.clamp(max_norm / total, max=1.0))
    return total


@torch.no_grad()
def _generator_read_twice(parameters: Any, max_norm: float, norm_type: float = 2.0) -> torch.Tensor:
    if isinstance(parameters, torch.Tensor):
        parameters = [parameters]
    grads = [p.grad for p in parameters if p.grad is not None]
    if not grads:
        return torch.tensor(0.0)
    total = _total(grads, float(norm_type))
    coef = torch.clamp(max_norm / (total + EPS), max=1.0)
    _scale((p.grad for p in parameters if p.grad is not None), coef)  # a generator: empty now
    return total


@torch.no_grad()
def _tensor_iterated(parameters: Any, max_norm: float, norm_type: float = 2.0) -> torch.Tensor:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # .grad of a row (a non-leaf view) warns
        grads = [p.grad for p in list(parameters) if p.grad is not None]
    if not grads:
        return torch.tensor(0.0)
    total = _total(grads, float(norm_type))
    _scale(grads, torch.clamp(max_norm / (total + EPS), max=1.0))
    return total


@torch.no_grad()
def _only_above(parameters: Any, max_norm: float, norm_type: float = 2.0) -> torch.Tensor:
    grads = _grads(parameters)
    if not grads:
        return torch.tensor(0.0)
    total = _total(grads, float(norm_type))
    if total > max_norm:
        _scale(grads, max_norm / (total + EPS))
    return total


MISTAKES = (
    KnownMistake(
        name="per_tensor_clipping",
        title="Each gradient clipped by its own norm",
        explanation=(
            "You scaled each gradient by max_norm / its own norm. clip_grad_norm_ clips the "
            "global norm: the norms of all gradients taken as one vector, and one coefficient "
            "for every gradient, so their directions relative to each other are kept. Per-tensor "
            "clipping lets the total exceed max_norm by sqrt(number of tensors) and changes the "
            "update's direction."
        ),
        title_zh="每个梯度按它自己的范数裁剪",
        explanation_zh=(
            "你把每个梯度都按 max_norm 除以它自己的范数来缩放。clip_grad_norm_ 裁剪的是全局范数："
            "把所有梯度的范数当作一个向量再求范数，所有梯度共用一个系数，这样它们之间的相对方向保持"
            "不变。逐个张量裁剪会让总范数最多超出 max_norm 的 sqrt(张量个数) 倍，还改变了更新方向。"
        ),
        build=_per_tensor,
    ),
    KnownMistake(
        name="coef_not_capped",
        title="The clip coefficient not capped at 1: small gradients scaled up",
        explanation=(
            "You multiplied every gradient by max_norm / (total + 1e-6) whatever the total. "
            "Below the threshold that factor is above 1 and blows small gradients up to norm "
            "max_norm: clipping must only ever shrink. Clamp the coefficient at 1 "
            "(torch.clamp(coef, max=1.0)), or scale only when the total exceeds max_norm."
        ),
        title_zh="裁剪系数没有限制在 1 以内：小梯度被放大",
        explanation_zh=(
            "不管总范数多大，你都把每个梯度乘以 max_norm / (total + 1e-6)。总范数低于阈值时这个系数"
            "大于 1，会把小梯度放大到范数为 max_norm：裁剪只能缩小。把系数限制在 1 以内"
            "（torch.clamp(coef, max=1.0)），或者只在总范数超过 max_norm 时才缩放。"
        ),
        build=_not_capped,
    ),
    KnownMistake(
        name="returns_clipped_norm",
        title="The norm after clipping returned instead of the norm before",
        explanation=(
            "clip_grad_norm_ returns the total norm of the gradients as they were, before "
            "clipping: it is what training logs plot to spot spikes. You returned the norm "
            "after clipping, which is at most max_norm and hides every spike."
        ),
        title_zh="返回的是裁剪之后的范数，而不是裁剪之前的",
        explanation_zh=(
            "clip_grad_norm_ 返回的是裁剪之前梯度的总范数：训练日志正是画它来发现尖峰。你返回的是"
            "裁剪之后的范数，它不会超过 max_norm，把所有尖峰都藏起来了。"
        ),
        build=_clipped_norm,
    ),
    KnownMistake(
        name="norm_type_ignored",
        title="norm_type ignored: always the 2-norm",
        explanation=(
            "You computed the 2-norm whatever norm_type says. The total must be the "
            "norm_type-norm of every gradient entry: (sum |g|^p)^(1/p), and for inf the "
            "largest |g|. torch.linalg.vector_norm(g, norm_type) takes it as an argument."
        ),
        title_zh="忽略了 norm_type：始终用的是 2 范数",
        explanation_zh=(
            "不管 norm_type 是多少，你算的都是 2 范数。总范数必须是所有梯度元素的 norm_type 范数："
            "(sum |g|^p)^(1/p)，inf 时为最大的 |g|。torch.linalg.vector_norm(g, norm_type) 可以"
            "直接传入它。"
        ),
        build=_always_l2,
    ),
    KnownMistake(
        name="inf_norm_summed",
        title="The inf norm summed over tensors instead of maxed",
        explanation=(
            "For norm_type = inf the total is the largest absolute entry over all gradients: "
            "the max of the per-tensor maxima. You added the per-tensor maxima, as if the inf "
            "norm combined like a 1-norm, which overstates the total and clips too hard."
        ),
        title_zh="inf 范数在张量之间求了和，而不是取最大值",
        explanation_zh=(
            "norm_type = inf 时，总范数是所有梯度中绝对值最大的元素，也就是各张量最大值中的最大值。"
            "你把各张量的最大值加了起来，好像 inf 范数能像 1 范数那样相加，结果高估了总范数，裁剪得"
            "过狠。"
        ),
        build=_inf_summed,
    ),
    KnownMistake(
        name="eps_missing",
        title="max_norm / total without the 1e-6",
        explanation=(
            "torch's coefficient is max_norm / (total + 1e-6). Without the 1e-6 it agrees on "
            "ordinary gradients but not when the total norm is within a few orders of 1e-6 "
            "(here a total near 1e-5 against max_norm 1e-6: 10% apart), and a Python division "
            "by a total of 0 raises."
        ),
        title_zh="max_norm / total 里少了 1e-6",
        explanation_zh=(
            "torch 的系数是 max_norm / (total + 1e-6)。少了 1e-6，在普通大小的梯度上结果一样，但总"
            "范数与 1e-6 只差几个数量级时就不一样了（这里总范数约为 1e-5、max_norm 为 1e-6，相差 "
            "10%），而且用 Python 除以为 0 的总范数会报错。"
        ),
        build=_no_eps,
    ),
    KnownMistake(
        name="generator_exhausted",
        title="The parameters read twice: a generator is empty the second time",
        explanation=(
            "model.parameters() is a generator: it can be iterated once. You read it once to "
            "compute the total norm and again to scale the gradients, and the second loop saw "
            "nothing, so no gradient was clipped. Turn it into a list first "
            "(parameters = list(parameters))."
        ),
        title_zh="参数被遍历了两次：生成器第二次已经空了",
        explanation_zh=(
            "model.parameters() 是生成器，只能遍历一次。你先遍历一次算总范数，"
            "再遍历一次去缩放梯度，第二次循环什么都没拿到，所以一个梯度都没有被裁剪。先把它转成列表"
            "（parameters = list(parameters)）。"
        ),
        build=_generator_read_twice,
    ),
    KnownMistake(
        name="single_tensor_not_wrapped",
        title="A single tensor iterated instead of wrapped in a list",
        explanation=(
            "parameters may be one tensor. Iterating over a tensor walks its rows, which are "
            "views with no .grad, so nothing was found and nothing clipped. Wrap it first: if "
            "isinstance(parameters, torch.Tensor): parameters = [parameters]."
        ),
        title_zh="单个张量被直接遍历，没有先包成列表",
        explanation_zh=(
            "parameters 也可以是单个张量。遍历一个张量得到的是它的各行，这些行是视图，没有 .grad，"
            "所以什么都没找到，也什么都没裁剪。先把它包起来：if isinstance(parameters, "
            "torch.Tensor): parameters = [parameters]。"
        ),
        build=_tensor_iterated,
    ),
    KnownMistake(
        name="nan_not_propagated",
        title="Scaling skipped by a comparison: a NaN total leaves the gradients as they were",
        explanation=(
            "You scaled only when the total exceeds max_norm. With torch's default "
            "error_if_nonfinite=False a NaN total gives a NaN coefficient, and every gradient "
            "becomes NaN, which is what makes the step visibly bad (and what AMP's scaler "
            "looks for); NaN > max_norm is False, so your code kept the gradients, NaN entry "
            "and all. Multiply by the clamped coefficient unconditionally."
        ),
        title_zh="用比较决定是否缩放：总范数为 NaN 时梯度原样保留",
        explanation_zh=(
            "你只在总范数超过 max_norm 时才缩放。torch 默认 error_if_nonfinite=False，总范数为 "
            "NaN 时系数也是 NaN，所有梯度都变成 NaN，这一步的问题才会暴露出来（AMP 的 scaler 也靠"
            "它发现）；而 NaN > max_norm 为 False，你的代码把梯度连同那个 NaN 一起原样保留了。应"
            "无条件地乘以限制后的系数。"
        ),
        build=_only_above,
    ),
)


BANNED = (
    "torch.nn.utils.clip_grad_norm_",
    "torch.nn.utils.clip_grad_norm",
    "torch.nn.utils.clip_grad.clip_grad_norm_",
    "torch.nn.utils.clip_grad.clip_grad_norm",
    "torch.nn.utils.get_total_norm",
    "torch.nn.utils.clip_grad._get_total_norm",
    "torch.nn.utils.clip_grads_with_norm_",
    "torch.nn.utils.clip_grad._clip_grads_with_norm_",
    "torch.nn.utils.clip_grad_value_",
    "torch.nn.utils.clip_grad.clip_grad_value_",
)


SPEC = ExerciseSpec(
    slug="clip_grad_norm",
    class_name="clip_grad_norm_",
    kind="function",
    reference=clip_grad_norm_,
    make_cases=make_cases,
    mistakes=MISTAKES,
    ranks=(1, 2),
    trains=False,
    # The clipping helpers do the whole job; norms (torch.linalg.vector_norm, Tensor.norm,
    # torch._foreach_norm) and in-place products (mul_, torch._foreach_mul_) stay allowed.
    banned=BANNED,
)
