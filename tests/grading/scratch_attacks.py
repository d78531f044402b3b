"""Submissions that compute the exercise's answer with an operator that does the whole job,
each through another route to the dispatcher: none of them may be ``passed``. Names are built
at run time wherever a ban list or the static check would see them, so what is tested is the
run-time allow-list and its dispatcher-level backstop, not the name check.

Each route the allow-list claims to close appears at least once: a private or newer entry
point, an in-place or ``out=`` sibling, another normalisation configured to be this one, a
fused kernel of a bigger operation, ``torch.ops`` / ``torch._C``, scripting, a
``torch.library`` custom op, a tensor subclass, another backend's tensor, the dispatch mode
switched off, and, for the backward exercises, autograd run by the learner's backward.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Attack:
    slug: str
    name: str
    route: str
    code: str


def _layer_norm(body: str, prelude: str = "") -> str:
    return f"""
import torch
from torch import nn
{prelude}

class LayerNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.dim, self.eps = dim, eps
        self.weight = nn.Parameter(torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim))

    def forward(self, x):
        d, eps, w, b = self.dim, self.eps, self.weight, self.bias
{body}
"""


def _rms_norm(body: str, prelude: str = "") -> str:
    return f"""
import torch
from torch import nn
{prelude}

class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.dim, self.eps = dim, eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        d, eps, w = self.dim, self.eps, self.weight
{body}
"""


def _softmax(soft: str, log: str) -> str:
    return f"""
import torch

def softmax(x, dim=-1):
{soft}

def log_softmax(x, dim=-1):
{log}
"""


def _gelu(body: str) -> str:
    return f"""
import torch
from torch import nn

class GELU(nn.Module):
    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        if approximate not in ("none", "tanh"):
            raise ValueError(approximate)
        self.approximate = approximate

    def forward(self, x):
        a = self.approximate
{body}
"""


ATEN = "getattr(torch.ops.aten, {name!r}[::-1])"


def _aten(name: str) -> str:
    """``torch.ops.aten.<name>``, spelled so that no source check sees the name."""
    return ATEN.format(name=name[::-1])


ATTACKS: tuple[Attack, ...] = (
    # --- layer_norm: other norms configured to be this one, private entry points, routes ---
    Attack(
        "layer_norm",
        "group_norm_one_group",
        "another normalisation over a reshaped view",
        _layer_norm(
            f"""        rows = x.reshape(-1, 1, d)
        out = {_aten("native_group_norm")}(rows, None, None, rows.shape[0], 1, d, 1, eps)[0]
        return out.reshape(x.shape) * w + b"""
        ),
    ),
    Attack(
        "layer_norm",
        "batch_norm_legit_rows_as_channels",
        "a private entry point of another normalisation",
        _layer_norm(
            f"""        rows = x.reshape(1, -1, d)
        op = {_aten("_native_batch_norm_legit")}
        out = op(rows, None, None, True, 0.0, eps)[0]
        return out.reshape(x.shape) * w + b"""
        ),
    ),
    Attack(
        "layer_norm",
        "native_layer_norm_out",
        "an out= sibling",
        _layer_norm(
            f"""        out = torch.empty_like(x)
        mean = torch.empty(x.shape[:-1] + (1,), dtype=x.dtype)
        rstd = torch.empty_like(mean)
        {_aten("native_layer_norm")}.out(x, [d], w, b, eps, out0=out, out1=mean, out2=rstd)
        return out"""
        ),
    ),
    Attack(
        "layer_norm",
        "scripted_batch_norm",
        "scripting",
        _layer_norm(
            """        return _scripted(x, w, b, eps)""",
            prelude="""
def _impl(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor, eps: float) -> torch.Tensor:
    rows = x.reshape(1, -1, x.shape[-1])
    out = torch.batch_norm(rows, None, None, None, None, True, 0.0, eps, False)
    return out.reshape(x.shape) * w + b

_scripted = getattr(torch.jit, "scr" + "ipt")(_impl)
""",
        ),
    ),
    Attack(
        "layer_norm",
        "custom_op_library",
        "a torch.library custom op",
        _layer_norm(
            """        return torch.ops.mine.ln(x, w, b, eps)""",
            prelude=f"""
_lib = torch.library.Library("mine", "DEF")
_lib.define("ln(Tensor x, Tensor w, Tensor b, float eps) -> Tensor")

def _ln(x, w, b, eps):
    return {_aten("native_layer_norm")}(x, [x.shape[-1]], w, b, eps)[0]

_lib.impl("ln", _ln, "CompositeExplicitAutograd")
""",
        ),
    ),
    Attack(
        "layer_norm",
        "dispatch_mode_switched_off",
        "the dispatch mode switched off",
        _layer_norm(
            f"""        with _off():
            return {_aten("native_layer_norm")}(x, [d], w, b, eps)[0]""",
            prelude="""
import importlib
_dispatch = importlib.import_module("torch.utils._python_" + "dispatch")
_off = getattr(_dispatch, "_disable_current_modes")
""",
        ),
    ),
    Attack(
        "layer_norm",
        "python_key_excluded",
        "the Python dispatch key excluded",
        _layer_norm(
            f"""        keys = torch._C.DispatchKeySet(torch._C.DispatchKey.Python)
        keys = keys | torch._C.DispatchKeySet(torch._C.DispatchKey.PythonTLSSnapshot)
        with torch._C._ExcludeDispatchKeyGuard(keys):
            return {_aten("native_group_norm")}(
                x.reshape(-1, 1, d), None, None, x.numel() // d, 1, d, 1, eps
            )[0].reshape(x.shape) * w + b"""
        ),
    ),
    Attack(
        "layer_norm",
        "guard_flag_cleared",
        "the guard's own switch turned off",
        _layer_norm(
            f"""        for m in _stack():
            for k in list(vars(m)):
                if isinstance(vars(m)[k], bool):
                    setattr(m, k, False)
        return {_aten("native_layer_norm")}(x, [d], w, b, eps)[0]""",
            prelude="""
import importlib
_dispatch = importlib.import_module("torch.utils._python_" + "dispatch")
_stack = getattr(_dispatch, "_get_current_dispatch_mode_stack")
""",
        ),
    ),
    Attack(
        "layer_norm",
        "tensor_subclass",
        "a tensor subclass's own dispatch",
        _layer_norm(
            """        return _Sneaky(x) * w + b""",
            prelude=f"""
class _Sneaky(torch.Tensor):
    @staticmethod
    def __new__(cls, elem):
        r = torch.Tensor._make_wrapper_subclass(cls, elem.shape, dtype=elem.dtype)
        r.elem = elem
        return r

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        args = [a.elem if isinstance(a, _Sneaky) else a for a in args]
        x = args[0]
        return {_aten("native_layer_norm")}(x, [x.shape[-1]], None, None, 1e-5)[0] * args[1]
""",
        ),
    ),
    Attack(
        "layer_norm",
        "every_python_layer_off",
        "torch-function handling and the dispatch mode both switched off",
        _layer_norm(
            f"""        with getattr(torch._C, "DisableTorch" + "Function")(), _off():
            return {_aten("native_layer_norm")}(x, [d], w, b, eps)[0]""",
            prelude="""
import importlib
_dispatch = importlib.import_module("torch.utils._python_" + "dispatch")
_off = getattr(_dispatch, "_disable_current_modes")
""",
        ),
    ),
    Attack(
        "layer_norm",
        "mkldnn_backend",
        "a tensor of another backend",
        _layer_norm(
            """        y = x.float().to_mkldnn()
        mean = x.mean(-1, keepdim=True)
        xc = x - mean
        var = (xc * xc).mean(-1, keepdim=True)
        return (xc * torch.rsqrt(var + eps) * w + b) + 0 * y.to_dense().sum()"""
        ),
    ),
    Attack(
        "layer_norm",
        "fused_transformer_layer",
        "a fused kernel of a bigger operation",
        _layer_norm(
            f"""        z, zv = torch.zeros(d, d), torch.zeros(d)
        op = {_aten("_transformer_encoder_layer_fwd")}
        # Attention and FFN weights of zero: the layer's output is norm2(norm1(x)).
        out = op(x.reshape(1, -1, d), d, 1, torch.zeros(3 * d, d), torch.zeros(3 * d), z, zv,
                 False, True, eps, torch.ones(d), torch.zeros(d), w, b, z, zv, z, zv)
        return out.reshape(x.shape)"""
        ),
    ),
    # --- rms_norm -----------------------------------------------------------------------
    Attack(
        "rms_norm",
        "fused_rms_norm_private",
        "a newer private entry point of the banned op",
        _rms_norm(f"""        return {_aten("_fused_rms_norm")}(x, [d], w, eps)[0]"""),
    ),
    Attack(
        "rms_norm",
        "layer_norm_of_mirrored_input",
        "another normalisation configured to be this one",
        _rms_norm(
            f"""        both = torch.cat([x, -x], dim=-1)
        out = {_aten("native_layer_norm")}(both, [2 * d], None, None, eps)[0]
        return out[..., :d] * w"""
        ),
    ),
    # --- softmax ------------------------------------------------------------------------
    Attack(
        "softmax",
        "private_softmax_in_place_log",
        "private entry points",
        _softmax(
            f"""    return {_aten("_softmax")}(x, dim, False)""",
            f"""    return {_aten("_log_softmax")}(x, dim, False)""",
        ),
    ),
    Attack(
        "softmax",
        "safe_and_sparse_softmax",
        "a newer entry point and a sparse tensor",
        _softmax(
            f"""    return {_aten("_safe_softmax")}(x, dim)""",
            """    s = x.to_sparse()
    return getattr(torch.sparse, "log_" + "softmax")(s, dim).to_dense()""",
        ),
    ),
    Attack(
        "softmax",
        "attention_with_identity_values",
        "a fused kernel of a bigger operation",
        _softmax(
            """    y = x.movedim(dim, -1)
    n = y.shape[-1]
    flat = y.reshape(1, 1, -1, n)
    eye = torch.eye(n, dtype=x.dtype).reshape(1, 1, n, n)
    sdpa = getattr(torch.nn.functional, "scaled_dot_product_" + "attention")
    out = sdpa(flat, eye, eye, scale=1.0)
    return out.reshape(y.shape).movedim(-1, dim)""",
            """    m = x.amax(dim, keepdim=True)
    return x - m - (x - m).exp().sum(dim, keepdim=True).log()""",
        ),
    ),
    # --- gelu ---------------------------------------------------------------------------
    Attack(
        "gelu",
        "addmm_activation",
        "a fused kernel of a bigger operation",
        _gelu(
            f"""        flat = x.reshape(-1, x.shape[-1]) if x.dim() else x.reshape(1, 1)
        eye = torch.eye(flat.shape[-1], dtype=x.dtype)
        zero = torch.zeros(flat.shape[-1], dtype=x.dtype)
        out = {_aten("_addmm_activation")}(zero, flat, eye, use_gelu=True)
        return out.reshape(x.shape)"""
        ),
    ),
    Attack(
        "gelu",
        "in_place_sibling",
        "an in-place sibling",
        _gelu(f"""        return {_aten("gelu_")}(x.clone(), approximate=a)"""),
    ),
)


def _backward_attack(name: str, route: str, backward_body: str, forward_extra: str = "") -> Attack:
    return Attack(
        "layer_norm_backward",
        name,
        route,
        f"""
import torch

class LayerNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias, eps):
{forward_extra or "        ctx.save_for_backward(x, weight, bias)"}
        ctx.eps = eps
        mean = x.mean(-1, keepdim=True)
        xc = x - mean
        var = (xc * xc).mean(-1, keepdim=True)
        return xc * torch.rsqrt(var + eps) * weight + bias

    @staticmethod
    def backward(ctx, dy):
        x, weight, bias = ctx.saved_tensors[:3]
        eps = ctx.eps
{backward_body}
""",
    )


_RECOMPUTE = """            xx, ww, bb = (t.detach().requires_grad_() for t in (x, weight, bias))
            mean = xx.mean(-1, keepdim=True)
            xc = xx - mean
            y = xc * torch.rsqrt((xc * xc).mean(-1, keepdim=True) + eps) * ww + bb
"""

BACKWARD_ATTACKS: tuple[Attack, ...] = (
    _backward_attack(
        "grad_mode_and_engine",
        "grad mode switched on and the engine entered",
        "        with getattr(torch, 'enable_' + 'grad')():\n"
        + _RECOMPUTE
        + "            g = getattr(torch.autograd, 'gr' + 'ad')(y, (xx, ww, bb), dy)\n"
        "        return g[0], g[1], g[2], None",
    ),
    _backward_attack(
        "functional_vjp",
        "torch.autograd.functional",
        "        def f(xx, ww, bb):\n"
        "            mean = xx.mean(-1, keepdim=True)\n"
        "            xc = xx - mean\n"
        "            return xc * torch.rsqrt((xc * xc).mean(-1, keepdim=True) + eps) * ww + bb\n"
        "        import importlib\n"
        "        F = importlib.import_module('torch.autograd.' + 'functional')\n"
        "        _, g = F.vjp(f, (x, weight, bias), dy)\n"
        "        return g[0], g[1], g[2], None",
    ),
    _backward_attack(
        "engine_directly",
        "the autograd engine called directly",
        "        with getattr(torch, 'enable_' + 'grad')():\n"
        + _RECOMPUTE
        + "            engine = getattr(torch.autograd.Variable, '_execution_' + 'engine')\n"
        "            g = engine.run_backward((y,), (dy,), False, False, (xx, ww, bb), False)\n"
        "        return g[0], g[1], g[2], None",
    ),
    _backward_attack(
        "graph_built_in_forward",
        "a graph recorded in forward and its grad_fn called in backward",
        "        node = ctx.node\n        return (*node(dy), None)",
        forward_extra="        ctx.save_for_backward(x, weight, bias)\n"
        "        with getattr(torch, 'enable_' + 'grad')():\n"
        "            xx, ww, bb = (t.detach().requires_grad_() for t in (x, weight, bias))\n"
        "            mean = xx.mean(-1, keepdim=True)\n"
        "            xc = xx - mean\n"
        "            y = xc * torch.rsqrt((xc * xc).mean(-1, keepdim=True) + eps) * ww + bb\n"
        "        ctx.node = y.grad_fn",
    ),
    _backward_attack(
        "native_backward_kernel",
        "the op's own backward kernel",
        "        d = x.shape[-1]\n"
        "        mean = x.mean(-1, keepdim=True)\n"
        "        rstd = torch.rsqrt(((x - mean) ** 2).mean(-1, keepdim=True) + eps)\n"
        f"        op = {_aten('native_layer_norm_backward')}\n"
        "        g = op(dy, x, [d], mean, rstd, weight, bias, [True, True, True])\n"
        "        return g[0], g[1], g[2], None",
    ),
    _backward_attack(
        "forward_mode_ad",
        "forward-mode AD",
        "        import importlib\n"
        "        fwad = importlib.import_module('torch.autograd.' + 'forward_ad')\n"
        "        with fwad.dual_level():\n"
        "            d = fwad.make_dual(x, torch.ones_like(x))\n"
        "            t = fwad.unpack_dual(d.mean(-1, keepdim=True)).tangent\n"
        "        flat = dy.reshape(-1, x.shape[-1])\n"
        "        return dy * t, flat.sum(0), flat.sum(0), None",
    ),
)

EVERY_ATTACK = ATTACKS + BACKWARD_ATTACKS


# Correct code written other ways than the worked solutions: each must pass, whatever the
# allow-list admits or refuses.
ALTERNATIVES: tuple[Attack, ...] = (
    Attack(
        "layer_norm",
        "einsum_statistics",
        "einsum",
        _layer_norm(
            # Sums divided by d: in float32, as the prompt asks of bfloat16 input (a sum rounded
            # to bfloat16 before the division is the mistake the platform's rows show).
            """        c = x.float() if x.dtype in (torch.bfloat16, torch.float16) else x
        mean = torch.einsum("...d->...", c).unsqueeze(-1) / d
        xc = c - mean
        var = torch.einsum("...d,...d->...", xc, xc).unsqueeze(-1) / d
        return (xc / torch.sqrt(var + eps) * w + b).to(x.dtype)"""
        ),
    ),
    Attack(
        "layer_norm",
        "welford_in_float64",
        "Welford's running statistics, computed in float64",
        _layer_norm(
            """        xd = x.double()
        mean = torch.zeros(xd.shape[:-1] + (1,), dtype=torch.float64)
        m2 = torch.zeros_like(mean)
        for k in range(d):
            v = xd[..., k : k + 1]
            delta = v - mean
            mean = mean + delta / (k + 1)
            m2 = m2 + delta * (v - mean)
        y = (xd - mean) * torch.rsqrt(m2 / d + eps)
        return (y * w.double() + b.double()).to(x.dtype)"""
        ),
    ),
    Attack(
        "layer_norm",
        "var_mean_and_addcmul",
        "torch.var_mean and addcmul",
        _layer_norm(
            """        var, mean = torch.var_mean(x, dim=-1, keepdim=True, correction=0)
        return torch.addcmul(b, (x - mean) * torch.rsqrt(var + eps), w)"""
        ),
    ),
    Attack(
        "rms_norm",
        "linalg_norm",
        "torch.linalg.norm over the last dim",
        _rms_norm(
            """        rms = torch.linalg.norm(x.float(), dim=-1, keepdim=True) / d**0.5
        return (x.float() / torch.sqrt(rms * rms + eps)).to(x.dtype) * w"""
        ),
    ),
    Attack(
        "softmax",
        "logsumexp_by_hand",
        "a hand-written logsumexp",
        _softmax(
            """    m = x.amax(dim, keepdim=True)
    e = torch.exp(x - m)
    return e / e.sum(dim, keepdim=True)""",
            """    m = x.amax(dim, keepdim=True)
    return x - m - torch.log(torch.exp(x - m).sum(dim, keepdim=True))""",
        ),
    ),
    Attack(
        "gelu",
        "erf_and_tanh_formulas",
        "torch.erf and the tanh formula",
        _gelu(
            """        xf = x.float() if x.dtype in (torch.bfloat16, torch.float16) else x
        if a == "tanh":
            inner = (2 / torch.pi) ** 0.5 * (xf + 0.044715 * xf**3)
            return (0.5 * xf * (1 + torch.tanh(inner))).to(x.dtype)
        return (0.5 * xf * (1 + torch.erf(xf / 2**0.5))).to(x.dtype)"""
        ),
    ),
)
