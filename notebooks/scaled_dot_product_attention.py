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
# # Scaled dot-product attention, with every kind of mask
#
# **topic:** activations · **difficulty:** medium
#
# Attention lets each position of a sequence read from the others: a query scores every key,
# the scores become weights that sum to 1, and the output is the weighted average of the
# values. It is three lines of code, and interviewers ask for it for exactly that reason: the
# three lines hide the scale, the masks and a NaN that only shows on padded batches.
#
# ## What to write
#
# ```python
# def scaled_dot_product_attention(
#     q: torch.Tensor,  # (..., L, E): L queries
#     k: torch.Tensor,  # (..., S, E): S keys
#     v: torch.Tensor,  # (..., S, E): S values
#     mask: torch.Tensor | None = None,  # bool or float, broadcastable to (..., L, S)
#     is_causal: bool = False,
#     scale: float | None = None,
# ) -> torch.Tensor: ...  # (..., L, E), q's dtype
# ```
#
# - `q`, `k` and `v` have rank 2, 3 or 4 (`(L, E)`, `(B, L, E)`, `(B, H, L, E)`) with the same
#   leading dims; dtype float32, float64 or bfloat16. Do not modify them.
# - **Scores**: `q @ k^T * scale`, shape `(..., L, S)`, with `scale = 1 / sqrt(E)` (`E =
#   q.shape[-1]`) when `scale` is None, and the given number otherwise (a multiplier).
# - **Boolean mask**: `True` means *may attend*, `False` hides the pair (the convention of
#   `F.scaled_dot_product_attention`; `nn.MultiheadAttention`'s `key_padding_mask` is the
#   opposite). It may be `(L, S)`, or `(B, 1, S)` for key padding: it broadcasts.
# - **Float mask**: added to the scores. `-inf` hides a pair; a finite value biases it (a
#   relative-position or ALiBi bias). Its gradient is graded like those of `q`, `k` and `v`,
#   since such a bias can be learned.
# - **is_causal=True**: query `i` sees key `j` only when `j <= i`, the lower triangle of an
#   `(L, S)` matrix of ones (top-left aligned, as torch does when `L != S`). The tests never pass
#   `mask` together with `is_causal=True` (torch raises on it).
# - **Weights**: softmax of the masked scores along the keys (the last axis), then `weights @ v`.
# - **A fully masked row** (a query whose keys are all hidden: a padding query, or an
#   off-by-one causal mask) returns **zeros**, and its gradients are zeros: no NaN anywhere.
#   That is what PyTorch has done since 2.5 (its math backend's "safe softmax"); older versions
#   returned NaN.
#
# Your function must behave like `F.scaled_dot_product_attention(q, k, v, attn_mask=mask,
# is_causal=is_causal, scale=scale)`: same output, same gradients of `q`, `k`, `v` (and of a float
# mask).
#
# In formulas, with $M$ the mask as an additive matrix ($0$ where a key may be attended, $-\infty$ where not):
#
# $$\mathrm{Attention}(q, k, v) = \mathrm{softmax}\!\left(\frac{q k^{\top}}{\sqrt{E}} + M\right) v$$
#
# ## Not allowed
#
# The built-in and every route to it: `F.scaled_dot_product_attention` (also reached as
# `torch._C._nn.scaled_dot_product_attention`), its private and fused entry points (the aten ops
# `_scaled_dot_product_attention_math`, `_scaled_dot_product_flash_attention` and
# `..._for_cpu`, `_scaled_dot_product_efficient_attention`, `_scaled_dot_product_cudnn_attention`,
# `_fused_sdp_choice`, `_flash_attention_forward`, `_efficient_attention_forward`), and the modules
# built on it: `nn.MultiheadAttention`, `F.multi_head_attention_forward`, `nn.Transformer` and its
# encoder and decoder layers. A submission that reaches one is *rejected*.
#
# **Softmax is allowed** (`torch.softmax`, `Tensor.softmax`): the exercise is about attention, and
# stable softmax has its own exercise (`softmax`). So are `matmul`/`@`, `einsum`, `masked_fill`,
# `where`, `tril`/`triu`, `isfinite`, `any`.
#
# ## What your code may run
#
# A solution is built from arithmetic, elementwise math, reductions, shape and indexing operations, creation, random draws and matrix products. Any other operation your code runs, by whatever route (an alias, `getattr`, `torch.ops`, `torch._C`, scripting, a custom op, a tensor subclass, another backend's tensor), is refused: the verdict is *rejected* and names the operation. The built-ins listed above are refused where they are written, even in a branch that never runs: an interviewer reading the code would stop there. torch's private operator implementations (`torch._refs`, `torch._decomp`, `torch._prims`) are refused the same way: they hold every exercise's answer.
#
# ## How it is graded
#
# Fifteen freshly drawn cases per submission, one call each (in a case description, `x` is
# `q`): causal self-attention on a 4-D `(B, H, L, E)` input; a boolean key-padding mask
# `(B, 1, S)`; a boolean `(L, S)` mask on a 2-D input with two rows fully masked; an additive
# `(L, S)` mask of N(0,1) with `-inf` entries and one row all `-inf`; a finite ALiBi-like bias;
# a given `scale=0.3`; a given `scale=0.0` (legal: every key weighted alike); rectangular causal attention (`L < S`); a head dimension of 160; sharp
# scores (q and k four times N(0,1)); a transposed (non-contiguous) `q`; a batch of one; a single
# key; a forward under `torch.no_grad()` (where an in-place change of an input is looked for);
# bfloat16. All but the last two run backward with a random upstream gradient and compare the
# gradients of `q`, `k`, `v` (and of a float mask). Outputs are compared with the reference
# computed in float64; a zero row must come back as zeros, not NaN.
#
# **Also, as for every exercise:** three calls in a row with fresh data of one shape (code that caches what it computed, or changes from its third call on, fails); float64 cases are compared at float64's own precision: computing float64 input in float32 fails.
#
# ## Pitfalls interviewers look for
#
# - **No scaling**, or **dividing by E instead of sqrt(E)** (question `act-attention-scale-why`).
# - **The `scale` argument ignored**: always `1/sqrt(E)`.
# - **`scale or 1/sqrt(E)`**: a given `scale=0.0` is falsy and becomes the default; test
#   `scale is None`.
# - **Softmax over the wrong axis**: `dim=-2` normalises over the queries.
# - **Mask applied after the softmax**: zeroing weights leaves rows that no longer sum to 1.
# - **Causal mask off by one**: `triu(diagonal=0)` hides the diagonal, so query 0 sees nothing
#   (question `act-causal-mask-zero-code`); or the triangle inverted (the future visible).
# - **`True` read as "masked"** in a boolean mask.
# - **NaN on a fully masked row**: softmax of a row of `-inf` is `0/0` (question
#   `act-fully-masked-row-nan`).
# - **Filling with `-1e9` instead of `-inf`**: right on partly masked rows, but a fully masked
#   row becomes a uniform average of `v` instead of zeros.
#
# ## Why it works
#
# - **The scale.** With `q` and `k` of unit-variance entries, `q . k` is a sum of `E` products of
#   variance 1: its variance is `E`, its standard deviation `sqrt(E)` (question `act-qk-score-std`).
#   Multiplying by `1/sqrt(E)` brings the scores back to unit spread whatever the head size, so
#   the softmax starts neither one-hot (vanishing gradients) nor uniform
#   (`act-unscaled-scores-saturate`). `1/E` over-corrects: the spread falls like `1/sqrt(E)`.
# - **Masks before the softmax.** `exp(-inf) = 0`, so a hidden key drops out of the normaliser
#   and every visible weight is renormalised among the visible keys. Zeroing weights afterwards
#   keeps the hidden keys' share in the denominator.
# - **Causal.** Position `i` may use positions `0..i`, itself included: `8 * 9 / 2 = 36` pairs on
#   8 tokens (`act-causal-mask-allowed-pairs`). The hidden set is `triu(diagonal=1)`.
# - **Fully masked rows.** A row with no finite score has no distribution to take: the contract
#   defines its output as 0. Find such rows (`isfinite(scores).any(-1, keepdim=True)`), softmax
#   a harmless finite stand-in there, and set their weights to 0: the gradient through `where` /
#   `masked_fill` is then 0, where `nan_to_num` on the output would still leave NaN in the
#   backward of an additive mask.
# - **Gradients.** With `P` the weights and `G` the upstream gradient: `dV = P^T G`,
#   `dP = G V^T`, `dS = P * (dP - sum(dP * P, -1))` (the softmax backward), `dQ = dS K * scale`,
#   `dK = dS^T Q * scale`; the float mask's gradient is `dS`. Autograd derives all of them from
#   your forward.
#
# ## Interviewer follow-ups
#
# The questions an interviewer asks once this runs are served with the exercise (the
# `follow_ups` field of `GET /exercises/scaled_dot_product_attention`) and listed at the end of its
# notebook, each linked to the question-bank item that answers it. A few to prepare:
#
# - Why divide by `sqrt(d_k)`? (`act-attention-scale-why`, `act-qk-score-std`) What is the divisor
#   for 12 heads and `d_model = 768`? (`act-attention-scale-per-head`)
# - What does PyTorch's built-in scale by default? (`act-sdpa-default-scale`)
# - Where is this causal attention wrong? (`act-causal-mask-zero-code`)
# - What does softmax return on a row of only `-inf`? (`act-fully-masked-row-nan`)
# - Which statements about masks hold? (`act-attention-masks-which`)
# - Is attention linear in its input? (`ffn-attention-not-linear`)
#
# ## Cost and memory
#
# Two matmuls of `O(L S E)` each and a softmax over `L S` scores. Autograd keeps the `(..., L, S)`
# weights for backward: memory quadratic in sequence length, which dominates at long contexts.
# Fused kernels (FlashAttention) never store them: they stream blocks of keys with a running max
# and sum (the `online_softmax` idea) and recompute the weights in backward.
#
# ## Test yourself
#
# Add dropout on the weights (`weights * keep / (1 - p)` in training), then multi-head attention
# around your function: project to `H` heads, call it on `(B, H, L, E / H)`, and merge. Check that
# the fully masked row stays zero with dropout on, and time your function against the built-in
# at `L = 1024`.
#
# ## Background
#
# The course article "FFN, Residual Addition, LN", section "1.1 FFN", says that attention applies
# softmax only to its weights and is therefore a weighted linear combination of its inputs, with
# the non-linearity left to the FFN. Writing attention shows the other half: the weights are a
# softmax of `q k^T`, both functions of the input, so attention is linear only in `v` once the
# weights are fixed (`ffn-attention-not-linear`). Its section "Softmax" describes softmax as a map
# to a probability distribution, which is what the weights over the keys are.

# %% [markdown]
# <details><summary>中文说明</summary>
#
# # 缩放点积注意力，以及各种掩码
#
# 注意力让序列中的每个位置读取其他位置的信息：每个 query 给所有 key 打分，分数变成和为 1 的
# 权重，输出是 value 的加权平均。代码只有三行，面试官正因如此才爱考它：这三行里藏着缩放、
# 各种掩码，以及只在带 padding 的 batch 上才出现的 NaN。
#
# ## 要写什么
#
# ```python
# def scaled_dot_product_attention(
#     q: torch.Tensor,  # (..., L, E)：L 个 query
#     k: torch.Tensor,  # (..., S, E)：S 个 key
#     v: torch.Tensor,  # (..., S, E)：S 个 value
#     mask: torch.Tensor | None = None,  # bool 或浮点，可广播到 (..., L, S)
#     is_causal: bool = False,
#     scale: float | None = None,
# ) -> torch.Tensor: ...  # (..., L, E)，dtype 与 q 相同
# ```
#
# - `q`、`k`、`v` 的秩为 2、3 或 4（`(L, E)`、`(B, L, E)`、`(B, H, L, E)`），前导维度相同；
#   dtype 为 float32、float64 或 bfloat16。不要修改它们。
# - **分数**：`q @ k^T * scale`，形状 `(..., L, S)`；`scale` 为 None 时取 `1 / sqrt(E)`
#   （`E = q.shape[-1]`），否则取给定的数（作为乘数）。
# - **布尔掩码**：`True` 表示*可以关注*，`False` 遮住这一对（与 `F.scaled_dot_product_attention`
#   的约定一致；`nn.MultiheadAttention` 的 `key_padding_mask` 正好相反）。形状可以是 `(L, S)`，
#   也可以是用于 key padding 的 `(B, 1, S)`：按广播规则展开。
# - **浮点掩码**：直接加到分数上。`-inf` 遮住这一对，有限值则是偏置（相对位置偏置或 ALiBi）。
#   它的梯度和 `q`、`k`、`v` 的梯度一样会被检查，因为这样的偏置可能是可学习的。
# - **is_causal=True**：只有 `j <= i` 时 query `i` 才能看到 key `j`，即 `(L, S)` 全 1 矩阵的下
#   三角（左上角对齐，与 torch 在 `L != S` 时相同）。测试不会同时传入 `mask` 和
#   `is_causal=True`（torch 对此会报错）。
# - **权重**：对掩码后的分数沿 key 方向（最后一维）做 softmax，再算 `weights @ v`。
# - **整行被掩码**（一个 query 的所有 key 都被遮住：padding 位置的 query，或者差一位的因果
#   掩码）时返回 **0**，梯度也为 0：任何地方都不能出现 NaN。这是 PyTorch 从 2.5 起的行为（数学
#   后端的 “safe softmax”）；更早的版本会返回 NaN。
#
# 你的函数要与 `F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=is_causal,
# scale=scale)` 行为一致：输出相同，`q`、`k`、`v`（以及浮点掩码）的梯度也相同。
#
# 用公式写，$M$ 是写成加性矩阵的掩码（可以关注的键为 $0$，不可以的为 $-\infty$）：
#
# $$\mathrm{Attention}(q, k, v) = \mathrm{softmax}\!\left(\frac{q k^{\top}}{\sqrt{E}} + M\right) v$$
#
# ## 不允许使用
#
# 内置实现及通往它的一切途径：`F.scaled_dot_product_attention`（也可经
# `torch._C._nn.scaled_dot_product_attention` 调到），它的私有和融合入口（aten 算子
# `_scaled_dot_product_attention_math`、`_scaled_dot_product_flash_attention` 及
# `..._for_cpu`、`_scaled_dot_product_efficient_attention`、`_scaled_dot_product_cudnn_attention`、
# `_fused_sdp_choice`、`_flash_attention_forward`、`_efficient_attention_forward`），以及基于它
# 构建的模块：`nn.MultiheadAttention`、`F.multi_head_attention_forward`、`nn.Transformer` 及其
# 编码器、解码器层。用到其中任何一个的提交会被判为 *rejected*。
#
# **softmax 可以用**（`torch.softmax`、`Tensor.softmax`）：本题考的是注意力，数值稳定的
# softmax 另有一题（`softmax`）。`matmul`/`@`、`einsum`、`masked_fill`、`where`、`tril`/`triu`、
# `isfinite`、`any` 也都可以用。
#
# ## 代码可以运行什么
#
# 答案只能由算术、逐元素数学函数、归约、形状与索引操作、张量创建、随机采样和矩阵乘法构成。代码运行的任何其他运算，不管通过什么途径（起别名、`getattr`、`torch.ops`、`torch._C`、脚本化、自定义算子、张量子类、其他后端的张量），都会被拒绝：判定为 *rejected*，并指出是哪个运算。上面列出的内置函数只要写在代码里就会被拒绝，即使所在的分支从不执行：面试官读到那一行就会停下来。torch 私有的算子实现（`torch._refs`、`torch._decomp`、`torch._prims`）同样被拒绝：每道题的答案都在里面。
#
# ## 如何评测
#
# 每次提交有十五个新随机生成的用例，每个用例调用一次（用例描述中的 `x` 就是 `q`）：四维
# `(B, H, L, E)` 输入上的因果自注意力；`(B, 1, S)` 的布尔 key padding 掩码；二维输入上的
# `(L, S)` 布尔掩码，其中两行整行被掩码；`(L, S)` 加性掩码，N(0,1) 中夹有 `-inf`，且有一行全为
# `-inf`；有限的类 ALiBi 偏置；给定 `scale=0.3`；给定 `scale=0.0`（合法：所有 key 权重相同）；矩形的因果注意力（`L < S`）；head 维度 160；
# 尖锐的分数（q 和 k 为 4 倍的 N(0,1)）；转置（不连续）的 `q`；batch 为 1；只有一个 key；
# `torch.no_grad()` 下的前向（检查有没有原地修改输入）；bfloat16。除最后两个外都会用随机的
# 上游梯度做反向传播，比较 `q`、`k`、`v`（以及浮点掩码）的梯度。输出与在 float64 下计算的
# 参考结果比较；应为 0 的行必须返回 0，而不是 NaN。
#
# **和每道题一样，还有：**同一形状、新数据连续调用三次（缓存结果、或从第三次调用起行为改变的代码会判错）；float64 用例按 float64 自身的精度比较：把 float64 输入放到 float32 里计算会判错。
#
# ## 面试官会盯的坑
#
# - **没有缩放**，或者**除以 E 而不是 sqrt(E)**（题目 `act-attention-scale-why`）。
# - **忽略 `scale` 参数**：总是用 `1/sqrt(E)`。
# - **`scale or 1/sqrt(E)`**：给定的 `scale=0.0` 是假值，会被换成默认值；应判断 `scale is None`。
# - **softmax 的维度错了**：`dim=-2` 是沿 query 方向归一化。
# - **在 softmax 之后才施加掩码**：把权重清零后，各行之和不再为 1。
# - **因果掩码差一位**：`triu(diagonal=0)` 把对角线也遮住了，query 0 什么都看不到（题目
#   `act-causal-mask-zero-code`）；或者三角方向反了（看到了未来）。
# - **把布尔掩码里的 `True` 当成“被遮住”**。
# - **整行被掩码时出现 NaN**：整行 `-inf` 的 softmax 是 `0/0`（题目 `act-fully-masked-row-nan`）。
# - **用 `-1e9` 而不是 `-inf` 填充**：部分被掩码的行没问题，但整行被掩码时会变成 `v` 的均匀
#   平均，而不是 0。
#
# ## 为什么有效
#
# - **缩放。** `q`、`k` 各分量方差为 1 时，`q . k` 是 `E` 个方差为 1 的乘积之和：方差为 `E`，
#   标准差为 `sqrt(E)`（题目 `act-qk-score-std`）。乘以 `1/sqrt(E)` 后，无论 head 多大，分数的
#   尺度都回到 1，softmax 一开始既不是 one-hot（梯度消失）也不是均匀分布
#   （`act-unscaled-scores-saturate`）。`1/E` 矫枉过正：尺度会按 `1/sqrt(E)` 缩小。
# - **掩码要在 softmax 之前。** `exp(-inf) = 0`，被遮住的 key 从分母中消失，可见的权重在可见的
#   key 之间重新归一化。事后清零权重，分母里仍留着被遮住的 key 的份额。
# - **因果。** 位置 `i` 可以使用位置 `0..i`，包括它自己：8 个 token 上共 `8 * 9 / 2 = 36` 对
#   （`act-causal-mask-allowed-pairs`）。要遮住的是 `triu(diagonal=1)`。
# - **整行被掩码。** 没有任何有限分数的行不存在可取的分布：约定它的输出为 0。找出这样的行
#   （`isfinite(scores).any(-1, keepdim=True)`），在这些行上对一个无害的有限替代值做 softmax，
#   再把它们的权重设为 0：经过 `where` / `masked_fill` 的梯度就是 0；而对输出做 `nan_to_num`，
#   加性掩码的反向传播里仍会有 NaN。
# - **梯度。** 设权重为 `P`，上游梯度为 `G`：`dV = P^T G`，`dP = G V^T`，
#   `dS = P * (dP - sum(dP * P, -1))`（softmax 的反向），`dQ = dS K * scale`，
#   `dK = dS^T Q * scale`；浮点掩码的梯度就是 `dS`。autograd 会根据你的前向计算自动求出这些。
#
# ## 面试官的追问
#
# 代码跑通之后面试官会接着问的问题随练习一起提供（`GET /exercises/scaled_dot_product_attention`
# 返回的 `follow_ups` 字段），也列在对应 notebook 的末尾，每个问题都链接到题库中给出答案的那道题。
# 可以先准备这几个：
#
# - 为什么要除以 `sqrt(d_k)`？（`act-attention-scale-why`、`act-qk-score-std`）12 个头、
#   `d_model = 768` 时除数是多少？（`act-attention-scale-per-head`）
# - PyTorch 的内置实现默认怎么缩放？（`act-sdpa-default-scale`）
# - 这段因果注意力错在哪里？（`act-causal-mask-zero-code`）
# - 整行都是 `-inf` 时 softmax 返回什么？（`act-fully-masked-row-nan`）
# - 关于掩码，哪些说法成立？（`act-attention-masks-which`）
# - 注意力对输入是线性的吗？（`ffn-attention-not-linear`）
#
# ## 计算量与显存
#
# 两次 `O(L S E)` 的矩阵乘法，加上对 `L S` 个分数的 softmax。autograd 为反向传播保存
# `(..., L, S)` 的权重：显存随序列长度平方增长，在长上下文时占主导。融合 kernel
# （FlashAttention）从不保存它们：按块流式处理 key，维护滚动的最大值和求和（即 `online_softmax`
# 的思路），并在反向时重新计算权重。
#
# ## 自我检验
#
# 在权重上加 dropout（训练时 `weights * keep / (1 - p)`），再在你的函数外面包一层多头注意力：
# 投影到 `H` 个头，在 `(B, H, L, E / H)` 上调用它，再合并。检查开着 dropout 时整行被掩码的
# 输出仍然为 0，并在 `L = 1024` 时和内置实现比较耗时。
#
# ## 背景
#
# 课程文章《FFN, Residual Addition, LN》的“1.1 FFN”一节说，注意力只对权重做 softmax，因此本质上
# 是输入的加权线性组合，非线性要靠 FFN 提供。亲手写一遍注意力就能看到另一半：权重是 `q k^T`
# 的 softmax，而两者都是输入的函数，所以只有在权重固定时，注意力才对 `v` 是线性的
# （`ffn-attention-not-linear`）。同一篇文章的“Softmax”一节把 softmax 描述为映射到概率分布的函数，
# 沿 key 方向的权重正是这样一个分布。
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
#    `# addnorm: exercise scaled_dot_product_attention`: the submit cell sends the last *executed* cell that starts with it.
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
# 2. 在下面的练习单元格里写好你的类并运行。第一行 `# addnorm: exercise scaled_dot_product_attention` 不要删：提交单元格发送的是
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
# addnorm: exercise scaled_dot_product_attention
import torch


def scaled_dot_product_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    mask: torch.Tensor | None = None,
    is_causal: bool = False,
    scale: float | None = None,
) -> torch.Tensor:
    # softmax(q @ k^T * scale + mask) @ v, scale = 1/sqrt(E) by default; a boolean mask keeps
    # the True pairs, is_causal keeps key j <= query i, and a fully masked row returns zeros.
    raise NotImplementedError("implement scaled_dot_product_attention")


# %% [markdown]
# ## Quick local check
#
# Runs your exercise cell again on its own, in a fresh namespace, as the server does, then
# compares a few public cases, forward pass only, with a reference in this kernel. It is a sanity
# check and **does not replace the server's verdict**, which runs many more shapes and dtypes,
# the backward pass and the known-mistake diagnosis.
#
# Reference: `torch.nn.functional.scaled_dot_product_attention` with a causal mask, a boolean padding mask
# with a fully masked row, and an additive mask.
#
# <details><summary>中文</summary>
#
# ## 本地快速检查
#
# 和服务器一样，把你的练习单元格单独放进全新的命名空间重新执行，再用几个公开用例（只做前向）
# 在当前 kernel 里与参考实现对比。这只是一次自检，**不能代替服务器的评测**：服务器会覆盖多得多的
# 形状和 dtype，还会检查反向传播并诊断已知错误。
#
# 参考实现：`torch.nn.functional.scaled_dot_product_attention`：因果掩码、含整行被掩码的布尔 padding
# 掩码，以及加性掩码。
#
# </details>

# %%
from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F

from addnorm_client.local import LocalCase


def local_cases() -> list[LocalCase]:
    g = torch.Generator().manual_seed(0)
    q = torch.randn(2, 6, 16, generator=g)
    k = torch.randn(2, 8, 16, generator=g)
    v = torch.randn(2, 8, 16, generator=g)
    keep = torch.rand(6, 8, generator=g) < 0.6
    keep[:, 0] = True
    keep[3] = False  # query 3 sees no key: zeros
    bias = torch.randn(6, 8, generator=g).masked_fill(~keep, float("-inf"))
    qs = torch.randn(2, 8, 16, generator=g)

    def case(name: str, x: torch.Tensor, kk: torch.Tensor, **kwargs: Any) -> LocalCase:
        def build(fn: Any) -> Callable[[torch.Tensor], Any]:
            def call(t: torch.Tensor, key: torch.Tensor = kk, value: torch.Tensor = v) -> Any:
                return fn(t, key, value, **kwargs)

            return call

        mask = kwargs.get("mask")
        expected = F.scaled_dot_product_attention(
            x, kk, v, attn_mask=mask, is_causal=kwargs.get("is_causal", False)
        )
        return LocalCase(
            name=name, x=x, build=build, expected=expected, leaves={"key": kk, "value": v}
        )

    return [
        case("causal, L = S = 8", qs, k, is_causal=True),
        case("boolean mask, query 3 fully masked", q, k, mask=keep),
        case("additive mask with -inf entries", q, k, mask=bias),
    ]


from addnorm_client.local import check

check("scaled_dot_product_attention", "scaled_dot_product_attention", local_cases())

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

submit_cell("scaled_dot_product_attention")

# %% [markdown]
# ## Interviewer follow-ups
#
# Once the code runs, an interviewer keeps going. Answer out loud first, then check yourself: each
# question links to an item of the question bank, served and graded by the server
# (`GET /questions/<id>`) and collected by topic in the `questions_<topic>` notebooks.
#
# 1. Why divide the scores by sqrt(d_k)? (`act-attention-scale-why`, `questions_activations`)
# 2. With d_k = 64 unit-variance components, what is the spread of an unscaled score? (`act-qk-score-std`, `questions_activations`)
# 3. In a 12-head layer with d_model = 768, what is the divisor? (`act-attention-scale-per-head`, `questions_activations`)
# 4. Without the scale, are the weights already near one-hot at initialisation? (`act-unscaled-scores-saturate`, `questions_activations`)
# 5. This causal attention is wrong. Where? (`act-causal-mask-zero-code`, `questions_activations`)
# 6. How many (query, key) pairs does a causal mask allow on 8 tokens? (`act-causal-mask-allowed-pairs`, `questions_activations`)
# 7. What does softmax return on a row of only -inf, and what should attention return there? (`act-fully-masked-row-nan`, `questions_activations`)
# 8. Which statements about attention masks are true? (`act-attention-masks-which`, `questions_activations`)
# 9. What scale does F.scaled_dot_product_attention use by default? (`act-sdpa-default-scale`, `questions_activations`)
# 10. Is attention a linear function of its input? (`ffn-attention-not-linear`, `questions_ffn`)
#
# <details><summary>中文</summary>
#
# ## 面试官的追问
#
# 代码跑通之后，面试官还会接着问。先试着口头回答，再去核对：每个问题都对应题库中的一道题，
# 由服务器提供并判分（`GET /questions/<id>`），也按主题收录在 `questions_<topic>` notebook 里。
#
# 1. 为什么要把分数除以 sqrt(d_k)？ (`act-attention-scale-why`, `questions_activations`)
# 2. d_k = 64、各分量方差为 1 时，未缩放的分数标准差是多少？ (`act-qk-score-std`, `questions_activations`)
# 3. d_model = 768、12 个头的注意力层，除数是多少？ (`act-attention-scale-per-head`, `questions_activations`)
# 4. 不做缩放时，初始化时注意力权重是否已经接近 one-hot？ (`act-unscaled-scores-saturate`, `questions_activations`)
# 5. 这段因果注意力错在哪里？ (`act-causal-mask-zero-code`, `questions_activations`)
# 6. 8 个 token 上因果掩码允许多少个（query, key）对？ (`act-causal-mask-allowed-pairs`, `questions_activations`)
# 7. 整行都是 -inf 时 softmax 返回什么？注意力在这里应该返回什么？ (`act-fully-masked-row-nan`, `questions_activations`)
# 8. 关于注意力掩码，哪些说法正确？ (`act-attention-masks-which`, `questions_activations`)
# 9. F.scaled_dot_product_attention 默认用什么缩放？ (`act-sdpa-default-scale`, `questions_activations`)
# 10. 注意力是其输入的线性函数吗？ (`ffn-attention-not-linear`, `questions_ffn`)
#
# </details>
