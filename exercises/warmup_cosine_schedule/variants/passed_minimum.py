# expect: passed
import math

import torch


def warmup_cosine_schedule(step, warmup_steps, total_steps, min_ratio=0.0):
    # The ramp stays below the decay during the warm-up and rises above it after: take the
    # smaller of the two (and no ramp at all without a warm-up).
    p = ((step - warmup_steps) / (total_steps - warmup_steps)).clamp(0.0, 1.0)
    decay = min_ratio + (1.0 - min_ratio) * 0.5 * (1.0 + torch.cos(math.pi * p))
    if warmup_steps == 0:
        return decay
    return torch.minimum(step / warmup_steps, decay)
