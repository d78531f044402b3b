from __future__ import annotations

import math  # noqa: F401  (math.sqrt、math.ceil 可以直接用)

import torch
import torch.nn.functional as F  # noqa: F401  (F.silu、F.gelu、F.relu 可以直接用)
from torch import nn


def llama_hidden_dim(
    dim: int, multiple_of: int = 256, ffn_dim_multiplier: float | None = None
) -> int:
    # 取 4 * dim 的 2/3（截断取整）；给了 ffn_dim_multiplier 就再乘上它（截断取整）；最后向上
    # 取整到 multiple_of 的倍数。llama_hidden_dim(4096) == 11008。
    raise NotImplementedError("implement llama_hidden_dim")


class GLUFFN(nn.Module):
    def __init__(
        self,
        dim: int,
        hidden_dim: int | None = None,
        activation: str = "swish",
        multiple_of: int = 256,
        ffn_dim_multiplier: float | None = None,
    ) -> None:
        super().__init__()
        if hidden_dim is None:
            hidden_dim = llama_hidden_dim(dim, multiple_of, ffn_dim_multiplier)
        # 评测程序会加载 w1.weight、w2.weight 和 w3.weight：请保持这些名字和形状不变。
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)  # 门控（gate）
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)  # 降维（down）
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)  # 升维（up）
        # 由你来写：根据 activation 选择门控函数，取值为 "swish" | "gelu" | "relu"（其他值
        # 抛出 ValueError）。

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # x: (..., dim) -> w2(act(w1(x)) * w3(x)) -> (..., dim)
        raise NotImplementedError("implement GLUFFN.forward")
