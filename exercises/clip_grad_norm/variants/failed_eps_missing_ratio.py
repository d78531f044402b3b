# expect: failed mistake=eps_missing
# "if the norm is above max_norm, scale by max_norm / norm": the textbook line, without the 1e-6.
import torch


def clip_grad_norm_(parameters, max_norm, norm_type=2.0):
    if isinstance(parameters, torch.Tensor):
        parameters = [parameters]
    grads = [p.grad for p in list(parameters) if p.grad is not None]
    if not grads:
        return torch.tensor(0.0)
    with torch.no_grad():
        total = torch.stack([g.norm(norm_type) for g in grads]).norm(norm_type)
        ratio = torch.minimum(torch.ones_like(total), max_norm / total)
        for g in grads:
            g.mul_(ratio)
    return total
