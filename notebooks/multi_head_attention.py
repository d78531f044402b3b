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
# # Multi-head attention, with grouped key/value heads
#
# **topic:** attention · **difficulty:** hard
#
# Multi-head attention runs several attentions side by side, each on its own slice of the
# features, and mixes their outputs with one last projection. Modern decoders (LLaMA 2 70B,
# LLaMA 3, Mistral) share each key/value head among a group of query heads: grouped-query
# attention (GQA), and multi-query attention (MQA) when one key/value head serves them all.
# Interviewers ask for it because the attention itself is a few lines and everything around it,
# the split into heads, the scale, the masks and the kv-head bookkeeping, is where the bugs are.
#
# ## What to write
#
# ```python
# class MultiHeadAttention(nn.Module):
#     def __init__(
#         self, dim: int, n_heads: int, n_kv_heads: int | None = None, bias: bool = False
#     ): ...
#     def forward(self, x, mask=None, is_causal=False): ...  # (B, T, dim) -> (B, T, dim)
# ```
#
# - **Shapes.** `head_dim = dim // n_heads`; `n_kv_heads` None means `n_heads` (ordinary
#   multi-head attention), 1 is multi-query attention. The constructor raises `ValueError` when
#   `n_heads` does not divide `dim` or `n_kv_heads` does not divide `n_heads`.
# - **Parameters**, all `nn.Linear` with `bias=bias`, by these names: `wq` (`dim` ->
#   `n_heads * head_dim`), `wk` and `wv` (`dim` -> `n_kv_heads * head_dim`), `wo`
#   (`n_heads * head_dim` -> `dim`). The grader loads its own values into them.
# - **Heads.** Split each projection as `view(B, T, heads, head_dim).transpose(1, 2)`: head `h`
#   is features `h * head_dim .. (h + 1) * head_dim - 1` of every token. Query head `i` reads
#   key/value head `i // (n_heads // n_kv_heads)`, as LLaMA's `repeat_kv` (a
#   `repeat_interleave` on the head axis) arranges it.
# - **Attention per head**: `softmax(q @ k^T / sqrt(head_dim)) @ v`, softmax over the keys.
# - **`is_causal=True`**: query `i` sees key `j` only when `j <= i` (the lower triangle, `tril`).
# - **`mask`**: a boolean key-padding mask of shape `(B, T)`: **`True` = a real token that may
#   be attended**, `False` = padding, hidden from every query (the convention of
#   `F.scaled_dot_product_attention` and of Hugging Face's `attention_mask`;
#   `nn.MultiheadAttention`'s `key_padding_mask` is the opposite). Both masks may come together.
# - **A query with no key left** (a left-padded position under `is_causal`) returns **zeros**
#   before `wo` (so `wo`'s bias alone after it), with zero gradients: no NaN anywhere. That is
#   the convention of the `scaled_dot_product_attention` exercise and of torch since 2.5.
# - **Merge** the heads back with `transpose(1, 2).reshape(B, T, n_heads * head_dim)` and apply
#   `wo`. No dropout: train and eval mode compute the same function.
#
# In formulas, for query head $i$ with kv head $g(i) = \lfloor i / (H / H_{kv}) \rfloor$ and $M$ the
# masks as an additive matrix ($0$ where a key may be attended, $-\infty$ where not):
#
# $$\mathrm{head}_i = \mathrm{softmax}\!\left(\frac{Q_i K_{g(i)}^{\top}}{\sqrt{d_h}} + M\right) V_{g(i)}, \qquad \mathrm{MHA}(x) = \mathrm{concat}(\mathrm{head}_1, \dots, \mathrm{head}_H)\, W_O^{\top}$$
#
# ## Not allowed
#
# The attention is yours to write. Refused however it is reached: `F.scaled_dot_product_attention`
# (also `torch._C._nn.scaled_dot_product_attention`), its private and fused entry points (the
# aten ops `_scaled_dot_product_attention_math`, `_scaled_dot_product_flash_attention` and
# `..._for_cpu`, `_scaled_dot_product_efficient_attention`, `_scaled_dot_product_cudnn_attention`,
# `_fused_sdp_choice`, `_flash_attention_forward`, `_efficient_attention_forward`), the modules
# built on them (`nn.MultiheadAttention`, `F.multi_head_attention_forward`, `nn.Transformer` and
# its encoder and decoder layers) and the quantizable `MultiheadAttention` of
# `torch.ao.nn.quantizable` (written in Python from matmuls and a softmax, so refused by its
# class). A submission that reaches one is *rejected*.
#
# **Allowed**: `nn.Linear`, `@`/`matmul`, `einsum`, `bmm`, `softmax` (`torch.softmax`,
# `Tensor.softmax`: stable softmax has its own exercise), `masked_fill`, `where`,
# `tril`/`triu`, `repeat_interleave`, `expand`, `view`/`reshape`/`transpose`.
#
# ## What your code may run
#
# A solution is built from arithmetic, elementwise math, reductions, shape and indexing operations, creation, random draws and matrix products. Any other operation your code runs, by whatever route (an alias, `getattr`, `torch.ops`, `torch._C`, scripting, a custom op, a tensor subclass, another backend's tensor), is refused: the verdict is *rejected* and names the operation. The built-ins listed above are refused where they are written, even in a branch that never runs: an interviewer reading the code would stop there. torch's private operator implementations (`torch._refs`, `torch._decomp`, `torch._prims`) are refused the same way: they hold every exercise's answer.
#
# ## How it is graded
#
# Fifteen freshly drawn cases per submission, with random weights loaded into `wq`, `wk`, `wv`,
# `wo` (and their biases): causal GQA (4 heads sharing 2 kv heads); left padding under a causal
# mask, where padded queries see no key (dim 30: 5 heads of 6, `n_kv_heads=5` given, biases);
# right padding with `n_kv_heads` left at None; multi-query attention with biases (dim 21: 3
# heads of 7, one kv head); groups of four query heads per kv head; heads with their own
# temperatures (head `h`'s `wq` rows scaled by `h + 1`, so heads that mix show); dim 144 (12
# heads, 4 kv heads); a train-mode call, an optimiser-like update of every parameter, then an
# eval-mode call on a batch of one; a batch of one; a sequence of one token; a non-contiguous
# `x`; a forward under `torch.no_grad()`; and three constructions that must raise `ValueError`
# (dim 30 with 4 heads, 6 heads with 4 kv heads, 4 heads with 8 kv heads). float32 and float64;
# every call with backward compares the gradient of `x` and of every weight and bias.
#
# **Also, as for every exercise:** three calls in a row with fresh data of one shape, then an update and two more calls (code that caches what it computed, or changes from its third call on, fails); float64 cases are compared at float64's own precision: computing float64 input in float32 fails.
#
# ## Pitfalls interviewers look for
#
# - **Heads split by a reshape without the transpose**: `wq(x).view(B, H, T, hd)` cuts across
#   tokens, so a head holds pieces of several positions; the same on the way back.
# - **Scaling by the model width**: `1/sqrt(dim)` instead of `1/sqrt(head_dim)` (question
#   `mha-scale-head-dim`); or no scaling at all.
# - **kv heads repeated in the wrong order**: `k.repeat(1, g, 1, 1)` or `torch.cat([k] * g, 1)`
#   tiles them, so query head `i` reads kv head `i % n_kv` instead of `i // g`
#   (`mha-repeat-kv-order`).
# - **Mask applied after the softmax**: the zeroed weights no longer sum to 1.
# - **Causal mask off by one**: the diagonal hidden (`triu(0)`), or the next token visible
#   (`tril(1)`).
# - **Softmax over the queries** (`dim=-2`), **`True` read as padding**, **`wo` forgotten**.
# - **NaN for a query with no key left**, or `-1e9` fills that turn it into the mean of `v`.
#
# ## Why it works
#
# - **Heads.** One attention averages values with one set of weights per query. `H` heads of
#   width `dim / H` cost the same as one of width `dim` but let each query attend to `H`
#   different places at once (a syntactic neighbour, a coreferent, the previous token), and
#   `wo` mixes what they found (`mha-why-heads`).
# - **The scale.** Each head's score is a dot product over `head_dim` features: with
#   unit-variance entries its spread is `sqrt(head_dim)`, which `1/sqrt(head_dim)` brings back to
#   one. The model width never enters a head's dot product.
# - **Grouped kv heads.** Keys and values of `n_kv_heads < n_heads` heads are computed once and
#   shared by a group of `n_heads / n_kv_heads` adjacent query heads: `wk`, `wv` and, above all,
#   the KV cache shrink by that factor (`mha-gqa-saves`), at a small cost in quality that uptraining
#   recovers (Ainslie et al., 2023). Adjacent is the convention: trained weights depend on it.
# - **Masks before the softmax.** `exp(-inf) = 0` drops a hidden key from the normaliser; a row
#   with no finite score has no distribution, so its weights are defined as zero.
#
# ## Interviewer follow-ups
#
# The questions an interviewer asks once this runs are served with the exercise (the
# `follow_ups` field of `GET /exercises/multi_head_attention`) and listed at the end of its
# notebook, each linked to the question-bank item that answers it. A few to prepare:
#
# - How many parameters and FLOPs does the layer have? (`mha-param-count`, `mha-flops`)
# - Why several heads rather than one wide one? (`mha-why-heads`)
# - What do GQA and MQA save, and what do they cost? (`mha-gqa-saves`, `mha-mqa-quality`)
# - Why `sqrt(head_dim)` and not `sqrt(dim)`? (`mha-scale-head-dim`)
#
# ## Cost and memory
#
# Parameters: `dim * (n_heads * hd) * 2` for `wq` and `wo`, `dim * (n_kv_heads * hd) * 2` for `wk`
# and `wv`: `4 * dim^2` without grouping, `2 * dim^2 * (1 + n_kv / H)` with it. Per token, the
# projections cost `2 *` that in FLOPs and the scores and weighted sum `4 * T * dim` (causal: about
# half). Autograd keeps the `(B, H, T, T)` weights: memory quadratic in `T`. At inference the KV
# cache holds `2 * n_layers * n_kv_heads * hd` numbers per token, the figure GQA divides.
#
# ## Test yourself
#
# Add a KV cache: a `forward` that takes the cached `k`, `v` of earlier tokens and a single new
# token, and check it against the full causal forward position by position. Then add rotary
# embeddings to `q` and `k` after the split, and confirm that `n_kv_heads=1` and `n_kv_heads=n_heads`
# give the layer sizes the formula above predicts (`sum(p.numel() for p in m.parameters())`).
#
# ## Background
#
# The course articles do not cover attention: "FFN, Residual Addition, LN", section "为什么有了
# Attention 还需要 FFN", only contrasts it with the FFN. The sources are the papers: Vaswani et al., 2017,
# "Attention Is All You Need" (multi-head attention, the `1/sqrt(d_k)` scale); Shazeer, 2019,
# "Fast Transformer Decoding: One Write-Head is All You Need" (multi-query attention); Ainslie et
# al., 2023, "GQA: Training Generalized Multi-Query Transformer Models from Multi-Head
# Checkpoints" (grouped-query attention); and Touvron et al., 2023, "Llama 2" (GQA in the 70B
# model, `repeat_kv`).

# %% [markdown]
# <details><summary>中文说明</summary>
#
# # 多头注意力（含分组 key/value 头）
#
# 多头注意力把几个注意力并排运行，每个头只处理自己那一段特征，最后用一个投影把各头的输出混合
# 起来。现在的解码器（LLaMA 2 70B、LLaMA 3、Mistral）让一组 query 头共用一个 key/value 头：这就是
# 分组查询注意力（GQA）；所有 query 头只共用一个 key/value 头时，叫多查询注意力（MQA）。面试官
# 爱考它，是因为注意力本身只有几行，真正容易出错的是它周围的东西：拆头、缩放、掩码，以及 kv 头的
# 对应关系。
#
# ## 要写什么
#
# ```python
# class MultiHeadAttention(nn.Module):
#     def __init__(
#         self, dim: int, n_heads: int, n_kv_heads: int | None = None, bias: bool = False
#     ): ...
#     def forward(self, x, mask=None, is_causal=False): ...  # (B, T, dim) -> (B, T, dim)
# ```
#
# - **形状**：`head_dim = dim // n_heads`；`n_kv_heads` 为 None 时等于 `n_heads`（普通多头注意力），
#   为 1 时就是多查询注意力。`n_heads` 不能整除 `dim`，或 `n_kv_heads` 不能整除 `n_heads` 时，
#   构造函数抛出 `ValueError`。
# - **参数**：都用 `nn.Linear`，`bias=bias`，名字固定为：`wq`（`dim` -> `n_heads * head_dim`），
#   `wk` 和 `wv`（`dim` -> `n_kv_heads * head_dim`），`wo`（`n_heads * head_dim` -> `dim`）。评测
#   会把自己的参数值加载进去。
# - **拆头**：每个投影按 `view(B, T, heads, head_dim).transpose(1, 2)` 拆开：第 `h` 个头是每个 token
#   的第 `h * head_dim` 到 `(h + 1) * head_dim - 1` 个特征。第 `i` 个 query 头读取第
#   `i // (n_heads // n_kv_heads)` 个 key/value 头，与 LLaMA 的 `repeat_kv`（在头所在的维度上做
#   `repeat_interleave`）一致。
# - **每个头的注意力**：`softmax(q @ k^T / sqrt(head_dim)) @ v`，softmax 沿 key 方向。
# - **`is_causal=True`**：只有 `j <= i` 时 query `i` 才能看到 key `j`（下三角，`tril`）。
# - **`mask`**：形状为 `(B, T)` 的布尔 key 填充掩码：**`True` 表示真实 token，可以被关注**，
#   `False` 表示填充，对所有 query 都不可见（与 `F.scaled_dot_product_attention`、Hugging Face 的
#   `attention_mask` 约定一致；`nn.MultiheadAttention` 的 `key_padding_mask` 正好相反）。两种掩码
#   可以同时出现。
# - **一个可见 key 都没有的 query**（`is_causal` 时左侧填充的位置）在 `wo` 之前输出 **0**（因此
#   经过 `wo` 后只剩它的 bias），梯度也为 0：任何地方都不能出现 NaN。这与
#   `scaled_dot_product_attention` 这道题、以及 torch 2.5 起的约定一致。
# - **合并**：用 `transpose(1, 2).reshape(B, T, n_heads * head_dim)` 把多头拼回去，再做 `wo`。没有
#   dropout：train 和 eval 模式计算的是同一个函数。
#
# 用公式写，第 $i$ 个 query 头对应 kv 头 $g(i) = \lfloor i / (H / H_{kv}) \rfloor$，$M$ 是写成加性矩阵
# 的掩码（可以关注的 key 为 $0$，不可以的为 $-\infty$）：
#
# $$\mathrm{head}_i = \mathrm{softmax}\!\left(\frac{Q_i K_{g(i)}^{\top}}{\sqrt{d_h}} + M\right) V_{g(i)}, \qquad \mathrm{MHA}(x) = \mathrm{concat}(\mathrm{head}_1, \dots, \mathrm{head}_H)\, W_O^{\top}$$
#
# ## 不允许使用
#
# 注意力要你自己写。以下内容不管通过什么途径调用都会被拒绝：`F.scaled_dot_product_attention`
# （以及 `torch._C._nn.scaled_dot_product_attention`）、它的私有和融合入口（aten 算子
# `_scaled_dot_product_attention_math`、`_scaled_dot_product_flash_attention` 及
# `..._for_cpu`、`_scaled_dot_product_efficient_attention`、`_scaled_dot_product_cudnn_attention`、
# `_fused_sdp_choice`、`_flash_attention_forward`、`_efficient_attention_forward`），基于它们的模块
# （`nn.MultiheadAttention`、`F.multi_head_attention_forward`、`nn.Transformer` 及其 encoder、
# decoder 层），以及 `torch.ao.nn.quantizable` 里可量化的 `MultiheadAttention`（它用矩阵乘法和
# softmax 在 Python 里写成，所以按类名拒绝）。用到其中任何一个的提交会被判为 *rejected*。
#
# **允许使用**：`nn.Linear`、`@`/`matmul`、`einsum`、`bmm`、`softmax`（`torch.softmax`、
# `Tensor.softmax`：数值稳定的 softmax 另有一道题）、`masked_fill`、`where`、
# `tril`/`triu`、`repeat_interleave`、`expand`、`view`/`reshape`/`transpose`。
#
# ## 代码可以运行什么
#
# 答案只能由算术、逐元素数学函数、归约、形状与索引操作、张量创建、随机采样和矩阵乘法构成。代码运行的任何其他运算，不管通过什么途径（起别名、`getattr`、`torch.ops`、`torch._C`、脚本化、自定义算子、张量子类、其他后端的张量），都会被拒绝：判定为 *rejected*，并指出是哪个运算。上面列出的内置函数只要写在代码里就会被拒绝，即使所在的分支从不执行：面试官读到那一行就会停下来。torch 私有的算子实现（`torch._refs`、`torch._decomp`、`torch._prims`）同样被拒绝：每道题的答案都在里面。
#
# ## 如何评测
#
# 每次提交重新抽取十五个用例，`wq`、`wk`、`wv`、`wo`（以及它们的 bias）加载随机权重：因果
# GQA（4 个头共用 2 个 kv 头）；因果掩码加左侧填充，填充位置的 query 看不到任何 key（dim 30：
# 5 个头、每头 6 维，显式给出 `n_kv_heads=5`，带 bias）；右侧填充，`n_kv_heads` 保持 None；带
# bias 的多查询注意力（dim 21：3 个头、每头 7 维，一个 kv 头）；每 4 个 query 头共用一个 kv 头；
# 各头温度不同（第 `h` 个头的 `wq` 行乘以 `h + 1`，头一旦混在一起就会暴露）；dim 144（12 个头、
# 4 个 kv 头）；先以 train 模式调用，按优化器的方式更新所有参数，再以 eval 模式在批大小为 1 的
# 输入上调用；批大小为 1；序列只有一个 token；非连续的 `x`；`torch.no_grad()` 下只做前向；以及
# 三个必须抛出 `ValueError` 的构造（dim 30 配 4 个头，6 个头配 4 个 kv 头，4 个头配 8 个 kv 头）。
# dtype 为 float32 和 float64；每次带反向传播的调用都会比较 `x` 以及每个权重和 bias 的梯度。
#
# **和每道题一样，还有：**同一形状、新数据连续调用三次，再更新参数后调用两次（缓存结果、或从第三次调用起行为改变的代码会判错）；float64 用例按 float64 自身的精度比较：把 float64 输入放到 float32 里计算会判错。
#
# ## 面试官会盯的坑
#
# - **拆头时只 reshape 不 transpose**：`wq(x).view(B, H, T, hd)` 会跨 token 切分，一个头里装着
#   几个位置的碎片；合并时同样如此。
# - **按模型宽度缩放**：用 `1/sqrt(dim)` 而不是 `1/sqrt(head_dim)`（题目 `mha-scale-head-dim`）；
#   或者干脆没有缩放。
# - **kv 头的复制顺序错了**：`k.repeat(1, g, 1, 1)` 或 `torch.cat([k] * g, 1)` 是平铺，第 `i` 个
#   query 头读到的是第 `i % n_kv` 个 kv 头而不是第 `i // g` 个（`mha-repeat-kv-order`）。
# - **softmax 之后才加掩码**：清零后的权重之和不再是 1。
# - **因果掩码差一位**：遮住了对角线（`triu(0)`），或者能看到下一个 token（`tril(1)`）。
# - **softmax 沿 query 方向**（`dim=-2`）、**把 `True` 当成填充**、**忘了 `wo`**。
# - **没有可见 key 的 query 得到 NaN**，或者用 `-1e9` 填充，让它变成 `v` 的平均值。
#
# ## 为什么有效
#
# - **多头**：一个注意力对每个 query 只有一组权重。`H` 个宽度为 `dim / H` 的头与一个宽度为 `dim`
#   的头计算量相同，却能让每个 query 同时关注 `H` 个不同的地方（句法上的邻居、指代对象、前一个
#   token），再由 `wo` 把它们找到的东西混合起来（`mha-why-heads`）。
# - **缩放**：每个头的分数是 `head_dim` 个特征上的点积：各元素方差为 1 时标准差是
#   `sqrt(head_dim)`，乘以 `1/sqrt(head_dim)` 恰好拉回到 1。模型宽度根本不出现在单个头的点积里。
# - **分组 kv 头**：`n_kv_heads < n_heads` 个头的 key 和 value 只算一次，由相邻的
#   `n_heads / n_kv_heads` 个 query 头共用：`wk`、`wv`，尤其是 KV cache，都缩小这个倍数
#   （`mha-gqa-saves`），质量上的小损失可以通过继续训练补回来（Ainslie 等，2023）。“相邻”是约定：
#   训练好的权重依赖它。
# - **掩码在 softmax 之前**：`exp(-inf) = 0`，被遮住的 key 退出归一化；没有任何有限分数的行不构成
#   分布，它的权重定义为 0。
#
# ## 面试官的追问
#
# 代码跑通之后面试官会问的问题随题目一起提供（`GET /exercises/multi_head_attention` 返回的
# `follow_ups` 字段），也列在对应 notebook 的末尾，每个问题都链接到题库里给出答案的题目。可以先
# 准备这几个：
#
# - 这一层有多少参数、多少 FLOPs？（`mha-param-count`、`mha-flops`）
# - 为什么用多个头，而不是一个很宽的头？（`mha-why-heads`）
# - GQA 和 MQA 省了什么，又付出了什么？（`mha-gqa-saves`、`mha-mqa-quality`）
# - 为什么除以 `sqrt(head_dim)` 而不是 `sqrt(dim)`？（`mha-scale-head-dim`）
#
# ## 计算量与显存
#
# 参数量：`wq` 和 `wo` 共 `dim * (n_heads * hd) * 2`，`wk` 和 `wv` 共 `dim * (n_kv_heads * hd) * 2`：
# 不分组时是 `4 * dim^2`，分组时是 `2 * dim^2 * (1 + n_kv / H)`。每个 token 的投影 FLOPs 是参数量的
# 2 倍，分数和加权求和另需 `4 * T * dim`（因果时约为一半）。autograd 要保留 `(B, H, T, T)` 的权重：
# 显存随 `T` 平方增长。推理时 KV cache 每个 token 存 `2 * n_layers * n_kv_heads * hd` 个数，GQA
# 缩小的正是这个数。
#
# ## 自我检验
#
# 加上 KV cache：让 `forward` 接收之前 token 缓存的 `k`、`v` 和一个新 token，逐个位置与完整的因果
# 前向对比。然后在拆头之后给 `q`、`k` 加上旋转位置编码，并确认 `n_kv_heads=1` 和
# `n_kv_heads=n_heads` 时的参数量与上面的公式一致（`sum(p.numel() for p in m.parameters())`）。
#
# ## 背景
#
# 课程文章没有讲注意力（“FFN, Residual Addition, LN”一文的“为什么有了 Attention 还需要 FFN”一节只拿它和 FFN 做了对比）。出处是这些
# 论文：Vaswani 等，2017，“Attention Is All You Need”（多头注意力、`1/sqrt(d_k)` 缩放）；
# Shazeer，2019，“Fast Transformer Decoding: One Write-Head is All You Need”（多查询注意力）；
# Ainslie 等，2023，“GQA: Training Generalized Multi-Query Transformer Models from Multi-Head
# Checkpoints”（分组查询注意力）；Touvron 等，2023，“Llama 2”（70B 模型中的 GQA、`repeat_kv`）。
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
#    `# addnorm: exercise multi_head_attention`: the submit cell sends the last *executed* cell that starts with it.
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
# 2. 在下面的练习单元格里写好你的类并运行。第一行 `# addnorm: exercise multi_head_attention` 不要删：提交单元格发送的是
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
# addnorm: exercise multi_head_attention
import torch
from torch import nn


class MultiHeadAttention(nn.Module):
    def __init__(
        self, dim: int, n_heads: int, n_kv_heads: int | None = None, bias: bool = False
    ) -> None:
        super().__init__()
        # n_kv_heads None means n_heads. TODO: raise ValueError unless n_heads divides dim
        # and n_kv_heads divides n_heads.
        n_kv_heads = n_heads if n_kv_heads is None else n_kv_heads
        self.n_heads, self.n_kv_heads = n_heads, n_kv_heads
        self.head_dim = dim // n_heads
        self.wq = nn.Linear(dim, n_heads * self.head_dim, bias=bias)
        self.wk = nn.Linear(dim, n_kv_heads * self.head_dim, bias=bias)
        self.wv = nn.Linear(dim, n_kv_heads * self.head_dim, bias=bias)
        self.wo = nn.Linear(n_heads * self.head_dim, dim, bias=bias)

    def forward(
        self, x: torch.Tensor, mask: torch.Tensor | None = None, is_causal: bool = False
    ) -> torch.Tensor:
        # x: (B, T, dim); mask: (B, T) bool, True = a real token that may be attended.
        # Split into heads, repeat the kv heads (query head i reads kv head i // group),
        # softmax(q @ k^T / sqrt(head_dim)) @ v with the masks, merge the heads, apply wo.
        # A query with no key left returns zeros (before wo), never NaN.
        raise NotImplementedError("implement multi-head attention")


# %% [markdown]
# ## Quick local check
#
# Runs your exercise cell again on its own, in a fresh namespace, as the server does, then
# compares a few public cases, forward pass only, with a reference in this kernel. It is a sanity
# check and **does not replace the server's verdict**, which runs many more shapes and dtypes,
# the backward pass and the known-mistake diagnosis.
#
# Reference: Multi-head attention against `torch.nn.functional.scaled_dot_product_attention` on the same
# projections: causal GQA, a key-padding mask with left padding (queries that see no key), and
# multi-query attention with biases.
#
# <details><summary>中文</summary>
#
# ## 本地快速检查
#
# 和服务器一样，把你的练习单元格单独放进全新的命名空间重新执行，再用几个公开用例（只做前向）
# 在当前 kernel 里与参考实现对比。这只是一次自检，**不能代替服务器的评测**：服务器会覆盖多得多的
# 形状和 dtype，还会检查反向传播并诊断已知错误。
#
# 参考实现：多头注意力与在同样投影上调用 `torch.nn.functional.scaled_dot_product_attention` 的结果对比：
# 因果 GQA、左侧填充的 key 填充掩码（有看不到任何 key 的 query），以及带 bias 的多查询注意力。
#
# </details>

# %%
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from addnorm_client.local import LocalCase


class _Called(nn.Module):
    """The learner's module called with its mask and is_causal: its projections registered here
    under their own names (wq, wk, ...), so the case's state loads into them."""

    def __init__(self, inner: nn.Module, mask: torch.Tensor | None, causal: bool) -> None:
        super().__init__()
        for name, child in inner.named_children():
            self.add_module(name, child)
        self.inner = [inner]  # a plain list: not registered twice
        self.mask, self.causal = mask, causal

    def forward(self, x: torch.Tensor) -> Any:
        return self.inner[0](x, self.mask, self.causal)


def local_cases() -> list[LocalCase]:
    g = torch.Generator().manual_seed(0)

    def case(
        name: str,
        shape: tuple[int, int, int],
        heads: int,
        kv: int,
        *,
        bias: bool = False,
        mask: torch.Tensor | None = None,
        causal: bool = False,
    ) -> LocalCase:
        b, t, dim = shape
        hd = dim // heads
        x = torch.randn(shape, generator=g)
        sizes = {"wq": heads * hd, "wk": kv * hd, "wv": kv * hd}
        state = {
            f"{n}.weight": torch.randn(o, dim, generator=g) / dim**0.5 for n, o in sizes.items()
        }
        state["wo.weight"] = torch.randn(dim, heads * hd, generator=g) / (heads * hd) ** 0.5
        if bias:
            for n, o in (*sizes.items(), ("wo", dim)):
                state[f"{n}.bias"] = 0.1 * torch.randn(o, generator=g)

        def project(n: str, count: int) -> torch.Tensor:
            y = F.linear(x, state[f"{n}.weight"], state.get(f"{n}.bias"))
            return y.view(b, t, count, hd).transpose(1, 2)

        allowed = torch.ones(b, 1, t, t, dtype=torch.bool)
        if causal:
            allowed = allowed & torch.ones(t, t, dtype=torch.bool).tril()
        if mask is not None:
            allowed = allowed & mask[:, None, None, :]
        out = F.scaled_dot_product_attention(
            project("wq", heads),
            project("wk", kv),
            project("wv", kv),
            attn_mask=allowed,
            enable_gqa=True,
        )
        expected = F.linear(
            out.transpose(1, 2).reshape(b, t, dim), state["wo.weight"], state.get("wo.bias")
        )

        return LocalCase(
            name=name,
            x=x,
            build=lambda cls: _Called(cls(dim, heads, kv, bias), mask, causal),
            state=state,
            expected=expected,
        )

    left = torch.ones(2, 7, dtype=torch.bool)
    left[1, :3] = False  # the first three queries of sequence 1 see no key: zeros before wo
    return [
        case("causal GQA: 4 heads, 2 kv heads", (2, 6, 32), 4, 2, causal=True),
        case(
            "left padding under a causal mask", (2, 7, 30), 5, 5, bias=True, mask=left, causal=True
        ),
        case("multi-query attention with biases", (2, 5, 21), 3, 1, bias=True),
    ]


from addnorm_client.local import check

check("multi_head_attention", "MultiHeadAttention", local_cases())

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

submit_cell("multi_head_attention")

# %% [markdown]
# ## Interviewer follow-ups
#
# Once the code runs, an interviewer keeps going. Answer out loud first, then check yourself: each
# question links to an item of the question bank, served and graded by the server
# (`GET /questions/<id>`) and collected by topic in the `questions_<topic>` notebooks.
#
# 1. How many parameters do wq, wk, wv and wo hold with 32 query heads and 8 kv heads? (`mha-param-count`, `questions_attention`)
# 2. What do the scores and the weighted sum cost, and does the number of heads change it? (`mha-flops`, `questions_attention`)
# 3. Why several heads rather than one wide head of the same cost? (`mha-why-heads`, `questions_attention`)
# 4. What does grouped-query attention save, and what does it leave unchanged? (`mha-gqa-saves`, `questions_attention`)
# 5. Can a trained multi-head model be turned into GQA for free? (`mha-mqa-quality`, `questions_attention`)
# 6. Why divide by sqrt(head_dim) and not sqrt(dim)? (`mha-scale-head-dim`, `questions_attention`)
# 7. Which kv head does this repeat give query head 1? (`mha-repeat-kv-order`, `questions_attention`)
# 8. Why does a one-token test miss heads split without the transpose? (`mha-one-token-reshape`, `questions_attention`)
# 9. This causal attention is wrong. Where? (`act-causal-mask-zero-code`, `questions_activations`)
# 10. What does softmax return on a row of only -inf, and what should attention return there? (`act-fully-masked-row-nan`, `questions_activations`)
#
# <details><summary>中文</summary>
#
# ## 面试官的追问
#
# 代码跑通之后，面试官还会接着问。先试着口头回答，再去核对：每个问题都对应题库中的一道题，
# 由服务器提供并判分（`GET /questions/<id>`），也按主题收录在 `questions_<topic>` notebook 里。
#
# 1. 32 个 query 头、8 个 kv 头时，wq、wk、wv、wo 一共有多少参数？ (`mha-param-count`, `questions_attention`)
# 2. 分数和加权求和需要多少计算量？头数会改变它吗？ (`mha-flops`, `questions_attention`)
# 3. 为什么用多个头，而不是一个计算量相同的宽头？ (`mha-why-heads`, `questions_attention`)
# 4. 分组查询注意力省下了什么，又有哪些没有变？ (`mha-gqa-saves`, `questions_attention`)
# 5. 训练好的多头模型能不付任何代价地改成 GQA 吗？ (`mha-mqa-quality`, `questions_attention`)
# 6. 为什么除以 sqrt(head_dim) 而不是 sqrt(dim)？ (`mha-scale-head-dim`, `questions_attention`)
# 7. 这样复制之后，第 1 个 query 头读的是哪个 kv 头？ (`mha-repeat-kv-order`, `questions_attention`)
# 8. 为什么只有一个 token 的测试发现不了拆头时漏掉 transpose 的错误？ (`mha-one-token-reshape`, `questions_attention`)
# 9. 这段因果注意力错在哪里？ (`act-causal-mask-zero-code`, `questions_activations`)
# 10. 整行都是 -inf 时 softmax 返回什么？注意力在这里应该返回什么？ (`act-fully-masked-row-nan`, `questions_activations`)
#
# </details>
