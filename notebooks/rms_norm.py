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
# # RMSNorm from scratch
#
# **topic:** rms_norm · **difficulty:** easy
#
# RMSNorm is LayerNorm without the centring: it divides each feature vector by its root mean
# square and multiplies by a learned per-feature weight. It does not subtract the mean (dividing
# scales the mean along with everything else) and has no bias. It saves a reduction and a
# subtraction per vector and trains as well in practice, which is why Llama, Mistral and most
# recent LLMs use it.
#
# ## What to write
#
# ```python
# class RMSNorm(nn.Module):
#     def __init__(self, dim: int, eps: float = 1e-6) -> None: ...
#     def forward(self, x: torch.Tensor) -> torch.Tensor: ...
# ```
#
# - `x` has shape `(..., dim)` (1-D to 4-D in the tests), dtype float32, float64 or bfloat16.
#   Return a tensor of the **same shape and dtype**.
# - One parameter, with exactly this name and shape. The grader casts your module to the input's
#   dtype (`module.to(x.dtype)`), then copies each case's values into it in place.
#
#   | name | shape | initial value |
#   | --- | --- | --- |
#   | `weight` (γ) | `(dim,)` | ones |
#
# - For every vector along the **last** dimension, with n = `dim`:
#
#   $$\mathrm{ms} = \frac{1}{n}\sum_{i=1}^{n} x_i^2,\qquad y = \frac{x}{\sqrt{\mathrm{ms} + \varepsilon}} \cdot \mathrm{weight}$$
#
# Your module must behave like `torch.nn.RMSNorm(dim, eps=eps)`: same outputs and same gradients
# with respect to `x` and `weight`.
#
# ## Not allowed
#
# `F.rms_norm`, `torch.rms_norm`, `nn.RMSNorm`, and the LayerNorm built-ins (`F.layer_norm`,
# `torch.layer_norm`, `nn.LayerNorm`), however you reach them (an alias, `getattr`,
# `torch.ops.aten`). A submission that calls one is *rejected*. Everything else is fine: `pow`,
# `mean`, `rsqrt`, `torch.linalg.vector_norm`, computing in float32 and casting back.
#
# ## What your code may run
#
# A solution is built from arithmetic, elementwise math, reductions, shape and indexing operations, creation, random draws and matrix products. Any other operation your code runs, by whatever route (an alias, `getattr`, `torch.ops`, `torch._C`, scripting, a custom op, a tensor subclass, another backend's tensor), is refused: the verdict is *rejected* and names the operation. The built-ins listed above are refused where they are written, even in a branch that never runs: an interviewer reading the code would stop there. torch's private operator implementations (`torch._refs`, `torch._decomp`, `torch._prims`) are refused the same way: they hold every exercise's answer.
#
# ## How it is graded
#
# About fifteen freshly drawn cases: standard normal inputs, a large offset (`x + 1e3` in float32,
# `x + 1e4` in float64), tiny inputs (`x * 1e-3`), constant rows including an all-zero row, `dim`
# from 1 to 1024, non-default `eps` (0.1, 0.01), random `weight` values and the default
# initialisation, float64 and one bfloat16 case. Most cases compare gradients after a backward
# pass with a random upstream gradient; one runs under `torch.no_grad()` and checks that `x` was
# not modified in place.
#
# **Also, as for every exercise:** three calls in a row with fresh data of one shape, then an update and two more calls (code that caches what it computed, or changes from its third call on, fails); bfloat16 rows that are constant, and rows with a spread of 1 around 8 (a sum rounded to bfloat16 before the division fails: compute in float32); float64 cases leave room for float32 internals (`x.float()` and a cast back, as Llama's RMSNorm does, is correct).
#
# ## Pitfalls interviewers look for
#
# - **No mean-centring.** Subtracting the mean turns it back into LayerNorm.
# - **Mean, not sum.** `sum(x^2)` gives the squared L2 norm, and its square root is off by a
#   factor `sqrt(dim)`.
# - **eps inside the square root**, added to the mean square. An all-zero row must give 0 and a
#   finite gradient: with eps outside the root the output is still 0, but the gradient is NaN,
#   because the derivative of `sqrt` at 0 is infinite.
# - **Keep the statistic in the graph**: the gradient flows through the RMS too.
# - **Mixed precision.** Llama's reference code normalises in float32 (`x.float()`) and casts
#   back with `.type_as(x)`: do the same. In bfloat16 a mean of squares rounded after every op has
#   about twice the error of `nn.RMSNorm`, and in float16 a square overflows once `|x|` reaches
#   256. Forgetting the cast back is wrong: the output must have `x`'s dtype.
# - Do not modify `x` in place.
#
# ## Why it works
#
# Zhang and Sennrich (2019, "Root Mean Square Layer Normalization") argue that what LayerNorm
# needs is its re-scaling invariance, not its re-centring. Multiply a token's vector by any
# positive factor and RMSNorm's output does not change (ignoring eps); the same holds when the
# weight matrix that produced the vector grows or shrinks as a whole, so the layers after the norm
# are shielded from the scale drift of the layers before it. The gradient that reaches that
# weight matrix shrinks as the matrix grows, which the paper describes as an implicit learning
# rate adaptation. Giving up re-centring costs little in practice: the model can learn to keep
# its features roughly centred, and the saving is one reduction and one element-wise pass.
#
# ## Interviewer follow-ups
#
# The questions an interviewer asks once this runs are served with the exercise (the
# `follow_ups` field of `GET /exercises/rms_norm`) and listed at the end of its notebook, each
# linked to the question-bank item that answers it.
#
# ## Cost and memory
#
# - **Parameters:** `dim`, half of LayerNorm's.
# - **FLOPs:** about five per element (square, sum, one `rsqrt` per row, multiply, scale), against
#   LayerNorm's eight: no mean, no subtraction, no shift.
# - **Memory-bound:** like LayerNorm, the time goes into reading and writing the tensor, so the
#   real gain is one reduction pass fewer, and it only shows once the kernel is fused. How much
#   faster the whole model gets depends on how much of its time the norms take, usually little.
# - **Activations kept for backward:** a fused kernel keeps `x` and one `1/rms` per token; the
#   float32 copy made for bfloat16 inputs is an extra full-size tensor unless the kernel upcasts
#   inside.
# - **One-pass statistics:** the mean square needs one pass and, unlike `E[x^2] - E[x]^2`, has
#   no subtraction to cancel, so one pass is both fast and accurate.
#
# ## Test yourself
#
# - **Backward by hand:** with `g = dy * weight` and `x_hat = x * rstd`, show that
#   `dx = rstd * (g - x_hat * mean(g * x_hat))` (LayerNorm's formula without the `mean(g)` term)
#   and check it with `torch.autograd.gradcheck`.
# - **Unit-offset weight:** Gemma stores `weight` as an offset and multiplies by `1 + weight`.
#   Write it, and say why it would fail this exercise's contract (the loaded weights would mean
#   something else) although the model it defines is the same.
# - **LayerNorm as a special case:** check that on inputs with zero mean your RMSNorm and the
#   `layer_norm` exercise's LayerNorm (with zero bias) agree up to eps.
#
# ## Background
#
# The article "FFN, Residual Addition, LN" walks through the three steps (mean square, divide by
# the root, scale) in its section "2.2 RMSNorm", and notes there that RMSNorm drops LayerNorm's
# mean subtraction and its bias to save computation while keeping comparable quality. The same
# section quotes a 25%-40% saving in computation time; Zhang and Sennrich (2019) measured between
# 7% and 64% depending on the model, which is the better answer in an interview.

# %% [markdown]
# <details><summary>中文说明</summary>
#
# # 从零实现 RMSNorm
#
# RMSNorm 就是去掉中心化的 LayerNorm：把每个特征向量除以它的均方根（root mean square），再逐特征
# 乘上可学习的权重。它不减均值（除以均方根时，均值也跟着一起被缩放），也没有 bias。每个向量少做
# 一次归约和一次减法，训练效果却不相上下，所以 Llama、Mistral 以及大多数新近的大模型都用它。
#
# ## 要写什么
#
# ```python
# class RMSNorm(nn.Module):
#     def __init__(self, dim: int, eps: float = 1e-6) -> None: ...
#     def forward(self, x: torch.Tensor) -> torch.Tensor: ...
# ```
#
# - `x` 的形状为 `(..., dim)`（测试覆盖 1 维到 4 维），dtype 为 float32、float64 或 bfloat16。
#   返回**形状和 dtype 都与 `x` 相同**的张量。
# - 只有一个参数，名称和形状必须如下。评测时先把你的模块转换到输入的 dtype
#   （`module.to(x.dtype)`），再把每个用例的参数值原地拷贝进去。
#
#   | 名称 | 形状 | 初始值 |
#   | --- | --- | --- |
#   | `weight`（γ） | `(dim,)` | 全 1 |
#
# - 对**最后一维**上的每个向量（n = `dim`）：
#
#   $$\mathrm{ms} = \frac{1}{n}\sum_{i=1}^{n} x_i^2,\qquad y = \frac{x}{\sqrt{\mathrm{ms} + \varepsilon}} \cdot \mathrm{weight}$$
#
# 你的模块要与 `torch.nn.RMSNorm(dim, eps=eps)` 行为一致：输出相同，对 `x` 和 `weight` 的梯度也相同。
#
# ## 不允许使用
#
# `F.rms_norm`、`torch.rms_norm`、`nn.RMSNorm`，以及 LayerNorm 的内置实现（`F.layer_norm`、
# `torch.layer_norm`、`nn.LayerNorm`），不管通过什么方式调用（起别名、`getattr`、`torch.ops.aten`）。
# 调用了它们的提交会被判为 *rejected*。其余都可以用：`pow`、`mean`、`rsqrt`、
# `torch.linalg.vector_norm`，以及先转成 float32 计算、再转回原 dtype。
#
# ## 代码可以运行什么
#
# 答案只能由算术、逐元素数学函数、归约、形状与索引操作、张量创建、随机采样和矩阵乘法构成。代码运行的任何其他运算，不管通过什么途径（起别名、`getattr`、`torch.ops`、`torch._C`、脚本化、自定义算子、张量子类、其他后端的张量），都会被拒绝：判定为 *rejected*，并指出是哪个运算。上面列出的内置函数只要写在代码里就会被拒绝，即使所在的分支从不执行：面试官读到那一行就会停下来。torch 私有的算子实现（`torch._refs`、`torch._decomp`、`torch._prims`）同样被拒绝：每道题的答案都在里面。
#
# ## 如何评测
#
# 大约十五个现场随机生成的用例：标准正态输入、大偏移（float32 下 `x + 1e3`，float64 下
# `x + 1e4`）、极小输入（`x * 1e-3`）、整行相同（包括全零的一行）、`dim` 从 1 到 1024、非默认的
# `eps`（0.1、0.01）、随机的 `weight` 以及默认初始化，另有 float64 用例和一个 bfloat16 用例。
# 大多数用例会用随机的上游梯度做反向传播并比较梯度；有一个用例在 `torch.no_grad()` 下运行，
# 检查 `x` 有没有被原地修改。
#
# **和每道题一样，还有：**同一形状、新数据连续调用三次，再更新参数后调用两次（缓存结果、或从第三次调用起行为改变的代码会判错）；bfloat16 下整行相同的输入，以及 8 附近、离散度为 1 的输入（先在 bfloat16 里求和再相除的代码会判错：请在 float32 里计算）；float64 用例给 float32 内部计算留了余量（像 Llama 的 RMSNorm 那样先 `x.float()` 再转回去也算对）。
#
# ## 面试官会盯的坑
#
# - **不减均值。** 一旦减去均值，它就又变回了 LayerNorm。
# - **求均值，不是求和。** `sum(x^2)` 是 L2 范数的平方，开方后会差 `sqrt(dim)` 倍。
# - **eps 加在根号里面**，和均方值相加。全零的一行必须输出 0，而且梯度有限：eps 放在根号外面时
#   输出照样是 0，梯度却是 NaN，因为 `sqrt` 在 0 处的导数是无穷大。
# - **统计量要留在计算图里**：梯度也要从均方根身上流过。
# - **混合精度。** Llama 的参考实现先转成 float32 再归一化（`x.float()`），最后用 `.type_as(x)`
#   转回去：照着做就对了。在 bfloat16 下，每一步都舍入一次的均方值，误差大约是 `nn.RMSNorm` 的
#   两倍；在 float16 下，`|x|` 达到 256 时平方就会溢出。忘了转回去则是错的：输出必须和 `x` 的
#   dtype 相同。
# - 不要原地修改 `x`。
#
# ## 为什么有效
#
# Zhang 与 Sennrich（2019，“Root Mean Square Layer Normalization”）认为，LayerNorm 真正起作用的是
# 缩放不变性，而不是中心化。把一个 token 的向量乘上任意正数，RMSNorm 的输出都不变（忽略 eps）；
# 产生这个向量的权重矩阵整体变大或变小时也是如此，所以归一化之后的层不会被之前各层的尺度漂移
# 牵着走。权重矩阵越大，传到它身上的梯度反而越小，论文称之为一种隐式的学习率自适应。放弃中心化
# 在实践中几乎没有代价：模型可以自己学着让特征大致保持居中，而省下的是一次归约和一遍逐元素运算。
#
# ## 面试官的追问
#
# 代码跑通之后面试官会接着问的问题随练习一起提供（`GET /exercises/rms_norm` 返回的
# `follow_ups` 字段），也列在对应 notebook 的末尾，每个问题都链接到题库中给出答案的那道题。
#
# ## 计算量与显存
#
# - **参数量：** `dim`，是 LayerNorm 的一半。
# - **FLOPs：** 每个元素大约五次运算（平方、求和、每行一次 `rsqrt`、乘法、缩放），LayerNorm 要
#   八次：不求均值、不做减法、也不做平移。
# - **受限于访存：** 和 LayerNorm 一样，时间主要花在读写张量上，所以真正省下的是一遍归约，而且
#   要等 kernel 融合之后才看得出来。整个模型能快多少，取决于归一化在总时间里占多少，通常不多。
# - **为反向传播保存的激活：** 融合 kernel 只保存 `x` 和每个 token 一个 `1/rms`；bfloat16 输入
#   转出来的 float32 副本是一个额外的完整大小张量，除非 kernel 在内部完成类型提升。
# - **单遍统计：** 均方值只需读一遍，而且不像 `E[x^2] - E[x]^2` 那样有减法会相互抵消，所以一遍
#   就能算得又快又准。
#
# ## 自我检验
#
# - **手推反向传播：** 令 `g = dy * weight`、`x_hat = x * rstd`，证明
#   `dx = rstd * (g - x_hat * mean(g * x_hat))`（也就是 LayerNorm 的公式去掉 `mean(g)` 那一项），
#   再用 `torch.autograd.gradcheck` 验证。
# - **带偏移的权重：** Gemma 把 `weight` 存成偏移量，计算时乘的是 `1 + weight`。写一个这样的版本，
#   并说明为什么它通不过本题的接口约定（加载进来的权重含义变了），尽管它定义的模型其实一样。
# - **LayerNorm 是特例：** 在均值为 0 的输入上，检查你的 RMSNorm 和 `layer_norm` 练习里的
#   LayerNorm（bias 为 0）除 eps 带来的差别之外完全一致。
#
# ## 背景
#
# 《FFN, Residual Addition, LN》在“2.2 RMSNorm”一节讲解了三个步骤（求均方值、除以均方根、
# 缩放），并指出 RMSNorm 去掉了 LayerNorm 的减均值步骤和 bias，在效果相当的前提下节省了计算。
# 同一节给出的数字是计算时间减少 25%-40%；Zhang 与 Sennrich（2019）实测的是 7% 到 64%，视模型
# 而定，面试时这样回答更稳妥。
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
#    `# addnorm: exercise rms_norm`: the submit cell sends the last *executed* cell that starts with it.
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
# 2. 在下面的练习单元格里写好你的类并运行。第一行 `# addnorm: exercise rms_norm` 不要删：提交单元格发送的是
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
# addnorm: exercise rms_norm
import torch
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.eps = eps
        # The grader loads its parameter by this name: keep it.
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # x: (..., dim). Per vector over the last dim: the mean of squares, (..., 1) with
        # keepdim=True; divide by sqrt(mean square + eps), then multiply by weight, (dim,).
        # In bfloat16, compute in float32 and cast back (see the prompt's pitfalls).
        raise NotImplementedError("implement RMSNorm.forward")


# %% [markdown]
# ## Quick local check
#
# Runs your exercise cell again on its own, in a fresh namespace, as the server does, then
# compares a few public cases, forward pass only, with a reference in this kernel. It is a sanity
# check and **does not replace the server's verdict**, which runs many more shapes and dtypes,
# the backward pass and the known-mistake diagnosis.
#
# Reference: `torch.nn.functional.rms_norm` (what `nn.RMSNorm` calls), with a random `weight`.
#
# <details><summary>中文</summary>
#
# ## 本地快速检查
#
# 和服务器一样，把你的练习单元格单独放进全新的命名空间重新执行，再用几个公开用例（只做前向）
# 在当前 kernel 里与参考实现对比。这只是一次自检，**不能代替服务器的评测**：服务器会覆盖多得多的
# 形状和 dtype，还会检查反向传播并诊断已知错误。
#
# 参考实现：`torch.nn.functional.rms_norm`（`nn.RMSNorm` 内部调用的就是它），`weight` 取随机值。
#
# </details>

# %%
import torch
import torch.nn.functional as F

from addnorm_client.local import LocalCase


def local_cases() -> list[LocalCase]:
    g = torch.Generator().manual_seed(0)

    def case(
        name: str,
        shape: tuple[int, ...],
        eps: float = 1e-6,
        scale: float = 1.0,
        offset: float = 0.0,
    ) -> LocalCase:
        dim = shape[-1]
        x = torch.randn(shape, generator=g) * scale + offset
        # A random weight, not the ones init: a forgotten weight shows.
        weight = torch.randn(dim, generator=g)
        return LocalCase(
            name=name,
            x=x,
            build=lambda cls: cls(dim, eps=eps),
            state={"weight": weight},
            expected=F.rms_norm(x, (dim,), weight, eps),
        )

    return [
        case("2-D, standard normal", (4, 8)),
        # With a mean of about 3 per row, subtracting it (LayerNorm's step) changes every output.
        case("3-D, offset x + 3: the mean is not subtracted", (2, 3, 16), offset=3.0),
        case("eps=1e-2, tiny inputs", (5, 4), eps=1e-2, scale=1e-2),
        case("4-D, dim 64", (2, 2, 3, 64)),
    ]


from addnorm_client.local import check

check("rms_norm", "RMSNorm", local_cases())

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

submit_cell("rms_norm")

# %% [markdown]
# ## Interviewer follow-ups
#
# Once the code runs, an interviewer keeps going. Answer out loud first, then check yourself: each
# question links to an item of the question bank, served and graded by the server
# (`GET /questions/<id>`) and collected by topic in the `questions_<topic>` notebooks.
#
# 1. Compared with LayerNorm, what exactly did you leave out? (`rms-what-is-dropped`, `questions_rms_norm`)
# 2. Which changes to a token's vector leave the output unchanged? Is a shift one of them? (`rms-invariance`, `questions_rms_norm`)
# 3. When does RMSNorm give exactly what LayerNorm gives? (`rms-zero-mean-equals-ln`, `questions_rms_norm`)
# 4. Is RMSNorm just LayerNorm with eps set to 0? (`rms-not-ln-without-eps`, `questions_rms_norm`)
# 5. How much faster is it than LayerNorm, and where does the saving come from? (`rms-speedup-claim`, `questions_rms_norm`)
# 6. Llama computes its RMSNorm in float32. What goes wrong in float16? (`tr-rmsnorm-fp16-code`, `questions_training`)
# 7. Which well-known models use RMSNorm? (`rms-where-used`, `questions_rms_norm`)
#
# <details><summary>中文</summary>
#
# ## 面试官的追问
#
# 代码跑通之后，面试官还会接着问。先试着口头回答，再去核对：每个问题都对应题库中的一道题，
# 由服务器提供并判分（`GET /questions/<id>`），也按主题收录在 `questions_<topic>` notebook 里。
#
# 1. 和 LayerNorm 相比，你具体省掉了哪些东西？ (`rms-what-is-dropped`, `questions_rms_norm`)
# 2. 对 token 向量做哪些改动，输出不变？整体平移算不算？ (`rms-invariance`, `questions_rms_norm`)
# 3. 什么情况下 RMSNorm 的结果和 LayerNorm 完全一样？ (`rms-zero-mean-equals-ln`, `questions_rms_norm`)
# 4. RMSNorm 是不是就是 eps 取 0 的 LayerNorm？ (`rms-not-ln-without-eps`, `questions_rms_norm`)
# 5. 它比 LayerNorm 快多少？省下的时间从哪里来？ (`rms-speedup-claim`, `questions_rms_norm`)
# 6. Llama 的 RMSNorm 在 float32 下计算。直接用 float16 会出什么问题？ (`tr-rmsnorm-fp16-code`, `questions_training`)
# 7. 哪些知名模型用的是 RMSNorm？ (`rms-where-used`, `questions_rms_norm`)
#
# </details>
