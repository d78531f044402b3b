# expect: passed
# p-norms from partial sums of |g|^p (as a sharded implementation adds them across ranks);
# the inf norm as the max of the maxima.
import math

import torch


@torch.no_grad()
def clip_grad_norm_(parameters, max_norm, norm_type=2.0):
    params = [parameters] if isinstance(parameters, torch.Tensor) else [p for p in parameters]
    grads = [p.grad for p in params if p.grad is not None]
    if not grads:
        return torch.tensor(0.0)
    p = float(norm_type)
    if math.isinf(p):
        total = torch.stack([g.abs().amax() for g in grads]).amax()
    else:
        total = torch.stack([(g.double().abs() ** p).sum() for g in grads]).sum() ** (1.0 / p)
        total = total.to(grads[0].dtype)
    coef = torch.clamp(max_norm / (total + 1e-6), max=1.0)
    for g in grads:
        g.mul_(coef)
    return total
