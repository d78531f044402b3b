from __future__ import annotations

import torch


def online_softmax_update(
    x: torch.Tensor, m: torch.Tensor, s: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    # 把块 x (..., c) 并入每一行的滚动最大值 m 和滚动求和 s (..., 1)：s 保存
    # sum(exp(已读元素 - m))。空状态为 m = -inf，s = 0。
    raise NotImplementedError("implement online_softmax_update")


def online_softmax(x: torch.Tensor, chunk_size: int = 128) -> torch.Tensor:
    # softmax(x, dim=-1)：用 online_softmax_update 逐块算出统计量，再算 exp(x - m) / s。
    raise NotImplementedError("implement online_softmax")
