"""Grading spec for ``norm_block``: one residual block, four places for the norm.

    pre       x + f(norm(x))                      (GPT-2 onwards, Llama)
    post      norm(x + f(x))                      (the 2017 Transformer, BERT)
    sandwich  x + norm_out(f(norm_in(x)))         (CogView's Sandwich-LN)
    deepnorm  norm(alpha * x + f(x))              (DeepNet's DeepNorm)

The norms are ``nn.LayerNorm(dim)`` (eps 1e-5), named ``norm``, or ``norm_in`` and ``norm_out``
for the sandwich. The sublayer ``f`` comes from the module-argument registry
(``api/grading/modargs.py``): its calls are counted (once per forward), a noisy one draws its
own dropout in train mode, and a constructor that re-initialises it shows on the default-init
case. An unknown ``placement`` must raise ValueError in the constructor (construction cases).
"""

from __future__ import annotations

import torch
from torch import nn

from api.grading import modargs
from api.grading.draw import (
    affine_bias,
    affine_weight,
    choice,
    normal,
    raises,
    seed,
    shape_for,
    sublayer_block_case,
    sublayer_parameters,
)
from api.grading.phrase import constructor_raises, option, same
from api.grading.spec import Case, ExerciseSpec, InitValue, KnownMistake, Layout, ModuleArg

PLACEMENTS = ("pre", "post", "sandwich", "deepnorm")


class NormBlock(nn.Module):
    """The reference, and the constructor every mistake below shares."""

    def __init__(
        self, dim: int, sublayer: nn.Module, placement: str = "pre", alpha: float = 1.0
    ) -> None:
        super().__init__()
        if placement not in PLACEMENTS:
            raise ValueError(f"placement must be one of {PLACEMENTS}, not {placement!r}")
        self.placement = placement
        self.alpha = alpha
        self.sublayer = sublayer
        if placement == "sandwich":
            self.norm_in = nn.LayerNorm(dim)
            self.norm_out = nn.LayerNorm(dim)
        else:
            self.norm = nn.LayerNorm(dim)

    # Typed wrappers: nn.Module.__call__ returns Any, and the mistakes below reuse them.
    def f(self, h: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.sublayer(h)
        return out

    def n(self, name: str, h: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = getattr(self, name)(h)
        return out

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.placement == "pre":
            return x + self.f(self.n("norm", x))
        if self.placement == "post":
            return self.n("norm", x + self.f(x))
        if self.placement == "sandwich":
            return x + self.n("norm_out", self.f(self.n("norm_in", x)))
        return self.n("norm", self.alpha * x + self.f(x))


def _norm_state(
    gen: torch.Generator, placement: str, dim: int, dtype: torch.dtype
) -> dict[str, torch.Tensor]:
    names = ("norm_in", "norm_out") if placement == "sandwich" else ("norm",)
    state: dict[str, torch.Tensor] = {}
    for name in names:
        state[f"{name}.weight"] = affine_weight(gen, dim, dtype)
        state[f"{name}.bias"] = affine_bias(gen, dim, dtype)
    return state


def deepnet_alpha(layers: int) -> float:
    """DeepNet's alpha for a decoder-only stack of ``layers`` layers: (2N)^(1/4)."""
    return float((2 * layers) ** 0.25)


def make_cases(gen: torch.Generator) -> list[Case]:
    f32, f64 = torch.float32, torch.float64
    cases: list[Case] = []

    def add(
        name: str,
        *,
        placement: str | None,
        kind: str,
        shape: tuple[int, ...],
        dtype: torch.dtype,
        hidden: int = 0,
        alpha: float | None = None,
        train: bool = False,
        backward: bool = True,
        what: str = "N(0,1)",
        scale: float = 1.0,
        default_init: bool = False,
        then_update: bool = False,
        layout: Layout = "contiguous",
    ) -> None:
        dim = shape[-1]
        desc = ModuleArg(kind, (dim, hidden) if hidden else (dim,), init_seed=seed(gen))
        x = normal(gen, shape, dtype, std=scale)
        # None leaves the argument out: the constructor's defaults are part of the contract.
        kwargs: dict[str, InitValue] = {"dim": dim}
        if placement is not None:
            kwargs["placement"] = placement
        if alpha is not None:
            kwargs["alpha"] = alpha
        where = placement or "pre"
        state = None
        if not default_init:
            state = {**_norm_state(gen, where, dim, dtype), **sublayer_parameters(gen, desc, dtype)}
        notes = [option("placement", repr(where), default=placement is None)]
        if alpha is not None:
            notes.append(same(f"alpha = {alpha:.4g}"))
        notes.append(modargs.described("sublayer", desc))
        cases.append(
            sublayer_block_case(
                gen,
                name=name,
                what=what,
                x=x,
                sublayer=desc,
                init_kwargs=kwargs,
                state=state,
                notes=notes,
                train=train,
                backward=backward,
                layout=layout,
                then_update=then_update,
                stochastic=train and kind == "noisy_mlp",
            )
        )

    # Order matters: the verdict names a known mistake from the first failing cases, so every
    # placement shows early, with an alpha far from 1 for DeepNorm.
    add("pre_defaults", placement=None, kind="linear", shape=shape_for(gen, 3, 64), dtype=f32)
    add(
        "post_transposed",
        placement="post",
        kind="linear",
        shape=shape_for(gen, 3, 48),
        dtype=f32,
        layout="transposed",
    )
    add(
        "sandwich_mlp_4d_f64",
        placement="sandwich",
        kind="mlp",
        hidden=64,
        shape=shape_for(gen, 4, 32),
        dtype=f64,
    )
    add(
        "deepnorm_alpha",
        placement="deepnorm",
        kind="mlp",
        hidden=96,
        shape=shape_for(gen, 3, 40),
        dtype=f32,
        alpha=deepnet_alpha(choice(gen, [12, 24, 64])),
    )
    # A feature size that is no power of two, and alpha from a deeper stack.
    add(
        "deepnorm_odd_dim_f64",
        placement="deepnorm",
        kind="mlp",
        hidden=32,
        shape=shape_for(gen, 2, choice(gen, [200, 300])),
        dtype=f64,
        alpha=deepnet_alpha(choice(gen, [100, 500])),
    )
    # A small variance: the norm's eps (1e-5) matters.
    add(
        "post_small_variance",
        placement="post",
        kind="zero",
        shape=shape_for(gen, 3, 48),
        dtype=f32,
        what="N(0,1) * 3e-3",
        scale=3e-3,
    )
    # The sublayer as given, never loaded: a block that re-initialises it shows here.
    add(
        "sandwich_default_init",
        placement="sandwich",
        kind="linear",
        shape=shape_for(gen, 2, 40),
        dtype=f32,
        default_init=True,
    )
    # Sublayers with their own dropout: a block that calls f twice draws twice.
    add(
        "pre_noisy_train_update",
        placement="pre",
        kind="noisy_mlp",
        hidden=64,
        shape=shape_for(gen, 3, 32),
        dtype=f32,
        train=True,
        then_update=True,
    )
    add(
        "deepnorm_noisy_train",
        placement="deepnorm",
        kind="noisy_mlp",
        hidden=64,
        shape=shape_for(gen, 2, 32),
        dtype=f32,
        alpha=deepnet_alpha(choice(gen, [6, 18])),
        train=True,
    )
    add(
        "sandwich_zero_sublayer",
        placement="sandwich",
        kind="zero",
        shape=shape_for(gen, 3, 24),
        dtype=f32,
    )
    add(
        "post_mlp_4d_f64",
        placement="post",
        kind="mlp",
        hidden=64,
        shape=shape_for(gen, 4, 24),
        dtype=f64,
    )
    add("pre_vector_1d", placement="pre", kind="linear", shape=(96,), dtype=f32)
    add(
        "deepnorm_forward_no_grad",
        placement="deepnorm",
        kind="mlp",
        hidden=48,
        shape=shape_for(gen, 3, 32),
        dtype=f32,
        alpha=deepnet_alpha(choice(gen, [8, 32])),
        backward=False,
    )
    # Last: construction cases, nothing is called.
    for name, bad in (
        ("unknown_placement", choice(gen, ["postnorm", "pre_norm", "deep_norm", "peri"])),
        ("placement_wrong_case", choice(gen, ["Pre", "POST", "Sandwich"])),
    ):
        dim = choice(gen, [16, 32])
        desc = ModuleArg("linear", (dim,), init_seed=seed(gen))
        said = constructor_raises(f"NormBlock({dim}, sublayer, placement={bad!r})", "ValueError")
        cases.append(
            raises(
                "ValueError",
                name=name,
                description=said.en,
                description_zh=said.zh,
                init_kwargs={"dim": dim, "placement": bad},
                module_args={"sublayer": desc},
            )
        )
    return cases


class PrePostSwapped(NormBlock):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.placement == "pre":
            return self.n("norm", x + self.f(x))
        if self.placement == "post":
            return x + self.f(self.n("norm", x))
        return super().forward(x)


class ResidualInsideSublayer(NormBlock):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.placement == "pre":
            # The skip is added to the sublayer's input, so it goes through the sublayer.
            return self.f(self.n("norm", x) + x)
        return super().forward(x)


class DeepNormScalesBranch(NormBlock):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.placement == "deepnorm":
            return self.n("norm", x + self.alpha * self.f(x))
        return super().forward(x)


class AlphaIgnored(NormBlock):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.placement == "deepnorm":
            return self.n("norm", x + self.f(x))
        return super().forward(x)


class SandwichWithoutOuterNorm(NormBlock):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.placement == "sandwich":
            return x + self.f(self.n("norm_in", x))  # norm_out built but never applied
        return super().forward(x)


class SandwichNormsAroundSum(NormBlock):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.placement == "sandwich":
            return self.n("norm_out", x + self.f(self.n("norm_in", x)))
        return super().forward(x)


class UnknownPlacementAccepted(NormBlock):
    def __init__(
        self, dim: int, sublayer: nn.Module, placement: str = "pre", alpha: float = 1.0
    ) -> None:
        # Anything unrecognised silently becomes pre-norm.
        known = placement if placement in PLACEMENTS else "pre"
        super().__init__(dim, sublayer, known, alpha)


MISTAKES = (
    KnownMistake(
        name="pre_post_swapped",
        title="Pre-norm and post-norm swapped",
        explanation=(
            "Your 'pre' computes norm(x + f(x)) and your 'post' computes x + f(norm(x)): the "
            "names are the other way round. Pre-norm normalises what goes INTO the sublayer and "
            "leaves the residual stream untouched: x + f(norm(x)). Post-norm (the 2017 "
            "Transformer) normalises the sum: norm(x + f(x))."
        ),
        title_zh="把 Pre-Norm 和 Post-Norm 写反了",
        explanation_zh=(
            "你的 'pre' 算的是 norm(x + f(x))，'post' 算的是 x + f(norm(x))，两个名字正好对调了。"
            "Pre-Norm 归一化的是送进子层的输入，残差流本身不动：x + f(norm(x))；Post-Norm"
            "（2017 年的原始 Transformer）归一化的是相加之后的和：norm(x + f(x))。"
        ),
        build=PrePostSwapped,
    ),
    KnownMistake(
        name="residual_inside_sublayer",
        title="Pre-norm adds x to the sublayer's input instead of its output",
        explanation=(
            "For placement='pre' your block computes f(norm(x) + x): x is added before the "
            "sublayer, so it goes through it and the block has no identity path left. Pre-norm "
            "adds x to the sublayer's output: x + f(norm(x)). Fix: call the sublayer on norm(x) "
            "alone and add x to what it returns."
        ),
        title_zh="Pre-Norm 把 x 加到了子层的输入上，而不是输出上",
        explanation_zh=(
            "placement='pre' 时你的模块计算的是 f(norm(x) + x)：x 在子层之前就加上了，"
            "于是它也要经过子层，模块里不再有恒等通路。Pre-Norm 是把 x 加到子层的输出上："
            "x + f(norm(x))。"
            "改法：只用 norm(x) 调用子层，再把 x 加到它的返回值上。"
        ),
        build=ResidualInsideSublayer,
    ),
    KnownMistake(
        name="deepnorm_scales_branch",
        title="DeepNorm scales the sublayer's output instead of the residual",
        explanation=(
            "For 'deepnorm' you computed norm(x + alpha * f(x)). DeepNorm up-weights the "
            "residual, not the branch: norm(alpha * x + f(x)) with alpha > 1, so that each "
            "layer's update is small next to the stream it adds to (DeepNet also scales some "
            "initial weights down by beta). Fix: multiply x, not f(x), by alpha."
        ),
        title_zh="DeepNorm 把 alpha 乘在了子层输出上，而不是残差上",
        explanation_zh=(
            "'deepnorm' 时你算的是 norm(x + alpha * f(x))。DeepNorm 放大的是残差而不是分支："
            "norm(alpha * x + f(x))，alpha > 1，这样每一层的更新相对于它所叠加的残差流都很小"
            "（DeepNet 还会把部分权重的初始化按 beta 缩小）。"
            "改法：alpha 乘在 x 上，不要乘在 f(x) 上。"
        ),
        build=DeepNormScalesBranch,
    ),
    KnownMistake(
        name="alpha_ignored",
        title="DeepNorm's alpha ignored",
        explanation=(
            "For 'deepnorm' your block computes norm(x + f(x)), which is plain post-norm: the "
            "alpha passed to the constructor is never used. DeepNorm is exactly post-norm with "
            "the residual weighted by alpha > 1: norm(alpha * x + f(x)). Store alpha in "
            "__init__ and use it in forward."
        ),
        title_zh="忽略了 DeepNorm 的 alpha",
        explanation_zh=(
            "'deepnorm' 时你的模块算的是 norm(x + f(x))，这就是普通的 Post-Norm：构造函数传入的 "
            "alpha 根本没用上。DeepNorm 恰恰是在 Post-Norm 的基础上给残差乘上 alpha > 1："
            "norm(alpha * x + f(x))。请在 __init__ 里保存 alpha，并在 forward 里用它。"
        ),
        build=AlphaIgnored,
    ),
    KnownMistake(
        name="sandwich_missing_outer_norm",
        title="Sandwich norm without the norm on the branch's output",
        explanation=(
            "For 'sandwich' you computed x + f(norm_in(x)): that is pre-norm, and norm_out is "
            "built but never applied. Sandwich-LN adds a second LayerNorm at the END of the "
            "branch, before the addition: x + norm_out(f(norm_in(x))). It bounds the scale of "
            "what each branch adds to the residual stream, which is why CogView introduced it."
        ),
        title_zh="Sandwich-Norm 少了分支输出上的那个归一化",
        explanation_zh=(
            "'sandwich' 时你算的是 x + f(norm_in(x))：这其实是 Pre-Norm，norm_out 建了却没用。"
            "Sandwich-LN 在分支的末尾、相加之前再加一个 LayerNorm：x + norm_out(f(norm_in(x)))。"
            "它限制了每个分支往残差流里加的量的尺度，CogView 正是为此引入它的。"
        ),
        build=SandwichWithoutOuterNorm,
    ),
    KnownMistake(
        name="sandwich_norm_around_sum",
        title="Sandwich norm applied to the sum instead of the branch",
        explanation=(
            "For 'sandwich' you computed norm_out(x + f(norm_in(x))): the second norm wraps the "
            "whole sum, so the residual stream itself is normalised at every layer, as in "
            "post-norm. Sandwich-LN normalises only the branch's output and adds it to the raw "
            "x: x + norm_out(f(norm_in(x)))."
        ),
        title_zh="Sandwich-Norm 的第二个归一化套在了整个和上",
        explanation_zh=(
            "'sandwich' 时你算的是 norm_out(x + f(norm_in(x)))：第二个归一化包住了整个和，"
            "于是残差流本身每层都被归一化一次，和 Post-Norm 一样。"
            "Sandwich-LN 只归一化分支的输出，再加到原始的 x 上：x + norm_out(f(norm_in(x)))。"
        ),
        build=SandwichNormsAroundSum,
    ),
    KnownMistake(
        name="unknown_placement_accepted",
        title="An unknown placement is silently accepted",
        explanation=(
            "Your constructor accepted a placement the contract does not define (a typo such as "
            "'postnorm' or 'Pre') and built something anyway, so a misconfigured model trains "
            "with the wrong architecture and nobody notices. The contract raises ValueError "
            "for anything but 'pre', 'post', 'sandwich' and 'deepnorm'; check it in __init__."
        ),
        title_zh="悄悄接受了未知的 placement",
        explanation_zh=(
            "你的构造函数接受了约定之外的 placement（比如拼错的 'postnorm' 或大小写不对的 'Pre'），"
            "照样建出了模块，于是配置写错的模型会带着错误的结构一直训练下去，没人发现。按约定，除 "
            "'pre'、'post'、'sandwich'、'deepnorm' 之外的值都要在 __init__ 里抛出 ValueError。"
        ),
        build=UnknownPlacementAccepted,
    ),
)

SPEC = ExerciseSpec(
    slug="norm_block",
    class_name="NormBlock",
    reference=NormBlock,
    make_cases=make_cases,
    mistakes=MISTAKES,
    banned=(),  # nn.LayerNorm is part of the contract here (self.norm)
)
