"""KV-cache memory for MHA, GQA and MQA, measured from the cache tensors themselves.

Each decoder layer keeps the keys and the values of every past token: two tensors of shape
(batch, kv_heads, length, head_dim). MHA keeps n_heads heads, GQA n_kv_heads, MQA one. The
caches are allocated on the meta device (real shapes and dtypes, no memory), one token long:
a cache's bytes are linear in its length, so the curve is that times each length.
"""

from __future__ import annotations

import torch


def _cache(n_layers: int, kv_heads: int, head_dim: int, dtype: torch.dtype) -> list[torch.Tensor]:
    """Per layer a K and a V tensor, (1, kv_heads, 1 token, head_dim)."""
    return [
        torch.empty(1, kv_heads, 1, head_dim, dtype=dtype, device="meta")
        for _layer in range(n_layers)
        for _k_or_v in range(2)
    ]


def kv_cache_memory(
    seq_lens: torch.Tensor,
    n_layers: int,
    n_heads: int,
    n_kv_heads: int,
    head_dim: int,
    dtype: str,
    budget_bytes: int,
) -> torch.Tensor:
    torch_dtype = getattr(torch, dtype)
    lengths = seq_lens.double()
    mib_rows, fits_rows = [], []
    for kv_heads in (n_heads, n_kv_heads, 1):  # MHA, GQA, MQA
        per_token = sum(
            t.element_size() * t.numel() for t in _cache(n_layers, kv_heads, head_dim, torch_dtype)
        )
        mib_rows.append(lengths * per_token / 2**20)
        fits_rows.append(torch.full_like(lengths, float(budget_bytes // per_token)))
    return torch.stack([torch.stack(mib_rows), torch.stack(fits_rows)]).to(seq_lens.dtype)
