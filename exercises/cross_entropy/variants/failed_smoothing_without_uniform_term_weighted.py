# expect: failed mistake=smoothing_without_uniform_term
import torch


def cross_entropy(logits, target, ignore_index=-100, label_smoothing=0.0):
    x = logits.double() if logits.dtype != torch.float64 else logits
    x = x.movedim(1, -1)
    m = x.amax(-1, keepdim=True)
    log_z = (m + (x - m).exp().sum(-1, keepdim=True).log()).squeeze(-1)
    keep = target != ignore_index
    x_t = x.gather(-1, torch.where(keep, target, 0).unsqueeze(-1)).squeeze(-1)
    confidence = 1.0 - label_smoothing  # the target's weight, and nothing for the rest
    loss = confidence * (log_z - x_t)
    return (loss[keep].sum() / keep.sum()).to(logits.dtype)
