# expect: failed mistake=smoothing_over_ignored_targets
import torch


def _log_probs(rows):
    m = rows.max(dim=-1, keepdim=True).values
    return rows - m - torch.log(torch.exp(rows - m).sum(dim=-1, keepdim=True))


def cross_entropy(logits, target, ignore_index=-100, label_smoothing=0.0):
    x = logits.float() if logits.dtype == torch.bfloat16 else logits
    log_p = _log_probs(x.movedim(1, -1))  # (N, ..., C)
    keep = target != ignore_index
    count = keep.sum()
    nll = -log_p.gather(-1, target.clamp(min=0).unsqueeze(-1)).squeeze(-1)
    nll_loss = nll.masked_fill(~keep, 0).sum() / count
    if label_smoothing == 0:
        return nll_loss.to(logits.dtype)
    smooth_loss = -log_p.sum(dim=-1).mean() * keep.numel() / count / x.shape[1]
    return ((1 - label_smoothing) * nll_loss + label_smoothing * smooth_loss).to(logits.dtype)
