# expect: passed
import math

import torch


def warmup_cosine_schedule(step, warmup_steps, total_steps, min_ratio=0.0):
    # 0.5 * (1 + cos(pi * p)) == cos(pi * p / 2) ** 2
    p = torch.clamp((step - warmup_steps) / (total_steps - warmup_steps), 0.0, 1.0)
    decay = min_ratio + (1.0 - min_ratio) * torch.cos(0.5 * math.pi * p) ** 2
    if warmup_steps == 0:
        return decay
    return torch.where(step < warmup_steps, step / warmup_steps, decay)
