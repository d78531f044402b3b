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
# # GELU from scratch
#
# **topic:** activations · **difficulty:** easy
#
# GELU is the activation of BERT, GPT-2 and ViT feed-forward blocks. Where ReLU keeps a positive
# input and zeroes a negative one, GELU scales every input by how likely it is to be "kept":
# `x * Phi(x)`, with Phi the standard normal CDF. Large positive inputs pass almost unchanged,
# large negative ones are squashed towards 0, and in between the curve is smooth, dips slightly
# below zero (minimum about -0.17 near x = -0.75) and has a derivative everywhere.
#
# ## What to write
#
# ```python
# class GELU(nn.Module):
#     def __init__(self, approximate: str = "none") -> None: ...
#     def forward(self, x: torch.Tensor) -> torch.Tensor: ...
# ```
#
# - `approximate` is `"none"` (the exact form) or `"tanh"` (the approximation). Keep it as
#   `self.approximate`. Any other value should raise `ValueError` (as `nn.GELU` refuses it too);
#   the grader does not test that.
# - No parameters and no buffers.
# - `x` has any shape (the tests use 1-D to 4-D inputs, contiguous and transposed), dtype float32,
#   float64, bfloat16 or float16. Return a new tensor of the **same shape and dtype**; do not
#   modify `x`.
# - Elementwise:
#
#   $$\texttt{"none"}:\quad y = x\,\Phi(x) = \tfrac{1}{2}\,x\left(1 + \operatorname{erf}\!\left(\frac{x}{\sqrt{2}}\right)\right)$$
#
#   $$\texttt{"tanh"}:\quad y = \tfrac{1}{2}\,x\left(1 + \tanh\!\left(\sqrt{2/\pi}\,\left(x + 0.044715\,x^3\right)\right)\right)$$
#
# - For float16/bfloat16 inputs, compute in float32 and cast the result back once (what
#   PyTorch's kernel does; see the pitfalls).
#
# Your module must behave like `torch.nn.GELU(approximate=approximate)`: same outputs and the
# same gradient with respect to `x`, **each form for its own flag**.
#
# ## Not allowed
#
# The built-ins that do the whole job: `F.gelu`, `nn.GELU`, `torch._C._nn.gelu` and the aten
# `gelu`/`gelu_backward` ops, however you reach them (an alias, `getattr`, `torch.ops.aten`). A
# submission that calls one is *rejected*. Everything else is fine: `torch.erf`, `torch.erfc`,
# `torch.tanh`, `torch.sigmoid`, `torch.special.ndtr` (Phi itself), `math.sqrt`, `math.pi`.
#
# ## What your code may run
#
# A solution is built from arithmetic, elementwise math, reductions, shape and indexing operations, creation, random draws and matrix products. Any other operation your code runs, by whatever route (an alias, `getattr`, `torch.ops`, `torch._C`, scripting, a custom op, a tensor subclass, another backend's tensor), is refused: the verdict is *rejected* and names the operation. The built-ins listed above are refused where they are written, even in a branch that never runs: an interviewer reading the code would stop there. torch's private operator implementations (`torch._refs`, `torch._decomp`, `torch._prims`) are refused the same way: they hold every exercise's answer.
#
# ## How it is graded
#
# About twenty freshly drawn cases, every family once per flag. One scenario per flag calls the
# same module again and again: in train mode on a `(1, 2, 3, 200)` input, after an (empty)
# optimiser step, then in eval mode on 1-D, 2-D and 3-D inputs with feature sizes 300, 131 and 17.
# The others: 401 points across [-10, 10] (float32 and float64) covering the negative tail, the
# dip and the near-identity right side; 48 points on [-4, -1], where the exact and tanh forms
# differ most (4.7e-4 near x = -2.7, far above float32 rounding); `|x|` around 1e4 (so `x^3` is
# 1e12); tiny inputs (`x * 1e-3`, where GELU(x) is about x / 2); a transposed, non-contiguous
# input; bfloat16 inputs on the tail [-5, -3]; `GELU()` with no argument (the exact form). Every
# call but one per flag runs a backward pass with a random upstream gradient and compares the
# gradient of `x`; that one runs under `torch.no_grad()` and checks that `x` was not modified in
# place. Outputs are compared with the reference computed in float64, allowing a small relative
# error plus what PyTorch itself errs at your dtype.
#
# **Also, as for every exercise:** three calls in a row with fresh data of one shape (code that caches what it computed, or changes from its third call on, fails); float64 cases are compared at float64's own precision: computing float64 input in float32 fails.
#
# ## Pitfalls interviewers look for
#
# - **`erf(x)` instead of `erf(x / sqrt(2))`**: GELU(-1) comes out -0.079 instead of -0.159.
# - **The tanh constants**: `math.sqrt(2 / math.pi)` (0.798), not `math.sqrt(2) / math.pi`
#   (0.450); `0.044715`, not `0.0044715`; and the cubic term must be there.
# - **`x * sigmoid(1.702 * x)`** is a third, coarser approximation from the same paper (off by up
#   to 0.02); the contract asks for one of the other two.
# - **The flag**: both forms are right only for their own flag. Ignoring `approximate` (or
#   comparing it with `"Tanh"`) gives the other form.
# - **Half precision**: for x below about -2, `1 + erf(...)` is a difference of two numbers close
#   to 1; bfloat16 keeps 8 bits of mantissa and loses almost all of it (GELU(-3) is 45% off in
#   bfloat16, GELU(-4) becomes 0). Compute in float32 and cast back once.
# - **Side effects and dtype**: no in-place update of `x`; return `x.dtype`.
#
# ## Why it works
#
# - **Phi from erf.** `erf` is the CDF of a normal with variance 1/2, scaled to [-1, 1]; so
#   `Phi(x) = (1 + erf(x / sqrt(2))) / 2`. Forgetting the `1 / sqrt(2)` gives a curve that is too
#   steep (question `act-gelu-definition`).
# - **The tanh form.** `tanh` is S-shaped like Phi; the constant `sqrt(2 / pi)` matches the slope
#   at 0 (`Phi'(0) = 1 / sqrt(2 pi)`, and `tanh'(0) = 1`, with the factor 1/2 outside), and the
#   cubic term `0.044715 x^3` bends the tails onto the normal CDF. The two forms differ by at most
#   4.7e-4. Models keep the form they were trained with: GPT-2 checkpoints expect `"tanh"`.
# - **Gradient.** For the exact form, `d/dx [x Phi(x)] = Phi(x) + x phi(x)`, with phi the normal
#   density. Autograd derives it from your forward; you do not write it.
#
# ## Interviewer follow-ups
#
# The questions an interviewer asks once this runs are served with the exercise (the
# `follow_ups` field of `GET /exercises/gelu`) and listed at the end of its notebook, each linked
# to the question-bank item that answers it. A few to prepare:
#
# - Why does a Transformer need an activation in the FFN at all? (`ffn-attention-not-linear`)
# - What is GELU(1)? (`act-gelu-value`: 0.841 for both forms)
# - Is GELU random at inference time? (`act-gelu-deterministic`)
# - ReLU's dead units and the kink at 0: what does a smooth activation change?
#   (`act-relu-pros-cons`)
# - How far are the tanh and `sigmoid(1.702 x)` approximations from the exact form?
#   (`act-gelu-approximations`)
# - Derive `d/dx [x Phi(x)]` and say where it is largest.
#
# ## Cost and memory
#
# One pass over the tensor: a handful of elementwise operations per element, memory-bound, not
# compute-bound. Unfused, each intermediate (`x / sqrt 2`, `erf`, `1 + ...`) is a full-size
# temporary, and autograd keeps the ones it needs for backward (roughly one or two tensors the
# size of `x`). PyTorch's fused kernel saves only `x` and recomputes the rest in backward. The
# tanh form was popular because `erf` was slow on some accelerators; on current hardware both are
# cheap.
#
# ## Test yourself
#
# Write the gradient by hand as a `torch.autograd.Function` for the exact form
# (`Phi(x) + x * exp(-x^2 / 2) / sqrt(2 pi)`) and compare it with your module's autograd
# gradient on `torch.linspace(-6, 6, 101, dtype=torch.float64)`. Then find the x where the exact
# and tanh forms differ most, and by how much.
# ## Background
#
# The course article "FFN, Residual Addition, LN", section "GELU", gives three reasons for GELU:
# it is smooth and differentiable everywhere, where ReLU cuts off hard at 0, which gives steadier
# gradients; it keeps part of the negative inputs instead of zeroing them, which eases the "dying
# neuron" problem; and it ties the activation to the idea of dropout by weighting each input
# according to its size. Section "1.1 FFN" of the same article explains why the FFN needs such a
# function at all: attention mixes tokens with softmax weights, a weighted sum, while the FFN's
# activation supplies the real non-linearity. Not quite: the softmax weights depend on the input,
# so attention is a non-linear function of its input too; the FFN's activation is what makes the
# per-token map non-linear (`ffn-attention-not-linear`).
#
# That last reason is worth getting right in an interview: GELU is **deterministic**. Hendrycks
# & Gimpel derive it as the *expected value* of multiplying x by a random 0/1 mask that keeps x
# with probability Phi(x), so `E[x * m] = x * Phi(x)`. No randomness remains (question
# `act-gelu-deterministic`).

# %% [markdown]
# <details><summary>中文说明</summary>
#
# # 从零实现 GELU
#
# BERT、GPT-2 和 ViT 的前馈层用的激活函数都是 GELU。ReLU 对正输入原样保留、对负输入一律置零；
# GELU 则按输入“被保留的可能性”来缩放它：`x * Phi(x)`，Phi 是标准正态分布的累积分布函数。
# 很大的正数几乎原样通过，很小的负数被压向 0，中间是一段光滑的曲线，在 x = -0.75 附近略低于
# 零（最小值约为 -0.17），并且处处可导。
#
# ## 要写什么
#
# ```python
# class GELU(nn.Module):
#     def __init__(self, approximate: str = "none") -> None: ...
#     def forward(self, x: torch.Tensor) -> torch.Tensor: ...
# ```
#
# - `approximate` 取 `"none"`（精确形式）或 `"tanh"`（近似形式），保存为 `self.approximate`。
#   其他取值应抛出 `ValueError`（`nn.GELU` 也会拒绝），评测不检查这一点。
# - 没有参数，也没有 buffer。
# - `x` 可以是任意形状（测试中为 1 维到 4 维，有连续的也有转置后不连续的），dtype 为 float32、
#   float64、bfloat16 或 float16。返回一个**形状和 dtype 都与 `x` 相同**的新张量，不要修改 `x`。
# - 逐元素计算：
#
#   $$\texttt{"none"}:\quad y = x\,\Phi(x) = \tfrac{1}{2}\,x\left(1 + \operatorname{erf}\!\left(\frac{x}{\sqrt{2}}\right)\right)$$
#
#   $$\texttt{"tanh"}:\quad y = \tfrac{1}{2}\,x\left(1 + \tanh\!\left(\sqrt{2/\pi}\,\left(x + 0.044715\,x^3\right)\right)\right)$$
#
# - 输入为 float16/bfloat16 时，先转成 float32 计算，最后只转换回原 dtype 一次（PyTorch 自己的
#   kernel 就是这么做的，原因见下文“易错点”）。
#
# 你的模块要与 `torch.nn.GELU(approximate=approximate)` 行为一致：输出相同，对 `x` 的梯度也相同，
# 而且**每个参数值只能对应它自己的那个公式**。
#
# ## 不允许使用
#
# 直接完成整个计算的内置实现：`F.gelu`、`nn.GELU`、`torch._C._nn.gelu` 以及 aten 的
# `gelu`/`gelu_backward` 算子，无论通过什么方式调用（别名、`getattr`、`torch.ops.aten`）。调用了它们
# 的提交会被判为 *rejected*。其余都可以用：`torch.erf`、`torch.erfc`、`torch.tanh`、
# `torch.sigmoid`、`torch.special.ndtr`（就是 Phi 本身）、`math.sqrt`、`math.pi`。
#
# ## 代码可以运行什么
#
# 答案只能由算术、逐元素数学函数、归约、形状与索引操作、张量创建、随机采样和矩阵乘法构成。代码运行的任何其他运算，不管通过什么途径（起别名、`getattr`、`torch.ops`、`torch._C`、脚本化、自定义算子、张量子类、其他后端的张量），都会被拒绝：判定为 *rejected*，并指出是哪个运算。上面列出的内置函数只要写在代码里就会被拒绝，即使所在的分支从不执行：面试官读到那一行就会停下来。torch 私有的算子实现（`torch._refs`、`torch._decomp`、`torch._prims`）同样被拒绝：每道题的答案都在里面。
#
# ## 如何评测
#
# 每次提交约有二十个新随机生成的用例，每类用例两个参数值各跑一次。每个参数值有一个场景反复调用同一个
# 模块：先在训练模式下处理形状为 `(1, 2, 3, 200)` 的输入，做一次（空的）优化器更新，再在评估模式下
# 依次处理特征数为 300、131、17 的一维、二维、三维输入。其余用例：[-10, 10] 上的 401 个点（float32
# 和 float64 各一次），覆盖负半轴的尾部、曲线的低谷和右侧近似恒等的部分；[-4, -1] 上的 48 个点，
# 这里精确形式与 tanh 近似相差最大（x = -2.7 附近为 4.7e-4，远超 float32 的舍入误差）；`|x|` 约为
# 1e4 的输入（此时 `x^3` 达到 1e12）；极小的输入（`x * 1e-3`，此时 GELU(x) 约等于 x / 2）；转置后
# 不连续的输入；尾部区间 [-5, -3] 上的 bfloat16 输入；不带参数构造的 `GELU()`（应为精确形式）。
# 除了每个参数值各一次调用外，所有调用都会用随机的上游梯度做一次反向传播，比较 `x` 的梯度；那一次
# 调用在 `torch.no_grad()` 下运行，检查你没有原地修改 `x`。输出与在 float64 下计算的参考结果比较，
# 允许一个小的相对误差，外加 PyTorch 自身在该 dtype 下的误差。
#
# **和每道题一样，还有：**同一形状、新数据连续调用三次（缓存结果、或从第三次调用起行为改变的代码会判错）；float64 用例按 float64 自身的精度比较：把 float64 输入放到 float32 里计算会判错。
#
# ## 面试官会盯的坑
#
# - **写成 `erf(x)` 而不是 `erf(x / sqrt(2))`**：GELU(-1) 会算成 -0.079，正确值是 -0.159。
# - **tanh 近似里的常数**：是 `math.sqrt(2 / math.pi)`（0.798），不是 `math.sqrt(2) / math.pi`
#   （0.450）；是 `0.044715`，不是 `0.0044715`；三次项也不能漏。
# - **`x * sigmoid(1.702 * x)`** 是同一篇论文里第三种、更粗糙的近似（最多差 0.02），题目要求的是
#   另外两种之一。
# - **参数值**：两种形式都只在各自的参数值下才算对。忽略 `approximate`（或者拿它和 `"Tanh"` 比较）
#   就会得到另一种形式。
# - **半精度**：x 小于约 -2 时，`1 + erf(...)` 是两个接近 1 的数相减；bfloat16 只有 8 位尾数，几乎
#   全部丢失（在 bfloat16 下 GELU(-3) 偏差约 45%，GELU(-4) 直接变成 0）。请在 float32 中计算，
#   最后转换回去一次。
# - **副作用和 dtype**：不要原地修改 `x`；返回 `x.dtype`。
#
# ## 为什么有效
#
# - **用 erf 表示 Phi。** `erf` 是方差为 1/2 的正态分布的累积分布函数，再线性映射到 [-1, 1]，
#   所以 `Phi(x) = (1 + erf(x / sqrt(2))) / 2`。漏掉 `1 / sqrt(2)` 会让曲线过陡（题目
#   `act-gelu-definition`）。
# - **tanh 近似。** `tanh` 和 Phi 一样是 S 形曲线；常数 `sqrt(2 / pi)` 让两者在 0 点的斜率一致
#   （`Phi'(0) = 1 / sqrt(2 pi)`，`tanh'(0) = 1`，外面还有系数 1/2），三次项 `0.044715 x^3` 则把
#   两侧尾部掰到贴近正态分布的累积分布函数。两种形式最多相差 4.7e-4。模型要沿用训练时的那一种：
#   GPT-2 的权重需要 `"tanh"`。
# - **梯度。** 精确形式的导数为 `d/dx [x Phi(x)] = Phi(x) + x phi(x)`，phi 是正态分布的密度函数。
#   autograd 会根据你的前向计算自动求出它，不需要你手写。
#
# ## 面试官的追问
#
# 代码跑通之后面试官会接着问的问题随练习一起提供（`GET /exercises/gelu` 返回的 `follow_ups` 字段），
# 也列在对应 notebook 的末尾，每个问题都链接到题库中给出答案的那道题。可以先准备这几个：
#
# - Transformer 的 FFN 为什么一定要有激活函数？（`ffn-attention-not-linear`）
# - GELU(1) 等于多少？（`act-gelu-value`：两种形式都约为 0.841）
# - GELU 在推理时是随机的吗？（`act-gelu-deterministic`）
# - ReLU 的死亡神经元和 0 点的折角：平滑的激活函数改变了什么？（`act-relu-pros-cons`）
# - tanh 近似和 `sigmoid(1.702 x)` 近似与精确形式最多相差多少？（`act-gelu-approximations`）
# - 推导 `d/dx [x Phi(x)]`，并说出它在哪里最大。
#
# ## 计算量与显存
#
# 对张量只过一遍，每个元素做几次逐元素运算，瓶颈在访存而不在计算。不融合时，每个中间结果
# （`x / sqrt 2`、`erf`、`1 + ...`）都是一个与 `x` 同样大的临时张量，autograd 还会为反向传播保留
# 其中需要的部分（大约一到两个 `x` 大小的张量）。PyTorch 的融合 kernel 只保存 `x`，其余在反向时
# 重新计算。tanh 近似当年流行，是因为 `erf` 在某些加速器上很慢；在如今的硬件上两者都很便宜。
#
# ## 自我检验
#
# 把精确形式的梯度（`Phi(x) + x * exp(-x^2 / 2) / sqrt(2 pi)`）手写成一个
# `torch.autograd.Function`，在 `torch.linspace(-6, 6, 101, dtype=torch.float64)` 上与你的模块由
# autograd 得到的梯度比较。然后找出精确形式与 tanh 近似相差最大的 x，以及相差多少。
# ## 背景
#
# 课程文章《FFN, Residual Addition, LN》的“GELU”一节给出了选择 GELU 的三点理由：它平滑、处处可导，
# 不像 ReLU 在 0 点硬截断，因而梯度更稳定；它不会把负输入全部清零，而是保留一部分，缓解了“神经元
# 死亡”；它把激活和 Dropout 的思想联系起来，按输入的大小决定保留的权重。同一篇文章的“1.1 FFN”一节
# 解释了 FFN 为什么需要这样一个函数：注意力用 softmax 权重对 token 做加权求和，本质上仍是线性组合，
# 真正的非线性来自 FFN 中的激活函数。这并不准确：softmax 权重依赖于输入，所以注意力对输入同样是非线性函数；让逐 token 的映射变成非线性的，是 FFN 的激活函数（`ffn-attention-not-linear`）。
#
# 面试时最后一点值得说准确：GELU 是**确定性**函数。Hendrycks 和 Gimpel 的推导是：用一个以概率
# Phi(x) 保留 x 的随机 0/1 掩码去乘 x，其**期望**为 `E[x * m] = x * Phi(x)`。激活函数本身不含任何
# 随机性（题目 `act-gelu-deterministic`）。
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
#    `# addnorm: exercise gelu`: the submit cell sends the last *executed* cell that starts with it.
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
# 2. 在下面的练习单元格里写好你的类并运行。第一行 `# addnorm: exercise gelu` 不要删：提交单元格发送的是
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
# addnorm: exercise gelu
import math  # noqa: F401  (sqrt, pi: the constants of both forms)

import torch
from torch import nn


class GELU(nn.Module):
    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        # "none": the exact x * Phi(x); "tanh": the tanh approximation. Keep this attribute.
        self.approximate = approximate

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # Use math.sqrt, math.pi, torch.erf, torch.tanh; return the same shape and dtype as x.
        raise NotImplementedError("implement GELU.forward")


# %% [markdown]
# ## Quick local check
#
# Runs your exercise cell again on its own, in a fresh namespace, as the server does, then
# compares a few public cases, forward pass only, with a reference in this kernel. It is a sanity
# check and **does not replace the server's verdict**, which runs many more shapes and dtypes,
# the backward pass and the known-mistake diagnosis.
#
# Reference: `torch.nn.functional.gelu` with `approximate="none"` and `"tanh"`.
#
# <details><summary>中文</summary>
#
# ## 本地快速检查
#
# 和服务器一样，把你的练习单元格单独放进全新的命名空间重新执行，再用几个公开用例（只做前向）
# 在当前 kernel 里与参考实现对比。这只是一次自检，**不能代替服务器的评测**：服务器会覆盖多得多的
# 形状和 dtype，还会检查反向传播并诊断已知错误。
#
# 参考实现：`torch.nn.functional.gelu`，`approximate` 分别取 `"none"` 和 `"tanh"`。
#
# </details>

# %%
import torch
import torch.nn.functional as F

from addnorm_client.local import LocalCase


def local_cases() -> list[LocalCase]:
    g = torch.Generator().manual_seed(0)

    def case(name: str, shape: tuple[int, ...], approximate: str, scale: float) -> LocalCase:
        x = torch.randn(shape, generator=g) * scale
        return LocalCase(
            name=name,
            x=x,
            build=lambda cls: cls(approximate=approximate),
            state={},
            expected=F.gelu(x, approximate=approximate),
        )

    return [
        case("exact, 2-D", (4, 8), "none", 1.0),
        case("tanh, 2-D", (4, 8), "tanh", 1.0),
        case("exact, wide range", (3, 64), "none", 4.0),
        case("tanh, wide range", (3, 64), "tanh", 4.0),
    ]


from addnorm_client.local import check

check("gelu", "GELU", local_cases())

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

submit_cell("gelu")

# %% [markdown]
# ## Interviewer follow-ups
#
# Once the code runs, an interviewer keeps going. Answer out loud first, then check yourself: each
# question links to an item of the question bank, served and graded by the server
# (`GET /questions/<id>`) and collected by topic in the `questions_<topic>` notebooks.
#
# 1. Why does the FFN need an activation at all, when attention already has a softmax? (`ffn-attention-not-linear`, `questions_ffn`)
# 2. Write GELU's definition and its tanh approximation from memory. (`act-gelu-definition`, `questions_activations`)
# 3. How far are the tanh and sigmoid(1.702 x) forms from the exact one? (`act-gelu-approximations`, `questions_activations`)
# 4. The material ties GELU to dropout. Is GELU random at inference time? (`act-gelu-deterministic`, `questions_activations`)
# 5. What is GELU(1), roughly? (`act-gelu-value`, `questions_activations`)
# 6. What does a smooth activation change compared with ReLU's kink at 0? (`act-relu-pros-cons`, `questions_activations`)
#
# <details><summary>中文</summary>
#
# ## 面试官的追问
#
# 代码跑通之后，面试官还会接着问。先试着口头回答，再去核对：每个问题都对应题库中的一道题，
# 由服务器提供并判分（`GET /questions/<id>`），也按主题收录在 `questions_<topic>` notebook 里。
#
# 1. 注意力里已经有 softmax 了，FFN 为什么还需要激活函数？ (`ffn-attention-not-linear`, `questions_ffn`)
# 2. 凭记忆写出 GELU 的定义和它的 tanh 近似。 (`act-gelu-definition`, `questions_activations`)
# 3. tanh 近似和 sigmoid(1.702 x) 近似与精确形式相差多少？ (`act-gelu-approximations`, `questions_activations`)
# 4. 课程材料把 GELU 和 Dropout 联系在一起。GELU 在推理时是随机的吗？ (`act-gelu-deterministic`, `questions_activations`)
# 5. GELU(1) 大约等于多少？ (`act-gelu-value`, `questions_activations`)
# 6. 与 ReLU 在 0 点的折角相比，平滑的激活函数改变了什么？ (`act-relu-pros-cons`, `questions_activations`)
#
# </details>
