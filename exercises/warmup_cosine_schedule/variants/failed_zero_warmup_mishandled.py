# expect: failed mistake=zero_warmup_mishandled
import math

import torch


def warmup_cosine_schedule(step, warmup_steps, total_steps, min_ratio=0.0):
    p = ((step - warmup_steps) / (total_steps - warmup_steps)).clamp(0.0, 1.0)
    decay = min_ratio + (1.0 - min_ratio) * 0.5 * (1.0 + torch.cos(math.pi * p))
    # the ramp is below the decay during the warm-up and above it after
    return torch.minimum(step / warmup_steps, decay)
