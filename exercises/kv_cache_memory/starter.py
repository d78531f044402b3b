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
    # For MHA (n_heads key/value heads), GQA (n_kv_heads) and MQA (1): build the cache of one
    # sequence, per layer a K and a V tensor (1, kv_heads, length, head_dim) in
    # getattr(torch, dtype) (device="meta" costs no memory), and measure it:
    # sum of t.element_size() * t.numel(). Return (2, 3, *seq_lens.shape) in seq_lens.dtype:
    # plane 0 the cache in MiB at each length, plane 1 the longest context that fits
    # budget_bytes (in tokens, the same in every column).
    raise NotImplementedError("implement kv_cache_memory")
