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
# # LayerNorm for half precision
#
# **topic:** layer_norm · **difficulty:** medium
#
# Mixed-precision training keeps activations in float16 or bfloat16 to halve their memory and use
# fast half-precision matmuls, but a norm layer cannot compute in those formats. float16 stops at
# 65504, so a deviation of 256 already squares to infinity; both formats keep few significant bits
# (11 in float16, 8 in bfloat16), so the mean of values around 1000 (float16) or 100 (bfloat16) is
# rounded by up to a quarter unit: a quarter of a unit spread, an error the subtraction then
# hands to every output. This is why
# `nn.LayerNorm` and Llama's RMSNorm compute their statistics in float32 and hand back the input's
# dtype. Write a LayerNorm that does the same, correctly, on the inputs where it matters.
#
# ## What to write
#
# ```python
# class MixedPrecisionLayerNorm(nn.Module):
#     def __init__(self, dim: int, eps: float = 1e-5) -> None: ...
#     def forward(self, x: torch.Tensor) -> torch.Tensor: ...
# ```
#
# - `x` has shape `(..., dim)`, dtype **float16, bfloat16, float32 or float64**, possibly a
#   non-contiguous view. Return a tensor of the same shape and **the same dtype as `x`**, whatever
#   the parameters' dtype.
# - Two parameters:
#
#   | name | shape | initial value |
#   | --- | --- | --- |
#   | `weight` (γ) | `(dim,)` | ones |
#   | `bias` (β) | `(dim,)` | zeros |
#
#   The grader does **not** cast your module to the input's dtype: the parameters are float32
#   (master weights next to half activations) in some scenarios and in the input's dtype (a model
#   cast with `.half()` or `.bfloat16()`) in others.
# - Compute in `c = float32` for half inputs (the input's own dtype for float32 and float64), and
#   round once, at the end:
#
#   $$\begin{aligned}
#   x_f &= x \qquad \text{in dtype } c\\
#   \mathrm{mean} &= \frac{1}{n}\sum_i x_{f,i} \qquad \text{over the last dim, } n = \mathrm{dim}\\
#   \mathrm{var} &= \frac{1}{n}\sum_i (x_{f,i} - \mathrm{mean})^2 \qquad \text{two-pass, biased}\\
#   y &= \frac{x_f - \mathrm{mean}}{\sqrt{\mathrm{var} + \varepsilon}} \cdot \mathrm{weight} + \mathrm{bias} \qquad \text{weight, bias in dtype } c\\
#   &\text{return } y \text{ in x.dtype}
#   \end{aligned}$$
#
# It must behave like `nn.LayerNorm(dim, eps)` run on a float32 copy of the input with float32
# parameters, its output rounded to the input's dtype: same outputs and gradients with respect to
# `x`, `weight` and `bias` (each in its own dtype), within the half-precision tolerance plus what
# the final rounding itself costs.
#
# ## Not allowed
#
# `F.layer_norm`, `torch.layer_norm`, `torch.native_layer_norm`, `nn.LayerNorm`, and other norms
# bent to the same purpose (`rms_norm`, `group_norm`, `batch_norm`, `instance_norm`), however you
# reach them. Casting (`.float()`, `.to(dtype)`, `torch.promote_types`), `mean`, `var_mean`,
# `rsqrt` are all fine. `torch.autocast` is allowed but is not the answer: it changes the dtype
# only of the ops on its lists, only inside an autocast region, and the lists differ between CPU
# and CUDA; the module must be right when it is called directly on half tensors.
#
# ## What your code may run
#
# A solution is built from arithmetic, elementwise math, reductions, shape and indexing operations, creation, random draws and matrix products. Any other operation your code runs, by whatever route (an alias, `getattr`, `torch.ops`, `torch._C`, scripting, a custom op, a tensor subclass, another backend's tensor), is refused: the verdict is *rejected* and names the operation. The built-ins listed above are refused where they are written, even in a branch that never runs: an interviewer reading the code would stop there. torch's private operator implementations (`torch._refs`, `torch._decomp`, `torch._prims`) are refused the same way: they hold every exercise's answer.
#
# ## How it is graded
#
# Short scenarios drawn fresh per submission: a training-mode call with a backward pass, an
# optimiser-like update of the parameters, then an eval-mode call; outputs (values and dtype) and
# gradients compared at each step. Inputs: well-conditioned float16 with float32 parameters and
# bfloat16 with a model cast to bfloat16 (every correct way of writing it passes these);
# **float16 around 1000** and **bfloat16 around 100**, each with a spread of 1 over a dozen or more
# rows; **float16 with a spread of 300**, whose squares overflow; tiny float16 values (spread
# 1e-3, squares in float16's subnormal range) with `eps = 1e-7`; float32 around 3; float64 around
# 1e4; a transposed float16 view around 500 with default parameters; a 1-D float16 vector
# around 200; and a 4-D float16 input with a leading batch of 1 and 200 or 300 features. A float32
# output from float16 input (a float32 parameter promotes it) fails as `wrong_output_dtype`.
#
# **Also, as for every exercise:** three calls in a row with fresh data of one shape, then an update and two more calls (code that caches what it computed, or changes from its third call on, fails); bfloat16 rows that are constant, and rows with a spread of 1 around 8 (a sum rounded to bfloat16 before the division fails: compute in float32); float64 cases are compared at float64's own precision: computing float64 input in float32 fails.
#
# ## Pitfalls interviewers look for
#
# - **Upcasting is not enough if you round back early.** Statistics computed in float32 and then
#   cast to half before `x - mean` lose exactly what the upcast bought.
# - **E[x^2] - E[x]^2 cancels even in float32** on inputs around 1000: two numbers near 1e6 that
#   agree in their first six digits. Subtract the mean first.
# - **The output's dtype is the input's.** Cast back at the end; with float32 parameters,
#   `x_hat.half() * weight` is float32 again.
# - **eps in half precision.** Adding a tiny eps after rounding `var` to float16 lands in the
#   subnormal range (below 6.1e-5, fewer significant bits) or, past 65504, at infinity.
# - **bfloat16 does not overflow** (it has float32's exponent range) but has three fewer
#   significant bits than float16: it fails on offsets, not on squares.
#
# ## Why it works
#
# Every float16 and bfloat16 value is exactly a float32 value, so the upcast itself loses nothing;
# float32's 24 significant bits and range up to 3.4e38 hold the squares and the sums of a row
# without overflow and with enough digits for the subtraction `x - mean`. The only rounding left
# is the last one, to the input's dtype, which is what any half-precision layer costs anyway. The
# memory cost is a float32 copy of one row at a time in a fused kernel (a full float32 temporary
# in this eager version), and a norm layer is memory-bound, so computing in float32 costs almost
# no time: the tensor is read and written in half precision either way.
#
# ## Interviewer follow-ups
#
# The questions an interviewer asks once this runs are served with the exercise (the
# `follow_ups` field of `GET /exercises/mixed_precision_norm`) and listed at the end of its
# notebook, each linked to the question-bank item that answers it: when squares overflow in float16
# (`tr-fp16-square-overflow`), LayerNorm under autocast (`tr-autocast-layer-norm`), Llama's
# float32 RMSNorm (`tr-rmsnorm-fp16-code`), bfloat16 against float16 (`tr-bf16-vs-fp16`), eps
# underflow (`tr-eps-underflow`), one-pass variance in float32 (`ln-one-pass-variance-code`), and
# what mixed precision saves (`tr-mixed-precision-memory`).
#
# ## Cost and memory
#
# - **Parameters:** `2 * dim`, usually kept in float32 by the optimiser (master weights).
# - **Activations:** input and output in half precision (2 bytes per element); the eager version
#   here materialises float32 temporaries (4 bytes per element) for the row statistics and the
#   normalised tensor, which a fused kernel keeps in registers.
# - **FLOPs:** the same eight or so per element as any LayerNorm; the casts are free next to the
#   memory traffic.
# - **Saved for backward (autograd):** the float32 intermediates of this version; a fused kernel
#   saves the half input plus a float32 mean and `1/std` per row.
#
# ## Test yourself
#
# - Port it to RMSNorm, the Llama way: `x.float()`, `rsqrt(mean(x^2) + eps)`, cast back, then the
#   gain. Try `x = 300` in float16 with and without the upcast.
# - Compare your output on float16 inputs around 1000 with a float64 computation, staying in half
#   and upcasting: print the maximum error of each.
# - Write the one-pass variance with Welford's update in float32 and check it on inputs around
#   1e4.
# - Measure with `torch.autograd.graph.saved_tensors_hooks` how many bytes this version keeps for
#   backward per element, and compare with `nn.LayerNorm`.
#
# ## Background
#
# The article "Transformer残差连接与归一化层实现详解", section "2.1 LayerNorm的实现细节", advises
# watching the numerical stability of normalisation layers when training in FP16, and its section
# "3.2 内存优化技巧" counts mixed-precision training among the memory savings for long sequences;
# this exercise shows where the instability comes from and the standard fix. The article "FFN,
# Residual Addition, LN", section "2.1 LayerNorm", lists the forward steps that you run here in
# float32.

# %% [markdown]
# <details><summary>中文说明</summary>
#
# # 适用于半精度的 LayerNorm
#
# 混合精度训练把激活值存成 float16 或 bfloat16，显存减半，还能用上更快的半精度矩阵乘法；但归一化层
# 不能直接在这两种格式下计算。float16 的上限是 65504，偏差达到 256 时平方就已经是无穷大；两种格式
# 的有效位都很少（float16 11 位，bfloat16 8 位），1000 附近（float16）或 100 附近（bfloat16）的
# 数求出的均值会有最多四分之一个单位的舍入误差，相当于单位离散程度的四分之一，减法会把这个误差带进每一个输出。所以 `nn.LayerNorm`
# 和 Llama 的 RMSNorm 都在 float32 下计算统计量，再按输入的 dtype 返回。本题要你写一个同样这么做、
# 并且在真正要紧的输入上做对的 LayerNorm。
#
# ## 要写什么
#
# ```python
# class MixedPrecisionLayerNorm(nn.Module):
#     def __init__(self, dim: int, eps: float = 1e-5) -> None: ...
#     def forward(self, x: torch.Tensor) -> torch.Tensor: ...
# ```
#
# - `x` 的形状为 `(..., dim)`，dtype 为 **float16、bfloat16、float32 或 float64**，可能是不连续的
#   视图。返回形状相同、**dtype 与 `x` 相同**的张量，不管参数是什么 dtype。
# - 两个参数：
#
#   | 名称 | 形状 | 初始值 |
#   | --- | --- | --- |
#   | `weight`（γ） | `(dim,)` | 全 1 |
#   | `bias`（β） | `(dim,)` | 全 0 |
#
#   评测**不会**把你的模块转换到输入的 dtype：有的场景里参数是 float32（与半精度激活并存的主权重），
#   有的场景里参数与输入同 dtype（模型整体调用过 `.half()` 或 `.bfloat16()`）。
# - 半精度输入在 `c = float32` 下计算（float32 和 float64 输入就用它们自己的 dtype），只在最后
#   舍入一次：
#
#   $$\begin{aligned}
#   x_f &= x \qquad \text{转成 dtype } c \text{ 的 } x\\
#   \mathrm{mean} &= \frac{1}{n}\sum_i x_{f,i} \qquad \text{在最后一维上，} n = \mathrm{dim}\\
#   \mathrm{var} &= \frac{1}{n}\sum_i (x_{f,i} - \mathrm{mean})^2 \qquad \text{两遍法，有偏方差}\\
#   y &= \frac{x_f - \mathrm{mean}}{\sqrt{\mathrm{var} + \varepsilon}} \cdot \mathrm{weight} + \mathrm{bias} \qquad \text{weight、bias 也转成 } c\\
#   &\text{返回转成 x.dtype 的 } y
#   \end{aligned}$$
#
# 行为要与这样的计算一致：把输入复制成 float32，用 float32 参数跑 `nn.LayerNorm(dim, eps)`，再把输出
# 舍入到输入的 dtype。输出以及对 `x`、`weight`、`bias` 的梯度（各自保持自己的 dtype）都要相同，
# 允许的误差是半精度的容差，再加上最后这一次舍入本身的误差。
#
# ## 不允许使用
#
# `F.layer_norm`、`torch.layer_norm`、`torch.native_layer_norm`、`nn.LayerNorm`，以及拿来凑出
# 同样效果的其他归一化（`rms_norm`、`group_norm`、`batch_norm`、`instance_norm`），不管通过什么
# 方式调用。类型转换（`.float()`、`.to(dtype)`、`torch.promote_types`）、`mean`、`var_mean`、
# `rsqrt` 都可以用。`torch.autocast` 可以用，但它不是答案：它只改变其列表上那些算子的 dtype，只在
# autocast 区域内生效，而且 CPU 和 CUDA 的列表并不相同；你的模块在半精度张量上被直接调用时也必须
# 正确。
#
# ## 代码可以运行什么
#
# 答案只能由算术、逐元素数学函数、归约、形状与索引操作、张量创建、随机采样和矩阵乘法构成。代码运行的任何其他运算，不管通过什么途径（起别名、`getattr`、`torch.ops`、`torch._C`、脚本化、自定义算子、张量子类、其他后端的张量），都会被拒绝：判定为 *rejected*，并指出是哪个运算。上面列出的内置函数只要写在代码里就会被拒绝，即使所在的分支从不执行：面试官读到那一行就会停下来。torch 私有的算子实现（`torch._refs`、`torch._decomp`、`torch._prims`）同样被拒绝：每道题的答案都在里面。
#
# ## 如何评测
#
# 每次提交现场生成若干短场景：先在训练模式下调用一次并做反向传播，像优化器那样更新一次参数，再在
# eval 模式下调用一次；每一步都比较输出（数值和 dtype）以及梯度。输入包括：条件良好的 float16
# （float32 参数）和 bfloat16（模型整体转成 bfloat16），任何正确写法都能通过；**1000 附近的
# float16** 和 **100 附近的 bfloat16**，离散程度都是 1，每个都有十几行以上；**离散程度为 300 的
# float16**，平方会溢出；极小的 float16（离散程度 1e-3，平方落在 float16 的次正规数范围），配
# `eps = 1e-7`；3 附近的 float32；1e4 附近的 float64；500 附近、转置得到的 float16 视图，参数为默认值；200 附近的一维
# float16 向量；以及第一维为 1、特征维为 200 或 300 的四维 float16 输入。float16 输入得到 float32
# 输出（被 float32 参数提升了类型）会判为 `wrong_output_dtype`。
#
# **和每道题一样，还有：**同一形状、新数据连续调用三次，再更新参数后调用两次（缓存结果、或从第三次调用起行为改变的代码会判错）；bfloat16 下整行相同的输入，以及 8 附近、离散度为 1 的输入（先在 bfloat16 里求和再相除的代码会判错：请在 float32 里计算）；float64 用例按 float64 自身的精度比较：把 float64 输入放到 float32 里计算会判错。
#
# ## 面试官会盯的坑
#
# - **提升了精度又过早转回去，等于白做。** 在 float32 下算好统计量，却在 `x - mean` 之前就转回
#   半精度，类型提升换来的精度就又丢了。
# - **E[x^2] - E[x]^2 在 float32 下同样会相消。** 输入在 1000 附近时，两个约为 1e6 的数前六位完全
#   相同。先减均值。
# - **输出的 dtype 跟着输入走。** 最后要转回去；参数是 float32 时，`x_hat.half() * weight` 又
#   变回了 float32。
# - **半精度下的 eps。** 把 `var` 舍入成 float16 之后再加一个很小的 eps，结果会落进次正规数范围
#   （小于 6.1e-5，有效位更少），超过 65504 则直接变成无穷大。
# - **bfloat16 不会溢出**（它的指数范围和 float32 一样），但有效位比 float16 少三位：它栽在偏移上，
#   而不是平方上。
#
# ## 为什么有效
#
# 每个 float16 和 bfloat16 值都恰好是一个 float32 值，所以类型提升本身不损失任何信息；float32 有
# 24 个有效二进制位，范围到 3.4e38，装得下一行的平方和累加，也有足够的位数做 `x - mean` 这个减法。剩下
# 的只有最后一次舍入，也就是转回输入 dtype 的那一次，这是任何半精度层本来就要付出的代价。显存方面，
# 融合算子每次只需一行的 float32 副本（本题的 eager 版本会生成完整的 float32 临时张量）；归一化层
# 受内存带宽限制，张量无论如何都以半精度读写，所以在 float32 下计算几乎不花额外时间。
#
# ## 面试官的追问
#
# 代码跑通之后面试官会接着问的问题随练习一起提供（`GET /exercises/mixed_precision_norm` 返回的
# `follow_ups` 字段），也列在对应 notebook 的末尾，每条都链接到题库中给出答案的那道题：float16 下平方何时溢出（`tr-fp16-square-overflow`）、autocast 下
# 的 LayerNorm（`tr-autocast-layer-norm`）、Llama 在 float32 下算 RMSNorm（`tr-rmsnorm-fp16-code`）、
# bfloat16 与 float16 的区别（`tr-bf16-vs-fp16`）、eps 下溢（`tr-eps-underflow`）、float32 下的
# 一遍法方差（`ln-one-pass-variance-code`），以及混合精度省下了什么（`tr-mixed-precision-memory`）。
#
# ## 计算量与显存
#
# - **参数量：** `2 * dim`，优化器通常以 float32 保存（主权重）。
# - **激活：** 输入和输出都是半精度（每个元素 2 字节）；本题的 eager 版本会为行统计量和归一化后的
#   张量生成 float32 临时张量（每个元素 4 字节），融合算子则把它们留在寄存器里。
# - **FLOPs：** 和任何 LayerNorm 一样，每个元素八次左右；与内存访问相比，类型转换可以忽略不计。
# - **为反向保存的内容（autograd）：** 本版本的 float32 中间结果；融合算子只保存半精度输入，外加
#   每行一个 float32 的均值和 `1/std`。
#
# ## 自我检验
#
# - 按 Llama 的做法移植到 RMSNorm：`x.float()`、`rsqrt(mean(x^2) + eps)`、转回去、再乘增益。
#   用 float16 的 `x = 300` 分别试试做与不做类型提升。
# - 在 1000 附近的 float16 输入上，分别用“全程半精度”和“提升到 float32”计算，与 float64 的结果
#   比较，打印各自的最大误差。
# - 在 float32 下用 Welford 算法写一遍法方差，在 1e4 附近的输入上验证。
# - 用 `torch.autograd.graph.saved_tensors_hooks` 测一下本版本每个元素为反向保存了多少字节，
#   与 `nn.LayerNorm` 对比。
#
# ## 背景
#
# 文章《Transformer残差连接与归一化层实现详解》的“2.1 LayerNorm的实现细节”一节提醒，FP16 训练时要
# 特别关注归一化层的数值稳定性；它的“3.2 内存优化技巧”一节把混合精度训练列为处理长序列时节省显存的
# 手段之一。本题展示这种不稳定从何而来，以及标准的解决办法。文章《FFN, Residual Addition, LN》的
# “2.1 LayerNorm”一节列出了本题在 float32 下执行的那几步前向计算。
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
#    `# addnorm: exercise mixed_precision_norm`: the submit cell sends the last *executed* cell that starts with it.
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
# 2. 在下面的练习单元格里写好你的类并运行。第一行 `# addnorm: exercise mixed_precision_norm` 不要删：提交单元格发送的是
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
# addnorm: exercise mixed_precision_norm
import torch
from torch import nn


class MixedPrecisionLayerNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.eps = eps
        # The grader loads its parameters by these names: keep them.
        self.weight = nn.Parameter(torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # x: (..., dim) in float16, bfloat16, float32 or float64. Compute the statistics and
        # the affine in (at least) float32, return x.dtype.
        raise NotImplementedError("implement MixedPrecisionLayerNorm.forward")


# %% [markdown]
# ## Quick local check
#
# Runs your exercise cell again on its own, in a fresh namespace, as the server does, then
# compares a few public cases, forward pass only, with a reference in this kernel. It is a sanity
# check and **does not replace the server's verdict**, which runs many more shapes and dtypes,
# the backward pass and the known-mistake diagnosis.
#
# Reference: `torch.nn.functional.layer_norm` on float32 inputs with random `weight` and `bias` (the
# half-precision cases, where the precision is the point, are graded by the server).
#
# <details><summary>中文</summary>
#
# ## 本地快速检查
#
# 和服务器一样，把你的练习单元格单独放进全新的命名空间重新执行，再用几个公开用例（只做前向）
# 在当前 kernel 里与参考实现对比。这只是一次自检，**不能代替服务器的评测**：服务器会覆盖多得多的
# 形状和 dtype，还会检查反向传播并诊断已知错误。
#
# 参考实现：在 float32 输入上运行 `torch.nn.functional.layer_norm`，`weight`、`bias` 取随机值（半精度的
# 场景才是本题的重点，由服务器评测）。
#
# </details>

# %%
import torch
import torch.nn.functional as F

from addnorm_client.local import LocalCase


def local_cases() -> list[LocalCase]:
    g = torch.Generator().manual_seed(0)

    def case(name: str, shape: tuple[int, ...], offset: float) -> LocalCase:
        dim = shape[-1]
        x = torch.randn(shape, generator=g) + offset
        weight, bias = torch.randn(dim, generator=g), torch.randn(dim, generator=g)
        expected = F.layer_norm(x, (dim,), weight, bias)
        return LocalCase(
            name=name,
            x=x,
            build=lambda cls: cls(dim),
            state={"weight": weight, "bias": bias},
            expected=expected,
        )

    return [
        case("float32, N(0,1)", (4, 32), 0.0),
        case("float32, N(0,1) + 3", (3, 48), 3.0),
        case("float32, 3-D", (2, 5, 40), 0.0),
    ]


from addnorm_client.local import check

check("mixed_precision_norm", "MixedPrecisionLayerNorm", local_cases())

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

submit_cell("mixed_precision_norm")

# %% [markdown]
# ## Interviewer follow-ups
#
# Once the code runs, an interviewer keeps going. Answer out loud first, then check yourself: each
# question links to an item of the question bank, served and graded by the server
# (`GET /questions/<id>`) and collected by topic in the `questions_<topic>` notebooks.
#
# 1. From which magnitude does squaring overflow in float16? (`tr-fp16-square-overflow`, `questions_training`)
# 2. Under autocast, which dtype does LayerNorm run in, and why? (`tr-autocast-layer-norm`, `questions_training`)
# 3. Llama computes its RMSNorm in float32. What goes wrong in float16? (`tr-rmsnorm-fp16-code`, `questions_training`)
# 4. How do bfloat16 and float16 differ, and which failure does each one show here? (`tr-bf16-vs-fp16`, `questions_training`)
# 5. Why is eps = 1e-8 a problem when everything runs in float16? (`tr-eps-underflow`, `questions_training`)
# 6. You upcast to float32 and computed E[x^2] - E[x]^2. Why can it still fail? (`ln-one-pass-variance-code`, `questions_layer_norm`)
# 7. What does mixed precision actually save, and what stays in float32? (`tr-mixed-precision-memory`, `questions_training`)
#
# <details><summary>中文</summary>
#
# ## 面试官的追问
#
# 代码跑通之后，面试官还会接着问。先试着口头回答，再去核对：每个问题都对应题库中的一道题，
# 由服务器提供并判分（`GET /questions/<id>`），也按主题收录在 `questions_<topic>` notebook 里。
#
# 1. float16 下数值多大时平方会溢出？ (`tr-fp16-square-overflow`, `questions_training`)
# 2. autocast 下 LayerNorm 在什么 dtype 下计算？为什么？ (`tr-autocast-layer-norm`, `questions_training`)
# 3. Llama 的 RMSNorm 在 float32 下计算。直接用 float16 会出什么问题？ (`tr-rmsnorm-fp16-code`, `questions_training`)
# 4. bfloat16 和 float16 有什么区别？在本题里各自会出现哪种问题？ (`tr-bf16-vs-fp16`, `questions_training`)
# 5. 全部用 float16 计算时，eps = 1e-8 为什么有问题？ (`tr-eps-underflow`, `questions_training`)
# 6. 你已经转成 float32，用 E[x^2] - E[x]^2 算方差，为什么还可能出错？ (`ln-one-pass-variance-code`, `questions_layer_norm`)
# 7. 混合精度到底省下了什么？哪些东西仍然留在 float32？ (`tr-mixed-precision-memory`, `questions_training`)
#
# </details>
