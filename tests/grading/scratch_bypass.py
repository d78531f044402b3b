"""Routes that switch off, or walk around, every check the learner's own Python can reach, and
then compute the block with a built-in (issue 47, section 1). Each got ``passed`` once: the
allow-list guard was a dispatch mode and the hand-written-backward check ran inside it, so a
context manager that disables Python dispatch, pops the modes or empties the guard's state let
a cumulative log-sum-exp compute softmax's denominator and the autograd engine compute a
"hand-written" backward; a private alias-key kernel (``_op_dk``), an in-place sibling and a
quantizable attention module computed the block with the guard still on.

Names are built at run time wherever the static check would see them: what is tested is the
enforcement in the armed child, below Python.
"""

from __future__ import annotations

from tests.grading.scratch_attacks import Attack, _softmax

A = Attack

# Every Python layer off, each a different way: they must not matter.
_SWITCHES = """
import contextlib
import importlib
_dispatch = importlib.import_module("torch.utils._python_" + "dispatch")


@contextlib.contextmanager
def _popped():
    # The dispatch modes taken off the stack (and put back afterwards), and the function modes.
    taken = []
    while getattr(_dispatch, "_get_current_dispatch_mode_stack")():
        taken.append(getattr(_dispatch, "_pop" + "_mode")())
    functions = []
    while torch._C._len_torch_function_stack() > 0:
        functions.append(getattr(torch._C, "_pop_torch_function" + "_stack")())
    try:
        yield
    finally:
        for m in reversed(functions):
            torch._C._push_on_torch_function_stack(m)
        for m in reversed(taken):
            getattr(_dispatch, "_push" + "_mode")(m)


def _python_off():
    # Python dispatch and torch-function handling disabled at the C level.
    stack = contextlib.ExitStack()
    stack.enter_context(getattr(torch._C, "_DisableTorch" + "Dispatch")())
    stack.enter_context(getattr(torch._C, "DisableTorch" + "Function")())
    return stack


def _modes_off():
    stack = contextlib.ExitStack()
    stack.enter_context(getattr(_dispatch, "_disable_current" + "_modes")())
    stack.enter_context(getattr(torch._C, "DisableTorchFunction" + "Subclass")())
    stack.enter_context(getattr(torch._C, "DisableTorch" + "Function")())
    return stack


def _guard_emptied():
    # The guard's own state: every mode on either stack told to admit everything.
    for m in getattr(_dispatch, "_get_current_dispatch_mode_stack")():
        for name in list(vars(m)):
            value = vars(m)[name]
            if isinstance(value, frozenset) and value:
                setattr(m, name, None)
    return contextlib.nullcontext()


def _lse(x, dim):
    # logcumsumexp's last entry along dim is the row's log-sum-exp.
    f = getattr(torch, "logcum" + "sumexp")
    return f(x, dim).narrow(dim, x.shape[dim] - 1, 1)
"""


def _softmax_by_lse(switch: str) -> str:
    return _softmax(
        f"""    with {switch}():
        xf = x.float() if x.dtype in (torch.bfloat16, torch.float16) else x
        z = (xf - xf.amax(dim, keepdim=True)).clamp_min(-1e4)
        return torch.exp(z - _lse(z, dim)).to(x.dtype)""",
        f"""    with {switch}():
        xf = x.float() if x.dtype in (torch.bfloat16, torch.float16) else x
        z = xf - xf.amax(dim, keepdim=True)
        return (z - _lse(z.clamp_min(-1e4), dim)).to(x.dtype)""",
    ).replace("import torch\n", "import torch\n" + _SWITCHES, 1)


def _online_by_lse(switch: str) -> str:
    return (
        "import torch\n"
        + _SWITCHES
        + f"""

def online_softmax_update(x, m, s):
    with {switch}():
        m_new = torch.maximum(m, x.amax(-1, keepdim=True))
        shift = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new)
        both = torch.cat([torch.log(s) + (m - shift), _lse(x - shift, -1)], dim=-1)
        return m_new, torch.exp(_lse(both, -1))


def online_softmax(x, chunk_size=128):
    with {switch}():
        z = (x - x.amax(-1, keepdim=True)).clamp_min(-1e4)
        return torch.exp(z - _lse(z, -1))
"""
    )


_SILU_BY_ENGINE = (
    "import torch\n"
    + _SWITCHES
    + """

class SiLUFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * torch.sigmoid(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        with {switch}():
            torch._C._set_grad_enabled(True)
            try:
                xx = x.detach().requires_grad_()
                y = xx * torch.sigmoid(xx)
                run = getattr(torch.autograd, "gr" + "ad")
                (g,) = run(y, (xx,), grad_output)
            finally:
                torch._C._set_grad_enabled(False)
        return g
"""
)

_LAYER_NORM_BY_ENGINE = (
    "import torch\n"
    + _SWITCHES
    + """

class LayerNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias, eps):
        ctx.save_for_backward(x, weight, bias)
        ctx.eps = eps
        mean = x.mean(-1, keepdim=True)
        xc = x - mean
        return xc * torch.rsqrt((xc * xc).mean(-1, keepdim=True) + eps) * weight + bias

    @staticmethod
    def backward(ctx, dy):
        x, weight, bias = ctx.saved_tensors
        with _modes_off():
            torch._C._set_grad_enabled(True)
            try:
                xx, ww, bb = (t.detach().requires_grad_() for t in (x, weight, bias))
                xc = xx - xx.mean(-1, keepdim=True)
                y = xc * torch.rsqrt((xc * xc).mean(-1, keepdim=True) + ctx.eps) * ww + bb
                run = getattr(torch.autograd, "gr" + "ad")
                g = run(y, (xx, ww, bb), dy)
            finally:
                torch._C._set_grad_enabled(False)
        return g[0], g[1], g[2], None
"""
)

_ALIAS_KERNEL = """        rms = getattr(torch.ops.aten, "rms" + "_norm").default
        with _modes_off():
            key = torch._C.DispatchKey.FuncTorchBatchedDecomposition
            xc = x - x.mean(-1, keepdim=True)
            return rms._op_dk(key, xc, [d], w, eps) + b"""

_QUANTIZABLE_MHA = """
import math
import torch
import importlib

_MHA = getattr(importlib.import_module("torch.ao.nn.quantiz" + "able"), "Multihead" + "Attention")


def scaled_dot_product_attention(q, k, v, mask=None, is_causal=False, scale=None):
    E, L, S = q.shape[-1], q.shape[-2], k.shape[-2]
    lead = q.shape[:-2]
    work = torch.float64 if q.dtype == torch.float64 else torch.float32
    bias = torch.zeros(L, S, dtype=work)
    if is_causal:
        bias = bias.masked_fill(~torch.ones(L, S, dtype=torch.bool).tril(), float("-inf"))
    if mask is not None:
        if mask.dtype == torch.bool:
            bias = bias.masked_fill(~mask, float("-inf"))
        else:
            bias = bias + mask.to(work)
    bias = bias.expand(*lead, L, S).reshape(-1, L, S)
    dead = (bias == float("-inf")).all(-1, keepdim=True)
    bias = bias.masked_fill(dead, 0.0)
    factor = (1.0 / math.sqrt(E) if scale is None else scale) * math.sqrt(E)
    qq = (q.to(work) * factor).reshape(-1, L, E)
    kk, vv = k.to(work).reshape(-1, S, E), v.to(work).reshape(-1, S, E)
    mha = _MHA(E, 1, bias=False, batch_first=True).to(work).eval()
    with torch.no_grad():
        for lin in (mha.linear_Q, mha.linear_K, mha.linear_V, mha.out_proj):
            lin.weight.copy_(torch.eye(E, dtype=work))
    out = mha(qq, kk, vv, attn_mask=bias, need_weights=False)[0]
    return out.masked_fill(dead, 0.0).reshape(*lead, L, E).to(q.dtype)
"""

_MHA_WEIGHTS_FUNCTIONS_OFF = """
import math
import torch
from torch import nn


def scaled_dot_product_attention(q, k, v, mask=None, is_causal=False, scale=None):
    E, L, S = q.shape[-1], q.shape[-2], k.shape[-2]
    lead = q.shape[:-2]
    work = torch.float64 if q.dtype == torch.float64 else torch.float32
    bias = torch.zeros(L, S, dtype=work)
    if is_causal:
        bias = bias.masked_fill(~torch.ones(L, S, dtype=torch.bool).tril(), float("-inf"))
    if mask is not None:
        if mask.dtype == torch.bool:
            bias = bias.masked_fill(~mask, float("-inf"))
        else:
            bias = bias + mask.to(work)
    bias = bias.expand(*lead, L, S).reshape(-1, L, S)
    dead = (bias == float("-inf")).all(-1, keepdim=True)
    bias = bias.masked_fill(dead, 0.0)
    factor = (1.0 / math.sqrt(E) if scale is None else scale) * math.sqrt(E)
    qq = (q.to(work) * factor).reshape(-1, L, E)
    kk, vv = k.to(work).reshape(-1, S, E), v.to(work).reshape(-1, S, E)
    mha = getattr(nn, "Multihead" + "Attention")(E, 1, bias=False, batch_first=True).to(work)
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.eye(E, dtype=work).repeat(3, 1))
        mha.out_proj.weight.copy_(torch.eye(E, dtype=work))
    with getattr(torch._C, "DisableTorch" + "Function")():
        out = mha(qq, kk, vv, attn_mask=bias, need_weights=True)[0]
    return out.masked_fill(dead, 0.0).reshape(*lead, L, E).to(q.dtype)
"""

_DROPOUT_IN_PLACE = """
import torch
from torch import nn


class Dropout(nn.Module):
    def __init__(self, p: float = 0.5) -> None:
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(p)
        self.p = p

    def forward(self, x):
        op = getattr(torch.ops.aten, "dropout" + "_")
        return op(x.clone(), self.p, self.training)
"""

BYPASS_ATTACKS: tuple[Attack, ...] = (
    A(
        "softmax",
        "python_dispatch_disabled_logcumsumexp",
        "Python dispatch and torch-function handling disabled in C, logcumsumexp",
        _softmax_by_lse("_python_off"),
    ),
    A(
        "softmax",
        "modes_popped_logcumsumexp",
        "every mode popped off both stacks, logcumsumexp",
        _softmax_by_lse("_popped"),
    ),
    A(
        "online_softmax",
        "current_modes_disabled_logcumsumexp",
        "_disable_current_modes with torch-function handling off, logcumsumexp",
        _online_by_lse("_modes_off"),
    ),
    A(
        "online_softmax",
        "guard_state_emptied_logcumsumexp",
        "the guard's own state emptied, logcumsumexp",
        _online_by_lse("_guard_emptied"),
    ),
    A(
        "layer_norm_backward",
        "engine_in_backward_modes_off",
        "the autograd engine in backward, _disable_current_modes and torch-function handling off",
        _LAYER_NORM_BY_ENGINE,
    ),
    A(
        "silu_function",
        "engine_in_backward_python_off",
        "the autograd engine in backward, Python dispatch disabled in C",
        _SILU_BY_ENGINE.replace("{switch}", "_python_off"),
    ),
    A(
        "silu_function",
        "engine_in_backward_modes_popped",
        "the autograd engine in backward, every mode popped",
        _SILU_BY_ENGINE.replace("{switch}", "_popped"),
    ),
    A(
        "scaled_dot_product_attention",
        "quantizable_multihead_attention",
        "torch.ao.nn.quantizable.MultiheadAttention with identity projections",
        _QUANTIZABLE_MHA,
    ),
    A(
        "scaled_dot_product_attention",
        "multihead_weights_functions_off",
        "nn.MultiheadAttention's weights path with torch-function handling off",
        _MHA_WEIGHTS_FUNCTIONS_OFF,
    ),
    A(
        "dropout",
        "in_place_sibling",
        "aten.dropout_, the in-place sibling of the banned dropout",
        _DROPOUT_IN_PLACE,
    ),
)

ATTACKS = BYPASS_ATTACKS
