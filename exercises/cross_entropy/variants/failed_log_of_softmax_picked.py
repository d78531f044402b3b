# expect: failed mistake=log_of_softmax
import torch


def cross_entropy(logits, target, ignore_index=-100, label_smoothing=0.0):
    x = logits.float() if logits.dtype == torch.bfloat16 else logits
    rows = x.movedim(1, -1).flatten(0, -2)
    t = target.flatten()
    keep = t != ignore_index
    shifted = rows - rows.max(1, keepdim=True).values
    p = shifted.exp() / shifted.exp().sum(1, keepdim=True)
    p_t = p[torch.arange(p.shape[0]), t.clamp(min=0)]
    loss = -torch.log(p_t)
    if label_smoothing:
        loss = (1 - label_smoothing) * loss + label_smoothing * (-torch.log(p)).mean(1)
    return (loss[keep].sum() / keep.sum()).to(logits.dtype)
