# expect: passed
import math

import torch


def warmup_cosine_schedule(step, warmup_steps, total_steps, min_ratio=0.0):
    s = step.double()
    out = torch.full_like(s, min_ratio)  # past the end: the floor
    warm = s < warmup_steps
    out[warm] = s[warm] / warmup_steps
    decaying = ~warm & (s < total_steps)
    p = (s[decaying] - warmup_steps) / (total_steps - warmup_steps)
    out[decaying] = min_ratio + (1 - min_ratio) * 0.5 * (1 + torch.cos(math.pi * p))
    return out.to(step.dtype)
