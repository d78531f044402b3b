# expect: rejected
import math

import torch


def warmup_cosine_schedule(step, warmup_steps, total_steps, min_ratio=0.0):
    def factor(s):
        if s < warmup_steps:
            return s / warmup_steps
        p = min((s - warmup_steps) / (total_steps - warmup_steps), 1.0)
        return min_ratio + (1 - min_ratio) * 0.5 * (1 + math.cos(math.pi * p))

    opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, factor)
    del sched
    return step.clone().apply_(factor) if step.dim() else torch.tensor(factor(float(step)))
