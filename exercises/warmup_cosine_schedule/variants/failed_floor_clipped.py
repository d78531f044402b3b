# expect: failed mistake=floor_clipped
import math

import torch


def warmup_cosine_schedule(step, warmup_steps, total_steps, min_ratio=0.0):
    progress = (step - warmup_steps) / (total_steps - warmup_steps)
    progress = progress.clamp(0.0, 1.0)
    cosine = 0.5 * (1.0 + torch.cos(math.pi * progress))
    decay = torch.clamp(cosine, min=min_ratio)
    if warmup_steps == 0:
        return decay
    return torch.where(step < warmup_steps, step / warmup_steps, decay)
