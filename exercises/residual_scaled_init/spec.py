"""Grading spec for ``residual_scaled_init``: GPT-2's initialisation of a small GPT-2-style
stack, ``residual_scaled_init(model, n_layers, std=0.02)``, graded by its law
(``laws.init_law``) on the model the grader hands over (``handed_models.TinyGPT``).

Contract, in place on every parameter of ``model``: every ``nn.Linear`` weight and every
``nn.Embedding`` weight N(0, std); the residual branches' output projections (attention's
``attn.c_proj`` and the MLP's ``mlp.c_proj``, the two matrices whose output is added to the
residual stream) N(0, std / sqrt(2 n_layers)) instead; every Linear bias 0; every LayerNorm
weight 1 and bias 0. Returns nothing (what it returns is not read); ``.grad`` is not graded.

Grading: each case builds the model from its tensors (PyTorch's default initialisation, once
a model moved by training) and calls the function with ``n_layers`` and ``std`` as keywords
(``std`` left out in one case). The grader seeds torch's generator before the call: code that
draws as the reference does (one ``normal_`` per weight, in module order) matches value by
value. Anything else is judged by the law, in the parent: per tensor the sample standard
deviation within chi-square bounds for its size, the mean within 6 sigma, at least the
binomial lower bound of draws beyond 2 std (a uniform of the right spread has none), and the
constant tensors exactly 1 or 0. The known mistakes are named from which group broke the law
and which wrong standard deviation fits it.

Nothing is banned: ``torch.nn.init`` is the tool of the job; the exercise is which tensor gets
which law.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from typing import Any

import torch
from torch import nn

from api.grading import handed_models
from api.grading.draw import choice, normal, randint, seed
from api.grading.laws import InitDraw, init_law
from api.grading.spec import Call, Case, ExerciseSpec, InitValue, KnownMistake, Layout, ModuleArg
from api.grading.spec import Parameters as On

F32, F64 = torch.float32, torch.float64
DEFAULT_STD = 0.02


def _residual(name: str) -> bool:
    """The residual branches' output projections: GPT-2's ``c_proj`` (attention's, the MLP's)."""
    return name.endswith("c_proj.weight")


def residual_scaled_init(model: nn.Module, n_layers: int, std: float = DEFAULT_STD) -> None:
    """The reference: one pass over the modules, in their order."""
    scaled = std / math.sqrt(2 * n_layers)
    with torch.no_grad():
        for name, module in model.named_modules():
            if isinstance(module, nn.Linear):
                module.weight.normal_(0.0, scaled if _residual(f"{name}.weight") else std)
                if module.bias is not None:
                    module.bias.zero_()
            elif isinstance(module, nn.Embedding):
                module.weight.normal_(0.0, std)
            elif isinstance(module, nn.LayerNorm):
                module.weight.fill_(1.0)
                module.bias.zero_()


# --- the law -------------------------------------------------------------------------------

_GROUPS = {
    "embed": ("embeddings (wte, wpe)", "词嵌入与位置嵌入（wte、wpe）"),
    "linear": ("Linear weights off the residual stream", "不直接加到残差流上的 Linear 权重"),
    "proj": ("residual output projections (c_proj)", "残差分支的输出投影（c_proj）"),
    "bias": ("Linear biases", "Linear 的偏置"),
    "ln_weight": ("LayerNorm weights", "LayerNorm 的 weight"),
    "ln_bias": ("LayerNorm biases", "LayerNorm 的 bias"),
}


def _kwargs(case: Case) -> tuple[int, float]:
    return int(case.init_kwargs["n_layers"]), float(case.init_kwargs.get("std", DEFAULT_STD))


def expect(case: Case, name: str) -> InitDraw:
    """What the parameter ``name`` of the case's model must hold, and the standard deviations
    the known mistakes give it."""
    n_layers, std = _kwargs(case)
    depth = math.sqrt(2 * n_layers)

    def law(key: str, sd: float | None, value: float = 0.0, *wrong: tuple[str, float]) -> InitDraw:
        en, zh = _GROUPS[key]
        return InitDraw(key, en, zh, sd, value, tuple(wrong))

    if name.endswith("ln_1.weight") or name.endswith("ln_2.weight") or name == "ln_f.weight":
        return law("ln_weight", None, 1.0)
    if ".ln_" in name or name.startswith("ln_f"):
        return law("ln_bias", None, 0.0)
    if name.endswith(".bias"):
        return law("bias", None, 0.0)
    if name.startswith("wte") or name.startswith("wpe"):
        return law("embed", std, 0.0, ("std_as_variance", std * std))
    if _residual(name):
        scaled = std / depth
        return law(
            "proj",
            scaled,
            0.0,
            ("std_as_variance", scaled * scaled),
            ("std_as_variance", std * std / depth),
            ("no_depth_scaling", std),
            ("sqrt_n_layers", std / math.sqrt(n_layers)),
            ("one_over_n_layers", std / n_layers),
        )
    return law(
        "linear", std, 0.0, ("std_as_variance", std * std), ("every_linear_scaled", std / depth)
    )


# What broke the law names the mistake, most telling first: a variance read as a standard
# deviation shrinks every draw; a uniform has the right spread and no tails; a depth factor on
# the matrices off the residual stream; the factor of the residual projections; then the
# constants.
_ORDER = (
    "std_as_variance",
    "uniform_not_normal",
    "every_linear_scaled",
    "no_depth_scaling",
    "sqrt_n_layers",
    "one_over_n_layers",
    "layernorm_reinitialised",
    "biases_not_zeroed",
)
_BY_SIGN = {
    "linear:tails": "uniform_not_normal",
    "proj:tails": "uniform_not_normal",
    "embed:tails": "uniform_not_normal",
    "ln_weight:changed": "layernorm_reinitialised",
    "ln_bias:changed": "layernorm_reinitialised",
    "bias:changed": "biases_not_zeroed",
}


# Factors of the residual projections that coincide with another at some depth (1/sqrt(n) is
# no factor at n = 1, 1/n is the right one at n = 2): the one most cases show is named.
_DEPTH = ("no_depth_scaling", "sqrt_n_layers", "one_over_n_layers")


def name_from_signs(signs: Sequence[str]) -> str | None:
    named = [_BY_SIGN.get(s, s) for s in signs]
    counts = Counter(n for n in named if n in _DEPTH)
    depth = max(_DEPTH, key=lambda m: counts[m]) if counts else None
    return next((m for m in _ORDER if m in named and (m not in _DEPTH or m == depth)), None)


# --- the cases ----------------------------------------------------------------------------


def make_cases(gen: torch.Generator) -> list[Case]:
    """Twelve models, one call each: depths 1 to 16 (1 and 2 are where some wrong factors
    coincide with the right one; 8 and 16 where 1/n and 1/sqrt(n) are far from 1/sqrt(2n)),
    std 0.02 (given, and left to its default), 0.05 and 0.01, a model moved by training (its
    LayerNorms no longer 1 and 0), a one-token vocabulary and a width past 128, float64, a
    transposed embedding, and calls with and without gradients held."""
    cases: list[Case] = []

    def add(
        name: str,
        dims: tuple[int, int, int, int, int],
        dtype: torch.dtype,
        *,
        std: float | None = DEFAULT_STD,
        grads: bool = True,
        trained: bool = False,
        layout: Layout = "contiguous",
    ) -> None:
        vocab, n_ctx, dim, n_layers, hidden = dims
        desc = ModuleArg("tiny_gpt", dims, seed(gen))
        model = handed_models.blank(desc)
        names = tuple(n for n, _ in model.named_parameters())
        values = tuple(p.detach().to(dtype) for p in model.parameters())
        if trained:
            values = tuple(v + normal(gen, v.shape, dtype, std=0.05) for v in values)
        held = tuple(normal(gen, v.shape, dtype, std=0.01) for v in values) if grads else None
        kwargs: dict[str, InitValue] = {"n_layers": n_layers}
        if std is not None:
            kwargs["std"] = std
        call = Call(
            values,
            held,
            seed=seed(gen),
            layout=layout,
            parameters=On(names=names, form="model", model=desc),
        )
        said = (
            f"TinyGPT(vocab={vocab}, n_ctx={n_ctx}, dim={dim}, n_layers={n_layers}, "
            f"hidden={hidden})"
        )
        how = "moved by training" if trained else "as PyTorch builds it"
        how_zh = "训练过一段时间" if trained else "PyTorch 默认初始化"
        given = f"std = {std:g}" if std is not None else "std left to its default 0.02"
        given_zh = f"std = {std:g}" if std is not None else "std 用默认值 0.02"
        extra = "" if layout == "contiguous" else f", wte.weight laid out {layout}"
        extra_zh = "" if layout == "contiguous" else f"，wte.weight 在内存中为 {layout} 布局"
        grad_en = "" if grads else ", no .grad"
        grad_zh = "" if grads else "，没有 .grad"
        cases.append(
            Case(
                name=name,
                description=f"x = {said} {how}, {dtype_name(dtype)}, {given}{extra}{grad_en}",
                description_zh=(
                    f"x = {said}，{how_zh}，{dtype_name(dtype)}，{given_zh}{extra_zh}{grad_zh}"
                ),
                x=values[0],
                init_kwargs=kwargs,
                steps=(call,),
                stochastic=True,
            )
        )

    width = choice(gen, (32, 40, 48))
    add("four_layers", (64, 32, width, 4, 4 * width), F32)
    add("eight_layers_f64", (48, 32, 32, 8, 128), F64)
    add("one_layer", (40, 24, 48, 1, 192), F32)
    add("twelve_layers_std_0.05", (32, 32, 32, 12, 128), F32, std=0.05)
    add("default_std_six_layers", (50, 32, 32, 6, 128), F64, std=None)
    add("three_layers_no_grad", (64, 32, 40, 3, 160), F32, grads=False)
    add("trained_model", (40, 32, 32, 5, 128), F64, trained=True)
    add("one_token_vocab_wide", (1, 8, 2 * randint(gen, 66, 70) + 1, 3, 256), F32)
    add("two_layers", (64, 32, 32, 2, 128), F32)
    add("transposed_embedding", (72, 32, 32, 5, 128), F64, layout="transposed")
    add("std_0.01_no_grad", (48, 32, 48, 6, 192), F32, std=0.01, grads=False)
    add("sixteen_layers", (32, 32, 32, 16, 128), F32)
    return cases


def dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


# --- Known mistakes: the contract's signature, one error each. ---


def _init(
    *,
    proj: Any = None,
    linear: Any = None,
    embed: Any = None,
    draw: str = "normal",
    biases: bool = True,
    layernorm: str = "reset",
) -> Any:
    """A residual_scaled_init with one thing wrong: ``proj``/``linear``/``embed`` the standard
    deviation of each group as a function of (std, n_layers); ``draw`` "uniform" for a uniform
    of that standard deviation; ``biases`` False leaves them as found; ``layernorm`` "random"
    draws its weight and bias like a Linear's."""

    def fn(model: nn.Module, n_layers: int, std: float = DEFAULT_STD) -> None:
        sd_proj = (proj or (lambda s, n: s / math.sqrt(2 * n)))(std, n_layers)
        sd_linear = (linear or (lambda s, n: s))(std, n_layers)
        sd_embed = (embed or (lambda s, n: s))(std, n_layers)

        def fill(t: torch.Tensor, sd: float) -> None:
            if draw == "uniform":
                t.uniform_(-sd * math.sqrt(3.0), sd * math.sqrt(3.0))
            else:
                t.normal_(0.0, sd)

        with torch.no_grad():
            for name, module in model.named_modules():
                if isinstance(module, nn.Linear):
                    fill(module.weight, sd_proj if _residual(f"{name}.weight") else sd_linear)
                    if module.bias is not None and biases:
                        module.bias.zero_()
                elif isinstance(module, nn.Embedding):
                    fill(module.weight, sd_embed)
                elif isinstance(module, nn.LayerNorm):
                    if layernorm == "random":
                        module.weight.normal_(0.0, std)
                        module.bias.normal_(0.0, std)
                    else:
                        module.weight.fill_(1.0)
                        module.bias.zero_()

    return fn


def _mistake(name: str, title: str, title_zh: str, en: str, zh: str, build: Any) -> KnownMistake:
    return KnownMistake(
        name=name, title=title, explanation=en, title_zh=title_zh, explanation_zh=zh, build=build
    )


MISTAKES = (
    _mistake(
        "no_depth_scaling",
        "Residual output projections not scaled by depth",
        "残差分支的输出投影没有按深度缩放",
        "You drew attn.c_proj and mlp.c_proj from N(0, std) like every other matrix. Each of "
        "the 2 n_layers residual branches adds its output to the stream, so at initialisation "
        "the stream's variance grows linearly with depth. GPT-2 draws these two projections "
        "from N(0, std / sqrt(2 n_layers)), which keeps the sum about one branch's size.",
        "你让 attn.c_proj 和 mlp.c_proj 也和其他矩阵一样从 N(0, std) 中抽取。2 n_layers 个残差"
        "分支都会把输出加到残差流上，初始化时残差流的方差因此随深度线性增长。GPT-2 让这两个投影"
        "从 N(0, std / sqrt(2 n_layers)) 中抽取，总和就大约保持在一个分支的量级。",
        _init(proj=lambda s, n: s),
    ),
    _mistake(
        "sqrt_n_layers",
        "Scaled by 1/sqrt(n_layers) instead of 1/sqrt(2 n_layers)",
        "按 1/sqrt(n_layers) 缩放，而不是 1/sqrt(2 n_layers)",
        "You divided the output projections' std by sqrt(n_layers). Every block holds two "
        "residual branches, attention and the MLP, each adding to the stream: 2 n_layers "
        "terms in all, so the factor is 1/sqrt(2 n_layers), and your projections are sqrt(2) "
        "too large.",
        "你把输出投影的标准差除以了 sqrt(n_layers)。每个块里有两个残差分支（注意力和 MLP），"
        "都会往残差流上加：一共 2 n_layers 项，所以因子是 1/sqrt(2 n_layers)，你的投影大了 "
        "sqrt(2) 倍。",
        _init(proj=lambda s, n: s / math.sqrt(n)),
    ),
    _mistake(
        "every_linear_scaled",
        "Every Linear scaled by depth, not only the residual output projections",
        "所有 Linear 都按深度缩放了，而不只是残差分支的输出投影",
        "You applied std / sqrt(2 n_layers) to c_attn, c_fc and lm_head too. Only the matrices "
        "whose output is added to the residual stream (attn.c_proj, mlp.c_proj) are scaled: "
        "the others read a normalised input and feed a softmax, a nonlinearity or the logits, "
        "and shrinking them only weakens the signal inside each branch.",
        "你把 std / sqrt(2 n_layers) 也用在了 c_attn、c_fc 和 lm_head 上。只有输出会加到残差流"
        "上的矩阵（attn.c_proj、mlp.c_proj）需要缩放：其他矩阵读的是归一化后的输入，后面接的是 "
        "softmax、非线性或输出的对数几率，缩小它们只会削弱分支内部的信号。",
        _init(linear=lambda s, n: s / math.sqrt(2 * n)),
    ),
    _mistake(
        "one_over_n_layers",
        "Scaled by 1/n_layers instead of 1/sqrt(2 n_layers)",
        "按 1/n_layers 缩放，而不是 1/sqrt(2 n_layers)",
        "You divided the output projections' std by n_layers. The factor targets variance: 2 "
        "n_layers branches add their variances, so each branch's variance is divided by "
        "2 n_layers, its standard deviation by sqrt(2 n_layers). At 1/n_layers a deep model's "
        "branches start far too small (at 16 layers, 1/16 where 1/sqrt(32) = 1/5.7 is due).",
        "你把输出投影的标准差除以了 n_layers。这个因子针对的是方差：2 n_layers 个分支的方差相加，"
        "所以每个分支的方差除以 2 n_layers，标准差除以 sqrt(2 n_layers)。按 1/n_layers 缩放时，"
        "深模型的分支一开始就小得多（16 层时是 1/16，而应为 1/sqrt(32) = 1/5.7）。",
        _init(proj=lambda s, n: s / n),
    ),
    _mistake(
        "uniform_not_normal",
        "Uniform draws instead of normal ones",
        "用了均匀分布，而不是正态分布",
        "Your weights have the right standard deviation but come from a uniform distribution "
        "(uniform_(-a, a) with a = sqrt(3) std): no draw beyond sqrt(3) std, where a normal "
        "has 4.6% of its draws beyond 2 std. GPT-2's rule is N(0, std); a truncated normal "
        "passes only with bounds so far out that it cuts nothing (trunc_normal_'s default "
        "a = -2, b = 2 at std 0.02).",
        "你的权重标准差是对的，但来自均匀分布（uniform_(-a, a)，a = sqrt(3) std）：没有任何样本"
        "超过 sqrt(3) std，而正态分布有 4.6% 的样本超过 2 std。GPT-2 的规则是 N(0, std)；截断正态"
        "只有在截断边界远到什么也截不掉时才算对（std 为 0.02 时 trunc_normal_ 的默认 a = -2、"
        "b = 2）。",
        _init(draw="uniform"),
    ),
    _mistake(
        "biases_not_zeroed",
        "Linear biases not set to zero",
        "Linear 的偏置没有置零",
        "You drew the weights but left the Linear biases as you found them (PyTorch's default "
        "is uniform in +-1/sqrt(fan_in), far larger than 0.02), or drew them too. GPT-2 starts "
        "every bias at 0: at initialisation each layer's output is then the weights' doing "
        "alone, and the residual branches add nothing systematic to the stream.",
        "你抽取了权重，却把 Linear 的偏置保持原样（PyTorch 默认是 +-1/sqrt(fan_in) 内的均匀分布，"
        "比 0.02 大得多），或者也对它做了随机抽取。GPT-2 让每个偏置都从 0 开始：初始化时每层的输出"
        "只来自权重，残差分支也不会给残差流带来系统性的偏移。",
        _init(biases=False),
    ),
    _mistake(
        "layernorm_reinitialised",
        "LayerNorm weight and bias not 1 and 0",
        "LayerNorm 的 weight 和 bias 不是 1 和 0",
        "Your LayerNorms' weight and bias were drawn like a Linear's (a loop over every "
        "parameter with normal_), or left as a trained model had them. A LayerNorm starts as "
        "the plain normalisation, weight 1 and bias 0: a weight near 0 would scale every "
        "normalised input down to almost nothing, and the block's branches would start dead.",
        "你的 LayerNorm 的 weight 和 bias 像 Linear 那样被随机抽取了（对所有参数一律 normal_），"
        "或者保留了训练过的模型里的值。LayerNorm 的初始状态应当是单纯的归一化：weight 为 1，bias "
        "为 0；weight 接近 0 会把每个归一化后的输入都缩得几乎为零，块里的分支一开始就没有输出。",
        _init(layernorm="random"),
    ),
    _mistake(
        "std_as_variance",
        "The variance passed where the standard deviation is due (0.02 ** 2)",
        "把方差当成标准差传了进去（0.02 ** 2）",
        "Your weights' standard deviation is std squared: 0.0004 where 0.02 is due (or the "
        "scaled std squared for the projections). normal_(mean, std) and torch.randn * s take "
        "a standard deviation, not a variance; 0.02 is GPT-2's standard deviation.",
        "你的权重标准差是 std 的平方：应为 0.02 的地方是 0.0004（输出投影则是缩放后 std 的"
        "平方）。normal_(mean, std) 和 torch.randn * s 接受的都是标准差，不是方差；0.02 就是 "
        "GPT-2 的标准差。",
        _init(
            proj=lambda s, n: (s / math.sqrt(2 * n)) ** 2,
            linear=lambda s, n: s * s,
            embed=lambda s, n: s * s,
        ),
    ),
)


SPEC = ExerciseSpec(
    slug="residual_scaled_init",
    class_name="residual_scaled_init",
    kind="function",
    reference=residual_scaled_init,
    make_cases=make_cases,
    mistakes=MISTAKES,
    # Any correct draw passes: a case the replayed stream does not match is judged by the law.
    law=init_law(expect, name_from_signs),
    ranks=(2,),
    trains=False,
    # A float64 model filled from float32 draws (torch.randn(shape) * std, then copy_) has
    # the law all the same: the law reads no precision.
    float32_internals=True,
    banned=(),
)
