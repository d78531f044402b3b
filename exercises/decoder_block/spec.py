"""Grading spec for ``decoder_block``: a whole LLaMA decoder layer,
``h = x + attention(attention_norm(x))``, ``out = h + feed_forward(ffn_norm(h))``, with causal
grouped-query attention and rotary position embeddings on q and k.

The learner writes every part (RMSNorm, attention with RoPE and GQA, SwiGLU) under Meta's
LLaMA names: ``attention_norm``, ``attention`` (``wq``, ``wk``, ``wv``, ``wo``), ``ffn_norm``,
``feed_forward`` (``w1``, ``w2``, ``w3``). The reference, in the trusted parent, is built from
PyTorch's own pieces (``F.rms_norm``, ``F.scaled_dot_product_attention`` with ``enable_gqa``,
``F.silu``); the known mistakes run on a second implementation written with elementary ops,
one step each overridden, so each names the part it breaks.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from api.grading.allowlist import ELEMENTARY
from api.grading.draw import call, described, linear_weight, normal, randint, scenario, update
from api.grading.phrase import EVAL_MODE_NOTE, TRAIN_MODE_NOTE, Phrase, listing, same
from api.grading.spec import Case, ExerciseSpec, InitValue, KnownMistake, Layout, Step

ROPE_BASE = 10000.0
F32, F64 = torch.float32, torch.float64


# --- the reference: PyTorch's own pieces ------------------------------------------------------


def rope_tables(length: int, head_dim: int, dtype: torch.dtype) -> tuple[torch.Tensor, ...]:
    """cos and sin of the rotate-half convention, (length, head_dim): the angle of position p
    and pair i (features i and i + head_dim/2) is p * base^(-2i/head_dim)."""
    inv_freq = ROPE_BASE ** (-torch.arange(0, head_dim, 2, dtype=F64) / head_dim)
    angles = torch.outer(torch.arange(length, dtype=F64), inv_freq)
    angles = torch.cat((angles, angles), dim=-1)
    return angles.cos().to(dtype), angles.sin().to(dtype)


def rotate_half(t: torch.Tensor) -> torch.Tensor:
    half = t.shape[-1] // 2
    return torch.cat((-t[..., half:], t[..., :half]), dim=-1)


def apply_rope(t: torch.Tensor) -> torch.Tensor:
    """RoPE on (batch, heads, length, head_dim), positions 0..length-1."""
    cos, sin = rope_tables(t.shape[-2], t.shape[-1], t.dtype)
    return t * cos + rotate_half(t) * sin


def _lin(layer: nn.Linear, x: torch.Tensor) -> torch.Tensor:
    return F.linear(x, layer.weight)


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.rms_norm(x, (x.shape[-1],), self.weight, self.eps)


class Attention(nn.Module):
    def __init__(self, dim: int, n_heads: int, n_kv_heads: int) -> None:
        super().__init__()
        self.n_heads, self.n_kv_heads = n_heads, n_kv_heads
        self.head_dim = dim // n_heads
        self.wq = nn.Linear(dim, n_heads * self.head_dim, bias=False)
        self.wk = nn.Linear(dim, n_kv_heads * self.head_dim, bias=False)
        self.wv = nn.Linear(dim, n_kv_heads * self.head_dim, bias=False)
        self.wo = nn.Linear(n_heads * self.head_dim, dim, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, length, _ = x.shape
        hd = self.head_dim
        q = _lin(self.wq, x).view(b, length, self.n_heads, hd).transpose(1, 2)
        k = _lin(self.wk, x).view(b, length, self.n_kv_heads, hd).transpose(1, 2)
        v = _lin(self.wv, x).view(b, length, self.n_kv_heads, hd).transpose(1, 2)
        out = F.scaled_dot_product_attention(
            apply_rope(q),
            apply_rope(k),
            v,
            is_causal=True,
            enable_gqa=self.n_heads != self.n_kv_heads,
        )
        return _lin(self.wo, out.transpose(1, 2).reshape(b, length, self.n_heads * hd))


class FeedForward(nn.Module):
    def __init__(self, dim: int, hidden_dim: int) -> None:
        super().__init__()
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _lin(self.w2, F.silu(_lin(self.w1, x)) * _lin(self.w3, x))


class DecoderBlock(nn.Module):
    def __init__(
        self, dim: int, n_heads: int, n_kv_heads: int, hidden_dim: int, eps: float = 1e-6
    ) -> None:
        super().__init__()
        self.attention_norm = RMSNorm(dim, eps)
        self.attention = Attention(dim, n_heads, n_kv_heads)
        self.ffn_norm = RMSNorm(dim, eps)
        self.feed_forward = FeedForward(dim, hidden_dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = x + self.attention(self.attention_norm(x))
        out: torch.Tensor = h + self.feed_forward(self.ffn_norm(h))
        return out


BANNED = (
    # The norms.
    "torch.nn.RMSNorm",
    "torch.nn.functional.rms_norm",
    "torch.rms_norm",
    "torch.nn.LayerNorm",
    "torch.nn.functional.layer_norm",
    "torch.layer_norm",
    # Attention and every route to it (as scaled_dot_product_attention bans them).
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
    "torch.ao.nn.quantizable.MultiheadAttention",
    "torch.nn.Transformer",
    "torch.nn.TransformerEncoder",
    "torch.nn.TransformerDecoder",
    "torch.nn.TransformerEncoderLayer",
    "torch.nn.TransformerDecoderLayer",
)


# --- the cases --------------------------------------------------------------------------------


def make_cases(gen: torch.Generator) -> list[Case]:
    """The first case tells every known mistake apart (grouped-query attention over a few
    tokens, an offset stream and a large eps), so the verdict names one from it; the others
    cover the shapes, dtypes, layouts and head layouts (MHA, GQA, MQA)."""
    cases: list[Case] = []

    def add(
        name: str,
        dtype: torch.dtype,
        batch: int,
        length: int,
        dim: int,
        heads: int,
        kv_heads: int,
        hidden: int,
        *,
        eps: float | None = None,
        scale: float = 1.0,
        offset: float = 0.0,
        wo_scale: float = 1.0,
        modes: tuple[bool, ...] = (True, False),
        backward: bool = True,
        layout: Layout = "contiguous",
        what: Phrase | None = None,
    ) -> None:
        hd = dim // heads
        init: dict[str, InitValue] = {
            "dim": dim,
            "n_heads": heads,
            "n_kv_heads": kv_heads,
            "hidden_dim": hidden,
        }
        if eps is not None:
            init["eps"] = eps
        state = {
            "attention_norm.weight": (1.0 + 0.5 * normal(gen, (dim,), F32)).to(dtype),
            "attention.wq.weight": linear_weight(gen, heads * hd, dim, dtype),
            "attention.wk.weight": linear_weight(gen, kv_heads * hd, dim, dtype),
            "attention.wv.weight": linear_weight(gen, kv_heads * hd, dim, dtype),
            "attention.wo.weight": linear_weight(gen, dim, heads * hd, dtype) * wo_scale,
            "ffn_norm.weight": (1.0 + 0.5 * normal(gen, (dim,), F32)).to(dtype),
            "feed_forward.w1.weight": linear_weight(gen, hidden, dim, dtype),
            "feed_forward.w2.weight": linear_weight(gen, dim, hidden, dtype),
            "feed_forward.w3.weight": linear_weight(gen, hidden, dim, dtype),
        }
        steps: list[Step] = []
        x = normal(gen, (batch, length, dim), dtype)
        for k, train in enumerate(modes):
            if k:
                steps.append(update(gen, state))
            x = normal(gen, (batch, length, dim), dtype, std=scale) + offset
            note = TRAIN_MODE_NOTE if train else EVAL_MODE_NOTE
            steps.append(call(gen, x, backward=backward, train=train, layout=layout, note=note))
        said = [
            listing(same(f"{k}={v!r}") for k, v in init.items()),
            _heads(heads, kv_heads),
            Phrase("random gains and weights", "增益和权重取随机值"),
        ]
        if wo_scale != 1.0:
            said.append(Phrase(f"wo scaled by {wo_scale:g}", f"wo 乘以 {wo_scale:g}"))
        if layout != "contiguous":
            said.append(
                Phrase(f"a non-contiguous ({layout}) input", "输入为转置得到的非连续视图")
                if layout == "transposed"
                else Phrase(f"a non-contiguous ({layout}) input", "输入为跨步切片得到的非连续视图")
            )
        if not backward:
            said.append(
                Phrase("forward only, under torch.no_grad()", "在 torch.no_grad() 下只做前向")
            )
        if len(modes) > 1:
            said.append(Phrase("an update between calls", "两次调用之间更新参数"))
        default = "N(0,1)" if scale == 1.0 else f"{scale:g} * N(0,1)"
        if offset:
            default += f" + {offset:g}"
        words = described(x, what or same(default), *said)
        cases.append(
            scenario(
                name=name,
                description=words.en,
                description_zh=words.zh,
                steps=steps,
                init_kwargs=init,
                state=state,
            )
        )

    # Everything shows here: 3 query heads per kv head (the repeat's order), several tokens
    # (the mask, RoPE, the heads' layout), a stream offset by 2 (a centred norm, before and after
    # the attention) and eps = 0.1 (eps outside the root, in either norm).
    add("gqa_offset_eps_0_1", F64, 2, randint(gen, 6, 8), 48, 6, 2, 72, eps=0.1, offset=2.0)
    # The whole stream tiny, the attention's output too: eps = 1e-6 matters in both norms.
    add("tiny_stream", F64, 2, 5, 32, 4, 2, 40, scale=1e-3, wo_scale=1e-3)
    add("mha_default_eps", F64, 3, randint(gen, 4, 6), 32, 4, 4, 52)
    add("mqa_transposed", F32, 2, randint(gen, 7, 9), 64, 4, 1, 96, layout="transposed")
    add("batch_of_one_odd_sizes", F64, 1, 5, 30, 3, 3, 37)
    add("wide_dim_144_gqa", F32, 2, 6, 144, 12, 4, 200)
    add("sequence_of_one", F64, 3, 1, 24, 2, 1, 40)
    add("long_sequence", F32, 2, randint(gen, 20, 24), 32, 4, 2, 64, modes=(True, True, False))
    add("eps_1e5_small_inputs", F64, 2, 4, 40, 5, 1, 36, eps=1e-5, scale=3e-3, wo_scale=3e-3)
    add("large_stream", F32, 2, 5, 48, 6, 3, 80, scale=30.0)
    add("strided_gqa", F64, 2, 6, 36, 6, 2, 44, layout="strided")
    add("serve_no_grad", F32, 2, 7, 32, 2, 1, 48, modes=(False, False), backward=False)
    return cases


def _heads(heads: int, kv_heads: int) -> Phrase:
    if kv_heads == heads:
        return Phrase("multi-head (MHA)", "多头注意力（MHA）")
    if kv_heads == 1:
        return Phrase("multi-query (MQA)", "多查询注意力（MQA）")
    group = heads // kv_heads
    return Phrase(
        f"grouped-query (GQA, {group} query heads per kv head)",
        f"分组查询注意力（GQA，每个 kv 头对应 {group} 个查询头）",
    )


# --- known mistakes: the layer step by step in elementary ops, one step changed each -----------


class Layer(DecoderBlock):
    """The contract computed step by step; a mistake overrides the step it gets wrong."""

    def norm(self, x: torch.Tensor, which: str) -> torch.Tensor:
        module = self.attention_norm if which == "attention" else self.ffn_norm
        ms = x.pow(2).mean(-1, keepdim=True)
        return x * torch.rsqrt(ms + module.eps) * module.weight

    def split(self, t: torch.Tensor, heads: int) -> torch.Tensor:
        b, length, _ = t.shape
        return t.reshape(b, length, heads, self.attention.head_dim).transpose(1, 2)

    def merge(self, o: torch.Tensor) -> torch.Tensor:
        b, heads, length, hd = o.shape
        return o.transpose(1, 2).reshape(b, length, heads * hd)

    def rope(self, t: torch.Tensor) -> torch.Tensor:
        return apply_rope(t)

    def rotary(
        self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        return self.rope(q), self.rope(k), v

    def repeat_kv(self, t: torch.Tensor) -> torch.Tensor:
        rep = self.attention.n_heads // self.attention.n_kv_heads
        return t.repeat_interleave(rep, dim=1)

    def scale(self) -> float:
        return 1.0 / math.sqrt(self.attention.head_dim)

    def masked(self, scores: torch.Tensor) -> torch.Tensor:
        length = scores.shape[-1]
        keep = torch.ones(length, length, dtype=torch.bool).tril()
        return scores.masked_fill(~keep, float("-inf"))

    def attend(self, x: torch.Tensor) -> torch.Tensor:
        a = self.attention
        q = self.split(_lin(a.wq, x), a.n_heads)
        k = self.split(_lin(a.wk, x), a.n_kv_heads)
        v = self.split(_lin(a.wv, x), a.n_kv_heads)
        q, k, v = self.rotary(q, k, v)
        k, v = self.repeat_kv(k), self.repeat_kv(v)
        scores = self.masked(q @ k.transpose(-2, -1) * self.scale())
        return _lin(a.wo, self.merge(torch.softmax(scores, dim=-1) @ v))

    def ffn(self, h: torch.Tensor) -> torch.Tensor:
        f = self.feed_forward
        return _lin(f.w2, F.silu(_lin(f.w1, h)) * _lin(f.w3, h))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = x + self.attend(self.norm(x, "attention"))
        return h + self.ffn(self.norm(h, "ffn"))


def _eps_outside(parts: tuple[str, ...]) -> type[Layer]:
    class EpsOutsideSqrt(Layer):
        def norm(self, x: torch.Tensor, which: str) -> torch.Tensor:
            if which not in parts:
                return super().norm(x, which)
            module = self.attention_norm if which == "attention" else self.ffn_norm
            rms = x.pow(2).mean(-1, keepdim=True).sqrt()
            return x / (rms + module.eps) * module.weight

    return EpsOutsideSqrt


def _mean_centred(parts: tuple[str, ...]) -> type[Layer]:
    class MeanCentred(Layer):
        def norm(self, x: torch.Tensor, which: str) -> torch.Tensor:
            if which not in parts:
                return super().norm(x, which)
            return super().norm(x - x.mean(-1, keepdim=True), which)

    return MeanCentred


BOTH = ("attention", "ffn")


class NoAttentionResidual(Layer):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.attend(self.norm(x, "attention"))
        return h + self.ffn(self.norm(h, "ffn"))


class NoFFNResidual(Layer):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = x + self.attend(self.norm(x, "attention"))
        return self.ffn(self.norm(h, "ffn"))


class PostNorm(Layer):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.norm(x + self.attend(x), "attention")
        return self.norm(h + self.ffn(h), "ffn")


class SharedNorm(Layer):
    def __init__(
        self, dim: int, n_heads: int, n_kv_heads: int, hidden_dim: int, eps: float = 1e-6
    ) -> None:
        super().__init__(dim, n_heads, n_kv_heads, hidden_dim, eps)
        self.ffn_norm = self.attention_norm


class AttentionNormReused(Layer):
    def norm(self, x: torch.Tensor, which: str) -> torch.Tensor:
        return super().norm(x, "attention")


class FFNNormReused(Layer):
    def norm(self, x: torch.Tensor, which: str) -> torch.Tensor:
        return super().norm(x, "ffn")


class GateOnUp(Layer):
    def ffn(self, h: torch.Tensor) -> torch.Tensor:
        f = self.feed_forward
        return _lin(f.w2, F.silu(_lin(f.w3, h)) * _lin(f.w1, h))


class HeadsMergedByReshape(Layer):
    def merge(self, o: torch.Tensor) -> torch.Tensor:
        b, heads, length, hd = o.shape
        return o.reshape(b, length, heads * hd)


class HeadsSplitAndMergedByReshape(HeadsMergedByReshape):
    def split(self, t: torch.Tensor, heads: int) -> torch.Tensor:
        b, length, _ = t.shape
        return t.reshape(b, heads, length, self.attention.head_dim)


class ScaledByModelDim(Layer):
    def scale(self) -> float:
        return 1.0 / math.sqrt(self.attention.n_heads * self.attention.head_dim)


class DiagonalMasked(Layer):
    def masked(self, scores: torch.Tensor) -> torch.Tensor:
        length = scores.shape[-1]
        keep = torch.ones(length, length, dtype=torch.bool).tril(-1)
        return scores.masked_fill(~keep, float("-inf"))


class DiagonalMaskedFinite(Layer):
    def masked(self, scores: torch.Tensor) -> torch.Tensor:
        length = scores.shape[-1]
        keep = torch.ones(length, length, dtype=torch.bool).tril(-1)
        return scores.masked_fill(~keep, torch.finfo(scores.dtype).min)


class NextTokenVisible(Layer):
    def masked(self, scores: torch.Tensor) -> torch.Tensor:
        length = scores.shape[-1]
        keep = torch.ones(length, length, dtype=torch.bool).tril(1)
        return scores.masked_fill(~keep, float("-inf"))


class KVHeadsTiled(Layer):
    def repeat_kv(self, t: torch.Tensor) -> torch.Tensor:
        rep = self.attention.n_heads // self.attention.n_kv_heads
        return t.repeat(1, rep, 1, 1)


class RopeInterleaved(Layer):
    def rope(self, t: torch.Tensor) -> torch.Tensor:
        length, hd = t.shape[-2], t.shape[-1]
        cos, sin = rope_tables(length, hd, t.dtype)
        cos, sin = cos[:, : hd // 2], sin[:, : hd // 2]
        even, odd = t[..., 0::2], t[..., 1::2]
        return torch.stack((even * cos - odd * sin, even * sin + odd * cos), dim=-1).flatten(-2)


class RopeOnQOnly(Layer):
    def rotary(
        self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        return self.rope(q), k, v


class RopeOnQAndV(Layer):
    def rotary(
        self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        return self.rope(q), k, self.rope(v)


class RopeOnV(Layer):
    def rotary(
        self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        return self.rope(q), self.rope(k), self.rope(v)


def _norm_mistakes() -> list[KnownMistake]:
    where = {
        BOTH: ("In the RMSNorm (both norms)", "RMSNorm（两个归一化层）"),
        ("attention",): ("In the attention norm", "attention_norm"),
        ("ffn",): ("In the FFN norm", "ffn_norm"),
    }
    tags = {BOTH: "rms", ("attention",): "attention_norm", ("ffn",): "ffn_norm"}
    found: list[KnownMistake] = []
    for parts, (en, zh) in where.items():
        only = "" if parts == BOTH else " only"
        only_zh = "两个归一化层都错了" if parts == BOTH else "只有这一个归一化层错了，另一个是对的"
        found.append(
            KnownMistake(
                name=f"{tags[parts]}_eps_outside_sqrt",
                title=f"{en}: eps added outside the square root",
                explanation=(
                    f"{en}{only}, you divided by sqrt(mean(x^2)) + eps. RMSNorm, LLaMA's and "
                    "torch.nn.RMSNorm alike, puts eps inside: x * rsqrt(mean(x^2) + eps) * "
                    "weight. The two differ where a token's mean square is near eps (a tiny "
                    "stream) or eps is large. Fix: torch.rsqrt(x.pow(2).mean(-1, keepdim=True) "
                    "+ self.eps)."
                ),
                title_zh=f"{zh}：eps 加在了根号外面",
                explanation_zh=(
                    f"{zh}里，你除以的是 sqrt(mean(x^2)) + eps（{only_zh}）。RMSNorm 不论是 LLaMA "
                    "的实现还是 torch.nn.RMSNorm，都把 eps 放在根号里：x * rsqrt(mean(x^2) + eps) "
                    "* weight。token 的均方值接近 eps（残差流很小）或 eps 较大时，两者就不一样。"
                    "改法：torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)。"
                ),
                build=_eps_outside(parts),
            )
        )
        found.append(
            KnownMistake(
                name=f"{tags[parts]}_mean_centred",
                title=f"{en}: the mean is subtracted (a LayerNorm, not an RMSNorm)",
                explanation=(
                    f"{en}{only}, you centred each token before scaling it. RMSNorm divides x "
                    "itself by its root mean square, with no mean subtraction and no bias; on "
                    "a residual stream whose tokens have a non-zero mean the two differ. Fix: "
                    "x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight."
                ),
                title_zh=f"{zh}：减去了均值（这是 LayerNorm，不是 RMSNorm）",
                explanation_zh=(
                    f"{zh}里，你先对每个 token 做了中心化再缩放（{only_zh}）。RMSNorm 直接用 x "
                    "除以它自己的均方根，不减均值，也没有 bias；残差流里 token 的均值不为零时，"
                    "两者就不一样。改法：x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) "
                    "* weight。"
                ),
                build=_mean_centred(parts),
            )
        )
    return found


MISTAKES = (
    *_norm_mistakes(),
    KnownMistake(
        name="no_attention_residual",
        title="Around the attention: the residual add is missing",
        explanation=(
            "You set h = attention(attention_norm(x)) without adding x back. Each sublayer "
            "writes an update into the residual stream: h = x + attention(attention_norm(x)). "
            "Without the add, everything the layers below wrote is lost and the gradient loses "
            "its identity path through this layer."
        ),
        title_zh="注意力子层：漏了残差相加",
        explanation_zh=(
            "你写的是 h = attention(attention_norm(x))，没有把 x 加回来。每个子层都是往残差流里"
            "写入一个增量：h = x + attention(attention_norm(x))。少了这一步，下面各层写进残差流"
            "的信息全部丢失，梯度也失去了穿过这一层的恒等路径。"
        ),
        build=NoAttentionResidual,
    ),
    KnownMistake(
        name="no_ffn_residual",
        title="Around the FFN: the residual add is missing",
        explanation=(
            "You returned feed_forward(ffn_norm(h)) without adding h back. The second half of "
            "the layer is a residual branch too: out = h + feed_forward(ffn_norm(h)), otherwise "
            "the attention's result and the whole stream before it are dropped."
        ),
        title_zh="FFN 子层：漏了残差相加",
        explanation_zh=(
            "你返回的是 feed_forward(ffn_norm(h))，没有把 h 加回来。层的后半部分同样是残差分支："
            "out = h + feed_forward(ffn_norm(h))，否则注意力的结果和之前的整个残差流都被丢掉了。"
        ),
        build=NoFFNResidual,
    ),
    KnownMistake(
        name="post_norm",
        title="The wiring: post-norm, norm(x + sublayer(x)), instead of pre-norm",
        explanation=(
            "You normalised after each residual add, the original Transformer's Post-LN. LLaMA "
            "is pre-norm: each sublayer reads a normalised copy of the stream and its output is "
            "added to the stream unnormalised, h = x + attention(attention_norm(x)), "
            "out = h + feed_forward(ffn_norm(h)). The stream is never rescaled and gradients "
            "reach the early layers through a clean identity."
        ),
        title_zh="连接方式：写成了 Post-Norm，norm(x + sublayer(x))，而不是 Pre-Norm",
        explanation_zh=(
            "你在每次残差相加之后才做归一化，这是原始 Transformer 的 Post-LN。LLaMA 是 Pre-Norm："
            "每个子层读取残差流归一化后的副本，输出不经归一化直接加回残差流，"
            "h = x + attention(attention_norm(x))，out = h + feed_forward(ffn_norm(h))。残差流"
            "不会被重新缩放，梯度沿干净的恒等路径传到浅层。"
        ),
        build=PostNorm,
    ),
    KnownMistake(
        name="shared_norm",
        title="The norms: one RMSNorm module registered as both attention_norm and ffn_norm",
        explanation=(
            "Your layer has one norm module where it needs two: attention_norm and ffn_norm "
            "are the same object, so the layer has one gain vector instead of two and a LLaMA "
            "checkpoint's ffn_norm.weight has nowhere to go. Each sublayer has its own "
            "RMSNorm with its own weight: build two."
        ),
        title_zh="归一化层：attention_norm 和 ffn_norm 注册成了同一个 RMSNorm 模块",
        explanation_zh=(
            "这一层需要两个归一化模块，你只建了一个：attention_norm 和 ffn_norm 是同一个对象，"
            "整层只有一组增益而不是两组，LLaMA 检查点里的 ffn_norm.weight 也无处可放。每个子层"
            "都有自己的 RMSNorm 和自己的 weight：请分别创建两个。"
        ),
        build=SharedNorm,
    ),
    KnownMistake(
        name="norm_reused",
        title="The norms: one of the two norms used before both sublayers",
        explanation=(
            "Your layer has attention_norm and ffn_norm but runs the same one before the "
            "attention and before the FFN, so the other norm's weight is never used (its "
            "gradient is None). The attention reads attention_norm(x), the FFN reads "
            "ffn_norm(h)."
        ),
        title_zh="归一化层：两个子层前用的是同一个归一化层",
        explanation_zh=(
            "你的层里有 attention_norm 和 ffn_norm，但在注意力和 FFN 之前调用的是同一个，另一个"
            "归一化层的 weight 从来没被用到（它的梯度是 None）。注意力读的是 "
            "attention_norm(x)，FFN 读的是 ffn_norm(h)。"
        ),
        build=AttentionNormReused,
        forms=(FFNNormReused,),
    ),
    KnownMistake(
        name="ffn_gate_on_up",
        title="In the FFN: SiLU on the up projection (w3) instead of the gate (w1)",
        explanation=(
            "Inside the feed-forward you computed w2(silu(w3(h)) * w1(h)). In LLaMA's SwiGLU "
            "w1 is the gate that goes through SiLU and w3 the linear up branch: "
            "w2(silu(w1(h)) * w3(h)). The shapes agree either way, so only the values tell, "
            "and a LLaMA checkpoint loaded into your layer computes something else."
        ),
        title_zh="FFN 内部：SiLU 用在了 up 投影（w3）上，而不是门控（w1）上",
        explanation_zh=(
            "前馈层里你算的是 w2(silu(w3(h)) * w1(h))。LLaMA 的 SwiGLU 中 w1 是经过 SiLU 的门控，"
            "w3 是线性的 up 分支：w2(silu(w1(h)) * w3(h))。两种写法形状都对得上，只有数值能看出"
            "区别，把 LLaMA 检查点加载进你的层就会算出别的东西。"
        ),
        build=GateOnUp,
    ),
    KnownMistake(
        name="heads_mixed_by_reshape",
        title="In the attention: heads mixed by a reshape without the transpose",
        explanation=(
            "You went between (B, T, H * hd) and (B, H, T, hd) "
            "with a reshape (or view) alone. The memory order is (T, H), so without "
            "transpose(1, 2) each 'head' holds pieces of several tokens, and the merged output "
            "puts one head's tokens side by side as if they were features. Split with "
            "view(b, seq, heads, head_dim).transpose(1, 2), merge with "
            "transpose(1, 2).reshape(b, seq, heads * head_dim)."
        ),
        title_zh="注意力内部：只用 reshape、没有 transpose，把各个头混在了一起",
        explanation_zh=(
            "你在 (B, T, H * hd) 和 (B, H, T, hd) 之间只用了 "
            "reshape（或 view）。内存里的顺序是 (T, H)，不做 transpose(1, 2) 的话，每个"
            "“头”里装的是好几个 token 的片段，合并时又把同一个头的不同 token 当成特征并排放在"
            "一起。拆分用 view(b, seq, heads, head_dim).transpose(1, 2)，合并用 "
            "transpose(1, 2).reshape(b, seq, heads * head_dim)。"
        ),
        build=HeadsMergedByReshape,
        forms=(HeadsSplitAndMergedByReshape,),
    ),
    KnownMistake(
        name="scaled_by_model_dim",
        title="In the attention: scores scaled by 1/sqrt(dim) instead of 1/sqrt(head_dim)",
        explanation=(
            "You divided the scores by the square root of the model dimension. Each head's "
            "score is a dot product of head_dim numbers, so its spread grows like "
            "sqrt(head_dim): scale by 1/sqrt(head_dim) (head_dim = dim // n_heads). Dividing by "
            "sqrt(dim) flattens every head's attention by a further factor sqrt(n_heads)."
        ),
        title_zh="注意力内部：分数乘的是 1/sqrt(dim)，而不是 1/sqrt(head_dim)",
        explanation_zh=(
            "你把分数除以了模型维度的平方根。每个头的分数是 head_dim 个数的点积，标准差随 "
            "sqrt(head_dim) 增长：应乘以 1/sqrt(head_dim)（head_dim = dim // n_heads）。除以 "
            "sqrt(dim) 会让每个头的注意力再被压平 sqrt(n_heads) 倍。"
        ),
        build=ScaledByModelDim,
    ),
    KnownMistake(
        name="causal_mask_off_by_one",
        title="In the attention: the causal mask is off by one",
        explanation=(
            "Your causal mask hides the diagonal (a token cannot see itself, and the first "
            "token sees nothing: NaN with -inf, or an average of every value with a large "
            "finite fill), or lets each token see the next one. Query i attends keys j <= i: "
            "keep torch.ones(L, L, dtype=torch.bool).tril(), or mask triu(diagonal=1)."
        ),
        title_zh="注意力内部：因果掩码差了一位",
        explanation_zh=(
            "你的因果掩码要么把对角线也遮住了（token 看不到自己，第一个 token 什么都看不到："
            "用 -inf 填充会得到 NaN，用很大的有限负数填充则变成所有 value 的平均），要么让每个 "
            "token 多看到了下一个 token。query i 只能关注 j <= i 的 key：保留 "
            "torch.ones(L, L, dtype=torch.bool).tril()，或者遮住 triu(diagonal=1)。"
        ),
        build=DiagonalMasked,
        forms=(DiagonalMaskedFinite, NextTokenVisible),
    ),
    KnownMistake(
        name="kv_heads_wrong_order",
        title="In the attention: kv heads repeated in the wrong order (tiled, not interleaved)",
        explanation=(
            "With grouped-query attention, query head h uses kv head h // (n_heads // "
            "n_kv_heads): each kv head serves a block of consecutive query heads, as LLaMA's "
            "repeat_kv and torch.repeat_interleave(k, n_rep, dim=1) lay them out. You tiled the "
            "kv heads (k.repeat(1, n_rep, 1, 1), torch.cat([k] * n_rep, dim=1)), so query head "
            "h reads kv head h % n_kv_heads."
        ),
        title_zh="注意力内部：kv 头的复制顺序错了（整体平铺，而不是逐个重复）",
        explanation_zh=(
            "分组查询注意力中，第 h 个查询头用的是第 h // (n_heads // n_kv_heads) 个 kv 头：每个 "
            "kv 头服务一段连续的查询头，LLaMA 的 repeat_kv 和 "
            "torch.repeat_interleave(k, n_rep, dim=1) 都是这样排列的。你把 kv 头整体平铺了"
            "（k.repeat(1, n_rep, 1, 1)、torch.cat([k] * n_rep, dim=1)），于是第 h 个查询头读到"
            "的是第 h % n_kv_heads 个 kv 头。"
        ),
        build=KVHeadsTiled,
    ),
    KnownMistake(
        name="rope_interleaved",
        title="In the attention: RoPE rotates interleaved pairs instead of the two halves",
        explanation=(
            "You rotated the pairs (x[2i], x[2i+1]), the convention of Meta's original code "
            "(view_as_complex on pairs of neighbours). This exercise, like Hugging Face's "
            "LLaMA, uses rotate-half: pair i is (x[i], x[i + head_dim/2]), "
            "q * cos + rotate_half(q) * sin with rotate_half(x) = cat(-x2, x1). The two are the "
            "same model only after permuting the rows of wq and wk, so with the same weights "
            "they differ."
        ),
        title_zh="注意力内部：RoPE 旋转的是相邻的一对，而不是前后两半",
        explanation_zh=(
            "你旋转的是 (x[2i], x[2i+1]) 这样相邻的一对，这是 Meta 原始代码的约定（对相邻元素做 "
            "view_as_complex）。本题和 Hugging Face 的 LLaMA 一样用 rotate-half：第 i 对是 "
            "(x[i], x[i + head_dim/2])，q * cos + rotate_half(q) * sin，其中 rotate_half(x) = "
            "cat(-x2, x1)。两种约定只有在重排 wq、wk 的行之后才是同一个模型，权重相同时结果不同。"
        ),
        build=RopeInterleaved,
    ),
    KnownMistake(
        name="rope_not_on_k",
        title="In the attention: RoPE not applied to k",
        explanation=(
            "You rotated q but not k. RoPE works because the score of a rotated query and a "
            "rotated key depends only on their relative position: q_m . k_n after rotating "
            "both by their own positions is a function of m - n. Rotating only q makes the "
            "scores depend on the query's absolute position instead. Apply the same rotation "
            "to k (and never to v)."
        ),
        title_zh="注意力内部：k 没有做 RoPE",
        explanation_zh=(
            "你只旋转了 q，没有旋转 k。RoPE 之所以有效，是因为旋转后的 query 和 key 的点积只取决于"
            "两者的相对位置：q_m 和 k_n 各自按自己的位置旋转后，点积只是 m - n 的函数。只旋转 q，"
            "分数就变成依赖 query 的绝对位置了。k 要做同样的旋转（v 则永远不做）。"
        ),
        build=RopeOnQOnly,
        forms=(RopeOnQAndV,),
    ),
    KnownMistake(
        name="rope_on_v",
        title="In the attention: RoPE applied to v as well",
        explanation=(
            "You rotated v together with q and k. RoPE encodes position in the scores, "
            "through the dot product q . k; the values are what gets mixed, and rotating them "
            "by their positions changes every output. Rotate q and k only."
        ),
        title_zh="注意力内部：v 也做了 RoPE",
        explanation_zh=(
            "你把 v 和 q、k 一起旋转了。RoPE 通过点积 q . k 把位置信息编码进分数；value 是被加权"
            "混合的内容，按位置旋转它们会改变每一个输出。只旋转 q 和 k。"
        ),
        build=RopeOnV,
    ),
)


SPEC = ExerciseSpec(
    slug="decoder_block",
    class_name="DecoderBlock",
    reference=DecoderBlock,
    make_cases=make_cases,
    mistakes=MISTAKES,
    # What a solution is made of: elementary operations, the FFN's activations, softmax (the
    # point is attention, not softmax), and complex numbers for a RoPE written as LLaMA's
    # original code writes it.
    allowed=(
        *ELEMENTARY,
        "activations",
        "softmax",
        "_softmax",
        "_softmax_backward_data",
        "view_as_complex",
        "view_as_real",
        "polar",
        "complex",
        "real",
        "imag",
    ),
    banned=BANNED,
    ranks=(3,),
    # Two norms, four projections, two attention matmuls, three FFN matmuls.
    tolerance_scale=4.0,
    # LLaMA computes its RMSNorm (and its softmax) in float32 whatever the input: admitted for
    # float64, as the prompt says.
    float32_internals=True,
)
