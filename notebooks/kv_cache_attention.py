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
# # Attention that decodes from a KV cache
#
# **topic:** attention · **difficulty:** hard
#
# A decoder generates one token at a time, and every new token attends to all the tokens before
# it. Recomputing the keys and values of the whole prefix at every step costs work quadratic in
# the length; a **KV cache** keeps them instead, so a step projects only the new token, writes
# its key and value into the cache, and attends over what is stored. Interviewers ask for it
# because the attention is the one you already know, and everything new is bookkeeping where a
# model still runs but answers wrongly: RoPE at the wrong position, a mask that forgets the cached
# tokens, a cache four times too large.
#
# ## What to write
#
# ```python
# class KVCacheAttention(nn.Module):
#     def __init__(
#         self,
#         dim: int,
#         n_heads: int,
#         n_kv_heads: int,
#         max_batch_size: int,
#         max_seq_len: int,
#         rope_base: float = 10000.0,
#     ): ...
#     def forward(self, x, start_pos: int): ...  # (B, T, dim) -> (B, T, dim)
#     def reset(self) -> None: ...
# ```
#
# - **Shapes.** `head_dim = dim // n_heads`. The constructor raises `ValueError` unless
#   `n_heads` divides `dim`, `n_kv_heads` divides `n_heads` and `head_dim` is even (RoPE rotates
#   pairs).
# - **Parameters**, `nn.Linear` without bias, by these names: `wq` (`dim` -> `n_heads *
#   head_dim`), `wk` and `wv` (`dim` -> `n_kv_heads * head_dim`), `wo` (`n_heads * head_dim` ->
#   `dim`). The grader loads its own values into them.
# - **The cache**: two buffers registered by these names, `cache_k` and `cache_v`, zeros of shape
#   **`(max_batch_size, n_kv_heads, max_seq_len, head_dim)`**: the kv heads only, never their
#   repeats. `cache_k` holds the keys **after RoPE**.
# - **`forward(x, start_pos)`**: `x` of shape `(B, T, dim)`, `B <= max_batch_size`, holds the
#   tokens at absolute positions `start_pos .. start_pos + T - 1` (`start_pos` a Python int,
#   `start_pos + T <= max_seq_len`); the cache holds the positions before `start_pos` of the
#   same `B` sequences (rows `0 .. B - 1`). `T` is the prompt's length for the prefill
#   (`start_pos = 0`), 1 for a decode step, or any chunk in between. In order:
#   1. project `q`, `k`, `v` of the new tokens and split the heads
#      (`view(B, T, heads, head_dim).transpose(1, 2)`);
#   2. rotate `q` and `k` by RoPE at their **absolute** positions `start_pos + t`: the
#      rotate-half layout of the `rotary_embedding` exercise (feature `i` paired with `i +
#      head_dim / 2`, angle `position * rope_base ** (-2i / head_dim)`), angles computed in
#      float64 for float64 input, in float32 otherwise;
#   3. write the rotated `k` and `v` into `cache_k[:B, :, start_pos:start_pos + T]` and
#      `cache_v[...]`;
#   4. attend over `cache_k[:B, :, :start_pos + T]` and `cache_v[...]`: query `t` sees key `j`
#      iff `j <= start_pos + t`; scores scaled by `1/sqrt(head_dim)`, softmax over the keys;
#      query head `i` reads kv head `i // (n_heads // n_kv_heads)` (repeat what you read, as
#      LLaMA's `repeat_kv` does);
#   5. merge the heads (`transpose(1, 2).reshape(B, T, n_heads * head_dim)`) and apply `wo`.
# - **`reset()`** zeros both caches in place: the next call starts a new sequence at
#   `start_pos = 0`.
# - **Inference only.** The grader calls the module under `torch.no_grad()`: no gradient is
#   graded, and writing into the buffers in place is fine.
#
# Every call's output equals what full causal attention gives for those rows over the whole
# sequence so far, with RoPE at positions $0, \dots, L-1$. For query head $i$ at position
# $p = s + t$ ($s$ is `start_pos`), kv head $g(i) = \lfloor i / (H / H_{kv}) \rfloor$ and $R_p$
# the rotation at position $p$:
#
# $$o_{i,p} = \sum_{j \le p} \mathrm{softmax}_j\!\left(\frac{(R_p q_{i,p})^{\top} (R_j k_{g(i),j})}{\sqrt{d_h}}\right) v_{g(i),j}$$
#
# where $R_j k_{g(i),j}$ is what `cache_k` holds at position $j$.
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
# `torch.ao.nn.quantizable`. A submission that reaches one is *rejected*.
#
# **Allowed**: `nn.Linear`, `@`/`matmul`, `einsum`, `softmax` (stable softmax has its own
# exercise), `cos`/`sin`, `masked_fill`, `where`, `tril`/`triu`, `repeat_interleave`, `expand`,
# `cat`, indexing and slice assignment, `zero_`/`copy_`.
#
# ## What your code may run
#
# A solution is built from arithmetic, elementwise math, reductions, shape and indexing operations, creation, random draws and matrix products. Any other operation your code runs, by whatever route (an alias, `getattr`, `torch.ops`, `torch._C`, scripting, a custom op, a tensor subclass, another backend's tensor), is refused: the verdict is *rejected* and names the operation. The built-ins listed above are refused where they are written, even in a branch that never runs: an interviewer reading the code would stop there. torch's private operator implementations (`torch._refs`, `torch._decomp`, `torch._prims`) are refused the same way: they hold every exercise's answer.
#
# ## How it is graded
#
# Each case is a scenario on **one** module, with random weights loaded into `wq`, `wk`, `wv`,
# `wo`, run under `torch.no_grad()`. Every call's output is compared with full causal attention
# over the sequence so far, and the buffers `cache_k` and `cache_v` after every call (and after
# `reset()`) with the contract's: rotated keys and values at the positions written, zeros
# elsewhere. A cache of another shape (`n_heads` heads, say) fails on its size before any value
# is compared. Eight scenarios, freshly drawn: a prefill of 5 to 7 tokens, three decode steps and
# a chunk of 3 tokens at `start_pos > 0` (4 heads sharing 2 kv heads); a prefill in chunks of 4,
# 4 and 3 tokens, then a step (multi-query, one kv head, float64); groups of four query heads per
# kv head (float64); far positions (a prefill of 36 to 44 tokens, `rope_base=500`); a sequence,
# `reset()`, then a shorter one (float64); plain multi-head attention with a batch below
# `max_batch_size`, a non-contiguous prefill `x` and the cache filled to `max_seq_len` exactly;
# a batch of one (float64); dim 144 (12 heads of 12, 4 kv heads). Then three constructions that must raise `ValueError` (dim 30 with 4
# heads, 6 heads with 4 kv heads, an odd `head_dim`).
#
# **Also, as for every exercise:** three calls in a row with fresh data of one shape, then an update and two more calls (code that caches what it computed, or changes from its third call on, fails); float64 cases are compared at float64's own precision: computing float64 input in float32 fails.
#
# ## Pitfalls interviewers look for
#
# - **RoPE at the call's positions**: `arange(T)` instead of `arange(start_pos, start_pos + T)`:
#   the prefill is right, every decode step wrong.
# - **Keys cached before RoPE** (and attended unrotated, or rotated again over the whole cache
#   at every step), or **cached keys rotated twice**.
# - **The cache holding `n_heads` heads**: the kv heads repeated before they are stored, which
#   undoes the memory GQA saves (`kv-gqa-saving`).
# - **The causal mask not shifted by `start_pos`**: a `tril` from the top-left of the `(T,
#   start_pos + T)` scores hides the cached tokens; with LLaMA's "no mask for one token" it
#   shows only on chunks.
# - **The cache never read** (the new token attends to itself alone), **written at position 0**
#   instead of `start_pos`, or **`reset()` that forgets nothing**.
# - The slips of plain attention: `1/sqrt(dim)`, kv heads tiled instead of interleaved.
#
# ## Why it works
#
# - **What to cache.** In causal attention a past token's key and value never change: they
#   depend on that token alone (and its position), not on what comes later. So they are computed
#   once, and a step needs only the new token's query, key and value: the projections of a step
#   cost `O(dim^2)` instead of `O(L dim^2)`, and the scores `O(L dim)`.
# - **Rotated keys.** RoPE's score between positions `p` and `j` depends only on `p - j`
#   because both vectors are rotated by their own absolute angle. A key rotated once at its own
#   position is final: caching it rotated saves redoing the rotation of the whole past at every
#   step.
# - **The shifted mask.** Query `t` of the call is token `start_pos + t` of the sequence; the
#   keys are the `start_pos + T` tokens so far. A single new token sees all of them (no mask
#   needed); a chunk is causal within itself and sees the whole cache.
# - **Only the kv heads.** The cache, not the weights, dominates decode-time memory: `2 *
#   n_layers * n_kv_heads * head_dim` numbers per token. Caching the repeats multiplies it by
#   `n_heads / n_kv_heads` for nothing, since the repeat is a view of what is read.
#
# ## Interviewer follow-ups
#
# The questions an interviewer asks once this runs are served with the exercise (the
# `follow_ups` field of `GET /exercises/kv_cache_attention`) and listed at the end of its
# notebook, each linked to the question-bank item that answers it. A few to prepare:
#
# - What does the cache hold, and why not the queries or the attention weights? (`kv-why-cache`,
#   `kvdec-no-query-cache`)
# - At which positions are q and the new k rotated in a decode step? (`kvdec-rope-positions`)
# - Which keys does a chunk of T tokens at `start_pos` see? (`kvdec-chunk-mask`)
# - How large is the cache, and what does GQA divide? (`kv-llama2-7b-bytes`, `kv-gqa-saving`)
#
# ## Cost and memory
#
# The cache takes `2 * max_batch_size * n_kv_heads * max_seq_len * head_dim` numbers per layer,
# allocated once. A decode step of one token projects `2 * dim * (n_heads + n_kv_heads) *
# head_dim` multiply-adds and attends over `L` cached positions in `2 * L * n_heads * head_dim`,
# so it reads the whole cache to do little arithmetic on it: decoding is bound by memory
# bandwidth, which is why the cache's size is the figure GQA and MQA shrink.
#
# ## Test yourself
#
# Feed a sequence of 12 tokens as a prefill of 5 and seven decode steps, and compare each step
# with your `multi_head_attention` solution (plus RoPE) run causally over the whole prefix: they
# should agree to float32 rounding. Print `cache_k.numel() * cache_k.element_size()` for
# `n_kv_heads = 1, 2, n_heads` and check the ratio. Then decode two sequences of different
# lengths in one batch: what would you have to add (a per-row `start_pos`, a padding mask)?
#
# ## Background
#
# The course articles do not cover attention or its cache: "FFN, Residual Addition, LN", section
# "为什么有了 Attention 还需要 FFN", only contrasts attention with the FFN. The sources are the
# papers and the reference code: Meta's LLaMA `Attention` (Touvron et al., 2023, "Llama 2"), which
# caches the rotated keys of the kv heads at `start_pos` and repeats them after reading; Su et al.,
# 2021, "RoFormer: Enhanced Transformer with Rotary Position Embedding" (RoPE, the
# `rotary_embedding` exercise); Ainslie et al., 2023, "GQA: Training Generalized Multi-Query
# Transformer Models from Multi-Head Checkpoints"; Shazeer, 2019, "Fast Transformer Decoding: One
# Write-Head is All You Need" (incremental decoding, multi-query attention); and Pope et al., 2022,
# "Efficiently Scaling Transformer Inference" (the cache's size and why decoding is bound by
# memory).

# %% [markdown]
# <details><summary>中文说明</summary>
#
# # 带 KV 缓存的逐 token 解码注意力
#
# 解码器一次生成一个 token，每个新 token 都要关注它之前的所有 token。每一步都重新计算整个前缀的
# key 和 value，工作量随长度平方增长；**KV 缓存**把它们存下来，于是每一步只投影新 token，把它的
# key 和 value 写进缓存，再对缓存里的内容做注意力。面试官爱考它，是因为注意力本身你已经会写，新
# 东西全是簿记，而簿记出错时模型照样能跑，只是答案错了：RoPE 用错了位置，掩码忘了已缓存的
# token，缓存大了四倍。
#
# ## 要写什么
#
# ```python
# class KVCacheAttention(nn.Module):
#     def __init__(
#         self,
#         dim: int,
#         n_heads: int,
#         n_kv_heads: int,
#         max_batch_size: int,
#         max_seq_len: int,
#         rope_base: float = 10000.0,
#     ): ...
#     def forward(self, x, start_pos: int): ...  # (B, T, dim) -> (B, T, dim)
#     def reset(self) -> None: ...
# ```
#
# - **形状**：`head_dim = dim // n_heads`。除非 `n_heads` 整除 `dim`、`n_kv_heads` 整除
#   `n_heads` 且 `head_dim` 为偶数（RoPE 成对旋转），否则构造函数抛出 `ValueError`。
# - **参数**：不带 bias 的 `nn.Linear`，名字固定为：`wq`（`dim` -> `n_heads * head_dim`），`wk` 和
#   `wv`（`dim` -> `n_kv_heads * head_dim`），`wo`（`n_heads * head_dim` -> `dim`）。评测会把自己的
#   参数值加载进去。
# - **缓存**：用这两个名字注册的 buffer，`cache_k` 和 `cache_v`，全零，形状为
#   **`(max_batch_size, n_kv_heads, max_seq_len, head_dim)`**：只存 kv 头，绝不存复制出来的头。
#   `cache_k` 存的是**做过 RoPE 之后**的 key。
# - **`forward(x, start_pos)`**：`x` 的形状为 `(B, T, dim)`，`B <= max_batch_size`，是绝对位置
#   `start_pos .. start_pos + T - 1` 上的 token（`start_pos` 是 Python 整数，`start_pos + T <=
#   max_seq_len`）；缓存里存着同样这 `B` 条序列（第 `0 .. B - 1` 行）在 `start_pos` 之前的位置。
#   预填充时 `T` 是提示的长度（`start_pos = 0`），解码一步时为 1，也可以是两者之间的一段。依次：
#   1. 投影新 token 的 `q`、`k`、`v` 并拆头（`view(B, T, heads, head_dim).transpose(1, 2)`）；
#   2. 在**绝对**位置 `start_pos + t` 上对 `q` 和 `k` 做 RoPE：与 `rotary_embedding` 这道题相同的
#      rotate-half 排布（第 `i` 个特征与第 `i + head_dim / 2` 个配对，角度为 `position * rope_base
#      ** (-2i / head_dim)`），float64 输入用 float64 计算角度，其余用 float32；
#   3. 把旋转后的 `k` 和 `v` 写入 `cache_k[:B, :, start_pos:start_pos + T]` 和 `cache_v[...]`；
#   4. 对 `cache_k[:B, :, :start_pos + T]` 和 `cache_v[...]` 做注意力：当且仅当 `j <= start_pos +
#      t` 时 query `t` 能看到 key `j`；分数乘以 `1/sqrt(head_dim)`，softmax 沿 key 方向；第 `i` 个
#      query 头读取第 `i // (n_heads // n_kv_heads)` 个 kv 头（像 LLaMA 的 `repeat_kv` 那样对读出
#      的部分做复制）；
#   5. 合并多头（`transpose(1, 2).reshape(B, T, n_heads * head_dim)`），再做 `wo`。
# - **`reset()`** 原地把两个缓存清零：下一次调用从 `start_pos = 0` 开始一条新序列。
# - **只做推理**：评测在 `torch.no_grad()` 下调用模块，不比较梯度，原地写 buffer 没有问题。
#
# 每次调用的输出，都等于对到目前为止的整条序列做完整因果注意力（RoPE 位置为 $0, \dots, L-1$）
# 时这几行的结果。对位置 $p = s + t$（$s$ 即 `start_pos`）上的第 $i$ 个 query 头，kv 头
# $g(i) = \lfloor i / (H / H_{kv}) \rfloor$，$R_p$ 为位置 $p$ 的旋转：
#
# $$o_{i,p} = \sum_{j \le p} \mathrm{softmax}_j\!\left(\frac{(R_p q_{i,p})^{\top} (R_j k_{g(i),j})}{\sqrt{d_h}}\right) v_{g(i),j}$$
#
# 其中 $R_j k_{g(i),j}$ 就是 `cache_k` 在位置 $j$ 上存的内容。
#
# ## 不允许使用
#
# 注意力要你自己写。以下内容不管通过什么途径调用都会被拒绝：`F.scaled_dot_product_attention`
# （以及 `torch._C._nn.scaled_dot_product_attention`）、它的私有和融合入口（aten 算子
# `_scaled_dot_product_attention_math`、`_scaled_dot_product_flash_attention` 及
# `..._for_cpu`、`_scaled_dot_product_efficient_attention`、`_scaled_dot_product_cudnn_attention`、
# `_fused_sdp_choice`、`_flash_attention_forward`、`_efficient_attention_forward`），基于它们的模块
# （`nn.MultiheadAttention`、`F.multi_head_attention_forward`、`nn.Transformer` 及其 encoder、
# decoder 层），以及 `torch.ao.nn.quantizable` 里可量化的 `MultiheadAttention`。用到其中任何一个的
# 提交会被判为 *rejected*。
#
# **允许使用**：`nn.Linear`、`@`/`matmul`、`einsum`、`softmax`（数值稳定的 softmax 另有一道题）、
# `cos`/`sin`、`masked_fill`、`where`、`tril`/`triu`、`repeat_interleave`、`expand`、`cat`、索引与
# 切片赋值、`zero_`/`copy_`。
#
# ## 代码可以运行什么
#
# 答案只能由算术、逐元素数学函数、归约、形状与索引操作、张量创建、随机采样和矩阵乘法构成。代码运行的任何其他运算，不管通过什么途径（起别名、`getattr`、`torch.ops`、`torch._C`、脚本化、自定义算子、张量子类、其他后端的张量），都会被拒绝：判定为 *rejected*，并指出是哪个运算。上面列出的内置函数只要写在代码里就会被拒绝，即使所在的分支从不执行：面试官读到那一行就会停下来。torch 私有的算子实现（`torch._refs`、`torch._decomp`、`torch._prims`）同样被拒绝：每道题的答案都在里面。
#
# ## 如何评测
#
# 每个用例都在**同一个**模块上运行一段场景，`wq`、`wk`、`wv`、`wo` 加载随机权重，全程在
# `torch.no_grad()` 下。每次调用的输出都与对到目前为止整条序列做的完整因果注意力比较；每次调用
# 之后（以及 `reset()` 之后）还会把 `cache_k` 和 `cache_v` 与约定比较：写过的位置上是旋转后的
# key 和 value，其余位置为 0。形状不同的缓存（比如 `n_heads` 个头）在比较任何数值之前就会因大小
# 不符判错。八个场景，每次重新抽取：预填充 5 到 7 个 token，解码三步，再在 `start_pos > 0` 处
# 送入一段 3 个 token（4 个头共用 2 个 kv 头）；分 4、4、3 个 token 三段预填充，再解码一步（多
# 查询注意力，一个 kv 头，float64）；每 4 个 query 头共用一个 kv 头（float64）；较远的位置（预填充
# 36 到 44 个 token，`rope_base=500`）；一条序列、`reset()`、再一条更短的序列（float64）；普通多头
# 注意力，批大小小于 `max_batch_size`，预填充的 `x` 不连续，缓存正好填满到 `max_seq_len`；批大小
# 为 1（float64）；dim 144（12 个头、每头 12 维，4 个 kv 头）。最后是三个必须抛出 `ValueError` 的构造（dim 30 配 4 个头，6 个头配 4 个 kv 头，
# `head_dim` 为奇数）。
#
# **和每道题一样，还有：**同一形状、新数据连续调用三次，再更新参数后调用两次（缓存结果、或从第三次调用起行为改变的代码会判错）；float64 用例按 float64 自身的精度比较：把 float64 输入放到 float32 里计算会判错。
#
# ## 面试官会盯的坑
#
# - **RoPE 用了本次调用内的位置**：`arange(T)` 而不是 `arange(start_pos, start_pos + T)`：预填充
#   是对的，之后每一步解码都错。
# - **key 在 RoPE 之前就进了缓存**（然后按未旋转的样子参与注意力，或者每一步把整个缓存重新旋转
#   一遍），或者**已缓存的 key 被旋转了两次**。
# - **缓存里存了 `n_heads` 个头**：在存之前就复制了 kv 头，GQA 省下的显存又还回去了
#   （`kv-gqa-saving`）。
# - **因果掩码没有按 `start_pos` 平移**：在 `(T, start_pos + T)` 的分数上从左上角做 `tril`，会把
#   已缓存的 token 遮掉；如果像 LLaMA 那样单个 token 不加掩码，问题只在一段多个 token 时出现。
# - **从不读取缓存**（新 token 只关注自己）、**写在位置 0** 而不是 `start_pos`，或者 **`reset()`
#   什么都没清**。
# - 普通注意力的失误：`1/sqrt(dim)`，kv 头平铺而不是交错复制。
#
# ## 为什么有效
#
# - **缓存什么**：因果注意力里，过去 token 的 key 和 value 不会变：它们只取决于那个 token 本身
#   （和它的位置），与后来的 token 无关。所以它们只算一次，每一步只需要新 token 的 query、key 和
#   value：一步的投影从 `O(L dim^2)` 降到 `O(dim^2)`，分数是 `O(L dim)`。
# - **缓存旋转后的 key**：RoPE 让位置 `p` 与 `j` 之间的分数只取决于 `p - j`，因为两个向量各自按
#   自己的绝对角度旋转。一个 key 在自己的位置上旋转一次就定型了：存旋转后的 key，就不用每一步把
#   整个过去重新旋转一遍。
# - **平移后的掩码**：本次调用的 query `t` 是序列里的第 `start_pos + t` 个 token；key 是到目前为止
#   的 `start_pos + T` 个 token。单个新 token 能看到全部 key（不需要掩码）；一段多个 token 在段内
#   是因果的，并能看到整个缓存。
# - **只存 kv 头**：解码时占显存的主要是缓存而不是权重：每个 token `2 * n_layers * n_kv_heads *
#   head_dim` 个数。缓存复制出来的头白白乘上 `n_heads / n_kv_heads`，而复制只是对读出内容的一个
#   视图。
#
# ## 面试官的追问
#
# 代码跑通之后面试官会问的问题随题目一起提供（`GET /exercises/kv_cache_attention` 返回的
# `follow_ups` 字段），也列在对应 notebook 的末尾，每个问题都链接到题库里给出答案的题目。可以先
# 准备这几个：
#
# - 缓存里存的是什么？为什么不存 query 或注意力权重？（`kv-why-cache`、`kvdec-no-query-cache`）
# - 解码一步时，q 和新的 k 在哪些位置上旋转？（`kvdec-rope-positions`）
# - 在 `start_pos` 处送入一段 T 个 token，它们能看到哪些 key？（`kvdec-chunk-mask`）
# - 缓存有多大，GQA 缩小的是哪一项？（`kv-llama2-7b-bytes`、`kv-gqa-saving`）
#
# ## 计算量与显存
#
# 缓存每层占 `2 * max_batch_size * n_kv_heads * max_seq_len * head_dim` 个数，一次分配好。解码一个
# token 的一步，投影需要 `2 * dim * (n_heads + n_kv_heads) * head_dim` 次乘加，对 `L` 个已缓存位置
# 做注意力需要 `2 * L * n_heads * head_dim` 次：要把整个缓存读一遍，却只在上面做很少的运算，所以
# 解码受显存带宽限制，这也是 GQA 和 MQA 要缩小的正是缓存大小的原因。
#
# ## 自我检验
#
# 把 12 个 token 的序列拆成预填充 5 个加七步解码送进去，每一步都与你在 `multi_head_attention`
# 里写的解答（加上 RoPE）对整个前缀做的因果前向比较：两者应在 float32 舍入误差内一致。对
# `n_kv_heads = 1, 2, n_heads` 分别打印 `cache_k.numel() * cache_k.element_size()`，检查比例。再把
# 两条长度不同的序列放在同一批里解码：还需要加什么（每行各自的 `start_pos`、填充掩码）？
#
# ## 背景
#
# 课程文章没有讲注意力和它的缓存（“FFN, Residual Addition, LN”一文的“为什么有了 Attention 还需要
# FFN”一节只拿注意力和 FFN 做了对比）。出处是这些论文和参考代码：Meta 的 LLaMA `Attention`
# （Touvron 等，2023，“Llama 2”），它在 `start_pos` 处缓存 kv 头旋转后的 key，读出后再复制；Su 等，
# 2021，“RoFormer: Enhanced Transformer with Rotary Position Embedding”（RoPE，即
# `rotary_embedding` 这道题）；Ainslie 等，2023，“GQA: Training Generalized Multi-Query Transformer
# Models from Multi-Head Checkpoints”；Shazeer，2019，“Fast Transformer Decoding: One Write-Head is
# All You Need”（增量解码、多查询注意力）；Pope 等，2022，“Efficiently Scaling Transformer
# Inference”（缓存的大小，以及解码为什么受显存带宽限制）。
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
#    `# addnorm: exercise kv_cache_attention`: the submit cell sends the last *executed* cell that starts with it.
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
# 2. 在下面的练习单元格里写好你的类并运行。第一行 `# addnorm: exercise kv_cache_attention` 不要删：提交单元格发送的是
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
# addnorm: exercise kv_cache_attention
import torch
from torch import nn


class KVCacheAttention(nn.Module):
    def __init__(
        self,
        dim: int,
        n_heads: int,
        n_kv_heads: int,
        max_batch_size: int,
        max_seq_len: int,
        rope_base: float = 10000.0,
    ) -> None:
        super().__init__()
        # TODO: raise ValueError unless n_heads divides dim, n_kv_heads divides n_heads and
        # head_dim = dim // n_heads is even.
        self.n_heads, self.n_kv_heads = n_heads, n_kv_heads
        self.head_dim = dim // n_heads
        self.rope_base = rope_base
        self.wq = nn.Linear(dim, n_heads * self.head_dim, bias=False)
        self.wk = nn.Linear(dim, n_kv_heads * self.head_dim, bias=False)
        self.wv = nn.Linear(dim, n_kv_heads * self.head_dim, bias=False)
        self.wo = nn.Linear(n_heads * self.head_dim, dim, bias=False)
        # TODO: register the buffers cache_k and cache_v, zeros of shape
        # (max_batch_size, n_kv_heads, max_seq_len, head_dim).

    def reset(self) -> None:
        """Forget the cached sequence: both caches back to zeros, in place."""
        raise NotImplementedError("implement reset")

    def forward(self, x: torch.Tensor, start_pos: int) -> torch.Tensor:
        """x: (B, T, dim), the tokens at absolute positions start_pos .. start_pos + T - 1."""
        # Project the new tokens, rotate q and k (rotate-half RoPE) at their absolute
        # positions, write k and v into the caches at start_pos, attend over the cache up to
        # start_pos + T (query t sees keys j <= start_pos + t), repeat the kv heads only on
        # what you read, merge the heads, apply wo.
        raise NotImplementedError("implement forward")


# %% [markdown]
# ## Quick local check
#
# Runs your exercise cell again on its own, in a fresh namespace, as the server does, then
# compares a few public cases, forward pass only, with a reference in this kernel. It is a sanity
# check and **does not replace the server's verdict**, which runs many more shapes and dtypes,
# the backward pass and the known-mistake diagnosis.
#
# Reference: The cached decode against full causal attention (RoPE and
# `torch.nn.functional.scaled_dot_product_attention` over the whole sequence at once): a prefill
# then decode steps one token at a time with grouped kv heads, a prefill in chunks with one kv
# head, and a reset between two sequences. Forward only: the contract is inference..
#
# <details><summary>中文</summary>
#
# ## 本地快速检查
#
# 和服务器一样，把你的练习单元格单独放进全新的命名空间重新执行，再用几个公开用例（只做前向）
# 在当前 kernel 里与参考实现对比。这只是一次自检，**不能代替服务器的评测**：服务器会覆盖多得多的
# 形状和 dtype，还会检查反向传播并诊断已知错误。
#
# 参考实现：逐 token 解码的结果与对整条序列一次做完整因果注意力（RoPE 加
# `torch.nn.functional.scaled_dot_product_attention`）的结果对比：分组 kv 头下先预填充再逐个
# token 解码、一个 kv 头时分段预填充，以及两条序列之间调用 reset。只检查前向：本题只做推理。。
#
# </details>

# %%
import itertools
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from addnorm_client.local import LocalCase


class _Decoded(nn.Module):
    """Runs the learner's module over ``x`` call by call: ``chunks`` tokens per call, reset()
    first (and where ``resets`` says), the outputs of every call concatenated along T. Its
    projections are registered here under their own names, so the case's state loads into
    them."""

    def __init__(self, inner: nn.Module, chunks: list[int], resets: set[int]) -> None:
        super().__init__()
        for name, child in inner.named_children():
            self.add_module(name, child)
        self.inner: list[Any] = [inner]  # a plain list: not registered twice
        self.chunks, self.resets = chunks, resets

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        inner = self.inner[0]
        inner.reset()
        outs, start, seen = [], 0, 0
        for i, n in enumerate(self.chunks):
            if i in self.resets:
                inner.reset()
                start = 0
            outs.append(inner(x[:, seen : seen + n], start))
            start, seen = start + n, seen + n
        return torch.cat(outs, dim=1)


def _rope(t: torch.Tensor) -> torch.Tensor:
    hd = t.shape[-1]
    inv_freq = 10000.0 ** (-torch.arange(0, hd, 2, dtype=torch.float32) / hd)
    angles = torch.outer(torch.arange(t.shape[-2], dtype=torch.float32), inv_freq)
    cos, sin = torch.cat((angles, angles), -1).cos(), torch.cat((angles, angles), -1).sin()
    half = hd // 2
    return t * cos + torch.cat((-t[..., half:], t[..., :half]), -1) * sin


def local_cases() -> list[LocalCase]:
    g = torch.Generator().manual_seed(0)

    def case(
        name: str, b: int, dim: int, heads: int, kv: int, chunks: list[int], resets: set[int]
    ) -> LocalCase:
        hd = dim // heads
        t = sum(chunks)
        x = torch.randn(b, t, dim, generator=g)
        sizes = {"wq": heads * hd, "wk": kv * hd, "wv": kv * hd}
        state = {
            f"{n}.weight": torch.randn(o, dim, generator=g) / dim**0.5 for n, o in sizes.items()
        }
        state["wo.weight"] = torch.randn(dim, heads * hd, generator=g) / (heads * hd) ** 0.5
        # Each sequence (the tokens between two resets) through full causal attention.
        bounds = [0, *[sum(chunks[:i]) for i in sorted(resets)], t]
        pieces = []
        for lo, hi in itertools.pairwise(bounds):
            seq = x[:, lo:hi]

            def project(n: str, count: int, seq: torch.Tensor = seq) -> torch.Tensor:
                y = F.linear(seq, state[f"{n}.weight"])
                return y.view(b, seq.shape[1], count, hd).transpose(1, 2)

            out = F.scaled_dot_product_attention(
                _rope(project("wq", heads)),
                _rope(project("wk", kv)),
                project("wv", kv),
                is_causal=True,
                enable_gqa=True,
            )
            pieces.append(
                F.linear(out.transpose(1, 2).reshape(b, hi - lo, dim), state["wo.weight"])
            )
        return LocalCase(
            name=name,
            x=x,
            build=lambda cls: _Decoded(cls(dim, heads, kv, b, t), chunks, resets),
            state=state,
            expected=torch.cat(pieces, dim=1),
            forward_only=True,
        )

    return [
        case(
            "prefill 5, then 4 decode steps: 4 heads, 2 kv heads",
            2,
            32,
            4,
            2,
            [5, 1, 1, 1, 1],
            set(),
        ),
        case(
            "prefill in chunks of 3, 3, 2, then a step: 1 kv head", 1, 24, 3, 1, [3, 3, 2, 1], set()
        ),
        case("a sequence, reset(), a shorter one", 2, 16, 2, 2, [4, 1, 1, 2, 1], {3}),
    ]


from addnorm_client.local import check

check("kv_cache_attention", "KVCacheAttention", local_cases())

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

submit_cell("kv_cache_attention")

# %% [markdown]
# ## Interviewer follow-ups
#
# Once the code runs, an interviewer keeps going. Answer out loud first, then check yourself: each
# question links to an item of the question bank, served and graded by the server
# (`GET /questions/<id>`) and collected by topic in the `questions_<topic>` notebooks.
#
# 1. What does the cache hold, and what does it save at each step? (`kv-why-cache`, `questions_attention`)
# 2. Why are the keys and values cached, but not the queries? (`kvdec-no-query-cache`, `questions_attention`)
# 3. In a decode step at position p, which vectors are rotated, and by which positions? (`kvdec-rope-positions`, `questions_attention`)
# 4. A chunk of T tokens arrives at start_pos. Which keys may query t see? (`kvdec-chunk-mask`, `questions_attention`)
# 5. Does a single-token decode step need a causal mask? (`kvdec-single-token-mask`, `questions_attention`)
# 6. Where does repeat_kv belong in a cached GQA layer, and what if it runs before the write? (`kvdec-repeat-after-read`, `questions_attention`)
# 7. By what factor does GQA shrink the cache of LLaMA 2 70B? (`kv-gqa-saving`, `questions_attention`)
# 8. How many bytes does LLaMA 2 7B's cache take for a 4096-token sequence? (`kv-llama2-7b-bytes`, `questions_attention`)
#
# <details><summary>中文</summary>
#
# ## 面试官的追问
#
# 代码跑通之后，面试官还会接着问。先试着口头回答，再去核对：每个问题都对应题库中的一道题，
# 由服务器提供并判分（`GET /questions/<id>`），也按主题收录在 `questions_<topic>` notebook 里。
#
# 1. 缓存里存的是什么？每一步省下了什么？ (`kv-why-cache`, `questions_attention`)
# 2. 为什么缓存 key 和 value，却不缓存 query？ (`kvdec-no-query-cache`, `questions_attention`)
# 3. 在位置 p 上解码一步时，哪些向量要旋转，按什么位置旋转？ (`kvdec-rope-positions`, `questions_attention`)
# 4. 一段 T 个 token 在 start_pos 处送入。query t 能看到哪些 key？ (`kvdec-chunk-mask`, `questions_attention`)
# 5. 只解码一个 token 的一步需要因果掩码吗？ (`kvdec-single-token-mask`, `questions_attention`)
# 6. 带缓存的 GQA 层里，repeat_kv 应该放在哪里？放在写缓存之前会怎样？ (`kvdec-repeat-after-read`, `questions_attention`)
# 7. GQA 让 LLaMA 2 70B 的缓存缩小多少倍？ (`kv-gqa-saving`, `questions_attention`)
# 8. LLaMA 2 7B 一条 4096 个 token 的序列，缓存占多少字节？ (`kv-llama2-7b-bytes`, `questions_attention`)
#
# </details>
