# expect: failed mistake=unbiased_reference
from __future__ import annotations

import torch

EPS = 1e-5


def _layer_norm(x: torch.Tensor) -> torch.Tensor:
    # Two-pass at x's own dtype: the mean first, then the mean of the squared deviations.
    mean = x.mean(dim=-1, keepdim=True)
    centred = x - mean
    var = (centred * centred).mean(dim=-1, keepdim=True)
    return centred / torch.sqrt(var + EPS)


def _one_pass_layer_norm(x: torch.Tensor) -> torch.Tensor:
    # E[x²] - E[x]²: two large, nearly equal numbers subtracted once the mean is large.
    mean = x.mean(dim=-1, keepdim=True)
    var = ((x * x).mean(dim=-1, keepdim=True) - mean * mean).clamp(min=0)
    return (x - mean) / torch.sqrt(var + EPS)


def _rms_norm(x: torch.Tensor) -> torch.Tensor:
    return x / torch.sqrt((x * x).mean(dim=-1, keepdim=True) + EPS)


def _median_relative_error(y: torch.Tensor, reference: torch.Tensor) -> torch.Tensor:
    per_row: torch.Tensor = (y.double() - reference).norm(dim=-1) / reference.norm(dim=-1)
    return per_row.median()


def bf16_norm_precision(x: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    columns = []
    for offset in offsets.tolist():
        rows = (x.double() + offset).to(torch.bfloat16)
        seen = rows.double()  # what every arm received, exactly
        mean = seen.mean(dim=-1, keepdim=True)
        ln_reference = (seen - mean) / torch.sqrt(seen.var(dim=-1, keepdim=True) + EPS)
        rms_reference = _rms_norm(seen)
        arms = [
            (_layer_norm(rows), ln_reference),
            (_one_pass_layer_norm(rows), ln_reference),
            (_layer_norm(rows.float()).to(torch.bfloat16), ln_reference),
            (_rms_norm(rows), rms_reference),
        ]
        columns.append(torch.stack([_median_relative_error(y, ref) for y, ref in arms]))
    return torch.stack(columns, dim=1).log10().to(x.dtype)
