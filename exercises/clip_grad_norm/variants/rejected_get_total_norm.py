# expect: rejected
import torch
from torch.nn.utils import clip_grads_with_norm_, get_total_norm


def clip_grad_norm_(parameters, max_norm, norm_type=2.0):
    params = [parameters] if isinstance(parameters, torch.Tensor) else list(parameters)
    grads = [p.grad for p in params if p.grad is not None]
    total = get_total_norm(grads, norm_type)
    clip_grads_with_norm_(params, max_norm, total)
    return total
