# expect: passed
# Another correct spelling: one offset at a time, the arms kept in a list of functions, the
# float64 reference by Welford's running mean and variance (a row at a time, vectorised over the
# rows), the float32 arm by hand in float32, the median as the middle of the sorted errors.
from __future__ import annotations

import torch

EPS = 1e-5


def _welford_layer_norm(t: torch.Tensor) -> torch.Tensor:
    mean = torch.zeros((*t.shape[:-1], 1), dtype=t.dtype)
    m2 = torch.zeros_like(mean)
    for k in range(t.shape[-1]):
        v = t[..., k : k + 1]
        delta = v - mean
        mean = mean + delta / (k + 1)
        m2 = m2 + delta * (v - mean)
    return (t - mean) / torch.sqrt(m2 / t.shape[-1] + EPS)


def _two_pass(t: torch.Tensor) -> torch.Tensor:
    mean = t.mean(-1, keepdim=True)
    d = t - mean
    return d / torch.sqrt((d * d).mean(-1, keepdim=True) + EPS)


def _one_pass(t: torch.Tensor) -> torch.Tensor:
    mean = t.mean(-1, keepdim=True)
    var = ((t * t).mean(-1, keepdim=True) - mean * mean).clamp(min=0)
    return (t - mean) / torch.sqrt(var + EPS)


def _rms(t: torch.Tensor) -> torch.Tensor:
    return t / torch.sqrt((t * t).mean(-1, keepdim=True) + EPS)


def bf16_norm_precision(x: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    arms = [
        (_two_pass, "layer_norm"),
        (_one_pass, "layer_norm"),
        (lambda t: _two_pass(t.float()).to(torch.bfloat16), "layer_norm"),
        (_rms, "rms_norm"),
    ]
    columns = []
    for o in offsets.tolist():
        xb = (x.double() + o).to(torch.bfloat16)
        seen = xb.double()
        references = {"layer_norm": _welford_layer_norm(seen), "rms_norm": _rms(seen)}
        medians = []
        for arm, name in arms:
            y, ref = arm(xb).double(), references[name]
            rel = (y - ref).norm(dim=-1) / ref.norm(dim=-1)
            ordered = rel.sort().values
            medians.append(ordered[(ordered.numel() - 1) // 2])
        columns.append(torch.stack(medians))
    return torch.stack(columns, dim=1).log10().to(x.dtype)
