from __future__ import annotations

import math  # noqa: F401  （用于 Python 数值的 math.pi 与 math.cos）

import torch


def warmup_cosine_schedule(
    step: torch.Tensor, warmup_steps: int, total_steps: int, min_ratio: float = 0.0
) -> torch.Tensor:
    """The learning-rate multiplier at each element of ``step`` (float32 or float64, any shape,
    0-d included, steps >= 0, fractional allowed), returned in ``step``'s shape and dtype.

    step < warmup_steps: step / warmup_steps. Otherwise, with
    progress = min((step - warmup_steps) / (total_steps - warmup_steps), 1):
    min_ratio + (1 - min_ratio) * 0.5 * (1 + cos(pi * progress)).
    """
    # 对张量逐元素计算（不要对它的值写 Python 的 if）：torch.where 按元素选择分支。
    # 把进度截断到 [0, 1]，这样超过 total_steps 后系数停在下限；
    # 还要处理 warmup_steps = 0（完全没有预热：第 0 步的系数为 1）。
    raise NotImplementedError("implement warmup_cosine_schedule")
