# expect: failed mistake=decays_to_zero
import math

import torch


def warmup_cosine_schedule(step, warmup_steps, total_steps, min_ratio=0.0):
    eta_min = 0.0  # min_ratio forgotten
    p = ((step - warmup_steps) / (total_steps - warmup_steps)).clamp(0, 1)
    decay = eta_min + (1 - eta_min) * 0.5 * (1 + torch.cos(math.pi * p))
    if warmup_steps == 0:
        return decay
    return torch.where(step < warmup_steps, step / warmup_steps, decay)
