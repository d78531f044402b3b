# expect: failed mistake=progress_over_total
import math

import torch


def warmup_cosine_schedule(step, warmup_steps, total_steps, min_ratio=0.0):
    since = (step - warmup_steps).clamp(min=0)
    p = torch.clamp(since / total_steps, max=1.0)
    decay = min_ratio + (1 - min_ratio) * 0.5 * (1 + torch.cos(math.pi * p))
    if warmup_steps == 0:
        return decay
    return torch.where(step < warmup_steps, step / warmup_steps, decay)
