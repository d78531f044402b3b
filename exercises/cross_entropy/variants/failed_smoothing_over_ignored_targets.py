# expect: failed mistake=smoothing_over_ignored_targets
import torch


def cross_entropy(logits, target, ignore_index=-100, label_smoothing=0.0):
    x = logits.float() if logits.dtype == torch.bfloat16 else logits
    c = x.shape[1]
    rows = x.movedim(1, -1).reshape(-1, c)
    t = target.reshape(-1)
    keep = t != ignore_index
    z = rows - rows.amax(dim=1, keepdim=True)
    log_p = z - z.exp().sum(dim=1, keepdim=True).log()
    nll = -log_p.gather(1, torch.where(keep, t, 0).unsqueeze(1)).squeeze(1)
    n = keep.sum()
    loss = (1 - label_smoothing) * nll[keep].sum() / n
    if label_smoothing > 0:
        smooth = -log_p.mean(dim=1)  # every row, the ignored ones too
        loss = loss + label_smoothing * smooth.sum() / n
    return loss.to(logits.dtype)
