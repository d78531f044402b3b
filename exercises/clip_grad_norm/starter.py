from __future__ import annotations

from collections.abc import Iterable

import torch


def clip_grad_norm_(
    parameters: torch.Tensor | Iterable[torch.Tensor],
    max_norm: float,
    norm_type: float = 2.0,
) -> torch.Tensor:
    # The total norm over every gradient at once (parameters whose .grad is None skipped),
    # then every gradient multiplied in place by min(1, max_norm / (total + 1e-6)).
    # Return the total norm before clipping, as a 0-d tensor.
    raise NotImplementedError("implement clip_grad_norm_")
