# expect: failed mistake=per_tensor_clipping
import torch


def clip_grad_norm_(parameters, max_norm, norm_type=2.0):
    if isinstance(parameters, torch.Tensor):
        parameters = [parameters]
    parameters = list(parameters)
    total_sq = []
    with torch.no_grad():
        for p in parameters:
            if p.grad is None:
                continue
            n = p.grad.norm(norm_type)
            total_sq.append(n)
            p.grad.mul_((max_norm / (n + 1e-6)).clamp(max=1.0))
    if not total_sq:
        return torch.tensor(0.0)
    return torch.stack(total_sq).norm(norm_type)
