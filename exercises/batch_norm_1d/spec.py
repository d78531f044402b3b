"""Grading spec for ``batch_norm_1d``: BatchNorm1d from scratch, with its running statistics.

BatchNorm has state, so every case is a scenario: build (default initialisation or a loaded
state), then calls in train or eval mode with an optimiser-like update between some of them;
outputs, gradients and all three buffers (``num_batches_tracked``, a ``long``, exactly) are
compared after every call. Channels sit at dim 1: inputs are ``(N, C)`` and ``(N, C, L)`` only.
"""

from __future__ import annotations

from collections.abc import Mapping

import torch
from torch import nn

from api.grading.allowlist import ELEMENTARY
from api.grading.draw import call, choice, described, normal, randint, scenario
from api.grading.phrase import (
    AN_UPDATE_OF_WEIGHT_AND_BIAS,
    BATCH_OF_TWO,
    CHANNEL_OFFSETS,
    DEFAULT_INIT,
    EVAL_UPDATE_EVAL,
    ONE_SEQUENCE,
    Phrase,
    after_the_update,
    channels_offset_by,
    listing,
    modes,
    non_contiguous,
    same,
)
from api.grading.spec import Case, ExerciseSpec, InitValue, KnownMistake, Step, Update


def reference(num_features: int, eps: float = 1e-5, momentum: float = 0.1) -> nn.Module:
    return nn.BatchNorm1d(num_features, eps=eps, momentum=momentum)


BANNED = (
    "torch.nn.BatchNorm1d",
    "torch.nn.BatchNorm2d",
    "torch.nn.BatchNorm3d",
    "torch.nn.SyncBatchNorm",
    "torch.nn.LazyBatchNorm1d",
    "torch.nn.functional.batch_norm",
    "torch.batch_norm",
    "torch.native_batch_norm",
    "torch._native_batch_norm_legit",
    "torch.nn.functional.instance_norm",
    "torch.nn.functional.group_norm",
    "torch.nn.functional.layer_norm",
    "torch.nn.InstanceNorm1d",
    "torch.nn.GroupNorm",
    # The same kernels through torch.ops, by any name.
    "aten.batch_norm",
    "aten.native_batch_norm",
    "aten._native_batch_norm_legit",
    "aten._native_batch_norm_legit_no_training",
    "aten._batch_norm_impl_index",
    "aten.instance_norm",
    "aten.group_norm",
    "aten.native_group_norm",
    "aten.layer_norm",
    "aten.native_layer_norm",
)


def _random_state(gen: torch.Generator, c: int, dtype: torch.dtype) -> dict[str, torch.Tensor]:
    return {
        "weight": 1 + normal(gen, (c,), dtype, std=0.5),
        "bias": normal(gen, (c,), dtype),
        "running_mean": normal(gen, (c,), dtype),
        "running_var": (0.5 + 2 * torch.rand(c, generator=gen)).to(dtype),
        "num_batches_tracked": torch.tensor(randint(gen, 1, 49), dtype=torch.long),
    }


def _offsets(gen: torch.Generator, c: int, dtype: torch.dtype, ndim: int) -> torch.Tensor:
    # Channels with different means, as real features have: statistics over the wrong axis
    # mix them and show.
    off = normal(gen, (c,), dtype, std=3.0)
    return off[:, None] if ndim == 3 else off


_LOADED_STATE = Phrase(
    "loaded state (random weight, bias and running statistics)",
    "载入的状态（weight、bias 和滑动统计量取随机值）",
)


def make_cases(gen: torch.Generator) -> list[Case]:
    f32, f64 = torch.float32, torch.float64
    cases: list[Case] = []

    def update(c: int, dtype: torch.dtype, lr: float = 0.1) -> Update:
        deltas = {p: normal(gen, (c,), dtype, std=lr) for p in ("weight", "bias")}
        en, zh = AN_UPDATE_OF_WEIGHT_AND_BIAS
        return Update(deltas, note=en, note_zh=zh)

    def add(
        name: str,
        what: Phrase,
        steps: list[Step],
        *,
        c: int,
        state: dict[str, torch.Tensor] | None = None,
        kwargs: dict[str, InitValue] | None = None,
    ) -> None:
        first = next(s for s in steps if not isinstance(s, Update))
        called = modes(("train" if s.train else "eval") for s in steps if not isinstance(s, Update))
        init = _LOADED_STATE if state else DEFAULT_INIT
        words = described(first.inputs[0], what, init, called)
        cases.append(
            scenario(
                name=name,
                description=words.en,
                description_zh=words.zh,
                steps=steps,
                init_kwargs={"num_features": c, **(kwargs or {})},
                state=state,
            )
        )

    def ri(lo: int, hi: int) -> int:
        return randint(gen, lo, hi)

    # (N, C), default init: three training batches then eval. Momentum the wrong way round,
    # a biased running variance and a count never incremented all show in the buffers.
    c = ri(3, 9)
    off = _offsets(gen, c, f32, 2)
    add(
        "train_then_eval_2d",
        listing([same("(N, C)"), channels_offset_by("3 * N(0,1)")]),
        [
            call(gen, normal(gen, (ri(4, 12), c), f32, std=2.0) + off, train=True),
            update(c, f32),
            call(gen, normal(gen, (ri(4, 12), c), f32) + off, train=True),
            update(c, f32),
            call(gen, normal(gen, (ri(4, 12), c), f32) + off, train=True),
            call(
                gen,
                normal(gen, (ri(2, 6), c), f32) + off,
                note=Phrase("eval on the running estimates", "用滑动统计量"),
            ),
        ],
        c=c,
    )
    # (N, C, L): statistics pool N and L per channel; positions differ in scale, so statistics
    # over N alone (one per position) are far from the per-channel ones.
    # N >= 3: with two samples per position the per-position mistake's input gradient is
    # rounding noise around zero (two values normalise to -1 and +1 whatever they are).
    c, n, length = ri(2, 6), ri(3, 5), ri(3, 9)
    pos = torch.linspace(0.5, 3.0, length)
    add(
        "train_then_eval_3d",
        listing(
            [same("(N, C, L)"), Phrase("positions scaled 0.5 to 3", "各位置分别缩放 0.5 到 3 倍")]
        ),
        [
            call(
                gen, normal(gen, (n, c, length), f32) * pos + _offsets(gen, c, f32, 3), train=True
            ),
            update(c, f32),
            call(gen, normal(gen, (n, c, length), f32) * pos, train=True),
            call(gen, normal(gen, (n + 1, c, length), f32), note=Phrase("eval", "")),
        ],
        c=c,
    )
    # Eval from a loaded state: the running statistics alone decide, and must not move. The
    # update between the calls catches a scale and shift fused on the first call and cached.
    c = ri(3, 8)
    x = normal(gen, (ri(2, 6), c, ri(1, 5)), f32)
    state = _random_state(gen, c, f32)
    add(
        "eval_loaded_state",
        listing([same("N(0,1)"), EVAL_UPDATE_EVAL]),
        [call(gen, x), update(c, f32), call(gen, x, backward=False, note=after_the_update())],
        c=c,
        state=state,
    )
    # Non-default momentum and eps from a loaded state, on a small-variance input.
    c = ri(3, 8)
    x = normal(gen, (ri(3, 8), c), f32, std=0.05) + 1.0
    add(
        "momentum_eps",
        listing(
            [
                same("0.05 * N(0,1) + 1"),
                Phrase("momentum 0.3", "momentum 为 0.3"),
                Phrase("eps 0.01", "eps 为 0.01"),
            ]
        ),
        [call(gen, x, train=True), call(gen, x * 3 - 1, train=True), call(gen, x)],
        c=c,
        state=_random_state(gen, c, f32),
        kwargs={"momentum": 0.3, "eps": 1e-2},
    )
    # A batch of two: the unbiased factor n / (n - 1) is 2. Its training call is forward only:
    # two values normalise to -1 and +1 whatever they are, so the input gradient is zero up to
    # eps, and comparing it would compare rounding noise.
    c = ri(2, 6)
    add(
        "batch_of_two",
        listing(
            [
                same("N(0,1) + 1"),
                BATCH_OF_TWO,
            ]
        ),
        [
            call(gen, normal(gen, (2, c), f32) + 1, train=True, backward=False),
            call(gen, normal(gen, (3, c), f32)),
        ],
        c=c,
    )
    # One sequence: the statistics pool L alone.
    c = ri(2, 6)
    add(
        "batch_of_one_3d",
        listing(
            [
                same("2 * N(0,1)"),
                ONE_SEQUENCE,
            ]
        ),
        [
            call(gen, normal(gen, (1, c, ri(3, 7)), f32, std=2.0), train=True),
            call(gen, normal(gen, (1, c, 4), f32)),
        ],
        c=c,
    )
    # A channel constant over the batch: batch variance 0, output = bias, finite gradient.
    c = ri(3, 6)
    x = normal(gen, (ri(3, 6), c), f32)
    x[:, 0] = 2.5
    add(
        "constant_channel",
        listing([same("N(0,1)"), Phrase("channel 0 constant 2.5", "第 0 个通道恒为 2.5")]),
        [call(gen, x, train=True)],
        c=c,
    )
    # float64 around 1e4: E[x^2] - E[x]^2 cancels.
    c = ri(3, 6)
    x = normal(gen, (ri(4, 9), c, ri(2, 5)), f64) + 1e4
    add(
        "offset_float64",
        same("N(0,1) + 1e4"),
        [call(gen, x, train=True), call(gen, x)],
        c=c,
        state=_random_state(gen, c, f64),
    )
    # (N, C, L) as a transposed view, as after a Linear on (N, L, C).
    c = ri(3, 6)
    x = normal(gen, (ri(3, 5), c, ri(3, 6)), f32) + _offsets(gen, c, f32, 3)
    add(
        "transposed_input",
        listing([CHANNEL_OFFSETS, non_contiguous("transposed")]),
        [
            call(gen, x, train=True, layout="transposed"),
            update(c, f32),
            call(gen, x, layout="transposed", note=after_the_update("eval, ")),
        ],
        c=c,
    )
    # Many channels, no power of two; eval on a single sample.
    c = choice(gen, [200, 300])
    add(
        "wide_channels_f64",
        CHANNEL_OFFSETS,
        [
            call(gen, normal(gen, (ri(4, 8), c), f64) + _offsets(gen, c, f64, 2), train=True),
            update(c, f64),
            call(gen, normal(gen, (1, c), f64), note=Phrase("eval on a batch of 1", "批大小为 1")),
        ],
        c=c,
    )
    # A training forward under no_grad (the buffers still move), then eval with backward.
    c = ri(3, 6)
    x = normal(gen, (ri(2, 4), c, ri(2, 6)), f32, std=1.5)
    add(
        "train_forward_no_grad",
        same("1.5 * N(0,1)"),
        [call(gen, x, train=True, backward=False), call(gen, x)],
        c=c,
        state=_random_state(gen, c, f32),
    )
    return cases


class _Contract(nn.Module):
    """The contract's constructor, parameters and buffers; subclasses make one mistake each."""

    running_mean: torch.Tensor
    running_var: torch.Tensor
    num_batches_tracked: torch.Tensor

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1) -> None:
        super().__init__()
        self.eps = eps
        self.momentum = momentum
        self.weight = nn.Parameter(torch.ones(num_features))
        self.bias = nn.Parameter(torch.zeros(num_features))
        self.register_buffer("running_mean", torch.zeros(num_features))
        self.register_buffer("running_var", torch.ones(num_features))
        self.register_buffer("num_batches_tracked", torch.tensor(0, dtype=torch.long))

    @staticmethod
    def dims(x: torch.Tensor) -> tuple[tuple[int, ...], tuple[int, ...]]:
        return ((0,), (1, -1)) if x.dim() == 2 else ((0, 2), (1, -1, 1))

    def normalise(
        self, x: torch.Tensor, mean: torch.Tensor, var: torch.Tensor, shape: tuple[int, ...]
    ) -> torch.Tensor:
        x_hat = (x - mean.reshape(shape)) / torch.sqrt(var.reshape(shape) + self.eps)
        return x_hat * self.weight.reshape(shape) + self.bias.reshape(shape)

    def update(self, mean: torch.Tensor, unbiased_var: torch.Tensor) -> None:
        with torch.no_grad():
            m = self.momentum
            self.running_mean.mul_(1 - m).add_(mean, alpha=m)
            self.running_var.mul_(1 - m).add_(unbiased_var, alpha=m)
            self.num_batches_tracked.add_(1)


def _batch_stats(x: torch.Tensor, dims: tuple[int, ...]) -> tuple[torch.Tensor, torch.Tensor, int]:
    return x.mean(dims), x.var(dims, unbiased=False), x.numel() // x.shape[1]


class BiasedRunningVariance(_Contract):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        dims, shape = self.dims(x)
        if not self.training:
            return self.normalise(x, self.running_mean, self.running_var, shape)
        mean, var, _ = _batch_stats(x, dims)
        self.update(mean, var)  # the batch's biased variance straight into the estimate
        return self.normalise(x, mean, var, shape)


class MomentumReversed(_Contract):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        dims, shape = self.dims(x)
        if not self.training:
            return self.normalise(x, self.running_mean, self.running_var, shape)
        mean, var, n = _batch_stats(x, dims)
        with torch.no_grad():
            m = self.momentum
            self.running_mean.mul_(m).add_(mean, alpha=1 - m)
            self.running_var.mul_(m).add_(var * n / (n - 1), alpha=1 - m)
            self.num_batches_tracked.add_(1)
        return self.normalise(x, mean, var, shape)


class UpdatedInEval(_Contract):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        dims, shape = self.dims(x)
        mean, var, n = _batch_stats(x, dims)
        self.update(mean, var * n / (n - 1))  # in both modes
        if not self.training:
            return self.normalise(x, self.running_mean, self.running_var, shape)
        return self.normalise(x, mean, var, shape)


class UpdatedInEvalAfterOutput(_Contract):
    """The same mistake with the update left at the end of forward: an eval call's output
    still comes from the estimates as they were, only the next call sees them moved."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        dims, shape = self.dims(x)
        mean, var, n = _batch_stats(x, dims)
        if self.training:
            out = self.normalise(x, mean, var, shape)
        else:
            out = self.normalise(x, self.running_mean, self.running_var, shape)
        self.update(mean, var * n / (n - 1))  # in both modes
        return out


class RunningStatsInTraining(_Contract):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        dims, shape = self.dims(x)
        if self.training:
            mean, var, n = _batch_stats(x, dims)
            self.update(mean, var * n / (n - 1))
        return self.normalise(x, self.running_mean, self.running_var, shape)


class StatsOverBatchOnly(_Contract):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # Reduces dim 0 alone: right for (N, C), one statistic per position for (N, C, L).
        shape = (1, -1) if x.dim() == 2 else (1, -1, 1)
        if not self.training:
            return self.normalise(x, self.running_mean, self.running_var, shape)
        n = x.shape[0]
        mean = x.mean(0, keepdim=True)
        var = x.var(0, unbiased=False, keepdim=True)
        unbiased = var * n / (n - 1) if n > 1 else var
        self.update(
            mean.reshape(x.shape[1], -1).mean(-1), unbiased.reshape(x.shape[1], -1).mean(-1)
        )
        x_hat = (x - mean) / torch.sqrt(var + self.eps)
        return x_hat * self.weight.reshape(shape) + self.bias.reshape(shape)


class CorrectionOverBatchOnly(_Contract):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        dims, shape = self.dims(x)
        if not self.training:
            return self.normalise(x, self.running_mean, self.running_var, shape)
        mean, var, _ = _batch_stats(x, dims)
        n = x.shape[0]  # the batch size, where N * L values per channel were pooled
        self.update(mean, var * n / (n - 1))
        return self.normalise(x, mean, var, shape)


class CountNotTracked(_Contract):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        dims, shape = self.dims(x)
        if not self.training:
            return self.normalise(x, self.running_mean, self.running_var, shape)
        mean, var, n = _batch_stats(x, dims)
        with torch.no_grad():
            m = self.momentum
            self.running_mean.mul_(1 - m).add_(mean, alpha=m)
            self.running_var.mul_(1 - m).add_(var * n / (n - 1), alpha=m)
        return self.normalise(x, mean, var, shape)


class DetachedBatchStats(_Contract):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        dims, shape = self.dims(x)
        if not self.training:
            return self.normalise(x, self.running_mean, self.running_var, shape)
        mean, var, n = _batch_stats(x, dims)
        self.update(mean, var * n / (n - 1))
        # The batch statistics treated as constants, as the running ones are: wrong in
        # training, where they are functions of x.
        return self.normalise(x, mean.detach(), var.detach(), shape)


MISTAKES = (
    KnownMistake(
        name="biased_running_variance",
        title="Running variance updated with the biased batch variance",
        explanation=(
            "You fed the batch's biased variance (divided by n) into running_var. The batch is "
            "normalised with the biased variance, which describes it exactly, but the running "
            "estimate stands for the population the batches are drawn from, and the unbiased "
            "variance (divided by n - 1) estimates that. With N = 2 the difference is a factor "
            "of 2. Fix: running_var = (1 - momentum) * running_var + momentum * var * n / (n - 1), "
            "where n is the number of values per channel (N, or N * L)."
        ),
        title_zh="滑动方差用了有偏的批方差",
        explanation_zh=(
            "你把批内的有偏方差（除以 n）直接更新进了 running_var。对当前批做归一化用有偏方差没错，"
            "它正好描述这一批数据；但滑动统计量估计的是批次背后的总体，"
            "估计总体方差要用无偏方差（除以 "
            "n - 1）。N = 2 时两者差一倍。改法：running_var = (1 - momentum) * running_var + "
            "momentum * var * n / (n - 1)，n 是每个通道的取值个数（N 或 N * L）。"
        ),
        build=BiasedRunningVariance,
    ),
    KnownMistake(
        name="momentum_reversed",
        title="Momentum the wrong way round",
        explanation=(
            "You kept momentum of the old estimate and gave the new batch 1 - momentum. In "
            "PyTorch's convention momentum is the weight of the new observation: "
            "running = (1 - momentum) * running + momentum * batch, so the default 0.1 keeps 90% "
            "of the history. Written the other way, each batch overwrites 90% of the estimate "
            "and eval mode ends up normalising with the last batch's statistics. (Keras's "
            "BatchNormalization uses the opposite convention, momentum=0.99 for the old "
            "estimate, which is where the confusion comes from.)"
        ),
        title_zh="momentum 用反了",
        explanation_zh=(
            "你让旧估计保留 momentum 的权重，新批次只占 1 - momentum。PyTorch 的约定是 momentum "
            "表示新观测的权重：running = (1 - momentum) * running + momentum * batch，默认 0.1 "
            "意味着保留 90% 的历史。反过来写，每个批次都会覆盖掉 90% 的估计，eval 时实际上用的是"
            "最后一批的统计量。（Keras 的 BatchNormalization 采用相反的约定，"
            "momentum=0.99 是旧估计的权重，混淆多半由此而来。）"
        ),
        build=MomentumReversed,
    ),
    KnownMistake(
        name="running_stats_updated_in_eval",
        title="Running statistics updated in eval mode",
        explanation=(
            "Your forward updates running_mean and running_var in eval mode too. Eval must not "
            "change the model: evaluating on a validation or test set would otherwise move the "
            "estimates towards that data, and two identical eval calls would give different "
            "outputs. Fix: update the buffers only under `if self.training:`."
        ),
        title_zh="eval 模式下也更新了滑动统计量",
        explanation_zh=(
            "你的 forward 在 eval 模式下同样更新了 running_mean 和 running_var。eval 不能改变模型："
            "否则在验证集或测试集上跑一遍，估计量就被拉向这些数据，连续两次相同的 eval 调用结果也"
            "会不同。改法：只在 `if self.training:` 分支里更新 buffer。"
        ),
        build=UpdatedInEval,
        forms=(UpdatedInEvalAfterOutput,),
    ),
    KnownMistake(
        name="running_stats_in_training",
        title="Normalised with the running statistics in training",
        explanation=(
            "In training you updated the running estimates and then normalised with them instead "
            "of with the batch's own mean and variance. Training must use the batch statistics: "
            "they are what makes the output of each batch zero-mean and unit-variance, and the "
            "gradient flows through them (the running ones are constants). At the start, with "
            "running_mean = 0 and running_var = 1, your layer barely normalises at all. Fix: "
            "in training normalise with x.mean(dims) and the biased x.var(dims); use the "
            "running buffers only in eval."
        ),
        title_zh="训练时用滑动统计量做归一化",
        explanation_zh=(
            "训练时你更新了滑动统计量，却接着用它们来归一化，而不是用当前批的均值和方差。训练必须用批统"
            "计量：正是它们让每个批次的输出变成零均值、单位方差，梯度也要经过它们（滑动统计量对梯度"
            "而言是常数）。刚开始 running_mean = 0、running_var = 1，你的层几乎没做归一化。改法："
            "训练时用 x.mean(dims) 和有偏的 x.var(dims) 归一化，只在 eval 时使用滑动统计量。"
        ),
        build=RunningStatsInTraining,
    ),
    KnownMistake(
        name="stats_over_wrong_dims_3d",
        title="Statistics over the batch dim only for (N, C, L) input",
        explanation=(
            "For 3-D input you reduced over dim 0 only, which gives one mean and variance per "
            "channel and position, shape (C, L). BatchNorm1d keeps one statistic per channel: "
            "for (N, C, L) it pools the batch and the length, dims (0, 2), so that every position "
            "of a channel is normalised alike (and the running buffers stay (C,)). Fix: "
            "dims = (0,) for 2-D and (0, 2) for 3-D."
        ),
        title_zh="三维输入 (N, C, L) 只在 batch 维上求统计量",
        explanation_zh=(
            "对三维输入你只在第 0 维上归约，得到的是每个通道、每个位置各一组均值和方差，形状 "
            "(C, L)。BatchNorm1d 对每个通道只保留一组统计量：输入是 (N, C, L) 时，要把 batch 和长度"
            "两个维度合起来算，即 dims = (0, 2)，这样"
            "同一通道的所有位置按同一标准归一化（滑动统计量的 "
            "buffer 也保持 (C,) 形状）。改法：二维用 dims = (0,)，三维用 (0, 2)。"
        ),
        build=StatsOverBatchOnly,
    ),
    KnownMistake(
        name="unbiased_correction_over_batch_only",
        title="n / (n - 1) with n = N for (N, C, L) input",
        explanation=(
            "Your running variance takes the unbiased correction n / (n - 1) with n the batch "
            "size. For (N, C, L) input each channel's statistics pool N * L values, so n is "
            "N * L: with N = 2 and L = 16 you multiply by 2 where 32/31 is due. (N, C) input is "
            "right, which is why this shows only on sequences. Fix: n = x.numel() // x.shape[1], "
            "or torch's x.var(dims) (unbiased by default) over dims (0, 2)."
        ),
        title_zh="(N, C, L) 输入的 n / (n - 1) 里用了 n = N",
        explanation_zh=(
            "你的滑动方差做无偏修正 n / (n - 1) 时，n 用的是批大小。输入为 (N, C, L) 时，每个通道的"
            "统计量汇集了 N * L 个值，所以 n 应为 N * L：N = 2、L = 16 时你乘的是 2，应当乘的是 "
            "32/31。(N, C) 输入是对的，所以这个错误只在序列输入上出现。改法：n = x.numel() // "
            "x.shape[1]，或者在 dims (0, 2) 上用 torch 的 x.var(dims)（默认无偏）。"
        ),
        build=CorrectionOverBatchOnly,
    ),
    KnownMistake(
        name="num_batches_not_tracked",
        title="num_batches_tracked never incremented",
        explanation=(
            "Your running statistics are right but num_batches_tracked stays at its initial "
            "value. It is part of the module's state (it is saved in the state_dict) and PyTorch "
            "uses it when momentum=None, where the running statistics become a cumulative "
            "average 1 / num_batches_tracked. Fix: add 1 in every training forward."
        ),
        title_zh="num_batches_tracked 从未递增",
        explanation_zh=(
            "你的滑动统计量是对的，但 num_batches_tracked 一直停在初始值。它是模块状态的一部分（会"
            "存进 state_dict）；momentum=None 时 PyTorch 靠它把滑动统计量变成累计平均（权重 1 / "
            "num_batches_tracked）。改法：每次训练模式的 forward 都加 1。"
        ),
        build=CountNotTracked,
    ),
    KnownMistake(
        name="detached_batch_statistics",
        title="Batch statistics detached in training",
        explanation=(
            "Your outputs are right but the gradient with respect to x is not: in training you "
            "detached the batch mean and variance, so backward treats them as constants. They "
            "are functions of every sample in the batch, and the true gradient has two extra "
            "terms through them (the same ones as in LayerNorm's backward, taken over the batch): "
            "without them the gradient does not keep the normalised output's mean and variance "
            "fixed. Only the running statistics are constants. Fix: do not detach in training."
        ),
        title_zh="训练时把批统计量 detach 了",
        explanation_zh=(
            "你的输出是对的，但对 x 的梯度不对：训练时你把批均值和批方差 detach 了，"
            "反向传播把它们当成常数。它们其实是整批样本的函数，真实梯度经由它们还有两项"
            "（与 LayerNorm 反向的两项相同，只是在 batch 上求平均）；少了这两项，"
            "梯度就无法保持归一化输出的均值和方差不变。只有滑动统计量才是常数。"
            "改法：训练时不要 detach。"
        ),
        build=DetachedBatchStats,
    ),
)


def along_axis(
    function: str, x: torch.Tensor, axis: int, state: Mapping[str, torch.Tensor] | None
) -> torch.Tensor:
    """Train-mode BatchNorm with its per-channel statistics kept along ``axis`` instead of
    dim 1, the weight and bias still on the channels (the axis finding). Eval calls use the
    running estimates and match no axis."""
    moved = x.movedim(axis, 1)
    y = torch.nn.functional.batch_norm(moved, None, None, training=True, eps=1e-5)
    y = y.movedim(1, axis)
    if state is None:
        return y
    shape = (1, -1) if x.dim() == 2 else (1, -1, 1)
    return y * state["weight"].reshape(shape) + state["bias"].reshape(shape)


SPEC = ExerciseSpec(
    slug="batch_norm_1d",
    reduction=along_axis,
    class_name="BatchNorm1d",
    reference=reference,
    make_cases=make_cases,
    mistakes=MISTAKES,
    # What a solution is made of: anything else it runs is refused (api/grading/allowlist.py).
    allowed=ELEMENTARY,
    banned=BANNED,
    feature_axis=1,
    ranks=(2, 3),
)
