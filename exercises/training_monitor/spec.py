"""Grading spec for ``training_monitor``, a lab: the answer is a measurement.

The learner trains a small ReLU network for a few SGD steps from the same seed as the grader and
returns, per step and per layer, the two numbers the monitoring article recommends watching
(article 003, "Transformer残差连接与归一化层实现详解", §4.3), made precise, and the alarms they
raise: a ``(3, depth, steps)`` tensor.

- ``out[0, l, t]``, the update-to-weight ratio of layer l at step t: ``lr * ||grad W_l|| /
  ||W_l||`` (Frobenius norms), with the gradient of step t's backward and the weight *before*
  step t's update. For plain SGD it is the size of the coming update relative to the weight.
- ``out[1, l, t]``, the standard deviation of layer l's output ``z_l = W_l h + b_l`` (before the
  ReLU) in step t's forward, over all its elements, ``z.std()`` (torch's default correction).
- ``out[2, l, t]``, 1.0 where an alarm fires, else 0.0: ratio above ``RATIO_ALARM`` (strictly),
  or std below ``STD_LOW`` or above ``STD_HIGH`` (strictly).

The model (fixed so the same seed gives the same weights on both sides): ``torch.manual_seed(
seed)``, then ``depth`` ``nn.Linear(dim, dim)`` created in order, each weight redrawn by
``nn.init.normal_`` with std ``gain * sqrt(1 / dim)`` for the first layer and ``gain * sqrt(2 /
dim)`` for the others (He's scale for a ReLU's input), each bias zeroed, then ``.to(x.dtype)``.
Forward: ``z_1 = L_1(x)``, ``z_l = L_l(relu(z_{l-1}))``, the output is ``z_depth``; loss
``((out - target) ** 2).mean()``; ``torch.optim.SGD(parameters, lr)``, no momentum.

Deterministic on a seed: the learner's numbers are compared with the reference's on the same
seed, value by value. Another correct spelling (sqrt of a sum of squares for the norm) moves the
ratios and stds by at most 3.5e-7 relative over every case and 20 seeds, far inside the float32
tolerance; the alarm plane is compared exactly, and over 40 seeds the closest value any case
produced sits 0.008% from its threshold, more than two hundred times that rounding.

Nothing is banned and there is no allow-list (``allowed=None``, as in ``pre_post_ln_gradients``):
the experiment composes nn modules, nn.init, hooks, autograd and an optimiser.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from api.grading.draw import described, normal, seed
from api.grading.phrase import Phrase, same
from api.grading.spec import Call, Case, ExerciseSpec, KnownMistake, LabChart

F32, F64 = torch.float32, torch.float64
CHART_CASE = "learning_rate_too_high"
# The alarms. The article's ranges (ratio 1e-5 to 1e-3, std 0.8 to 1.2) are where healthy
# training sits, not where an alarm belongs: a width-32 layer's std wanders past 1.2 at a
# healthy initialisation, and an update ratio of 2e-3 trains fine. The alarms fire an order of
# magnitude (ratio) or a factor of two (std) outside them.
RATIO_ALARM = 1e-2
STD_LOW, STD_HIGH = 0.5, 2.0


def build_layers(dim: int, depth: int, gain: float, dtype: torch.dtype) -> list[nn.Linear]:
    layers = [nn.Linear(dim, dim) for _ in range(depth)]
    for i, layer in enumerate(layers):
        nn.init.normal_(layer.weight, std=gain * math.sqrt((1.0 if i == 0 else 2.0) / dim))
        nn.init.zeros_(layer.bias)
    return [layer.to(dtype) for layer in layers]


def _forward(layers: list[nn.Linear], x: torch.Tensor) -> torch.Tensor:
    h = x
    for i, layer in enumerate(layers):
        h = layer(h if i == 0 else torch.relu(h))
    return h


def _norm(t: torch.Tensor, squared: bool) -> torch.Tensor:
    return (t * t).sum() if squared else torch.linalg.vector_norm(t)


def _measure(
    x: torch.Tensor,
    target: torch.Tensor,
    depth: int,
    steps: int,
    lr: float,
    gain: float,
    seed: int,
    **how: bool,
) -> torch.Tensor:
    """The reference experiment, with switches for the known mistakes."""
    torch.manual_seed(seed)
    layers = build_layers(x.shape[-1], depth, gain, x.dtype)
    optimiser = torch.optim.SGD([p for layer in layers for p in layer.parameters()], lr=lr)
    seen: list[torch.Tensor] = []  # every std a hook recorded, in order
    handles = []
    skip = 1 if how.get("first_skipped") else 0
    columns: list[torch.Tensor] = []
    for t in range(steps + skip):
        start = len(seen)
        if how.get("hooks_kept") or t == 0:
            for layer in layers:

                def record(_m: nn.Module, _i: object, z: torch.Tensor) -> None:
                    flat = z.detach().reshape(-1, z.shape[-1])
                    seen.append(flat.std(dim=0).mean() if how.get("per_feature") else flat.std())

                handles.append(layer.register_forward_hook(record))
        out = _forward(layers, x)
        # One std per layer per step is what the learner reads: seen[t * depth + l] when the
        # hooks pile up (the mistake), this step's own records otherwise.
        stds = seen[t * depth : (t + 1) * depth] if how.get("hooks_kept") else seen[start:]
        if how.get("weight_std"):
            stds = [layer.weight.detach().std() for layer in layers]
        loss = ((out - target) ** 2).mean()
        optimiser.zero_grad()
        torch.autograd.backward(loss)
        grads = [layer.weight.grad for layer in layers]
        weights_before = [layer.weight.detach().clone() for layer in layers]
        optimiser.step()
        after = [layer.weight.detach() for layer in layers]
        weights = after if how.get("after_step") else weights_before
        squared = bool(how.get("squared"))
        ratios = []
        alarms = []
        for grad, weight, std in zip(grads, weights, stds, strict=True):
            assert grad is not None
            ratio = lr * _norm(grad, squared) / _norm(weight, squared)
            if how.get("inverted"):
                ratio = 1 / ratio
            watched = ratio / lr if how.get("alarm_without_lr") else ratio
            fires = bool(watched > RATIO_ALARM) or bool(std < STD_LOW) or bool(std > STD_HIGH)
            ratios.append(ratio)
            alarms.append(torch.tensor(1.0 if fires else 0.0, dtype=x.dtype))
        if t >= skip:
            planes = [torch.stack(ratios), torch.stack(stds), torch.stack(alarms)]
            columns.append(torch.stack(planes))
    for handle in handles:
        handle.remove()
    return torch.stack(columns, dim=-1).detach().to(x.dtype)


def training_monitor(
    x: torch.Tensor,
    target: torch.Tensor,
    depth: int,
    steps: int,
    lr: float,
    gain: float,
    seed: int,
) -> torch.Tensor:
    return _measure(x, target, depth, steps, lr, gain, seed)


def make_cases(gen: torch.Generator) -> list[Case]:
    """A healthy run where no alarm fires, then the two ways the alarms are meant to catch: a
    learning rate fifty times too high (the ratio) and an initialisation too large or too small
    (the std); then other shapes and dtypes. The too-high learning rate is the figure."""
    cases: list[Case] = []

    def add(
        name: str,
        shape: tuple[int, ...],
        depth: int,
        steps: int,
        lr: float,
        gain: float,
        dtype: torch.dtype = F32,
    ) -> None:
        x, target = normal(gen, shape, dtype), normal(gen, shape, dtype)
        s = seed(gen)
        said = described(
            x,
            same("N(0,1)"),
            Phrase("target N(0,1)", "target 为 N(0,1)"),
            Phrase(f"{depth} layers", f"{depth} 层"),
            Phrase(f"{steps} SGD steps", f"{steps} 步 SGD"),
            Phrase(f"learning rate {lr:g}", f"学习率 {lr:g}"),
            Phrase(f"init gain {gain:g}", f"初始化增益 {gain:g}"),
            Phrase(f"seed {s}", f"种子 {s}"),
        )
        cases.append(
            Case(
                name=name,
                description=said.en,
                description_zh=said.zh,
                x=x,
                steps=(Call((x, target), args=(depth, steps, lr, gain, s), seed=s, autograd=True),),
                # Compared with the reference experiment at the case's own dtype on the same
                # seed: the weights are drawn in float32 either way.
                stochastic=True,
            )
        )

    add("healthy_run", (64, 32), 4, 6, 0.01, 1.0)
    add(CHART_CASE, (64, 32), 4, 6, 0.5, 1.0)
    # Steps as large as a third of the weights: where the norm taken after the update differs
    # from the one before by percents (over 20 seeds at least 6% of the answer's size).
    add("learning_rate_far_too_high", (32, 16), 2, 3, 3.0, 1.0)
    add("init_too_large", (64, 32), 4, 4, 0.01, 1.6)
    add("init_too_small", (64, 32), 4, 4, 0.01, 0.6)
    add("batch_of_sequences", (4, 16, 24), 3, 3, 0.02, 1.0)
    add("float64_run", (48, 40), 3, 5, 0.02, 1.0, F64)
    add("one_layer", (32, 16), 1, 4, 0.1, 1.0)
    add("batch_of_one", (1, 8, 24), 2, 3, 0.02, 1.0)
    add("wide_features_f64", (8, 130), 2, 3, 0.02, 1.0, F64)
    add("deep_network", (32, 24), 8, 3, 0.01, 1.0)
    return cases


def _mistake(**how: bool):  # type: ignore[no-untyped-def]
    def build(
        x: torch.Tensor,
        target: torch.Tensor,
        depth: int,
        steps: int,
        lr: float,
        gain: float,
        seed: int,
    ) -> torch.Tensor:
        return _measure(x, target, depth, steps, lr, gain, seed, **how)

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
        "ratio_inverted",
        "The ratio taken the wrong way up",
        "Your plane 0 holds ||W|| / (lr * ||grad W||): the weight over its update. The monitored "
        "ratio is the update over the weight, lr * ||grad W|| / ||W||, a small number (around "
        "1e-3 in a healthy run) that grows when a step would move the weights too far.",
        "比值取反了",
        "你的第 0 面是 ||W|| / (lr * ||grad W||)：权重除以它的更新量。要监控的是更新量除以权重，"
        "即 lr * ||grad W|| / ||W||，这是一个很小的数（健康的训练中约为 1e-3），"
        "一步更新会把权重推得太远时它就变大。",
        inverted=True,
    ),
    _known(
        "squared_norm",
        "Squared norms: no square roots",
        "You divided sums of squares, lr * sum(grad**2) / sum(W**2). Each norm is the square root "
        "of its sum of squares (torch.linalg.vector_norm); without the roots the ratio has the "
        "wrong units and the threshold means nothing.",
        "用了平方范数：没有开根号",
        "你用的是平方和之比，lr * sum(grad**2) / sum(W**2)。每个范数都是平方和的平方根"
        "（torch.linalg.vector_norm）；不开根号，比值的量纲就不对，阈值也失去了意义。",
        squared=True,
    ),
    _known(
        "measured_after_step",
        "The weight's norm taken after optimiser.step()",
        "Your ratio divides by the weight after the update it describes. The ratio asks how far "
        "the coming step moves the weight it starts from: take ||W|| before optimiser.step(). "
        "With a learning rate that is too high the two differ most, exactly where the alarm "
        "matters.",
        "权重的范数取在 optimiser.step() 之后",
        "你的比值除以的是更新之后的权重。这个比值问的是：即将进行的这一步把出发时的权重推动了多远，"
        "所以 ||W|| 应在 optimiser.step() 之前取。"
        "学习率过高时两者相差最大，而那正是报警要紧的时候。",
        after_step=True,
    ),
    _known(
        "weight_std",
        "The std of the weights, not of the activations",
        "Your plane 1 holds the standard deviation of each layer's weight. The monitor watches "
        "what flows through the network: the std of the layer's output z = W h + b in this "
        "step's forward (a forward hook, or the value kept in your own loop).",
        "取了权重的标准差，而不是激活值的",
        "你的第 1 面是各层权重的标准差。监控要看的是在网络中流动的数值：本步前向中该层输出 "
        "z = W h + b 的标准差（用前向钩子，或在你自己的循环里保留这个值）。",
        weight_std=True,
    ),
    _known(
        "std_per_feature",
        "The std per feature, averaged",
        "You took the std of each feature over the batch and averaged the features. The contract "
        "measures one std over all of the layer's output elements, z.std(): the per-feature "
        "average misses a layer whose features drift apart in scale or offset.",
        "按特征求标准差再取平均",
        "你对每个特征沿批次求标准差，再对特征取平均。本题要的是对该层输出的全部元素求一个标准差，"
        "即 z.std()：按特征平均会漏掉各特征尺度或偏移彼此分开的情况。",
        per_feature=True,
    ),
    _known(
        "hooks_accumulate",
        "Forward hooks registered every step and never removed",
        "You register a forward hook on each layer at every step and never call handle.remove(), "
        "so at step t each layer carries t + 1 hooks, each recording again: your list grows "
        "faster than one entry per layer per step, and from step 1 on you read stale or "
        "repeated values. Register once (or remove each step's handles).",
        "每一步都注册前向钩子且从不移除",
        "你在每一步都给每层注册前向钩子，却从不调用 handle.remove()，于是第 t 步时每层挂着 t + 1 "
        "个钩子，每个都再记录一次：列表增长得比每步每层一项更快，"
        "从第 1 步起读到的是过时或重复的值。"
        "只注册一次（或每步移除本步的句柄）。",
        hooks_kept=True,
    ),
    _known(
        "alarm_without_lr",
        "The alarm compared on the gradient ratio, without the learning rate",
        "Your alarm compares ||grad W|| / ||W|| with the threshold. The threshold is for the "
        "update's size, lr * ||grad W|| / ||W||: the gradient alone says nothing about how far "
        "a step moves the weights, and the alarm fires on every healthy step.",
        "报警比较的是不含学习率的梯度比值",
        "你的报警拿 ||grad W|| / ||W|| 与阈值比较。阈值针对的是更新量的大小，"
        "即 lr * ||grad W|| / ||W||：单看梯度说明不了一步把权重推动了多远，"
        "报警会在每个健康的步骤上触发。",
        alarm_without_lr=True,
    ),
    _known(
        "first_step_skipped",
        "The first step not measured",
        "Your column 0 is the second step: you trained once before measuring, or started your "
        "record at step 1. Step 0 is the one a bad initialisation or a too-high learning rate "
        "shows most clearly; column t is the t-th step from initialisation, counted from 0.",
        "没有测量第一步",
        "你的第 0 列是第二步：你在测量之前先训练了一步，或者从第 1 步才开始记录。"
        "初始化不当或学习率过高，在第 0 步表现得最明显；"
        "第 t 列是从初始化起的第 t 步，从 0 开始数。",
        first_skipped=True,
    ),
)


SPEC = ExerciseSpec(
    slug="training_monitor",
    class_name="training_monitor",
    reference=training_monitor,
    make_cases=make_cases,
    mistakes=MISTAKES,
    kind="function",
    # The experiment composes nn modules, nn.init, hooks, autograd and an optimiser: no
    # allow-list, nothing banned.
    allowed=None,
    ranks=(2, 3),
    trains=False,
    chart=LabChart(
        case=CHART_CASE,
        series=("layer 1", "layer 2", "layer 3", "layer 4"),
        series_zh=("第 1 层", "第 2 层", "第 3 层", "第 4 层"),
        x_label="SGD step (1 = the first)",
        x_label_zh="SGD 步（1 = 第一步）",
        y_label="update-to-weight ratio lr·‖∇W‖/‖W‖",
        y_label_zh="更新量与权重之比 lr·‖∇W‖/‖W‖",
        title="Update-to-weight ratio per layer, learning rate 0.5",
        title_zh="各层的更新量与权重之比，学习率 0.5",
        plane=0,
    ),
)
