"""What a solution may compute with: each exercise's positive list of elementary ATen operations,
enforced on everything the learner's code dispatches, however it was reached.

Ban lists name operators, and torch has many operators for one job (a group norm over a
reshaped view *is* a layer norm; ``_native_batch_norm_legit`` is ``batch_norm``; a fused
kernel of a bigger block contains the answer). So an exercise that asks for an implementation
states instead what an implementation is made of: families of elementary operations
(arithmetic, elementwise math, reductions, shape and indexing, creation, matmul). Anything
else that reaches the dispatcher while the learner's code runs is refused, and the verdict
names it.

The guard is a ``TorchDispatchMode``: it sits below autograd and every Python or C++ route
(``torch.ops``, ``torch._C``, scripting, ``torch.library`` custom ops, tensor subclasses, other
backends' tensors) ends in the dispatcher, where it sees the operation by its ATen name, in
every variant (functional, in-place, ``out=``). Composite operators decompose before it sees
them (``F.rms_norm`` arrives as ``pow``, ``mean``, ``rsqrt``), which is why the function-mode
tripwire (``tripwire.py``) still matches banned names at the Python level, and why the
dispatcher-level backstop (``tripwire.block_kernels``) removes each exercise's denied families
for good: the mode is Python, within the learner's reach; the backstop is not.

The same mode checks a hand-written backward structurally: while the learner's custom
``Function`` runs (forward or backward), grad mode must stay off and the autograd engine must
not be entered; forward-mode AD's operations are not on any list.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from api.grading.phrase import Phrase


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Each family by ATen base name: a name admits its in-place form (``add_``) and every overload
# (``add.out``, ``add.Scalar``). Names are checked against this torch by a test, so a typo
# cannot silently admit nothing.
FAMILIES: dict[str, frozenset[str]] = {
    "arithmetic": _names(
        """add sub rsub mul div neg negative reciprocal pow square abs absolute sign sgn
        true_divide floor_divide remainder fmod addcmul addcdiv lerp clamp clamp_min clamp_max
        clip maximum minimum fmax fmin where masked_fill lt le gt ge eq ne less less_equal
        greater greater_equal not_equal logical_and logical_or logical_not logical_xor
        bitwise_and bitwise_or bitwise_not bitwise_xor __and__ __or__ __xor__ __iand__ __ior__
        __ixor__ isnan isinf isfinite isneginf isposinf isclose allclose nan_to_num round floor
        ceil trunc frac copysign signbit heaviside scalar_tensor _local_scalar_dense item
        _is_all_true _is_any_true equal is_nonzero is_same_size promote_types result_type
        can_cast float_power sum_to_size"""
    ),
    "elementwise": _names(
        """sqrt rsqrt exp exp2 expm1 log log2 log10 log1p sin cos tan tanh sigmoid erf erfc
        erfinv asin acos atan atan2 arctan sinh cosh asinh acosh atanh xlogy hypot logit
        special_erf special_erfc special_expit special_ndtr special_log1p special_expm1
        special_exp2"""
    ),
    "reductions": _names(
        """sum mean var std var_mean std_mean amax amin max min aminmax prod cumsum cumprod
        cummax cummin argmax argmin all any count_nonzero nansum nanmean linalg_vector_norm
        linalg_norm linalg_matrix_norm norm frobenius_norm sort argsort topk median nanmedian
        kthvalue mode msort"""
    ),
    "shape": _names(
        """view reshape _unsafe_view _reshape_alias view_as expand expand_as broadcast_to
        broadcast_tensors squeeze unsqueeze permute transpose t swapaxes swapdims movedim
        moveaxis contiguous clone flatten unflatten split split_with_sizes tensor_split chunk
        unsafe_split unsafe_chunk cat concat concatenate stack hstack vstack select slice
        narrow index index_select gather scatter scatter_add scatter_reduce index_put
        _index_put_impl index_add index_copy index_fill masked_scatter masked_select take
        take_along_dim as_strided alias detach copy _to_copy _copy_from _copy_from_and_resize
        to type_as repeat repeat_interleave tile flip fliplr flipud roll unbind diagonal diag
        diag_embed tril triu nonzero argwhere _unsafe_index unfold constant_pad_nd pad
        select_scatter slice_scatter diagonal_scatter lift_fresh lift_fresh_copy resize
        resize_as set fill zero _has_compatible_shallow_copy_type conj resolve_conj resolve_neg
        _conj _neg_view alias_copy view_copy expand_copy permute_copy transpose_copy t_copy
        squeeze_copy unsqueeze_copy select_copy slice_copy split_copy unbind_copy
        detach_copy diagonal_copy"""
    ),
    "creation": _names(
        """empty empty_like empty_strided new_empty new_empty_strided new_zeros new_ones
        new_full zeros zeros_like ones ones_like full full_like arange linspace
        logspace eye tensor scalar_tensor _efficientzerotensor"""
    ),
    # What nn.init and a learner's own initialisation draw with; the grader's cases load
    # their own parameters afterwards wherever outputs are compared.
    "random": _names(
        """uniform normal bernoulli rand randn rand_like randn_like randint randint_like
        randperm random exponential geometric cauchy log_normal multinomial normal_functional"""
    ),
    # Matrix products: an einsum or a hand-written contraction decomposes into these.
    "matmul": _names(
        """mm bmm matmul addmm addbmm baddbmm addmv addr mv dot vdot outer ger inner linear
        einsum tensordot _unsafe_view"""
    ),
    # The activations an FFN's contract composes (its exercise is the FFN, not the activation).
    "activations": _names(
        """relu relu6 gelu silu glu hardtanh leaky_relu elu selu celu softplus mish threshold
        hardswish hardsigmoid threshold_backward gelu_backward silu_backward glu_backward
        native_dropout dropout feature_dropout alpha_dropout"""
    ),
}

# Every exercise with an allow-list admits at least these.
ELEMENTARY = ("arithmetic", "elementwise", "reductions", "shape", "creation", "random", "matmul")

# Attention's built-ins and every route to them, for the exercises that ask for attention
# (scaled_dot_product_attention, multi_head_attention): the functional form, its private and
# fused entry points, and the modules built on it. The quantizable MultiheadAttention runs only
# allowed operations (matmuls, a softmax), so its class is replaced in the child
# (``stand_ins``); its other import paths are listed for the static check.
ATTENTION_BUILTINS = (
    "torch.nn.functional.scaled_dot_product_attention",
    "torch._C._nn.scaled_dot_product_attention",
    "aten.scaled_dot_product_attention",
    "aten._scaled_dot_product_attention_math",
    "aten._scaled_dot_product_attention_math_for_mps",
    "aten._scaled_dot_product_flash_attention",
    "aten._scaled_dot_product_flash_attention_for_cpu",
    "aten._scaled_dot_product_efficient_attention",
    "aten._scaled_dot_product_cudnn_attention",
    "aten._scaled_dot_product_fused_attention_overrideable",
    "aten._fused_sdp_choice",
    "aten._flash_attention_forward",
    "aten._efficient_attention_forward",
    "torch.nn.MultiheadAttention",
    "torch.nn.functional.multi_head_attention_forward",
    "torch.nn.Transformer",
    "torch.nn.TransformerEncoderLayer",
    "torch.nn.TransformerDecoderLayer",
    # The ONNX Attention-23 operator torch ships as a custom op: with a softmax precision set its
    # eager kernel is a Python matmul-softmax-matmul, so no ATen name above would catch it.
    "torch.onnx.ops.attention",
    "torch.onnx.ops._impl.attention_23",
    "torch.ops.onnx.Attention",
    "onnx.Attention",
)
QUANTIZABLE_ATTENTION = (
    "torch.ao.nn.quantizable.MultiheadAttention",
    "torch.ao.nn.quantizable.modules.MultiheadAttention",
    "torch.ao.nn.quantizable.modules.activation.MultiheadAttention",
    "torch.nn.quantizable.MultiheadAttention",
    "torch.nn.quantizable.modules.activation.MultiheadAttention",
)

# The names a verdict uses for what to do instead, by the kind of operation refused.
_BY_HAND = Phrase("write the gradient with tensor operations", "请用张量运算写出梯度")
_INSTEAD = (
    (
        ("norm",),
        Phrase(
            "compute the statistics with reductions (x.mean, x.var or sums) and normalise",
            "请用归约（x.mean、x.var 或求和）算出统计量，再自己做归一化",
        ),
    ),
    (
        ("softmax", "logsumexp"),
        Phrase(
            "subtract the row's max, exponentiate and divide by the sum",
            "请减去该行最大值，取指数，再除以总和",
        ),
    ),
    (
        ("gelu",),
        Phrase(
            "write x * Φ(x) with torch.erf (or the tanh formula)",
            "请用 torch.erf（或 tanh 公式）写出 x * Φ(x)",
        ),
    ),
    (("silu", "swish"), Phrase("write x * torch.sigmoid(x)", "请写成 x * torch.sigmoid(x)")),
    (("_make_dual", "_unpack_dual", "_fw_primal"), _BY_HAND),
    (("backward",), _BY_HAND),
    (
        ("attention",),
        Phrase("write the matmuls and the softmax yourself", "请自己写出矩阵乘法和 softmax"),
    ),
    (
        ("subclass::",),
        Phrase(
            "compute on plain tensors, without a __torch_dispatch__ of your own",
            "请在普通张量上计算，不要自定义 __torch_dispatch__",
        ),
    ),
)
_ELEMENTARY_OPS = Phrase("use elementary tensor operations", "请改用基本的张量运算")
ELEMENTARY_WORDS = (
    "arithmetic, elementwise math, reductions, shape and indexing operations, creation, "
    "random draws and matrix products"
)
ELEMENTARY_WORDS_ZH = "算术、逐元素数学函数、归约、形状与索引操作、张量创建、随机采样和矩阵乘法"
ELEMENTARY_SAID = Phrase(ELEMENTARY_WORDS, ELEMENTARY_WORDS_ZH)


def base_name(packet: str) -> str:
    """``add_`` -> ``add``; dunder names (``__and__``) and private names keep theirs."""
    if packet.endswith("_") and not packet.endswith("__"):
        return packet[:-1]
    return packet


def resolve(entries: Iterable[str]) -> frozenset[str]:
    """Every base name that ``entries`` admit: each a family of ``FAMILIES`` or one ATen base
    name (an exercise's own extra, such as ``native_layer_norm`` where its contract composes
    ``nn.LayerNorm``)."""
    names: set[str] = set()
    for entry in entries:
        names |= FAMILIES.get(entry, frozenset((entry,)))
    return frozenset(names)


# The operators that do a whole block's job, by name, across their variants and private entry
# points (``native_``, ``_native_..._legit``, ``_fused_``, ``special_``, sparse and nested
# forms) and the fused kernels of bigger blocks that contain one (attention, a transformer
# layer). ``normal`` (the random draw) is not a norm.
WHOLE_JOBS = re.compile(
    r"norm(?!al)|softmax|logsumexp|gelu|silu|attention|_transformer|multi_head|_fused_rms"
    r"|_fused_dropout|_fused_sdp|_activation"
)
# A kernel under one of these keys serves a call on this machine; an operator with none of
# them (CUDA-, MPS- or cuDNN-only) cannot run here, and registering over it would only cost.
_HERE = (
    "CPU",
    "CompositeImplicitAutograd",
    "CompositeExplicitAutograd",
    "CompositeExplicitAutogradNonFunctional",
    "SparseCPU",
    "SparseCsrCPU",
    "NestedTensorCPU",
    "MkldnnCPU",
    "QuantizedCPU",
)


def _overloads() -> dict[str, list[str]]:
    """Packet name -> the qualified names of its overloads, for every ATen operator."""
    found: dict[str, list[str]] = {}
    for qualified in torch._C._dispatch_get_all_op_names():
        if qualified.startswith("aten::"):
            found.setdefault(qualified[6:].split(".", 1)[0], []).append(qualified)
    return found


_denied: dict[frozenset[str], list[str]] = {}


def denied_ops(allowed: frozenset[str]) -> list[str]:
    """The ATen operators (packet names) that the dispatcher-level backstop removes for an
    exercise admitting ``allowed``: every whole-job operator it does not admit that can run
    on this machine. Memoised: the zygote works each exercise's out once, before it forks."""
    if allowed not in _denied:
        _denied[allowed] = _whole_jobs_outside(allowed)
    return _denied[allowed]


# Backward kernels of an elementwise activation take the input alone (``gelu_backward(g, x)``
# is Φ(x) + xφ(x)): with every Python layer off, one could be turned back into the activation,
# so they stay blocked everywhere.
_ELEMENTWISE_BACKWARDS = re.compile(r"gelu|silu")


def is_backward_kernel(op: str) -> bool:
    """An operator that computes a gradient from the forward's own statistics or output
    (``native_layer_norm_backward`` takes mean and rstd, ``_softmax_backward_data`` the
    softmax): it yields a derivative, never the forward's result."""
    return "backward" in op and not _ELEMENTWISE_BACKWARDS.search(op)


def backstop(
    banned: Sequence[str], allowed: frozenset[str] | None, *, backward_job: bool = True
) -> list[str]:
    """What the child's tripwire blocks at the dispatcher (``tripwire.guard``): the banned
    names, and with an allow-list (resolved) every whole-job operator outside it, as
    ``aten.<name>``. The parent names the same lists to the zygote, which prepares them.

    ``backward_job`` False (an exercise whose job is a forward): the whole-job backward
    kernels are left out. None of them computes a forward's result (each needs the forward's
    statistics or output first), the allow-list still refuses them wherever the learner's code
    calls them, and autograd's backward of an admitted operation may need them (attention's
    softmax backward). Each child registers ~90 kernels fewer (373 -> 284 for ELEMENTARY)."""
    names = list(banned)
    if allowed is None:
        return names
    # A banned name's siblings (in-place, out=, private, composite aliases), unless admitted.
    kin = [
        f"aten.{op}"
        for op in families(names)
        if base_name(op) not in allowed
        and op not in allowed
        and f"aten.{op}" not in names
        and (backward_job or not is_backward_kernel(op) or f"aten.{op}" in names)
    ]
    names = kin + names
    # The extras first: where one resolves to the same callable as a banned name, the banned
    # name (listed later) is the one the function-mode tripwire records and the verdict shows.
    return [
        f"aten.{op}"
        for op in denied_ops(allowed)
        if f"aten.{op}" not in names and (backward_job or not is_backward_kernel(op))
    ] + names


def spec_backstop(
    banned: Sequence[str], entries: Sequence[str] | None, kind: str = "autograd_function"
) -> list[str]:
    """``backstop`` for a spec's ``banned``, ``allowed`` entries and ``kind`` (only a
    hand-written backward's exercise blocks the whole-job backward kernels)."""
    resolved = None if entries is None else resolve(entries)
    return backstop(banned, resolved, backward_job=kind == "autograd_function")


# Operators that compute nothing from a tensor's values (metadata, bookkeeping, assertions):
# left to run below Python, where the harness and autograd use them.
_BOOKKEEPING = re.compile(
    r"size|stride|numel|^dim$|_dim|^is_|_is_|^sym_|_version|output_nr|requires_grad|retain"
    r"|^data$|set_data|_assert|assert_|_print|_make_dep_token|^lift|storage_offset|_nnz"
    r"|indices|values|_has_same|_new_zeros_with_same_feature_meta|get_device|qscheme|^q_"
    r"|_propagate_xla|_debug_|constrain_range|_shape_as_tensor|_backward$|^_fw_primal"
)
# The keys under which a kernel computes on this machine (backends and composite kernels, and
# the decompositions vmap registers): a kernel anywhere else redispatches to one of them.
_COMPUTING = (
    "CPU",
    "CompositeExplicitAutograd",
    "CompositeExplicitAutogradNonFunctional",
    "SparseCPU",
    "SparseCsrCPU",
    "NestedTensorCPU",
    "QuantizedCPU",
    "MkldnnCPU",
)


def _whole_jobs_outside(allowed: frozenset[str]) -> list[str]:
    """Every operator outside ``allowed`` whose kernel computes below Python on this machine
    (the whole-job ones by name, composite or not; any other one that does not decompose
    into checked operations first): the allow-list itself, enforced where no switch of
    Python dispatch reaches. Backward kernels and bookkeeping stay (autograd and the harness
    run them); ``backstop`` decides about the whole-job backward kernels."""
    has = torch._C._dispatch_has_kernel_for_dispatch_key
    found = []
    for packet, qualified in sorted(_overloads().items()):
        if base_name(packet) in allowed or packet in allowed:
            continue
        if WHOLE_JOBS.search(packet):
            if any(has(q, key) for q in qualified for key in _HERE):
                found.append(packet)
            continue
        if "backward" in packet or _BOOKKEEPING.search(packet):
            continue
        if any(has(q, key) for q in qualified for key in _COMPUTING):
            found.append(packet)
    return found


def families(banned: Sequence[str]) -> list[str]:
    """The ATen operators of a banned name's family, by their name's words (``dropout``:
    ``dropout_``, ``native_dropout``, ``feature_alpha_dropout_``...; ``softmax``:
    ``_softmax``, ``special_softmax``, ``_safe_softmax``...): in-place, ``out=``, private and
    alias siblings, whichever key serves them (a composite sibling decomposes into admitted
    operations before any check sees it)."""
    bases = {b.rsplit(".", 1)[-1] for b in banned if b.startswith(("aten.", "torch."))}
    bases = {b for b in bases if b != "backward" and _exists(b)}  # not autograd.backward
    words = [tuple(w for w in b.split("_") if w) for b in bases if b and not b[0].isupper()]
    words = [w for w in words if w]
    found = []
    for packet in sorted(_overloads()):
        own = tuple(w for w in packet.split("_") if w)
        for w in words:
            if any(own[i : i + len(w)] == w for i in range(len(own) - len(w) + 1)):
                found.append(packet)
                break
    return found


def names_unknown(entries: Sequence[str]) -> list[str]:
    """Entries that are neither a family nor an ATen operator of this torch (for the specs'
    test: a typo would admit nothing, silently)."""
    unknown = []
    for entry in entries:
        names = FAMILIES.get(entry, frozenset((entry,)))
        for name in names:
            if not any(_exists(n) for n in (name, name + "_")):
                unknown.append(name)
    return unknown


def _exists(name: str) -> bool:
    try:
        getattr(torch.ops.aten, name)
    except (AttributeError, RuntimeError):
        return False
    return True


def instead(op: str) -> Phrase:
    """What to use instead of the refused ``op`` (an ATen name, or ``subclass::<name>``), in
    the verdict's words."""
    for needles, advice in _INSTEAD:
        if any(n in op for n in needles):
            return advice
    return _ELEMENTARY_OPS


def refusal(qualified: str) -> str:
    """The exception a refused operation raises in the child, in the verdict's words."""
    name = qualified.split("::", 1)[-1]
    return (
        f"{qualified} is not available in this exercise: a solution is built from "
        f"{ELEMENTARY_WORDS}. Instead, {instead(name).en}."
    )


# Why a hand-written backward was refused (the child reports the keys; the verdict words them).
STRUCTURAL = {
    "grad_mode": Phrase("switched grad mode on", "打开了 grad mode"),
    "engine": Phrase(
        "ran the autograd engine (torch.autograd.grad, .backward(), torch.func)",
        "运行了 autograd 引擎（torch.autograd.grad、.backward()、torch.func）",
    ),
    "forward_ad": Phrase("used forward-mode AD", "使用了前向模式自动微分（forward-mode AD）"),
    "graph": Phrase(
        "walked an autograd graph recorded elsewhere (in apply, setup_context or a helper)",
        "遍历了在别处（apply、setup_context 或辅助函数里）记录的 autograd 计算图",
    ),
}
MAX_REPORTED = 8


def _dispatches_itself(cls: Any) -> bool:
    """A tensor subclass that defines ``__torch_dispatch__`` (``nn.Parameter`` does not)."""
    mro = getattr(cls, "__mro__", ())
    return any(
        "__torch_dispatch__" in vars(c) for c in mro if c not in (torch.Tensor, torch._C.TensorBase)
    )


# The types every operation of plain code carries: known not to dispatch themselves, so the
# hot path is one set lookup (``Guard.__torch_dispatch__`` runs for every operation).
_PLAIN_TYPES = frozenset((torch.Tensor, torch.nn.Parameter))


def _requires_grad(args: Any, kwargs: Any) -> bool:
    """Some tensor among the operation's arguments requires grad (an operation autograd is
    recording, when grad mode is on)."""
    from torch.utils._pytree import tree_flatten

    leaves, _ = tree_flatten((args, kwargs))
    return any(isinstance(a, torch.Tensor) and a.requires_grad for a in leaves)


class Guard(TorchDispatchMode):  # type: ignore[no-untyped-call]
    """Refuses every ATen operation outside ``allowed`` while ``active``, recording its name;
    within ``hand_written`` (a custom Function's forward or backward run by the harness),
    records grad mode switched on or the autograd engine entered. ``allowed`` None: no list,
    only the structural check."""

    def __init__(self, allowed: frozenset[str] | None, *, by_hand_only: bool = False) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self.allowed = allowed
        self.active = True
        self.tampered = False
        self.hand_written = False
        # An exercise whose whole job is a hand-written backward (``autograd_function``): the
        # learner's code may not record an autograd graph anywhere, not only inside forward
        # and backward. A graph recorded in an overridden ``apply``, in ``setup_context`` or a
        # helper, then walked node by node in backward (each node's formula called by hand,
        # no engine entered, grad mode off), is autograd doing the work all the same.
        self.by_hand_only = by_hand_only
        # Set by the harness while the learner's ``Function.apply`` runs (with whatever the
        # learner put around the Function's forward: an overridden ``apply``, ``setup_context``).
        self.in_apply = False
        self.graph_outside = False
        # The learner's own backward ran (set by the harness): a graph recorded around a
        # Function whose backward autograd never runs is the ``backward_not_used`` mistake.
        self.ran_by_hand = False
        self.refused: list[str] = []
        self.structural: list[str] = []
        self._verdicts: dict[Any, bool] = {}
        self._plain: set[Any] = set(_PLAIN_TYPES)

    def _admits(self, func: Any) -> bool:
        known = self._verdicts.get(func)
        if known is None:
            packet = getattr(func, "_overloadpacket", func)
            namespace = getattr(func, "namespace", "aten")
            name = base_name(getattr(packet, "__name__", str(func)))
            known = self.allowed is None or (namespace == "aten" and name in self.allowed)
            self._verdicts[func] = known
        return known

    def _note(self, record: list[str], what: str) -> None:
        if what not in record and len(record) < MAX_REPORTED:
            record.append(what)

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        if self.active:
            if self.hand_written:
                self._check_by_hand()
            elif (
                self.in_apply
                and not self.graph_outside
                and torch.is_grad_enabled()
                and _requires_grad(args, kwargs)
            ):
                self.graph_outside = True
            for t in types:
                if t in self._plain:
                    continue
                if _dispatches_itself(t):
                    # A tensor subclass with a __torch_dispatch__ of its own: what it runs
                    # inside that handler runs with this mode off the stack, out of its sight.
                    kind = getattr(t, "__name__", "subclass")[:40]
                    self._note(self.refused, f"subclass::{kind}")
                    raise RuntimeError(refusal(f"subclass::{kind}"))
                self._plain.add(t)
            if not self._admits(func):
                packet = getattr(func, "_overloadpacket", func)
                namespace = getattr(func, "namespace", "aten")
                name = getattr(packet, "__name__", str(func))[:80]
                self._note(self.refused, f"{namespace}::{name}")
                raise RuntimeError(refusal(f"{namespace}::{name}"))
        return func(*args, **(kwargs or {}))

    def _check_by_hand(self) -> None:
        if torch.is_grad_enabled():
            self._note(self.structural, "grad_mode")
        if torch._C._current_graph_task_id() != -1:
            self._note(self.structural, "engine")
        from torch.autograd import forward_ad

        if getattr(forward_ad, "_current_level", -1) >= 0:
            self._note(self.structural, "forward_ad")

    @contextlib.contextmanager
    def exempt(self) -> Iterator[None]:
        """The grader's own work in the child (autograd's backward of the learner's forward):
        not the learner's code. The modes leave the stack for it, rather than being told to
        let everything through: a mode on the stack costs a Python call per operation."""
        from torch.utils._python_dispatch import _disable_current_modes

        was = self.active
        self.active = False
        try:
            with _disable_current_modes():
                yield
        finally:
            self.active = was

    @contextlib.contextmanager
    def by_hand(self) -> Iterator[None]:
        """The learner's custom Function running, forward or backward."""
        was = self.hand_written
        self.hand_written = True
        try:
            yield
        finally:
            self.hand_written = was

    def findings(self) -> list[str]:
        """What the structural check found, for the child's report: a graph recorded outside
        the Function counts only where the learner's backward ran (an ``apply`` that skips
        the Function is the ``backward_not_used`` mistake, graded as such)."""
        found = list(self.structural)
        if self.graph_outside and self.ran_by_hand and "graph" not in found:
            found.append("graph")
        return found

    def installed(self) -> bool:
        """Still on the dispatch-mode stack, switched on: a submission that took it off, or
        switched it off, is refused for that (``tampered``)."""
        from torch.utils._python_dispatch import _get_current_dispatch_mode_stack

        return self.active and any(m is self for m in _get_current_dispatch_mode_stack())


# The prompts' statement of the policy, in the verdicts' words (``tests/grading/
# test_allowlist.py`` holds every prompt with a list to it, in both languages).
POLICY_HEADING = {"en": "## What your code may run", "zh": "## 代码可以运行什么"}


def policy(entries: Sequence[str], kind: str, lang: str) -> str:
    """The prompt section that says what is refused and why, for a spec's ``allowed``."""
    ffn = "activations" in entries
    if lang == "zh":
        made = ELEMENTARY_WORDS_ZH + ("，以及 FFN 的激活函数和 dropout" if ffn else "")
        text = (
            f"{POLICY_HEADING['zh']}\n\n"
            f"答案只能由{made}构成。代码运行的任何其他运算，不管通过什么途径（起别名、`getattr`、"
            "`torch.ops`、`torch._C`、脚本化、自定义算子、张量子类、其他后端的张量），都会被拒绝："
            "判定为 *rejected*，并指出是哪个运算。上面列出的内置函数只要写在代码里就会被拒绝，"
            "即使所在的分支从不执行：面试官读到那一行就会停下来。torch 私有的算子实现"
            "（`torch._refs`、`torch._decomp`、`torch._prims`）同样被拒绝：每道题的答案都在里面。"
        )
        if kind == "autograd_function":
            text += (
                "\n\n在你的 Function 的 forward 和 backward 里，grad mode 保持关闭，也不能进入 "
                "autograd 引擎（不能用 `torch.autograd.grad`、`.backward()`、`torch.func`、"
                "前向模式自动微分）：让 autograd 代劳的 Function 会被判为 *rejected*。"
            )
        return text
    made = ELEMENTARY_WORDS + (", and the FFN's activations and dropout" if ffn else "")
    text = (
        f"{POLICY_HEADING['en']}\n\n"
        f"A solution is built from {made}. Any other operation your code runs, by whatever "
        "route (an alias, `getattr`, `torch.ops`, `torch._C`, scripting, a custom op, a tensor "
        "subclass, another backend's tensor), is refused: the verdict is *rejected* and names "
        "the operation. The built-ins listed above are refused where they are written, even in "
        "a branch that never runs: an interviewer reading the code would stop there. torch's "
        "private operator implementations (`torch._refs`, `torch._decomp`, `torch._prims`) are "
        "refused the same way: they hold every exercise's answer."
    )
    if kind == "autograd_function":
        text += (
            "\n\nInside your Function's forward and backward, grad mode stays off and the "
            "autograd engine is not entered (no `torch.autograd.grad`, `.backward()`, "
            "`torch.func`, forward-mode AD): a Function that has autograd do the work is "
            "*rejected*."
        )
    return text
