# expect: failed mistake=smoothing_over_c_minus_1
import torch


def cross_entropy(logits, target, ignore_index=-100, label_smoothing=0.0):
    x = logits.float() if logits.dtype == torch.bfloat16 else logits
    c = x.shape[1]
    rows = x.movedim(1, -1).reshape(-1, c)
    t = target.reshape(-1)
    keep = t != ignore_index
    m = rows.amax(dim=1, keepdim=True)
    lse = m.squeeze(1) + (rows - m).exp().sum(dim=1).log()
    x_t = rows.gather(1, torch.where(keep, t, 0)[:, None]).squeeze(1)
    nll = lse - x_t
    if label_smoothing > 0:
        others = (c * lse - rows.sum(dim=1)) - nll  # the non-target classes' -log p
        nll = (1 - label_smoothing) * nll + label_smoothing * others / (c - 1)
    return (nll[keep].sum() / keep.sum()).to(logits.dtype)
