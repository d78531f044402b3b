# expect: failed mistake=classes_on_last_dim
import torch


def cross_entropy(logits, target, ignore_index=-100, label_smoothing=0.0):
    x = logits.float() if logits.dtype == torch.bfloat16 else logits
    m = x.max(dim=-1, keepdim=True).values  # the last dim, as for (N, C)
    log_p = x - m - (x - m).exp().sum(dim=-1, keepdim=True).log()
    keep = target != ignore_index
    nll = -log_p.gather(1, target.clamp(min=0).unsqueeze(1)).squeeze(1)
    if label_smoothing > 0:
        nll = (1 - label_smoothing) * nll - label_smoothing * log_p.mean(dim=1)
    return (nll[keep].sum() / keep.sum()).to(logits.dtype)
