# expect: rejected
import torch


def cross_entropy(logits, target, ignore_index=-100, label_smoothing=0.0):
    c = logits.shape[1]
    rows = logits.movedim(1, -1).reshape(-1, c)
    t = target.reshape(-1)
    keep = t != ignore_index
    lse = torch.logsumexp(rows, dim=1)
    nll = lse - rows.gather(1, t.clamp(min=0).unsqueeze(1)).squeeze(1)
    nll = (1 - label_smoothing) * nll + label_smoothing * (lse - rows.mean(1))
    return (nll * keep).sum() / keep.sum()
