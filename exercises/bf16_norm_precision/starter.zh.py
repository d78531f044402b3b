from __future__ import annotations

import torch
import torch.nn.functional as F  # noqa: F401  （F.layer_norm：不涉及 bfloat16 舍入的地方可以用）

EPS = 1e-5


def bf16_norm_precision(x: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    # 对每个偏移：rows = (x.double() + offset) 转成 bfloat16。用四种方式归一化这些行（bf16 两遍
    # LayerNorm、bf16 单遍 LayerNorm、统计量用 float32 再转回的 LayerNorm、bf16 RMSNorm），
    # 每种都与在同样的 bfloat16 行上用 float64 计算的同一种归一化比较。
    # 返回 (4, len(offsets))、dtype 与 x 相同的张量：各行相对 L2 误差中位数的 log10。
    raise NotImplementedError("implement bf16_norm_precision")
