# expect: rejected
import torch
from torch.optim.lr_scheduler import CosineAnnealingLR


def warmup_cosine_schedule(step, warmup_steps, total_steps, min_ratio=0.0):
    opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
    sched = CosineAnnealingLR(opt, T_max=total_steps - warmup_steps, eta_min=min_ratio)
    values = []
    for _ in range(total_steps - warmup_steps + 1):
        values.append(opt.param_groups[0]["lr"])
        sched.step()
    table = torch.tensor(values, dtype=step.dtype)
    k = (step - warmup_steps).clamp(0, total_steps - warmup_steps).long()
    decay = table[k]
    if warmup_steps == 0:
        return decay
    return torch.where(step < warmup_steps, step / warmup_steps, decay)
