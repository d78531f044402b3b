# expect: failed mistake=coef_not_capped
# "Normalise the gradient to max_norm": every step rescaled to exactly that length.
import torch


def clip_grad_norm_(parameters, max_norm, norm_type=2.0):
    if isinstance(parameters, torch.Tensor):
        parameters = [parameters]
    grads = [p.grad for p in list(parameters) if p.grad is not None]
    if not grads:
        return torch.tensor(0.0)
    with torch.no_grad():
        total = torch.cat([g.flatten() for g in grads]).norm(norm_type)
        scale = max_norm / (total + 1e-6)
        for g in grads:
            g *= scale
    return total
