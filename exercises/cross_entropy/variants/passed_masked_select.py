# expect: passed
import torch


def cross_entropy(logits, target, ignore_index=-100, label_smoothing=0.0):
    # Keep only the counted rows first (masked_select), then average what is left.
    wide = logits.float() if logits.dtype in (torch.float16, torch.bfloat16) else logits
    c = wide.shape[1]
    rows = wide.transpose(1, -1).reshape(-1, c) if wide.dim() > 2 else wide
    if wide.dim() > 2:
        # transpose(1, -1) reverses the middle dims' order: bring target to the same order
        t = target.transpose(1, -1).reshape(-1) if target.dim() > 1 else target.reshape(-1)
    else:
        t = target
    keep = t != ignore_index
    kept = rows.masked_select(keep.unsqueeze(1)).reshape(-1, c)
    kt = t.masked_select(keep)
    m = kept.amax(dim=1, keepdim=True)
    log_z = m.squeeze(1) + torch.log(torch.sum(torch.exp(kept - m), dim=1))
    nll = log_z - kept.gather(1, kt.unsqueeze(1)).squeeze(1)
    if label_smoothing > 0:
        nll = (1 - label_smoothing) * nll + label_smoothing * (log_z - kept.mean(dim=1))
    return (nll.sum() / kt.numel()).to(logits.dtype)
