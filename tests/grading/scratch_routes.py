# ruff: noqa: E501  (the routes are learner submissions, kept as written: one statement a line)
"""More routes to a whole-job computation, by class (issue 34): each must get a verdict other
than ``passed`` through the real service and the armed sandbox. Names are built at run time, so
the static name check sees none of them: what is tested is the run-time allow-list, the
function-mode tripwire, the dispatcher-level backstop, the disabled private implementations and
the sandbox's one-thread rule.

Classes:
- ``BY_ANOTHER_NAME``: the banned callable reached through ``sys.modules``, ``__import__``,
  ``vars(torch)``, ``torch._VF``, ``getattr(torch.ops, 'aten')``, a tensor method, code built
  from a string;
- ``BY_A_MODULE``: a banned module's forward reached by ``__class__`` assignment, ``copy.deepcopy``,
  ``torch.func.functional_call``, ``torch.fx`` and ``torch.jit.trace``, ``nn.MultiheadAttention``;
- ``BY_ANOTHER_OPERATOR``: a sibling operator that contains the answer (``batch_norm_stats``,
  ``batch_norm_elemt``, ``instance_norm``/``group_norm`` over views, ``_weight_norm``,
  ``logsumexp``, ``logcumsumexp``, ``cross_entropy``, ``softmin``, ``torch.distributions``,
  ``torch.masked``, ``torch.special``, ``torch.sparse``, quantized and nested tensors);
- ``BY_PRIVATE_CODE``: ``torch._refs`` and ``torch._decomp`` reached by ``importlib``;
- ``AUTOGRAD_DOES_THE_BACKWARD``: ``torch.func`` in backward, a hook, the op's own backward
  kernel, a thread, and a graph recorded around the Function (an overridden ``apply``,
  ``setup_context``) whose nodes backward calls by hand;
- ``CHECKPOINT_AT_RUN_TIME``: ``torch.utils.checkpoint`` reached by ``importlib``/``sys.modules``,
  its private non-reentrant generator, ``CheckpointFunction`` from the module's namespace, the
  saved-tensor hooks pushed through ``torch._C`` directly.

``ALTERNATIVES``: correct code written other ways, which must pass.
"""

from __future__ import annotations

from tests.grading.scratch_attacks import Attack, _gelu, _layer_norm, _rms_norm, _softmax

A = Attack
NEW_ATTACKS = (
    # ---- reaching torch.nn.functional / torch by other names
    A(
        "layer_norm",
        "sys_modules_functional",
        "sys.modules",
        _layer_norm(
            "        return getattr(sys.modules['torch.nn.' + 'functional'], 'layer' + '_norm')(x, (d,), w, b, eps)",
            prelude="import sys",
        ),
    ),
    A(
        "layer_norm",
        "builtins_import",
        "__builtins__ / __import__",
        _layer_norm(
            "        F = __builtins__['__imp' + 'ort__']('torch.nn.functional', fromlist=['x']) if isinstance(__builtins__, dict) else getattr(__builtins__, '__imp' + 'ort__')('torch.nn.functional', fromlist=['x'])\n        return getattr(F, 'layer' + '_norm')(x, (d,), w, b, eps)"
        ),
    ),
    A(
        "layer_norm",
        "vars_of_torch",
        "vars(torch)",
        _layer_norm("        return vars(torch)['layer' + '_norm'](x, (d,), w, b, eps, False)"),
    ),
    A(
        "layer_norm",
        "class_assignment",
        "__class__ assigned to a banned module",
        _layer_norm(
            "        m = nn.Module()\n        m.normalized_shape, m.eps, m.elementwise_affine = (d,), eps, True\n        m.weight, m.bias = w, b\n        m.__class__ = getattr(importlib.import_module('torch.nn.modules.normal' + 'ization'), 'Layer' + 'Norm')\n        return m(x)",
            prelude="import importlib",
        ),
    ),
    A(
        "layer_norm",
        "functional_call",
        "torch.func.functional_call of a banned module",
        _layer_norm(
            "        m = getattr(nn, 'Layer' + 'Norm')(d, eps=eps)\n        return torch.func.functional_call(m, {'weight': w, 'bias': b}, (x,))"
        ),
    ),
    A(
        "layer_norm",
        "fx_symbolic_trace",
        "torch.fx symbolic trace",
        _layer_norm(
            "        return _traced(x, w, b)",
            prelude="import torch.fx\nclass _M(nn.Module):\n    def forward(self, x, w, b):\n        return getattr(torch.nn.functional, 'layer' + '_norm')(x, x.shape[-1:], w, b, 1e-5)\n_traced = torch.fx.symbolic_trace(_M())",
        ),
    ),
    A(
        "layer_norm",
        "jit_trace",
        "torch.jit.trace",
        _layer_norm(
            "        f = getattr(torch.jit, 'tr' + 'ace')(getattr(nn, 'Layer' + 'Norm')(d, eps=eps), x)\n        return f(x) * w + b"
        ),
    ),
    A(
        "layer_norm",
        "refs",
        "torch._refs",
        _layer_norm(
            "        refs = importlib.import_module('torch._' + 'refs.nn.functional')\n        return getattr(refs, 'layer' + '_norm')(x, (d,), w, b, eps)",
            prelude="import importlib",
        ),
    ),
    A(
        "layer_norm",
        "batch_norm_stats",
        "torch.batch_norm_stats / batch_norm_elemt",
        _layer_norm(
            "        rows = x.reshape(-1, d).t().contiguous()\n        mean, invstd = getattr(torch, 'batch_norm' + '_stats')(rows, eps)\n        return ((x - mean.reshape(x.shape[:-1] + (1,))) * invstd.reshape(x.shape[:-1] + (1,))) * w + b"
        ),
    ),
    A(
        "layer_norm",
        "instance_norm_view",
        "instance_norm over a view",
        _layer_norm(
            "        rows = x.reshape(1, -1, d)\n        return getattr(torch, 'instance' + '_norm')(rows, None, None, None, None, True, 0.0, eps, False).reshape(x.shape) * w + b"
        ),
    ),
    A(
        "layer_norm",
        "ao_quantized_layer_norm",
        "torch.ao quantized functional",
        _layer_norm(
            "        qf = importlib.import_module('torch.ao.nn.quantized.' + 'functional')\n        q = torch.quantize_per_tensor(x.float(), 0.01, 0, torch.qint8)\n        return getattr(qf, 'layer' + '_norm')(q, (d,), w, b, eps, 0.01, 0).dequantize().to(x.dtype)",
            prelude="import importlib",
        ),
    ),
    A(
        "layer_norm",
        "nested_tensor",
        "torch.nested",
        _layer_norm(
            "        nt = torch.nested.nested_tensor([x.reshape(-1, d)])\n        out = getattr(torch.nn.functional, 'layer' + '_norm')(nt, (d,), w, b, eps)\n        return out.unbind()[0].reshape(x.shape)"
        ),
    ),
    A(
        "layer_norm",
        "function_forward_no_grad",
        "an autograd.Function whose forward runs the banned op under no_grad",
        _layer_norm(
            "        return _F.apply(x, w, b, eps)",
            prelude="class _F(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x, w, b, eps):\n        with torch.no_grad():\n            return getattr(torch, 'layer' + '_norm')(x, x.shape[-1:], w, b, eps, False)\n    @staticmethod\n    def backward(ctx, g):\n        return g, None, None, None",
        ),
    ),
    A(
        "layer_norm",
        "parametrization_weight_norm",
        "nn.utils weight_norm's kernel",
        _layer_norm(
            "        op = getattr(torch, '_weight' + '_norm')\n        xc = x - x.mean(-1, keepdim=True)\n        n = op(xc, torch.ones(xc.shape[:-1] + (1,), dtype=x.dtype), xc.dim() - 1)\n        return xc * 0 + n * d ** 0.5 * w + b"
        ),
    ),
    A(
        "layer_norm",
        "deepcopy_of_banned_module",
        "copy.deepcopy of a banned module built once",
        _layer_norm(
            "        m = copy.deepcopy(_proto)\n        m.eps = eps\n        m.normalized_shape = (d,)\n        return torch.func.functional_call(m, {'weight': w, 'bias': b}, (x,))",
            prelude="import copy\n_proto = getattr(nn, 'Layer' + 'Norm')(4)",
        ),
    ),
    A(
        "layer_norm",
        "group_norm_channels_view",
        "group_norm over a (rows, d, 1) view",
        _layer_norm(
            "        rows = x.reshape(-1, d, 1)\n        return getattr(torch.nn.functional, 'group' + '_norm')(rows, 1, None, None, eps).reshape(x.shape) * w + b"
        ),
    ),
    A(
        "layer_norm",
        "string_exec",
        "code built from a string and exec'd",
        _layer_norm(
            "        ns = {'torch': torch}\n        exec(bytes.fromhex('795f3d746f7263682e6e6e2e66756e6374696f6e616c2e6c617965725f6e6f726d28782c28642c292c772c622c65707329').decode(), ns | {'x': x, 'd': d, 'w': w, 'b': b, 'eps': eps}, ns)\n        return ns['y_']"
        ),
    ),
    # ---- rms_norm
    A(
        "rms_norm",
        "f_rms_norm_via_getattr",
        "F.rms_norm via getattr",
        _rms_norm("        return getattr(torch.nn.functional, 'rms' + '_norm')(x, (d,), w, eps)"),
    ),
    A(
        "rms_norm",
        "ops_aten_rms_norm",
        "torch.ops.aten.rms_norm via getattr(torch.ops, 'aten')",
        _rms_norm(
            "        return getattr(getattr(torch.ops, 'at' + 'en'), 'rms' + '_norm').default(x, [d], w, eps)"
        ),
    ),
    A(
        "rms_norm",
        "vf_rms_norm",
        "torch._VF",
        _rms_norm("        return getattr(torch._VF, 'rms' + '_norm')(x, [d], w, eps)"),
    ),
    A(
        "rms_norm",
        "decomp_rms",
        "torch._decomp by importlib",
        _rms_norm(
            "        dec = importlib.import_module('torch._decomp.' + 'decompositions')\n        return getattr(dec, '_fused_rms' + '_norm')(x, [d], w, eps)[0]",
            prelude="import importlib",
        ),
    ),
    # ---- softmax family
    A(
        "softmax",
        "tensor_method",
        "x.softmax via getattr",
        _softmax(
            "    return getattr(x, 'soft' + 'max')(dim)",
            "    return getattr(x, 'log_' + 'softmax')(dim)",
        ),
    ),
    A(
        "softmax",
        "sparse_softmax",
        "torch.sparse.softmax",
        _softmax(
            "    return getattr(torch.sparse, 'soft' + 'max')(x.to_sparse(), dim).to_dense()",
            "    return getattr(torch.sparse, 'log_' + 'softmax')(x.to_sparse(), dim).to_dense()",
        ),
    ),
    A(
        "softmax",
        "special_softmax",
        "torch.special",
        _softmax(
            "    return getattr(torch.special, 'soft' + 'max')(x, dim)",
            "    return getattr(torch.special, 'log_' + 'softmax')(x, dim)",
        ),
    ),
    A(
        "softmax",
        "masked_softmax",
        "torch.masked",
        _softmax(
            "    return getattr(torch.masked, 'soft' + 'max')(x, dim, mask=torch.ones_like(x, dtype=torch.bool))",
            "    return getattr(torch.masked, 'log_' + 'softmax')(x, dim, mask=torch.ones_like(x, dtype=torch.bool))",
        ),
    ),
    A(
        "softmax",
        "logsumexp",
        "torch.logsumexp (log_softmax's job)",
        _softmax(
            "    return torch.exp(x - getattr(torch, 'log' + 'sumexp')(x, dim, keepdim=True))",
            "    return x - getattr(torch, 'log' + 'sumexp')(x, dim, keepdim=True)",
        ),
    ),
    A(
        "softmax",
        "categorical_probs",
        "torch.distributions.Categorical",
        _softmax(
            "    y = x.movedim(dim, -1)\n    return torch.distributions.Categorical(logits=y, validate_args=False).probs.movedim(-1, dim)",
            "    y = x.movedim(dim, -1)\n    return torch.distributions.Categorical(logits=y, validate_args=False).logits.movedim(-1, dim)",
        ),
    ),
    A(
        "softmax",
        "cross_entropy_rows",
        "cross_entropy (a fused log_softmax)",
        _softmax(
            "    y = x.movedim(dim, -1)\n    n = y.shape[-1]\n    flat = y.reshape(-1, n).repeat_interleave(n, 0)\n    t = torch.arange(n).repeat(flat.shape[0] // n)\n    l = getattr(torch.nn.functional, 'cross' + '_entropy')(flat, t, reduction='none')\n    return torch.exp(-l).reshape(y.shape).movedim(-1, dim)",
            "    y = x.movedim(dim, -1)\n    n = y.shape[-1]\n    flat = y.reshape(-1, n).repeat_interleave(n, 0)\n    t = torch.arange(n).repeat(flat.shape[0] // n)\n    l = getattr(torch.nn.functional, 'cross' + '_entropy')(flat, t, reduction='none')\n    return (-l).reshape(y.shape).movedim(-1, dim)",
        ),
    ),
    A(
        "softmax",
        "logcumsumexp",
        "torch.logcumsumexp's last entry",
        _softmax(
            "    return torch.exp(x - torch.logcumsumexp(x, dim).narrow(dim, x.shape[dim] - 1, 1))",
            "    return x - torch.logcumsumexp(x, dim).narrow(dim, x.shape[dim] - 1, 1)",
        ),
    ),
    A(
        "softmax",
        "softmin_of_negative",
        "softmin of -x",
        _softmax(
            "    return getattr(torch.nn.functional, 'soft' + 'min')(-x, dim)",
            "    return torch.log(getattr(torch.nn.functional, 'soft' + 'min')(-x, dim))",
        ),
    ),
    A(
        "online_softmax",
        "tensor_method",
        "x.softmax inside the chunk loop",
        """
import torch

def online_softmax_update(x, m, s):
    m_new = torch.maximum(m, x.amax(-1, keepdim=True))
    return m_new, s * torch.exp(m - m_new) + torch.exp(x - m_new).sum(-1, keepdim=True)

def online_softmax(x, chunk_size=128):
    return getattr(x, 'soft' + 'max')(-1)
""",
    ),
    A(
        "online_softmax",
        "update_by_logsumexp",
        "logaddexp in the update",
        """
import torch

def online_softmax_update(x, m, s):
    m_new = torch.maximum(m, x.amax(-1, keepdim=True))
    return m_new, s * torch.exp(m - m_new) + torch.exp(x - m_new).sum(-1, keepdim=True)

def online_softmax(x, chunk_size=128):
    lse = getattr(torch, 'log' + 'sumexp')(x.double(), -1, keepdim=True)
    return torch.exp(x.double() - lse).to(x.dtype)
""",
    ),
    # ---- gelu / silu
    A(
        "gelu",
        "sys_modules_gelu",
        "sys.modules['torch.nn.functional']",
        _gelu(
            "        return getattr(sys.modules['torch.nn.' + 'functional'], 'ge' + 'lu')(x, approximate=a)"
        ).replace("import torch\n", "import sys\nimport torch\n", 1),
    ),
    A(
        "gelu",
        "class_assignment",
        "__class__ assigned to nn.GELU",
        _gelu(
            "        m = nn.Module()\n        m.approximate = a\n        m.__class__ = getattr(nn, 'GE' + 'LU')\n        return m(x)"
        ),
    ),
    A(
        "gelu",
        "ao_quantized",
        "torch.ao quantized gelu",
        _gelu(
            "        q = torch.quantize_per_tensor(x.float(), 1e-4, 0, torch.qint32)\n        return getattr(torch.nn.functional, 'ge' + 'lu')(q).dequantize().to(x.dtype)"
        ),
    ),
    A(
        "silu_function",
        "silu_backward_via_ops",
        "silu_backward by torch.ops",
        """
import torch

class SiLUFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * torch.sigmoid(x)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return getattr(getattr(torch.ops, 'at' + 'en'), 'silu' + '_backward')(g, x)
""",
    ),
    A(
        "silu_function",
        "register_hook_graph",
        "a graph built in an overridden apply, walked in backward",
        """
import torch

_graph = {}

class SiLUFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * torch.sigmoid(x)

    @staticmethod
    def backward(ctx, g):
        node = _graph['node']
        out = g
        # walk the recorded graph by hand: MulBackward0 -> (x, SigmoidBackward0)
        gx, gs = node(g)
        sig = node.next_functions[1][0]
        return gx + sig(gs)[0] if sig is not None else gx

    @classmethod
    def apply(cls, x):
        with getattr(torch, 'enable_' + 'grad')():
            xx = x.detach().requires_grad_()
            y = xx * torch.sigmoid(xx)
        _graph['node'] = y.grad_fn
        return super().apply(x)
""",
    ),
    A(
        "silu_function",
        "graph_in_ctx",
        "ctx holding an output with a grad_fn built outside the Function",
        """
import torch

class SiLUFunction(torch.autograd.Function):
    @staticmethod
    def forward(x):
        return x * torch.sigmoid(x)

    @staticmethod
    def backward(ctx, g):
        return getattr(torch.autograd, 'gr' + 'ad')(ctx.y, ctx.xx, g)[0]

    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        ctx.save_for_backward(x)
        with getattr(torch, 'enable_' + 'grad')():
            ctx.xx = x.detach().requires_grad_()
            ctx.y = ctx.xx * torch.sigmoid(ctx.xx)
""",
    ),
    # ---- dropout
    A(
        "dropout",
        "vf_dropout",
        "torch._VF.dropout",
        """
import torch
from torch import nn

class Dropout(nn.Module):
    def __init__(self, p=0.5):
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(p)
        self.p = p

    def forward(self, x):
        return getattr(torch._VF, 'drop' + 'out')(x, self.p, self.training)
""",
    ),
    A(
        "dropout",
        "ops_aten_dropout",
        "torch.ops.aten.dropout",
        """
import torch
from torch import nn

class Dropout(nn.Module):
    def __init__(self, p=0.5):
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(p)
        self.p = p

    def forward(self, x):
        return getattr(getattr(torch.ops, 'at' + 'en'), 'drop' + 'out').default(x, self.p, self.training)
""",
    ),
    A(
        "dropout",
        "native_dropout_vars",
        "native_dropout through vars(torch)",
        """
import torch
from torch import nn

class Dropout(nn.Module):
    def __init__(self, p=0.5):
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(p)
        self.p = p

    def forward(self, x):
        if not self.training:
            return x
        return vars(torch)['native_' + 'dropout'](x, self.p, True)[0]
""",
    ),
    A(
        "dropout",
        "class_assignment",
        "__class__ assigned to nn.Dropout",
        """
import torch
from torch import nn

class Dropout(nn.Module):
    def __init__(self, p=0.5):
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(p)
        self.p = p
        self.inplace = False

    def forward(self, x):
        inner = nn.Module()
        inner.p, inner.inplace, inner.training = self.p, False, self.training
        inner.__class__ = getattr(nn, 'Drop' + 'out')
        return inner(x)
""",
    ),
    # ---- attention
    A(
        "scaled_dot_product_attention",
        "sdpa_via_sys_modules",
        "F.scaled_dot_product_attention via sys.modules",
        """
import sys
import torch

def scaled_dot_product_attention(q, k, v, mask=None, is_causal=False, scale=None):
    F = sys.modules['torch.nn.' + 'functional']
    return getattr(F, 'scaled_dot_product_' + 'attention')(q, k, v, attn_mask=mask, is_causal=is_causal, scale=scale)
""",
    ),
    A(
        "scaled_dot_product_attention",
        "math_kernel",
        "_scaled_dot_product_attention_math by torch.ops",
        """
import torch

def scaled_dot_product_attention(q, k, v, mask=None, is_causal=False, scale=None):
    op = getattr(torch.ops.aten, '_scaled_dot_product_' + 'attention_math')
    return op(q, k, v, mask, 0.0, is_causal, scale=scale)[0]
""",
    ),
    A(
        "scaled_dot_product_attention",
        "multihead_module",
        "nn.MultiheadAttention with identity projections",
        """
import torch
from torch import nn

def scaled_dot_product_attention(q, k, v, mask=None, is_causal=False, scale=None):
    m = getattr(nn, 'Multihead' + 'Attention')(q.shape[-1], 1, bias=False, batch_first=True)
    return m(q, k, v)[0]
""",
    ),
    # ---- backward exercises
    A(
        "rms_norm_backward",
        "functorch_vjp",
        "functorch / torch.func.vjp in backward",
        """
import importlib
import torch

class RMSNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, eps):
        ctx.save_for_backward(x, weight)
        ctx.eps = eps
        return x * torch.rsqrt((x * x).mean(-1, keepdim=True) + eps) * weight

    @staticmethod
    def backward(ctx, dy):
        x, weight = ctx.saved_tensors
        eps = ctx.eps
        func = importlib.import_module('torch.' + 'func')
        f = lambda a, b: a * torch.rsqrt((a * a).mean(-1, keepdim=True) + eps) * b
        _, pull = getattr(func, 'v' + 'jp')(f, x, weight)
        gx, gw = pull(dy)
        return gx, gw, None
""",
    ),
    A(
        "rms_norm_backward",
        "hook_in_forward_graph",
        "register_hook on a graph recorded outside the Function",
        """
import torch

_box = {}

class RMSNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, eps):
        ctx.save_for_backward(x, weight)
        return x * torch.rsqrt((x * x).mean(-1, keepdim=True) + eps) * weight

    @staticmethod
    def backward(ctx, dy):
        return _box['gx'] * 0 + _box['gx'], _box['gw'], None

    @classmethod
    def apply(cls, x, weight, eps):
        with getattr(torch, 'enable_' + 'grad')():
            xx, ww = x.detach().requires_grad_(), weight.detach().requires_grad_()
            y = xx * torch.rsqrt((xx * xx).mean(-1, keepdim=True) + eps) * ww
        out = super().apply(x, weight, eps)
        def hook(g):
            gx, gw = getattr(torch.autograd, 'gr' + 'ad')(y, (xx, ww), g)
            _box['gx'], _box['gw'] = gx, gw
            return g
        if out.requires_grad:
            out.register_hook(hook)
        return out
""",
    ),
    A(
        "batch_norm_backward",
        "native_batch_norm_backward",
        "the op's own backward kernel via vars(torch)",
        """
import torch

class BatchNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias, eps):
        dims = (0,) if x.dim() == 2 else (0, 2)
        shape = (1, -1) if x.dim() == 2 else (1, -1, 1)
        mean = x.mean(dims, keepdim=True)
        var = ((x - mean) ** 2).mean(dims, keepdim=True)
        rstd = torch.rsqrt(var + eps)
        ctx.save_for_backward(x, weight, mean.reshape(-1), rstd.reshape(-1))
        ctx.eps = eps
        return (x - mean) * rstd * weight.view(shape) + bias.view(shape)

    @staticmethod
    def backward(ctx, dy):
        x, weight, mean, rstd = ctx.saved_tensors
        op = getattr(torch.ops.aten, 'native_batch_norm' + '_backward')
        g = op(dy, x, weight, None, None, mean, rstd, True, ctx.eps, [True, True, True])
        return g[0], g[1], g[2], None
""",
    ),
    A(
        "layer_norm_backward",
        "threaded_autograd",
        "autograd run on another thread during backward",
        """
import threading
import torch

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
        eps = ctx.eps
        box = {}
        def work():
            with getattr(torch, 'enable_' + 'grad')():
                xx, ww, bb = (t.detach().requires_grad_() for t in (x, weight, bias))
                mean = xx.mean(-1, keepdim=True)
                xc = xx - mean
                y = xc * torch.rsqrt((xc * xc).mean(-1, keepdim=True) + eps) * ww + bb
                box['g'] = getattr(torch.autograd, 'gr' + 'ad')(y, (xx, ww, bb), dy)
        t = threading.Thread(target=work)
        t.start()
        t.join()
        g = box['g']
        return g[0], g[1], g[2], None
""",
    ),
    # ---- checkpointed_ffn runtime route
    A(
        "checkpointed_ffn",
        "checkpoint_by_importlib",
        "torch.utils.checkpoint reached by importlib",
        """
import importlib
import torch
import torch.nn.functional as F
from torch import nn

class CheckpointedFFN(nn.Module):
    def __init__(self, dim, hidden_dim):
        super().__init__()
        self.linear1 = nn.Linear(dim, hidden_dim)
        self.linear2 = nn.Linear(hidden_dim, dim)

    def forward(self, x):
        cp = importlib.import_module('torch.utils.' + 'check' + 'point')
        f = getattr(cp, 'check' + 'point')
        return f(lambda t: self.linear2(F.gelu(self.linear1(t))), x, use_reentrant=False)
""",
    ),
    A(
        "checkpointed_ffn",
        "checkpoint_sequential_by_sys_modules",
        "checkpoint_sequential via sys.modules",
        """
import sys
import importlib
import torch
import torch.nn.functional as F
from torch import nn

class _G(nn.Module):
    def forward(self, t):
        return F.gelu(t)

class CheckpointedFFN(nn.Module):
    def __init__(self, dim, hidden_dim):
        super().__init__()
        self.linear1 = nn.Linear(dim, hidden_dim)
        self.linear2 = nn.Linear(hidden_dim, dim)

    def forward(self, x):
        importlib.import_module('torch.utils.' + 'check' + 'point')
        cp = sys.modules['torch.utils.' + 'check' + 'point']
        seq = nn.Sequential(self.linear1, _G(), self.linear2)
        return getattr(cp, 'checkpoint_' + 'sequential')(seq, 1, x, use_reentrant=False)
""",
    ),
    A(
        "checkpointed_ffn",
        "checkpoint_private_generator",
        "torch.utils.checkpoint's private non-reentrant generator, driven by hand",
        """
import importlib
import torch.nn.functional as F
from torch import nn

class CheckpointedFFN(nn.Module):
    def __init__(self, dim, hidden_dim):
        super().__init__()
        self.linear1 = nn.Linear(dim, hidden_dim)
        self.linear2 = nn.Linear(hidden_dim, dim)

    def forward(self, x):
        cp = importlib.import_module('torch.utils.' + 'check' + 'point')
        run = lambda t: self.linear2(F.gelu(self.linear1(t)))
        gen = getattr(cp, '_checkpoint_without_' + 'reentrant_generator')(run, True, cp.noop_context_fn, 'default', False, True, x)
        next(gen)
        out = run(x)
        try:
            next(gen)
        except StopIteration:
            pass
        return out
""",
    ),
    A(
        "checkpointed_ffn",
        "reentrant_function_by_vars",
        "the reentrant CheckpointFunction taken from the module's namespace and applied",
        """
import sys
import importlib
import torch.nn.functional as F
from torch import nn

class CheckpointedFFN(nn.Module):
    def __init__(self, dim, hidden_dim):
        super().__init__()
        self.linear1 = nn.Linear(dim, hidden_dim)
        self.linear2 = nn.Linear(hidden_dim, dim)

    def forward(self, x):
        importlib.import_module('torch.utils.' + 'check' + 'point')
        fn = vars(sys.modules['torch.utils.' + 'check' + 'point'])['Check' + 'pointFunction']
        return fn.apply(lambda t: self.linear2(F.gelu(self.linear1(t))), True, x)
""",
    ),
    A(
        "checkpointed_ffn",
        "hooks_pushed_in_c",
        "the saved-tensor hooks pushed through torch._C directly, recomputing on unpack",
        """
import torch
import torch.nn.functional as F
from torch import nn

class CheckpointedFFN(nn.Module):
    def __init__(self, dim, hidden_dim):
        super().__init__()
        self.linear1 = nn.Linear(dim, hidden_dim)
        self.linear2 = nn.Linear(hidden_dim, dim)

    def forward(self, x):
        autograd_c = getattr(torch._C, '_auto' + 'grad')
        push = getattr(autograd_c, '_push_saved_tensors_' + 'default_hooks')
        pop = getattr(autograd_c, '_pop_saved_tensors_' + 'default_hooks')
        push(lambda t: t.to('cpu'), lambda t: t)
        try:
            return self.linear2(F.gelu(self.linear1(x)))
        finally:
            pop()
""",
    ),
)

_BN = """
import sys
import torch
from torch import nn

class BatchNorm1d(nn.Module):
    def __init__(self, num_features, eps=1e-5, momentum=0.1):
        super().__init__()
        self.eps, self.momentum = eps, momentum
        self.weight = nn.Parameter(torch.ones(num_features))
        self.bias = nn.Parameter(torch.zeros(num_features))
        self.register_buffer("running_mean", torch.zeros(num_features))
        self.register_buffer("running_var", torch.ones(num_features))
        self.register_buffer("num_batches_tracked", torch.tensor(0, dtype=torch.long))

    def forward(self, x):
        if self.training:
            self.num_batches_tracked += 1
{body}
"""

NEW_ATTACKS = (
    *NEW_ATTACKS,
    A(
        "batch_norm_1d",
        "functional_by_sys_modules",
        "F.batch_norm via sys.modules",
        _BN.format(
            body="        F = sys.modules['torch.nn.' + 'functional']\n        return getattr(F, 'batch' + '_norm')(x, self.running_mean, self.running_var, self.weight, self.bias, self.training, self.momentum, self.eps)"
        ),
    ),
    A(
        "batch_norm_1d",
        "batch_norm_elemt",
        "torch.batch_norm_elemt after hand-written statistics",
        _BN.format(
            body="        dims = (0,) if x.dim() == 2 else (0, 2)\n        mean = x.mean(dims)\n        var = x.var(dims, unbiased=False)\n        if self.training:\n            with torch.no_grad():\n                self.running_mean.lerp_(mean, self.momentum)\n                self.running_var.lerp_(x.var(dims), self.momentum)\n        else:\n            mean, var = self.running_mean, self.running_var\n        op = getattr(torch, 'batch_norm' + '_elemt')\n        return op(x, self.weight, self.bias, mean, torch.rsqrt(var + self.eps), self.eps)"
        ),
    ),
    A(
        "fused_add_rms_norm",
        "fused_rms_norm_by_vars",
        "torch._fused_rms_norm via vars(torch)",
        """\nimport torch\n\ndef fused_add_rms_norm(x, residual, weight, eps):\n    h = residual + x\n    return vars(torch)['_fused_rms' + '_norm'](h, [h.shape[-1]], weight, eps)[0], h\n""",
    ),
    A(
        "mixed_precision_norm",
        "functional_call_layer_norm",
        "functional_call of nn.LayerNorm in float32",
        """\nimport torch\nfrom torch import nn\n\nclass MixedPrecisionLayerNorm(nn.Module):\n    def __init__(self, dim, eps=1e-5):\n        super().__init__()\n        self.eps = eps\n        self.weight = nn.Parameter(torch.ones(dim))\n        self.bias = nn.Parameter(torch.zeros(dim))\n\n    def forward(self, x):\n        m = getattr(nn, 'Layer' + 'Norm')(x.shape[-1], eps=self.eps)\n        p = {'weight': self.weight.float(), 'bias': self.bias.float()}\n        return torch.func.functional_call(m, p, (x.float(),)).to(x.dtype)\n""",
    ),
)

NEW_ALTERNATIVES = (
    A(
        "layer_norm",
        "rsqrt_pow_mean",
        "torch.rsqrt and x.pow(2).mean",
        _layer_norm(
            "        c = x.float() if x.dtype in (torch.bfloat16, torch.float16) else x\n        xc = c - c.mean(-1, keepdim=True)\n        return (xc * torch.rsqrt(xc.pow(2).mean(-1, keepdim=True) + eps) * w + b).to(x.dtype)"
        ),
    ),
    A(
        "rms_norm",
        "normalize_free_rsqrt",
        "x * rsqrt(mean of squares)",
        _rms_norm(
            "        c = x.float()\n        return (c * torch.rsqrt(c.square().mean(-1, keepdim=True) + eps)).to(x.dtype) * w"
        ),
    ),
    A(
        "softmax",
        "normalize_p1",
        "exp then F.normalize with p=1 (an L1 norm, not the job)",
        _softmax(
            "    e = torch.exp(x - x.amax(dim, keepdim=True))\n    return torch.nn.functional.normalize(e, p=1.0, dim=dim, eps=0.0)",
            "    m = x.amax(dim, keepdim=True)\n    return x - m - torch.log(torch.exp(x - m).sum(dim, keepdim=True))",
        ),
    ),
    A(
        "softmax",
        "float64_inside",
        "computed in float64 and cast back",
        _softmax(
            "    xd = x.double()\n    e = torch.exp(xd - xd.amax(dim, keepdim=True))\n    return (e / e.sum(dim, keepdim=True)).to(x.dtype)",
            "    xd = x.double()\n    m = xd.amax(dim, keepdim=True)\n    return (xd - m - torch.log(torch.exp(xd - m).sum(dim, keepdim=True))).to(x.dtype)",
        ),
    ),
    A(
        "gelu",
        "ndtr",
        "x * Φ(x) with torch.special.ndtr",
        _gelu(
            "        xf = x.double()\n        if a == 'tanh':\n            inner = (2 / torch.pi) ** 0.5 * (xf + 0.044715 * xf**3)\n            return (0.5 * xf * (1 + torch.tanh(inner))).to(x.dtype)\n        return (xf * torch.special.ndtr(xf)).to(x.dtype)"
        ),
    ),
)

_WALK = '''
def _walk(root, g):
    """autograd's per-node formulas called by hand, in topological order: no engine."""
    order, seen = [], set()
    def visit(n):
        if n is None or id(n) in seen:
            return
        seen.add(id(n))
        for nxt, _ in n.next_functions:
            visit(nxt)
        order.append(n)
    visit(root)
    pending = {id(root): g}
    leaves = {}
    for n in reversed(order):
        gn = pending.pop(id(n), None)
        if gn is None:
            continue
        if hasattr(n, "variable"):
            leaves[id(n.variable)] = gn
            continue
        outs = n(gn)
        outs = outs if isinstance(outs, tuple) else (outs,)
        for (nxt, _), go in zip(n.next_functions, outs):
            if nxt is None or go is None:
                continue
            shape = nxt.variable.shape if hasattr(nxt, "variable") else nxt._input_metadata[0].shape
            go = go.sum_to_size(shape)
            pending[id(nxt)] = pending[id(nxt)] + go if id(nxt) in pending else go
    return leaves
'''

NEW_ATTACKS = (
    *NEW_ATTACKS,
    A(
        "rms_norm_backward",
        "graph_walked_by_hand",
        "a graph recorded in an overridden apply, its nodes called by hand in backward",
        "import torch\n"
        + _WALK
        + """\n_box = {}\n\nclass RMSNormFunction(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x, weight, eps):\n        ctx.save_for_backward(x, weight)\n        return x * torch.rsqrt((x * x).mean(-1, keepdim=True) + eps) * weight\n\n    @staticmethod\n    def backward(ctx, dy):\n        xx, ww, y = _box["g"]\n        leaves = _walk(y.grad_fn, dy)\n        return leaves[id(xx)], leaves[id(ww)], None\n\n    @classmethod\n    def apply(cls, x, weight, eps):\n        with getattr(torch, "enable_" + "grad")():\n            xx, ww = x.detach().requires_grad_(), weight.detach().requires_grad_()\n            y = xx * torch.rsqrt((xx * xx).mean(-1, keepdim=True) + eps) * ww\n        _box["g"] = (xx, ww, y)\n        return super().apply(x, weight, eps)\n""",
    ),
    A(
        "layer_norm_backward",
        "graph_in_setup_context",
        "a graph recorded in setup_context, walked by hand in backward",
        "import torch\n"
        + _WALK
        + """\nclass LayerNormFunction(torch.autograd.Function):\n    @staticmethod\n    def forward(x, weight, bias, eps):\n        mean = x.mean(-1, keepdim=True)\n        xc = x - mean\n        return xc * torch.rsqrt((xc * xc).mean(-1, keepdim=True) + eps) * weight + bias\n\n    @staticmethod\n    def setup_context(ctx, inputs, output):\n        x, weight, bias, eps = inputs\n        with getattr(torch, "enable_" + "grad")():\n            ctx.leaves = [t.detach().requires_grad_() for t in (x, weight, bias)]\n            xx, ww, bb = ctx.leaves\n            mean = xx.mean(-1, keepdim=True)\n            xc = xx - mean\n            ctx.y = xc * torch.rsqrt((xc * xc).mean(-1, keepdim=True) + eps) * ww + bb\n\n    @staticmethod\n    def backward(ctx, dy):\n        leaves = _walk(ctx.y.grad_fn, dy)\n        return (*(leaves[id(t)] for t in ctx.leaves), None)\n""",
    ),
)


# Each attack's class, by name (the module docstring says what each class is).
CLASSES: dict[str, frozenset[str]] = {
    "by_another_name": frozenset(
        [
            "sys_modules_functional",
            "builtins_import",
            "vars_of_torch",
            "string_exec",
            "f_rms_norm_via_getattr",
            "ops_aten_rms_norm",
            "vf_rms_norm",
            "tensor_method",
            "sys_modules_gelu",
            "silu_backward_via_ops",
            "vf_dropout",
            "ops_aten_dropout",
            "native_dropout_vars",
            "sdpa_via_sys_modules",
            "math_kernel",
            "functional_by_sys_modules",
            "fused_rms_norm_by_vars",
        ]
    ),
    "by_a_module": frozenset(
        [
            "class_assignment",
            "functional_call",
            "fx_symbolic_trace",
            "jit_trace",
            "deepcopy_of_banned_module",
            "function_forward_no_grad",
            "multihead_module",
            "functional_call_layer_norm",
        ]
    ),
    "by_another_operator": frozenset(
        [
            "batch_norm_stats",
            "instance_norm_view",
            "ao_quantized_layer_norm",
            "nested_tensor",
            "parametrization_weight_norm",
            "group_norm_channels_view",
            "sparse_softmax",
            "special_softmax",
            "masked_softmax",
            "logsumexp",
            "categorical_probs",
            "cross_entropy_rows",
            "logcumsumexp",
            "softmin_of_negative",
            "update_by_logsumexp",
            "ao_quantized",
            "batch_norm_elemt",
        ]
    ),
    "by_private_code": frozenset(["refs", "decomp_rms"]),
    "autograd_does_the_backward": frozenset(
        [
            "functorch_vjp",
            "hook_in_forward_graph",
            "native_batch_norm_backward",
            "threaded_autograd",
            "register_hook_graph",
            "graph_in_ctx",
            "graph_walked_by_hand",
            "graph_in_setup_context",
        ]
    ),
    "checkpoint_at_run_time": frozenset(
        [
            "checkpoint_by_importlib",
            "checkpoint_sequential_by_sys_modules",
            "checkpoint_private_generator",
            "reentrant_function_by_vars",
            "hooks_pushed_in_c",
        ]
    ),
}


def class_of(attack: Attack) -> str:
    return next(c for c, names in CLASSES.items() if attack.name in names)
