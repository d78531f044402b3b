# expect: rejected
import torch
from torch.optim import lr_scheduler


def warmup_cosine_schedule(step, warmup_steps, total_steps, min_ratio=0.0):
    opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
    warm = lr_scheduler.LinearLR(opt, start_factor=1e-8, total_iters=max(warmup_steps, 1))
    decay = lr_scheduler.CosineAnnealingLR(opt, T_max=total_steps - warmup_steps)
    sched = lr_scheduler.SequentialLR(opt, [warm, decay], milestones=[warmup_steps])
    lrs = []
    for _ in range(int(step.max()) + 1):
        lrs.append(opt.param_groups[0]["lr"])
        sched.step()
    return torch.tensor(lrs, dtype=step.dtype)[step.long()]
