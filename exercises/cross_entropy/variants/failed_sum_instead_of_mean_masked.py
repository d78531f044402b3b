# expect: failed mistake=sum_instead_of_mean
import torch


def cross_entropy(logits, target, ignore_index=-100, label_smoothing=0.0):
    x = logits.double() if logits.dtype != torch.float64 else logits
    rows = x.transpose(1, -1).reshape(-1, x.shape[1])
    t = target.transpose(1, -1).reshape(-1) if target.dim() > 1 else target
    keep = t != ignore_index
    kept, kt = rows[keep], t[keep]
    m = kept.amax(1, keepdim=True)
    log_z = m.squeeze(1) + (kept - m).exp().sum(1).log()
    loss = log_z - kept[torch.arange(kt.numel()), kt]
    if label_smoothing > 0:
        loss = (1 - label_smoothing) * loss + label_smoothing * (log_z - kept.mean(1))
    return loss.sum().to(logits.dtype)  # reduction="sum"
