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
# # LayerNorm from scratch
#
# **topic:** layer_norm · **difficulty:** easy
#
# Layer normalisation rescales each token's feature vector on its own: subtract the vector's
# mean, divide by its standard deviation, then apply a learned per-feature scale and shift.
# Unlike BatchNorm it never looks at the other samples in the batch, which is why it suits
# Transformers: variable sequence lengths, small batches and token-by-token generation all
# behave the same.
#
# ## What to write
#
# ```python
# class LayerNorm(nn.Module):
#     def __init__(self, dim: int, eps: float = 1e-5) -> None: ...
#     def forward(self, x: torch.Tensor) -> torch.Tensor: ...
# ```
#
# - `x` has shape `(..., dim)`: any number of leading dimensions (the tests use 1-D to 4-D
#   inputs), dtype float32, float64 or bfloat16. Return a tensor of the **same shape and dtype**.
# - Two parameters, with exactly these names and shapes. The grader first casts your module to
#   the input's dtype (`module.to(x.dtype)`), then copies each case's values into these
#   parameters in place; it loads nothing else, so extra buffers are yours to keep.
#
#   | name | shape | initial value |
#   | --- | --- | --- |
#   | `weight` (γ) | `(dim,)` | ones |
#   | `bias` (β) | `(dim,)` | zeros |
#
# - For every vector along the **last** dimension, with n = `dim`:
#
#   $$\mu = \frac{1}{n}\sum_{i=1}^{n} x_i,\qquad \sigma^2 = \frac{1}{n}\sum_{i=1}^{n} (x_i - \mu)^2\quad\text{(biased: divide by } n\text{)}$$
#
#   $$y = \frac{x - \mu}{\sqrt{\sigma^2 + \varepsilon}} \cdot \mathrm{weight} + \mathrm{bias}$$
#
# Your module must behave like `torch.nn.LayerNorm(dim, eps=eps)`: same outputs and same
# gradients with respect to `x`, `weight` and `bias`.
#
# ## Not allowed
#
# The built-ins that do the whole job: `F.layer_norm`, `torch.layer_norm`,
# `torch.native_layer_norm`, `nn.LayerNorm`, the RMSNorm built-ins, and other norms bent to the
# same purpose (`F.group_norm`, `F.instance_norm`, `F.batch_norm`, `nn.GroupNorm`), however you
# reach them (an alias, `getattr`, `torch.ops.aten`). A submission that calls one is *rejected*.
# Everything else is fine: `mean`, `var`, `var_mean`, `rsqrt`, `sqrt`, broadcasting.
#
# ## What your code may run
#
# A solution is built from arithmetic, elementwise math, reductions, shape and indexing operations, creation, random draws and matrix products. Any other operation your code runs, by whatever route (an alias, `getattr`, `torch.ops`, `torch._C`, scripting, a custom op, a tensor subclass, another backend's tensor), is refused: the verdict is *rejected* and names the operation. The built-ins listed above are refused where they are written, even in a branch that never runs: an interviewer reading the code would stop there. torch's private operator implementations (`torch._refs`, `torch._decomp`, `torch._prims`) are refused the same way: they hold every exercise's answer.
#
# ## How it is graded
#
# Each submission runs on about fifteen freshly drawn cases: standard normal inputs, a large
# offset (`x + 1e3` in float32, `x + 1e4` in float64), tiny inputs (`x * 1e-3`), rows whose
# entries are all equal, a single feature (`dim = 1`) and a wide one (`dim = 1024`), a few
# features (`dim` 3 to 8), non-default `eps` (0.1, 0.01), random `weight`/`bias` values as well as
# the default initialisation, float64 and one bfloat16 case. Most cases also run a backward pass
# with a random upstream gradient and compare the gradients. One case runs under
# `torch.no_grad()` and checks that your forward did not modify `x` in place.
#
# **Also, as for every exercise:** three calls in a row with fresh data of one shape, then an update and two more calls (code that caches what it computed, or changes from its third call on, fails); bfloat16 rows that are constant, and rows with a spread of 1 around 8 (a sum rounded to bfloat16 before the division fails: compute in float32); float64 cases are compared at float64's own precision: computing float64 input in float32 fails.
#
# ## Pitfalls interviewers look for
#
# - **Which variance?** `x.var()` and `x.std()` divide by n - 1 by default. LayerNorm divides by n.
# - **Where does eps go?** Inside the square root, added to the variance. On a constant row
#   (variance exactly 0) both `sqrt(var + eps)` and `sqrt(var) + eps` give a finite output, 0;
#   the difference is the gradient: the derivative of `sqrt` at 0 is infinite, so with eps
#   outside the root autograd returns NaN there. Away from 0 the two differ whenever `var` is not
#   much larger than `eps`.
# - **Numerics.** `mean(x^2) - mean(x)^2` is algebraically right and numerically fragile: try it
#   in float32 on inputs around 1e3.
# - **Axis and broadcasting.** Statistics are per vector over the last dim; `keepdim=True` lets
#   them broadcast back.
# - **Gradients.** Do not detach the mean or the variance: the true gradient flows through them.
# - **Side effects and dtype.** Do not modify `x` in place. In bfloat16, compute in float32 and
#   cast the result back to `x.dtype`: that is what `nn.LayerNorm` does internally, and computing
#   directly in bfloat16 roughly doubles the error.
#
# ## Why it works
#
# After normalisation every token enters the next layer with zero mean and unit variance,
# whatever the layers before it did to its scale and offset, so the next layer's weights always
# see inputs in the same range and training is less sensitive to the learning rate and the
# initialisation. Normalising also throws information away, and not every feature is best at
# zero mean and unit variance; γ and β give each feature back a scale and an offset that the
# network learns instead of having them imposed. (Unlike BatchNorm's, they cannot undo the
# normalisation exactly: the statistics belong to each token, γ and β to each feature.) Ignoring
# eps, the output is unchanged if the token's input is shifted by a constant or scaled by a
# positive factor, which is exactly the drift the layer protects the next one from (Ba, Kiros
# and Hinton 2016, "Layer Normalization").
#
# ## Interviewer follow-ups
#
# The questions an interviewer asks once this runs are served with the exercise (the
# `follow_ups` field of `GET /exercises/layer_norm`) and listed at the end of its notebook, each
# linked to the question-bank item that answers it.
#
# ## Cost and memory
#
# - **Parameters:** `2 * dim`. Next to the `dim x dim` matrices around it, nothing.
# - **FLOPs:** about eight per element (a sum for the mean, a subtraction, a square, a sum for
#   the variance, one `rsqrt` per row, a multiply, a scale and a shift): linear in the tensor's
#   size, where a matmul of the same tensor costs `2 * dim` per element.
# - **Memory-bound:** so few operations per element that the time goes into reading and writing
#   the tensor. Written as above, each line is a separate kernel that reads and writes a full
#   `(..., dim)` tensor; a fused kernel (what `nn.LayerNorm` runs) reads `x` and writes `y` once.
# - **Activations kept for backward:** your version keeps the centred tensor and `x_hat`, full
#   size, plus small `(..., 1)` statistics. The fused kernel keeps only `x`, the per-row mean and
#   `1/std` (two numbers per token) and recomputes `x_hat` in the backward pass.
# - **One-pass statistics:** the two-pass version reads `x` twice (mean, then variance).
#   `E[x^2] - E[x]^2` needs one pass but cancels catastrophically; Welford's online algorithm
#   needs one pass and stays accurate, which is why fused kernels use it.
#
# ## Test yourself
#
# - **Bias-free LayerNorm**, as PaLM uses: drop `bias` and compare with
#   `nn.LayerNorm(dim, bias=False)`. No exercise grades it yet; the next step down, dropping the
#   mean as well, is the `rms_norm` exercise.
# - **Backward by hand:** write a `torch.autograd.Function` whose backward computes
#   `dx = rstd * (g - mean(g) - x_hat * mean(g * x_hat))` with `g = dy * weight`, and check it
#   with `torch.autograd.gradcheck` in float64.
# - **One pass:** compute the mean and variance with Welford's update and compare with the
#   two-pass version on inputs around 1e4 in float32.
# - **Placement:** put your LayerNorm inside the `residual_block` exercise's pre-norm and
#   post-norm blocks.
#
# ## Background
#
# The article "FFN, Residual Addition, LN" walks through the same four steps (mean, variance,
# normalise, scale and shift) in its section "1.3 LN （Layer Norm，层归一化）", and its section
# "LayerNorm 为什么不用 BatchNorm" explains why Transformers use LayerNorm rather than BatchNorm.
# The article "Add & Norm 层" computes the same statistics on a small example in its section
# "层归一化的计算方法", and argues from the `(B, Q, D)` layout of sequence data in its section
# "为啥要使用归一化？". The article "Transformer残差连接与归一化层实现详解" shows a widely copied
# implementation in its section "2.1 LayerNorm的实现细节",
# `gamma * (x - mean) / (x.std(-1) + eps) + beta`, which differs from `nn.LayerNorm` in two
# places. Can you spot both before you start?

# %% [markdown]
# <details><summary>中文说明</summary>
#
# # 从零实现 LayerNorm
#
# 层归一化（LayerNorm）对每个 token 的特征向量单独处理：减去这个向量的均值，除以它的标准差，
# 再逐特征乘上可学习的缩放参数、加上平移参数。它和 BatchNorm 不同，从不看 batch 里的其他样本，
# 所以很适合 Transformer：序列长短不一、batch 很小、逐 token 自回归生成，结果都不受影响。
#
# ## 要写什么
#
# ```python
# class LayerNorm(nn.Module):
#     def __init__(self, dim: int, eps: float = 1e-5) -> None: ...
#     def forward(self, x: torch.Tensor) -> torch.Tensor: ...
# ```
#
# - `x` 的形状为 `(..., dim)`：前面可以有任意多个维度（测试覆盖 1 维到 4 维），dtype 为
#   float32、float64 或 bfloat16。返回**形状和 dtype 都与 `x` 相同**的张量。
# - 两个参数，名称和形状必须如下。评测时先把你的模块转换到输入的 dtype（`module.to(x.dtype)`），
#   再把每个用例的参数值原地拷贝进这两个参数；除此之外什么都不加载，你自己加的 buffer 不受影响。
#
#   | 名称 | 形状 | 初始值 |
#   | --- | --- | --- |
#   | `weight`（γ） | `(dim,)` | 全 1 |
#   | `bias`（β） | `(dim,)` | 全 0 |
#
# - 对**最后一维**上的每个向量（n = `dim`）：
#
#   $$\mu = \frac{1}{n}\sum_{i=1}^{n} x_i,\qquad \sigma^2 = \frac{1}{n}\sum_{i=1}^{n} (x_i - \mu)^2\quad\text{（有偏方差：除以 }n\text{）}$$
#
#   $$y = \frac{x - \mu}{\sqrt{\sigma^2 + \varepsilon}} \cdot \mathrm{weight} + \mathrm{bias}$$
#
# 你的模块要与 `torch.nn.LayerNorm(dim, eps=eps)` 行为一致：输出相同，对 `x`、`weight`、`bias`
# 的梯度也相同。
#
# ## 不允许使用
#
# 一步到位完成整个计算的内置函数：`F.layer_norm`、`torch.layer_norm`、`torch.native_layer_norm`、
# `nn.LayerNorm`、RMSNorm 的内置实现，以及拿来凑出同样效果的其他归一化（`F.group_norm`、
# `F.instance_norm`、`F.batch_norm`、`nn.GroupNorm`），不管通过什么方式调用（起别名、`getattr`、
# `torch.ops.aten`）。调用了它们的提交会被判为 *rejected*。其余都可以用：`mean`、`var`、
# `var_mean`、`rsqrt`、`sqrt`、广播。
#
# ## 代码可以运行什么
#
# 答案只能由算术、逐元素数学函数、归约、形状与索引操作、张量创建、随机采样和矩阵乘法构成。代码运行的任何其他运算，不管通过什么途径（起别名、`getattr`、`torch.ops`、`torch._C`、脚本化、自定义算子、张量子类、其他后端的张量），都会被拒绝：判定为 *rejected*，并指出是哪个运算。上面列出的内置函数只要写在代码里就会被拒绝，即使所在的分支从不执行：面试官读到那一行就会停下来。torch 私有的算子实现（`torch._refs`、`torch._decomp`、`torch._prims`）同样被拒绝：每道题的答案都在里面。
#
# ## 如何评测
#
# 每次提交大约跑十五个现场随机生成的用例：标准正态输入、大偏移（float32 下 `x + 1e3`，
# float64 下 `x + 1e4`）、极小输入（`x * 1e-3`）、整行元素全相等、只有一个特征（`dim = 1`）和
# 很宽的特征（`dim = 1024`）、很少的特征（`dim` 为 3 到 8）、非默认的 `eps`（0.1、0.01）、随机的
# `weight`/`bias` 以及默认初始化，另有 float64 用例和一个 bfloat16 用例。大多数用例还会用随机的
# 上游梯度做一次反向传播并比较梯度。有一个用例在 `torch.no_grad()` 下运行，检查你的前向有没有
# 原地修改 `x`。
#
# **和每道题一样，还有：**同一形状、新数据连续调用三次，再更新参数后调用两次（缓存结果、或从第三次调用起行为改变的代码会判错）；bfloat16 下整行相同的输入，以及 8 附近、离散度为 1 的输入（先在 bfloat16 里求和再相除的代码会判错：请在 float32 里计算）；float64 用例按 float64 自身的精度比较：把 float64 输入放到 float32 里计算会判错。
#
# ## 面试官会盯的坑
#
# - **用哪种方差？** `x.var()` 和 `x.std()` 默认除以 n - 1，LayerNorm 除以 n。
# - **eps 加在哪里？** 加在根号里面，和方差相加。整行相同（方差恰好为 0）时，`sqrt(var + eps)`
#   和 `sqrt(var) + eps` 算出的输出都是有限值 0；区别在梯度：`sqrt` 在 0 处的导数是无穷大，
#   eps 放在根号外面时，autograd 在这里得到的是 NaN。方差不为 0 时，只要它没有远大于 eps，
#   两种写法的结果也会明显不同。
# - **数值稳定性。** `mean(x^2) - mean(x)^2` 在代数上没错，数值上却很脆弱：用 float32、
#   在 1e3 附近的输入上试一试。
# - **维度与广播。** 统计量是每个向量沿最后一维单独算的；`keepdim=True` 让它们能广播回去。
# - **梯度。** 不要对均值或方差做 detach：真实的梯度要从它们身上流过。
# - **副作用与 dtype。** 不要原地修改 `x`。输入是 bfloat16 时，先转成 float32 计算，最后再转回
#   `x.dtype`：`nn.LayerNorm` 内部就是这么做的，直接用 bfloat16 计算，误差大约会翻一倍。
#
# ## 为什么有效
#
# 归一化之后，不管前面各层把 token 的尺度和偏移改成了什么样，每个 token 进入下一层时都是零均值、
# 单位方差，下一层的权重面对的输入始终在同一个范围内，训练对学习率和初始化也就没那么敏感。
# 但归一化同时丢掉了信息，而且并不是每个特征都适合零均值、单位方差；γ 和 β 让每个特征重新拥有
# 自己的缩放和偏移，由网络学出来，而不是被硬性规定。（和 BatchNorm 不同，它们没法把归一化精确地
# 还原回去：统计量是每个 token 各自的，γ 和 β 却是按特征共享的。）忽略 eps 时，把 token 的输入
# 整体平移一个常数，或乘上一个正数，输出都不变；LayerNorm 替下一层挡住的正是这类漂移
# （Ba、Kiros 与 Hinton 2016，“Layer Normalization”）。
#
# ## 面试官的追问
#
# 代码跑通之后面试官会接着问的问题随练习一起提供（`GET /exercises/layer_norm` 返回的
# `follow_ups` 字段），也列在对应 notebook 的末尾，每个问题都链接到题库中给出答案的那道题。
#
# ## 计算量与显存
#
# - **参数量：** `2 * dim`。和它前后 `dim x dim` 的权重矩阵相比，可以忽略不计。
# - **FLOPs：** 每个元素大约八次运算（求均值的一次加法、一次减法、一次平方、求方差的一次加法、
#   每行一次 `rsqrt`、一次乘法、一次缩放、一次平移），和张量大小成正比；同一个张量做一次矩阵乘法，
#   每个元素要花 `2 * dim` 次。
# - **受限于访存：** 每个元素上的运算太少，时间几乎都花在读写张量上。按上面的写法，每一行都是
#   一个单独的 kernel，各自完整地读写一遍 `(..., dim)` 的张量；融合后的 kernel（`nn.LayerNorm`
#   用的就是它）只读一次 `x`、写一次 `y`。
# - **为反向传播保存的激活：** 你的实现会保存中心化后的张量和 `x_hat` 这样的完整大小张量，外加
#   很小的 `(..., 1)` 统计量。融合 kernel 只保存 `x`、每行的均值和 `1/std`（每个 token 两个数），
#   反向时再把 `x_hat` 重新算出来。
# - **单遍统计：** 两遍的算法要读两次 `x`（先求均值，再求方差）。`E[x^2] - E[x]^2` 只读一遍，
#   却会发生灾难性抵消；Welford 在线算法只读一遍又足够精确，融合 kernel 用的正是它。
#
# ## 自我检验
#
# - **不带 bias 的 LayerNorm**（PaLM 的做法）：去掉 `bias`，与 `nn.LayerNorm(dim, bias=False)`
#   对比。目前还没有练习评测它；再往前一步，连均值也不减，就是 `rms_norm` 练习。
# - **手推反向传播：** 写一个 `torch.autograd.Function`，反向计算
#   `dx = rstd * (g - mean(g) - x_hat * mean(g * x_hat))`，其中 `g = dy * weight`，再在 float64 下
#   用 `torch.autograd.gradcheck` 验证。
# - **单遍统计：** 用 Welford 的更新公式算均值和方差，在 float32、1e4 附近的输入上与两遍的写法
#   对比。
# - **放置位置：** 把你的 LayerNorm 放进 `residual_block` 练习的 Pre-Norm 和 Post-Norm 里试试。
#
# ## 背景
#
# 《FFN, Residual Addition, LN》在“1.3 LN （Layer Norm，层归一化）”一节里讲了同样的四步
# （求均值、求方差、归一化、缩放与平移），并在“LayerNorm 为什么不用 BatchNorm”一节解释了
# Transformer 为什么选 LayerNorm 而不是 BatchNorm。《Add & Norm 层》在“层归一化的计算方法”
# 一节用一个小例子算了同样的统计量，又在“为啥要使用归一化？”一节从序列数据 `(B, Q, D)` 的
# 排布出发说明了理由。《Transformer残差连接与归一化层实现详解》在“2.1 LayerNorm的实现细节”
# 一节给出了一个流传很广的实现：`gamma * (x - mean) / (x.std(-1) + eps) + beta`，它和
# `nn.LayerNorm` 有两处不同。动手之前，你能把两处都找出来吗？
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
#    `# addnorm: exercise layer_norm`: the submit cell sends the last *executed* cell that starts with it.
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
# 2. 在下面的练习单元格里写好你的类并运行。第一行 `# addnorm: exercise layer_norm` 不要删：提交单元格发送的是
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
# addnorm: exercise layer_norm
import torch
from torch import nn


class LayerNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.eps = eps
        # The grader loads its parameters by these names: keep them.
        self.weight = nn.Parameter(torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # x: (..., dim). Per vector over the last dim: mean and biased variance, each (..., 1)
        # with keepdim=True; normalise, then scale by weight and shift by bias, both (dim,).
        # In bfloat16, compute in float32 and cast back (see the prompt's pitfalls).
        raise NotImplementedError("implement LayerNorm.forward")


# %% [markdown]
# ## Quick local check
#
# Runs your exercise cell again on its own, in a fresh namespace, as the server does, then
# compares a few public cases, forward pass only, with a reference in this kernel. It is a sanity
# check and **does not replace the server's verdict**, which runs many more shapes and dtypes,
# the backward pass and the known-mistake diagnosis.
#
# Reference: `torch.nn.functional.layer_norm` (what `nn.LayerNorm` calls), with random `weight` and `bias`.
#
# <details><summary>中文</summary>
#
# ## 本地快速检查
#
# 和服务器一样，把你的练习单元格单独放进全新的命名空间重新执行，再用几个公开用例（只做前向）
# 在当前 kernel 里与参考实现对比。这只是一次自检，**不能代替服务器的评测**：服务器会覆盖多得多的
# 形状和 dtype，还会检查反向传播并诊断已知错误。
#
# 参考实现：`torch.nn.functional.layer_norm`（`nn.LayerNorm` 内部调用的就是它），`weight`、`bias` 取随机值。
#
# </details>

# %%
import torch
import torch.nn.functional as F

from addnorm_client.local import LocalCase


def local_cases() -> list[LocalCase]:
    g = torch.Generator().manual_seed(0)

    def case(
        name: str, shape: tuple[int, ...], eps: float = 1e-5, offset: float = 0.0
    ) -> LocalCase:
        dim = shape[-1]
        x = torch.randn(shape, generator=g) + offset
        # Random parameters, not the ones/zeros init: a forgotten weight or bias shows.
        weight, bias = torch.randn(dim, generator=g), torch.randn(dim, generator=g)
        return LocalCase(
            name=name,
            x=x,
            build=lambda cls: cls(dim, eps=eps),
            state={"weight": weight, "bias": bias},
            expected=F.layer_norm(x, (dim,), weight, bias, eps),
        )

    return [
        case("2-D, standard normal", (4, 8)),
        case("3-D, offset x + 10", (2, 3, 16), offset=10.0),
        case("eps=1e-3, small dim", (5, 3), eps=1e-3),
        case("4-D, dim 64", (2, 2, 3, 64)),
    ]


from addnorm_client.local import check

check("layer_norm", "LayerNorm", local_cases())

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

submit_cell("layer_norm")

# %% [markdown]
# ## Interviewer follow-ups
#
# Once the code runs, an interviewer keeps going. Answer out loud first, then check yourself: each
# question links to an item of the question bank, served and graded by the server
# (`GET /questions/<id>`) and collected by topic in the `questions_<topic>` notebooks.
#
# 1. You divided by n. Why not n - 1, as torch.var does by default? (`ln-biased-variance`, `questions_layer_norm`)
# 2. Where exactly does eps go, and what does it protect against? (`ln-eps-inside-sqrt`, `questions_layer_norm`)
# 3. Here is a LayerNorm many tutorials copy. Why does it not match nn.LayerNorm? (`ln-std-eps-code`, `questions_layer_norm`)
# 4. You just normalised every token to zero mean and unit variance. Why learn gamma and beta on top? (`ln-gamma-beta`, `questions_layer_norm`)
# 5. Which changes to a token's input leave its output unchanged? (`ln-invariances`, `questions_layer_norm`)
# 6. Why do Transformers use LayerNorm rather than BatchNorm? (`bn-why-not-in-transformers`, `questions_batch_norm`)
# 7. Does your module behave differently after model.eval()? (`ln-train-eval-same`, `questions_layer_norm`)
# 8. Under mixed precision, which dtype does LayerNorm run in, and why? (`tr-autocast-layer-norm`, `questions_training`)
#
# <details><summary>中文</summary>
#
# ## 面试官的追问
#
# 代码跑通之后，面试官还会接着问。先试着口头回答，再去核对：每个问题都对应题库中的一道题，
# 由服务器提供并判分（`GET /questions/<id>`），也按主题收录在 `questions_<topic>` notebook 里。
#
# 1. 你除的是 n。为什么不像 torch.var 默认那样除以 n - 1？ (`ln-biased-variance`, `questions_layer_norm`)
# 2. eps 到底加在哪里？它防的是什么情况？ (`ln-eps-inside-sqrt`, `questions_layer_norm`)
# 3. 很多教程都抄过这版 LayerNorm。它为什么和 nn.LayerNorm 对不上？ (`ln-std-eps-code`, `questions_layer_norm`)
# 4. 刚把每个 token 归一化成零均值、单位方差，为什么又要学 gamma 和 beta？ (`ln-gamma-beta`, `questions_layer_norm`)
# 5. 对一个 token 的输入做哪些改动，输出保持不变？ (`ln-invariances`, `questions_layer_norm`)
# 6. Transformer 为什么用 LayerNorm 而不用 BatchNorm？ (`bn-why-not-in-transformers`, `questions_batch_norm`)
# 7. 调用 model.eval() 之后，你的模块行为会变吗？ (`ln-train-eval-same`, `questions_layer_norm`)
# 8. 混合精度训练时，LayerNorm 在什么 dtype 下计算？为什么？ (`tr-autocast-layer-norm`, `questions_training`)
#
# </details>
