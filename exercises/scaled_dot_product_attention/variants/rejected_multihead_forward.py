# expect: rejected
import torch


def scaled_dot_product_attention(q, k, v, mask=None, is_causal=False, scale=None):
    # nn.MultiheadAttention does the attention: heads of one, identity projections.
    e = q.shape[-1]
    mha = torch.nn.MultiheadAttention(e, 1, bias=False, batch_first=True).to(q.dtype)
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.eye(e).repeat(3, 1))
        mha.out_proj.weight.copy_(torch.eye(e))
    out, _ = mha(
        q.reshape(-1, *q.shape[-2:]), k.reshape(-1, *k.shape[-2:]), v.reshape(-1, *v.shape[-2:])
    )
    return out.reshape(q.shape)
