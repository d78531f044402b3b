"""Drawing helpers shared by the exercise specs' ``make_cases``.

Every random number comes from the ``torch.Generator`` the grader passes in (a fresh seed per
case set, which the submissions arriving together share: ``casesets``), so a verdict can be
reproduced from its seed. Values are drawn in float32 on the
CPU and then cast, so the same seed gives the same numbers whatever the case's dtype.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TypeVar

import torch

from api.grading import verdict_zh
from api.grading.phrase import (
    FORWARD_ONLY_NO_GRAD,
    RANDOM_WEIGHT,
    RANDOM_WEIGHT_BIAS,
    TRAIN_UPDATE_EVAL,
    Phrase,
    after_the_update,
    listing,
    non_contiguous,
    same,
)
from api.grading.spec import Call, Case, InitValue, Layout, ModuleArg, Step, Update

# Each tensor a case sends (input, upstream gradient, one parameter) stays under this many
# elements: grading must take tens of milliseconds, not seconds.
MAX_NUMEL = 64 * 1024

T = TypeVar("T")

_DTYPE_NAMES = {
    torch.float32: "float32",
    torch.float64: "float64",
    torch.bfloat16: "bfloat16",
    torch.float16: "float16",
}


def randint(gen: torch.Generator, low: int, high: int) -> int:
    """A uniform integer in ``[low, high]`` (both ends included)."""
    return int(torch.randint(low, high + 1, (1,), generator=gen).item())


def choice(gen: torch.Generator, options: Sequence[T]) -> T:
    return options[randint(gen, 0, len(options) - 1)]


def seed(gen: torch.Generator) -> int:
    """A seed for ``torch.manual_seed`` before the forward (train-mode dropout masks)."""
    return randint(gen, 0, 2**31 - 1)


def normal(
    gen: torch.Generator, shape: Sequence[int], dtype: torch.dtype, *, std: float = 1.0
) -> torch.Tensor:
    t = torch.randn(tuple(shape), generator=gen, dtype=torch.float32)
    return (t * std).to(dtype) if std != 1.0 else t.to(dtype)


def shape_for(
    gen: torch.Generator, ndim: int, dim: int, *, max_rows: int = 64, axis: int = -1
) -> tuple[int, ...]:
    """A shape of ``ndim`` dims with the feature ``dim`` at ``axis`` (the exercise's feature
    axis: -1 for norms over the last dim, 1 for channels), other dims random and small.

    The other dims multiply to at most ``max_rows`` and keep the tensor under ``MAX_NUMEL``.
    """
    if ndim < 1:
        raise ValueError("ndim must be at least 1")
    budget = max(1, min(max_rows, MAX_NUMEL // dim))
    lead: list[int] = []
    for i in range(ndim - 1):
        # Leave room for the dims still to come; at least 2 per dim where the budget allows so
        # that "normalised over the wrong axis" has more than one element to mix.
        remaining = ndim - 1 - i
        cap = max(1, int(budget ** (1.0 / remaining)))
        size = randint(gen, min(2, cap), cap)
        lead.append(size)
        budget = max(1, budget // size)
    where = axis % ndim
    shape = (*lead[:where], dim, *lead[where:])
    assert math.prod(shape) <= MAX_NUMEL, shape
    return shape


def affine_weight(gen: torch.Generator, dim: int, dtype: torch.dtype) -> torch.Tensor:
    """A norm's scale drawn around 1, so a forgotten or misplaced weight changes the output."""
    return (1.0 + 0.5 * torch.randn(dim, generator=gen)).to(dtype)


def affine_bias(gen: torch.Generator, dim: int, dtype: torch.dtype) -> torch.Tensor:
    return (0.5 * torch.randn(dim, generator=gen)).to(dtype)


def linear_weight(
    gen: torch.Generator, out_features: int, in_features: int, dtype: torch.dtype
) -> torch.Tensor:
    """``nn.Linear``-like scale (std 1/sqrt(fan_in)): activations stay O(1) through the layer."""
    return normal(gen, (out_features, in_features), dtype, std=1.0 / math.sqrt(in_features))


def linear_bias(gen: torch.Generator, out_features: int, dtype: torch.dtype) -> torch.Tensor:
    return normal(gen, (out_features,), dtype, std=0.1)


def constant_rows(gen: torch.Generator, shape: Sequence[int], dtype: torch.dtype) -> torch.Tensor:
    """Rows whose entries are all equal: zero variance, so only eps keeps a norm finite.

    The constants are small multiples of 1/4 (0 included): exactly representable, and their
    sums are exact, so the row mean equals the constant exactly in every implementation and
    "x - mean" is exactly 0. A correct solution then matches the reference to the last bit
    instead of amplifying rounding noise by 1/sqrt(eps).
    """
    rows = math.prod(shape[:-1])
    values = torch.randint(-12, 13, (rows, 1), generator=gen).to(torch.float32) / 4.0
    return values.expand(rows, shape[-1]).reshape(tuple(shape)).to(dtype).contiguous()


def dtype_name(dtype: torch.dtype) -> str:
    return _DTYPE_NAMES.get(dtype, str(dtype).removeprefix("torch."))


def _shape(x: torch.Tensor) -> str:
    return "(" + ", ".join(str(s) for s in x.shape) + ("," if x.dim() == 1 else "") + ")"


def described(x: torch.Tensor, what: Phrase, *extra: Phrase) -> Phrase:
    """A case in words, in both languages as written here: 'x = N(0,1) + 1e3, shape (2, 7,
    64), float32, ...' and 'x = N(0,1) + 1e3，形状 (2, 7, 64)，float32，...'."""
    return listing(
        [
            Phrase(f"x = {what.en}", f"x = {what.zh}"),
            Phrase(f"shape {_shape(x)}", f"形状 {_shape(x)}"),
            same(dtype_name(x.dtype)),
            *extra,
        ]
    )


def describe(x: torch.Tensor, what: str, *extra: str) -> str:
    """A description in English only: 'x = N(0,1) + 1e3, shape (2, 7, 64), float32, ...'. A
    spec written so (the catalogue's are all on ``described``) gets its Chinese derived by
    ``verdict_zh`` (``scenario``, ``verdict._judge_case``)."""
    return ", ".join([f"x = {what}", f"shape {_shape(x)}", dtype_name(x.dtype), *extra])


def case(
    *,
    name: str,
    description: str,
    x: torch.Tensor,
    init_kwargs: dict[str, InitValue],
    state: dict[str, torch.Tensor] | None,
    gen: torch.Generator,
    backward: bool = True,
    train: bool = False,
    case_seed: int = 0,
    module_args: dict[str, ModuleArg] | None = None,
    stochastic: bool = False,
) -> Case:
    """A single-call ``Case`` with an upstream gradient drawn like the output (the input's
    shape here)."""
    return scenario(
        name=name,
        description=description,
        steps=[call(gen, x, backward=backward, train=train, seed=case_seed)],
        init_kwargs=init_kwargs,
        state=state,
        module_args=module_args,
        stochastic=stochastic,
    )


def call(
    gen: torch.Generator,
    x: torch.Tensor,
    *,
    backward: bool = True,
    train: bool = False,
    seed: int = 0,
    layout: Layout = "contiguous",
    note: str | Phrase = "",
    defer: bool = False,
) -> Call:
    """A call step on ``x`` with an upstream gradient drawn like the output (``x``'s shape);
    ``note`` in both languages as a ``Phrase`` (a plain string: English, Chinese derived).
    ``defer``: its backward waits for the next call with backward (``Call.defer``)."""
    grads = (normal(gen, x.shape, x.dtype),) if backward else None
    en, zh = note if isinstance(note, Phrase) else (note, None)
    return Call(
        (x,), grads, train=train, seed=seed, layout=layout, note=en, note_zh=zh, defer=defer
    )


UPDATE_EVERY_PARAMETER = Phrase(
    "an optimiser-like update of every parameter", "按优化器的方式更新每个参数"
)


def update(
    gen: torch.Generator,
    state: dict[str, torch.Tensor],
    *,
    scale: float = 0.1,
    note: str | Phrase = "",
) -> Update:
    """An optimiser-like step: a small random delta for every parameter in ``state``."""
    deltas = {k: normal(gen, v.shape, v.dtype, std=scale) for k, v in state.items()}
    en, zh = note if isinstance(note, Phrase) else (note, None)
    if not en:
        en, zh = UPDATE_EVERY_PARAMETER
    return Update(deltas, note=en, note_zh=zh)


def scenario(
    *,
    name: str,
    description: str,
    steps: list[Step],
    init_kwargs: dict[str, InitValue],
    state: dict[str, torch.Tensor] | None,
    module_args: dict[str, ModuleArg] | None = None,
    stochastic: bool = False,
    description_zh: str | None = None,
    cast_module: bool = True,
) -> Case:
    """A ``Case`` running ``steps``; every tensor it sends stays under ``MAX_NUMEL``.

    ``description_zh`` defaults to ``description`` put in Chinese by ``verdict_zh``.
    ``cast_module=False``: the module meets a half-precision input as built (see ``Case``)."""
    tensors: list[tuple[str, torch.Tensor]] = list((state or {}).items())
    for k, step in enumerate(steps):
        if isinstance(step, Update):
            tensors += [(f"step {k} delta {n}", t) for n, t in step.deltas.items()]
        else:
            tensors += [(f"step {k} input", t) for t in step.inputs]
            tensors += [(f"step {k} grad", t) for t in step.grad_outputs or ()]
    for key, t in tensors:
        if t.numel() > MAX_NUMEL:
            raise ValueError(f"case {name}: {key} has {t.numel()} elements > {MAX_NUMEL}")
    first = next(s for s in steps if isinstance(s, Call))
    return Case(
        name=name,
        description=description,
        x=first.inputs[0],
        init_kwargs=init_kwargs,
        state=state,
        steps=tuple(steps),
        module_args=module_args or {},
        stochastic=stochastic,
        description_zh=(
            description_zh if description_zh is not None else verdict_zh.description(description)
        ),
        cast_module=cast_module,
    )


def raises(
    error: str,
    *,
    name: str,
    description: str,
    init_kwargs: dict[str, InitValue],
    module_args: dict[str, ModuleArg] | None = None,
    description_zh: str = "",
) -> Case:
    """A case whose constructor must raise ``error`` (an exception class name such as
    ``"ValueError"``; a subclass counts): contracts like "an unknown placement raises
    ValueError". Nothing is called; the input is a placeholder."""
    return Case(
        name=name,
        description=description,
        description_zh=description_zh,
        x=torch.zeros(1),
        init_kwargs=init_kwargs,
        module_args=module_args or {},
        raises=error,
    )


NORMAL = same("N(0,1)")
AFTER_UPDATE_BATCH_OF_1 = Phrase("after the update, on a batch of 1", "参数更新之后，批大小为 1")


def ffn_parameters(
    gen: torch.Generator, dim: int, hidden: int, dtype: torch.dtype
) -> dict[str, torch.Tensor]:
    """A two-layer FFN's ``linear1`` (dim -> hidden) and ``linear2`` (hidden -> dim), weights at
    ``nn.Linear``'s scale and biases of std 0.5: large enough that a dropped bias shows."""
    return {
        "linear1.weight": linear_weight(gen, hidden, dim, dtype),
        "linear1.bias": normal(gen, (hidden,), dtype, std=0.5),
        "linear2.weight": linear_weight(gen, dim, hidden, dtype),
        "linear2.bias": normal(gen, (dim,), dtype, std=0.5),
    }


def gated_ffn_parameters(
    gen: torch.Generator, dim: int, hidden: int, dtype: torch.dtype, *, prefix: str = ""
) -> dict[str, torch.Tensor]:
    """A gated FFN's bias-free projections in the Llama naming: ``w1`` the gate and ``w3`` the up
    projection (dim -> hidden), ``w2`` the down projection (hidden -> dim). Three independent
    draws, so a swapped gate and up projection changes the output. ``prefix`` names the FFN
    inside a larger module (``"ffn."``)."""
    return {
        f"{prefix}w1.weight": linear_weight(gen, hidden, dim, dtype),
        f"{prefix}w2.weight": linear_weight(gen, dim, hidden, dtype),
        f"{prefix}w3.weight": linear_weight(gen, hidden, dim, dtype),
    }


def sublayer_parameters(
    gen: torch.Generator, desc: ModuleArg, dtype: torch.dtype
) -> dict[str, torch.Tensor]:
    """Random parameters for a block's ``sublayer`` built from the module-argument registry
    (``modargs``), keyed as the block's state dict holds them: a Linear, a GELU MLP (``mlp``,
    and ``noisy_mlp`` whose Dropout sits before the last Linear) or a Linear fixed at zero."""
    d = desc.dims[0]
    if desc.kind == "linear":
        return {
            "sublayer.weight": linear_weight(gen, d, d, dtype),
            "sublayer.bias": linear_bias(gen, d, dtype),
        }
    if desc.kind in ("mlp", "noisy_mlp"):
        h = desc.dims[1]
        last = 2 if desc.kind == "mlp" else 3  # the Dropout sits before the last Linear
        return {
            "sublayer.0.weight": linear_weight(gen, h, d, dtype),
            "sublayer.0.bias": linear_bias(gen, h, dtype),
            f"sublayer.{last}.weight": linear_weight(gen, d, h, dtype),
            f"sublayer.{last}.bias": linear_bias(gen, d, dtype),
        }
    # "zero": the sublayer's output is exactly 0, so the block must reduce to its norm (or to x).
    return {
        "sublayer.weight": torch.zeros(d, d, dtype=dtype),
        "sublayer.bias": torch.zeros(d, dtype=dtype),
    }


_TRAIN_SEEDED = Phrase("train mode (seeded)", "train 模式（固定随机种子）")
_EVAL_MODE = Phrase("eval mode", "eval 模式")
_SUBLAYER_DEFAULT_INIT = Phrase(
    "default init (the sublayer as given, norm weight 1 and bias 0)",
    "默认初始化（子层保持传入时的参数，norm 的 weight 为 1、bias 为 0）",
)
_SUBLAYER_RANDOM = Phrase(
    "random norm weight/bias and sublayer parameters", "norm 的 weight/bias 和子层参数取随机值"
)
_THEN_UPDATE_EVAL_BATCH_OF_1 = Phrase(
    "then an update and an eval-mode call on a batch of 1",
    "随后更新一次参数，再以 eval 模式在批大小为 1 的输入上调用",
)


def sublayer_block_case(
    gen: torch.Generator,
    *,
    name: str,
    what: Phrase | str,
    x: torch.Tensor,
    sublayer: ModuleArg,
    init_kwargs: dict[str, InitValue],
    state: dict[str, torch.Tensor] | None,
    notes: Sequence[Phrase],
    train: bool,
    backward: bool,
    layout: Layout,
    then_update: bool,
    stochastic: bool,
) -> Case:
    """A case of a block that wraps a registry ``sublayer`` with a LayerNorm and a residual
    (``residual_block``, ``norm_block``). One call on ``x``, seeded in train mode so that both
    sides draw the same dropout masks; with ``then_update``, an optimiser-like update and an
    eval-mode call on a batch of 1. ``notes`` are the exercise's own words on its options; the
    mode, the parameters (``state`` None: the default initialisation) and the call's layout are
    described here."""
    extra = [
        *notes,
        _TRAIN_SEEDED if train else _EVAL_MODE,
        _SUBLAYER_DEFAULT_INIT if state is None else _SUBLAYER_RANDOM,
    ]
    if layout != "contiguous":
        extra.append(non_contiguous(layout))
    if then_update:
        extra.append(_THEN_UPDATE_EVAL_BATCH_OF_1)
    if not backward:
        extra.append(FORWARD_ONLY_NO_GRAD)
    steps: list[Step] = [
        call(gen, x, backward=backward, train=train, seed=seed(gen) if train else 0, layout=layout)
    ]
    if then_update:
        if state is None:
            raise ValueError(f"case {name}: an update needs parameters to update")
        steps += [
            update(gen, state),
            call(gen, normal(gen, (1, *x.shape[1:]), x.dtype), note=after_the_update()),
        ]
    words = described(x, what if isinstance(what, Phrase) else same(what), *extra)
    return scenario(
        name=name,
        description=words.en,
        description_zh=words.zh,
        steps=steps,
        init_kwargs=init_kwargs,
        state=state,
        module_args={"sublayer": sublayer},
        stochastic=stochastic,
    )


# Rows constant along the last dim (``constant_rows``), said once for every table that uses them.
CONSTANT_ROWS = Phrase("constant along the last dim (k/4)", "每行沿最后一维取同一个常数（k/4）")
CONSTANT_ROWS_WITH_ZERO = Phrase(
    "constant along the last dim (k/4, one row all zero)",
    "每行沿最后一维取同一个常数（k/4，其中一行全为 0）",
)


def norm_function_case(
    gen: torch.Generator,
    *,
    name: str,
    what: Phrase | str,
    x: torch.Tensor,
    eps: float,
    bias: bool,
    default_params: bool,
    backward: bool,
    layout: Layout,
    feature_axis: int = -1,
    notes: Sequence[Phrase] = (),
) -> Case:
    """One call of a norm written as a ``torch.autograd.Function`` whose backward is graded
    (``layer_norm_backward``, ``rms_norm_backward``, ``batch_norm_backward``):
    ``apply(x, weight[, bias], eps)`` with a random upstream gradient. The weight is drawn
    around 1 (in float64, then cast) and the bias around 0, so a gradient that forgets either
    shows; ``default_params`` sends ones and zeros. ``feature_axis`` is where the parameters'
    features lie (1 for batch norm's channels)."""
    d, dtype = x.shape[feature_axis], x.dtype
    inputs = [x]
    if default_params:
        inputs.append(torch.ones(d, dtype=dtype))
        if bias:
            inputs.append(torch.zeros(d, dtype=dtype))
    else:
        inputs.append((1 + 0.5 * normal(gen, (d,), torch.float64)).to(dtype))
        if bias:
            inputs.append(normal(gen, (d,), dtype))
    grads = (normal(gen, x.shape, dtype),) if backward else None
    if bias:
        params = (
            Phrase("weight = 1, bias = 0", "weight = 1，bias = 0")
            if default_params
            else RANDOM_WEIGHT_BIAS
        )
    else:
        params = same("weight = 1") if default_params else RANDOM_WEIGHT
    extra = [*notes, params, same(f"eps = {eps:g}")]
    if layout != "contiguous":
        extra.append(non_contiguous(layout))
    if not backward:
        extra.append(FORWARD_ONLY_NO_GRAD)
    words = described(x, what if isinstance(what, Phrase) else same(what), *extra)
    return scenario(
        name=name,
        description=words.en,
        description_zh=words.zh,
        steps=[Call(tuple(inputs), grads, layout=layout, args=(eps,))],
        init_kwargs={},
        state=None,
    )


def norm_function_cases(
    gen: torch.Generator, *, bias: bool, default_eps: float, zero_row: bool
) -> list[Case]:
    """The case table shared by ``layer_norm_backward`` and ``rms_norm_backward`` (``bias``:
    LayerNorm's beta; ``zero_row``: one constant row all zero, where only eps keeps RMSNorm's
    1/rms finite). Order matters for naming: the families that separate similar mistakes (a
    handful of features, a large eps) come first."""
    f32, f64 = torch.float32, torch.float64
    cases: list[Case] = []

    def add(
        name: str,
        what: Phrase | str,
        x: torch.Tensor,
        *,
        eps: float = default_eps,
        default_params: bool = False,
        backward: bool = True,
        layout: Layout = "contiguous",
    ) -> None:
        cases.append(
            norm_function_case(
                gen,
                name=name,
                what=what,
                x=x,
                eps=eps,
                bias=bias,
                default_params=default_params,
                backward=backward,
                layout=layout,
            )
        )

    add(
        "few_features",
        "N(0,1) * 2 + 1",
        normal(gen, shape_for(gen, 2, choice(gen, [2, 3, 4, 6])), f64) * 2 + 1,
    )
    add("rows_2d", "N(0,1)", normal(gen, shape_for(gen, 2, 48), f32))
    add("large_eps", "N(0,1)", normal(gen, shape_for(gen, 2, choice(gen, [3, 5, 8])), f64), eps=0.1)
    add("leading_3d", "N(0,1)", normal(gen, shape_for(gen, 3, 24), f32))
    add("leading_4d_strided", "N(0,1)", normal(gen, shape_for(gen, 4, 16), f64), layout="strided")
    add("vector_1d", "N(0,1)", normal(gen, (choice(gen, [33, 50, 96]),), f32))
    add("batch_of_one", "N(0,1)", normal(gen, (1, 1, choice(gen, [17, 40])), f32))
    add("tiny_inputs", "N(0,1) * 1e-3", normal(gen, shape_for(gen, 2, 16), f32) * 1e-3, eps=1e-5)
    add("offset_1e3", "N(0,1) + 1e3", normal(gen, shape_for(gen, 2, 64, max_rows=16), f32) + 1e3)
    rows = constant_rows(gen, shape_for(gen, 2, 12, max_rows=8), f32)
    if zero_row:
        rows.view(-1, rows.shape[-1])[0] = 0.0
        add("constant_rows", CONSTANT_ROWS_WITH_ZERO, rows)
    else:
        add("constant_rows", CONSTANT_ROWS, rows)
    add(
        "default_params_transposed",
        "N(0,1)",
        normal(gen, shape_for(gen, 3, 32), f32),
        default_params=True,
        layout="transposed",
    )
    odd = choice(gen, [200, 300])
    add(
        "odd_features_f64",
        "N(0,1) + 1e4",
        normal(gen, shape_for(gen, 2, odd, max_rows=8), f64) + 1e4,
    )
    add("forward_only", "N(0,1)", normal(gen, shape_for(gen, 2, 32), f32), backward=False)
    return cases


def norm_cases(gen: torch.Generator, *, default_eps: float, bias: bool) -> list[Case]:
    """The case table shared by ``layer_norm`` and ``rms_norm`` (``bias``: LayerNorm's beta).

    Each family is there to expose a specific mistake: small dims for the unbiased variance,
    constant rows and tiny inputs for eps, a large offset for E[x^2] - E[x]^2, random
    parameters for a forgotten or swapped weight/bias, 2-D and up for the wrong axis, upstream
    gradients for detached statistics, a no-grad forward for in-place mutation of the input.
    """
    f32, f64, bf16 = torch.float32, torch.float64, torch.bfloat16
    affine = Phrase("random weight/bias", "weight/bias 取随机值") if bias else RANDOM_WEIGHT
    default = (
        Phrase("default init (weight = 1, bias = 0)", "默认初始化（weight = 1，bias = 0）")
        if bias
        else Phrase("default init (weight = 1)", "默认初始化（weight = 1）")
    )

    def params(dim: int, dtype: torch.dtype) -> dict[str, torch.Tensor]:
        state = {"weight": affine_weight(gen, dim, dtype)}
        if bias:
            state["bias"] = affine_bias(gen, dim, dtype)
        return state

    def eps_note(eps: float) -> Phrase:
        if eps != default_eps:
            return same(f"eps = {eps:g}")
        return Phrase(f"default eps = {eps:g}", f"默认 eps = {eps:g}")

    cases: list[Case] = []

    def add(
        name: str,
        what: Phrase,
        x: torch.Tensor,
        *,
        eps: float = default_eps,
        random_params: bool = True,
        backward: bool = True,
        layout: Layout = "contiguous",
    ) -> None:
        dim = x.shape[-1]
        kwargs: dict[str, InitValue] = {"dim": dim}
        if eps != default_eps:
            kwargs["eps"] = eps
        extra = [affine if random_params else default, eps_note(eps)]
        if layout != "contiguous":
            extra.append(non_contiguous(layout))
        if not backward:
            extra.append(FORWARD_ONLY_NO_GRAD)
        words = described(x, what, *extra)
        cases.append(
            scenario(
                name=name,
                description=words.en,
                description_zh=words.zh,
                steps=[call(gen, x, backward=backward, layout=layout)],
                init_kwargs=kwargs,
                state=params(dim, x.dtype) if random_params else None,
            )
        )

    def add_train_update_eval(name: str, x: torch.Tensor) -> None:
        """Real code trains, steps the optimiser and is called again: statistics detached only
        in training, or anything cached on the first call, shows on the later steps."""
        dim = x.shape[-1]
        state = params(dim, x.dtype)
        again = normal(gen, (1, *x.shape[1:]), x.dtype)  # a leading batch of 1
        words = described(x, NORMAL, affine, eps_note(default_eps), TRAIN_UPDATE_EVAL)
        cases.append(
            scenario(
                name=name,
                description=words.en,
                description_zh=words.zh,
                steps=[
                    call(gen, x, train=True),
                    update(gen, state),
                    call(
                        gen,
                        again,
                        note=Phrase(
                            "after the update, on a batch of 1", "参数更新之后，批大小为 1"
                        ),
                    ),
                ],
                init_kwargs={"dim": dim},
                state=state,
            )
        )

    # Order matters: the verdict diagnoses a known mistake on the first few failing cases,
    # so the families that tell similar mistakes apart (n - 1 vs n, where eps goes, the
    # E[x^2] - E[x]^2 cancellation) come first.
    add(
        "default_init",
        NORMAL,
        normal(gen, shape_for(gen, 2, 16, max_rows=8), f32),
        random_params=False,
    )
    # A handful of features: there the unbiased variance is off by a factor n/(n-1) >= 8/7.
    add("small_dim", NORMAL, normal(gen, shape_for(gen, 2, choice(gen, [3, 4, 5, 8])), f64))
    rows = constant_rows(gen, shape_for(gen, 3, 24, max_rows=16), f32)
    rows.view(-1, rows.shape[-1])[0] = 0.0  # an all-zero row: the RMS is 0 too
    add(
        "constant_rows",
        CONSTANT_ROWS_WITH_ZERO,
        rows,
    )
    add("eps_0.1_f64", NORMAL, normal(gen, shape_for(gen, 2, 40), f64), eps=0.1)
    add("tiny_scale", same("N(0,1) * 1e-3"), normal(gen, shape_for(gen, 2, 48), f32) * 1e-3)
    # float32 near 1e3: E[x^2] - E[x]^2 cancels catastrophically (~1e6 - 1e6); the two-pass
    # formula keeps ~5e-5 relative accuracy, which is float32's own limit at this offset.
    add(
        "offset_1e3",
        same("N(0,1) + 1e3"),
        normal(gen, shape_for(gen, 3, 64, max_rows=16), f32) + 1e3,
    )
    add_train_update_eval("train_update_eval", normal(gen, shape_for(gen, 3, 64), f32))
    add("vector_1d", NORMAL, normal(gen, (choice(gen, [33, 50, 96]),), f32))
    add(
        "strided_4d_f64",
        NORMAL,
        normal(gen, shape_for(gen, 4, 32), f64),
        layout="strided",
    )
    add(
        "eps_0.01", same("N(0,1) * 0.1"), normal(gen, shape_for(gen, 3, 20), f32, std=0.1), eps=1e-2
    )
    # One feature: LayerNorm gives exactly bias, RMSNorm about sign(x) * weight. Forward only:
    # the exact input gradient is 0 (LayerNorm) or eps-sized cancellation noise (RMSNorm),
    # which would test the comparison's absolute floor rather than the learner.
    add(
        "dim_1",
        NORMAL,
        normal(gen, shape_for(gen, 2, 1, max_rows=9), f64),
        backward=False,
    )
    add("wide_1024", NORMAL, normal(gen, shape_for(gen, 3, 1024, max_rows=12), f32))
    # Feature sizes that are no multiple of a power of two: code that chunks by 128 shows.
    odd = choice(gen, [200, 300])
    add("offset_1e4_f64", same("N(0,1) + 1e4"), normal(gen, shape_for(gen, 2, odd), f64) + 1e4)
    add(
        "transposed",
        NORMAL,
        normal(gen, shape_for(gen, 3, 48, max_rows=24), f32),
        layout="transposed",
    )
    add("forward_no_grad", NORMAL, normal(gen, shape_for(gen, 3, 32), f32), backward=False)
    add("bfloat16", NORMAL, normal(gen, shape_for(gen, 2, 64, max_rows=8), bf16))
    return cases
