# expect: passed
"""Right: the whole cache as one meta tensor per layout."""

from __future__ import annotations

import torch


def kv_cache_memory(seq_lens, n_layers, n_heads, n_kv_heads, head_dim, dtype, budget_bytes):
    dt = getattr(torch, dtype)
    out = torch.empty(2, 3, *seq_lens.shape, dtype=torch.float64)
    for r, kv in enumerate([n_heads, n_kv_heads, 1]):
        # one tensor holds the whole cache: (K/V, layers, batch, kv_heads, 1 token, head_dim)
        cache = torch.empty(2, n_layers, 1, kv, 1, head_dim, dtype=dt, device="meta")
        per_token = cache.element_size() * cache.numel()
        out[0, r] = seq_lens.double() * per_token / (1024 * 1024)
        out[1, r] = budget_bytes // per_token
    return out.to(seq_lens.dtype)
