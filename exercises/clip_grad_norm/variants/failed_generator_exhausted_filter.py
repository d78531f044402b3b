# expect: failed mistake=generator_exhausted
# Two list comprehensions over `parameters`: the second one is empty when it is a generator.
import torch


def clip_grad_norm_(parameters, max_norm, norm_type=2.0):
    if isinstance(parameters, torch.Tensor):
        parameters = [parameters]
    with torch.no_grad():
        norms = [p.grad.norm(norm_type) for p in parameters if p.grad is not None]
        if not norms:
            return torch.tensor(0.0)
        total = torch.stack(norms).norm(norm_type)
        coef = (max_norm / (total + 1e-6)).clamp(max=1.0)
        grads = [p.grad for p in parameters if p.grad is not None]
        if grads:
            torch._foreach_mul_(grads, coef)
    return total
