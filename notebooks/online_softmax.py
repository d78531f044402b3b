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
# # Online softmax: a long row in chunks, with a running max and sum
#
# **topic:** activations · **difficulty:** medium
#
# The stable softmax reads a row three times: once for the max, once for the sum of
# exponentials, once to normalise. When the row does not fit where you compute (an attention row
# of 100k keys on a GPU's on-chip memory), you want to read it once, chunk by chunk, and still
# never overflow. The trick is to keep a **running max** and a **running sum** and to rescale the
# sum whenever the max grows. It is the normaliser of FlashAttention, and interviewers ask for it
# as a follow-up to softmax.
#
# ## What to write
#
# ```python
# def online_softmax_update(
#     x: torch.Tensor, m: torch.Tensor, s: torch.Tensor
# ) -> tuple[torch.Tensor, torch.Tensor]: ...
# def online_softmax(x: torch.Tensor, chunk_size: int = 128) -> torch.Tensor: ...
# ```
#
# - **`online_softmax_update(x, m, s)`** folds one chunk `x` of shape `(..., c)` into the running
#   statistics of its rows, `m` and `s` of shape `(..., 1)`: `m` is the largest logit read so far
#   and `s = sum exp(x_read - m)`. Return `(m_new, s_new)` with `m_new = max(m, max(x))` and
#   `s_new` the same sum over everything read, chunk included, measured against `m_new`. The
#   **empty state** is `m = -inf, s = 0`; a chunk of only `-inf` leaves a row's state as it was,
#   **with no NaN**, also from the empty state (a masked block in causal attention). Do not
#   modify `m` or `s`.
# - **`online_softmax(x, chunk_size=128)`** returns `softmax(x, dim=-1)` for `x` of rank 1 to 3:
#   the statistics in one pass over the chunks of `chunk_size` entries along the last axis (the
#   last chunk may be shorter; `chunk_size` may be 1 or larger than the row), then the
#   normalising pass `exp(x - m) / s`. Every row holds at least one finite logit; `-inf` entries
#   get probability 0, and a whole chunk of them is allowed. Same shape and dtype as `x`
#   (float32 or float64), and the same gradient as softmax.
#
# **What is graded, honestly.** The update is graded directly, on running states the grader
# chooses: the empty state, a max that grows, a max 1e4 above the chunk, chunks of `-inf`. That is
# the streaming property: a function that sees one chunk and two numbers per row can only be
# right by rescaling. `online_softmax` is graded on its result (the same as softmax, on rows
# where a wrong chunking shows); the grader does not count how many times it reads `x`. And it is
# two passes, not one: one for both statistics instead of two, then the normalisation. A truly
# single pass needs something to accumulate instead of probabilities to store, which is what
# FlashAttention does with `P @ V` (see "Cost and memory").
#
# In formulas, for a running max $m$ and sum $s$ meeting a chunk $x$:
#
# $$m' = \max\left(m, \max_j x_j\right),\qquad s' = s\,e^{m - m'} + \sum_j e^{x_j - m'},\qquad \mathrm{softmax}(x)_i = \frac{e^{x_i - m}}{s}$$
#
# ## Not allowed
#
# Whatever normalises or takes log-sum-exp in one call: `torch.softmax`, `torch.log_softmax`,
# `Tensor.softmax`, `F.softmax`, `F.log_softmax`, `F.softmin`, `F.gumbel_softmax`, `nn.Softmax`,
# `nn.LogSoftmax`, `nn.Softmin`, `torch.special.softmax`/`log_softmax`/`logsumexp`,
# `torch.logsumexp`, `torch.logaddexp`, `F.scaled_dot_product_attention`, and the same ops through
# `torch.ops.aten`. A submission that reaches one is *rejected*. Everything else is fine: `exp`,
# `amax`, `maximum`, `sum`, slicing, `torch.split`, `torch.where`, `isneginf`.
#
# ## What your code may run
#
# A solution is built from arithmetic, elementwise math, reductions, shape and indexing operations, creation, random draws and matrix products. Any other operation your code runs, by whatever route (an alias, `getattr`, `torch.ops`, `torch._C`, scripting, a custom op, a tensor subclass, another backend's tensor), is refused: the verdict is *rejected* and names the operation. The built-ins listed above are refused where they are written, even in a branch that never runs: an interviewer reading the code would stop there. torch's private operator implementations (`torch._refs`, `torch._decomp`, `torch._prims`) are refused the same way: they hold every exercise's answer.
#
# ## How it is graded
#
# Sixteen freshly drawn cases per submission, one call each. Eleven call `online_softmax`: a row
# whose logits rise from 0 to 40 (the max grows in every chunk), logits around 1e4, rows whose
# first 150 entries are `-inf` (the first chunk sees nothing finite), a row of 389 with chunks of
# 128 (a shorter last chunk), chunks of 1, one chunk larger than the row, a transposed view with
# random `-inf` entries, a long 1-D vector, a batch of one, a spread of 1e3, and a forward under
# `torch.no_grad()` (where an in-place change of `x` is looked for); all but the last compare the
# gradient of `x` too. Five call `online_softmax_update` (forward only: the statistics are not
# backpropagated through): from the empty state, with a max that grows, with a max 1e4 above the
# chunk, with rows of only `-inf` (one from the empty state), and on a 3-D chunk. Outputs are
# compared with the reference computed in float64.
#
# **Also, as for every exercise:** three calls in a row with fresh data of one shape (code that caches what it computed, or changes from its third call on, fails); float64 cases are compared at float64's own precision: computing float64 input in float32 fails.
#
# ## Pitfalls interviewers look for
#
# - **The old sum not rescaled**: `s + sum(exp(x - m_new))` (question
#   `act-online-softmax-rescale`).
# - **Rescaled the wrong way**: `s * exp(m_new - m)`.
# - **NaN from the empty state**: `exp(-inf - (-inf))` when a chunk of `-inf` meets `m = -inf`
#   (question `act-fully-masked-row-nan` is the same NaN in plain softmax).
# - **No running max at all**: `exp(x)` summed chunk by chunk overflows at 1e4 (question
#   `act-softmax-naive-code`).
# - **The last, shorter chunk dropped**: `range(n // chunk_size)`.
# - **Each chunk normalised too early**: `exp(x_k - m_k) / s_k` with the statistics of the chunks
#   read so far, never corrected.
#
# ## Why it works
#
# - **One invariant.** After each chunk, `s = sum over everything read of exp(x - m)` with `m`
#   the max of everything read. A new chunk with max `c` gives `m_new = max(m, c)`; the old terms
#   become `exp(x - m_new) = exp(x - m) * exp(m - m_new)`, so `s_new = s * exp(m - m_new) +
#   sum(exp(x_chunk - m_new))`. Both exponents are `<= 0`: nothing overflows, and the largest
#   term read is `exp(0) = 1`, so `s >= 1` once a finite logit has been read.
# - **Order does not matter.** The state `(m, s)` stands for `m + log s`, the log-sum-exp of what
#   was read, and combining two states is associative: chunks may be read in any order or
#   combined in a tree (which is how a GPU splits a row across threads).
# - **The empty state.** `(-inf, 0)` stands for the log-sum-exp of nothing (`-inf`). Folding a
#   chunk of `-inf` into it must give the same state; the only NaN risk is the shift
#   `m - m_new = -inf - (-inf)`, so shift by 0 where `m_new` is still `-inf`.
# - **Gradient.** The output is `exp(x - m) / s` with `m` and `s` functions of `x`; because
#   softmax is shift-invariant, the gradient is softmax's, `y * (g - sum(g * y))`, whether or not
#   the max is detached (question `act-softmax-backward`).
#
# ## Interviewer follow-ups
#
# The questions an interviewer asks once this runs are served with the exercise (the
# `follow_ups` field of `GET /exercises/online_softmax`) and listed at the end of its notebook,
# each linked to the question-bank item that answers it. A few to prepare:
#
# - `m = 2, s = 3`, the next logit is 4: the new sum? (`act-online-softmax-rescale`)
# - Why may any constant be subtracted, and why the max? (`act-softmax-shift`)
# - Why does the naive softmax return NaN on attention scores? (`act-softmax-naive-code`)
# - What does softmax return on a row of only `-inf`? (`act-fully-masked-row-nan`)
# - Which statistics does softmax's backward need? (`act-softmax-backward`)
#
# ## Cost and memory
#
# The same `n` exponentials as the three-pass softmax, plus one `exp(m - m_new)` per row and
# chunk; the row is read twice instead of three times, which is what matters when reading
# dominates. The state is two numbers per row, whatever the row's length. In attention,
# FlashAttention goes one step further: it keeps, beside `m` and `s`, the running output
# `o = sum exp(x - m) v`, rescaled by the same factor, so the `(L, S)` probabilities are never
# stored and one pass suffices; backward recomputes them block by block from the saved `m + log s`.
#
# ## Test yourself
#
# Combine two states computed on the two halves of a row (`(m1, s1)` and `(m2, s2)` into one) and
# check it against the sequential result. Then extend the update to attention: keep `o` as well,
# rescale it with `exp(m - m_new)`, and check `o / s` against `softmax(q k^T) v` for one query on
# a thousand keys in chunks of 64.
#
# ## Background
#
# The course article "FFN, Residual Addition, LN", section "Softmax", presents softmax as the map
# of a layer's outputs to a probability distribution, computed from the whole vector of scores at
# once. The online form computes the same distribution while reading the scores in pieces, which
# is what lets attention run on sequences whose score rows do not fit in fast memory.

# %% [markdown]
# <details><summary>中文说明</summary>
#
# # Online softmax：分块读取长行，维护滚动最大值和滚动求和
#
# 数值稳定的 softmax 要把一行读三遍：一遍求最大值，一遍求指数和，一遍归一化。当这一行放不进
# 计算所在的存储（GPU 片上存储里一行有 10 万个 key 的注意力分数）时，你希望只读一遍、逐块处理，
# 同时又永远不溢出。诀窍是维护**滚动最大值**和**滚动求和**，并在最大值变大时重新缩放求和。这
# 就是 FlashAttention 的归一化方式，面试官常在 softmax 之后接着追问它。
#
# ## 要写什么
#
# ```python
# def online_softmax_update(
#     x: torch.Tensor, m: torch.Tensor, s: torch.Tensor
# ) -> tuple[torch.Tensor, torch.Tensor]: ...
# def online_softmax(x: torch.Tensor, chunk_size: int = 128) -> torch.Tensor: ...
# ```
#
# - **`online_softmax_update(x, m, s)`** 把形状为 `(..., c)` 的一个块 `x` 并入各行的滚动统计量
#   `m` 和 `s`（形状 `(..., 1)`）：`m` 是到目前为止读到的最大 logit，`s = sum exp(已读元素 - m)`。
#   返回 `(m_new, s_new)`，其中 `m_new = max(m, max(x))`，`s_new` 是包括这个块在内所有已读元素、
#   以 `m_new` 为基准的同一个求和。**空状态**为 `m = -inf, s = 0`；全是 `-inf` 的块不改变该行的
#   状态，**不能出现 NaN**，从空状态开始也一样（因果注意力中被掩码的块）。不要修改 `m` 或 `s`。
# - **`online_softmax(x, chunk_size=128)`** 对秩为 1 到 3 的 `x` 返回 `softmax(x, dim=-1)`：沿
#   最后一维按每块 `chunk_size` 个元素扫一遍算出统计量（最后一块可以更短；`chunk_size` 可以是 1，
#   也可以比整行还长），再做归一化那一遍 `exp(x - m) / s`。每一行至少有一个有限的 logit；`-inf`
#   的元素概率为 0，整块都是 `-inf` 也可以。形状和 dtype 与 `x` 相同（float32 或 float64），梯度
#   与 softmax 相同。
#
# **评测到底检查什么（如实说明）。** update 直接在评测选定的滚动状态上检查：空状态、变大的最大
# 值、比块内高出 1e4 的最大值、全是 `-inf` 的块。这正是流式计算所需的性质：一个只看到一个块和
# 每行两个数的函数，只有正确地重新缩放才能算对。`online_softmax` 按结果检查（与 softmax 相同，
# 且输入是分块出错就会暴露的那些行）；评测不会统计它读了 `x` 多少遍。而且它是两遍，不是一遍：
# 一遍同时得到两个统计量（原来要两遍），再一遍归一化。真正的单遍需要累积某种结果而不是保存
# 概率，FlashAttention 累积的是 `P @ V`（见“计算量与显存”）。
#
# 用公式写，运行最大值 $m$ 和总和 $s$ 遇到一个分块 $x$ 时：
#
# $$m' = \max\left(m, \max_j x_j\right),\qquad s' = s\,e^{m - m'} + \sum_j e^{x_j - m'},\qquad \mathrm{softmax}(x)_i = \frac{e^{x_i - m}}{s}$$
#
# ## 不允许使用
#
# 一步完成归一化或 log-sum-exp 的一切：`torch.softmax`、`torch.log_softmax`、`Tensor.softmax`、
# `F.softmax`、`F.log_softmax`、`F.softmin`、`F.gumbel_softmax`、`nn.Softmax`、`nn.LogSoftmax`、
# `nn.Softmin`、`torch.special.softmax`/`log_softmax`/`logsumexp`、`torch.logsumexp`、
# `torch.logaddexp`、`F.scaled_dot_product_attention`，以及经 `torch.ops.aten` 调到的同样的算子。
# 用到其中任何一个的提交会被判为 *rejected*。其余都可以用：`exp`、`amax`、`maximum`、`sum`、切片、
# `torch.split`、`torch.where`、`isneginf`。
#
# ## 代码可以运行什么
#
# 答案只能由算术、逐元素数学函数、归约、形状与索引操作、张量创建、随机采样和矩阵乘法构成。代码运行的任何其他运算，不管通过什么途径（起别名、`getattr`、`torch.ops`、`torch._C`、脚本化、自定义算子、张量子类、其他后端的张量），都会被拒绝：判定为 *rejected*，并指出是哪个运算。上面列出的内置函数只要写在代码里就会被拒绝，即使所在的分支从不执行：面试官读到那一行就会停下来。torch 私有的算子实现（`torch._refs`、`torch._decomp`、`torch._prims`）同样被拒绝：每道题的答案都在里面。
#
# ## 如何评测
#
# 每次提交有十六个新随机生成的用例，每个用例调用一次。其中十一个调用 `online_softmax`：logits
# 从 0 递增到 40 的行（每个块的最大值都在变大）、1e4 附近的 logits、前 150 个元素为 `-inf` 的行
# （第一个块里没有有限值）、长 389 且块大小为 128 的行（最后一块较短）、块大小为 1、块比整行还长、
# 带随机 `-inf` 的转置视图、一个很长的一维向量、batch 为 1、跨度 1e3 的 logits，以及一个在
# `torch.no_grad()` 下的前向（检查有没有原地修改 `x`）；除最后一个外都会比较 `x` 的梯度。五个
# 调用 `online_softmax_update`（只做前向：统计量不参与反向传播）：从空状态开始、最大值变大、
# 最大值比块内高出 1e4、整行都是 `-inf`（其中一行处于空状态），以及三维的块。输出与在 float64
# 下计算的参考结果比较。
#
# **和每道题一样，还有：**同一形状、新数据连续调用三次（缓存结果、或从第三次调用起行为改变的代码会判错）；float64 用例按 float64 自身的精度比较：把 float64 输入放到 float32 里计算会判错。
#
# ## 面试官会盯的坑
#
# - **旧的求和没有重新缩放**：`s + sum(exp(x - m_new))`（题目 `act-online-softmax-rescale`）。
# - **缩放方向反了**：`s * exp(m_new - m)`。
# - **空状态下出现 NaN**：全是 `-inf` 的块遇到 `m = -inf` 时的 `exp(-inf - (-inf))`（题目
#   `act-fully-masked-row-nan` 是普通 softmax 里同样的 NaN）。
# - **根本没有滚动最大值**：逐块累加 `exp(x)`，在 1e4 处溢出（题目 `act-softmax-naive-code`）。
# - **丢掉了最后那个较短的块**：`range(n // chunk_size)`。
# - **每个块归一化得太早**：用到目前为止的统计量算 `exp(x_k - m_k) / s_k`，之后再不修正。
#
# ## 为什么有效
#
# - **一个不变量。** 每读完一个块，`s = 所有已读元素的 exp(x - m) 之和`，`m` 是所有已读元素的
#   最大值。新块的最大值为 `c` 时 `m_new = max(m, c)`；旧的项变为
#   `exp(x - m_new) = exp(x - m) * exp(m - m_new)`，所以
#   `s_new = s * exp(m - m_new) + sum(exp(x_chunk - m_new))`。两个指数都 `<= 0`：不会溢出；读到的
#   最大那一项是 `exp(0) = 1`，所以一旦读到有限的 logit，就有 `s >= 1`。
# - **顺序无关。** 状态 `(m, s)` 代表 `m + log s`，即已读部分的 log-sum-exp，合并两个状态满足
#   结合律：块可以按任意顺序读取，也可以按树形合并（GPU 就是这样把一行分给多个线程的）。
# - **空状态。** `(-inf, 0)` 代表空集的 log-sum-exp（`-inf`）。把一个全是 `-inf` 的块并入它，
#   结果必须还是这个状态；唯一可能出 NaN 的是平移量 `m - m_new = -inf - (-inf)`，所以在 `m_new`
#   仍为 `-inf` 的地方用 0 作平移量。
# - **梯度。** 输出是 `exp(x - m) / s`，`m` 和 `s` 都是 `x` 的函数；由于 softmax 的平移不变性，
#   无论最大值是否 detach，梯度都是 softmax 的梯度 `y * (g - sum(g * y))`（题目
#   `act-softmax-backward`）。
#
# ## 面试官的追问
#
# 代码跑通之后面试官会接着问的问题随练习一起提供（`GET /exercises/online_softmax` 返回的
# `follow_ups` 字段），也列在对应 notebook 的末尾，每个问题都链接到题库中给出答案的那道题。
# 可以先准备这几个：
#
# - `m = 2, s = 3`，下一个 logit 是 4：新的求和是多少？（`act-online-softmax-rescale`）
# - 为什么可以减去任意常数？为什么选最大值？（`act-softmax-shift`）
# - 朴素的 softmax 用在注意力分数上为什么返回 NaN？（`act-softmax-naive-code`）
# - 整行都是 `-inf` 时 softmax 返回什么？（`act-fully-masked-row-nan`）
# - softmax 的反向传播需要哪些统计量？（`act-softmax-backward`）
#
# ## 计算量与显存
#
# exp 的次数与三遍式 softmax 相同（`n` 次），每行每块再多一次 `exp(m - m_new)`；一行只读两遍
# 而不是三遍，在读取占主导时这一点最重要。状态是每行两个数，与行长无关。在注意力里，
# FlashAttention 更进一步：除 `m` 和 `s` 外，它还维护滚动输出 `o = sum exp(x - m) v`，用同一个
# 因子重新缩放，因此 `(L, S)` 的概率矩阵从不保存，一遍就够；反向传播时再根据保存的 `m + log s`
# 逐块重新计算它们。
#
# ## 自我检验
#
# 把在一行前后两半上分别算出的两个状态（`(m1, s1)` 和 `(m2, s2)`）合并成一个，并与顺序计算的
# 结果对比。然后把 update 扩展到注意力：同时维护 `o`，用 `exp(m - m_new)` 重新缩放它，在一个
# query、一千个 key、每块 64 个的情况下，把 `o / s` 与 `softmax(q k^T) v` 对比。
#
# ## 背景
#
# 课程文章《FFN, Residual Addition, LN》的“Softmax”一节把 softmax 描述为把一层的输出映射成概率
# 分布的函数，需要一次拿到全部分数。online 形式在分块读取分数的同时算出同一个分布，这正是注意力
# 能在分数行放不进高速存储的长序列上运行的原因。
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
#    `# addnorm: exercise online_softmax`: the submit cell sends the last *executed* cell that starts with it.
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
# 2. 在下面的练习单元格里写好你的类并运行。第一行 `# addnorm: exercise online_softmax` 不要删：提交单元格发送的是
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
# addnorm: exercise online_softmax
import torch


def online_softmax_update(
    x: torch.Tensor, m: torch.Tensor, s: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    # Fold the chunk x (..., c) into each row's running max m and running sum s (..., 1):
    # s holds sum(exp(x_seen - m)). The empty state is m = -inf, s = 0.
    raise NotImplementedError("implement online_softmax_update")


def online_softmax(x: torch.Tensor, chunk_size: int = 128) -> torch.Tensor:
    # softmax(x, dim=-1): the statistics chunk by chunk with online_softmax_update, then
    # exp(x - m) / s.
    raise NotImplementedError("implement online_softmax")


# %% [markdown]
# ## Quick local check
#
# Runs your exercise cell again on its own, in a fresh namespace, as the server does, then
# compares a few public cases, forward pass only, with a reference in this kernel. It is a sanity
# check and **does not replace the server's verdict**, which runs many more shapes and dtypes,
# the backward pass and the known-mistake diagnosis.
#
# Reference: `torch.softmax(x, -1)` computed in chunks, on logits of 1e4 and on rows whose first chunk is
# all -inf; and one update from the empty state.
#
# <details><summary>中文</summary>
#
# ## 本地快速检查
#
# 和服务器一样，把你的练习单元格单独放进全新的命名空间重新执行，再用几个公开用例（只做前向）
# 在当前 kernel 里与参考实现对比。这只是一次自检，**不能代替服务器的评测**：服务器会覆盖多得多的
# 形状和 dtype，还会检查反向传播并诊断已知错误。
#
# 参考实现：分块计算的 `torch.softmax(x, -1)`：logits 为 1e4、以及第一个块全为 -inf 的行；再加一次从空
# 状态开始的更新。
#
# </details>

# %%
from collections.abc import Callable
from typing import Any

import torch

from addnorm_client.local import LocalCase


def local_cases() -> list[LocalCase]:
    g = torch.Generator().manual_seed(0)
    big = torch.randn(3, 300, generator=g) + 1e4
    head = torch.randn(2, 200, generator=g)
    head[:, :64] = float("-inf")  # the first chunk of 64 sees nothing finite
    chunk = torch.randn(3, 40, generator=g) * 3

    def softmax_case(name: str, x: torch.Tensor, size: int) -> LocalCase:
        def build(fns: dict[str, Any]) -> Callable[[torch.Tensor], Any]:
            return lambda t: fns["online_softmax"](t, size)

        return LocalCase(name=name, x=x, build=build, expected=torch.softmax(x, -1))

    def update_build(fns: dict[str, Any]) -> Callable[[torch.Tensor], Any]:
        def call(t: torch.Tensor) -> Any:
            m = torch.full((t.shape[0], 1), float("-inf"), dtype=t.dtype)
            return fns["online_softmax_update"](t, m, torch.zeros_like(m))[1]

        return call

    m0 = chunk.amax(-1, keepdim=True)
    return [
        softmax_case("logits around 1e4, chunks of 128", big, 128),
        softmax_case("first chunk all -inf, chunks of 64", head, 64),
        LocalCase(
            name="update from the empty state: the new sum",
            x=chunk,
            build=update_build,
            expected=torch.exp(chunk - m0).sum(-1, keepdim=True),
        ),
    ]


from addnorm_client.local import check

check("online_softmax", "online_softmax_update,online_softmax", local_cases())

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

submit_cell("online_softmax")

# %% [markdown]
# ## Interviewer follow-ups
#
# Once the code runs, an interviewer keeps going. Answer out loud first, then check yourself: each
# question links to an item of the question bank, served and graded by the server
# (`GET /questions/<id>`) and collected by topic in the `questions_<topic>` notebooks.
#
# 1. The running max grows from m to m_new. What happens to the running sum? (`act-online-softmax-rescale`, `questions_activations`)
# 2. Why may any constant be subtracted from the logits, and why the max? (`act-softmax-shift`, `questions_activations`)
# 3. This softmax returns NaN on attention scores in training. Why? (`act-softmax-naive-code`, `questions_activations`)
# 4. What does softmax return on a row of only -inf? (`act-fully-masked-row-nan`, `questions_activations`)
# 5. Dividing the logits by a temperature, doubling them, exact zeros, the gradient's rows: which of these softmax facts hold? (`act-softmax-properties`, `questions_activations`)
# 6. Write the backward of softmax by hand. Which statistics does it need? (`act-softmax-backward`, `questions_activations`)
#
# <details><summary>中文</summary>
#
# ## 面试官的追问
#
# 代码跑通之后，面试官还会接着问。先试着口头回答，再去核对：每个问题都对应题库中的一道题，
# 由服务器提供并判分（`GET /questions/<id>`），也按主题收录在 `questions_<topic>` notebook 里。
#
# 1. 滚动最大值从 m 变为 m_new，滚动求和要怎么处理？ (`act-online-softmax-rescale`, `questions_activations`)
# 2. 为什么可以从 logits 里减去任意常数？为什么选最大值？ (`act-softmax-shift`, `questions_activations`)
# 3. 这个 softmax 用在注意力分数上，训练时返回 NaN，为什么？ (`act-softmax-naive-code`, `questions_activations`)
# 4. 整行都是 -inf 时 softmax 返回什么？ (`act-fully-masked-row-nan`, `questions_activations`)
# 5. 用温度除 logits、把 logits 翻倍、输出恰好为 0、梯度各行之和：关于 softmax 的这些说法哪些成立？ (`act-softmax-properties`, `questions_activations`)
# 6. 手推 softmax 的反向传播。它需要哪些统计量？ (`act-softmax-backward`, `questions_activations`)
#
# </details>
