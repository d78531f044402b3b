# expect: failed mistake=mean_over_ignored_targets
import torch


def cross_entropy(logits, target, ignore_index=-100, label_smoothing=0.0):
    wide = logits.double() if logits.dtype != torch.float64 else logits
    log_p = wide - wide.amax(1, keepdim=True)
    log_p = log_p - log_p.exp().sum(1, keepdim=True).log()
    mask = (target != ignore_index).unsqueeze(1)
    picked = log_p.gather(1, target.masked_fill(~mask.squeeze(1), 0).unsqueeze(1))
    loss = -(1 - label_smoothing) * picked
    if label_smoothing:
        loss = loss - label_smoothing * log_p.mean(1, keepdim=True)
    loss = loss.masked_fill(~mask, 0.0)
    return (loss.sum() / target.numel()).to(logits.dtype)
