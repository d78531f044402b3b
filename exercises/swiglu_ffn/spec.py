"""Grading spec for ``swiglu_ffn``: the gated feed-forward block of Llama, Mistral and PaLM.

y = w2(silu(w1(x)) * w3(x)): w1 is the gate projection, w3 the up projection, w2 the down
projection, all without bias. Nothing is banned: nn.Linear and F.silu are the point.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from api.grading.draw import (
    call,
    choice,
    described,
    gated_ffn_parameters,
    normal,
    scenario,
    shape_for,
    update,
)
from api.grading.phrase import (
    FORWARD_ONLY_NO_GRAD,
    RANDOM_W1_W2_W3,
    TRAIN_UPDATE_EVAL,
    after_the_update,
    non_contiguous,
    same,
)
from api.grading.spec import Case, ExerciseSpec, KnownMistake, Layout, Step


def _lin(layer: nn.Linear, x: torch.Tensor) -> torch.Tensor:
    # What layer(x) computes, typed: nn.Module.__call__ returns Any.
    return F.linear(x, layer.weight, layer.bias)


class SwiGLUFFN(nn.Module):
    """The reference, and the constructor every mistake below shares."""

    def __init__(self, dim: int, hidden_dim: int) -> None:
        super().__init__()
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _lin(self.w2, F.silu(_lin(self.w1, x)) * _lin(self.w3, x))


def make_cases(gen: torch.Generator) -> list[Case]:
    f32, f64 = torch.float32, torch.float64
    cases: list[Case] = []

    def add(
        name: str,
        what: str,
        shape: tuple[int, ...],
        hidden: int,
        dtype: torch.dtype,
        *,
        scale: float = 1.0,
        backward: bool = True,
        layout: Layout = "contiguous",
        train_update_eval: bool = False,
    ) -> None:
        dim = shape[-1]
        x = normal(gen, shape, dtype, std=scale)
        state = gated_ffn_parameters(gen, dim, hidden, dtype)
        extra = [same(f"hidden_dim = {hidden}"), RANDOM_W1_W2_W3]
        if layout != "contiguous":
            extra.append(non_contiguous(layout))
        if not backward:
            extra.append(FORWARD_ONLY_NO_GRAD)
        steps: list[Step] = [call(gen, x, backward=backward, layout=layout)]
        if train_update_eval:
            # The contract has no dropout: train mode must give the eval-mode output. And a
            # weight fused or cached on the first call must follow the update.
            extra.append(TRAIN_UPDATE_EVAL)
            steps = [
                call(gen, x, train=True),
                update(gen, state),
                call(gen, normal(gen, (1, *shape[1:]), dtype), note=after_the_update()),
            ]
        words = described(x, same(what), *extra)
        cases.append(
            scenario(
                name=name,
                description=words.en,
                description_zh=words.zh,
                steps=steps,
                init_kwargs={"dim": dim, "hidden_dim": hidden},
                state=state,
            )
        )

    add("normal_2d", "N(0,1)", shape_for(gen, 2, 64), 172, f32)  # Llama's 8/3 * dim, rounded
    add("train_update_eval", "N(0,1)", shape_for(gen, 3, 32), 88, f32, train_update_eval=True)
    add("vector_1d", "N(0,1)", (choice(gen, [24, 32, 48]),), 86, f32)
    add("normal_3d_f64", "N(0,1)", shape_for(gen, 3, 48), 128, f64)
    add("normal_4d", "N(0,1)", shape_for(gen, 4, 16), 40, f32)
    add("dim_1", "N(0,1)", shape_for(gen, 2, 1, max_rows=9), 4, f64)
    add("wide_1024", "N(0,1)", shape_for(gen, 2, 1024, max_rows=8), 32, f32)
    add("hidden_1024", "N(0,1)", shape_for(gen, 3, 32, max_rows=16), 1024, f32)
    # hidden < dim: a learner who mixed up which Linear maps where gets a shape error here.
    add("narrow_hidden_f64", "N(0,1)", shape_for(gen, 3, 7), 5, f64)
    # Large pre-activations: silu's negative tail and the gate's saturation both show.
    add("large_scale", "8 * N(0,1)", shape_for(gen, 2, 24), 64, f32, scale=8.0)
    add("tiny_scale", "N(0,1) * 1e-3", shape_for(gen, 2, 40), 96, f64, scale=1e-3)
    add("forward_no_grad", "N(0,1)", shape_for(gen, 3, 32), 64, f32, backward=False)
    add(
        "transposed_odd_dim",
        "N(0,1)",
        shape_for(gen, 3, choice(gen, [200, 300]), max_rows=16),
        72,
        f32,
        layout="transposed",
    )
    return cases


class GateOnWrongBranch(SwiGLUFFN):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _lin(self.w2, _lin(self.w1, x) * F.silu(_lin(self.w3, x)))


class SigmoidGate(SwiGLUFFN):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _lin(self.w2, torch.sigmoid(_lin(self.w1, x)) * _lin(self.w3, x))


class GeluGate(SwiGLUFFN):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _lin(self.w2, F.gelu(_lin(self.w1, x)) * _lin(self.w3, x))


class ReluGate(SwiGLUFFN):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _lin(self.w2, F.relu(_lin(self.w1, x)) * _lin(self.w3, x))


class NoActivation(SwiGLUFFN):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _lin(self.w2, _lin(self.w1, x) * _lin(self.w3, x))


class SiluOnProduct(SwiGLUFFN):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _lin(self.w2, F.silu(_lin(self.w1, x) * _lin(self.w3, x)))


class WithBiases(nn.Module):
    def __init__(self, dim: int, hidden_dim: int) -> None:
        super().__init__()
        self.w1 = nn.Linear(dim, hidden_dim)
        self.w2 = nn.Linear(hidden_dim, dim)
        self.w3 = nn.Linear(dim, hidden_dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _lin(self.w2, F.silu(_lin(self.w1, x)) * _lin(self.w3, x))


class MissingUpProjection(nn.Module):
    def __init__(self, dim: int, hidden_dim: int) -> None:
        super().__init__()
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _lin(self.w2, F.silu(_lin(self.w1, x)))


MISTAKES = (
    KnownMistake(
        name="gate_on_wrong_branch",
        title="silu applied to the up projection (w3) instead of the gate (w1)",
        explanation=(
            "You computed w2(w1(x) * silu(w3(x))): the activation sits on the wrong branch. By "
            "convention (Llama, and this exercise's contract) w1 is the gate, the branch that "
            "goes through silu, and w3 is the linear 'up' branch it multiplies. The two "
            "formulas are the same family but not the same function of the given weights. Fix: "
            "self.w2(F.silu(self.w1(x)) * self.w3(x))."
        ),
        title_zh="SiLU 用在了 up 投影（w3）上，而不是门控（w1）上",
        explanation_zh=(
            "你算的是 w2(w1(x) * silu(w3(x)))：激活函数放错了分支。按照约定（Llama，以及本题的"
            "接口），w1 是门控分支，要经过 silu；w3 是线性的 up 分支，与门控相乘。两种写法属于同一"
            "类结构，但在给定权重下不是同一个函数。"
            "改法：self.w2(F.silu(self.w1(x)) * self.w3(x))。"
        ),
        build=GateOnWrongBranch,
    ),
    KnownMistake(
        name="sigmoid_gate",
        title="sigmoid gate: that is GLU, not SwiGLU",
        explanation=(
            "You gated with sigmoid(w1(x)), which is the original GLU. SwiGLU uses Swish/SiLU, "
            "silu(z) = z * sigmoid(z): the gate is multiplied by its own input, so it is "
            "unbounded above and slightly negative for z < 0. Fix: F.silu(self.w1(x)) (or "
            "z * torch.sigmoid(z))."
        ),
        title_zh="用了 sigmoid 门控：这是 GLU，不是 SwiGLU",
        explanation_zh=(
            "你用 sigmoid(w1(x)) 做门控，这是最初的 GLU。SwiGLU 用的是 Swish/SiLU："
            "silu(z) = z * sigmoid(z)，门控值还要再乘上它自己的输入，"
            "所以上方无界，z < 0 时略为负值。"
            "改法：F.silu(self.w1(x))（或 z * torch.sigmoid(z)）。"
        ),
        build=SigmoidGate,
    ),
    KnownMistake(
        name="gelu_gate",
        title="GELU gate: that is GeGLU, not SwiGLU",
        explanation=(
            "You gated with gelu(w1(x)), which makes this GeGLU. GELU and SiLU look alike (both "
            "smooth ReLU-like curves) but differ by up to about 0.1 around |z| = 1-2. SwiGLU "
            "uses SiLU: silu(z) = z * sigmoid(z). Fix: F.silu(self.w1(x))."
        ),
        title_zh="用了 GELU 门控：这是 GeGLU，不是 SwiGLU",
        explanation_zh=(
            "你用 gelu(w1(x)) 做门控，这就成了 GeGLU。GELU 和 SiLU 看起来很像（都是平滑的类 ReLU "
            "曲线），但在 |z| = 1~2 附近相差可达 0.1 左右。SwiGLU 用的是 SiLU：silu(z) = z * "
            "sigmoid(z)。改法：F.silu(self.w1(x))。"
        ),
        build=GeluGate,
    ),
    KnownMistake(
        name="relu_gate",
        title="ReLU gate: that is ReGLU, not SwiGLU",
        explanation=(
            "You gated with relu(w1(x)) (ReGLU). SiLU is smooth and lets a little negative "
            "signal and gradient through for z < 0, where ReLU is exactly zero. Fix: "
            "F.silu(self.w1(x))."
        ),
        title_zh="用了 ReLU 门控：这是 ReGLU，不是 SwiGLU",
        explanation_zh=(
            "你用 relu(w1(x)) 做门控（即 ReGLU）。SiLU 是平滑的，在 z < 0 时仍会让少量负值和梯度"
            "通过，而 ReLU 在那里恒为 0。改法：F.silu(self.w1(x))。"
        ),
        build=ReluGate,
    ),
    KnownMistake(
        name="no_activation",
        title="No activation: w1(x) * w3(x) is a bilinear layer",
        explanation=(
            "You multiplied w1(x) * w3(x) without passing the gate through silu. The product "
            "of two linear maps is a (bilinear) GLU variant without the Swish non-linearity. "
            "Fix: F.silu(self.w1(x)) * self.w3(x)."
        ),
        title_zh="没有激活函数：w1(x) * w3(x) 只是双线性层",
        explanation_zh=(
            "你直接计算 w1(x) * w3(x)，门控分支没有经过 silu。两个线性映射相乘只是一个（双线性的）"
            "GLU 变体，缺少 Swish 非线性。改法：F.silu(self.w1(x)) * self.w3(x)。"
        ),
        build=NoActivation,
    ),
    KnownMistake(
        name="silu_on_product",
        title="silu applied after the product",
        explanation=(
            "You computed silu(w1(x) * w3(x)): the activation wraps the product instead of "
            "only the gate branch. In SwiGLU the gate is silu(w1(x)) and it then multiplies "
            "the linear branch w3(x). Fix: F.silu(self.w1(x)) * self.w3(x)."
        ),
        title_zh="SiLU 用在了乘积之后",
        explanation_zh=(
            "你算的是 silu(w1(x) * w3(x))：激活函数包住了整个乘积，而不是只作用在门控分支上。"
            "SwiGLU 的门控是 silu(w1(x))，再去乘线性分支 w3(x)。改法：F.silu(self.w1(x)) * "
            "self.w3(x)。"
        ),
        build=SiluOnProduct,
    ),
    KnownMistake(
        name="with_biases",
        title="Linear layers with bias",
        explanation=(
            "Your projections have biases (nn.Linear's default is bias=True). SwiGLU FFNs in "
            "Llama-style models use bias-free projections, and the contract has exactly three "
            "weights: w1.weight, w2.weight, w3.weight. Fix: nn.Linear(..., bias=False)."
        ),
        title_zh="线性层带了 bias",
        explanation_zh=(
            "你的投影层带了 bias（nn.Linear 默认 bias=True）。Llama 类模型里的 SwiGLU FFN 使用不带"
            " bias 的投影，本题接口也只有三个权重：w1.weight、w2.weight、w3.weight。"
            "改法：nn.Linear(..., bias=False)。"
        ),
        build=WithBiases,
    ),
    KnownMistake(
        name="missing_up_projection",
        title="No up projection (w3): a plain FFN, not a gated one",
        explanation=(
            "Your module has no w3, so it computes w2(silu(w1(x))), an ordinary two-layer FFN "
            "with a SiLU activation. The 'GLU' in SwiGLU is the second, linear branch w3(x) "
            "that the activated gate multiplies element-wise; it is why SwiGLU has three "
            "matrices (and why its hidden size is usually 8/3 * dim instead of 4 * dim, to "
            "keep the parameter count). Fix: add self.w3 = nn.Linear(dim, hidden_dim, "
            "bias=False) and return self.w2(F.silu(self.w1(x)) * self.w3(x))."
        ),
        title_zh="缺少 up 投影（w3）：这是普通 FFN，不是门控 FFN",
        explanation_zh=(
            "你的模块没有 w3，所以计算的是 w2(silu(w1(x)))，只是一个用 SiLU 激活的普通两层 FFN。"
            "SwiGLU 中的 “GLU” 指的正是第二条线性分支 w3(x)，由激活后的门控与它逐元素相乘；所以 "
            "SwiGLU 有三个矩阵（隐藏维度也通常取 8/3 * dim 而不是 4 * dim，以保持参数量不变）。"
            "改法：加上 self.w3 = nn.Linear(dim, hidden_dim, bias=False)，并返回 "
            "self.w2(F.silu(self.w1(x)) * self.w3(x))。"
        ),
        build=MissingUpProjection,
    ),
)

SPEC = ExerciseSpec(
    slug="swiglu_ffn",
    class_name="SwiGLUFFN",
    reference=SwiGLUFFN,
    make_cases=make_cases,
    mistakes=MISTAKES,
    banned=(),
    # Three matmuls (one over up to 1024 hidden units) round more than a norm's few ops.
    tolerance_scale=2.0,
)
