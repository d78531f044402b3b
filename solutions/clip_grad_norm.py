"""Worked solution for ``clip_grad_norm``: gradient clipping by the global norm, as
``torch.nn.utils.clip_grad_norm_`` does it.

The total norm treats every gradient entry of every parameter as one long vector: the
``norm_type``-norm of the per-tensor norms is exactly that (for p-norms,
``(sum_t ||g_t||_p^p)^(1/p)``; for inf, the max of the maxima). One coefficient, capped at 1,
scales every gradient, so the update keeps its direction and is only ever shrunk.
"""

from __future__ import annotations

from collections.abc import Iterable

import torch


@torch.no_grad()
def clip_grad_norm_(
    parameters: torch.Tensor | Iterable[torch.Tensor],
    max_norm: float,
    norm_type: float = 2.0,
) -> torch.Tensor:
    # One tensor, or any iterable read exactly once (model.parameters() is a generator).
    params = [parameters] if isinstance(parameters, torch.Tensor) else list(parameters)
    grads = [p.grad for p in params if p.grad is not None]
    if not grads:
        return torch.tensor(0.0)
    norm_type = float(norm_type)
    per_tensor = torch.stack([torch.linalg.vector_norm(g, norm_type) for g in grads])
    total: torch.Tensor = torch.linalg.vector_norm(per_tensor, norm_type)
    # Capped at 1: gradients under the threshold are left alone. No `if`: a NaN total must
    # make every gradient NaN (torch's error_if_nonfinite=False), and an infinite one zeroes
    # the finite entries.
    coef = torch.clamp(max_norm / (total + 1e-6), max=1.0)
    for g in grads:
        g.mul_(coef.to(g.dtype))
    return total
