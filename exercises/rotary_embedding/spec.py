"""Grading spec for ``rotary_embedding``: ``apply_rotary(x, positions, base=10000.0)``, rotary
position embedding (RoPE, Su et al. 2021) in the rotate-half layout of most PyTorch LLM code
(Hugging Face LLaMA's ``rotate_half``, GPT-NeoX).

Contract: ``x`` of shape ``(batch, heads, seq, head_dim)``, ``head_dim`` even, ``half =
head_dim // 2``; ``positions`` an integer tensor of shape ``(seq,)``, each token's absolute
position (an offset such as ``arange(start, start + seq)``, or sequences packed one after the
other, ``[0, 1, 2, 0, 1, ...]``). Feature ``i < half`` is paired with feature ``i + half`` and the
pair is rotated by the angle ``positions[t] * inv_freq[i]``, ``inv_freq[i] = base ** (-2 i /
head_dim)``::

    out[..., :half] = x1 * cos - x2 * sin
    out[..., half:] = x2 * cos + x1 * sin

The angles are computed in float64 for float64 input and in float32 otherwise (float32 input,
and bfloat16/float16, which are computed in float32 and cast back once, as Meta's LLaMA does);
the output has x's dtype. The reference is written with elementary ops (the crosscheck builds the
rotation as a complex product, independently).
"""

from __future__ import annotations

import torch

from api.grading.allowlist import ELEMENTARY
from api.grading.draw import described, normal, randint
from api.grading.phrase import FORWARD_ONLY_NO_GRAD, Phrase, same, view_zh
from api.grading.spec import Call, Case, ExerciseSpec, KnownMistake, Layout

F32, F64, BF16, F16 = torch.float32, torch.float64, torch.bfloat16, torch.float16
BASE = 10000.0


def _work(dtype: torch.dtype) -> torch.dtype:
    """The precision the angles and the rotation are computed in."""
    return torch.float64 if dtype == torch.float64 else torch.float32


def _inv_freq(head_dim: int, base: float, dtype: torch.dtype) -> torch.Tensor:
    return base ** (-(torch.arange(0, head_dim, 2, dtype=dtype) / head_dim))


def _rotate(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """Rotate-half pairs (i, i + half) by angles whose cos and sin are (seq, half)."""
    half = x.shape[-1] // 2
    x1, x2 = x[..., :half], x[..., half:]
    return torch.cat((x1 * cos - x2 * sin, x2 * cos + x1 * sin), dim=-1)


def reference(x: torch.Tensor, positions: torch.Tensor, base: float = BASE) -> torch.Tensor:
    work = _work(x.dtype)
    angles = positions.to(work)[:, None] * _inv_freq(x.shape[-1], base, work)[None, :]
    return _rotate(x.to(work), angles.cos(), angles.sin()).to(x.dtype)


# --- cases ---------------------------------------------------------------------------------


def _positions_words(positions: torch.Tensor) -> Phrase:
    values = positions.tolist()
    if values == list(range(values[0], values[0] + len(values))):
        if len(values) == 1:
            return Phrase(f"positions [{values[0]}]", f"位置 [{values[0]}]")
        return Phrase(f"positions {values[0]}..{values[-1]}", f"位置 {values[0]}..{values[-1]}")
    shown = ", ".join(str(v) for v in values)
    return Phrase(f"positions [{shown}]", f"位置 [{shown}]")


def make_cases(gen: torch.Generator) -> list[Case]:
    """Sixteen families, drawn fresh from ``gen``. The offset and packed positions come first:
    they tell the position mistakes apart, and the verdict names a mistake from the first
    failing cases."""
    cases: list[Case] = []

    def add(
        name: str,
        shape: tuple[int, int, int, int],
        dtype: torch.dtype,
        positions: torch.Tensor,
        extra: list[Phrase] | None = None,
        *,
        base: float | None = None,
        backward: bool = True,
        layout: Layout = "contiguous",
    ) -> None:
        x = normal(gen, shape, F32).to(dtype)
        words = [_positions_words(positions)]
        if positions.dtype != torch.int64:
            words.append(same(f"positions {str(positions.dtype).removeprefix('torch.')}"))
        kwargs: dict[str, float] = {}
        if base is not None:
            kwargs["base"] = base
            words.append(same(f"base={base:g}"))
        else:
            words.append(Phrase("default base 10000", "默认 base 为 10000"))
        words += extra or []
        if layout != "contiguous":
            words.append(Phrase(f"x a non-contiguous ({layout}) view", f"x 为{view_zh(layout)}"))
        if not backward:
            words.append(FORWARD_ONLY_NO_GRAD)
        grads = (normal(gen, shape, dtype),) if backward else None
        said = described(x, same("N(0,1)"), *words)
        cases.append(
            Case(
                name=name,
                description=said.en,
                description_zh=said.zh,
                x=x,
                init_kwargs=kwargs,
                steps=(Call((x, positions), grads, layout=layout),),
            )
        )

    def run(start: int, length: int, dtype: torch.dtype = torch.int64) -> torch.Tensor:
        return torch.arange(start, start + length, dtype=dtype)

    # An offset: a chunk that continues a sequence (the KV-cache decode), float64.
    # Two sequences packed into one row, the first one continued from an earlier chunk: the
    # positions restart at 0 in the middle of the row.
    a, b = randint(gen, 3, 5), randint(gen, 3, 5)
    s = randint(gen, 3, 20)
    packed = torch.cat((torch.arange(s, s + a), torch.arange(b)))
    add(
        "packed_positions",
        (2, 2, a + b, 32),
        F32,
        packed,
        [Phrase("two packed sequences", "两条拼接在一起的序列")],
    )
    t = randint(gen, 5, 9)
    add("offset_positions", (2, 3, t, 16), F64, run(randint(gen, 7, 40), t))
    t = randint(gen, 6, 9)
    add("from_zero", (2, 4, t, 32), F32, run(0, t))
    # Far positions: float32 angles lose about 5e-4 rad there; float64 must keep its own
    # precision.
    t = randint(gen, 4, 7)
    add("large_positions_f64", (1, 2, t, 64), F64, run(4096 + randint(gen, 0, 2000), t))
    t = randint(gen, 4, 7)
    add("large_positions_f32", (2, 2, t, 64), F32, run(8192 + randint(gen, 0, 4000), t))
    # One token: a decode step at its position.
    add("single_token", (3, 4, 1, 32), F64, run(randint(gen, 100, 3000), 1))
    t = 2 * randint(gen, 3, 5) + 1
    add(
        "odd_length_int32",
        (2, 3, t, 24),
        F64,
        run(randint(gen, 1, 30), t, torch.int32),
    )
    t = randint(gen, 5, 8)
    add("base_500000", (2, 2, t, 32), F64, run(randint(gen, 10, 500), t), base=500000.0)
    # base = 1: every pair turns by the position itself (edge value of base).
    t = randint(gen, 4, 7)
    add("base_1", (2, 2, t, 8), F64, run(randint(gen, 0, 20), t), base=1.0)
    # One pair per head (edge value of head_dim): the two layouts agree there.
    t = randint(gen, 4, 8)
    add("head_dim_2", (2, 3, t, 2), F64, run(randint(gen, 0, 50), t))
    t = randint(gen, 3, 6)
    add("head_dim_160", (1, 2, t, 160), F32, run(randint(gen, 0, 100), t))
    t = randint(gen, 5, 8)
    add("transposed_x", (2, 2, t, 16), F32, run(randint(gen, 1, 60), t), layout="transposed")
    t = randint(gen, 4, 7)
    add("batch_of_one", (1, 1, t, 48), F32, run(randint(gen, 0, 10), t))
    t = randint(gen, 4, 7)
    add("no_grad", (2, 2, t, 32), F32, run(randint(gen, 0, 100), t), backward=False)
    t = randint(gen, 4, 7)
    add("bfloat16", (2, 2, t, 64), BF16, run(randint(gen, 300, 2000), t), backward=False)
    t = randint(gen, 4, 7)
    add("float16", (2, 2, t, 64), F16, run(randint(gen, 300, 2000), t))
    return cases


# --- Known mistakes: the contract's signature, one error each, all else as the reference.


def _angles(positions: torch.Tensor, inv_freq: torch.Tensor, work: torch.dtype) -> torch.Tensor:
    return positions.to(work)[:, None] * inv_freq.to(work)[None, :]


def _with_angles(x: torch.Tensor, angles: torch.Tensor) -> torch.Tensor:
    work = angles.dtype
    return _rotate(x.to(work), angles.cos(), angles.sin()).to(x.dtype)


def interleaved_pairs(x: torch.Tensor, positions: torch.Tensor, base: float = BASE) -> torch.Tensor:
    work = _work(x.dtype)
    angles = _angles(positions, _inv_freq(x.shape[-1], base, work), work)
    cos, sin = angles.cos(), angles.sin()
    xw = x.to(work)
    even, odd = xw[..., 0::2], xw[..., 1::2]
    out = torch.stack((even * cos - odd * sin, odd * cos + even * sin), dim=-1)
    return out.flatten(-2).to(x.dtype)


def wrong_frequencies(x: torch.Tensor, positions: torch.Tensor, base: float = BASE) -> torch.Tensor:
    """The exponent over the full width: base ** (-i / head_dim), i = 0 .. half - 1."""
    work = _work(x.dtype)
    d = x.shape[-1]
    inv_freq = base ** (-(torch.arange(0, d // 2, dtype=work) / d))
    return _with_angles(x, _angles(positions, inv_freq, work))


def _frequencies_over_half(
    x: torch.Tensor, positions: torch.Tensor, base: float = BASE
) -> torch.Tensor:
    """The exponent 2i / half: base ** (-2 i / (head_dim / 2))."""
    work = _work(x.dtype)
    d = x.shape[-1]
    inv_freq = base ** (-(torch.arange(0, d, 2, dtype=work) / (d // 2)))
    return _with_angles(x, _angles(positions, inv_freq, work))


def _frequencies_full_width(
    x: torch.Tensor, positions: torch.Tensor, base: float = BASE
) -> torch.Tensor:
    """head_dim frequencies base ** (-j / head_dim), one per feature, not per pair."""
    work = _work(x.dtype)
    d = x.shape[-1]
    inv_freq = base ** (-(torch.arange(d, dtype=work) / d))
    angles = _angles(positions, inv_freq, work)
    xw = x.to(work)
    half = d // 2
    rotated = torch.cat((-xw[..., half:], xw[..., :half]), dim=-1)
    return (xw * angles.cos() + rotated * angles.sin()).to(x.dtype)


def base_ignored(x: torch.Tensor, positions: torch.Tensor, base: float = BASE) -> torch.Tensor:
    return reference(x, positions)


def positions_ignored(x: torch.Tensor, positions: torch.Tensor, base: float = BASE) -> torch.Tensor:
    return reference(x, torch.arange(x.shape[-2]), base)


def positions_off_by_one(
    x: torch.Tensor, positions: torch.Tensor, base: float = BASE
) -> torch.Tensor:
    return reference(x, positions.long() + 1, base)


def consecutive_positions_assumed(
    x: torch.Tensor, positions: torch.Tensor, base: float = BASE
) -> torch.Tensor:
    start = int(positions[0])
    return reference(x, torch.arange(start, start + x.shape[-2]), base)


def rotation_reversed(x: torch.Tensor, positions: torch.Tensor, base: float = BASE) -> torch.Tensor:
    return reference(x, -positions.long(), base)


def sin_cos_swapped(x: torch.Tensor, positions: torch.Tensor, base: float = BASE) -> torch.Tensor:
    work = _work(x.dtype)
    angles = _angles(positions, _inv_freq(x.shape[-1], base, work), work)
    return _rotate(x.to(work), angles.sin(), angles.cos()).to(x.dtype)


def frequencies_interleaved_layout(
    x: torch.Tensor, positions: torch.Tensor, base: float = BASE
) -> torch.Tensor:
    """cos and sin laid out per pair (repeat_interleave, GPT-J's layout) while the features are
    paired rotate-half: feature i turns by angle i // 2, not i mod half."""
    work = _work(x.dtype)
    angles = _angles(positions, _inv_freq(x.shape[-1], base, work), work)
    emb = angles.repeat_interleave(2, dim=-1)
    xw = x.to(work)
    half = x.shape[-1] // 2
    rotated = torch.cat((-xw[..., half:], xw[..., :half]), dim=-1)
    return (xw * emb.cos() + rotated * emb.sin()).to(x.dtype)


def half_precision_angles(
    x: torch.Tensor, positions: torch.Tensor, base: float = BASE
) -> torch.Tensor:
    """Positions cast to x's dtype first: past 256 bfloat16 rounds them to even numbers."""
    work = _work(x.dtype)
    rounded = positions.to(x.dtype).to(work)
    angles = rounded[:, None] * _inv_freq(x.shape[-1], base, work)[None, :]
    return _rotate(x.to(work), angles.cos(), angles.sin()).to(x.dtype)


def _angles_in_x_dtype(
    x: torch.Tensor, positions: torch.Tensor, base: float = BASE
) -> torch.Tensor:
    """The whole table in x's dtype."""
    d = x.shape[-1]
    inv_freq = base ** (-(torch.arange(0, d, 2, dtype=x.dtype) / d))
    angles = positions.to(x.dtype)[:, None] * inv_freq[None, :]
    return _rotate(x, angles.cos(), angles.sin())


MISTAKES = (
    KnownMistake(
        name="interleaved_pairs",
        title="Interleaved pairs (GPT-J / RoFormer layout) instead of rotate-half",
        explanation=(
            "You rotated adjacent features (0, 1), (2, 3), ... as pairs, the layout of GPT-J, "
            "the RoFormer paper and Meta's LLaMA code (view_as_complex on x.reshape(..., -1, "
            "2)). This contract pairs feature i with feature i + head_dim/2 (rotate_half, as "
            "Hugging Face LLaMA and GPT-NeoX do): x1 = x[..., :half], x2 = x[..., half:]. Both "
            "encode relative position, but weights trained for one layout are wrong under the "
            "other (converting LLaMA checkpoints to HF permutes wq and wk for this reason)."
        ),
        title_zh="按相邻元素配对（GPT-J / RoFormer 的布局），而不是 rotate-half",
        explanation_zh=(
            "你把相邻的特征 (0, 1)、(2, 3)…… 当成一对来旋转，这是 GPT-J、RoFormer 论文和 Meta "
            "LLaMA 代码（对 x.reshape(..., -1, 2) 做 view_as_complex）的布局。本题约定第 i 个特征"
            "与第 i + head_dim/2 个特征配对（rotate_half，与 Hugging Face LLaMA、GPT-NeoX 相同）："
            "x1 = x[..., :half]，x2 = x[..., half:]。两种布局都能编码相对位置，但按一种布局训练"
            "的权重换到另一种布局下就是错的（把 LLaMA 权重转成 HF 格式时要重排 wq、wk，"
            "原因就在这里）。"
        ),
        build=interleaved_pairs,
    ),
    KnownMistake(
        name="wrong_frequencies",
        title="Frequencies spread over the wrong width",
        explanation=(
            "Your frequencies are not base ** (-2i / head_dim) for i = 0 .. head_dim/2 - 1. "
            "Usual slips: arange(head_dim) / head_dim (one frequency per feature, or the first "
            "half of them: base ** (-i / head_dim)), or arange(0, head_dim, 2) divided by "
            "head_dim / 2 (base ** (-4i / head_dim)). Either way the slowest pair no longer "
            "turns at 1/base per token and every pair's wavelength is off. Write inv_freq = "
            "base ** (-torch.arange(0, head_dim, 2) / head_dim): head_dim/2 frequencies, one "
            "per pair."
        ),
        title_zh="频率分布的宽度算错了",
        explanation_zh=(
            "你的频率不是 base ** (-2i / head_dim)（i = 0 .. head_dim/2 - 1）。常见写法错误："
            "arange(head_dim) / head_dim（每个特征一个频率，或者只取前一半，即 "
            "base ** (-i / head_dim)），或者把 arange(0, head_dim, 2) 除以 head_dim / 2"
            "（base ** (-4i / head_dim)）。这样最慢的那一对不再按每个 token 1/base 的速度转动，"
            "每一对的波长都错了。应写成 inv_freq = base ** (-torch.arange(0, head_dim, 2) / "
            "head_dim)：head_dim/2 个频率，每对一个。"
        ),
        build=wrong_frequencies,
        forms=(_frequencies_over_half, _frequencies_full_width),
    ),
    KnownMistake(
        name="base_ignored",
        title="The base argument ignored (10000 hard-coded)",
        explanation=(
            "Your frequencies use 10000 whatever base says. Models change it on purpose: "
            "LLaMA 3 uses 500000 and long-context fine-tunes raise it (NTK-aware scaling), so "
            "the same weights need the base they were trained with. Use the argument in "
            "inv_freq = base ** (-torch.arange(0, head_dim, 2) / head_dim)."
        ),
        title_zh="忽略了 base 参数（写死为 10000）",
        explanation_zh=(
            "不管 base 传入什么，你的频率都用 10000。模型会有意改它：LLaMA 3 用 500000，长上下文"
            "微调也会调大它（NTK-aware 缩放），同一套权重必须用训练时的 base。请在 inv_freq = "
            "base ** (-torch.arange(0, head_dim, 2) / head_dim) 里使用这个参数。"
        ),
        build=base_ignored,
    ),
    KnownMistake(
        name="positions_ignored",
        title="positions ignored: tokens rotated as if they started at 0",
        explanation=(
            "You rotated token t by t * inv_freq (arange(seq)), whatever positions says. When "
            "the chunk continues a sequence (a decode step after a prompt, positions = "
            "arange(start, start + seq)) every token then gets the angle of another position, "
            "and the keys cached earlier no longer line up with the new queries. Use "
            "positions[:, None] * inv_freq."
        ),
        title_zh="忽略了 positions：把 token 都当成从位置 0 开始",
        explanation_zh=(
            "不管 positions 是什么，你都按 t * inv_freq（arange(seq)）旋转第 t 个 token。当这一段"
            "是某个序列的延续时（prompt 之后的解码步，positions = arange(start, start + seq)），"
            "每个 token 拿到的都是别的位置的角度，之前缓存的 key 和新的 query 对不上。应使用 "
            "positions[:, None] * inv_freq。"
        ),
        build=positions_ignored,
    ),
    KnownMistake(
        name="positions_off_by_one",
        title="Positions off by one (counted from 1)",
        explanation=(
            "Your angles are (position + 1) * inv_freq: positions counted from 1, or a cos/sin "
            "table built for arange(1, n + 1) and indexed with the 0-based positions. The first "
            "token must be position 0, whose rotation is the identity."
        ),
        title_zh="位置差了一（从 1 开始计数）",
        explanation_zh=(
            "你的角度是 (position + 1) * inv_freq：位置从 1 开始数，或者 cos/sin 表按 "
            "arange(1, n + 1) 构建、却用从 0 开始的 positions 去索引。第一个 token 的位置是 0，"
            "它的旋转应当是恒等变换。"
        ),
        build=positions_off_by_one,
    ),
    KnownMistake(
        name="consecutive_positions_assumed",
        title="Only the first position read: positions assumed consecutive",
        explanation=(
            "You took positions[0] and counted on from it (arange(start, start + seq)). The "
            "contract gives every token its own position: sequences packed into one row "
            "restart at 0 ([0, 1, 2, 0, 1, ...]), and those tokens must get their own angles. "
            "Use the whole positions tensor: positions[:, None] * inv_freq."
        ),
        title_zh="只读了第一个位置：默认位置是连续的",
        explanation_zh=(
            "你只取了 positions[0]，然后从它开始往后数（arange(start, start + seq)）。本题给每个 "
            "token 各自的位置：多条序列拼接在同一行时位置会从 0 重新开始（[0, 1, 2, 0, 1, ...]），"
            "这些 token 必须用各自的角度。应使用整个 positions：positions[:, None] * inv_freq。"
        ),
        build=consecutive_positions_assumed,
    ),
    KnownMistake(
        name="rotation_reversed",
        title="Rotation in the wrong direction (angle negated)",
        explanation=(
            "You rotated by -angle: rotate_half written as cat(x2, -x1) instead of cat(-x2, x1), "
            "a minus sign on sin, or the complex conjugate of the rotation. Attention scores "
            "still depend only on relative position, but the direction is the contract's and "
            "the weights': the first half gets x1 * cos - x2 * sin, the second x2 * cos + "
            "x1 * sin."
        ),
        title_zh="旋转方向反了（角度取了负号）",
        explanation_zh=(
            "你按 -angle 旋转了：rotate_half 写成了 cat(x2, -x1) 而不是 cat(-x2, x1)，或者 sin 前"
            "多了负号，或者乘的是旋转的共轭复数。注意力分数仍然只依赖相对位置，但方向是约定和权重"
            "决定的：前一半是 x1 * cos - x2 * sin，后一半是 x2 * cos + x1 * sin。"
        ),
        build=rotation_reversed,
    ),
    KnownMistake(
        name="sin_cos_swapped",
        title="sin and cos swapped",
        explanation=(
            "You multiplied x by sin and rotate_half(x) by cos. At position 0 the rotation must "
            "be the identity (cos 0 = 1, sin 0 = 0); with the two swapped position 0 already "
            "turns every pair by 90 degrees. It is x * cos + rotate_half(x) * sin."
        ),
        title_zh="sin 和 cos 用反了",
        explanation_zh=(
            "你用 sin 乘 x、用 cos 乘 rotate_half(x)。位置 0 的旋转必须是恒等变换（cos 0 = 1，"
            "sin 0 = 0）；两者对调后，位置 0 就已经把每一对转了 90 度。正确写法是 "
            "x * cos + rotate_half(x) * sin。"
        ),
        build=sin_cos_swapped,
    ),
    KnownMistake(
        name="frequencies_interleaved_layout",
        title="Angles laid out per adjacent pair while the features pair rotate-half",
        explanation=(
            "You expanded the head_dim/2 angles with repeat_interleave(2) (GPT-J's layout: "
            "angle i // 2 for feature i) but paired the features rotate-half (i with i + "
            "half). The two conventions must agree: with rotate_half the table is "
            "cat((freqs, freqs), -1), so feature i and its partner i + half turn by the same "
            "angle freqs[i mod half]."
        ),
        title_zh="角度按相邻配对展开，特征却按 rotate-half 配对",
        explanation_zh=(
            "你用 repeat_interleave(2) 展开 head_dim/2 个角度（GPT-J 的布局：第 i 个特征用角度 "
            "i // 2），但特征却按 rotate-half 配对（i 与 i + half）。两种约定必须一致：用 "
            "rotate_half 时角度表是 cat((freqs, freqs), -1)，第 i 个特征和它的搭档 i + half 转过"
            "同一个角度 freqs[i mod half]。"
        ),
        build=frequencies_interleaved_layout,
    ),
    KnownMistake(
        name="half_precision_angles",
        title="Positions or angles in bfloat16/float16",
        explanation=(
            "You turned the positions (or the angles) into x's half-precision dtype. bfloat16 "
            "keeps 8 significant binary digits: past position 256 it rounds positions to even "
            "numbers, past 512 to multiples of 4, and an angle of 1000 rad is off by several "
            "rad; float16 does the same past 2048. Compute the angles in float32 (positions."
            "float() * inv_freq, inv_freq in float32) and cast only the result (or cos and "
            "sin) to x.dtype."
        ),
        title_zh="位置或角度用了 bfloat16/float16",
        explanation_zh=(
            "你把 positions（或角度）转成了 x 的半精度 dtype。bfloat16 只有 8 个有效二进制位："
            "位置超过 256 就被舍入成偶数，超过 512 就成了 4 的倍数，1000 弧度的角度会差好几个"
            "弧度；float16 超过 2048 也是如此。请在 float32 里算角度（positions.float() * "
            "inv_freq，inv_freq 为 float32），只把结果（或 cos、sin）转成 x.dtype。"
        ),
        build=half_precision_angles,
        forms=(_angles_in_x_dtype,),
    ),
)

ROTARY_HELPERS = (
    # torch's own RoPE: the ONNX RotaryEmbedding-23 operator, a custom op with an eager kernel.
    "torch.onnx.ops.rotary_embedding",
    "torch.onnx.ops._impl.rotary_embedding_23",
    "torch.ops.onnx.RotaryEmbedding",
    "onnx.RotaryEmbedding",
)

SPEC = ExerciseSpec(
    slug="rotary_embedding",
    class_name="apply_rotary",
    kind="function",
    reference=reference,
    make_cases=make_cases,
    mistakes=MISTAKES,
    ranks=(4,),
    trains=False,
    # Elementwise math and shapes; complex numbers for those who rotate with torch.polar.
    allowed=(*ELEMENTARY, "polar", "complex", "view_as_complex", "view_as_real", "real", "imag"),
    banned=ROTARY_HELPERS,
)
