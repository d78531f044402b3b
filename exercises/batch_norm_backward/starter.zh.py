from __future__ import annotations

from typing import Any

import torch


class BatchNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(
        ctx: Any, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float
    ) -> torch.Tensor:
        # x 的形状为 (N, C) 或 (N, C, L)。训练模式：每个通道在其余所有维度上算统计量（有偏方差，
        # eps 在根号里），再用 weight 和 bias（形状 (C,)）缩放和平移。
        # 用 ctx.save_for_backward(...) 保存 backward 需要的张量。
        raise NotImplementedError("implement BatchNormFunction.forward")

    @staticmethod
    def backward(ctx: Any, dy: torch.Tensor) -> tuple[Any, ...]:
        # 返回 (dx, dweight, dbias, None)：dx 与 x 同形状，dweight 和 dbias 形状为 (C,)，eps 对应
        # None。手工计算：这里不能用 autograd。
        raise NotImplementedError("implement BatchNormFunction.backward")
