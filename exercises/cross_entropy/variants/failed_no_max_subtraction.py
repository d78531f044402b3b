# expect: failed mistake=no_max_subtraction
import torch


def cross_entropy(logits, target, ignore_index=-100, label_smoothing=0.0):
    x = logits.float() if logits.dtype == torch.bfloat16 else logits
    c = x.shape[1]
    rows = x.movedim(1, -1).reshape(-1, c)
    t = target.reshape(-1)
    keep = t != ignore_index
    lse = torch.log(torch.exp(rows).sum(dim=1))  # no max subtracted
    nll = lse - rows.gather(1, torch.where(keep, t, 0).unsqueeze(1)).squeeze(1)
    if label_smoothing > 0:
        nll = (1 - label_smoothing) * nll + label_smoothing * (lse - rows.mean(dim=1))
    nll = torch.where(keep, nll, torch.zeros_like(nll))
    return (nll.sum() / keep.sum()).to(logits.dtype)
