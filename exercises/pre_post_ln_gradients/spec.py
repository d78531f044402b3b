"""Grading spec for ``pre_post_ln_gradients``, a lab: the answer is a measurement.

The learner builds a Pre-LN and a Post-LN stack of ``depth`` blocks from the same seed, runs one
forward and backward on the grader's ``x`` and ``target`` at initialisation, and returns the
gradient norm of each block's FFN output weight ``ff2.weight``: a ``(2, depth)`` tensor, row 0
Pre-LN, row 1 Post-LN, column i the block i + 1 counted from the input. The finding it
reproduces (Xiong et al. 2020, "On Layer Normalization in the Transformer Architecture", the
figure of W2's gradient norm per layer at initialisation): Post-LN's norms grow towards the
output layers while Pre-LN's stay flat, which is why Post-LN needs a learning-rate warm-up.

The block (the contract fixes it so that the same seed gives the same weights on both sides):
``norm = nn.LayerNorm(dim)``, ``ff1 = nn.Linear(dim, 4 * dim)``, ``ff2 = nn.Linear(4 * dim,
dim)``, created in that order, then ``xavier_uniform_`` on ``ff1.weight`` and ``ff2.weight``.
Its sublayer ``f(h) = ff2(relu(ff1((h + h.mean(-2, keepdim=True)) / 2)))`` mixes each token with
the sequence mean, what attention does at initialisation when its weights are near uniform.
Pre-LN: ``h + f(norm(h))``, with a final ``nn.LayerNorm(dim)`` after the last block; Post-LN:
``norm(h + f(h))``. Loss: ``((out - target) ** 2).mean()``.

Deterministic on a seed: the grader seeds the call and passes the seed; the learner's numbers
are compared with the reference's on the same seed, value by value (float32: 2e-4 relative).
The verdict is the same whatever the seed: the tests run every variant over several.

Nothing is banned and there is no allow-list (``allowed=None``, as for ``feed_forward``): the
experiment composes nn modules, nn.init, autograd and an optimiser if the learner wants one.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from api.grading.draw import NORMAL, described, normal, seed
from api.grading.phrase import Phrase
from api.grading.spec import Call, Case, ExerciseSpec, KnownMistake, LabChart

F32, F64 = torch.float32, torch.float64
CHART_CASE = "depth_24"


class _Block(nn.Module):
    """One block of the contract; ``pre_ln`` picks where its LayerNorm sits."""

    def __init__(self, dim: int, pre_ln: bool) -> None:
        super().__init__()
        self.pre_ln = pre_ln
        self.norm = nn.LayerNorm(dim)
        self.ff1 = nn.Linear(dim, 4 * dim)
        self.ff2 = nn.Linear(4 * dim, dim)
        nn.init.xavier_uniform_(self.ff1.weight)
        nn.init.xavier_uniform_(self.ff2.weight)

    def sublayer(self, h: torch.Tensor) -> torch.Tensor:
        mixed = (h + h.mean(dim=-2, keepdim=True)) / 2
        out: torch.Tensor = self.ff2(F.relu(self.ff1(mixed)))
        return out

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        if self.pre_ln:
            return h + self.sublayer(self.norm(h))
        out: torch.Tensor = self.norm(h + self.sublayer(h))
        return out


def _stack(x: torch.Tensor, depth: int, pre_ln: bool) -> tuple[list[_Block], nn.LayerNorm]:
    dim = x.shape[-1]
    blocks = [_Block(dim, pre_ln).to(x.dtype) for _ in range(depth)]
    return blocks, nn.LayerNorm(dim).to(x.dtype)


def _run(
    blocks: list[_Block],
    final: nn.LayerNorm,
    x: torch.Tensor,
    target: torch.Tensor,
    pre_ln: bool,
    *,
    final_norm: bool = True,
    keep: list[torch.Tensor] | None = None,
) -> torch.Tensor:
    h = x
    for block in blocks:
        h = block(h)
        if keep is not None:
            h.retain_grad()
            keep.append(h)
    if pre_ln and final_norm:
        h = final(h)
    loss = ((h - target) ** 2).mean()
    torch.autograd.backward(loss)
    return loss


def _measure(
    x: torch.Tensor, target: torch.Tensor, depth: int, seed: int, **how: bool
) -> torch.Tensor:
    """The reference experiment, with switches for the known mistakes."""
    rows = []
    if how.get("seed_once"):
        torch.manual_seed(seed)
    for pre_ln in (True, False):
        if not how.get("seed_once"):
            torch.manual_seed(seed)
        blocks, final = _stack(x, depth, pre_ln)
        kept: list[torch.Tensor] = []
        _run(blocks, final, x, target, pre_ln, final_norm=not how.get("no_final_norm"), keep=kept)
        if how.get("after_step"):
            optimiser = torch.optim.SGD([p for b in blocks for p in b.parameters()], lr=0.1)
            optimiser.step()
            optimiser.zero_grad()
            _run(blocks, final, x, target, pre_ln)
        row = []
        for i, block in enumerate(blocks):
            if how.get("weights"):
                value = block.ff2.weight.detach().norm()
            elif how.get("whole_block"):
                grads = [p.grad.flatten() for p in block.parameters() if p.grad is not None]
                value = torch.cat(grads).norm()
            elif how.get("activation"):
                grad = kept[i].grad
                assert grad is not None
                value = grad.norm()
            elif how.get("squared"):
                grad = block.ff2.weight.grad
                assert grad is not None
                value = (grad**2).sum()
            else:
                grad = block.ff2.weight.grad
                assert grad is not None
                value = grad.norm()
            row.append(value.detach())
        rows.append(torch.stack(row))
    out = torch.stack(rows).to(x.dtype)
    if how.get("swapped"):
        out = out.flip(0)
    if how.get("reversed"):
        out = out.flip(1)
    if how.get("per_depth"):
        out = out / depth
    return out


def pre_post_ln_gradients(
    x: torch.Tensor, target: torch.Tensor, depth: int, seed: int
) -> torch.Tensor:
    return _measure(x, target, depth, seed)


def make_cases(gen: torch.Generator) -> list[Case]:
    """Depths 2 to 24 on one sequence, then other shapes and dtypes; the depth-24 case is the
    figure. Every call has autograd on: the experiment runs its own backward."""
    cases: list[Case] = []

    def add(name: str, shape: tuple[int, ...], depth: int, dtype: torch.dtype = F32) -> None:
        x, target = normal(gen, shape, dtype), normal(gen, shape, dtype)
        s = seed(gen)
        said = described(
            x,
            NORMAL,
            Phrase("target N(0,1)", "target 为 N(0,1)"),
            Phrase(f"stacks of depth {depth}", f"深度为 {depth} 的两个堆叠"),
            Phrase(f"seed {s}", f"种子 {s}"),
        )
        cases.append(
            Case(
                name=name,
                description=said.en,
                description_zh=said.zh,
                x=x,
                steps=(Call((x, target), args=(depth, s), seed=s, autograd=True),),
                # The measurement is compared with the reference experiment run at the case's
                # own dtype on the same seed (no float64 rerun: the weights are drawn in
                # float32 either way, and the lab's claim is the experiment's numbers).
                stochastic=True,
            )
        )

    add("depth_2", (16, 32), 2)
    add("depth_6", (16, 32), 6)
    add("depth_12", (16, 32), 12)
    add(CHART_CASE, (16, 32), 24)
    add("batch_of_sequences", (3, 8, 16), 4)
    add("batch_of_one", (1, 8, 24), 3)
    add("wide_features_f64", (4, 130), 2, F64)
    add("float64_depth_5", (12, 24), 5, F64)
    add("short_sequence", (2, 40), 3)
    add("long_sequence", (64, 16), 2)
    return cases


def _mistake(**how: bool):  # type: ignore[no-untyped-def]
    def build(x: torch.Tensor, target: torch.Tensor, depth: int, seed: int) -> torch.Tensor:
        return _measure(x, target, depth, seed, **how)

    return build


def _known(
    name: str, title: str, explanation: str, title_zh: str, explanation_zh: str, **how: bool
) -> KnownMistake:
    return KnownMistake(
        name=name,
        title=title,
        explanation=explanation,
        title_zh=title_zh,
        explanation_zh=explanation_zh,
        build=_mistake(**how),
    )


MISTAKES = (
    _known(
        "variants_swapped",
        "Pre-LN and Post-LN swapped",
        "Your row 0 is the Post-LN stack's and row 1 the Pre-LN one's: the norm sits where the "
        "other placement puts it. Pre-LN normalises the sublayer's input and adds the result to "
        "the untouched residual, h + f(norm(h)); Post-LN normalises after the add, "
        "norm(h + f(h)). Row 0 is Pre-LN.",
        "Pre-LN 与 Post-LN 弄反了",
        "你的第 0 行是 Post-LN 堆叠的结果，第 1 行才是 Pre-LN 的：L"
        "ayerNorm 放在了另一种方案的位置。"
        "Pre-LN 对子层的输入做归一化，再把结果加到未经处理的残差上，即 h + f"
        "(norm(h))；Post-LN 在相加"
        "之后归一化，即 norm(h + f(h))。第 0 行是 Pre-LN。",
        swapped=True,
    ),
    _known(
        "pre_ln_without_final_norm",
        "Pre-LN stack without its final LayerNorm",
        "Your Pre-LN stack feeds the last block's output straight into the loss. In Pre-LN the "
        "residual stream is never normalised inside the blocks, so its size grows with depth; "
        "the final LayerNorm (GPT-2's ln_f) is what brings it back to unit scale, and it is the "
        "division by that grown size that keeps Pre-LN's gradients small and flat.",
        "Pre-LN 堆叠缺少最后的 LayerNorm",
        "你的 Pre-LN 堆叠把最后一个块的输出直接送进了损失。Pre-LN"
        " 的残差流在块内从不归一化，其大小随"
        "深度增长；最后的 LayerNorm（GPT-2 的 ln_f）把它拉回单位尺度，正是除以这个增长后的大小，使"
        "Pre-LN 的梯度又小又平。",
        no_final_norm=True,
    ),
    _known(
        "weight_norm_not_gradient",
        "The norm of the weights, not of their gradient",
        "You returned the norm of ff2.weight itself. The experiment measures the gradient: "
        "block.ff2.weight.grad.norm() after loss.backward(). The weights' norm at "
        "initialisation only reflects the Xavier bound and is the same for both placements.",
        "取了权重的范数，而不是梯度的范数",
        "你返回的是 ff2.weight 本身的范数。实验要测的是梯度：loss.backward() 之后的 "
        "block.ff2.weight.grad.norm()。"
        "初始化时权重的范数只反映 Xavier 的取值范围，两种放置方式都一样。",
        weights=True,
    ),
    _known(
        "whole_block_gradient",
        "The gradient of the whole block, not of ff2.weight",
        "You measured the gradient of every parameter of the block together (the LayerNorm's "
        "and both linear layers'). The contract, like the paper's figure, measures one tensor "
        "per layer: the FFN's output weight ff2.weight. The LayerNorm's own gradients differ "
        "between placements for reasons of their own and blur the comparison.",
        "测的是整个块的梯度，而不是 ff2.weight 的",
        "你把块里所有参数（LayerNorm 和两个线性层的）的梯度放在一起"
        "求了范数。本题与论文的图一样，每层"
        "只测一个张量：FFN 的输出权重 ff2.weight。LayerNorm "
        "自身的梯度在两种放置方式下另有差别，会让"
        "比较变得模糊。",
        whole_block=True,
    ),
    _known(
        "activation_gradient",
        "The gradient of the activations, not of a parameter",
        "You measured the gradient of each block's output (the residual stream, h.grad). What "
        "an optimiser scales by the learning rate is the gradient of the parameters, so that is "
        "what the warm-up argument is about: ff2.weight.grad of each block.",
        "测的是激活值的梯度，而不是参数的梯度",
        "你测的是每个块输出（残差流，h.grad）的梯度。优化器乘以学习"
        "率去更新的是参数的梯度，预热的论证"
        "说的也是它：每个块的 ff2.weight.grad。",
        activation=True,
    ),
    _known(
        "squared_norm",
        "The squared norm: no square root",
        "You returned the sum of the squared gradient entries. The norm is its square root, "
        "grad.norm() (torch.linalg.vector_norm): squaring exaggerates the growth the curve is "
        "meant to show.",
        "返回了平方范数：没有开根号",
        "你返回的是梯度各元素平方之和。范数是它的平方根，grad.norm()（torch.linalg.vector_norm）："
        "平方会夸大曲线本应显示的增长幅度。",
        squared=True,
    ),
    _known(
        "not_at_initialisation",
        "Measured after an optimiser step, not at initialisation",
        "Your numbers come from a second backward, after the parameters moved. The finding is "
        "about initialisation: the first step is the one a warm-up protects, because at that "
        "point Post-LN's gradients near the output are already large. Measure the gradients "
        "of the first backward, before any optimiser step.",
        "在优化器更新之后测量，而不是在初始化时",
        "你的数字来自参数更新之后的第二次反向传播。这个结论说的是初始化"
        "时的情况：预热保护的正是第一步，"
        "因为那时 Post-LN 靠近输出的梯度就已经很大了。"
        "应测第一次反向传播的梯度，在任何优化器更新之前。",
        after_step=True,
    ),
    _known(
        "divided_by_depth",
        "Norms divided by the number of layers",
        "You divided each norm by the depth. The curve is compared layer by layer and across "
        "depths as it is: a normalisation by the layer count hides exactly what the lab "
        "measures, how the gradient's size depends on depth.",
        "范数除以了层数",
        "你把每个范数都除以了深度。曲线是按原值逐层、跨深度比较的：按"
        "层数归一化恰好掩盖了本实验要测的"
        "东西，即梯度大小如何随深度变化。",
        per_depth=True,
    ),
    _known(
        "seed_not_reset",
        "The second stack built without re-seeding",
        "You seeded once, so the Post-LN stack drew different weights from the Pre-LN one. Call "
        "torch.manual_seed(seed) before building each stack: the comparison is fair only if "
        "both placements start from the same weights, and the grader can only check numbers "
        "drawn as the contract draws them.",
        "构建第二个堆叠前没有重新设置种子",
        "你只设置了一次种子，于是 Post-LN 堆叠抽到的权重与 Pre-LN 的不同。构建每个堆叠之前都调用 "
        "torch.manual_seed(seed)：两种放置方式从相同的权重出发"
        "，比较才公平，评测也只能检查按约定方式"
        "抽取得到的数字。",
        seed_once=True,
    ),
    _known(
        "layers_reversed",
        "Layers in reverse order",
        "Your column 0 is the layer nearest the output. The contract counts from the input: "
        "column i is block i + 1 of the stack, so that Post-LN's curve rises to the right.",
        "层的顺序反了",
        "你的第 0 列是最靠近输出的层。本题从输入端开始计数：第 i 列是堆叠中的第 i + 1 个块，这样 "
        "Post-LN 的曲线才是向右上升的。",
        reversed=True,
    ),
)


SPEC = ExerciseSpec(
    slug="pre_post_ln_gradients",
    class_name="pre_post_ln_gradients",
    reference=pre_post_ln_gradients,
    make_cases=make_cases,
    mistakes=MISTAKES,
    kind="function",
    # The experiment composes nn modules, nn.init, autograd and (if wanted) an optimiser: no
    # allow-list, nothing banned.
    allowed=None,
    ranks=(2, 3),
    trains=False,
    chart=LabChart(
        case=CHART_CASE,
        series=("Pre-LN", "Post-LN"),
        series_zh=("Pre-LN", "Post-LN"),
        x_label="layer (1 = next to the input)",
        x_label_zh="层（1 = 最靠近输入）",
        y_label="gradient norm of ff2.weight",
        y_label_zh="ff2.weight 的梯度范数",
        title="Gradient norm per layer at initialisation, depth 24",
        title_zh="初始化时各层的梯度范数，深度 24",
    ),
)
