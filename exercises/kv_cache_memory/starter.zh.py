from __future__ import annotations

import torch


def kv_cache_memory(
    seq_lens: torch.Tensor,
    n_layers: int,
    n_heads: int,
    n_kv_heads: int,
    head_dim: int,
    dtype: str,
    budget_bytes: int,
) -> torch.Tensor:
    # 分别对 MHA（n_heads 个键值头）、GQA（n_kv_heads 个）和 MQA（1 个）：构造一条序列的缓存，
    # 每层一个 K 和一个 V 张量 (1, kv_heads, length, head_dim)，dtype 为 getattr(torch, dtype)
    # （device="meta" 不占内存），再实测它的大小：t.element_size() * t.numel() 之和。
    # 返回 (2, 3, *seq_lens.shape)，dtype 与 seq_lens 相同：第 0 面是各长度下的缓存（MiB），
    # 第 1 面是 budget_bytes 内放得下的最长上下文（token 数，每一列相同）。
    raise NotImplementedError("implement kv_cache_memory")
