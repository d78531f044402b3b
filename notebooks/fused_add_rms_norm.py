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
# # Fused residual add + RMSNorm
#
# **topic:** rms_norm · **difficulty:** medium
#
# In a pre-norm decoder, every half-layer ends with `h = residual + x` (the branch output `x`
# joins the stream) and the next half-layer starts with `norm(h)`. Written as two operations,
# that reads and writes the whole `(tokens, dim)` stream twice for a few FLOPs per element.
# Inference engines (vLLM, TensorRT-LLM, llama.cpp) fuse them: one function takes the branch
# output and the stream, and returns both what the next branch reads and what the next add builds
# on. Here you write that function's contract in plain PyTorch.
#
# ## What to write
#
# ```python
# def fused_add_rms_norm(
#     x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float
# ) -> tuple[torch.Tensor, torch.Tensor]: ...
# ```
#
# - `x` (the branch output) and `residual` (the stream) have the same shape `(..., dim)` (1-D to
#   4-D) and dtype (float32, float64, bfloat16 or float16); `weight` is the gain, `(dim,)`, same
#   dtype. `eps` is a positive float, added inside the square root.
# - Return the pair `(normed, new_residual)`, both of shape `(..., dim)` and the inputs' dtype:
#
#   $$\begin{aligned}
#   \mathrm{new\_residual} &= x + \mathrm{residual}\\
#   \mathrm{normed} &= \frac{\mathrm{new\_residual}}{\sqrt{\mathrm{mean}(\mathrm{new\_residual}^2) + \varepsilon}} \cdot \mathrm{weight} \qquad \text{mean over the last dim}
#   \end{aligned}$$
#
#   in this order: `normed` first (the next branch's input), `new_residual` second (the stream).
# - Out of place: do not modify `x`, `residual` or `weight` (vLLM's CUDA kernel updates its
#   buffers in place; this is the functional form, and autograd needs it).
# - Half precision: for float16 and bfloat16 inputs, compute the mean square and the
#   normalisation in float32 and cast the normalised tensor back to the input dtype before (or
#   after) applying `weight`; both orders are accepted. float32 and float64 are computed in their
#   own dtype (float32 internals for float64 inputs are too imprecise here).
# - Gradients flow through both outputs: to `x`, `residual` and `weight`.
#
# ## Not allowed
#
# The whole-norm built-ins: `nn.RMSNorm`, `F.rms_norm`, `torch.rms_norm`, and the LayerNorm ones.
# `torch.rsqrt`, `.pow`, `.mean` are fine.
#
# ## What your code may run
#
# A solution is built from arithmetic, elementwise math, reductions, shape and indexing operations, creation, random draws and matrix products. Any other operation your code runs, by whatever route (an alias, `getattr`, `torch.ops`, `torch._C`, scripting, a custom op, a tensor subclass, another backend's tensor), is refused: the verdict is *rejected* and names the operation. The built-ins listed above are refused where they are written, even in a branch that never runs: an interviewer reading the code would stop there. torch's private operator implementations (`torch._refs`, `torch._decomp`, `torch._prims`) are refused the same way: they hold every exercise's answer.
#
# ## How it is graded
#
# Twelve freshly drawn cases per submission, each one call of
# `fused_add_rms_norm(x, residual, weight, eps)` with a random `weight`: float32 and float64 with a
# backward pass from random upstream gradients on *both* outputs (the gradients of `x`,
# `residual` and `weight` are compared); a stream ten times larger than the branch, on which
# normalising the wrong tensor, or returning the old residual, shows; tiny sums (`1e-4` scale,
# `eps = 1e-5`); `dim` from 1 to 4096 (300 among them, as a transposed, non-contiguous `x`);
# 1-D to 4-D inputs with a leading dimension of 1; a forward under `torch.no_grad()` that checks
# no input was modified; bfloat16 and float16 forwards, one with stream values around 300, whose
# squares overflow float16 (max 65504). Outputs are compared with the reference computed in
# float64, allowing what PyTorch's own implementation errs at the inputs' dtype.
#
# **Also, as for every exercise:** three calls in a row with fresh data of one shape (code that caches what it computed, or changes from its third call on, fails); bfloat16 rows that are constant, and rows with a spread of 1 around 8 (a sum rounded to bfloat16 before the division fails: compute in float32); float64 cases are compared at float64's own precision: computing float64 input in float32 fails.
#
# ## Pitfalls interviewers look for
#
# - **Normalise the sum.** `rms_norm(x)` is the branch output before it joined the stream; the
#   next block reads the stream as it is now.
# - **Return the new stream.** Returning the `residual` you were given drops this layer's update
#   for every later layer; returning `normed` as the stream turns pre-norm into post-norm.
# - **Order of the pair.** `(normed, new_residual)`, as vLLM's `RMSNorm.forward(x, residual)`.
# - **float16 squares overflow.** `300 ** 2 = 90000 > 65504`: in float16 the mean square is inf,
#   the rsqrt 0, the token's output 0. Statistics in float32.
# - **In place is an engine's choice.** The kernel writes into its buffers; a functional version
#   that does `residual += x` changes the caller's tensor and breaks autograd.
# - **The stream carries gradient.** Computing `new_residual` under `no_grad` (it "is only
#   bookkeeping") cuts the gradient that reaches every earlier layer through the skip path.
#
# ## Why it works
#
# The add and the norm are both memory-bound: per element, a handful of FLOPs against reading and
# writing 2 to 4 bytes. Fused, the stream is read once (with `x`) and written twice (the new
# stream and its normalised copy), instead of being written by the add and read again by the norm:
# on a GPU that saves one read of the `(tokens, dim)` stream per half-layer (four passes over
# memory instead of five: the write of the new stream still happens), which
# at decode time, when the matmuls are small, is a measurable share of the layer's time. The maths
# is unchanged: it is exactly `h = x + residual; normed = rms_norm(h)`. Keeping the statistics in
# float32 is what makes it safe in half precision, where the stream's values grow with depth.
#
# ## Interviewer follow-ups
#
# Served with the exercise (the `follow_ups` field of `GET /exercises/fused_add_rms_norm`) and
# listed at the end of its notebook, each linked to the question-bank item that answers it:
# float16's range and the
# square overflow (`tr-fp16-max`, `tr-fp16-square-overflow`), a float16 RMSNorm that outputs
# zeros (`tr-rmsnorm-fp16-code`), bfloat16 against float16 (`tr-bf16-vs-fp16`), RMSNorm's formula
# (`rms-formula`), the residual gradient (`res-gradient-formula`) and the identity path in
# pre-norm (`np-identity-path`).
#
# ## Cost and memory
#
# - **FLOPs:** about `4 * dim` per token (add, square, sum, scale, gain): negligible next to the
#   layer's matmuls.
# - **Memory traffic** per token, unfused: the add reads 2 and writes 1 vector, the norm reads 1
#   and writes 1: 5 vectors of `dim`. Fused: reads 2, writes 2: 4 vectors, and one kernel launch
#   instead of two. In place (vLLM) also saves the allocation of the outputs.
# - **For backward:** the sum `h` and the per-token `rsqrt` (one number per token); the add keeps
#   nothing.
#
# ## Test yourself
#
# - **Chain two layers:** with `dim = 64`, run `normed, stream = fused_add_rms_norm(branch_i,
#   stream, w, 1e-6)` for three random branches and compare with the unfused
#   `stream = stream + branch_i; normed = your_rms_norm(stream)`.
# - **Find the threshold:** for float16, find the smallest integer `v` for which a constant
#   token of value `v` breaks a half-precision implementation, and explain the number.
#
# ## Background
#
# The article "FFN, Residual Addition, LN" explains the residual add and its gradient in "1.2 Add
# （Residual Connection，残差连接）" and "残差连接为什么能缓解梯度消失？", and RMSNorm in "2.2 RMSNorm". The
# article "Transformer残差连接与归一化层实现详解" discusses mixed precision and the FFN's memory in
# "3.2 内存优化技巧". The fused form comes from inference engines (vLLM's `fused_add_rms_norm`
# kernel and `RMSNorm.forward(x, residual)`).

# %% [markdown]
# <details><summary>中文说明</summary>
#
# # 融合的残差相加 + RMSNorm
#
# 在前置归一化的解码器里，每个半层都以 `h = residual + x` 收尾（分支输出 `x` 并入残差流），下一个
# 半层又以 `norm(h)` 开头。拆成两个操作来写，为了每个元素区区几次运算，就要把整个 `(tokens, dim)`
# 的残差流读写两遍。推理引擎（vLLM、TensorRT-LLM、llama.cpp）会把它们融合起来：一个函数接收分支输出
# 和残差流，同时返回下一个分支要读的东西和下一次相加要用的东西。本题用普通的 PyTorch 写出这个函数的
# 接口语义。
#
# ## 要写什么
#
# ```python
# def fused_add_rms_norm(
#     x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float
# ) -> tuple[torch.Tensor, torch.Tensor]: ...
# ```
#
# - `x`（分支输出）和 `residual`（残差流）形状相同，都是 `(..., dim)`（1 维到 4 维），dtype 也相同
#   （float32、float64、bfloat16 或 float16）；`weight` 是增益，形状 `(dim,)`，dtype 相同。`eps`
#   是正的浮点数，加在根号里面。
# - 返回二元组 `(normed, new_residual)`，形状都是 `(..., dim)`，dtype 与输入相同：
#
#   $$\begin{aligned}
#   \mathrm{new\_residual} &= x + \mathrm{residual}\\
#   \mathrm{normed} &= \frac{\mathrm{new\_residual}}{\sqrt{\mathrm{mean}(\mathrm{new\_residual}^2) + \varepsilon}} \cdot \mathrm{weight} \qquad \text{mean 在最后一维上求}
#   \end{aligned}$$
#
#   顺序就是这样：`normed` 在前（下一个分支的输入），`new_residual` 在后（残差流）。
# - 不要原地修改：`x`、`residual`、`weight` 都不能动（vLLM 的 CUDA 算子会原地更新它的缓冲区；这里是
#   函数式的写法，autograd 也需要这样）。
# - 半精度：输入是 float16 或 bfloat16 时，均方值和归一化都在 float32 下计算，先把归一化结果转回输入
#   的 dtype 再乘 `weight`，或者乘完再转，两种顺序都接受。float32 和 float64 就在各自的 dtype 下计算
#   （对 float64 输入用 float32 计算，在这里精度不够）。
# - 梯度要经过两个输出传回 `x`、`residual` 和 `weight`。
#
# ## 不允许使用
#
# 整个归一化的内置实现：`nn.RMSNorm`、`F.rms_norm`、`torch.rms_norm`，以及 LayerNorm 的对应实现。
# `torch.rsqrt`、`.pow`、`.mean` 都可以用。
#
# ## 代码可以运行什么
#
# 答案只能由算术、逐元素数学函数、归约、形状与索引操作、张量创建、随机采样和矩阵乘法构成。代码运行的任何其他运算，不管通过什么途径（起别名、`getattr`、`torch.ops`、`torch._C`、脚本化、自定义算子、张量子类、其他后端的张量），都会被拒绝：判定为 *rejected*，并指出是哪个运算。上面列出的内置函数只要写在代码里就会被拒绝，即使所在的分支从不执行：面试官读到那一行就会停下来。torch 私有的算子实现（`torch._refs`、`torch._decomp`、`torch._prims`）同样被拒绝：每道题的答案都在里面。
#
# ## 如何评测
#
# 每次提交有十二个新随机生成的用例，每个用例调用一次 `fused_add_rms_norm(x, residual, weight, eps)`，
# `weight` 取随机值：float32 和 float64 的用例会从*两个*输出同时传入随机的上游梯度做反向传播（比较
# `x`、`residual`、`weight` 的梯度）；残差流是分支输出十倍大小的用例，归一化错了对象、或者返回了旧的
# residual，都会在这里暴露；极小的和（`1e-4` 量级，`eps = 1e-5`）；`dim` 从 1 到 4096（其中 300
# 那个用例的 `x` 是转置后不连续的视图）；1 维到 4 维的输入，首维为 1；一个在 `torch.no_grad()` 下的
# 前向，检查有没有修改任何输入；bfloat16 和 float16 的前向，其中一个的残差流数值在 300 左右，平方会
# 超出 float16 的范围（最大 65504）。输出与在 float64 下计算的参考结果比较，并允许 PyTorch 自身实现
# 在该 dtype 下的误差。
#
# **和每道题一样，还有：**同一形状、新数据连续调用三次（缓存结果、或从第三次调用起行为改变的代码会判错）；bfloat16 下整行相同的输入，以及 8 附近、离散度为 1 的输入（先在 bfloat16 里求和再相除的代码会判错：请在 float32 里计算）；float64 用例按 float64 自身的精度比较：把 float64 输入放到 float32 里计算会判错。
#
# ## 面试官会盯的坑
#
# - **归一化的是和。** `rms_norm(x)` 是分支输出并入残差流之前的样子；下一个块读的是残差流现在的样子。
# - **返回新的残差流。** 原样返回传进来的 `residual`，之后的每一层都收不到这一层的更新；把 `normed`
#   当成残差流返回，前置归一化就变成了后置归一化。
# - **二元组的顺序。** `(normed, new_residual)`，和 vLLM 的 `RMSNorm.forward(x, residual)` 一致。
# - **float16 的平方会溢出。** `300 ** 2 = 90000 > 65504`：在 float16 下均方值是 inf，rsqrt 是 0，
#   整个 token 的输出都是 0。统计量要用 float32 算。
# - **原地修改是引擎的选择。** 算子往自己的缓冲区里写；函数式版本里写 `residual += x`，就改了调用方的
#   张量，还会让 autograd 报错。
# - **残差流也带着梯度。** 在 `no_grad` 下计算 `new_residual`（“只是记个账”），就切断了经由跳连路径
#   传到前面每一层的梯度。
#
# ## 为什么有效
#
# 加法和归一化都是访存密集型的：每个元素只有几次运算，却要读写 2 到 4 个字节。融合之后，残差流（连同
# `x`）只读一次、写两次（新的残差流和它的归一化副本），而不是先由加法写出、再被归一化读回来：在 GPU
# 上，每个半层省下一次对 `(tokens, dim)` 残差流的读取（访存从五遍降到四遍：新残差流照样要写出），解码阶段矩阵乘很小，这部分时间占比相当可观。数学
# 上什么都没变，就是 `h = x + residual; normed = rms_norm(h)`。统计量保持在 float32 下计算，是它在
# 半精度下安全的关键，因为残差流的数值会随深度增长。
#
# ## 面试官的追问
#
# 这些问题随题目一起提供（`GET /exercises/fused_add_rms_norm` 返回的 `follow_ups` 字段），也列在对应
# notebook 的末尾，每个问题都链接到题库中给出答案的那道题：float16 的范围和平方溢出
# （`tr-fp16-max`、`tr-fp16-square-overflow`）、一个输出全 0 的 float16 RMSNorm
# （`tr-rmsnorm-fp16-code`）、bfloat16 与 float16 的对比（`tr-bf16-vs-fp16`）、RMSNorm 的公式
# （`rms-formula`）、残差的梯度（`res-gradient-formula`），以及前置归一化里的恒等路径
# （`np-identity-path`）。
#
# ## 计算量与显存
#
# - **FLOPs：** 每个 token 约 `4 * dim`（加法、平方、求和、缩放、增益）：和这一层的矩阵乘相比可以
#   忽略。
# - **访存量**（每个 token）：不融合时，加法读 2 个、写 1 个向量，归一化读 1 个、写 1 个，共 5 个长度为
#   `dim` 的向量。融合后读 2 个、写 2 个，共 4 个，而且只启动一次算子而不是两次。原地版本（vLLM）还
#   省掉了输出的内存分配。
# - **为反向保存的：** 和 `h`，以及每个 token 的 `rsqrt`（每个 token 一个数）；加法什么都不用存。
#
# ## 自我检验
#
# - **串两层：** 取 `dim = 64`，对三个随机分支依次执行
#   `normed, stream = fused_add_rms_norm(branch_i, stream, w, 1e-6)`，再和不融合的写法
#   `stream = stream + branch_i; normed = your_rms_norm(stream)` 对比。
# - **找临界值：** 在 float16 下，找出能让半精度实现出错的最小整数 `v`（一个所有元素都等于 `v` 的
#   token），并解释这个数是怎么来的。
#
# ## 背景
#
# 文章《FFN, Residual Addition, LN》在“1.2 Add （Residual Connection，残差连接）”和
# “残差连接为什么能缓解梯度消失？”两节讲解了残差相加及其梯度，在“2.2 RMSNorm”一节介绍了 RMSNorm。
# 文章《Transformer残差连接与归一化层实现详解》在“3.2 内存优化技巧”一节讨论了混合精度和 FFN 的显存。
# 融合的写法来自推理引擎（vLLM 的 `fused_add_rms_norm` 算子和 `RMSNorm.forward(x, residual)`）。
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
#    `# addnorm: exercise fused_add_rms_norm`: the submit cell sends the last *executed* cell that starts with it.
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
# 2. 在下面的练习单元格里写好你的类并运行。第一行 `# addnorm: exercise fused_add_rms_norm` 不要删：提交单元格发送的是
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
# addnorm: exercise fused_add_rms_norm
import torch


def fused_add_rms_norm(
    x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float
) -> tuple[torch.Tensor, torch.Tensor]:
    # x, residual: (..., dim); weight: (dim,). Return (normed, new_residual) with
    # new_residual = x + residual and normed = RMSNorm(new_residual) * weight, both in x's dtype.
    raise NotImplementedError("implement fused_add_rms_norm")


# %% [markdown]
# ## Quick local check
#
# Runs your exercise cell again on its own, in a fresh namespace, as the server does, then
# compares a few public cases, forward pass only, with a reference in this kernel. It is a sanity
# check and **does not replace the server's verdict**, which runs many more shapes and dtypes,
# the backward pass and the known-mistake diagnosis.
#
# Reference: `x + residual` and `torch.nn.functional.rms_norm` of that sum with a random `weight`.
#
# <details><summary>中文</summary>
#
# ## 本地快速检查
#
# 和服务器一样，把你的练习单元格单独放进全新的命名空间重新执行，再用几个公开用例（只做前向）
# 在当前 kernel 里与参考实现对比。这只是一次自检，**不能代替服务器的评测**：服务器会覆盖多得多的
# 形状和 dtype，还会检查反向传播并诊断已知错误。
#
# 参考实现：`x + residual`，以及用随机 `weight` 对这个和做的 `torch.nn.functional.rms_norm`。
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

    def cases(name: str, shape: tuple[int, ...], eps: float, stream: float) -> list[LocalCase]:
        dim = shape[-1]
        x = torch.randn(shape, generator=g)
        # A stream much larger than the branch: normalising x instead of the sum shows.
        residual = torch.randn(shape, generator=g) * stream
        weight = 1 + 0.5 * torch.randn(dim, generator=g)
        h = x + residual
        found = []
        for i, what in enumerate(("normed", "new_residual")):

            def build(fn: Any, i: int = i) -> Callable[[torch.Tensor], Any]:
                return lambda t: fn(t, residual.clone(), weight, eps)[i]

            expected = F.rms_norm(h, (dim,), weight, eps) if i == 0 else h
            found.append(LocalCase(name=f"{what}: {name}", x=x, build=build, expected=expected))
        return found

    return [
        *cases("2-D, stream 10x the branch", (4, 16), 1e-6, 10.0),
        *cases("3-D, eps=1e-5", (2, 3, 32), 1e-5, 1.0),
    ]


from addnorm_client.local import check

check("fused_add_rms_norm", "fused_add_rms_norm", local_cases())

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

submit_cell("fused_add_rms_norm")

# %% [markdown]
# ## Interviewer follow-ups
#
# Once the code runs, an interviewer keeps going. Answer out loud first, then check yourself: each
# question links to an item of the question bank, served and graded by the server
# (`GET /questions/<id>`) and collected by topic in the `questions_<topic>` notebooks.
#
# 1. What is the largest finite float16 value? (`tr-fp16-max`, `questions_training`)
# 2. From which value does a square overflow in float16? (`tr-fp16-square-overflow`, `questions_training`)
# 3. This float16 RMSNorm outputs zeros for large activations. What is the fix? (`tr-rmsnorm-fp16-code`, `questions_training`)
# 4. Would bfloat16 have the same problem? (`tr-bf16-vs-fp16`, `questions_training`)
# 5. Write RMSNorm's formula. Where does eps go? (`rms-formula`, `questions_rms_norm`)
# 6. What gradient does the stream carry back through y = x + F(x)? (`res-gradient-formula`, `questions_residual`)
# 7. Why must the new residual be the raw sum and not its normalised copy? (`np-identity-path`, `questions_norm_placement`)
#
# <details><summary>中文</summary>
#
# ## 面试官的追问
#
# 代码跑通之后，面试官还会接着问。先试着口头回答，再去核对：每个问题都对应题库中的一道题，
# 由服务器提供并判分（`GET /questions/<id>`），也按主题收录在 `questions_<topic>` notebook 里。
#
# 1. float16 能表示的最大有限值是多少？ (`tr-fp16-max`, `questions_training`)
# 2. 在 float16 下，从多大的值开始平方会溢出？ (`tr-fp16-square-overflow`, `questions_training`)
# 3. 这个 float16 的 RMSNorm 遇到大激活值时输出全 0，怎么修？ (`tr-rmsnorm-fp16-code`, `questions_training`)
# 4. 换成 bfloat16 还会有同样的问题吗？ (`tr-bf16-vs-fp16`, `questions_training`)
# 5. 写出 RMSNorm 的公式。eps 放在哪里？ (`rms-formula`, `questions_rms_norm`)
# 6. 通过 y = x + F(x)，残差流往回传的梯度是什么？ (`res-gradient-formula`, `questions_residual`)
# 7. 为什么新的 residual 必须是原始的和，而不是归一化后的副本？ (`np-identity-path`, `questions_norm_placement`)
#
# </details>
