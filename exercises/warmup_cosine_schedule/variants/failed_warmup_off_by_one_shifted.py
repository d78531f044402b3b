# expect: failed mistake=warmup_off_by_one
import torch


def warmup_cosine_schedule(step, warmup_steps, total_steps, min_ratio=0.0):
    # count the steps from 1, as a loop of `for i in range(1, n + 1)` would
    k = step + 1
    ramp = k / (warmup_steps + 1)
    p = torch.clamp((step - warmup_steps) / (total_steps - warmup_steps), 0, 1)
    decay = min_ratio + (1 - min_ratio) * (1 + torch.cos(torch.pi * p)) / 2
    if warmup_steps == 0:
        return decay
    return torch.where(step < warmup_steps, ramp, decay)
