# expect: passed
"""Right: the caches kept in a dict by layer, as an inference engine does, measured with nbytes."""

import torch


def kv_cache_memory(seq_lens, n_layers, n_heads, n_kv_heads, head_dim, dtype, budget_bytes):
    dt = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}[dtype]
    rows_mib, rows_fit = [], []
    for kv in [n_heads, n_kv_heads, 1]:
        caches = {
            layer: (
                torch.empty((1, kv, 1, head_dim), dtype=dt, device="meta"),
                torch.empty((1, kv, 1, head_dim), dtype=dt, device="meta"),
            )
            for layer in range(n_layers)
        }
        per_token = sum(k.nbytes + v.nbytes for k, v in caches.values())
        rows_mib.append(seq_lens.to(torch.float64) * (per_token / 1048576))
        rows_fit.append(
            torch.ones_like(seq_lens, dtype=torch.float64) * (budget_bytes // per_token)
        )
    return torch.stack([torch.stack(rows_mib), torch.stack(rows_fit)]).to(seq_lens.dtype)
