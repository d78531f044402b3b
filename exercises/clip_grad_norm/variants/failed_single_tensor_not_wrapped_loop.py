# expect: failed mistake=single_tensor_not_wrapped
import torch


def clip_grad_norm_(parameters, max_norm, norm_type=2.0):
    grads = []
    for p in parameters:
        if p.grad is not None:
            grads.append(p.grad)
    if len(grads) == 0:
        return torch.tensor(0.0)
    with torch.no_grad():
        total = torch.stack([g.norm(norm_type) for g in grads]).norm(norm_type)
        for g in grads:
            g.mul_(torch.clamp(max_norm / (total + 1e-6), max=1.0))
    return total
