"""Grading spec for ``glu_ffn``: the GLU family of FFNs in one module, and LLaMA's width rule.

y = w2(act(w1(x)) * w3(x)), act = SiLU ("swish": SwiGLU), exact GELU ("gelu": GeGLU) or ReLU
("relu": ReGLU); w1 gate, w3 up, w2 down, no biases. With hidden_dim=None the width is
llama_hidden_dim(dim, multiple_of, ffn_dim_multiplier), so the sizing rule is graded through the
parameter shapes (its mistakes are matched by them). Nothing is banned.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from api.grading.draw import (
    call,
    choice,
    described,
    gated_ffn_parameters,
    linear_weight,
    normal,
    raises,
    scenario,
    update,
)
from api.grading.phrase import (
    EVAL_MODE_NOTE,
    TRAIN_MODE_NOTE,
    Phrase,
    constructor_raises,
    listing,
    non_contiguous,
    same,
)
from api.grading.spec import Case, ExerciseSpec, KnownMistake, Layout, Step


def _lin(layer: nn.Linear, x: torch.Tensor) -> torch.Tensor:
    # What layer(x) computes, typed: nn.Module.__call__ returns Any.
    return F.linear(x, layer.weight, layer.bias)


GATES: dict[str, Callable[..., torch.Tensor]] = {"swish": F.silu, "gelu": F.gelu, "relu": F.relu}


def llama_hidden_dim(
    dim: int, multiple_of: int = 256, ffn_dim_multiplier: float | None = None
) -> int:
    hidden = int(2 * (4 * dim) / 3)
    if ffn_dim_multiplier is not None:
        hidden = int(ffn_dim_multiplier * hidden)
    return multiple_of * ((hidden + multiple_of - 1) // multiple_of)


class GLUFFN(nn.Module):
    def __init__(
        self,
        dim: int,
        hidden_dim: int | None = None,
        activation: str = "swish",
        multiple_of: int = 256,
        ffn_dim_multiplier: float | None = None,
    ) -> None:
        super().__init__()
        if activation not in GATES:
            raise ValueError(f"activation must be one of {sorted(GATES)}, got {activation!r}")
        if hidden_dim is None:
            hidden_dim = self.size(dim, multiple_of, ffn_dim_multiplier)
        self.activation = activation
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)

    @staticmethod
    def size(dim: int, multiple_of: int, ffn_dim_multiplier: float | None) -> int:
        return llama_hidden_dim(dim, multiple_of, ffn_dim_multiplier)

    def gate(self, z: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = GATES[self.activation](z)
        return out

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _lin(self.w2, self.gate(_lin(self.w1, x)) * _lin(self.w3, x))


def make_cases(gen: torch.Generator) -> list[Case]:
    f32, f64 = torch.float32, torch.float64
    cases: list[Case] = []

    def add(
        name: str,
        what: str,
        shape: tuple[int, ...],
        dtype: torch.dtype,
        init: dict[str, int | float | str],
        hidden: int,
        *,
        scale: float = 1.0,
        layout: Layout = "contiguous",
        modes: tuple[bool, ...] = (True, False),
        serve: bool = False,
    ) -> None:
        """One call per mode (True: train), an update between calls."""
        dim = shape[-1]
        state = gated_ffn_parameters(gen, dim, hidden, dtype)
        steps: list[Step] = []
        for k, train in enumerate(modes):
            if k:
                steps.append(update(gen, state))
            x = normal(gen, shape, dtype, std=scale)
            note = TRAIN_MODE_NOTE if train else EVAL_MODE_NOTE
            backward = train or not serve
            steps.append(call(gen, x, backward=backward, train=train, layout=layout, note=note))
        options = listing(same(f"{k}={v!r}") for k, v in init.items())
        extra = [options if init else Phrase("defaults", "全部用默认参数")]
        extra.append(Phrase(f"hidden width {hidden}", f"隐藏层宽度 {hidden}"))
        if layout != "contiguous":
            extra.append(non_contiguous(layout))
        words = described(x, same(what), *extra)
        cases.append(
            scenario(
                name=name,
                description=words.en,
                description_zh=words.zh,
                steps=steps,
                init_kwargs={"dim": dim, **init},
                state=state,
            )
        )

    for act, dtype in (("swish", f32), ("gelu", f64), ("relu", f64)):
        add(f"{act}_3d", "N(0,1)", (2, 5, 24), dtype, {"hidden_dim": 64, "activation": act}, 64)
    # Large pre-activations: GELU's tanh approximation and the gates' tails show.
    add(
        "gelu_large",
        "8 * N(0,1)",
        (6, 16),
        f64,
        {"hidden_dim": 40, "activation": "gelu"},
        40,
        scale=8.0,
        modes=(False,),
    )
    # GeGLU's negative tail: every gate pre-activation near -3, where the tanh formula is ~10%
    # off. x = 1 + N(0,1) / 10 and w1 rows of -3 / dim (plus noise) put w1(x) there.
    dim, hidden = 16, 24
    x_tail = 1.0 + normal(gen, (5, dim), f64, std=0.1)
    tail_state = {
        "w1.weight": -3.0 / dim + normal(gen, (hidden, dim), f64, std=0.01),
        "w2.weight": linear_weight(gen, dim, hidden, f64),
        "w3.weight": linear_weight(gen, hidden, dim, f64),
    }
    tail_words = described(
        x_tail,
        same("1 + N(0,1) / 10"),
        same("activation='gelu'"),
        Phrase("gate pre-activations near -3", "门控分支的激活前值在 -3 附近"),
    )
    cases.append(
        scenario(
            name="gelu_negative_tail",
            description=tail_words.en,
            description_zh=tail_words.zh,
            steps=[call(gen, x_tail, note=EVAL_MODE_NOTE)],
            init_kwargs={"dim": dim, "hidden_dim": hidden, "activation": "gelu"},
            state=tail_state,
        )
    )
    # int(800 / 3) = 266 -> 512 (rounding down would give 256; a tiny dim would give 0).
    add("default_width", "N(0,1)", (3, 100), f64, {}, 512)
    add("sized_multiple_7", "N(0,1)", (2, 10), f64, {"multiple_of": 7, "activation": "gelu"}, 28)
    add(
        "sized_multiplier_half",
        "N(0,1)",
        (4, 100),
        f32,
        {"multiple_of": 8, "ffn_dim_multiplier": 0.5},
        136,
    )
    # int(2 * 384 / 3) = 256 is already a multiple of 64: it must not become 320 (and 4 * dim
    # gives 384, so the two sizing mistakes stay apart).
    add(
        "sized_exact_multiple",
        "N(0,1)",
        (2, 96),
        f32,
        {"multiple_of": 64, "activation": "relu"},
        256,
    )
    add(
        "sized_multiplier_15",
        "N(0,1)",
        (5, 64),
        f64,
        {"multiple_of": 32, "ffn_dim_multiplier": 1.5},
        256,
    )
    add("narrow_hidden_1", "N(0,1)", (3, 9), f64, {"hidden_dim": 1, "activation": "gelu"}, 1)
    add("vector_1d", "N(0,1)", (48,), f32, {"hidden_dim": 128}, 128, serve=True)
    add(
        "four_d_batch_of_one",
        "N(0,1)",
        (1, 2, 3, 8),
        f64,
        {"hidden_dim": 20, "activation": "relu"},
        20,
    )
    add("transposed_300", "N(0,1)", (2, 4, 300), f32, {"hidden_dim": 32}, 32, layout="transposed")
    add(
        "serve_train_serve",
        "N(0,1)",
        (4, 12),
        f32,
        {"hidden_dim": 30, "activation": "gelu"},
        30,
        modes=(False, True, False),
        serve=True,
    )
    # Last: an unknown activation (a near-miss name) must raise ValueError in the constructor;
    # nothing is called.
    bad = choice(gen, ["swiglu", "SiLU", "Swish", "geglu"])
    said = constructor_raises(f"GLUFFN(16, activation={bad!r})", "ValueError")
    cases.append(
        raises(
            "ValueError",
            name="unknown_activation",
            description=said.en,
            description_zh=said.zh,
            init_kwargs={"dim": 16, "activation": bad},
        )
    )
    return cases


class GateOnWrongBranch(GLUFFN):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _lin(self.w2, _lin(self.w1, x) * self.gate(_lin(self.w3, x)))


class SigmoidForSwish(GLUFFN):
    def gate(self, z: torch.Tensor) -> torch.Tensor:
        return torch.sigmoid(z) if self.activation == "swish" else super().gate(z)


class ActivationIgnored(GLUFFN):
    def gate(self, z: torch.Tensor) -> torch.Tensor:
        return F.silu(z)


class GeluFallsToRelu(GLUFFN):
    def gate(self, z: torch.Tensor) -> torch.Tensor:
        return F.silu(z) if self.activation == "swish" else F.relu(z)


class TanhGelu(GLUFFN):
    def gate(self, z: torch.Tensor) -> torch.Tensor:
        return F.gelu(z, approximate="tanh") if self.activation == "gelu" else super().gate(z)


class ActivationOnProduct(GLUFFN):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _lin(self.w2, self.gate(_lin(self.w1, x) * _lin(self.w3, x)))


class WithBiases(GLUFFN):
    def __init__(self, dim: int, hidden_dim: int | None = None, *args: Any, **kw: Any) -> None:
        super().__init__(dim, hidden_dim, *args, **kw)
        hidden = self.w1.out_features
        self.w1 = nn.Linear(dim, hidden)
        self.w2 = nn.Linear(hidden, dim)
        self.w3 = nn.Linear(dim, hidden)


def rounds_down(dim: int, multiple_of: int = 256, ffn_dim_multiplier: float | None = None) -> int:
    hidden = int(2 * (4 * dim) / 3)
    if ffn_dim_multiplier is not None:
        hidden = int(ffn_dim_multiplier * hidden)
    return multiple_of * (hidden // multiple_of)


def no_two_thirds(dim: int, multiple_of: int = 256, ffn_dim_multiplier: float | None = None) -> int:
    hidden = 4 * dim
    if ffn_dim_multiplier is not None:
        hidden = int(ffn_dim_multiplier * hidden)
    return multiple_of * ((hidden + multiple_of - 1) // multiple_of)


def bumps_exact_multiple(
    dim: int, multiple_of: int = 256, ffn_dim_multiplier: float | None = None
) -> int:
    hidden = int(2 * (4 * dim) / 3)
    if ffn_dim_multiplier is not None:
        hidden = int(ffn_dim_multiplier * hidden)
    return multiple_of * (hidden // multiple_of + 1)


def multiplier_ignored(
    dim: int, multiple_of: int = 256, ffn_dim_multiplier: float | None = None
) -> int:
    hidden = int(2 * (4 * dim) / 3)
    return multiple_of * ((hidden + multiple_of - 1) // multiple_of)


def multiplier_after_rounding(
    dim: int, multiple_of: int = 256, ffn_dim_multiplier: float | None = None
) -> int:
    hidden = int(2 * (4 * dim) / 3)
    hidden = multiple_of * ((hidden + multiple_of - 1) // multiple_of)
    return hidden if ffn_dim_multiplier is None else int(ffn_dim_multiplier * hidden)


def sized_by(rule: Callable[..., int]) -> type[GLUFFN]:
    class Sized(GLUFFN):
        @staticmethod
        def size(dim: int, multiple_of: int, ffn_dim_multiplier: float | None) -> int:
            return rule(dim, multiple_of, ffn_dim_multiplier)

    Sized.__name__ = f"GLUFFN_{rule.__name__}"
    return Sized


MISTAKES = (
    KnownMistake(
        name="gate_on_wrong_branch",
        title="Activation on the up projection (w3) instead of the gate (w1)",
        explanation=(
            "You computed w2(w1(x) * act(w3(x))). The contract, like Llama's code, puts the "
            "activation on w1, the gate, and keeps w3, the up branch, linear. With given "
            "weights the two are different functions. Fix: self.w2(act(self.w1(x)) * self.w3(x))."
        ),
        title_zh="激活函数用在了 up 投影（w3）上，而不是门控（w1）上",
        explanation_zh=(
            "你算的是 w2(w1(x) * act(w3(x)))。本题接口和 Llama 的代码一样，"
            "激活函数作用在门控 w1 上，up 分支 w3 保持线性。权重给定时，这两种写法是不同的函数。"
            "改法：self.w2(act(self.w1(x)) * self.w3(x))。"
        ),
        build=GateOnWrongBranch,
    ),
    KnownMistake(
        name="sigmoid_for_swish",
        title="activation='swish' gated with sigmoid: that is the original GLU",
        explanation=(
            "For 'swish' you used sigmoid(w1(x)) as the gate, which is Dauphin et al.'s GLU. "
            "Swish (SiLU, beta = 1) is z * sigmoid(z): the gate is multiplied by its own input, "
            "unbounded above and slightly negative below zero. Fix: z * torch.sigmoid(z) or "
            "F.silu(z)."
        ),
        title_zh="activation='swish' 时用了 sigmoid 门控：那是最初的 GLU",
        explanation_zh=(
            "'swish' 时你用 sigmoid(w1(x)) 做门控，这是 Dauphin 等人提出的 GLU。Swish（即 "
            "beta = 1 的 SiLU）是 z * sigmoid(z)：门控值还要乘上它自己的输入，上方无界，零以下略"
            "为负。改法：z * torch.sigmoid(z) 或 F.silu(z)。"
        ),
        build=SigmoidForSwish,
    ),
    KnownMistake(
        name="activation_ignored",
        title="The activation argument is ignored (always SiLU)",
        explanation=(
            "With activation='gelu' or 'relu' your module still gates with SiLU: it is SwiGLU "
            "whatever is asked. GeGLU gates with GELU and ReGLU with ReLU. Fix: choose the "
            "gate function in __init__ from `activation`."
        ),
        title_zh="忽略了 activation 参数（总是 SiLU）",
        explanation_zh=(
            "activation 传 'gelu' 或 'relu' 时，你的模块仍然用 SiLU 做门控：不管要什么都是 "
            "SwiGLU。GeGLU 用 GELU 做门控，ReGLU 用 ReLU。改法：在 __init__ 里根据 activation "
            "选定门控函数。"
        ),
        build=ActivationIgnored,
    ),
    KnownMistake(
        name="gelu_falls_to_relu",
        title="activation='gelu' ends up as ReLU",
        explanation=(
            "Your selection is shaped like `F.silu if activation == 'swish' else F.relu`, so "
            "'gelu' falls through to ReLU: you built ReGLU where GeGLU was asked. Fix: map each "
            "name explicitly (a dict of the three) and raise ValueError for anything else."
        ),
        title_zh="activation='gelu' 最后变成了 ReLU",
        explanation_zh=(
            "你的选择逻辑形如 `F.silu if activation == 'swish' else F.relu`，于是 'gelu' 落到了 "
            "ReLU：要的是 GeGLU，做出来的是 ReGLU。改法：把三个名字逐一映射（比如用字典），其他取值"
            "抛出 ValueError。"
        ),
        build=GeluFallsToRelu,
    ),
    KnownMistake(
        name="gelu_tanh_approximation",
        title="tanh-approximate GELU where the exact one is asked",
        explanation=(
            "Your GeGLU gate is the tanh approximation of GELU (T5 v1.1's 'gated-gelu' used it). "
            "It is within about 1e-3 of the exact z * Phi(z), which is what activation='gelu' "
            "means here. Fix: 0.5 * z * (1 + torch.erf(z / math.sqrt(2))) or F.gelu(z)."
        ),
        title_zh="要求精确 GELU，却用了 tanh 近似",
        explanation_zh=(
            "你的 GeGLU 门控用的是 GELU 的 tanh 近似（T5 v1.1 的 'gated-gelu' 就这么用）。它和精确"
            "的 z * Phi(z) 相差 1e-3 左右，而这里 activation='gelu' 指的是精确式。"
            "改法：0.5 * z * (1 + torch.erf(z / math.sqrt(2))) 或 F.gelu(z)。"
        ),
        build=TanhGelu,
    ),
    KnownMistake(
        name="activation_on_product",
        title="Activation applied after the product",
        explanation=(
            "You computed act(w1(x) * w3(x)): the activation wraps the product of both branches. "
            "In a GLU only the gate branch is activated; it then multiplies the linear branch. "
            "Fix: act(self.w1(x)) * self.w3(x)."
        ),
        title_zh="激活函数用在了乘积之后",
        explanation_zh=(
            "你算的是 act(w1(x) * w3(x))：激活函数包住了两路的乘积。GLU 里只有门控分支要激活，"
            "再去乘线性分支。改法：act(self.w1(x)) * self.w3(x)。"
        ),
        build=ActivationOnProduct,
    ),
    KnownMistake(
        name="with_biases",
        title="Projections with bias",
        explanation=(
            "Your w1/w2/w3 have biases (nn.Linear's default). GLU FFNs in Llama-style models are "
            "bias-free and the contract holds exactly w1.weight, w2.weight and w3.weight. Fix: "
            "nn.Linear(..., bias=False)."
        ),
        title_zh="投影层带了 bias",
        explanation_zh=(
            "你的 w1/w2/w3 带了 bias（nn.Linear 的默认行为）。Llama 类模型的 GLU FFN 不带 bias，"
            "本题接口也只有 w1.weight、w2.weight、w3.weight 三个权重。"
            "改法：nn.Linear(..., bias=False)。"
        ),
        build=WithBiases,
    ),
    KnownMistake(
        name="hidden_rounds_down",
        title="Hidden width rounded down to the multiple",
        explanation=(
            "Your hidden width is rounded down to a multiple of multiple_of (4096 -> 10752). "
            "LLaMA rounds up: multiple_of * ((hidden + multiple_of - 1) // multiple_of), which "
            "gives 11008. Rounding down loses capacity the 2/3 rule meant to keep."
        ),
        title_zh="隐藏宽度向下取整到了倍数",
        explanation_zh=(
            "你把隐藏宽度向下取整到 multiple_of 的倍数（4096 -> 10752）。LLaMA 是向上取整："
            "multiple_of * ((hidden + multiple_of - 1) // multiple_of)，结果是 11008。"
            "向下取整会丢掉 2/3 规则本想保留的那部分容量。"
        ),
        build=sized_by(rounds_down),
    ),
    KnownMistake(
        name="hidden_no_two_thirds",
        title="Hidden width 4 * dim: the 2/3 factor is missing",
        explanation=(
            "You sized the hidden layer as 4 * dim (4096 -> 16384). A GLU FFN has three "
            "matrices instead of two, so LLaMA takes 2/3 of 4 * dim to keep the classic FFN's "
            "parameter count and FLOPs: int(2 * (4 * dim) / 3), then rounded up (11008)."
        ),
        title_zh="隐藏宽度取了 4 * dim：漏了 2/3 这个系数",
        explanation_zh=(
            "你把隐藏层设成了 4 * dim（4096 -> 16384）。GLU FFN 有三个矩阵而不是两个，所以 LLaMA "
            "取 4 * dim 的 2/3，让参数量和 FLOPs 与经典 FFN 持平：先 int(2 * (4 * dim) / 3)，再向上"
            "取整（得到 11008）。"
        ),
        build=sized_by(no_two_thirds),
    ),
    KnownMistake(
        name="hidden_bumps_exact_multiple",
        title="A width that already is a multiple is bumped to the next one",
        explanation=(
            "You rounded with multiple_of * (hidden // multiple_of + 1), which adds a whole "
            "multiple when hidden is already one (dim 96: 256 -> 512). Fix: "
            "multiple_of * ((hidden + multiple_of - 1) // multiple_of), or math.ceil."
        ),
        title_zh="宽度本来就是倍数，又多加了一档",
        explanation_zh=(
            "你用 multiple_of * (hidden // multiple_of + 1) 取整，hidden 恰好是倍数时会多加一整档"
            "（dim 为 96 时 256 -> 512）。改法：multiple_of * ((hidden + multiple_of - 1) // "
            "multiple_of)，或者用 math.ceil。"
        ),
        build=sized_by(bumps_exact_multiple),
    ),
    KnownMistake(
        name="hidden_multiplier_ignored",
        title="ffn_dim_multiplier is ignored",
        explanation=(
            "With ffn_dim_multiplier=1.3 (Llama 2 70B, Llama 3) your width is the plain 2/3 rule. "
            "The multiplier scales the 2/3 width before rounding: Llama 2 70B (dim 8192, "
            "multiple_of 4096) gets 28672, not 24576."
        ),
        title_zh="忽略了 ffn_dim_multiplier",
        explanation_zh=(
            "ffn_dim_multiplier=1.3 时（Llama 2 70B、Llama 3），你的宽度仍然只按 2/3 规则计算。"
            "这个系数要在取整之前乘到 2/3 宽度上：Llama 2 70B（dim 8192，multiple_of 4096）应得 "
            "28672，而不是 24576。"
        ),
        build=sized_by(multiplier_ignored),
    ),
    KnownMistake(
        name="hidden_multiplier_after_rounding",
        title="ffn_dim_multiplier applied after rounding",
        explanation=(
            "You rounded to the multiple first and scaled afterwards, so the width is no longer "
            "a multiple of multiple_of (Llama 2 70B: 31948 instead of 28672). Scale first, "
            "then round up."
        ),
        title_zh="ffn_dim_multiplier 在取整之后才乘",
        explanation_zh=(
            "你先取整到倍数、再乘系数，结果就不再是 multiple_of 的倍数了（Llama 2 70B 得到 31948，"
            "而不是 28672）。应该先乘系数，再向上取整。"
        ),
        build=sized_by(multiplier_after_rounding),
    ),
)

SPEC = ExerciseSpec(
    slug="glu_ffn",
    class_name="GLUFFN",
    reference=GLUFFN,
    make_cases=make_cases,
    mistakes=MISTAKES,
    banned=(),
    # Three matmuls over up to 300 features.
    tolerance_scale=2.0,
)
