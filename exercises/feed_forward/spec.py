"""Grading spec for ``feed_forward``: the classic two-layer Transformer FFN of the material.

y = linear2(dropout(act(linear1(x)))) with act = exact GELU or ReLU, dropout on the hidden
activation in training only, d_ff defaulting to 4 * d_model. Nothing is banned. Dropout is
compared by replaying the random stream: the grader seeds torch's CPU generator before each call
of the submission and of the reference, so one nn.Dropout / F.dropout / bernoulli_(1 - p) over
the (..., d_ff) hidden tensor draws the same mask in both.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from api.grading.draw import (
    call,
    choice,
    described,
    ffn_parameters,
    normal,
    raises,
    scenario,
    seed,
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
from api.grading.phrase import modes as called_in
from api.grading.spec import Advice, Call, Case, ExerciseSpec, KnownMistake, Layout, Step


def _lin(layer: nn.Linear, x: torch.Tensor) -> torch.Tensor:
    # What layer(x) computes, typed: nn.Module.__call__ returns Any.
    return F.linear(x, layer.weight, layer.bias)


ACTIVATIONS = ("gelu", "relu")


class FeedForward(nn.Module):
    def __init__(
        self,
        d_model: int,
        d_ff: int | None = None,
        activation: str = "gelu",
        dropout: float = 0.1,
    ) -> None:
        super().__init__()
        if activation not in ACTIVATIONS:
            raise ValueError(f"activation must be 'gelu' or 'relu', got {activation!r}")
        d_ff = 4 * d_model if d_ff is None else d_ff
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.activation = activation
        self.dropout = nn.Dropout(dropout)

    def act(self, h: torch.Tensor) -> torch.Tensor:
        return F.gelu(h) if self.activation == "gelu" else F.relu(h)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h: torch.Tensor = self.dropout(self.act(_lin(self.linear1, x)))
        return _lin(self.linear2, h)


def first_input(steps: list[Step]) -> torch.Tensor:
    return next(s.inputs[0] for s in steps if isinstance(s, Call))


def make_cases(gen: torch.Generator) -> list[Case]:
    f32, f64 = torch.float32, torch.float64
    cases: list[Case] = []

    def add(
        name: str,
        what: str,
        shape: tuple[int, ...],
        dtype: torch.dtype,
        modes: tuple[bool, ...],
        *,
        d_ff: int | None = None,
        activation: str | None = None,
        dropout: float | None = None,
        scale: float = 1.0,
        layout: Layout = "contiguous",
        serve: bool = False,
        hidden_bias: float | None = None,
    ) -> None:
        """One call per mode (True: train), an update between calls; each call with backward,
        except eval calls when ``serve`` (forward alone under no_grad, as when serving)."""
        d_model = shape[-1]
        hidden = 4 * d_model if d_ff is None else d_ff
        init: dict[str, int | float | str] = {"d_model": d_model}
        extra: list[Phrase] = []
        if d_ff is not None:
            init["d_ff"] = d_ff
        if activation is not None:
            init["activation"] = activation
        if dropout is not None:
            init["dropout"] = dropout
        extra.append(listing(same(f"{k}={v!r}") for k, v in init.items()))
        p = 0.1 if dropout is None else dropout
        state = ffn_parameters(gen, d_model, hidden, dtype)
        if hidden_bias is not None:
            # Small weights and a shifted bias put every pre-activation near hidden_bias; no
            # output bias, so the output is the activations' tail alone.
            state["linear1.weight"] = state["linear1.weight"] * 0.1
            state["linear1.bias"] = hidden_bias + normal(gen, (hidden,), dtype, std=0.2)
            state["linear2.bias"] = torch.zeros(d_model, dtype=dtype)
            extra.append(
                Phrase(f"pre-activations near {hidden_bias}", f"激活前的值在 {hidden_bias} 附近")
            )
        steps: list[Step] = []
        for k, train in enumerate(modes):
            if k:
                steps.append(update(gen, state))
            x = normal(gen, shape, dtype, std=scale)
            note = TRAIN_MODE_NOTE if train else EVAL_MODE_NOTE
            backward = train or not serve
            steps.append(
                call(
                    gen, x, backward=backward, train=train, seed=seed(gen), layout=layout, note=note
                )
            )
        if layout != "contiguous":
            extra.append(non_contiguous(layout))
        extra.append(called_in("train" if t else "eval" for t in modes))
        words = described(first_input(steps), same(what), *extra)
        cases.append(
            scenario(
                name=name,
                description=words.en,
                description_zh=words.zh,
                steps=steps,
                init_kwargs=init,
                state=state,
                stochastic=p > 0 and any(modes),
            )
        )

    add("defaults_train_eval_3d", "N(0,1)", (2, 5, 16), f32, (True, True, False))
    add(
        "relu_dropout_03",
        "N(0,1)",
        (3, 24),
        f64,
        (True, False),
        d_ff=40,
        activation="relu",
        dropout=0.3,
    )
    add("gelu_dropout_half", "N(0,1)", (4, 12), f64, (True, True), d_ff=48, dropout=0.5)
    add("no_dropout_4d", "N(0,1)", (2, 1, 3, 7), f64, (True, True), d_ff=5, dropout=0.0)
    add(
        "eval_with_dropout",
        "N(0,1)",
        (6, 20),
        f32,
        (False, True, False),
        d_ff=30,
        dropout=0.5,
        serve=True,
    )
    # GELU's tanh approximation shows where |z| is around 2 and beyond.
    add("large_inputs_gelu", "8 * N(0,1)", (5, 32), f64, (False,), d_ff=64, dropout=0.0, scale=8.0)
    # GELU's negative tail: pre-activations around -3, where the tanh formula is ~10% off.
    add(
        "gelu_negative_tail",
        "N(0,1)",
        (4, 16),
        f64,
        (False, True),
        d_ff=24,
        dropout=0.0,
        hidden_bias=-3.0,
    )
    add("default_width_odd_dim", "N(0,1)", (3, 7), f64, (False, True))
    add("default_width_120", "N(0,1)", (2, 120), f32, (False,), dropout=0.0)
    add("narrow_hidden_1", "N(0,1)", (4, 9), f64, (True, False), d_ff=1, activation="relu")
    add("vector_1d", "N(0,1)", (48,), f32, (True, False), d_ff=96, dropout=0.2)
    add("transposed_300", "N(0,1)", (2, 8, 300), f32, (True, False), d_ff=64, layout="transposed")
    add(
        "batch_of_one",
        "N(0,1)",
        (1, 1, 16),
        f64,
        (True, False),
        d_ff=32,
        activation="relu",
        dropout=0.25,
    )
    # Last: an unknown activation (a near-miss name) must raise ValueError in the constructor;
    # nothing is called.
    bad = choice(gen, ["swish", "GELU", "tanh", "gelu_new"])
    said = constructor_raises(f"FeedForward(16, activation={bad!r})", "ValueError")
    cases.append(
        raises(
            "ValueError",
            name="unknown_activation",
            description=said.en,
            description_zh=said.zh,
            init_kwargs={"d_model": 16, "activation": bad},
        )
    )
    return cases


class DropoutInEval(FeedForward):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # F.dropout's `training` defaults to True: this drops units in eval too.
        h = F.dropout(self.act(_lin(self.linear1, x)), self.dropout.p)
        return _lin(self.linear2, h)


class NoDropout(FeedForward):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _lin(self.linear2, self.act(_lin(self.linear1, x)))


class DropoutBeforeActivation(FeedForward):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h: torch.Tensor = self.act(self.dropout(_lin(self.linear1, x)))
        return _lin(self.linear2, h)


class DropoutOnOutput(FeedForward):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y: torch.Tensor = self.dropout(_lin(self.linear2, self.act(_lin(self.linear1, x))))
        return y


class DropoutTwice(FeedForward):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h: torch.Tensor = self.dropout(self.act(_lin(self.linear1, x)))
        y: torch.Tensor = self.dropout(_lin(self.linear2, h))
        return y


class TanhGelu(FeedForward):
    def act(self, h: torch.Tensor) -> torch.Tensor:
        return F.gelu(h, approximate="tanh") if self.activation == "gelu" else F.relu(h)


class ActivationIgnored(FeedForward):
    def act(self, h: torch.Tensor) -> torch.Tensor:
        return F.gelu(h)


class ActivationOnOutput(FeedForward):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.act(super().forward(x))


class PaperWidthDefault(FeedForward):
    # d_ff = d_ff or 2048: the paper's number for d_model = 512, not 4 * d_model.
    def __init__(
        self, d_model: int, d_ff: int | None = None, activation: str = "gelu", dropout: float = 0.1
    ) -> None:
        super().__init__(d_model, d_ff or 2048, activation, dropout)


class NoBias(FeedForward):
    def __init__(
        self, d_model: int, d_ff: int | None = None, activation: str = "gelu", dropout: float = 0.1
    ) -> None:
        super().__init__(d_model, d_ff, activation, dropout)
        d_ff = self.linear1.out_features
        self.linear1 = nn.Linear(d_model, d_ff, bias=False)
        self.linear2 = nn.Linear(d_ff, d_model, bias=False)


# How the dropout escaped eval mode decides the fix (api/grading/advice.py reads the source).
DROPOUT_IN_EVAL_ADVICE = (
    Advice(
        when=("calls:torch.nn.functional.dropout",),
        text="F.dropout(h, p) has training=True by default, so it ignores model.eval(): write "
        "F.dropout(h, p, training=self.training), or use an nn.Dropout module.",
        text_zh="F.dropout(h, p) 的 training 参数默认为 True，所以它不理会 model.eval()：请写成 "
        "F.dropout(h, p, training=self.training)，或者改用 nn.Dropout 模块。",
    ),
    Advice(
        when=("unregistered:torch.nn.Dropout",),
        text="Your nn.Dropout is kept in a plain dict, list or tuple, where nn.Module does not "
        "register it, so model.eval() never reaches it: assign it to an attribute "
        "(self.dropout = nn.Dropout(p)) or keep it in nn.ModuleDict / nn.ModuleList.",
        text_zh="你的 nn.Dropout 放在普通的 dict、list 或 tuple 里，nn.Module 不会注册它，"
        "model.eval() 也就传不到它：请把它赋给一个属性（self.dropout = nn.Dropout(p)），"
        "或者放进 nn.ModuleDict / nn.ModuleList。",
    ),
)

MISTAKES = (
    KnownMistake(
        name="dropout_in_eval",
        title="Dropout still active in eval mode",
        explanation=(
            "After model.eval() your block still drops hidden units: whatever applies your "
            "dropout does not follow self.training, so inference outputs are random and "
            "noisier than the trained model."
        ),
        title_zh="eval 模式下 dropout 仍然生效",
        explanation_zh=(
            "model.eval() 之后你的模块还在随机丢弃隐藏单元：你施加 dropout 的方式没有跟随 "
            "self.training，所以推理结果带随机性，也比训练好的模型更差。"
        ),
        advice=DROPOUT_IN_EVAL_ADVICE,
        build=DropoutInEval,
    ),
    KnownMistake(
        name="no_dropout",
        title="Dropout never applied",
        explanation=(
            "In training mode your output has no dropout: the `dropout` argument was stored (or "
            "ignored) but never applied to the hidden activation. The contract (and the "
            "material's block) drops hidden units with probability `dropout` while training. "
            "Fix: h = self.dropout(self.act(self.linear1(x))) with "
            "self.dropout = nn.Dropout(dropout)."
        ),
        title_zh="没有使用 dropout",
        explanation_zh=(
            "训练模式下你的输出里没有 dropout：你保存了参数 dropout（或者直接忽略了它），却从没把它"
            "用在隐藏激活上。按照接口（也是资料里的写法），训练时要以 dropout 的概率丢弃隐藏单元。"
            "改法：self.dropout = nn.Dropout(dropout)，前向里 "
            "h = self.dropout(self.act(self.linear1(x)))。"
        ),
        build=NoDropout,
    ),
    KnownMistake(
        name="dropout_before_activation",
        title="Dropout applied before the activation",
        explanation=(
            "You dropped units of linear1(x) and then applied the activation. With ReLU the two "
            "orders give the same function (relu(c*z) = c*relu(z) for c >= 0), but GELU is not "
            "positively homogeneous: gelu(z / (1 - p)) is not gelu(z) / (1 - p), so the kept "
            "units come out wrong. The contract puts dropout on the activation's output. Fix: "
            "self.dropout(self.act(self.linear1(x)))."
        ),
        title_zh="dropout 放在了激活函数之前",
        explanation_zh=(
            "你先对 linear1(x) 做 dropout，再过激活函数。用 ReLU 时两种顺序是同一个函数"
            "（c >= 0 时 relu(c*z) = c*relu(z)），但 GELU 不满足正齐次性：gelu(z / (1 - p)) "
            "不等于 gelu(z) / (1 - p)，保留下来的单元数值就错了。接口规定 dropout 作用在激活函数"
            "的输出上。改法：self.dropout(self.act(self.linear1(x)))。"
        ),
        build=DropoutBeforeActivation,
    ),
    KnownMistake(
        name="dropout_on_output",
        title="Dropout on the block's output instead of the hidden layer",
        explanation=(
            "You applied dropout to linear2's output (d_model wide) instead of to the hidden "
            "activation (d_ff wide). That is the dropout the residual wrapper applies before "
            "the add, not the FFN's own. Inside the FFN it regularises the wide hidden layer. "
            "Fix: dropout between the activation and linear2."
        ),
        title_zh="dropout 放在了模块输出上，而不是隐藏层上",
        explanation_zh=(
            "你把 dropout 作用在 linear2 的输出（宽度 d_model）上，而不是隐藏激活（宽度 d_ff）上。"
            "那是残差包装在相加之前做的 dropout，不是 FFN 自己的。FFN 内部的 dropout 正则化的是"
            "那层宽的隐藏表示。改法：把 dropout 放在激活函数和 linear2 之间。"
        ),
        build=DropoutOnOutput,
    ),
    KnownMistake(
        name="dropout_twice",
        title="Dropout applied twice (hidden layer and output)",
        explanation=(
            "You dropped the hidden activation and then the output of linear2 again. Some "
            "codebases do that, but then the residual wrapper's dropout makes a third; this "
            "contract has exactly one, on the hidden layer. Fix: remove the dropout after "
            "linear2."
        ),
        title_zh="dropout 做了两次（隐藏层和输出各一次）",
        explanation_zh=(
            "你先对隐藏激活做了 dropout，又对 linear2 的输出再做了一次。有些代码库确实这样写，"
            "但再加上残差包装里的 dropout 就是三次了；本题接口只有一次，在隐藏层上。"
            "改法：去掉 linear2 之后的那个 dropout。"
        ),
        build=DropoutTwice,
    ),
    KnownMistake(
        name="gelu_tanh_approximation",
        title="tanh-approximate GELU where the exact one is asked",
        explanation=(
            "Your GELU is the tanh approximation 0.5*z*(1 + tanh(sqrt(2/pi)*(z + 0.044715*z^3))) "
            "(or F.gelu(..., approximate='tanh')). It is close, within about 1e-3, but "
            "activation='gelu' here means the exact z * Phi(z), as F.gelu computes by default "
            "and as the material's block uses. Fix: 0.5 * z * (1 + torch.erf(z / math.sqrt(2)))."
        ),
        title_zh="要求精确 GELU，却用了 tanh 近似",
        explanation_zh=(
            "你的 GELU 是 tanh 近似 0.5*z*(1 + tanh(sqrt(2/pi)*(z + 0.044715*z^3)))（或 "
            "F.gelu(..., approximate='tanh')）。两者很接近，误差在 1e-3 左右，但这里的 "
            "activation='gelu' 指的是精确的 z * Phi(z)，也就是 F.gelu 默认的算法、资料里的写法。"
            "改法：0.5 * z * (1 + torch.erf(z / math.sqrt(2)))。"
        ),
        build=TanhGelu,
    ),
    KnownMistake(
        name="activation_ignored",
        title="The activation argument is ignored (always GELU)",
        explanation=(
            "With activation='relu' your block still applies GELU. The constructor argument "
            "must choose the function: GELU for 'gelu', ReLU (max(0, z), the original "
            "Transformer's) for 'relu'. Fix: pick the function in __init__ from `activation`."
        ),
        title_zh="忽略了 activation 参数（总是用 GELU）",
        explanation_zh=(
            "传入 activation='relu' 时，你的模块仍然用 GELU。构造参数必须决定用哪个函数："
            "'gelu' 用 GELU，'relu' 用 ReLU（即 max(0, z)，原始 Transformer 用的就是它）。"
            "改法：在 __init__ 里根据 activation 选定函数。"
        ),
        build=ActivationIgnored,
    ),
    KnownMistake(
        name="activation_on_output",
        title="An activation after linear2 as well",
        explanation=(
            "You applied the activation to the block's output too. The FFN's second layer is "
            "linear: its output is added to the residual stream, which must be able to move in "
            "any direction (a ReLU there could never subtract). Fix: return self.linear2(h) as "
            "it is."
        ),
        title_zh="linear2 之后又加了一次激活函数",
        explanation_zh=(
            "你对模块的输出也做了激活。FFN 的第二层是线性的：它的输出要加回残差流，必须能朝任意"
            "方向改变它（输出端加 ReLU 就永远做不了减法）。改法：直接返回 self.linear2(h)。"
        ),
        build=ActivationOnOutput,
    ),
    KnownMistake(
        name="paper_width_default",
        title="d_ff defaults to 2048 instead of 4 * d_model",
        explanation=(
            "With d_ff=None your linear1 has 2048 outputs. 2048 is the original paper's d_ff for "
            "d_model = 512, i.e. 4 * d_model there; the rule is the ratio, not the number. Fix: "
            "d_ff = 4 * d_model if d_ff is None else d_ff."
        ),
        title_zh="d_ff 的默认值写成了 2048，而不是 4 * d_model",
        explanation_zh=(
            "d_ff=None 时你的 linear1 有 2048 个输出。2048 是原论文在 d_model = 512 时的 d_ff，"
            "也就是那里的 4 * d_model；规律是比例，不是这个数字。"
            "改法：d_ff = 4 * d_model if d_ff is None else d_ff。"
        ),
        build=PaperWidthDefault,
    ),
    KnownMistake(
        name="no_bias",
        title="Linear layers without bias",
        explanation=(
            "Your linear1/linear2 have no bias, so the state dict lacks linear1.bias and "
            "linear2.bias. The classic FFN, max(0, x W1 + b1) W2 + b2, has both (it is SwiGLU "
            "FFNs of Llama-style models that drop them). Fix: nn.Linear(d_model, d_ff) with the "
            "default bias=True."
        ),
        title_zh="线性层没有 bias",
        explanation_zh=(
            "你的 linear1/linear2 没有 bias，所以 state_dict 里缺少 linear1.bias 和 linear2.bias。"
            "经典 FFN 是 max(0, x W1 + b1) W2 + b2，两个 bias 都有（去掉 bias 的是 Llama 一类模型"
            "的 SwiGLU FFN）。改法：nn.Linear(d_model, d_ff)，保留默认的 bias=True。"
        ),
        build=NoBias,
    ),
)

SPEC = ExerciseSpec(
    slug="feed_forward",
    class_name="FeedForward",
    reference=FeedForward,
    make_cases=make_cases,
    mistakes=MISTAKES,
    banned=(),
    # Two matmuls over up to 800 hidden units.
    tolerance_scale=2.0,
)
