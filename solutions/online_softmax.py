"""Worked solution for ``online_softmax``: the running max and sum of a row read in chunks.

The update keeps, per row, the largest logit seen so far ``m`` and ``s = sum exp(x - m)`` over
everything seen so far. A new chunk may raise the max: the old sum is then re-expressed against
the new max by the factor ``exp(m - m_new) <= 1`` before the chunk's own terms are added, so no
exponent is ever positive. Rows that have seen only -inf keep the empty state (-inf, 0).
"""

from __future__ import annotations

import torch


def online_softmax_update(
    x: torch.Tensor, m: torch.Tensor, s: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    m_new = torch.maximum(m, x.amax(dim=-1, keepdim=True))  # (..., 1)
    # Where nothing finite has been seen yet, m_new is -inf and exp(-inf - (-inf)) would be
    # NaN: shift by 0 there instead, which leaves s = 0 (every term is exp(-inf) = 0).
    shift = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new)
    s_new = s * torch.exp(m - shift) + torch.exp(x - shift).sum(dim=-1, keepdim=True)
    return m_new, s_new


def online_softmax(x: torch.Tensor, chunk_size: int = 128) -> torch.Tensor:
    # Pass 1: the statistics, chunk by chunk (the last chunk may be shorter).
    m = x.new_full((*x.shape[:-1], 1), float("-inf"))
    s = x.new_zeros((*x.shape[:-1], 1))
    for start in range(0, x.shape[-1], chunk_size):
        m, s = online_softmax_update(x[..., start : start + chunk_size], m, s)
    # Pass 2: normalise with the final max and sum (every row holds a finite logit).
    return torch.exp(x - m) / s
