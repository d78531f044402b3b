# expect: passed
import torch
import torch.nn.functional as F


def cross_entropy(logits, target, ignore_index=-100, label_smoothing=0.0):
    # One-hot selection instead of gather; the classes moved last, positions flattened.
    x = logits.float() if logits.dtype == torch.bfloat16 else logits
    c = x.shape[1]
    rows = x.movedim(1, -1).reshape(-1, c)
    t = target.reshape(-1)
    keep = t != ignore_index
    hot = F.one_hot(torch.where(keep, t, 0), c).bool()
    z = rows - rows.max(dim=1, keepdim=True).values
    lse = z.exp().sum(dim=1).log()
    z_t = torch.where(hot, z, torch.zeros_like(z)).sum(dim=1)  # not hot * z: 0 * -inf is NaN
    loss = lse - z_t
    if label_smoothing:
        loss = (1 - label_smoothing) * loss + label_smoothing * (lse - z.sum(dim=1) / c)
    loss = loss * keep
    return (loss.sum() / keep.sum()).to(logits.dtype)
