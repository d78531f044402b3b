# expect: passed
import torch


def cross_entropy(logits, target, ignore_index=-100, label_smoothing=0.0):
    # A loop over the extra dims, flattened: one (N, C) slice per position, summed, then one
    # division by the count of kept targets.
    x = logits.double() if logits.dtype != torch.float64 else logits
    n, c = x.shape[0], x.shape[1]
    flat = x.reshape(n, c, -1)  # (N, C, P)
    tflat = target.reshape(n, -1)  # (N, P)
    total = x.new_zeros(())
    count = 0
    for p in range(flat.shape[2]):
        xs, ts = flat[:, :, p], tflat[:, p]
        keep = ts != ignore_index
        if not bool(keep.any()):
            continue
        xs, ts = xs[keep], ts[keep]
        m = xs.max(dim=1, keepdim=True).values
        lse = (m + (xs - m).exp().sum(dim=1, keepdim=True).log()).squeeze(1)
        nll = lse - xs[torch.arange(xs.shape[0]), ts]
        if label_smoothing != 0.0:
            nll = (1.0 - label_smoothing) * nll + label_smoothing * (lse - xs.mean(dim=1))
        total = total + nll.sum()
        count += int(keep.sum())
    return (total / count if count else total * float("nan")).to(logits.dtype)
