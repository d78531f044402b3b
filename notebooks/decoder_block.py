# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     notebook_metadata_filter: -jupytext.text_representation.jupytext_version
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # A LLaMA decoder layer: RMSNorm, RoPE, grouped-query attention and SwiGLU
#
# **topic:** attention · **difficulty:** hard
#
# This is the capstone: one whole layer of a LLaMA-style decoder, every part written by you. The
# layer is two half-layers on the residual stream. Each reads a normalised copy of the stream,
# computes, and adds its result back:
#
# $$\begin{aligned}
# h &= x + \mathrm{attention}(\mathrm{attention\_norm}(x))\\
# \mathrm{out} &= h + \mathrm{feed\_forward}(\mathrm{ffn\_norm}(h))
# \end{aligned}$$
#
# You built the pieces before (RMSNorm, SwiGLU, scaled dot-product attention); what is new is
# the attention of a real model (several heads, fewer kv heads than query heads, rotary position
# embeddings, a causal mask) and wiring all of it so that a LLaMA checkpoint's layer would load
# into your module key for key.
#
# ## What to write
#
# ```python
# class DecoderBlock(nn.Module):
#     def __init__(
#         self, dim: int, n_heads: int, n_kv_heads: int, hidden_dim: int, eps: float = 1e-6
#     ) -> None: ...
#     def forward(self, x: torch.Tensor) -> torch.Tensor: ...  # (batch, seq, dim) -> same
# ```
#
# - **Arguments.** `n_kv_heads` and `hidden_dim` have no default: pass them (`n_kv_heads =
#   n_heads` is ordinary multi-head attention, `1` is multi-query, anything between that divides
#   `n_heads` is grouped-query). `eps = 1e-6` is LLaMA's default. `head_dim = dim // n_heads`;
#   the grader only builds layers where `n_heads` divides `dim`, `n_kv_heads` divides `n_heads`
#   and `head_dim` is even.
# - **Submodules, with exactly Meta's LLaMA names** (write their classes in the same cell; any
#   class names will do). Nothing else: no biases, no extra parameters or buffers, and two norms,
#   not one module registered twice.
#
#   | attribute | what | state dict |
#   | --- | --- | --- |
#   | `attention_norm` | your RMSNorm, gain `weight` initialised to ones | `attention_norm.weight` `(dim,)` |
#   | `attention` | bias-free `wq`, `wk`, `wv`, `wo` | `attention.wq.weight` `(n_heads * head_dim, dim)`, `attention.wk.weight` and `attention.wv.weight` `(n_kv_heads * head_dim, dim)`, `attention.wo.weight` `(dim, n_heads * head_dim)` |
#   | `ffn_norm` | a second RMSNorm, its own `weight` | `ffn_norm.weight` `(dim,)` |
#   | `feed_forward` | your SwiGLU: bias-free `w1` (gate), `w3` (up), `w2` (down) | `feed_forward.w1.weight` and `feed_forward.w3.weight` `(hidden_dim, dim)`, `feed_forward.w2.weight` `(dim, hidden_dim)` |
#
# - **RMSNorm**: $\mathrm{norm}(x) = x / \sqrt{\mathrm{mean}(x^2) + \varepsilon} \cdot \mathrm{weight}$,
#   the mean over the last dim, no mean subtraction, no bias.
# - **Attention**, for `x` of shape `(batch, seq, dim)` (its input is `attention_norm(x)`):
#   1. `q = wq(x)`, `k = wk(x)`, `v = wv(x)`, split into heads: `(batch, heads, seq, head_dim)`
#      (`n_heads` heads for q, `n_kv_heads` for k and v).
#   2. **RoPE on q and k, not v**, the rotate-half convention (Hugging Face's LLaMA, and this
#      course's `rotary_embedding` exercise): with $\theta_i = 10000^{-2i/d}$ for
#      $i = 0, \dots, d/2 - 1$ ($d$ = `head_dim`, `inv_freq = 10000 ** (-arange(0, d, 2) / d)`)
#      and positions $p = 0, \dots, \mathrm{seq} - 1$, feature $i$ and feature $i + d/2$ form a
#      pair rotated by the angle $p\,\theta_i$:
#      $$R(t) = t \odot \cos + \mathrm{rotate\_half}(t) \odot \sin, \qquad \mathrm{rotate\_half}([t_1, t_2]) = [-t_2, t_1],$$
#      where `cos` and `sin` hold $\cos(p\,\theta_i)$ at features $i$ and $i + d/2$.
#   3. **Grouped-query**: query head `h` uses kv head `h // (n_heads // n_kv_heads)`: each kv
#      head serves a block of consecutive query heads, as LLaMA's `repeat_kv` (or
#      `repeat_interleave(n_rep, dim=1)`) lays them out. This course's `multi_head_attention`
#      exercise uses the same convention.
#   4. Scores `q @ k^T / sqrt(head_dim)`, **causal**: query `i` attends keys `j <= i`; softmax over
#      the keys; times `v`.
#   5. Merge the heads back to `(batch, seq, n_heads * head_dim)` and apply `wo`.
# - **SwiGLU**: $\mathrm{feed\_forward}(h) = w_2(\mathrm{silu}(w_1 h) \odot w_3 h)$.
# - **The input** is a whole sequence, positions `0..seq-1`, float32 or float64, possibly
#   non-contiguous; return `(batch, seq, dim)` in its dtype without modifying it. There is no
#   KV cache here and no position offset: decoding one token at a time with cached keys and
#   values is its own exercise (`kv_cache_attention`).
# - No dropout and no other state: train and eval compute the same thing, on every call, with the
#   values the parameters hold at that call.
# - **Precision**: computing the norms (and the softmax) in float32 and casting back, as LLaMA's
#   reference code does (`self._norm(x.float()).type_as(x)`), is correct: float64 cases are
#   compared at a tolerance that leaves room for it.
#
# Outputs and the gradients with respect to `x` and all nine parameters are compared.
#
# ## Not allowed
#
# The whole-norm built-ins (`nn.RMSNorm`, `F.rms_norm`, `torch.rms_norm`, `nn.LayerNorm`,
# `F.layer_norm`, `torch.layer_norm`) and attention built-ins, however reached:
# `F.scaled_dot_product_attention` (also `torch._C._nn.scaled_dot_product_attention`), its private
# and fused entry points (`_scaled_dot_product_attention_math`,
# `_scaled_dot_product_flash_attention` and `..._for_cpu`, `_scaled_dot_product_efficient_attention`,
# `_scaled_dot_product_cudnn_attention`, `_fused_sdp_choice`, `_flash_attention_forward`,
# `_efficient_attention_forward`, ...), `nn.MultiheadAttention`, `F.multi_head_attention_forward`,
# `torch.ao.nn.quantizable.MultiheadAttention`, and `nn.Transformer` with its encoder and decoder
# layers and stacks. A submission that reaches one is *rejected*.
#
# **Allowed**: `torch.softmax` / `F.softmax` (the exercise is the layer, not the softmax),
# `F.silu`, `nn.Linear` / `F.linear`, `matmul` / `@` / `einsum`, `masked_fill`, `where`,
# `tril` / `triu`, `repeat_interleave`, `expand`, `torch.rsqrt`, and complex numbers
# (`torch.polar`, `torch.complex`, `view_as_complex`, `view_as_real`) for a RoPE written as a
# complex multiplication.
#
# ## What your code may run
#
# A solution is built from arithmetic, elementwise math, reductions, shape and indexing operations, creation, random draws and matrix products, and the FFN's activations and dropout. Any other operation your code runs, by whatever route (an alias, `getattr`, `torch.ops`, `torch._C`, scripting, a custom op, a tensor subclass, another backend's tensor), is refused: the verdict is *rejected* and names the operation. The built-ins listed above are refused where they are written, even in a branch that never runs: an interviewer reading the code would stop there. torch's private operator implementations (`torch._refs`, `torch._decomp`, `torch._prims`) are refused the same way: they hold every exercise's answer.
#
# ## How it is graded
#
# Twelve freshly drawn cases per submission, each building `DecoderBlock`, loading random
# weights (gains around 1, projections scaled by `1/sqrt(fan_in)`) and calling it, most of them
# twice or three times in train and eval mode with a backward pass and a parameter update between
# calls. The reference is PyTorch's own (`F.rms_norm`, `F.scaled_dot_product_attention` with
# `enable_gqa`, `F.silu`), computed in float64. The cases: grouped-query attention over a stream
# offset by 2 with `eps = 0.1` (where every mistake below shows, so it comes first); a tiny stream
# (`1e-3 * N(0,1)`, `wo` scaled down too) where `eps = 1e-6` matters in both norms; multi-head and
# multi-query layouts; a batch of one with odd sizes (`dim = 30`, three heads, `hidden_dim = 37`);
# `dim = 144` with twelve heads and four kv heads; a sequence of one token; a sequence of 20 to 24
# tokens; `eps = 1e-5` on small inputs; a stream of `30 * N(0,1)`; transposed and strided
# (non-contiguous) inputs; two forward-only calls under `torch.no_grad()`; float32 and float64.
#
# When the layer is wrong the verdict says **which part**: the RMSNorm class (both norms), the
# attention norm or the FFN norm alone, a residual add, the wiring (post-norm), the norms' modules,
# the FFN's gate, or, inside the attention, the heads' layout, the scale, the mask, the kv repeat
# or RoPE.
#
# **Also, as for every exercise:** three calls in a row with fresh data of one shape, then an update and two more calls (code that caches what it computed, or changes from its third call on, fails); float64 cases leave room for float32 internals (`x.float()` and a cast back, as Llama's RMSNorm does, is correct).
#
# ## Pitfalls interviewers look for
#
# - **Heads split or merged by `reshape` alone.** `(batch, seq, heads * head_dim)` becomes
#   `(batch, heads, seq, head_dim)` with `view(b, seq, heads, head_dim).transpose(1, 2)`; back
#   with `transpose(1, 2).reshape(...)`. A reshape without the transpose runs and mixes tokens.
# - **The scale is `1/sqrt(head_dim)`**, not `1/sqrt(dim)`: each head's score is a dot product of
#   `head_dim` numbers.
# - **The causal mask keeps the diagonal**: `triu(diagonal=1)` is what is hidden. `triu(0)` leaves
#   the first token nothing to attend (NaN), `tril(1)` shows each token the next one.
# - **kv heads in blocks**: `repeat_interleave(n_rep, dim=1)`, not `repeat(1, n_rep, 1, 1)` or
#   `cat([k] * n_rep)`, which tile them.
# - **RoPE on q and k only**, in the rotate-half convention. Meta's original code rotates
#   neighbouring pairs `(x[2i], x[2i+1])` with complex numbers; that is the same model only after
#   permuting the rows of `wq` and `wk`, so with these weights it is wrong.
# - **Two norms, each in its own place**: `attention_norm` before the attention, `ffn_norm` before
#   the FFN; one module for both, or one of them used twice, is a different model.
# - **Pre-norm, with the skip path carrying the stream itself**: `x + attention(norm(x))`, not
#   `norm(x + attention(x))`, and no half-layer without its add.
# - **RMSNorm, not LayerNorm**: no mean subtraction, `eps` inside the root.
# - **SwiGLU's gate is `w1`**: `silu(w1(h)) * w3(h)`.
#
# ## Why it works
#
# - **Pre-norm.** Each sublayer sees its input at a controlled scale, whatever the stream has
#   grown to, while the stream itself is only ever added to. The Jacobian of a layer is then the
#   identity plus the sublayers' terms, so gradients reach the first layers without passing
#   through any norm; the price is a stream whose magnitude grows with depth, which is why LLaMA
#   ends with one more RMSNorm before the output projection.
# - **RoPE.** Rotating `q` at position `m` and `k` at position `n` by angles proportional to
#   their positions makes their dot product depend on `m - n` only: relative position enters the
#   scores, and nothing is added to the stream. `v` is not rotated: positions belong in the scores,
#   not in the content that is mixed.
# - **Grouped-query attention.** The keys and values are what a decoder caches for every past
#   token; sharing each kv head among `n_heads / n_kv_heads` query heads divides that cache (and
#   `wk`, `wv`) by the same factor, at a small cost in quality (LLaMA 2 70B uses 8 kv heads for
#   64 query heads).
# - **The causal mask** makes training on a whole sequence at once equivalent to predicting each
#   token from the ones before it.
#
# ## Interviewer follow-ups
#
# The questions an interviewer asks once this runs are served with the exercise (the
# `follow_ups` field of `GET /exercises/decoder_block`) and listed at the end of its notebook,
# each linked to the question-bank item that answers it: the parameter count of a LLaMA-7B layer
# (`dec-llama7b-layer-params`), its FLOPs per token (`dec-flops-per-token`), the order of
# operations (`dec-order-of-operations`), why pre-norm (`dec-why-pre-norm`), where the residual
# stream lives (`dec-residual-stream`), why v is not rotated (`dec-rope-on-values`), a layer with a bug to find (`dec-code-kv-repeat`) and how
# much GQA saves (`dec-gqa-cache-factor`).
#
# ## Cost and memory
#
# - **Parameters:** `dim^2 * (2 + 2 * n_kv_heads / n_heads) + 3 * dim * hidden_dim + 2 * dim`.
#   For LLaMA-7B (`dim = 4096`, 32 heads, `hidden_dim = 11008`) that is about 202 million per
#   layer, two thirds of it in the FFN.
# - **FLOPs per token (forward):** twice the matmul parameters, plus about `4 * seq * dim` for the
#   scores and the weighted sum (half of that with the causal mask skipped).
# - **Activations kept for backward:** the two norms' inputs and outputs, q, k, v after RoPE, the
#   `(batch, n_heads, seq, seq)` attention weights (the term quadratic in `seq`, which
#   FlashAttention recomputes instead of storing), and the SwiGLU's `(batch, seq, hidden_dim)`
#   tensors.
#
# ## Test yourself
#
# - Stack eight of your layers with random weights and print the residual stream's RMS after
#   each; do the same with post-norm. Then add a final RMSNorm.
# - Check RoPE's promise: rotate a random `q` at position `m` and `k` at position `n`, and show
#   that `q . k` is unchanged when both positions shift by the same amount.
# - Load the nine tensors of one layer of a LLaMA checkpoint (converted to the Hugging Face
#   layout, where `wq` and `wk` rows are permuted for rotate-half) into your module.
#
# ## Background
#
# The course articles cover the half of this layer that is not attention: the article "FFN,
# Residual Addition, LN" in "1.2 Add （Residual Connection，残差连接）", "2.2 RMSNorm",
# "2.3 Pre-Norm & Post-Norm" and "SwiGLU"; the article "Transformer残差连接与归一化层实现详解" on
# where norms go in "2.3 归一化层的位置争议". Attention, rotary embeddings and grouped-query attention
# are not in the articles; see the papers: Vaswani et al. 2017, "Attention Is All You Need";
# Su et al. 2021, "RoFormer: Enhanced Transformer with Rotary Position Embedding"; Shazeer 2019,
# "Fast Transformer Decoding: One Write-Head is All You Need"; Ainslie et al. 2023, "GQA:
# Training Generalized Multi-Query Transformer Models from Multi-Head Checkpoints"; Zhang and
# Sennrich 2019, "Root Mean Square Layer Normalization"; Shazeer 2020, "GLU Variants Improve
# Transformer"; Touvron et al. 2023, "LLaMA: Open and Efficient Foundation Language Models".

# %% [markdown]
# <details><summary>中文说明</summary>
#
# # LLaMA 解码器层：RMSNorm、RoPE、分组查询注意力与 SwiGLU
#
# 这是收官题：完整写出 LLaMA 式解码器的一层，每个部件都由你自己实现。这一层是残差流上的两个半层，
# 每个半层读取残差流的归一化副本，做完计算，再把结果加回去：
#
# $$\begin{aligned}
# h &= x + \mathrm{attention}(\mathrm{attention\_norm}(x))\\
# \mathrm{out} &= h + \mathrm{feed\_forward}(\mathrm{ffn\_norm}(h))
# \end{aligned}$$
#
# 这些部件你之前都写过（RMSNorm、SwiGLU、缩放点积注意力）；新的地方在于真实模型里的注意力（多个头、
# kv 头比查询头少、旋转位置编码、因果掩码），以及把这一切按 LLaMA 的结构接好，让 LLaMA 检查点里的
# 一层可以按参数名原样加载进你的模块。
#
# ## 要写什么
#
# ```python
# class DecoderBlock(nn.Module):
#     def __init__(
#         self, dim: int, n_heads: int, n_kv_heads: int, hidden_dim: int, eps: float = 1e-6
#     ) -> None: ...
#     def forward(self, x: torch.Tensor) -> torch.Tensor: ...  # (batch, seq, dim) -> 同形状
# ```
#
# - **参数**：`n_kv_heads` 和 `hidden_dim` 没有默认值，必须传入（`n_kv_heads = n_heads` 就是普通的
#   多头注意力，`1` 是多查询注意力，介于两者之间且能整除 `n_heads` 的是分组查询注意力）。
#   `eps = 1e-6` 是 LLaMA 的默认值。`head_dim = dim // n_heads`；评测只会构造 `n_heads` 整除
#   `dim`、`n_kv_heads` 整除 `n_heads`、`head_dim` 为偶数的层。
# - **子模块，名字必须与 Meta 的 LLaMA 完全一致**（它们的类写在同一个单元格里，类名随意）。别的都
#   不要：没有 bias，没有额外的参数或 buffer；归一化层要有两个，不能把一个模块注册两次。
#
#   | 属性 | 内容 | state dict |
#   | --- | --- | --- |
#   | `attention_norm` | 你的 RMSNorm，增益 `weight` 初始化为全 1 | `attention_norm.weight` `(dim,)` |
#   | `attention` | 不带 bias 的 `wq`、`wk`、`wv`、`wo` | `attention.wq.weight` `(n_heads * head_dim, dim)`，`attention.wk.weight` 和 `attention.wv.weight` `(n_kv_heads * head_dim, dim)`，`attention.wo.weight` `(dim, n_heads * head_dim)` |
#   | `ffn_norm` | 第二个 RMSNorm，有自己的 `weight` | `ffn_norm.weight` `(dim,)` |
#   | `feed_forward` | 你的 SwiGLU：不带 bias 的 `w1`（门控）、`w3`（升维）、`w2`（降维） | `feed_forward.w1.weight` 和 `feed_forward.w3.weight` `(hidden_dim, dim)`，`feed_forward.w2.weight` `(dim, hidden_dim)` |
#
# - **RMSNorm**：$\mathrm{norm}(x) = x / \sqrt{\mathrm{mean}(x^2) + \varepsilon} \cdot \mathrm{weight}$，
#   均值在最后一维上求，不减均值，没有 bias。
# - **注意力**，输入 `x` 的形状为 `(batch, seq, dim)`（传进来的是 `attention_norm(x)`）：
#   1. `q = wq(x)`、`k = wk(x)`、`v = wv(x)`，拆成多个头：`(batch, heads, seq, head_dim)`（q 有
#      `n_heads` 个头，k 和 v 各有 `n_kv_heads` 个头）。
#   2. **只对 q 和 k 做 RoPE，v 不做**，采用 rotate-half 约定（Hugging Face 的 LLaMA 以及本课程
#      `rotary_embedding` 一题都用这个约定）：令 $\theta_i = 10000^{-2i/d}$，$i = 0, \dots, d/2 - 1$
#      （$d$ 即 `head_dim`，`inv_freq = 10000 ** (-arange(0, d, 2) / d)`），位置
#      $p = 0, \dots, \mathrm{seq} - 1$，第 $i$ 个特征和第 $i + d/2$ 个特征组成一对，旋转角度为
#      $p\,\theta_i$：
#      $$R(t) = t \odot \cos + \mathrm{rotate\_half}(t) \odot \sin, \qquad \mathrm{rotate\_half}([t_1, t_2]) = [-t_2, t_1],$$
#      其中 `cos` 和 `sin` 在第 $i$ 和第 $i + d/2$ 个特征上都存放 $\cos(p\,\theta_i)$、$\sin(p\,\theta_i)$。
#   3. **分组查询**：第 `h` 个查询头使用第 `h // (n_heads // n_kv_heads)` 个 kv 头，也就是每个 kv
#      头服务一段连续的查询头，和 LLaMA 的 `repeat_kv`（或 `repeat_interleave(n_rep, dim=1)`）的
#      排列方式一致。本课程 `multi_head_attention` 一题用的是同一个约定。
#   4. 分数为 `q @ k^T / sqrt(head_dim)`，**因果**：第 `i` 个 query 只关注 `j <= i` 的 key；沿 key
#      方向做 softmax，再乘以 `v`。
#   5. 把各个头合并回 `(batch, seq, n_heads * head_dim)`，再过 `wo`。
# - **SwiGLU**：$\mathrm{feed\_forward}(h) = w_2(\mathrm{silu}(w_1 h) \odot w_3 h)$。
# - **输入**是一整段序列，位置为 `0..seq-1`，dtype 为 float32 或 float64，可能是非连续张量；返回
#   dtype 相同的 `(batch, seq, dim)`，不要修改输入。这里没有 KV cache，也没有位置偏移：带缓存的逐个
#   token 解码是另一道题（`kv_cache_attention`）。
# - 没有 dropout，也没有其他状态：train 和 eval 模式算的是同一个东西，每次调用都用参数在那一刻的值。
# - **精度**：像 LLaMA 参考代码那样把归一化（以及 softmax）放到 float32 里算再转回去
#   （`self._norm(x.float()).type_as(x)`）也算对：float64 用例的容差给这种写法留了余地。
#
# 评测比较输出，以及对 `x` 和全部九个参数的梯度。
#
# ## 不允许使用
#
# 整个归一化的内置实现（`nn.RMSNorm`、`F.rms_norm`、`torch.rms_norm`、`nn.LayerNorm`、
# `F.layer_norm`、`torch.layer_norm`），以及注意力的内置实现，不管通过什么途径调用：
# `F.scaled_dot_product_attention`（也包括 `torch._C._nn.scaled_dot_product_attention`）、它的私有和
# 融合入口（`_scaled_dot_product_attention_math`、`_scaled_dot_product_flash_attention` 及
# `..._for_cpu`、`_scaled_dot_product_efficient_attention`、`_scaled_dot_product_cudnn_attention`、
# `_fused_sdp_choice`、`_flash_attention_forward`、`_efficient_attention_forward` 等）、
# `nn.MultiheadAttention`、`F.multi_head_attention_forward`、
# `torch.ao.nn.quantizable.MultiheadAttention`，以及 `nn.Transformer` 和它的编码器、解码器层与堆叠。
# 用到其中任何一个的提交都会被判为 *rejected*。
#
# **可以使用**：`torch.softmax` / `F.softmax`（本题考的是整层，不是 softmax）、`F.silu`、
# `nn.Linear` / `F.linear`、`matmul` / `@` / `einsum`、`masked_fill`、`where`、`tril` / `triu`、
# `repeat_interleave`、`expand`、`torch.rsqrt`，以及复数运算（`torch.polar`、`torch.complex`、
# `view_as_complex`、`view_as_real`），用来把 RoPE 写成复数乘法。
#
# ## 代码可以运行什么
#
# 答案只能由算术、逐元素数学函数、归约、形状与索引操作、张量创建、随机采样和矩阵乘法，以及 FFN 的激活函数和 dropout构成。代码运行的任何其他运算，不管通过什么途径（起别名、`getattr`、`torch.ops`、`torch._C`、脚本化、自定义算子、张量子类、其他后端的张量），都会被拒绝：判定为 *rejected*，并指出是哪个运算。上面列出的内置函数只要写在代码里就会被拒绝，即使所在的分支从不执行：面试官读到那一行就会停下来。torch 私有的算子实现（`torch._refs`、`torch._decomp`、`torch._prims`）同样被拒绝：每道题的答案都在里面。
#
# ## 如何评测
#
# 每次提交重新抽取十二个用例，每个用例构造 `DecoderBlock`，加载随机权重（增益在 1 附近，投影按
# `1/sqrt(fan_in)` 缩放）后调用它，大多数用例在 train 和 eval 模式下调用两到三次，每次都做反向传播，
# 两次调用之间更新一次参数。参考实现用的是 PyTorch 自己的部件（`F.rms_norm`、带 `enable_gqa` 的
# `F.scaled_dot_product_attention`、`F.silu`），在 float64 里计算。用例包括：残差流整体偏移 2、
# `eps = 0.1` 的分组查询注意力（下面列出的每个错误在这里都会暴露，所以它排在最前面）；整个残差流都
# 很小（`1e-3 * N(0,1)`，`wo` 也缩小），`eps = 1e-6` 在两个归一化层里都起作用；多头和多查询两种
# 布局；批大小为 1 且尺寸不规整（`dim = 30`，三个头，`hidden_dim = 37`）；`dim = 144`，十二个查询头、
# 四个 kv 头；只有一个 token 的序列；20 到 24 个 token 的序列；小输入上的 `eps = 1e-5`；
# `30 * N(0,1)` 的残差流；转置和跨步切片得到的非连续输入；在 `torch.no_grad()` 下只做前向的两次
# 调用；float32 和 float64。
#
# 层算错时，判定结果会指出**错在哪个部件**：RMSNorm 类（两个归一化层都错）、只有注意力前的归一化或
# 只有 FFN 前的归一化、某一处残差相加、连接方式（Post-Norm）、归一化模块的用法、FFN 的门控，或者
# 注意力内部的拆头合头、缩放、掩码、kv 头复制、RoPE。
#
# **和每道题一样，还有：**同一形状、新数据连续调用三次，再更新参数后调用两次（缓存结果、或从第三次调用起行为改变的代码会判错）；float64 用例给 float32 内部计算留了余量（像 Llama 的 RMSNorm 那样先 `x.float()` 再转回去也算对）。
#
# ## 面试官会盯的坑
#
# - **只用 `reshape` 拆头或合头。**`(batch, seq, heads * head_dim)` 要用
#   `view(b, seq, heads, head_dim).transpose(1, 2)` 变成 `(batch, heads, seq, head_dim)`，合并时用
#   `transpose(1, 2).reshape(...)`。少了 transpose 的 reshape 照样能跑，但会把不同 token 混在一起。
# - **缩放是 `1/sqrt(head_dim)`**，不是 `1/sqrt(dim)`：每个头的分数是 `head_dim` 个数的点积。
# - **因果掩码要保留对角线**：被遮住的是 `triu(diagonal=1)`。`triu(0)` 让第一个 token 无处可看
#   （得到 NaN），`tril(1)` 让每个 token 多看到下一个。
# - **kv 头按块复制**：用 `repeat_interleave(n_rep, dim=1)`，而不是 `repeat(1, n_rep, 1, 1)` 或
#   `cat([k] * n_rep)`，后两者是整体平铺。
# - **RoPE 只作用于 q 和 k**，采用 rotate-half 约定。Meta 原始代码用复数旋转相邻的一对
#   `(x[2i], x[2i+1])`；只有重排 `wq`、`wk` 的行之后它才是同一个模型，在这里的权重下就是错的。
# - **两个归一化层各就各位**：`attention_norm` 在注意力前，`ffn_norm` 在 FFN 前；两处共用一个模块，
#   或者同一个归一化层用了两次，都是另一个模型。
# - **Pre-Norm，跳连路径传的是残差流本身**：`x + attention(norm(x))`，不是
#   `norm(x + attention(x))`，两个半层都不能少了相加。
# - **是 RMSNorm，不是 LayerNorm**：不减均值，`eps` 放在根号里面。
# - **SwiGLU 的门控是 `w1`**：`silu(w1(h)) * w3(h)`。
#
# ## 为什么有效
#
# - **Pre-Norm。**不管残差流增长到多大，每个子层看到的输入尺度都是受控的，而残差流本身只会被加上
#   增量。于是一层的雅可比矩阵是单位阵加上子层的项，梯度不经过任何归一化就能传到最前面的层；代价是
#   残差流的幅度随深度增长，所以 LLaMA 在输出投影之前还要再加一个 RMSNorm。
# - **RoPE。**把位置 `m` 的 `q` 和位置 `n` 的 `k` 按与位置成正比的角度旋转后，两者的点积只取决于
#   `m - n`：相对位置进入了分数，残差流里什么也没加。`v` 不旋转：位置信息属于分数，不属于被混合的
#   内容。
# - **分组查询注意力。**解码器要为每个已生成的 token 缓存 key 和 value；让 `n_heads / n_kv_heads`
#   个查询头共用一个 kv 头，缓存（以及 `wk`、`wv`）就缩小同样的倍数，质量只损失一点（LLaMA 2 70B
#   用 8 个 kv 头对应 64 个查询头）。
# - **因果掩码**让一次性在整段序列上训练，等价于根据前面的 token 逐个预测下一个 token。
#
# ## 面试官的追问
#
# 这道题跑通之后，面试官常问的问题会随题目一起提供（`GET /exercises/decoder_block` 的 `follow_ups`
# 字段），也列在对应 notebook 的末尾，每个问题都链接到题库中给出答案的那道题：LLaMA-7B 一层的参数量
# （`dec-llama7b-layer-params`）、每个 token 的 FLOPs（`dec-flops-per-token`）、运算顺序
# （`dec-order-of-operations`）、为什么用 Pre-Norm（`dec-why-pre-norm`）、残差流在哪里
# （`dec-residual-stream`）、为什么不旋转 v（`dec-rope-on-values`）、找出一层里的 bug（`dec-code-kv-repeat`），以及 GQA 省了多少
# （`dec-gqa-cache-factor`）。
#
# ## 计算量与显存
#
# - **参数量**：`dim^2 * (2 + 2 * n_kv_heads / n_heads) + 3 * dim * hidden_dim + 2 * dim`。
#   LLaMA-7B（`dim = 4096`，32 个头，`hidden_dim = 11008`）每层约 2.02 亿，其中三分之二在 FFN。
# - **每个 token 的前向 FLOPs**：矩阵乘法参数量的两倍，再加上分数和加权求和的约 `4 * seq * dim`
#   （因果掩码跳过的部分不算的话是一半）。
# - **反向要保存的激活**：两个归一化层的输入和输出，RoPE 之后的 q、k、v，
#   `(batch, n_heads, seq, seq)` 的注意力权重（随 `seq` 平方增长的部分，FlashAttention 改为重新
#   计算而不保存），以及 SwiGLU 的 `(batch, seq, hidden_dim)` 张量。
#
# ## 自我检验
#
# - 用随机权重把八层你的实现叠起来，打印每层之后残差流的 RMS；再换成 Post-Norm 做一遍。然后在最后
#   加一个 RMSNorm。
# - 验证 RoPE 的承诺：把随机的 `q` 旋转到位置 `m`、`k` 旋转到位置 `n`，证明两个位置同时平移相同的
#   距离时 `q . k` 不变。
# - 把 LLaMA 检查点中一层的九个张量（转换成 Hugging Face 布局，其中 `wq`、`wk` 的行为了 rotate-half
#   重新排列过）加载进你的模块。
#
# ## 背景
#
# 课程文章覆盖的是这一层里注意力以外的那一半：《FFN, Residual Addition, LN》的
# “1.2 Add （Residual Connection，残差连接）”“2.2 RMSNorm”“2.3 Pre-Norm & Post-Norm”和
# “SwiGLU”几节；《Transformer残差连接与归一化层实现详解》的“2.3 归一化层的位置争议”讨论归一化层放在
# 哪里。注意力、旋转位置编码和分组查询注意力不在这些文章里，请参考论文：Vaswani et al. 2017，
# “Attention Is All You Need”；Su et al. 2021，“RoFormer: Enhanced Transformer with Rotary
# Position Embedding”；Shazeer 2019，“Fast Transformer Decoding: One Write-Head is All You Need”；
# Ainslie et al. 2023，“GQA: Training Generalized Multi-Query Transformer Models from Multi-Head
# Checkpoints”；Zhang 与 Sennrich 2019，“Root Mean Square Layer Normalization”；Shazeer 2020，
# “GLU Variants Improve Transformer”；Touvron et al. 2023，“LLaMA: Open and Efficient Foundation
# Language Models”。
#
# </details>

# %% [markdown]
# ## How this notebook works
#
# 1. The service must be running (`addnorm serve`, or `docker compose up`). This kernel finds it
#    through `ADDNORM_URL` (default `http://127.0.0.1:8000`) and needs your learner token in
#    `ADDNORM_TOKEN`. No token yet? Run this once in a cell: it creates a learner and sets the
#    token in this kernel (keep the token if you want to come back to your progress):
#
#    ```python
#    import os; from addnorm_client import Client; os.environ["ADDNORM_TOKEN"] = Client().create_user("me")["token"]
#    ```
#
#    With a token already, `%env ADDNORM_TOKEN=...` sets it.
# 2. Write your class in the exercise cell below and run it. Keep its first line,
#    `# addnorm: exercise decoder_block`: the submit cell sends the last *executed* cell that starts with it.
# 3. Run the quick local check: it runs your exercise cell again **on its own**, in a fresh
#    namespace, exactly as the server will (so a missing import fails here too), and compares a
#    few public cases with PyTorch.
# 4. Run the submit cell: the server grades your code in its sandbox and shows the verdict, with
#    a diagnosis when your output matches a known mistake.
# 5. Then the interviewer's follow-ups: the questions asked once the code runs.
#
# <details><summary>中文</summary>
#
# ## 这个 notebook 怎么用
#
# 1. 先把服务跑起来（`addnorm serve` 或 `docker compose up`）。kernel 通过 `ADDNORM_URL`
#    找到服务（默认 `http://127.0.0.1:8000`），并从 `ADDNORM_TOKEN` 读取你的学习者 token。
#    还没有 token？在任意单元格里运行一次下面这行：它会新建一个学习者，并把 token 设置到当前
#    kernel 中（想以后接着看自己的进度，就把 token 记下来）：
#
#    ```python
#    import os; from addnorm_client import Client; os.environ["ADDNORM_TOKEN"] = Client().create_user("me")["token"]
#    ```
#
#    已经有 token 的话，用 `%env ADDNORM_TOKEN=...` 设置即可。
# 2. 在下面的练习单元格里写好你的类并运行。第一行 `# addnorm: exercise decoder_block` 不要删：提交单元格发送的是
#    最近一次*运行过*、以这一行开头的单元格。
# 3. 运行本地快速检查：它会把练习单元格的代码**单独**放进一个全新的命名空间再执行一遍，
#    和服务器的做法完全一样（漏写的 import 在这里就会暴露），然后在几个公开用例上与 PyTorch
#    对比。
# 4. 运行提交单元格：服务器在沙箱中评测你的代码并给出结论；如果你的输出与某个已知错误吻合，
#    还会指出是哪一个。
# 5. 最后是面试官的追问：代码跑通之后面试官通常会接着问的问题。
#
# </details>

# %% [markdown]
# ## Your implementation · 你的实现

# %%
# addnorm: exercise decoder_block
import math  # noqa: F401  (math.sqrt: yours to use)

import torch
import torch.nn.functional as F  # noqa: F401  (F.silu, F.linear, torch.softmax: yours to use)
from torch import nn


class DecoderBlock(nn.Module):
    # The exercise's class comes first; the three pieces it is built from follow.
    def __init__(
        self, dim: int, n_heads: int, n_kv_heads: int, hidden_dim: int, eps: float = 1e-6
    ) -> None:
        super().__init__()
        # The grader loads these names (Meta's LLaMA layer): keep them.
        self.attention_norm = RMSNorm(dim, eps)
        self.attention = Attention(dim, n_heads, n_kv_heads)
        self.ffn_norm = RMSNorm(dim, eps)
        self.feed_forward = FeedForward(dim, hidden_dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # x: (batch, seq, dim) -> h = x + attention(attention_norm(x))
        #                      -> out = h + feed_forward(ffn_norm(h))
        raise NotImplementedError("implement DecoderBlock.forward")


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))  # (dim,): the gain, ones at init

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # x: (..., dim) -> x * rsqrt(mean(x^2) over the last dim + eps) * weight
        raise NotImplementedError("implement RMSNorm.forward")


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
        # x: (batch, seq, dim) -> causal grouped-query attention, RoPE on q and k
        #    -> (batch, seq, dim)
        raise NotImplementedError("implement Attention.forward")


class FeedForward(nn.Module):
    def __init__(self, dim: int, hidden_dim: int) -> None:
        super().__init__()
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)  # gate
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)  # down
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)  # up

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # x: (..., dim) -> w2(silu(w1(x)) * w3(x))
        raise NotImplementedError("implement FeedForward.forward")


# %% [markdown]
# ## Quick local check
#
# Runs your exercise cell again on its own, in a fresh namespace, as the server does, then
# compares a few public cases, forward pass only, with a reference in this kernel. It is a sanity
# check and **does not replace the server's verdict**, which runs many more shapes and dtypes,
# the backward pass and the known-mistake diagnosis.
#
# Reference: The layer h = x + attention(attention_norm(x)), out = h + feed_forward(ffn_norm(h)), with
# causal grouped-query attention and RoPE (rotate-half, base 10000), random weights.
#
# <details><summary>中文</summary>
#
# ## 本地快速检查
#
# 和服务器一样，把你的练习单元格单独放进全新的命名空间重新执行，再用几个公开用例（只做前向）
# 在当前 kernel 里与参考实现对比。这只是一次自检，**不能代替服务器的评测**：服务器会覆盖多得多的
# 形状和 dtype，还会检查反向传播并诊断已知错误。
#
# 参考实现：这一层 h = x + attention(attention_norm(x))，out = h + feed_forward(ffn_norm(h))，
# 因果分组查询注意力，
# RoPE（rotate-half，base 10000），权重取随机值。
#
# </details>

# %%
import math

import torch
import torch.nn.functional as F

from addnorm_client.local import LocalCase


def _rope(t: torch.Tensor) -> torch.Tensor:  # (batch, heads, seq, head_dim)
    seq, d = t.shape[-2], t.shape[-1]
    inv_freq = 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    angles = torch.outer(torch.arange(seq, dtype=torch.float64), inv_freq)
    cos = torch.cat((angles, angles), -1).cos().to(t.dtype)
    sin = torch.cat((angles, angles), -1).sin().to(t.dtype)
    t1, t2 = t[..., : d // 2], t[..., d // 2 :]
    return t * cos + torch.cat((-t2, t1), -1) * sin


def local_cases() -> list[LocalCase]:
    g = torch.Generator().manual_seed(0)

    def case(name: str, shape: tuple[int, int, int], heads: int, kv: int, hidden: int) -> LocalCase:
        b, seq, dim = shape
        hd = dim // heads

        def w(rows: int, cols: int) -> torch.Tensor:
            # Scaled by 1/sqrt(fan_in) so the activations stay around unit size.
            return torch.randn(rows, cols, generator=g) / math.sqrt(cols)

        x = torch.randn(shape, generator=g)
        state = {
            "attention_norm.weight": 1 + 0.5 * torch.randn(dim, generator=g),
            "attention.wq.weight": w(heads * hd, dim),
            "attention.wk.weight": w(kv * hd, dim),
            "attention.wv.weight": w(kv * hd, dim),
            "attention.wo.weight": w(dim, heads * hd),
            "ffn_norm.weight": 1 + 0.5 * torch.randn(dim, generator=g),
            "feed_forward.w1.weight": w(hidden, dim),
            "feed_forward.w2.weight": w(dim, hidden),
            "feed_forward.w3.weight": w(hidden, dim),
        }
        s = state
        a = F.rms_norm(x, (dim,), s["attention_norm.weight"], 1e-6)
        q = F.linear(a, s["attention.wq.weight"]).view(b, seq, heads, hd).transpose(1, 2)
        k = F.linear(a, s["attention.wk.weight"]).view(b, seq, kv, hd).transpose(1, 2)
        v = F.linear(a, s["attention.wv.weight"]).view(b, seq, kv, hd).transpose(1, 2)
        o = F.scaled_dot_product_attention(
            _rope(q), _rope(k), v, is_causal=True, enable_gqa=heads != kv
        )
        h = x + F.linear(o.transpose(1, 2).reshape(b, seq, dim), s["attention.wo.weight"])
        n = F.rms_norm(h, (dim,), s["ffn_norm.weight"], 1e-6)
        up = F.silu(F.linear(n, s["feed_forward.w1.weight"])) * F.linear(
            n, s["feed_forward.w3.weight"]
        )
        return LocalCase(
            name=name,
            x=x,
            build=lambda cls: cls(dim, heads, kv, hidden),
            state=state,
            expected=h + F.linear(up, s["feed_forward.w2.weight"]),
        )

    return [
        case("multi-head, dim 16, 2 heads, 5 tokens", (2, 5, 16), 2, 2, 24),
        case("grouped-query, 4 heads, 2 kv heads", (2, 6, 32), 4, 2, 40),
        case("multi-query, 3 heads, 1 kv head, batch of 1", (1, 7, 24), 3, 1, 36),
    ]


from addnorm_client.local import check

check("decoder_block", "DecoderBlock", local_cases())

# %% [markdown]
# ## Submit to the grader
#
# Sends the exercise cell to the server and shows the verdict: a table of checks with their
# errors, and the diagnosis when one matches. If the server cannot be reached it says so and the
# notebook carries on.
#
# <details><summary>中文</summary>
#
# 把练习单元格发给服务器并显示评测结论：逐项检查及其误差；如果与某个已知错误吻合，还会给出
# 诊断。连不上服务器时会提示原因，notebook 照常往下运行。
#
# </details>

# %%
from addnorm_client.render import submit_cell

submit_cell("decoder_block")

# %% [markdown]
# ## Interviewer follow-ups
#
# Once the code runs, an interviewer keeps going. Answer out loud first, then check yourself: each
# question links to an item of the question bank, served and graded by the server
# (`GET /questions/<id>`) and collected by topic in the `questions_<topic>` notebooks.
#
# 1. How many parameters does one LLaMA-7B layer hold, and where are most of them? (`dec-llama7b-layer-params`, `questions_attention`)
# 2. About how many FLOPs does one token's forward pass through that layer cost? (`dec-flops-per-token`, `questions_attention`)
# 3. Walk me through the attention half, from x to h, in order. (`dec-order-of-operations`, `questions_attention`)
# 4. Why is LLaMA pre-norm, and what does that cost? (`dec-why-pre-norm`, `questions_attention`)
# 5. Where does the residual stream live in your layer, and is it ever normalised? (`dec-residual-stream`, `questions_attention`)
# 6. Why does RoPE rotate q and k but not v? (`dec-rope-on-values`, `questions_attention`)
# 7. This grouped-query attention has a bug. Find it. (`dec-code-kv-repeat`, `questions_attention`)
# 8. How much does grouped-query attention save in LLaMA 2 70B's KV cache? (`dec-gqa-cache-factor`, `questions_attention`)
#
# <details><summary>中文</summary>
#
# ## 面试官的追问
#
# 代码跑通之后，面试官还会接着问。先试着口头回答，再去核对：每个问题都对应题库中的一道题，
# 由服务器提供并判分（`GET /questions/<id>`），也按主题收录在 `questions_<topic>` notebook 里。
#
# 1. LLaMA-7B 的一层有多少参数？大部分在哪里？ (`dec-llama7b-layer-params`, `questions_attention`)
# 2. 一个 token 前向经过这一层大约要多少 FLOPs？ (`dec-flops-per-token`, `questions_attention`)
# 3. 按顺序讲一遍注意力那一半，从 x 到 h。 (`dec-order-of-operations`, `questions_attention`)
# 4. LLaMA 为什么用 Pre-Norm？代价是什么？ (`dec-why-pre-norm`, `questions_attention`)
# 5. 你的层里残差流在哪里？它被归一化过吗？ (`dec-residual-stream`, `questions_attention`)
# 6. 为什么 RoPE 只旋转 q 和 k，不旋转 v？ (`dec-rope-on-values`, `questions_attention`)
# 7. 这段分组查询注意力有一个 bug，找出来。 (`dec-code-kv-repeat`, `questions_attention`)
# 8. 在 LLaMA 2 70B 里，分组查询注意力给 KV cache 省了多少？ (`dec-gqa-cache-factor`, `questions_attention`)
#
# </details>
