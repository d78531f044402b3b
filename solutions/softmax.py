"""Numerically stable softmax and log_softmax from scratch.

softmax(x)_i = exp(x_i) / sum_j exp(x_j) is unchanged when the same constant is subtracted
from every x_j along ``dim``. Subtracting the maximum makes every exponent <= 0, so exp never
overflows, and the largest term is exp(0) = 1, so the sum is at least 1 and never underflows to
zero. log_softmax keeps that shifted form and takes the log of the sum, never the log of a
probability that may have underflowed to 0.
"""

from __future__ import annotations

import torch

_HALF_DTYPES = (torch.float16, torch.bfloat16)


def _stable_parts(x: torch.Tensor, dim: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The shifted logits z = x - max and their exponentials' sum along ``dim``, in float32
    for half-precision inputs (a bfloat16 sum of many terms loses its low bits)."""
    xf = x.float() if x.dtype in _HALF_DTYPES else x
    # keepdim=True keeps the reduced axis as size 1, so the max broadcasts back along `dim`
    # whatever the shape: (B, T, T) scores with dim=-1 included.
    m = xf.amax(dim=dim, keepdim=True)  # (..., 1, ...)
    z = xf - m  # <= 0 everywhere; -inf stays -inf (a masked logit)
    return z, torch.exp(z).sum(dim=dim, keepdim=True)  # sum >= 1: exp(0) is one of its terms


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    z, total = _stable_parts(x, dim)
    return (torch.exp(z) / total).to(x.dtype)


def log_softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    z, total = _stable_parts(x, dim)
    # log(exp(z_i) / total) = z_i - log(total): finite even where exp(z_i) underflows to 0,
    # which log(softmax(x)) is not (log 0 = -inf for logits 104 below the max in float32).
    return (z - torch.log(total)).to(x.dtype)
