"""Grading spec for ``ffn_block``: the LLaMA FFN half-layer, y = x + SwiGLU(RMSNorm(x)).

The learner writes both pieces (an RMSNorm with a gain of ones, a bias-free SwiGLU) as
submodules named ``norm`` and ``ffn``; the whole-norm built-ins are banned. The reference uses
nn.RMSNorm and F.silu in the trusted parent.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from api.grading.allowlist import ELEMENTARY
from api.grading.draw import (
    call,
    described,
    gated_ffn_parameters,
    normal,
    scenario,
    update,
)
from api.grading.phrase import (
    EVAL_MODE_NOTE,
    TRAIN_MODE_NOTE,
    Phrase,
    listing,
    non_contiguous,
    same,
)
from api.grading.spec import Case, ExerciseSpec, KnownMistake, Layout, Step


def _lin(layer: nn.Linear, x: torch.Tensor) -> torch.Tensor:
    # What layer(x) computes, typed: nn.Module.__call__ returns Any.
    return F.linear(x, layer.weight, layer.bias)


class SwiGLU(nn.Module):
    def __init__(self, dim: int, hidden_dim: int) -> None:
        super().__init__()
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _lin(self.w2, F.silu(_lin(self.w1, x)) * _lin(self.w3, x))


class FFNBlock(nn.Module):
    def __init__(self, dim: int, hidden_dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.norm = nn.RMSNorm(dim, eps=eps)
        self.ffn = SwiGLU(dim, hidden_dim)

    def normed(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.norm(x)
        return out

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = x + self.ffn(self.normed(x))
        return out


BANNED = (
    "torch.nn.RMSNorm",
    "torch.nn.functional.rms_norm",
    "torch.rms_norm",
    "torch.nn.LayerNorm",
    "torch.nn.functional.layer_norm",
    "torch.layer_norm",
)


def make_cases(gen: torch.Generator) -> list[Case]:
    f32, f64 = torch.float32, torch.float64
    cases: list[Case] = []

    def add(
        name: str,
        what: str,
        shape: tuple[int, ...],
        dtype: torch.dtype,
        hidden: int,
        *,
        eps: float | None = None,
        scale: float = 1.0,
        offset: float = 0.0,
        modes: tuple[bool, ...] = (True, False),
        serve: bool = False,
        layout: Layout = "contiguous",
    ) -> None:
        dim = shape[-1]
        init: dict[str, int | float | str] = {"dim": dim, "hidden_dim": hidden}
        if eps is not None:
            init["eps"] = eps
        state = {
            "norm.weight": (1.0 + 0.5 * normal(gen, (dim,), f32)).to(dtype),
            **gated_ffn_parameters(gen, dim, hidden, dtype, prefix="ffn."),
        }
        steps: list[Step] = []
        for k, train in enumerate(modes):
            if k:
                steps.append(update(gen, state))
            x = normal(gen, shape, dtype, std=scale) + offset
            backward = train or not serve
            note = TRAIN_MODE_NOTE if train else EVAL_MODE_NOTE
            steps.append(call(gen, x, backward=backward, train=train, layout=layout, note=note))
        extra = [
            listing(same(f"{k}={v!r}") for k, v in init.items()),
            Phrase("random gain and weights", "增益和权重取随机值"),
        ]
        if layout != "contiguous":
            extra.append(non_contiguous(layout))
        words = described(x, same(what), *extra)
        cases.append(
            scenario(
                name=name,
                description=words.en,
                description_zh=words.zh,
                steps=steps,
                init_kwargs=init,
                state=state,
            )
        )

    # As many rows as features: a mean without keepdim broadcasts silently, along the rows
    # (on other shapes it raises, so it is a pitfall of the prompt, not a named mistake).
    add("square_rows_eq_dim", "N(0,1)", (12, 12), f64, 30)
    # Mean squares far below eps: a wrong eps (value or place) shows here first.
    add("tiny_inputs_default_eps", "N(0,1) * 1e-4", (5, 40), f64, 96, scale=1e-4)
    add("normal_3d", "N(0,1)", (2, 6, 32), f32, 86, modes=(True, True, False))
    # A mean of 5 per token: mean-centring (LayerNorm) changes everything.
    add("offset_inputs", "N(0,1) + 5", (4, 20), f64, 40, offset=5.0)
    add("vector_1d", "N(0,1)", (64,), f32, 128, modes=(False,), serve=True)
    add("four_d_batch_of_one", "N(0,1)", (1, 3, 2, 10), f64, 7)
    add("transposed_200", "N(0,1)", (2, 5, 200), f32, 48, layout="transposed")
    add("dim_1", "N(0,1)", (6, 1), f64, 4)
    add("large_scale", "30 * N(0,1)", (3, 24), f32, 64, scale=30.0)
    add("tiny_inputs_eps_1e5", "N(0,1) * 3e-4", (3, 16), f64, 48, eps=1e-5, scale=3e-4)
    add("serve_train_serve", "N(0,1)", (3, 16), f32, 40, modes=(False, True, False), serve=True)
    return cases


def _eps(block: FFNBlock) -> float:
    eps = block.norm.eps
    assert eps is not None
    return eps


def _rms(x: torch.Tensor, eps: float) -> torch.Tensor:
    return torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)


class PostNorm(FFNBlock):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.normed(x + self.ffn(x))


class NoResidual(FFNBlock):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.ffn(self.normed(x))
        return out


class ResidualFromNormed(FFNBlock):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.normed(x)
        out: torch.Tensor = h + self.ffn(h)
        return out


class MeanCentred(FFNBlock):
    def normed(self, x: torch.Tensor) -> torch.Tensor:
        centred = x - x.mean(-1, keepdim=True)
        return centred * _rms(centred, _eps(self)) * self.norm.weight


class EpsOutsideSqrt(FFNBlock):
    def normed(self, x: torch.Tensor) -> torch.Tensor:
        rms = x.pow(2).mean(-1, keepdim=True).sqrt()
        return x / (rms + _eps(self)) * self.norm.weight


class NormWeightIgnored(FFNBlock):
    def normed(self, x: torch.Tensor) -> torch.Tensor:
        return x * _rms(x, _eps(self))


class UnitOffsetWeight(FFNBlock):
    def __init__(self, dim: int, hidden_dim: int, eps: float = 1e-6) -> None:
        super().__init__(dim, hidden_dim, eps)
        with torch.no_grad():
            self.norm.weight.zero_()

    def normed(self, x: torch.Tensor) -> torch.Tensor:
        return x * _rms(x, _eps(self)) * (1 + self.norm.weight)


class LayerNormEpsDefault(FFNBlock):
    def __init__(self, dim: int, hidden_dim: int, eps: float = 1e-5) -> None:
        super().__init__(dim, hidden_dim, eps)


class RmsOverWholeTensor(FFNBlock):
    def normed(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.rsqrt(x.pow(2).mean() + _eps(self)) * self.norm.weight


class GateOnWrongBranch(FFNBlock):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.normed(x)
        f = self.ffn
        return x + _lin(f.w2, _lin(f.w1, h) * F.silu(_lin(f.w3, h)))


MISTAKES = (
    KnownMistake(
        name="post_norm",
        title="Post-norm: norm(x + ffn(x)) instead of x + ffn(norm(x))",
        explanation=(
            "You normalised after the residual add, the original Transformer's Post-LN. LLaMA "
            "is pre-norm: only the branch input is normalised and the skip path carries x "
            "unchanged, so the residual stream is never rescaled and gradients reach early "
            "layers through a clean identity. Fix: return x + self.ffn(self.norm(x))."
        ),
        title_zh="写成了 Post-Norm：norm(x + ffn(x))，而不是 x + ffn(norm(x))",
        explanation_zh=(
            "你在残差相加之后才做归一化，这是原始 Transformer 的 Post-Norm。LLaMA 用的是 Pre-Norm："
            "只对分支的输入做归一化，残差通路原样传递 x，残差流不会被重新缩放，梯度也能沿着干净的"
            "恒等路径传到浅层。改法：return x + self.ffn(self.norm(x))。"
        ),
        build=PostNorm,
    ),
    KnownMistake(
        name="no_residual",
        title="The residual add is missing",
        explanation=(
            "You returned ffn(norm(x)) without adding x back. The block is a half-layer of the "
            "residual stream: it must output x + ffn(norm(x)), otherwise everything the layers "
            "before wrote into the stream is lost and the identity path for gradients is gone."
        ),
        title_zh="漏了残差相加",
        explanation_zh=(
            "你返回的是 ffn(norm(x))，没有把 x 加回来。这个模块是残差流上的半层：必须输出 "
            "x + ffn(norm(x))，否则前面各层写进残差流的信息全部丢失，梯度的恒等路径也没了。"
        ),
        build=NoResidual,
    ),
    KnownMistake(
        name="residual_from_normed",
        title="The skip path carries norm(x) instead of x",
        explanation=(
            "You computed h = norm(x) and returned h + ffn(h). The residual must be the "
            "un-normalised x: adding norm(x) rescales the whole stream to unit RMS at every "
            "block, which is a post-norm in disguise and throws away the stream's scale. "
            "Fix: x + self.ffn(self.norm(x))."
        ),
        title_zh="残差通路上传的是 norm(x)，而不是 x",
        explanation_zh=(
            "你先算 h = norm(x)，再返回 h + ffn(h)。残差必须是没有归一化的 x：加 norm(x) 等于在"
            "每个块都把整个残差流重新缩放到单位 RMS，本质上是换了个样子的 Post-Norm，残差流的尺度"
            "信息也丢了。改法：x + self.ffn(self.norm(x))。"
        ),
        build=ResidualFromNormed,
    ),
    KnownMistake(
        name="mean_centred",
        title="The norm subtracts the mean: that is LayerNorm, not RMSNorm",
        explanation=(
            "Your norm centres each token before scaling it. RMSNorm divides by the root mean "
            "square of x itself, sqrt(mean(x^2) + eps), with no mean subtraction; on tokens "
            "with a non-zero mean the two differ. Fix: x * torch.rsqrt(x.pow(2).mean(-1, "
            "keepdim=True) + eps) * weight."
        ),
        title_zh="归一化减去了均值：这是 LayerNorm，不是 RMSNorm",
        explanation_zh=(
            "你的归一化先对每个 token 做了中心化再缩放。RMSNorm 除以的是 x 本身的均方根 "
            "sqrt(mean(x^2) + eps)，不减均值；token 的均值不为零时两者就不一样。改法："
            "x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight。"
        ),
        build=MeanCentred,
    ),
    KnownMistake(
        name="eps_outside_sqrt",
        title="eps added outside the square root",
        explanation=(
            "You divided by sqrt(mean(x^2)) + eps. RMSNorm (LLaMA's and torch.nn.RMSNorm) puts "
            "eps inside: rsqrt(mean(x^2) + eps). For tokens with a tiny RMS the two differ a "
            "lot (eps = 1e-6 inside is a floor of 1e-3 on the RMS). Fix: torch.rsqrt(ms + eps)."
        ),
        title_zh="eps 加在了根号外面",
        explanation_zh=(
            "你除以的是 sqrt(mean(x^2)) + eps。RMSNorm（LLaMA 的实现和 torch.nn.RMSNorm）把 eps "
            "放在根号里面：rsqrt(mean(x^2) + eps)。RMS 很小的 token 上两者差别很大（eps = 1e-6 "
            "放在根号里，相当于给 RMS 设了 1e-3 的下限）。改法：torch.rsqrt(ms + eps)。"
        ),
        build=EpsOutsideSqrt,
    ),
    KnownMistake(
        name="norm_weight_ignored",
        title="The norm's weight is never applied",
        explanation=(
            "Your RMSNorm has a weight parameter but does not multiply by it, so a trained "
            "gain is ignored (its gradient is None). Fix: return x_hat * self.weight."
        ),
        title_zh="没有乘上归一化层的 weight",
        explanation_zh=(
            "你的 RMSNorm 定义了 weight 参数，却没有乘上它，训练出来的增益就被忽略了（它的梯度是 "
            "None）。改法：return x_hat * self.weight。"
        ),
        build=NormWeightIgnored,
    ),
    KnownMistake(
        name="unit_offset_weight",
        title="Gain stored as an offset: (1 + weight) with weight initialised to zeros",
        explanation=(
            "Your norm multiplies by (1 + weight) and initialises weight to zeros, Gemma's "
            "convention. At initialisation that is the same function, but the parameter means "
            "something else: a LLaMA checkpoint's norm.weight (about 1) loaded into it doubles "
            "the gain. The contract is LLaMA's: weight initialised to ones, multiplied as is."
        ),
        title_zh="增益存成了偏移量：乘 (1 + weight)，weight 初始化为 0",
        explanation_zh=(
            "你的归一化乘的是 (1 + weight)，并把 weight 初始化为 0，这是 Gemma 的约定。初始化时"
            "函数相同，但参数的含义变了：把 LLaMA 检查点里的 norm.weight（约等于 1）加载进来，增益"
            "就翻了一倍。本题接口沿用 LLaMA 的约定：weight 初始化为 1，直接相乘。"
        ),
        build=UnitOffsetWeight,
    ),
    KnownMistake(
        name="eps_default_1e5",
        title="eps defaults to 1e-5 instead of 1e-6",
        explanation=(
            "Your default eps is 1e-5 (nn.LayerNorm's default, or a Llama 2 config's value) but "
            "the contract, like LLaMA's reference code, defaults to 1e-6. On tokens whose mean "
            "square is near eps, such as tiny activations, the outputs differ. Fix: "
            "eps: float = 1e-6, passed to your RMSNorm."
        ),
        title_zh="eps 的默认值写成了 1e-5，而不是 1e-6",
        explanation_zh=(
            "你的 eps 默认值是 1e-5（nn.LayerNorm 的默认值，也是 Llama 2 配置里的取值），而本题"
            "接口和 LLaMA 参考代码一样默认 1e-6。均方值接近 eps 的 token（比如很小的激活）上输出"
            "就会不同。改法：eps: float = 1e-6，并传给你的 RMSNorm。"
        ),
        build=LayerNormEpsDefault,
    ),
    KnownMistake(
        name="rms_over_whole_tensor",
        title="RMS over the whole tensor instead of per token",
        explanation=(
            "You took x.pow(2).mean() over every element, so all tokens share one scale. "
            "RMSNorm normalises each token (the last dimension) on its own: a token's output "
            "must not depend on the other tokens in the batch. Fix: mean(-1, keepdim=True)."
        ),
        title_zh="在整个张量上求 RMS，而不是逐 token 求",
        explanation_zh=(
            "你用 x.pow(2).mean() 对所有元素求了均值，于是所有 token 共用一个缩放系数。RMSNorm "
            "对每个 token（最后一维）单独归一化：一个 token 的输出不能依赖同一批里的其他 token。"
            "改法：mean(-1, keepdim=True)。"
        ),
        build=RmsOverWholeTensor,
    ),
    KnownMistake(
        name="gate_on_wrong_branch",
        title="SiLU on the up projection (w3) instead of the gate (w1)",
        explanation=(
            "Inside the FFN you computed w2(w1(h) * silu(w3(h))). In LLaMA's SwiGLU, w1 is the "
            "gate that goes through SiLU and w3 the linear up branch. Fix: "
            "self.w2(F.silu(self.w1(h)) * self.w3(h))."
        ),
        title_zh="SiLU 用在了 up 投影（w3）上，而不是门控（w1）上",
        explanation_zh=(
            "FFN 里你算的是 w2(w1(h) * silu(w3(h)))。LLaMA 的 SwiGLU 中，w1 是经过 SiLU 的门控，"
            "w3 是线性的 up 分支。改法：self.w2(F.silu(self.w1(h)) * self.w3(h))。"
        ),
        build=GateOnWrongBranch,
    ),
)

SPEC = ExerciseSpec(
    slug="ffn_block",
    class_name="FFNBlock",
    reference=FFNBlock,
    make_cases=make_cases,
    mistakes=MISTAKES,
    # What a solution is made of, with the FFN's activations and dropout (its contract composes
    # them): anything else it runs is refused (api/grading/allowlist.py).
    allowed=(*ELEMENTARY, "activations"),
    banned=BANNED,
    # A norm and three matmuls.
    tolerance_scale=2.0,
    # LLaMA's RMSNorm computes in float32 (``x.float()``): admitted for float64, as the
    # prompt says.
    float32_internals=True,
)
