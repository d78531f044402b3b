# expect: failed mistake=progress_not_shifted
import math

import torch


def warmup_cosine_schedule(step, warmup_steps, total_steps, min_ratio=0.0):
    frac = torch.clamp(step / total_steps, 0.0, 1.0)  # fraction of training done
    decay = min_ratio + (1 - min_ratio) * 0.5 * (1 + torch.cos(math.pi * frac))
    if warmup_steps == 0:
        return decay
    return torch.where(step < warmup_steps, step / warmup_steps, decay)
