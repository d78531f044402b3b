# expect: failed mistake=inf_norm_summed
# The per-tensor norms combined by a sum when norm_type is inf, as if the inf norm added up
# like the 1-norm.
import torch


def clip_grad_norm_(parameters, max_norm, norm_type=2.0):
    if isinstance(parameters, torch.Tensor):
        parameters = [parameters]
    grads = [p.grad for p in list(parameters) if p.grad is not None]
    if not grads:
        return torch.tensor(0.0)
    norm_type = float(norm_type)
    with torch.no_grad():
        norms = torch.stack([torch.linalg.vector_norm(g, norm_type) for g in grads])
        if norm_type == float("inf"):
            total = norms.sum()
        else:
            total = torch.linalg.vector_norm(norms, norm_type)
        clip = torch.clamp(max_norm / (total + 1e-6), max=1.0)
        for g in grads:
            g.mul_(clip)
    return total
