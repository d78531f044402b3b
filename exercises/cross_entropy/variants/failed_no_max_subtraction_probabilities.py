# expect: failed mistake=no_max_subtraction
import torch


def cross_entropy(logits, target, ignore_index=-100, label_smoothing=0.0):
    x = logits.float() if logits.dtype == torch.bfloat16 else logits
    c = x.shape[1]
    rows = x.movedim(1, -1).reshape(-1, c)
    t = target.reshape(-1)
    keep = t != ignore_index
    e = rows.exp()
    log_p = torch.log(e / e.sum(dim=1, keepdim=True))
    nll = -log_p.gather(1, torch.where(keep, t, 0).unsqueeze(1)).squeeze(1)
    if label_smoothing > 0:
        nll = (1 - label_smoothing) * nll - label_smoothing * log_p.mean(dim=1)
    nll = torch.where(keep, nll, torch.zeros_like(nll))
    return (nll.sum() / keep.sum()).to(logits.dtype)
