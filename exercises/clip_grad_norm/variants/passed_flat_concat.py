# expect: passed
# One long vector: every gradient flattened and concatenated, then one norm.
import torch


def clip_grad_norm_(parameters, max_norm, norm_type=2.0):
    if isinstance(parameters, torch.Tensor):
        parameters = [parameters]
    grads = [p.grad for p in list(parameters) if p.grad is not None]
    if len(grads) == 0:
        return torch.tensor(0.0)
    with torch.no_grad():
        flat = torch.cat([g.reshape(-1) for g in grads])
        total = flat.norm(float(norm_type))
        coef = (max_norm / (total + 1e-6)).clamp(max=1.0)
        for g in grads:
            g.mul_(coef)
    return total
