# expect: passed
from __future__ import annotations

import torch
import torch.nn.functional as F

EPS = 1e-5


def bf16_norm_precision(x: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    # Every offset at once: (K, rows, dim). torch's layer_norm for the float32 arm and the
    # float64 reference; the median as a quantile (the row counts are odd).
    rows = (x.double()[None] + offsets.double()[:, None, None]).to(torch.bfloat16)
    seen = rows.double()
    dim = (x.shape[-1],)
    reference = F.layer_norm(seen, dim, eps=EPS)
    rms_reference = seen * torch.rsqrt(seen.pow(2).mean(-1, keepdim=True) + EPS)

    mu = rows.mean(-1, keepdim=True)
    dev = rows - mu
    two_pass = dev / torch.sqrt(dev.pow(2).mean(-1, keepdim=True) + EPS)
    var = (rows.pow(2).mean(-1, keepdim=True) - mu.pow(2)).clamp_min(0.0)
    one_pass = (rows - mu) / torch.sqrt(var + EPS)
    float32_stats = F.layer_norm(rows.float(), dim, eps=EPS).bfloat16()
    rms = rows / torch.sqrt(rows.pow(2).mean(-1, keepdim=True) + EPS)

    def error(y: torch.Tensor, ref: torch.Tensor) -> torch.Tensor:
        rel = torch.linalg.vector_norm(y.double() - ref, dim=-1) / torch.linalg.vector_norm(
            ref, dim=-1
        )
        return rel.quantile(0.5, dim=-1)  # (K,)

    out = torch.stack(
        [
            error(two_pass, reference),
            error(one_pass, reference),
            error(float32_stats, reference),
            error(rms, rms_reference),
        ]
    )
    return torch.log10(out).to(x.dtype)
