"""Cross-entropy from logits, from scratch: the log-sum-exp written out, ignored targets left
out of the mean, label smoothing as a mixture of the one-hot target and the uniform distribution.

For one position with logits x (C classes) and target t:

    log p_c = (x_c - m) - log sum_j exp(x_j - m),   m = max_j x_j   (log-sum-exp, stable)
    loss    = (1 - eps) * (-log p_t) + eps * mean_c(-log p_c)

and the result is the mean of ``loss`` over the positions whose target is not ``ignore_index``
(NaN when there are none, as ``F.cross_entropy`` returns). The class axis is dim 1, so an
``(N, C, d1, ...)`` input is first moved to ``(N, d1, ..., C)`` and flattened to rows.
"""

from __future__ import annotations

import torch

_HALF_DTYPES = (torch.float16, torch.bfloat16)


def cross_entropy(
    logits: torch.Tensor,
    target: torch.Tensor,
    ignore_index: int = -100,
    label_smoothing: float = 0.0,
) -> torch.Tensor:
    x = logits.float() if logits.dtype in _HALF_DTYPES else logits
    classes = x.shape[1]
    # (N, C, d1, ...) -> (N * d1 * ..., C): movedim first, so each row holds one position's
    # C logits (a reshape(-1, C) of the original layout would mix positions and classes).
    rows = x.movedim(1, -1).reshape(-1, classes)
    t = target.reshape(-1)
    keep = t != ignore_index
    # An ignored target may be out of range (-100): index with a valid class, then mask.
    safe = torch.where(keep, t, torch.zeros_like(t))

    m = rows.amax(dim=1, keepdim=True)  # (R, 1); finite: every row has a finite logit
    z = rows - m  # <= 0; a masked -inf logit stays -inf
    log_total = torch.log(torch.exp(z).sum(dim=1, keepdim=True))  # >= 0: exp(0) is a term
    nll = log_total.squeeze(1) - z.gather(1, safe.unsqueeze(1)).squeeze(1)  # -log p_t

    if label_smoothing > 0.0:
        # mean over classes of -log p_c = log_total - mean(z); computed only when used, so a
        # -inf logit does not turn 0 * inf into NaN when smoothing is off.
        uniform = log_total.squeeze(1) - z.mean(dim=1)
        per_row = (1.0 - label_smoothing) * nll + label_smoothing * uniform
    else:
        per_row = nll
    per_row = torch.where(keep, per_row, torch.zeros_like(per_row))
    count = keep.sum()  # 0 when every target is ignored: 0 / 0 = NaN, as F.cross_entropy
    return (per_row.sum() / count).to(logits.dtype)
