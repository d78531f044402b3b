# expect: failed mistake=one_layer_only
"""Wrong: one K and one V, per layer counted once."""

from __future__ import annotations

import torch


def kv_cache_memory(seq_lens, n_layers, n_heads, n_kv_heads, head_dim, dtype, budget_bytes):
    """Real (tiny) tensors: one token per cache entry, then scaled, since bytes grow linearly."""
    dt = getattr(torch, dtype)
    planes = [[], []]
    for kv in (n_heads, n_kv_heads, 1):
        k_cache = [torch.zeros(1, kv, 1, head_dim, dtype=dt)]
        v_cache = [torch.zeros(1, kv, 1, head_dim, dtype=dt)]
        per_token = sum(t.nbytes for t in k_cache + v_cache)
        planes[0].append(seq_lens.double() * per_token / 2**20)
        planes[1].append(torch.full_like(seq_lens.double(), budget_bytes // per_token))
    return torch.stack([torch.stack(p) for p in planes]).to(seq_lens.dtype)
