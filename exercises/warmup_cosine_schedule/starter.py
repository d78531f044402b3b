from __future__ import annotations

import math  # noqa: F401  (math.pi and math.cos on Python numbers)

import torch


def warmup_cosine_schedule(
    step: torch.Tensor, warmup_steps: int, total_steps: int, min_ratio: float = 0.0
) -> torch.Tensor:
    """The learning-rate multiplier at each element of ``step`` (float32 or float64, any shape,
    0-d included, steps >= 0, fractional allowed), returned in ``step``'s shape and dtype.

    step < warmup_steps: step / warmup_steps. Otherwise, with
    progress = min((step - warmup_steps) / (total_steps - warmup_steps), 1):
    min_ratio + (1 - min_ratio) * 0.5 * (1 + cos(pi * progress)).
    """
    # Elementwise over the tensor (no Python if on its values): torch.where picks a branch per
    # element. Clamp the progress so the decay stays at the floor past total_steps, and mind
    # warmup_steps = 0 (no warm-up at all: the multiplier at step 0 is 1).
    raise NotImplementedError("implement warmup_cosine_schedule")
