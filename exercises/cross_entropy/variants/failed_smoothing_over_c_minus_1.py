# expect: failed mistake=smoothing_over_c_minus_1
import torch
import torch.nn.functional as F


def cross_entropy(logits, target, ignore_index=-100, label_smoothing=0.0):
    x = logits.float() if logits.dtype == torch.bfloat16 else logits
    c = x.shape[1]
    rows = x.movedim(1, -1).reshape(-1, c)
    t = target.reshape(-1)
    keep = t != ignore_index
    z = rows - rows.amax(dim=1, keepdim=True)
    log_p = z - z.exp().sum(dim=1, keepdim=True).log()
    hot = F.one_hot(torch.where(keep, t, 0), c).to(log_p.dtype)
    if label_smoothing > 0:
        # the target keeps 1 - eps, the other C - 1 classes share eps
        q = hot * (1 - label_smoothing) + (1 - hot) * label_smoothing / (c - 1)
        per = -(q * log_p).sum(dim=1)
    else:
        per = -(log_p * hot).nan_to_num(0.0).sum(dim=1)  # 0 * -inf on a masked class
    per = torch.where(keep, per, torch.zeros_like(per))
    return (per.sum() / keep.sum()).to(logits.dtype)
