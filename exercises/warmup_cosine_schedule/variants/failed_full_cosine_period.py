# expect: failed mistake=full_cosine_period
import math

import torch


def warmup_cosine_schedule(step, warmup_steps, total_steps, min_ratio=0.0):
    progress = (step - warmup_steps) / (total_steps - warmup_steps)
    progress = progress.clamp(0.0, 1.0)
    cosine = 0.5 * (1.0 + torch.cos(2 * math.pi * progress))
    decay = min_ratio + (1.0 - min_ratio) * cosine
    if warmup_steps == 0:
        return decay
    return torch.where(step < warmup_steps, step / warmup_steps, decay)
