"""Grading spec for ``residual_block``: Add & Norm around a given sublayer, pre- or post-norm.

pre-norm (norm_first=True, GPT-2 onwards):  x + dropout(sublayer(norm(x)))
post-norm (norm_first=False, the 2017 paper): norm(x + dropout(sublayer(x)))

The grader builds the sublayer from the module-argument registry (``api/grading/modargs.py``: a
Linear, a small GELU MLP, one with its own dropout, or a Linear fixed at zero) and passes it to
the constructor; its parameters arrive in the state dict as ``sublayer.*``, or, in the
default-init case, stay as built (the same seed on both sides). The contract calls the
sublayer once per forward; the grader counts. Train-mode cases seed torch before the
forward, so a learner's dropout mask equals the reference's only if dropout is drawn once, on
the sublayer's output, like ``nn.Dropout`` / ``F.dropout`` do.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from api.grading import modargs
from api.grading.draw import (
    affine_bias,
    affine_weight,
    choice,
    normal,
    seed,
    shape_for,
    sublayer_block_case,
    sublayer_parameters,
)
from api.grading.phrase import Phrase, option
from api.grading.spec import (
    Advice,
    Case,
    ExerciseSpec,
    InitValue,
    KnownMistake,
    Layout,
    ModuleArg,
)


class ResidualBlock(nn.Module):
    """The reference, and the constructor every mistake below shares."""

    def __init__(
        self, dim: int, sublayer: nn.Module, norm_first: bool = True, dropout: float = 0.0
    ) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.sublayer = sublayer
        self.dropout = nn.Dropout(dropout)
        self.norm_first = norm_first
        self.p = dropout

    # Typed wrappers: nn.Module.__call__ returns Any, and the mistakes below reuse them.
    def branch(self, h: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.sublayer(h)
        return out

    def normed(self, h: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.norm(h)
        return out

    def drop(self, h: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.dropout(h)
        return out

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.norm_first:
            return x + self.drop(self.branch(self.normed(x)))
        return self.normed(x + self.drop(self.branch(x)))


def make_cases(gen: torch.Generator) -> list[Case]:
    f32, f64 = torch.float32, torch.float64
    cases: list[Case] = []

    def add(
        name: str,
        *,
        norm_first: bool | None,
        kind: str,
        shape: tuple[int, ...],
        dtype: torch.dtype,
        hidden: int = 0,
        dropout: float | None = None,
        train: bool = False,
        backward: bool = True,
        what: str = "N(0,1)",
        scale: float = 1.0,
        shift: float = 0.0,
        default_init: bool = False,
        then_update: bool = False,
        layout: Layout = "contiguous",
    ) -> None:
        dim = shape[-1]
        desc = ModuleArg(kind, (dim, hidden) if hidden else (dim,), init_seed=seed(gen))
        x = normal(gen, shape, dtype, std=scale) + shift
        # None leaves the argument out: the constructor's defaults are part of the contract.
        kwargs: dict[str, InitValue] = {"dim": dim}
        if norm_first is not None:
            kwargs["norm_first"] = norm_first
        if dropout is not None:
            kwargs["dropout"] = dropout
        state = None
        if not default_init:
            state = {
                "norm.weight": affine_weight(gen, dim, dtype),
                "norm.bias": affine_bias(gen, dim, dtype),
                **sublayer_parameters(gen, desc, dtype),
            }
        pre = norm_first is None or norm_first
        p = 0.0 if dropout is None else dropout
        notes = [
            Phrase("pre-norm", "Pre-Norm") if pre else Phrase("post-norm", "Post-Norm"),
            option("norm_first", str(pre), default=norm_first is None),
            modargs.described("sublayer", desc),
            option("dropout", f"{p:g}", default=dropout is None),
        ]
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
                stochastic=train and (p > 0 or kind == "noisy_mlp"),
            )
        )

    add(
        "pre_linear_defaults",
        norm_first=None,
        kind="linear",
        shape=shape_for(gen, 3, 64),
        dtype=f32,
    )
    add(
        "post_linear_transposed",
        norm_first=False,
        kind="linear",
        shape=shape_for(gen, 3, 64),
        dtype=f32,
        layout="transposed",
    )
    # A small variance: the norm's eps (1e-5, nn.LayerNorm's) matters here, so a block whose
    # norm has another eps fails by far more than the tolerance.
    add(
        "post_small_variance",
        norm_first=False,
        kind="zero",
        shape=shape_for(gen, 3, 48),
        dtype=f32,
        what="N(0,1) * 3e-3",
        scale=3e-3,
    )
    add(
        "pre_mlp_4d_f64",
        norm_first=True,
        kind="mlp",
        hidden=128,
        shape=shape_for(gen, 4, 32),
        dtype=f64,
    )
    add(
        "post_mlp_4d_f64",
        norm_first=False,
        kind="mlp",
        hidden=128,
        shape=shape_for(gen, 4, 32),
        dtype=f64,
    )
    add("pre_zero_sublayer", norm_first=True, kind="zero", shape=shape_for(gen, 2, 48), dtype=f32)
    # The sublayer as given, never loaded: a block that re-initialises it shows here.
    add(
        "pre_default_init",
        norm_first=True,
        kind="linear",
        shape=shape_for(gen, 2, 40),
        dtype=f32,
        default_init=True,
    )
    add(
        "pre_dropout_train",
        norm_first=True,
        kind="linear",
        shape=shape_for(gen, 3, 64),
        dtype=f32,
        dropout=0.3,
        train=True,
        then_update=True,
    )
    add(
        "post_dropout_train_f64",
        norm_first=False,
        kind="mlp",
        hidden=64,
        shape=shape_for(gen, 3, 32),
        dtype=f64,
        dropout=0.3,
        train=True,
    )
    # A sublayer with its own randomness: calling it twice cannot go unseen.
    add(
        "post_noisy_sublayer_train",
        norm_first=False,
        kind="noisy_mlp",
        hidden=64,
        shape=shape_for(gen, 2, 32),
        dtype=f32,
        train=True,
    )
    # Dropout configured but the module in eval mode: it must be the identity.
    add(
        "pre_dropout_eval",
        norm_first=True,
        kind="mlp",
        hidden=96,
        shape=shape_for(gen, 3, 24),
        dtype=f32,
        dropout=0.5,
    )
    add(
        "post_dropout_eval_f64",
        norm_first=False,
        kind="linear",
        shape=shape_for(gen, 2, 40),
        dtype=f64,
        dropout=0.3,
    )
    add("pre_vector_1d", norm_first=True, kind="linear", shape=(96,), dtype=f32)
    # A feature size that is no power of two: code that chunks by 128 shows.
    add(
        "post_shifted_odd_dim",
        norm_first=False,
        kind="mlp",
        hidden=32,
        shape=shape_for(gen, 2, choice(gen, [200, 300])),
        dtype=f64,
        what="3 * N(0,1) + 2",
        scale=3.0,
        shift=2.0,
    )
    add(
        "pre_forward_no_grad",
        norm_first=True,
        kind="mlp",
        hidden=64,
        shape=shape_for(gen, 3, 32),
        dtype=f32,
        backward=False,
    )
    return cases


class AlwaysPreNorm(ResidualBlock):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.drop(self.branch(self.normed(x)))


class AlwaysPostNorm(ResidualBlock):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.normed(x + self.drop(self.branch(x)))


class NoSkip(ResidualBlock):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.norm_first:
            return self.drop(self.branch(self.normed(x)))
        return self.normed(self.drop(self.branch(x)))


class NormalisedSkip(ResidualBlock):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.norm_first:
            x = self.normed(x)  # overwrites x, so the skip path carries norm(x)
            return x + self.drop(self.branch(x))
        return self.normed(x + self.drop(self.branch(x)))


class NormAfterSublayer(ResidualBlock):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.norm_first:
            return x + self.drop(self.normed(self.branch(x)))
        return self.normed(x + self.drop(self.branch(x)))


class ResidualInsideSublayer(ResidualBlock):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.norm_first:
            # The skip is added to the sublayer's input, so it goes through the sublayer.
            return self.drop(self.branch(self.normed(x) + x))
        return self.normed(x + self.drop(self.branch(x)))


class DropoutAfterAdd(ResidualBlock):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.norm_first:
            return self.drop(x + self.branch(self.normed(x)))
        return self.normed(self.drop(x + self.branch(x)))


class DropoutNever(ResidualBlock):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.norm_first:
            return x + self.branch(self.normed(x))
        return self.normed(x + self.branch(x))


class DropoutInEval(ResidualBlock):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # F.dropout's training flag defaults to True: it keeps dropping in eval mode.
        if self.norm_first:
            return x + F.dropout(self.branch(self.normed(x)), self.p)
        return self.normed(x + F.dropout(self.branch(x), self.p))


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
        name="always_pre_norm",
        title="norm_first ignored: always pre-norm",
        explanation=(
            "Your block computes x + dropout(sublayer(norm(x))) even when norm_first=False. "
            "Post-norm (the original Transformer) normalises after the addition: "
            "norm(x + dropout(sublayer(x))). Fix: branch on self.norm_first in forward."
        ),
        title_zh="忽略了 norm_first：总是 Pre-Norm",
        explanation_zh=(
            "即使 norm_first=False，你的模块仍然计算 x + dropout(sublayer(norm(x)))。Post-Norm"
            "（原始 Transformer）是在相加之后再归一化：norm(x + dropout(sublayer(x)))。"
            "改法：在 forward 里根据 self.norm_first 分支。"
        ),
        build=AlwaysPreNorm,
    ),
    KnownMistake(
        name="always_post_norm",
        title="norm_first ignored: always post-norm",
        explanation=(
            "Your block computes norm(x + dropout(sublayer(x))) even when norm_first=True. "
            "Pre-norm normalises only the sublayer's input and leaves the skip path untouched: "
            "x + dropout(sublayer(norm(x))). Fix: branch on self.norm_first in forward."
        ),
        title_zh="忽略了 norm_first：总是 Post-Norm",
        explanation_zh=(
            "即使 norm_first=True，你的模块仍然计算 norm(x + dropout(sublayer(x)))。Pre-Norm "
            "只对子层的输入做归一化，残差通路保持不变：x + dropout(sublayer(norm(x)))。"
            "改法：在 forward 里根据 self.norm_first 分支。"
        ),
        build=AlwaysPostNorm,
    ),
    KnownMistake(
        name="no_skip",
        title="The skip connection is missing",
        explanation=(
            "Your block returns the sublayer branch without adding x back, so it is not a "
            "residual block at all. The '+ x' is what gives the gradient a direct path "
            "(dy/dx = 1 + dF/dx) and lets a layer fall back to the identity. Fix: pre-norm "
            "x + dropout(sublayer(norm(x))), post-norm norm(x + dropout(sublayer(x)))."
        ),
        title_zh="缺少残差连接",
        explanation_zh=(
            "你的模块只返回了子层分支，没有把 x 加回去，因此根本不是残差块。正是这个 “+ x” 给梯度"
            "开了一条直通路径（dy/dx = 1 + dF/dx），也让一层在学不到东西时可以退化为恒等映射。"
            "改法：Pre-Norm 为 x + dropout(sublayer(norm(x)))，Post-Norm 为 "
            "norm(x + dropout(sublayer(x)))。"
        ),
        build=NoSkip,
    ),
    KnownMistake(
        name="normalised_skip",
        title="Pre-norm adds norm(x) instead of x on the skip path",
        explanation=(
            "In the pre-norm branch you reassigned x = self.norm(x) and then returned "
            "x + dropout(sublayer(x)), so the skip path carries norm(x) instead of the raw x. "
            "Pre-norm's advantage is exactly that clean, un-normalised residual stream. Fix: "
            "keep x and write x + self.dropout(self.sublayer(self.norm(x)))."
        ),
        title_zh="Pre-Norm 的残差通路上加的是 norm(x) 而不是 x",
        explanation_zh=(
            "在 Pre-Norm 分支里你写了 x = self.norm(x)，再返回 x + dropout(sublayer(x))，于是残差"
            "通路上传的是 norm(x) 而不是原始的 x。Pre-Norm 的优势恰恰在于这条干净、未经归一化的"
            "残差“高速公路”。改法：保留 x，写成 x + self.dropout(self.sublayer(self.norm(x)))。"
        ),
        build=NormalisedSkip,
    ),
    KnownMistake(
        name="norm_after_sublayer",
        title="Pre-norm normalises the sublayer's output instead of its input",
        explanation=(
            "For norm_first=True you computed x + dropout(norm(sublayer(x))): the norm sits "
            "after the sublayer. Pre-norm normalises what goes *into* the sublayer: "
            "x + dropout(sublayer(norm(x))). Fix: move self.norm inside the sublayer call."
        ),
        title_zh="Pre-Norm 归一化了子层的输出，而不是输入",
        explanation_zh=(
            "norm_first=True 时你算的是 x + dropout(norm(sublayer(x)))：归一化放在了子层之后。"
            "Pre-Norm 归一化的是送进子层的输入：x + dropout(sublayer(norm(x)))。改法：把 "
            "self.norm 移到子层调用的里面。"
        ),
        build=NormAfterSublayer,
    ),
    KnownMistake(
        name="residual_inside_sublayer",
        title="Pre-norm adds x to the sublayer's input instead of its output",
        explanation=(
            "For norm_first=True your block computes dropout(sublayer(norm(x) + x)): x is added "
            "before the sublayer, so it goes through it and nothing reaches the output "
            "untouched. The skip connection adds x to the sublayer's output: "
            "x + dropout(sublayer(norm(x))). Fix: call the sublayer on norm(x) alone and add x "
            "to what it returns."
        ),
        title_zh="Pre-Norm 把 x 加到了子层的输入上，而不是输出上",
        explanation_zh=(
            "norm_first=True 时你的模块计算的是 dropout(sublayer(norm(x) + x))："
            "x 在子层之前就加上了，于是它也要经过子层，没有任何东西原样到达输出。"
            "残差连接是把 x 加到子层的输出上：x + dropout(sublayer(norm(x)))。"
            "改法：只用 norm(x) 调用子层，再把 x 加到它的返回值上。"
        ),
        build=ResidualInsideSublayer,
    ),
    KnownMistake(
        name="dropout_after_add",
        title="Dropout applied after the addition",
        explanation=(
            "You applied dropout to x + sublayer(...), which also drops (and rescales) the "
            "skip path and so cuts the residual stream itself in training. Dropout belongs on "
            "the sublayer's output, before the addition: x + dropout(sublayer(norm(x))) or "
            "norm(x + dropout(sublayer(x)))."
        ),
        title_zh="dropout 放在了相加之后",
        explanation_zh=(
            "你对 x + sublayer(...) 整体做了 dropout，这样训练时残差通路本身也会被随机置零（并被"
            "放大），等于切断了残差流。dropout 应作用在子层输出上、相加之前："
            "x + dropout(sublayer(norm(x))) 或 norm(x + dropout(sublayer(x)))。"
        ),
        build=DropoutAfterAdd,
    ),
    KnownMistake(
        name="dropout_never",
        title="Dropout never applied",
        explanation=(
            "In train mode your output has no dropout: the dropout argument was stored but "
            "never used. With dropout=p the sublayer's output must be dropped with probability "
            "p (and the rest scaled by 1 / (1 - p)) in training, and left alone in eval. Fix: "
            "self.dropout = nn.Dropout(dropout) in __init__ and self.dropout(...) on the "
            "sublayer's output."
        ),
        title_zh="没有使用 dropout",
        explanation_zh=(
            "训练模式下你的输出没有做 dropout：dropout 参数保存了却没有用。dropout=p 时，训练中子层"
            "输出的每个元素要以概率 p 置零（其余乘以 1 / (1 - p)），eval 时保持不变。改法：在 "
            "__init__ 里 self.dropout = nn.Dropout(dropout)，并在子层输出上调用 self.dropout(...)。"
        ),
        build=DropoutNever,
    ),
    KnownMistake(
        name="dropout_in_eval",
        title="Dropout still active in eval mode",
        explanation=(
            "In eval mode your block still drops activations: whatever applies your dropout "
            "does not follow model.eval() (self.training), so inference outputs are random."
        ),
        title_zh="eval 模式下 dropout 仍然生效",
        explanation_zh=(
            "在 eval 模式下你的模块仍在随机丢弃激活值：你施加 dropout 的方式没有跟随 "
            "model.eval()（self.training），所以推理结果带有随机性。"
        ),
        advice=DROPOUT_IN_EVAL_ADVICE,
        build=DropoutInEval,
    ),
)

SPEC = ExerciseSpec(
    slug="residual_block",
    class_name="ResidualBlock",
    reference=ResidualBlock,
    make_cases=make_cases,
    mistakes=MISTAKES,
    banned=(),  # nn.LayerNorm is part of the contract here (self.norm)
)
