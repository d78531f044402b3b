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
# # SwiGLU feed-forward block
#
# **topic:** ffn · **difficulty:** medium
#
# After attention has let tokens exchange information, the feed-forward network (FFN) transforms
# each token on its own, with the same weights at every position. The classic FFN is
# up-projection, ReLU (or GELU), down-projection. SwiGLU, used by PaLM, Llama and Mistral,
# replaces the single up-projection with two: one branch goes through SiLU (Swish) and *gates*
# the other, linear branch element-wise, before the down-projection.
#
# ## What to write
#
# ```python
# class SwiGLUFFN(nn.Module):
#     def __init__(self, dim: int, hidden_dim: int) -> None: ...
#     def forward(self, x: torch.Tensor) -> torch.Tensor: ...
# ```
#
# - `x` has shape `(..., dim)` (1-D to 4-D in the tests), float32 or float64. Return a tensor of
#   shape `(..., dim)` and the same dtype.
# - Three bias-free linear layers, with exactly these names:
#
#   | name | module | role |
#   | --- | --- | --- |
#   | `w1` | `nn.Linear(dim, hidden_dim, bias=False)` | gate projection |
#   | `w3` | `nn.Linear(dim, hidden_dim, bias=False)` | up projection |
#   | `w2` | `nn.Linear(hidden_dim, dim, bias=False)` | down projection |
#
#   so the state dict holds `w1.weight` `(hidden_dim, dim)`, `w2.weight` `(dim, hidden_dim)` and
#   `w3.weight` `(hidden_dim, dim)`. Their initial values do not matter: the grader casts your
#   module to the input's dtype and copies each case's weights into these parameters in place.
#
# - The function:
#
#   $$y = w_2\big(\mathrm{silu}(w_1(x)) \odot w_3(x)\big),\qquad \mathrm{silu}(z) = z \cdot \sigma(z)$$
#
# Outputs and the gradients with respect to `x` and all three weights are compared with this
# formula.
#
# ## Not allowed
#
# Nothing is banned: `nn.Linear`, `F.linear`, `F.silu`, matmuls and `einsum` are all fine. The
# starter imports `torch.nn.functional as F` for you, because the server runs your cell on its
# own: an `F` imported in another notebook cell would not be there.
#
# ## How it is graded
#
# About a dozen freshly drawn cases: `dim` from 1 to 1024, `hidden_dim` from 4 to 1024 (also
# smaller than `dim`), 1-D to 4-D inputs, standard normal, large (`8 * N(0,1)`) and tiny
# (`N(0,1) * 1e-3`) inputs, float32 and float64, random weights. Most cases compare gradients; one
# runs under `torch.no_grad()` and checks that `x` was not modified.
#
# **Also, as for every exercise:** three calls in a row with fresh data of one shape, then an update and two more calls (code that caches what it computed, or changes from its third call on, fails); float64 cases are compared at float64's own precision: computing float64 input in float32 fails.
#
# ## Pitfalls interviewers look for
#
# - **Which branch is gated?** SiLU goes on `w1` (the gate), not on `w3`, and not on the product.
# - **Which activation?** SiLU/Swish. Sigmoid makes it GLU, GELU makes it GeGLU, ReLU makes it
#   ReGLU: same family, different functions. GELU and SiLU look alike but differ by up to about
#   0.19, near |z| = 2.
# - **No biases.** `nn.Linear` has `bias=True` by default.
# - **Three matrices.** Without `w3` it is an ordinary FFN. (That third matrix is also why SwiGLU
#   models pick `hidden_dim` around `8/3 * dim` instead of `4 * dim`: same parameter count.)
#
# ## Why it works
#
# Each hidden unit computes a linear feature of the token, `w3(x)`, and multiplies it by a gate
# computed from the same token, `silu(w1(x))`: near zero the gate closes the unit, when it is
# large the unit passes, scaled. That is input-dependent, multiplicative feature selection: which
# features flow on is decided per token, and the product of two projections of `x` expresses
# interactions that one ReLU layer of the same width does not. A GLU (Dauphin et al. 2017,
# "Language Modeling with Gated Convolutional Networks") used a sigmoid gate; Shazeer (2020,
# "GLU Variants Improve Transformer") tried other gates at matched parameters and compute and
# found SwiGLU and GeGLU best, and then declined to explain why, attributing the success "to
# divine benevolence". Saying so in an interview is better than inventing a mechanism. PaLM
# (Chowdhery et al. 2022) dropped the biases for training stability at scale, not because a norm
# supplies the shift.
#
# ## Interviewer follow-ups
#
# The questions an interviewer asks once this runs are served with the exercise (the
# `follow_ups` field of `GET /exercises/swiglu_ffn`) and listed at the end of its notebook, each
# linked to the question-bank item that answers it.
#
# ## Cost and memory
#
# - **Parameters:** `3 * dim * hidden_dim`. With `hidden_dim = 8/3 * dim` that is `8 * dim^2`, the
#   same as a bias-free ReLU FFN with `4 * dim`; in a Transformer layer the FFN holds about two
#   thirds of the weights.
# - **FLOPs:** `6 * dim * hidden_dim` per token forward (three matmuls at 2 FLOPs per
#   multiply-add), plus a few per hidden unit for SiLU and the product; the backward pass costs
#   about twice the forward.
# - **Compute-bound matmuls, memory-bound glue:** the three matmuls dominate; the SiLU and the
#   product are element-wise passes over `(..., hidden_dim)` tensors, worth fusing into one
#   kernel. `w1` and `w3` read the same `x`, so many implementations store them as one
#   `(2 * hidden_dim, dim)` matrix and split the output.
# - **Activations kept for backward:** autograd keeps `x` and four `(..., hidden_dim)` tensors
#   (`w1(x)`, its SiLU, `w3(x)` and their product), against one for a ReLU FFN (the ReLU's output,
#   shared with the down-projection). At matched parameters that is about 2.7 times as many
#   hidden-size activations, which is why large models recompute the SiLU and the product in
#   backward.
#
# ## Test yourself
#
# - **GeGLU:** swap SiLU for GELU and compare with `F.linear(F.gelu(F.linear(x, w1)) *
#   F.linear(x, w3), w2)`. The grader of this exercise names that swap as a known mistake, so it
#   will tell you it is GeGLU.
# - **Fused gate and up projection:** keep one `nn.Linear(dim, 2 * hidden_dim)`, split its output
#   with `chunk(2, dim=-1)`, and map its weights to `w1`/`w3` to check it against your module.
# - **Count:** parameters and forward FLOPs per token for `dim = 4096`, `hidden_dim = 11008`.
#
# ## Background
#
# The article "FFN, Residual Addition, LN" explains in its section "为什么有了 Attention 还需要
# FFN" why attention alone is not enough, though its argument there, that attention is only a
# weighted average and the FFN supplies the non-linearity, overstates it: the softmax weights
# depend on the input, so attention is non-linear too; what it cannot do is transform each
# token's features, since its output stays within the span of the value vectors (see the
# question bank's `ffn-attention-not-linear`). Its section "FFN 为什么先升维再降维" explains why
# the FFN widens then narrows, and its section "SwiGLU" lists the benefits claimed for gating.
# The article "Add & Norm 层" shows the classic two-layer ReLU FFN that SwiGLU replaces in its
# section "FeedForward".

# %% [markdown]
# <details><summary>中文说明</summary>
#
# # SwiGLU 前馈网络
#
# 注意力层让各个 token 交换过信息之后，前馈网络（FFN）再对每个 token 单独做变换，所有位置共用
# 同一套权重。经典的 FFN 是“升维、ReLU（或 GELU）、降维”。PaLM、Llama、Mistral 用的 SwiGLU 把
# 一次升维拆成两路：一路经过 SiLU（Swish）之后，逐元素地给另一路线性分支做*门控*，然后再降维。
#
# ## 要写什么
#
# ```python
# class SwiGLUFFN(nn.Module):
#     def __init__(self, dim: int, hidden_dim: int) -> None: ...
#     def forward(self, x: torch.Tensor) -> torch.Tensor: ...
# ```
#
# - `x` 的形状为 `(..., dim)`（测试覆盖 1 维到 4 维），dtype 为 float32 或 float64。返回形状为
#   `(..., dim)`、dtype 相同的张量。
# - 三个不带 bias 的线性层，名称必须如下：
#
#   | 名称 | 模块 | 作用 |
#   | --- | --- | --- |
#   | `w1` | `nn.Linear(dim, hidden_dim, bias=False)` | 门控投影（gate） |
#   | `w3` | `nn.Linear(dim, hidden_dim, bias=False)` | 升维投影（up） |
#   | `w2` | `nn.Linear(hidden_dim, dim, bias=False)` | 降维投影（down） |
#
#   所以 state dict 里是 `w1.weight` `(hidden_dim, dim)`、`w2.weight` `(dim, hidden_dim)`、
#   `w3.weight` `(hidden_dim, dim)`。初始值无所谓：评测时先把模块转换到输入的 dtype，再把每个
#   用例的权重原地拷贝进这些参数。
#
# - 计算公式：
#
#   $$y = w_2\big(\mathrm{silu}(w_1(x)) \odot w_3(x)\big),\qquad \mathrm{silu}(z) = z \cdot \sigma(z)$$
#
# 评测会按这个公式比较输出，以及对 `x` 和三个权重的梯度。
#
# ## 不允许使用
#
# 没有禁用项：`nn.Linear`、`F.linear`、`F.silu`、矩阵乘法和 `einsum` 都可以用。起始代码已经替你
# 写好了 `import torch.nn.functional as F`，因为服务器会把你的单元格单独拿出来运行：在 notebook
# 其他单元格里导入的 `F`，到了那里并不存在。
#
# ## 如何评测
#
# 大约十几个现场随机生成的用例：`dim` 从 1 到 1024，`hidden_dim` 从 4 到 1024（也有比 `dim` 小的
# 情况），1 维到 4 维输入，标准正态、较大（`8 * N(0,1)`）和极小（`N(0,1) * 1e-3`）的输入，float32
# 和 float64，随机权重。大多数用例会比较梯度；有一个用例在 `torch.no_grad()` 下运行，检查 `x`
# 有没有被修改。
#
# **和每道题一样，还有：**同一形状、新数据连续调用三次，再更新参数后调用两次（缓存结果、或从第三次调用起行为改变的代码会判错）；float64 用例按 float64 自身的精度比较：把 float64 输入放到 float32 里计算会判错。
#
# ## 面试官会盯的坑
#
# - **门控加在哪一路？** SiLU 作用在 `w1`（门控）上，不是 `w3`，也不是两者的乘积。
# - **用哪个激活函数？** SiLU/Swish。换成 sigmoid 就是 GLU，GELU 是 GeGLU，ReLU 是 ReGLU：同一个
#   家族，但函数不同。GELU 和 SiLU 曲线很像，差值最大却有 0.19 左右，出现在 |z| = 2 附近。
# - **没有 bias。** `nn.Linear` 默认 `bias=True`。
# - **三个矩阵。** 少了 `w3` 就只是普通的 FFN。（也正因为多了这第三个矩阵，SwiGLU 模型通常把
#   `hidden_dim` 取为 `8/3 * dim` 左右而不是 `4 * dim`，这样参数量不变。）
#
# ## 为什么有效
#
# 每个隐藏单元先算出 token 的一个线性特征 `w3(x)`，再乘上由同一个 token 算出的门 `silu(w1(x))`：
# 门接近 0 时这个单元被关掉，门较大时它被放行并按门的大小缩放。这就是随输入而变的、乘性的特征
# 选择：哪些特征往下传，由每个 token 自己决定；而且 `x` 的两个投影相乘，能表达同样宽度的单层
# ReLU 表达不了的特征交互。GLU（Dauphin 等 2017，“Language Modeling with Gated Convolutional
# Networks”）用的是 sigmoid 门；Shazeer（2020，“GLU Variants Improve Transformer”）在参数量和
# 计算量对齐的条件下试了各种门，发现 SwiGLU 和 GeGLU 最好，却明确表示不解释原因，把成功归于
# “神的眷顾”（divine benevolence）。面试时照实说出这一点，比现编一套机理强。PaLM（Chowdhery 等
# 2022）去掉 bias 是为了大规模训练时更稳定，并不是因为归一化层会提供偏移。
#
# ## 面试官的追问
#
# 代码跑通之后面试官会接着问的问题随练习一起提供（`GET /exercises/swiglu_ffn` 返回的
# `follow_ups` 字段），也列在对应 notebook 的末尾，每个问题都链接到题库中给出答案的那道题。
#
# ## 计算量与显存
#
# - **参数量：** `3 * dim * hidden_dim`。取 `hidden_dim = 8/3 * dim` 时是 `8 * dim^2`，和宽度为
#   `4 * dim`、不带 bias 的 ReLU FFN 一样多；在一个 Transformer 层里，FFN 大约占三分之二的权重。
# - **FLOPs：** 每个 token 前向 `6 * dim * hidden_dim`（三次矩阵乘法，每次乘加算 2 FLOPs），
#   外加每个隐藏单元几次 SiLU 和乘法；反向大约是前向的两倍。
# - **矩阵乘法受限于算力，其余受限于访存：** 三次矩阵乘法占大头；SiLU 和相乘是在
#   `(..., hidden_dim)` 张量上逐元素地过一遍，值得融合成一个 kernel。`w1` 和 `w3` 读的是同一个 `x`，
#   所以很多实现把它们存成一个 `(2 * hidden_dim, dim)` 的矩阵，再把输出切成两半。
# - **为反向传播保存的激活：** autograd 会保存 `x` 和四个 `(..., hidden_dim)` 的张量（`w1(x)`、
#   它的 SiLU、`w3(x)` 以及两者的乘积），ReLU FFN 只需保存一个（ReLU 的输出，降维投影也共用它）。
#   参数量相同时，隐藏层大小的激活大约是后者的 2.7 倍，所以大模型会在反向时重算 SiLU 和乘积。
#
# ## 自我检验
#
# - **GeGLU：** 把 SiLU 换成 GELU，与 `F.linear(F.gelu(F.linear(x, w1)) * F.linear(x, w3), w2)`
#   对比。本题的评测把这种替换列为已知错误，提交后它会告诉你这是 GeGLU。
# - **合并门控与升维投影：** 只用一个 `nn.Linear(dim, 2 * hidden_dim)`，输出用
#   `chunk(2, dim=-1)` 切开，再把它的权重对应到 `w1`/`w3`，和你的模块对一对结果。
# - **算一算：** `dim = 4096`、`hidden_dim = 11008` 时的参数量，以及每个 token 的前向 FLOPs。
#
# ## 背景
#
# 《FFN, Residual Addition, LN》在“为什么有了 Attention 还需要 FFN”一节解释了只有注意力为什么
# 不够，但它在那里的论证（注意力只是加权平均，非线性全靠 FFN）说过了头：softmax 权重本身依赖
# 输入，注意力同样是非线性的；它做不到的是对每个 token 的特征做变换，因为它的输出始终落在 value
# 向量张成的空间里（见题库中的 `ffn-attention-not-linear`）。同一篇文章的“FFN 为什么先升维再降维”
# 一节讲了 FFN 为什么先升维再降维，“SwiGLU”一节列出了门控据称带来的好处。《Add & Norm 层》在
# “FeedForward”一节给出了被 SwiGLU 取代的经典两层 ReLU FFN。
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
#    `# addnorm: exercise swiglu_ffn`: the submit cell sends the last *executed* cell that starts with it.
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
# 2. 在下面的练习单元格里写好你的类并运行。第一行 `# addnorm: exercise swiglu_ffn` 不要删：提交单元格发送的是
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
# addnorm: exercise swiglu_ffn
import torch
import torch.nn.functional as F  # noqa: F401  (F.silu, F.linear: yours to use)
from torch import nn


class SwiGLUFFN(nn.Module):
    def __init__(self, dim: int, hidden_dim: int) -> None:
        super().__init__()
        # The grader loads w1.weight, w2.weight and w3.weight: keep these names and shapes.
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)  # gate
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)  # down
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)  # up

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # x: (..., dim). SiLU on the gate w1(x), times the up projection w3(x), both
        # (..., hidden_dim); then w2 projects the product back down to (..., dim).
        raise NotImplementedError("implement SwiGLUFFN.forward")


# %% [markdown]
# ## Quick local check
#
# Runs your exercise cell again on its own, in a fresh namespace, as the server does, then
# compares a few public cases, forward pass only, with a reference in this kernel. It is a sanity
# check and **does not replace the server's verdict**, which runs many more shapes and dtypes,
# the backward pass and the known-mistake diagnosis.
#
# Reference: The formula `w2(silu(w1(x)) * w3(x))`, with random weights.
#
# <details><summary>中文</summary>
#
# ## 本地快速检查
#
# 和服务器一样，把你的练习单元格单独放进全新的命名空间重新执行，再用几个公开用例（只做前向）
# 在当前 kernel 里与参考实现对比。这只是一次自检，**不能代替服务器的评测**：服务器会覆盖多得多的
# 形状和 dtype，还会检查反向传播并诊断已知错误。
#
# 参考实现：公式 `w2(silu(w1(x)) * w3(x))`，权重取随机值。
#
# </details>

# %%
import torch
import torch.nn.functional as F

from addnorm_client.local import LocalCase


def local_cases() -> list[LocalCase]:
    g = torch.Generator().manual_seed(0)

    def case(name: str, shape: tuple[int, ...], hidden: int) -> LocalCase:
        dim = shape[-1]
        x = torch.randn(shape, generator=g)
        # Scaled by 1/sqrt(fan_in) so the activations stay around unit size.
        w1 = torch.randn(hidden, dim, generator=g) / dim**0.5  # (hidden, dim)
        w3 = torch.randn(hidden, dim, generator=g) / dim**0.5  # (hidden, dim)
        w2 = torch.randn(dim, hidden, generator=g) / hidden**0.5  # (dim, hidden)
        return LocalCase(
            name=name,
            x=x,
            build=lambda cls: cls(dim, hidden),
            state={"w1.weight": w1, "w2.weight": w2, "w3.weight": w3},
            expected=F.linear(F.silu(F.linear(x, w1)) * F.linear(x, w3), w2),
        )

    return [
        case("2-D, dim 8, hidden 16", (4, 8), 16),
        case("3-D, dim 16, hidden 40", (2, 3, 16), 40),
        case("hidden smaller than dim", (3, 12), 5),
    ]


from addnorm_client.local import check

check("swiglu_ffn", "SwiGLUFFN", local_cases())

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

submit_cell("swiglu_ffn")

# %% [markdown]
# ## Interviewer follow-ups
#
# Once the code runs, an interviewer keeps going. Answer out loud first, then check yourself: each
# question links to an item of the question bank, served and graded by the server
# (`GET /questions/<id>`) and collected by topic in the `questions_<topic>` notebooks.
#
# 1. What does the gate actually do to each hidden unit? (`act-swiglu-gate`, `questions_activations`)
# 2. Why does SwiGLU beat a ReLU FFN? What does the paper that introduced it say? (`act-swiglu-why`, `questions_activations`)
# 3. How many parameters does your block have for dim 512 and hidden_dim 2048? (`ffn-swiglu-params`, `questions_ffn`)
# 4. Why do SwiGLU models use a hidden width around 8/3 of dim instead of 4x? (`ffn-swiglu-matched-width`, `questions_ffn`)
# 5. Is attention a linear map, so that without the FFN the whole stack would collapse into one? (`ffn-attention-not-linear`, `questions_ffn`)
# 6. Attention already mixes the tokens. What is the FFN for? (`ffn-why-after-attention`, `questions_ffn`)
# 7. Does the FFN's output at one position depend on the other positions? (`ffn-position-wise`, `questions_ffn`)
# 8. Here is a colleague's SwiGLU. What is wrong with it? (`ffn-swiglu-gate-bug`, `questions_ffn`)
#
# <details><summary>中文</summary>
#
# ## 面试官的追问
#
# 代码跑通之后，面试官还会接着问。先试着口头回答，再去核对：每个问题都对应题库中的一道题，
# 由服务器提供并判分（`GET /questions/<id>`），也按主题收录在 `questions_<topic>` notebook 里。
#
# 1. 门控对每个隐藏单元到底做了什么？ (`act-swiglu-gate`, `questions_activations`)
# 2. SwiGLU 为什么比 ReLU FFN 好？提出它的论文自己是怎么说的？ (`act-swiglu-why`, `questions_activations`)
# 3. dim 为 512、hidden_dim 为 2048 时，你这个模块有多少参数？ (`ffn-swiglu-params`, `questions_ffn`)
# 4. SwiGLU 模型的隐藏层宽度为什么取 dim 的 8/3 左右，而不是 4 倍？ (`ffn-swiglu-matched-width`, `questions_ffn`)
# 5. 注意力是不是线性映射，以至于没有 FFN 整个堆叠就会塌缩成一个线性变换？ (`ffn-attention-not-linear`, `questions_ffn`)
# 6. 注意力已经把各个 token 的信息混合过了，还要 FFN 做什么？ (`ffn-why-after-attention`, `questions_ffn`)
# 7. FFN 在某个位置的输出，会受其他位置的影响吗？ (`ffn-position-wise`, `questions_ffn`)
# 8. 这是同事写的 SwiGLU，哪里错了？ (`ffn-swiglu-gate-bug`, `questions_ffn`)
#
# </details>
