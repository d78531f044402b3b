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
# # Lab: the KV cache of MHA, GQA and MQA, measured
#
# **topic:** attention · **difficulty:** easy
#
# When a decoder generates text it keeps, in every layer, the keys and values of every token so
# far: the KV cache. It grows with the context and, for long contexts, outweighs the model's own
# weights. Grouped-query attention (GQA, Llama 2 70B and Llama 3) and multi-query attention
# (MQA) let several query heads share one key/value head, which shrinks the cache by the same
# factor. In this lab you build the caches as tensors and measure them.
#
# ## What to write
#
# ```python
# def kv_cache_memory(
#     seq_lens: torch.Tensor,
#     n_layers: int,
#     n_heads: int,
#     n_kv_heads: int,
#     head_dim: int,
#     dtype: str,
#     budget_bytes: int,
# ) -> torch.Tensor: ...
# ```
#
# - `seq_lens` holds sequence lengths (whole numbers stored as float32 or float64), of any shape;
#   `dtype` is `"float32"`, `"float16"` or `"bfloat16"` (`getattr(torch, dtype)`).
# - For each of three layouts, in this order: **MHA** (`n_heads` key/value heads), **GQA**
#   (`n_kv_heads`) and **MQA** (1), build the cache of **one** sequence: per layer a K and a V
#   tensor of shape `(1, kv_heads, length, head_dim)` in that dtype, and measure it from the
#   tensors you allocated: the sum of `t.element_size() * t.numel()`. Measure a cache one token
#   long (on `device="meta"`: shapes and dtypes, no memory; or a real one-token tensor) and
#   multiply by each length: the bytes are linear in it, and the grader's repeated calls send
#   fresh lengths that need not be whole numbers.
# - Return a tensor of shape `(2, 3, *seq_lens.shape)` in `seq_lens`'s dtype:
#   - plane 0: row r (MHA, GQA, MQA) the cache at each length, in MiB (bytes / 2^20);
#   - plane 1: row r the longest context, in tokens, whose cache fits `budget_bytes`
#     (`budget_bytes // bytes per token`), the same number in every column.
#
# ## Not allowed
#
# Nothing is banned. The point is to measure what you allocate rather than quote a formula: the
# grader checks the numbers, so the formula gives them too, but then you have measured nothing.
#
# ## How it is graded
#
# Twelve configurations with lengths (or a budget) drawn afresh: lengths close together, Llama-2-7B's shapes
# at 512 to 32768 tokens (the figure), Llama-3-8B, Llama-2-70B and Mistral-7B shapes, small caches in
# float32, one layer, `n_kv_heads` equal to `n_heads` and equal to 1, 200 lengths at once, a
# `(1, P)` row of lengths, and a budget smaller than one token. Your numbers are compared with
# the reference's at the input's precision; every mistake below is off by a factor of 2 or more.
#
# **Also, as for every exercise:** three calls in a row with fresh data of one shape (code that caches what it computed, or changes from its third call on, fails); float64 cases are compared at float64's own precision: computing float64 input in float32 fails.
#
# ## Pitfalls interviewers look for
#
# - **GQA caches `n_kv_heads` heads.** `repeat_kv` (K and V repeated to the query heads) runs
#   after the cache is read, inside attention; caching the repeated tensors undoes GQA.
# - **K and V**: two tensors per layer.
# - **All layers**: every layer keeps its own cache.
# - **The element size**: `torch.empty` without `dtype=` makes float32 (4 bytes); float16 and
#   bfloat16 take 2.
#
# ## Why it works
#
# A new token's query attends over the keys and values of all earlier tokens, and those do not
# change when a token is added (causal attention): computing them once and keeping them turns
# each decoding step from re-running the whole prefix into one token's work. The price is memory,
# $2 \cdot L \cdot n_{kv} \cdot d_h \cdot s$ bytes per token ($L$ layers, $n_{kv}$ key/value
# heads of width $d_h$, $s$ bytes an element), and every step reads all of it, so decoding is bound by memory bandwidth. Query heads cost nothing in the cache, which is why
# sharing key/value heads (MQA, Shazeer 2019; GQA, Ainslie et al. 2023) saves memory and
# bandwidth in proportion.
#
# ## Interviewer follow-ups
#
# The questions an interviewer asks once this runs are served with the exercise (the
# `follow_ups` field of `GET /exercises/kv_cache_memory`) and listed at the end of its notebook,
# each linked to the question-bank item that answers it.
#
# ## Cost and memory
#
# - Llama-2-7B (32 layers, 32 heads of 128, float16): 0.5 MiB per token, 2 GiB for 4096 tokens,
#   16 GiB for 32768: more than its 13.5 GB of weights. With GQA of 8 heads, 4 times less; MQA 32.
# - The cache grows with the batch too: serving 32 sequences of 4096 tokens takes 64 GiB with
#   Llama-2-7B's shapes.
# - The measurement itself on `device="meta"` costs nothing; a real 32k-token cache would not fit
#   the sandbox.
#
# ## Test yourself
#
# - Add a batch dimension and find the largest batch of 8192-token sequences that fits 40 GiB for
#   each layout.
# - Quantise the cache to 8 bits (`torch.int8`) and see the curves halve.
# - For Llama-3-8B's shapes (32 layers, 32 query heads, 8 KV heads of 128, bfloat16), how many
#   tokens fit 24 GiB?
#
# ## Background
#
# The course articles do not cover attention or its cache. Shazeer 2019 ("Fast Transformer
# Decoding: One Write-Head is All You Need") introduced MQA; Ainslie et al. 2023 ("GQA") grouped
# query heads; Pope et al. 2022 ("Efficiently Scaling Transformer Inference") analyse the cache's
# memory and bandwidth. The `scaled_dot_product_attention` exercise computes the attention that
# reads this cache.

# %% [markdown]
# <details><summary>中文说明</summary>
#
# # 实验：实测 MHA、GQA 与 MQA 的 KV 缓存
#
# 解码器生成文本时，每一层都要保存到目前为止每个 token 的键和值，这就是 KV 缓存。它随上下文增长，上下文很长时比模型
# 自身的权重还大。分组查询注意力（GQA，Llama 2 70B 和 Llama 3 采用）和多查询注意力（MQA）让多个查询头共享一个键值头，
# 缓存也按同样的倍数缩小。这个实验里，你把缓存构造成张量，再实测它们的大小。
#
# ## 要写什么
#
# ```python
# def kv_cache_memory(
#     seq_lens: torch.Tensor,
#     n_layers: int,
#     n_heads: int,
#     n_kv_heads: int,
#     head_dim: int,
#     dtype: str,
#     budget_bytes: int,
# ) -> torch.Tensor: ...
# ```
#
# - `seq_lens` 是一组序列长度（以 float32 或 float64 存放的整数），形状任意；`dtype` 为 `"float32"`、
#   `"float16"` 或 `"bfloat16"`（`getattr(torch, dtype)`）。
# - 按 **MHA**（`n_heads` 个键值头）、**GQA**（`n_kv_heads` 个）、**MQA**（1 个）的顺序，为**一条**序列构造
#   缓存：每层一个 K 和一个 V 张量，形状为 `(1, kv_heads, length, head_dim)`，dtype 如上，并根据你分配的张量实测
#   大小：`t.element_size() * t.numel()` 之和。实测一个 token 长的缓存（在 `device="meta"` 上分配：只有形状和
#   dtype，不占内存；或者真实分配一个 token），再乘以各个长度：字节数与长度成正比，而且评测的重复调用会给出新的长度，
#   不一定是整数。
# - 返回形状为 `(2, 3, *seq_lens.shape)`、dtype 与 `seq_lens` 相同的张量：
#   - 第 0 面：第 r 行（MHA、GQA、MQA）是各长度下的缓存大小，单位 MiB（字节数 / 2^20）；
#   - 第 1 面：第 r 行是缓存放得进 `budget_bytes` 的最长上下文（token 数，`budget_bytes // 每 token 字节数`），
#     每一列都相同。
#
# ## 不允许使用
#
# 没有禁用项。重点是实测你分配的东西，而不是背公式：评测只比较数字，所以公式也能算出同样的结果，但那样你什么也没有测。
#
# ## 如何评测
#
# 十二组配置，长度（或预算）每次重新抽取：彼此接近的一组长度，Llama-2-7B 的形状在 512 到 32768 个 token 上（即图中的
# 曲线），Llama-3-8B、Llama-2-70B 和 Mistral-7B 的形状，float32 下的小缓存，只有一层，`n_kv_heads` 等于 `n_heads`
# 以及等于 1，一次给 200 个长度，`(1, P)` 形状的一行长度，以及比一个 token 还小的预算。你的数字按输入的精度与参考
# 结果比较；下面的每个错误都至少差 2 倍。
#
# **和每道题一样，还有：**同一形状、新数据连续调用三次（缓存结果、或从第三次调用起行为改变的代码会判错）；float64 用例按 float64 自身的精度比较：把 float64 输入放到 float32 里计算会判错。
#
# ## 面试官会盯的坑
#
# - **GQA 缓存的是 `n_kv_heads` 个头。** `repeat_kv`（把 K、V 复制到查询头的个数）在读出缓存之后、注意力内部
#   进行；把复制后的张量存进缓存，GQA 就白做了。
# - **K 和 V**：每层两个张量。
# - **所有层**：每一层都有自己的缓存。
# - **元素字节数**：`torch.empty` 不写 `dtype=` 得到 float32（4 字节）；float16 和 bfloat16 只占 2 字节。
#
# ## 为什么有效
#
# 新 token 的查询要关注之前所有 token 的键和值，而在因果注意力中，加入新 token 不会改变它们：算一次存下来，每个解码步
# 就从重跑整个前缀变成只算一个 token。代价是显存，每个 token 占 $2 \cdot L \cdot n_{kv} \cdot d_h \cdot s$ 字节（$L$ 层，
# $n_{kv}$ 个宽为 $d_h$ 的键值头，每个元素 $s$ 字节），而且每一步都要把它全部读一遍，所以解码受限于显存带宽。查询头不占缓存，所以共享键值头（MQA，Shazeer 2019；GQA，
# Ainslie 等人 2023）能按比例节省显存和带宽。
#
# ## 面试官的追问
#
# 代码跑通之后面试官会接着问的问题随练习一起提供（`GET /exercises/kv_cache_memory` 返回的 `follow_ups` 字段），
# 也列在对应 notebook 的末尾，每个问题都链接到题库中给出答案的那道题。
#
# ## 计算量与显存
#
# - Llama-2-7B（32 层，32 个 128 维的头，float16）：每个 token 0.5 MiB，4096 个 token 2 GiB，32768 个 token
#   16 GiB，超过了它 13.5 GB 的权重。8 个头的 GQA 少 4 倍，MQA 少 32 倍。
# - 缓存也随批大小增长：按 Llama-2-7B 的形状同时服务 32 条 4096 个 token 的序列要 64 GiB。
# - 在 `device="meta"` 上测量本身不花任何内存；真实的 32k token 缓存在沙箱里放不下。
#
# ## 自我检验
#
# - 加上批维度，分别求出三种布局下 40 GiB 能放下的 8192 个 token 序列的最大批大小。
# - 把缓存量化到 8 位（`torch.int8`），看曲线减半。
# - 按 Llama-3-8B 的形状（32 层、32 个查询头、8 个 128 维的键值头，bfloat16），24 GiB 能放下多少个 token？
#
# ## 背景
#
# 课程文章没有涉及注意力及其缓存。Shazeer 2019（“Fast Transformer Decoding: One Write-Head is All You Need”）
# 提出了 MQA；Ainslie 等人 2023（“GQA”）把查询头分组；Pope 等人 2022（“Efficiently Scaling Transformer
# Inference”）分析了缓存的显存与带宽。`scaled_dot_product_attention` 练习计算的就是读取这份缓存的注意力。
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
#    `# addnorm: exercise kv_cache_memory`: the submit cell sends the last *executed* cell that starts with it.
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
# 2. 在下面的练习单元格里写好你的类并运行。第一行 `# addnorm: exercise kv_cache_memory` 不要删：提交单元格发送的是
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
# addnorm: exercise kv_cache_memory
import torch


def kv_cache_memory(
    seq_lens: torch.Tensor,
    n_layers: int,
    n_heads: int,
    n_kv_heads: int,
    head_dim: int,
    dtype: str,
    budget_bytes: int,
) -> torch.Tensor:
    # For MHA (n_heads key/value heads), GQA (n_kv_heads) and MQA (1): build the cache of one
    # sequence, per layer a K and a V tensor (1, kv_heads, length, head_dim) in
    # getattr(torch, dtype) (device="meta" costs no memory), and measure it:
    # sum of t.element_size() * t.numel(). Return (2, 3, *seq_lens.shape) in seq_lens.dtype:
    # plane 0 the cache in MiB at each length, plane 1 the longest context that fits
    # budget_bytes (in tokens, the same in every column).
    raise NotImplementedError("implement kv_cache_memory")


# %% [markdown]
# ## Quick local check
#
# Runs your exercise cell again on its own, in a fresh namespace, as the server does, then
# compares a few public cases, forward pass only, with a reference in this kernel. It is a sanity
# check and **does not replace the server's verdict**, which runs many more shapes and dtypes,
# the backward pass and the known-mistake diagnosis.
#
# Reference: The cache of Llama-2-7B's shapes in float16 at 512 to 32768 tokens, and what fits 16 GiB.
#
# <details><summary>中文</summary>
#
# ## 本地快速检查
#
# 和服务器一样，把你的练习单元格单独放进全新的命名空间重新执行，再用几个公开用例（只做前向）
# 在当前 kernel 里与参考实现对比。这只是一次自检，**不能代替服务器的评测**：服务器会覆盖多得多的
# 形状和 dtype，还会检查反向传播并诊断已知错误。
#
# 参考实现：Llama-2-7B 形状在 float16 下 512 到 32768 个 token 的缓存，以及 16 GiB 内放得下多少。
#
# </details>

# %%
import torch

from addnorm_client.local import LocalCase

# The reference's numbers, as constants: MiB per sequence (0.5, 0.125 and 1/64 MiB per token)
# and the longest context in 16 GiB.
LENGTHS = [512.0, 1024.0, 2048.0, 4096.0, 8192.0, 16384.0, 32768.0]
PER_TOKEN_MIB = (0.5, 0.125, 0.015625)
FITS = (32768.0, 131072.0, 1048576.0)


def local_cases() -> list[LocalCase]:
    x = torch.tensor(LENGTHS, dtype=torch.float64)
    expected = torch.stack(
        [
            torch.stack([x * m for m in PER_TOKEN_MIB]),
            torch.stack([torch.full_like(x, f) for f in FITS]),
        ]
    )
    small = torch.tensor([1.0, 7.0, 100.0], dtype=torch.float64)
    one = torch.tensor([[10.0, 1000.0]], dtype=torch.float32)
    return [
        LocalCase(
            name="2 layers, 4 heads, 2 KV heads, head_dim 16, float32, 1 MiB",
            x=small,
            build=lambda f: lambda x: f(x, 2, 4, 2, 16, "float32", 2**20),
            expected=torch.stack(
                [
                    torch.stack([small * b / 2**20 for b in (1024, 512, 256)]),
                    torch.stack(
                        [torch.full_like(small, float(2**20 // b)) for b in (1024, 512, 256)]
                    ),
                ]
            ),
            measurement=True,
        ),
        LocalCase(
            name="1 layer, 8 heads, 1 KV head, head_dim 64, bfloat16, 1 MiB",
            x=one,
            build=lambda f: lambda x: f(x, 1, 8, 1, 64, "bfloat16", 2**20),
            expected=torch.stack(
                [
                    torch.stack([one * b / 2**20 for b in (2048, 256, 256)]),
                    torch.stack(
                        [torch.full_like(one, float(2**20 // b)) for b in (2048, 256, 256)]
                    ),
                ]
            ),
            measurement=True,
        ),
        LocalCase(
            name="Llama-2-7B shapes, GQA 8, float16, 16 GiB",
            x=x,
            build=lambda f: lambda x: f(x, 32, 32, 8, 128, "float16", 16 * 2**30),
            expected=expected,
            measurement=True,
            series=("MHA", "GQA", "MQA"),
            plane=0,
            x_label="i: sequence length = 2^(i+8) tokens",
            y_label="KV cache, MiB",
        ),
    ]


from addnorm_client.local import check

check("kv_cache_memory", "kv_cache_memory", local_cases())

# %% [markdown]
# ## The figure
#
# Your measurement beside the reference experiment's, on the local check's last case: one curve
# per row of your answer, yours solid, the reference dashed (matplotlib, from the `notebooks`
# extra; without it, the numbers).
#
# <details><summary>中文</summary>
#
# ## 图
#
# 在本地检查的最后一个用例上，把你的测量结果与参考实验的画在一起：答案的每一行一条曲线，你的是实线，
# 参考的是虚线（用 `notebooks` 附加依赖中的 matplotlib；没有它时打印数值）。
#
# </details>

# %%
from addnorm_client.local import plot_lab

plot_lab("kv_cache_memory", "kv_cache_memory", local_cases());

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

submit_cell("kv_cache_memory")

# %% [markdown]
# ## Interviewer follow-ups
#
# Once the code runs, an interviewer keeps going. Answer out loud first, then check yourself: each
# question links to an item of the question bank, served and graded by the server
# (`GET /questions/<id>`) and collected by topic in the `questions_<topic>` notebooks.
#
# 1. How large is Llama-2-7B's KV cache for one 4096-token sequence in float16? (`kv-llama2-7b-bytes`, `questions_attention`)
# 2. How much does GQA with 8 key/value heads save on Llama-2-70B? (`kv-gqa-saving`, `questions_attention`)
# 3. If MQA saves the most, why did Llama 2 and 3 choose GQA? (`kv-mqa-quality`, `questions_attention`)
# 4. Which settings does the cache grow with, and which not? (`kv-cache-linear`, `questions_attention`)
# 5. What exactly does the cache store, and what does it save? (`kv-why-cache`, `questions_attention`)
#
# <details><summary>中文</summary>
#
# ## 面试官的追问
#
# 代码跑通之后，面试官还会接着问。先试着口头回答，再去核对：每个问题都对应题库中的一道题，
# 由服务器提供并判分（`GET /questions/<id>`），也按主题收录在 `questions_<topic>` notebook 里。
#
# 1. Llama-2-7B 一条 4096 个 token 的序列在 float16 下的 KV 缓存有多大？ (`kv-llama2-7b-bytes`, `questions_attention`)
# 2. 在 Llama-2-70B 上，8 个键值头的 GQA 能省多少？ (`kv-gqa-saving`, `questions_attention`)
# 3. 既然 MQA 最省，为什么 Llama 2 和 3 选择了 GQA？ (`kv-mqa-quality`, `questions_attention`)
# 4. 缓存随哪些设置增长，不随哪些设置增长？ (`kv-cache-linear`, `questions_attention`)
# 5. 缓存到底存了什么？省下了什么？ (`kv-why-cache`, `questions_attention`)
#
# </details>
