# expect: passed
import math

import torch


def warmup_cosine_schedule(
    step: torch.Tensor, warmup_steps: int, total_steps: int, min_ratio: float = 0.0
) -> torch.Tensor:
    decay_steps = total_steps - warmup_steps
    p = (step - warmup_steps).clamp(min=0) / decay_steps
    cosine = min_ratio + (1 - min_ratio) * 0.5 * (1 + torch.cos(math.pi * p))
    after = torch.where(step >= total_steps, torch.full_like(step, min_ratio), cosine)
    ramp = step / max(warmup_steps, 1)
    return torch.where(step < warmup_steps, ramp, after)
