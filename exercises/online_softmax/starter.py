from __future__ import annotations

import torch


def online_softmax_update(
    x: torch.Tensor, m: torch.Tensor, s: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    # Fold the chunk x (..., c) into each row's running max m and running sum s (..., 1):
    # s holds sum(exp(x_seen - m)). The empty state is m = -inf, s = 0.
    raise NotImplementedError("implement online_softmax_update")


def online_softmax(x: torch.Tensor, chunk_size: int = 128) -> torch.Tensor:
    # softmax(x, dim=-1): the statistics chunk by chunk with online_softmax_update, then
    # exp(x - m) / s.
    raise NotImplementedError("implement online_softmax")
