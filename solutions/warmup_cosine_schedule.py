"""Linear warm-up, then a cosine decay to a floor: the learning-rate multiplier at any step.

``LambdaLR`` multiplies each group's base learning rate by what its function returns for the
step it has reached, so the schedule is a multiplier, not a learning rate. Given a Python
number this function returns a float, so it is such a function as it stands:

    scheduler = LambdaLR(optimizer, lambda s: warmup_cosine_schedule(s, warmup, total, 0.1))
"""

from __future__ import annotations

import math
from typing import overload

import torch


@overload
def warmup_cosine_schedule(
    step: torch.Tensor, warmup_steps: int, total_steps: int, min_ratio: float = 0.0
) -> torch.Tensor: ...


@overload
def warmup_cosine_schedule(
    step: float, warmup_steps: int, total_steps: int, min_ratio: float = 0.0
) -> float: ...


def warmup_cosine_schedule(
    step: torch.Tensor | float, warmup_steps: int, total_steps: int, min_ratio: float = 0.0
) -> torch.Tensor | float:
    """The multiplier at each element of ``step`` (float, any shape, >= 0), in its dtype.

    step < warmup_steps: step / warmup_steps (0 at step 0). Then, with progress the fraction of
    the decay done, capped at 1: min_ratio + (1 - min_ratio) * 0.5 * (1 + cos(pi * progress)),
    1 where the warm-up ends and min_ratio from total_steps on.
    """
    if not isinstance(step, torch.Tensor):  # LambdaLR's int step
        at = torch.tensor(float(step), dtype=torch.float64)
        return float(warmup_cosine_schedule(at, warmup_steps, total_steps, min_ratio))
    # Capped at 1: past total_steps the cosine would climb back towards 1.
    progress = ((step - warmup_steps) / (total_steps - warmup_steps)).clamp(0.0, 1.0)
    cosine = 0.5 * (1.0 + torch.cos(math.pi * progress))
    decay = min_ratio + (1.0 - min_ratio) * cosine
    if warmup_steps == 0:
        # No warm-up: step 0 is the top of the cosine. (A ramp computed anyway would be 0 / 0.)
        return decay
    return torch.where(step < warmup_steps, step / warmup_steps, decay)
