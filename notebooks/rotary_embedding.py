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
# # Rotary position embedding (RoPE)
#
# **topic:** attention · **difficulty:** medium
#
# Attention scores know nothing of order. RoPE (Su et al. 2021) tells them, without adding a single
# parameter: it turns each query and key, pair of features by pair of features, by an angle that
# grows with the token's position. The score of a query at m and a key at n then depends on n - m
# alone. Every LLaMA-family model uses it; interviewers ask for it because the layout, the
# frequencies and the positions each hide a slip that still "runs".
#
# ## What to write
#
# ```python
# def apply_rotary(
#     x: torch.Tensor,  # (batch, heads, seq, head_dim), head_dim even
#     positions: torch.Tensor,  # (seq,) integer: each token's absolute position
#     base: float = 10000.0,
# ) -> torch.Tensor: ...  # x's shape and dtype
# ```
#
# - **Pairs (rotate-half)**: with `half = head_dim // 2`, feature `i` pairs with feature
#   `i + half` (`x1 = x[..., :half]`, `x2 = x[..., half:]`), as Hugging Face LLaMA's
#   `rotate_half` and GPT-NeoX do. Not adjacent features (GPT-J, the RoFormer paper, Meta's
#   `view_as_complex` code): that is another layout.
# - **Frequencies**: `inv_freq[i] = base ** (-2i / head_dim)` for `i = 0 .. half - 1`, that is
#   `base ** (-torch.arange(0, head_dim, 2) / head_dim)`.
# - **Angles**: token `t` turns pair `i` by `positions[t] * inv_freq[i]`. `positions` is any
#   integer tensor: `arange(start, start + seq)` for a chunk that continues a sequence (a decode
#   step), or sequences packed in one row whose positions restart (`[0, 1, 2, 0, 1, ...]`).
# - **Rotation**: `out[..., :half] = x1 * cos - x2 * sin`, `out[..., half:] = x2 * cos + x1 * sin`,
#   i.e. `x * cos + rotate_half(x) * sin` with `rotate_half(x) = cat(-x2, x1)` and the angle table
#   `cat(angles, angles)`.
# - **Precision**: compute the angles, cos and sin in **float64 for float64 input** and in
#   **float32 for every other dtype** (float32, bfloat16, float16); half-precision input is rotated
#   in float32 and cast back once. The output has `x`'s dtype. Do not modify `x`.
#
# In formulas, with $p_t$ = positions[t] and $\theta_i = \mathrm{base}^{-2i/d}$:
#
# $$\begin{pmatrix} o_i \\ o_{i+h} \end{pmatrix} = \begin{pmatrix} \cos p_t\theta_i & -\sin p_t\theta_i \\ \sin p_t\theta_i & \cos p_t\theta_i \end{pmatrix} \begin{pmatrix} x_i \\ x_{i+h} \end{pmatrix}$$
#
# ## Not allowed
#
# torch's own RoPE, the ONNX `RotaryEmbedding` operator: `torch.onnx.ops.rotary_embedding` (also
# `torch.ops.onnx.RotaryEmbedding` and `torch.onnx.ops._impl.rotary_embedding_23`). Library
# helpers (transformers' `apply_rotary_pos_emb`, torchtune's `RotaryPositionalEmbeddings`,
# flash-attn's `apply_rotary_emb`) are not installed in the grader, and any operator outside plain
# torch is refused anyway. A submission that reaches one is *rejected*.
#
# **Plain torch ops are allowed**: `cos`, `sin`, `pow`, `exp`, `arange`, `outer`, `einsum`, `cat`,
# `chunk`, indexing a precomputed table, and complex numbers (`torch.polar`, `torch.complex`,
# `view_as_complex`, `view_as_real`).
#
# ## What your code may run
#
# A solution is built from arithmetic, elementwise math, reductions, shape and indexing operations, creation, random draws and matrix products. Any other operation your code runs, by whatever route (an alias, `getattr`, `torch.ops`, `torch._C`, scripting, a custom op, a tensor subclass, another backend's tensor), is refused: the verdict is *rejected* and names the operation. The built-ins listed above are refused where they are written, even in a branch that never runs: an interviewer reading the code would stop there. torch's private operator implementations (`torch._refs`, `torch._decomp`, `torch._prims`) are refused the same way: they hold every exercise's answer.
#
# ## How it is graded
#
# Sixteen freshly drawn cases per submission, one call each, on 4-D `x`: an offset chunk (float64);
# two packed sequences; positions from 0; positions past 4096 in float64 and past 8192 in float32;
# a single token (a decode step); an odd length with int32 positions; `base=500000` and `base=1`;
# `head_dim` 2 and 160; a transposed (non-contiguous) `x`; a batch of one; a forward under
# `torch.no_grad()`; bfloat16 and float16 at positions 300 to 2000. All but the no-grad and
# bfloat16 cases run backward with a random upstream gradient and compare the gradient of `x`.
# Outputs are compared with the reference computed in float64 (float32 angles allowed for float32
# input, where the reference itself uses them).
#
# **Also, as for every exercise:** three calls in a row with fresh data of one shape (code that caches what it computed, or changes from its third call on, fails); float64 cases are compared at float64's own precision: computing float64 input in float32 fails.
#
# ## Pitfalls interviewers look for
#
# - **Interleaved pairs** (`x.reshape(..., -1, 2)`): GPT-J's layout, not this contract's.
# - **Frequencies over the wrong width**: `arange(head_dim) / head_dim`, or `arange(0, d, 2)`
#   divided by `d / 2`.
# - **`base` ignored** (10000 hard-coded): LLaMA 3 uses 500000.
# - **Positions ignored** (`arange(seq)`), **off by one** (counted from 1), or **assumed
#   consecutive** (only `positions[0]` read).
# - **Rotation reversed** (`cat(x2, -x1)`, a conjugate) or **sin and cos swapped**.
# - **Angle table laid out per adjacent pair** (`repeat_interleave(2)`) under rotate-half pairs.
# - **float32 angles for float64 input**, or **positions in bfloat16** (rounded past 256).
#
# ## Why it works
#
# A 2-D rotation is orthogonal and rotations add: `R(m)^T R(n) = R(n - m)`. So
# `(R(m) q) . (R(n) k) = q^T R(n - m) k` (question `rope-relative-why`): the score depends on the
# offset, although each vector was rotated by its own absolute position. The pairs turn at
# geometric speeds from 1 rad per token down to about `1/base`, so near tokens are told apart by the
# fast pairs and far ones by the slow pairs (`rope-slowest-wavelength`). Position 0 is the identity
# (`rope-position-zero-identity`), a quick self-test. The gradient is the transposed rotation
# (a rotation by `-angle`), which autograd derives from your forward.
#
# ## Interviewer follow-ups
#
# The questions an interviewer asks once this runs are served with the exercise (the
# `follow_ups` field of `GET /exercises/rotary_embedding`) and listed at the end of its notebook:
#
# - Why does the score depend only on the distance? (`rope-relative-why`)
# - RoPE, sinusoidal embeddings, ALiBi: what differs? (`rope-vs-sinusoidal-alibi`)
# - How precise is a float32 angle at position 4096? (`rope-float32-angle-step`)
# - Can interleaved weights run under rotate-half code? (`rope-layouts-interchangeable`)
#
# ## Cost and memory
#
# `O(batch * heads * seq * head_dim)` multiply-adds and a `(seq, head_dim/2)` cos/sin table,
# usually precomputed once for `max_seq_len` and indexed with the positions: negligible beside
# attention's `O(seq^2 * head_dim)`.
#
# ## Test yourself
#
# Write the module around it: a cos/sin cache built once for `max_seq_len`, indexed with the
# positions, and check that rotating a query at 5 and a key at 3 scores the same as at 105 and 103.
# Then apply it inside attention with a KV cache (`kv_cache_attention`).
#
# ## Background
#
# RoPE is not in the course articles; the sources are the papers: Su et al. 2021, "RoFormer:
# Enhanced Transformer with Rotary Position Embedding" (the method, interleaved pairs), Black et al.
# 2022, GPT-NeoX-20B (the rotate-half layout), and Touvron et al. 2023, LLaMA.

# %% [markdown]
# <details><summary>中文说明</summary>
#
# # 旋转位置编码（RoPE）
#
# 注意力分数本身不知道顺序。RoPE（Su 等，2021）不增加任何参数就把顺序告诉它：把每个 query 和
# key 的特征两两配对，按随 token 位置增长的角度旋转。这样位置 m 的 query 与位置 n 的 key 的分数
# 只依赖 n - m。LLaMA 系列模型都用它；面试官爱考它，是因为配对方式、频率和位置里各藏着一个
# “能跑但不对”的错误。
#
# ## 要写什么
#
# ```python
# def apply_rotary(
#     x: torch.Tensor,  # (batch, heads, seq, head_dim)，head_dim 为偶数
#     positions: torch.Tensor,  # (seq,) 整数：每个 token 的绝对位置
#     base: float = 10000.0,
# ) -> torch.Tensor: ...  # 形状、dtype 与 x 相同
# ```
#
# - **配对（rotate-half）**：令 `half = head_dim // 2`，第 `i` 个特征与第 `i + half` 个特征配对
#   （`x1 = x[..., :half]`，`x2 = x[..., half:]`），与 Hugging Face LLaMA 的 `rotate_half`、
#   GPT-NeoX 相同。不是相邻特征配对（GPT-J、RoFormer 论文、Meta 的 `view_as_complex` 代码）：
#   那是另一种布局。
# - **频率**：`inv_freq[i] = base ** (-2i / head_dim)`，`i = 0 .. half - 1`，即
#   `base ** (-torch.arange(0, head_dim, 2) / head_dim)`。
# - **角度**：第 `t` 个 token 把第 `i` 对转过 `positions[t] * inv_freq[i]`。`positions` 可以是
#   任意整数张量：延续某个序列的一段（解码步）是 `arange(start, start + seq)`，多条序列拼在同一
#   行时位置会重新从 0 开始（`[0, 1, 2, 0, 1, ...]`）。
# - **旋转**：`out[..., :half] = x1 * cos - x2 * sin`，`out[..., half:] = x2 * cos + x1 * sin`，
#   也就是 `x * cos + rotate_half(x) * sin`，其中 `rotate_half(x) = cat(-x2, x1)`，角度表为
#   `cat(angles, angles)`。
# - **精度**：**float64 输入**的角度、cos、sin 用 **float64** 计算，**其他 dtype**（float32、
#   bfloat16、float16）一律用 **float32**；半精度输入在 float32 里旋转，最后只转回一次。输出的
#   dtype 与 `x` 相同。不要修改 `x`。
#
# 用公式写，$p_t$ = positions[t]，$\theta_i = \mathrm{base}^{-2i/d}$：
#
# $$\begin{pmatrix} o_i \\ o_{i+h} \end{pmatrix} = \begin{pmatrix} \cos p_t\theta_i & -\sin p_t\theta_i \\ \sin p_t\theta_i & \cos p_t\theta_i \end{pmatrix} \begin{pmatrix} x_i \\ x_{i+h} \end{pmatrix}$$
#
# ## 不允许使用
#
# torch 自带的 RoPE，即 ONNX 的 `RotaryEmbedding` 算子：`torch.onnx.ops.rotary_embedding`（也可经
# `torch.ops.onnx.RotaryEmbedding`、`torch.onnx.ops._impl.rotary_embedding_23` 调到）。各个库的
# 辅助函数（transformers 的 `apply_rotary_pos_emb`、torchtune 的 `RotaryPositionalEmbeddings`、
# flash-attn 的 `apply_rotary_emb`）在评测环境里没有安装，而且普通 torch 之外的算子一律会被拒绝。
# 用到其中任何一个的提交会被判为 *rejected*。
#
# **普通的 torch 运算都可以用**：`cos`、`sin`、`pow`、`exp`、`arange`、`outer`、`einsum`、`cat`、
# `chunk`、对预先算好的表做索引，以及复数（`torch.polar`、`torch.complex`、`view_as_complex`、
# `view_as_real`）。
#
# ## 代码可以运行什么
#
# 答案只能由算术、逐元素数学函数、归约、形状与索引操作、张量创建、随机采样和矩阵乘法构成。代码运行的任何其他运算，不管通过什么途径（起别名、`getattr`、`torch.ops`、`torch._C`、脚本化、自定义算子、张量子类、其他后端的张量），都会被拒绝：判定为 *rejected*，并指出是哪个运算。上面列出的内置函数只要写在代码里就会被拒绝，即使所在的分支从不执行：面试官读到那一行就会停下来。torch 私有的算子实现（`torch._refs`、`torch._decomp`、`torch._prims`）同样被拒绝：每道题的答案都在里面。
#
# ## 如何评测
#
# 每次提交新抽取 16 个用例，每个调用一次，`x` 都是 4 维：带偏移的一段（float64）；两条拼接的
# 序列；从 0 开始的位置；float64 下超过 4096、float32 下超过 8192 的位置；单个 token（解码步）；
# 奇数长度且 positions 为 int32；`base=500000` 和 `base=1`；`head_dim` 为 2 和 160；转置得到的
# 非连续 `x`；批大小为 1；`torch.no_grad()` 下的前向；位置在 300 到 2000 的 bfloat16 和 float16。
# 除 no-grad 和 bfloat16 用例外都会用随机的上游梯度做反向传播，比较 `x` 的梯度。输出与 float64
# 计算的参考结果比较（float32 输入允许 float32 的角度，参考实现本身也这样算）。
#
# **和每道题一样，还有：**同一形状、新数据连续调用三次（缓存结果、或从第三次调用起行为改变的代码会判错）；float64 用例按 float64 自身的精度比较：把 float64 输入放到 float32 里计算会判错。
#
# ## 面试官会盯的坑
#
# - **相邻配对**（`x.reshape(..., -1, 2)`）：GPT-J 的布局，不是本题的约定。
# - **频率铺的宽度不对**：`arange(head_dim) / head_dim`，或把 `arange(0, d, 2)` 除以 `d / 2`。
# - **忽略 `base`**（写死 10000）：LLaMA 3 用的是 500000。
# - **忽略位置**（`arange(seq)`）、**差一**（从 1 开始数），或**默认位置连续**（只读
#   `positions[0]`）。
# - **旋转方向反了**（`cat(x2, -x1)`、取共轭），或 **sin 和 cos 用反**。
# - **角度表按相邻配对展开**（`repeat_interleave(2)`），特征却按 rotate-half 配对。
# - **float64 输入用 float32 算角度**，或者**位置转成了 bfloat16**（超过 256 就被舍入）。
#
# ## 为什么有效
#
# 二维旋转是正交的，旋转角度可以相加：`R(m)^T R(n) = R(n - m)`。所以
# `(R(m) q) . (R(n) k) = q^T R(n - m) k`（题目 `rope-relative-why`）：尽管每个向量按各自的绝对
# 位置旋转，分数只依赖偏移。各对的转速按几何级数从每个 token 1 弧度降到约 `1/base`，近处的
# token 靠转得快的对区分，远处的靠转得慢的对（`rope-slowest-wavelength`）。位置 0 是恒等变换
# （`rope-position-zero-identity`），可以拿来快速自检。梯度是转置的旋转（转 `-angle`），
# autograd 会从你的前向自动推出。
#
# ## 面试官的追问
#
# 代码跑通之后面试官会问的问题随题目一起提供（`GET /exercises/rotary_embedding` 的
# `follow_ups` 字段），也列在 notebook 末尾：
#
# - 为什么分数只依赖距离？（`rope-relative-why`）
# - RoPE、正弦位置编码、ALiBi 有什么不同？（`rope-vs-sinusoidal-alibi`）
# - 位置 4096 处 float32 的角度有多精确？（`rope-float32-angle-step`）
# - 相邻配对训练的权重能用 rotate-half 的代码跑吗？（`rope-layouts-interchangeable`）
#
# ## 计算量与显存
#
# `O(batch * heads * seq * head_dim)` 次乘加，外加一张 `(seq, head_dim/2)` 的 cos/sin 表，通常
# 按 `max_seq_len` 预先算好一次，再用 positions 索引：与注意力的 `O(seq^2 * head_dim)` 相比可以
# 忽略。
#
# ## 自我检验
#
# 在它外面写一个模块：按 `max_seq_len` 一次性建好 cos/sin 缓存，用 positions 索引；验证位置 5
# 的 query 与位置 3 的 key 的分数，和位置 105、103 时相同。然后把它放进带 KV cache 的注意力里
# （`kv_cache_attention`）。
#
# ## 背景
#
# RoPE 不在课程文章里，出处是论文：Su 等 2021，《RoFormer: Enhanced Transformer with Rotary
# Position Embedding》（方法本身，相邻配对）；Black 等 2022，GPT-NeoX-20B（rotate-half 布局）；
# Touvron 等 2023，LLaMA。
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
#    `# addnorm: exercise rotary_embedding`: the submit cell sends the last *executed* cell that starts with it.
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
# 2. 在下面的练习单元格里写好你的类并运行。第一行 `# addnorm: exercise rotary_embedding` 不要删：提交单元格发送的是
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
# addnorm: exercise rotary_embedding
import torch


def apply_rotary(x: torch.Tensor, positions: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    # x: (batch, heads, seq, head_dim); positions: (seq,) integer absolute positions.
    # Pair feature i with i + head_dim/2 and turn the pair by positions[t] * base ** (-2i/head_dim):
    # out = x * cos + rotate_half(x) * sin, rotate_half(x) = cat(-x2, x1).
    raise NotImplementedError("implement apply_rotary")


# %% [markdown]
# ## Quick local check
#
# Runs your exercise cell again on its own, in a fresh namespace, as the server does, then
# compares a few public cases, forward pass only, with a reference in this kernel. It is a sanity
# check and **does not replace the server's verdict**, which runs many more shapes and dtypes,
# the backward pass and the known-mistake diagnosis.
#
# Reference: RoPE against torch's ONNX RotaryEmbedding operator: positions from 0, an offset (a decode
# chunk), and two packed sequences.
#
# <details><summary>中文</summary>
#
# ## 本地快速检查
#
# 和服务器一样，把你的练习单元格单独放进全新的命名空间重新执行，再用几个公开用例（只做前向）
# 在当前 kernel 里与参考实现对比。这只是一次自检，**不能代替服务器的评测**：服务器会覆盖多得多的
# 形状和 dtype，还会检查反向传播并诊断已知错误。
#
# 参考实现：RoPE 与 torch 的 ONNX RotaryEmbedding 算子对照：从 0 开始的位置、带偏移的位置（解码时的一段），
# 以及拼接在一起的两条序列。
#
# </details>

# %%
from collections.abc import Callable
from typing import Any

import torch
import torch.onnx.ops

from addnorm_client.local import LocalCase


def _expected(x: torch.Tensor, positions: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    d = x.shape[-1]
    t = torch.arange(int(positions.max()) + 1, dtype=torch.float32)
    table = t[:, None] * base ** (-(torch.arange(0, d, 2, dtype=torch.float32) / d))
    ids = positions[None].expand(x.shape[0], -1)
    return torch.onnx.ops.rotary_embedding(x, table.cos(), table.sin(), ids, interleaved=False)


def local_cases() -> list[LocalCase]:
    g = torch.Generator().manual_seed(0)

    def case(name: str, x: torch.Tensor, positions: torch.Tensor) -> LocalCase:
        def build(fn: Any) -> Callable[[torch.Tensor], Any]:
            return lambda t: fn(t, positions)

        return LocalCase(name=name, x=x, build=build, expected=_expected(x, positions))

    return [
        case("positions 0..7", torch.randn(2, 3, 8, 16, generator=g), torch.arange(8)),
        case("positions 40..44", torch.randn(2, 2, 5, 32, generator=g), torch.arange(40, 45)),
        case(
            "two packed sequences [0, 1, 2, 0, 1, 2, 3]",
            torch.randn(1, 2, 7, 8, generator=g),
            torch.tensor([0, 1, 2, 0, 1, 2, 3]),
        ),
    ]


from addnorm_client.local import check

check("rotary_embedding", "apply_rotary", local_cases())

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

submit_cell("rotary_embedding")

# %% [markdown]
# ## Interviewer follow-ups
#
# Once the code runs, an interviewer keeps going. Answer out loud first, then check yourself: each
# question links to an item of the question bank, served and graded by the server
# (`GET /questions/<id>`) and collected by topic in the `questions_<topic>` notebooks.
#
# 1. Why does the score of a rotated query and key depend only on their distance? (`rope-relative-why`, `questions_attention`)
# 2. How do RoPE, sinusoidal embeddings and ALiBi differ? (`rope-vs-sinusoidal-alibi`, `questions_attention`)
# 3. How precise is a float32 angle at position 4096? (`rope-float32-angle-step`, `questions_attention`)
# 4. How many tokens does the slowest pair take to turn once, at head_dim 128? (`rope-slowest-wavelength`, `questions_attention`)
# 5. What does RoPE do at position 0? (`rope-position-zero-identity`, `questions_attention`)
# 6. Can a checkpoint trained with interleaved pairs run under rotate-half code? (`rope-layouts-interchangeable`, `questions_attention`)
#
# <details><summary>中文</summary>
#
# ## 面试官的追问
#
# 代码跑通之后，面试官还会接着问。先试着口头回答，再去核对：每个问题都对应题库中的一道题，
# 由服务器提供并判分（`GET /questions/<id>`），也按主题收录在 `questions_<topic>` notebook 里。
#
# 1. 为什么旋转后的 query 与 key 的分数只依赖它们的距离？ (`rope-relative-why`, `questions_attention`)
# 2. RoPE、正弦位置编码和 ALiBi 有什么区别？ (`rope-vs-sinusoidal-alibi`, `questions_attention`)
# 3. 位置 4096 处 float32 的角度精度有多高？ (`rope-float32-angle-step`, `questions_attention`)
# 4. head_dim 为 128 时，最慢的一对要多少个 token 才转一圈？ (`rope-slowest-wavelength`, `questions_attention`)
# 5. RoPE 在位置 0 做了什么？ (`rope-position-zero-identity`, `questions_attention`)
# 6. 用相邻配对训练的权重能直接用 rotate-half 的代码运行吗？ (`rope-layouts-interchangeable`, `questions_attention`)
#
# </details>
