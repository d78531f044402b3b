# expect: failed mistake=nan_not_propagated
# The coefficient as a Python float, applied only when it is below 1.
import torch


def clip_grad_norm_(parameters, max_norm, norm_type=2.0):
    if isinstance(parameters, torch.Tensor):
        parameters = [parameters]
    grads = [p.grad for p in list(parameters) if p.grad is not None]
    if not grads:
        return torch.tensor(0.0)
    with torch.no_grad():
        total = torch.stack([g.norm(norm_type) for g in grads]).norm(norm_type)
        coef = max_norm / (total.item() + 1e-6)
        if coef < 1.0:
            for g in grads:
                g.mul_(coef)
    return total
