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
# # The GLU family: SwiGLU, GeGLU, ReGLU in one module, and LLaMA's width
#
# **topic:** ffn · **difficulty:** medium
#
# The classic FFN widens each token, applies one activation, and narrows back. A *gated* linear
# unit (GLU) FFN computes two projections of the same token instead: one, the **gate**, passes
# through an activation and multiplies the other, the **up** projection, element by element,
# before the **down** projection. The choice of gate names the variant: Swish/SiLU gives SwiGLU
# (Llama, Mistral, PaLM), GELU gives GeGLU, ReLU gives ReGLU. Because there are now three weight
# matrices, LLaMA shrinks the hidden width to two thirds of the classic `4 * dim` and rounds it to
# a hardware-friendly multiple: that is `llama_hidden_dim`, and why LLaMA-7B's FFN is 11008 wide.
#
# ## What to write
#
# ```python
# def llama_hidden_dim(
#     dim: int, multiple_of: int = 256, ffn_dim_multiplier: float | None = None
# ) -> int: ...
#
#
# class GLUFFN(nn.Module):
#     def __init__(
#         self,
#         dim: int,
#         hidden_dim: int | None = None,
#         activation: str = "swish",
#         multiple_of: int = 256,
#         ffn_dim_multiplier: float | None = None,
#     ) -> None: ...
#     def forward(self, x: torch.Tensor) -> torch.Tensor: ...
# ```
#
# - `llama_hidden_dim` returns a Python `int`, computed as in Meta's LLaMA code:
#
#   $$\begin{aligned}
#   \mathrm{hidden} &= \left\lfloor \frac{2 \cdot (4 \cdot \mathrm{dim})}{3} \right\rfloor \qquad \text{truncate}\\
#   \mathrm{hidden} &= \left\lfloor \mathrm{ffn\_dim\_multiplier} \cdot \mathrm{hidden} \right\rfloor \qquad \text{truncate again, if ffn\_dim\_multiplier is not None}\\
#   \mathrm{hidden} &= \mathrm{multiple\_of} \cdot \left\lceil \frac{\mathrm{hidden}}{\mathrm{multiple\_of}} \right\rceil \qquad \text{the smallest multiple of multiple\_of that is} \ge \mathrm{hidden}
#   \end{aligned}$$
#
#   `llama_hidden_dim(4096) == 11008`, `llama_hidden_dim(8192, 4096, 1.3) == 28672` (Llama 2
#   70B), `llama_hidden_dim(96) == 256` (already a multiple: not bumped).
# - `GLUFFN`: `hidden_dim` is used as given; when it is `None` the width is
#   `llama_hidden_dim(dim, multiple_of, ffn_dim_multiplier)`. `activation` is `"swish"` (SiLU,
#   `z * sigmoid(z)`), `"gelu"` (exact GELU, `z * Phi(z)`) or `"relu"`; anything else raises
#   `ValueError` in the constructor.
# - Three bias-free linear layers, with exactly these names:
#
#   | name | module | role |
#   | --- | --- | --- |
#   | `w1` | `nn.Linear(dim, hidden_dim, bias=False)` | gate projection |
#   | `w3` | `nn.Linear(dim, hidden_dim, bias=False)` | up projection |
#   | `w2` | `nn.Linear(hidden_dim, dim, bias=False)` | down projection |
#
#   so the state dict holds `w1.weight` `(hidden_dim, dim)`, `w2.weight` `(dim, hidden_dim)`,
#   `w3.weight` `(hidden_dim, dim)` and nothing else. Their initial values are not graded (every
#   case loads its own weights); their shapes are, including the default width.
# - The function, for `x` of shape `(..., dim)` (1-D to 4-D, possibly non-contiguous), float32 or
#   float64, returning `(..., dim)` in the same dtype, without modifying `x`:
#
#   $$y = w_2\big(\mathrm{act}(w_1(x)) \odot w_3(x)\big)$$
#
#   The module has no dropout and no other state: train and eval mode compute the same thing, on
#   every call, with whatever values the parameters hold at that call.
#
# Outputs and the gradients with respect to `x` and the three weights are compared.
#
# ## Not allowed
#
# Nothing is banned: `nn.Linear`, `F.linear`, `F.silu`, `F.gelu`, `F.relu` are fine. The starter
# imports `torch.nn.functional as F` and `math` for you.
#
# ## How it is graded
#
# The server grades `llama_hidden_dim` through the module: cases built with `hidden_dim=None`
# (the default width, `multiple_of` of 7, 8, 32 and 64, multipliers 0.5 and 1.5, and a width that
# already is a multiple) load weights of the rule's shape, so a wrong width fails with the sizing
# mistake named. Check the published sizes (LLaMA-7B, 13B, 33B, Llama 2 70B, Llama 3 8B) yourself
# with the examples above. Each case builds `GLUFFN` with its arguments, loads the weights, and
# calls it one to three times in train and eval mode with a parameter update between calls, most
# calls with a backward pass: all three activations, large inputs (`8 * N(0,1)`, where GELU's
# approximations show), `hidden_dim` of 1 and smaller than `dim`, `dim` up to 300, 1-D to 4-D
# inputs, a leading dimension of 1, a transposed input, float32 and float64. An unknown
# `activation` (a near-miss such as `"swiglu"` or `"SiLU"`) must raise `ValueError` in the
# constructor: one case checks it.
#
# **Also, as for every exercise:** three calls in a row with fresh data of one shape, then an update and two more calls (code that caches what it computed, or changes from its third call on, fails); float64 cases are compared at float64's own precision: computing float64 input in float32 fails.
#
# ## Pitfalls interviewers look for
#
# - **Which branch is gated.** The activation goes on `w1` only; `w3` stays linear; not on the
#   product either.
# - **Swish is not the sigmoid.** `sigmoid(w1(x)) * w3(x)` is the original GLU; Swish multiplies
#   the sigmoid by its input.
# - **A name falling through.** `F.silu if activation == "swish" else F.relu` makes `"gelu"`
#   ReGLU. Map each name, reject the rest.
# - **Exact GELU.** T5 v1.1's gated-GELU used the tanh approximation; here `"gelu"` is exact.
# - **Rounding up, once.** `multiple_of * (hidden // multiple_of + 1)` bumps a width that is
#   already a multiple; `multiple_of * (hidden // multiple_of)` rounds down (4096 -> 10752).
# - **Order of the multiplier.** Scale the 2/3 width, then round; scaling after rounding leaves a
#   width that is not a multiple.
# - **A fused weight, cached.** Concatenating `w1` and `w3` into one matrix is a fine
#   optimisation; caching the concatenation across calls is not, because the parameters change
#   after every optimiser step.
#
# ## Why it works
#
# Every hidden unit computes a linear feature `w3_i . x` and scales it by a gate
# `act(w1_i . x)` computed from the same token. The product of two projections can represent
# multiplicative interactions between input features that one activated projection of the same
# width cannot, and the gate's smooth shape (SiLU, GELU) keeps gradients flowing for slightly
# negative pre-activations where ReLU would be flat. Shazeer ("GLU Variants Improve Transformer",
# 2020) compared the variants at equal parameters and compute and found GeGLU and SwiGLU best,
# without claiming to know why; "more expressive gating" is a description, not a proof. The 2/3
# factor keeps that comparison fair: three `dim x (8/3 dim)` matrices hold as many weights as two
# `dim x 4 dim` ones. Rounding to a multiple of 256 (or 1024, 4096 for tensor-parallel shards)
# keeps matmul tiles full on the hardware; Llama 2 70B and Llama 3 add `ffn_dim_multiplier` to
# widen the FFN without breaking the rule.
#
# ## Interviewer follow-ups
#
# The questions an interviewer asks once this runs are served with the exercise (the
# `follow_ups` field of `GET /exercises/glu_ffn`) and listed at the end of its notebook, each linked
# to the question-bank item that answers it.
#
# Among them (`followups.yaml`): LLaMA's hidden size
# (`ffn-llama-hidden-size`), its parameter count (`ffn-llama-ffn-params`), why 8/3
# (`ffn-swiglu-matched-width`, `ffn-matched-swiglu-facts`), what the gate does
# (`act-swiglu-gate`), why SwiGLU works (`act-swiglu-why`, `act-article-swiglu-proven`), Swish's
# properties (`act-swish-properties`) and a colleague's buggy SwiGLU (`ffn-swiglu-gate-bug`).
#
# ## Cost and memory
#
# - **Parameters:** `3 * dim * hidden`; LLaMA-7B's FFN (4096, 11008) holds 135,266,304 weights
#   per layer, about two thirds of the layer.
# - **FLOPs:** `6 * dim * hidden` per token forward (three matmuls), the same as a classic FFN of
#   width `1.5 * hidden`; the gate and the product add a few FLOPs per hidden unit.
# - **Activations kept for backward:** `w1(x)`, its activation, `w3(x)` and the product (what
#   `w2` needs): four `(..., hidden)` tensors against one to two for a ReLU FFN, which is why
#   fused SwiGLU kernels recompute the activation in backward.
# - `w1` and `w3` read the same input: storing them as one `(2 * hidden, dim)` matrix makes one
#   larger matmul instead of two.
#
# ## Test yourself
#
# - **Count the shapes** of Llama 3 8B's FFN from `llama_hidden_dim(4096, 1024, 1.3)` and its
#   parameters per layer; compare with the classic FFN at `4 * dim`.
# - **Fuse it:** keep `w1`, `w3` as they are but compute `F.linear(x, torch.cat([w1.weight,
#   w3.weight])).chunk(2, -1)`; check it against your module after changing the weights in place.
# - **Gate statistics:** on random inputs, measure the fraction of hidden units whose gate is
#   below 0.01 in absolute value, for each of the three activations. Which one is sparsest?
#
# ## Background
#
# The article "FFN, Residual Addition, LN" lists the claimed benefits of gating in its section
# "SwiGLU" and defines the Swish and GELU gates in "Swish" and "GELU"; its claim that SwiGLU's
# advantage is proven is discussed in the question bank (`act-article-swiglu-proven`). The article
# "Transformer残差连接与归一化层实现详解" reports its own comparison of other FFN variants (grouped,
# depthwise-separable, dynamic-convolution; none of them gated) in "3.3 替代结构实验". The sizing rule
# comes from Meta's LLaMA reference code (`FeedForward`, `multiple_of`, `ffn_dim_multiplier`).

# %% [markdown]
# <details><summary>中文说明</summary>
#
# # GLU 家族：一个模块写出 SwiGLU、GeGLU、ReGLU，外加 LLaMA 的宽度规则
#
# 经典 FFN 把每个 token 升维、过一次激活、再降维。门控线性单元（GLU）式的 FFN 则对同一个 token
# 做两次投影：一路叫**门控**（gate），先过激活函数，再逐元素地乘上另一路**升维**（up）投影，最后
# 经过**降维**（down）投影。门控用什么函数就决定了变体的名字：Swish/SiLU 是 SwiGLU（Llama、
# Mistral、PaLM），GELU 是 GeGLU，ReLU 是 ReGLU。因为权重矩阵变成了三个，LLaMA 把隐藏宽度缩到
# 经典 `4 * dim` 的三分之二，再取整到对硬件友好的倍数：这就是 `llama_hidden_dim`，也是 LLaMA-7B
# 的 FFN 宽 11008 的由来。
#
# ## 要写什么
#
# ```python
# def llama_hidden_dim(
#     dim: int, multiple_of: int = 256, ffn_dim_multiplier: float | None = None
# ) -> int: ...
#
#
# class GLUFFN(nn.Module):
#     def __init__(
#         self,
#         dim: int,
#         hidden_dim: int | None = None,
#         activation: str = "swish",
#         multiple_of: int = 256,
#         ffn_dim_multiplier: float | None = None,
#     ) -> None: ...
#     def forward(self, x: torch.Tensor) -> torch.Tensor: ...
# ```
#
# - `llama_hidden_dim` 返回 Python 的 `int`，算法与 Meta 的 LLaMA 代码一致：
#
#   $$\begin{aligned}
#   \mathrm{hidden} &= \left\lfloor \frac{2 \cdot (4 \cdot \mathrm{dim})}{3} \right\rfloor \qquad \text{截断取整}\\
#   \mathrm{hidden} &= \left\lfloor \mathrm{ffn\_dim\_multiplier} \cdot \mathrm{hidden} \right\rfloor \qquad \text{再截断一次（ffn\_dim\_multiplier 不为 None 时）}\\
#   \mathrm{hidden} &= \mathrm{multiple\_of} \cdot \left\lceil \frac{\mathrm{hidden}}{\mathrm{multiple\_of}} \right\rceil \qquad \text{不小于 hidden 的最小的 multiple\_of 的倍数}
#   \end{aligned}$$
#
#   `llama_hidden_dim(4096) == 11008`，`llama_hidden_dim(8192, 4096, 1.3) == 28672`（Llama 2
#   70B），`llama_hidden_dim(96) == 256`（本来就是倍数，不再加一档）。
# - `GLUFFN`：给了 `hidden_dim` 就照用；为 `None` 时宽度取
#   `llama_hidden_dim(dim, multiple_of, ffn_dim_multiplier)`。`activation` 取 `"swish"`（SiLU，
#   `z * sigmoid(z)`）、`"gelu"`（精确 GELU，`z * Phi(z)`）或 `"relu"`；其他取值在构造函数里抛出
#   `ValueError`。
# - 三个不带 bias 的线性层，名称必须如下：
#
#   | 名称 | 模块 | 作用 |
#   | --- | --- | --- |
#   | `w1` | `nn.Linear(dim, hidden_dim, bias=False)` | 门控投影 |
#   | `w3` | `nn.Linear(dim, hidden_dim, bias=False)` | 升维投影 |
#   | `w2` | `nn.Linear(hidden_dim, dim, bias=False)` | 降维投影 |
#
#   所以 state dict 里只有 `w1.weight` `(hidden_dim, dim)`、`w2.weight` `(dim, hidden_dim)`、
#   `w3.weight` `(hidden_dim, dim)`。初始值不参与评测（每个用例都会加载自己的权重），形状要评测，
#   默认宽度也在内。
# - 计算公式：`x` 的形状为 `(..., dim)`（1 维到 4 维，可能是非连续张量），dtype 为 float32 或
#   float64，返回形状 `(..., dim)`、dtype 相同的结果，不要修改 `x`：
#
#   $$y = w_2\big(\mathrm{act}(w_1(x)) \odot w_3(x)\big)$$
#
#   模块没有 dropout，也没有其他状态：train 和 eval 模式算的是同一个东西，每次调用都用参数在那一刻
#   的值。
#
# 评测比较输出，以及对 `x` 和三个权重的梯度。
#
# ## 不允许使用
#
# 没有禁用项：`nn.Linear`、`F.linear`、`F.silu`、`F.gelu`、`F.relu` 都可以用。起始代码已经替你
# 导入了 `torch.nn.functional as F` 和 `math`。
#
# ## 如何评测
#
# 服务器通过模块来评测 `llama_hidden_dim`：有些用例以 `hidden_dim=None` 构建（默认宽度，
# `multiple_of` 取 7、8、32、64，系数 0.5 和 1.5，以及宽度本来就是倍数的情况），加载的权重形状按规则
# 计算，宽度算错就会失败，并指出是哪种取整错误。公开的模型尺寸（LLaMA-7B、13B、33B，Llama 2 70B，
# Llama 3 8B）请用上面的例子自己核对。每个用例按用例参数构建 `GLUFFN`，加载权重，在 train 和 eval
# 模式下调用一到三次，两次调用之间更新一次参数，多数调用会做反向传播：三种激活函数都有，较大的输入
# （`8 * N(0,1)`，GELU 的近似式在这里露馅），`hidden_dim` 为 1 以及比 `dim` 小的情况，`dim` 最大
# 到 300，1 维到 4 维输入，首维为 1，转置后的输入，float32 和 float64。未知的 `activation`（比如
# `"swiglu"`、`"SiLU"` 这类差一点就对的名字）要在构造函数里抛出 `ValueError`：有一个场景专门检查这一条。
#
# **和每道题一样，还有：**同一形状、新数据连续调用三次，再更新参数后调用两次（缓存结果、或从第三次调用起行为改变的代码会判错）；float64 用例按 float64 自身的精度比较：把 float64 输入放到 float32 里计算会判错。
#
# ## 面试官会盯的坑
#
# - **门控加在哪一路。** 激活函数只作用在 `w1` 上；`w3` 保持线性；也不是作用在乘积上。
# - **Swish 不是 sigmoid。** `sigmoid(w1(x)) * w3(x)` 是最初的 GLU；Swish 要把 sigmoid 再乘上它
#   的输入。
# - **名字漏到别的分支。** `F.silu if activation == "swish" else F.relu` 会让 `"gelu"` 变成
#   ReGLU。每个名字逐一映射，其余一律拒绝。
# - **精确 GELU。** T5 v1.1 的 gated-GELU 用的是 tanh 近似；这里的 `"gelu"` 是精确式。
# - **向上取整，只取一次。** `multiple_of * (hidden // multiple_of + 1)` 会让本来就是倍数的宽度
#   多加一档；`multiple_of * (hidden // multiple_of)` 则是向下取整（4096 -> 10752）。
# - **系数的先后。** 先乘 2/3 宽度，再取整；取整之后再乘，宽度就不再是倍数了。
# - **缓存融合权重。** 把 `w1` 和 `w3` 拼成一个矩阵是正当的优化；但把拼好的矩阵跨调用缓存起来就错
#   了，因为每次优化器更新后参数都会变。
#
# ## 为什么有效
#
# 每个隐藏单元先算一个线性特征 `w3_i . x`，再乘上由同一个 token 算出的门控 `act(w1_i . x)`。两个
# 投影相乘，能表示输入特征之间的乘性交互，同样宽度下只过一次激活的投影做不到这一点；SiLU、GELU
# 这类平滑门控在预激活略小于零时仍有梯度，而 ReLU 在那里是平的。Shazeer 在《GLU Variants Improve
# Transformer》（2020）里在参数量和计算量相同的条件下比较了各个变体，发现 GeGLU 和 SwiGLU 最好，
# 但并没有声称知道原因；“门控表达能力更强”只是描述，不是证明。2/3 这个系数保证了比较的公平：三个
# `dim x (8/3 dim)` 矩阵的权重数，和两个 `dim x 4 dim` 矩阵一样多。取整到 256 的倍数（张量并行切分
# 时是 1024、4096）能让硬件上的矩阵乘分块填满；Llama 2 70B 和 Llama 3 又加了 `ffn_dim_multiplier`，
# 在不破坏这条规则的前提下把 FFN 加宽。
#
# ## 面试官的追问
#
# 代码跑通之后面试官会接着问的问题随练习一起提供（`GET /exercises/glu_ffn` 返回的 `follow_ups` 字段），
# 也列在对应 notebook 的末尾，每个问题都链接到题库中给出答案的那道题。
#
# 其中有（`followups.yaml`）：LLaMA 的隐藏宽度
# （`ffn-llama-hidden-size`）、参数量（`ffn-llama-ffn-params`）、为什么是 8/3
# （`ffn-swiglu-matched-width`、`ffn-matched-swiglu-facts`）、门控做了什么（`act-swiglu-gate`）、
# SwiGLU 为什么有效（`act-swiglu-why`、`act-article-swiglu-proven`）、Swish 的性质
# （`act-swish-properties`），以及同事写错的 SwiGLU（`ffn-swiglu-gate-bug`）。
#
# ## 计算量与显存
#
# - **参数量：** `3 * dim * hidden`；LLaMA-7B 的 FFN（4096，11008）每层有 135,266,304 个权重，约占
#   整层的三分之二。
# - **FLOPs：** 每个 token 前向 `6 * dim * hidden`（三次矩阵乘），相当于宽度为 `1.5 * hidden` 的
#   经典 FFN；门控和逐元素乘积在每个隐藏单元上只多几次运算。
# - **为反向保存的激活：** `w1(x)`、它的激活值、`w3(x)`，以及 `w2` 需要的乘积：四个
#   `(..., hidden)` 张量，ReLU FFN 只要一到两个。这也是融合版 SwiGLU 算子在反向时重算激活的原因。
# - `w1` 和 `w3` 读的是同一个输入：把它们存成一个 `(2 * hidden, dim)` 矩阵，两次矩阵乘就变成一次
#   更大的矩阵乘。
#
# ## 自我检验
#
# - **算形状：** 用 `llama_hidden_dim(4096, 1024, 1.3)` 算出 Llama 3 8B 的 FFN 宽度和每层参数量，
#   再和 `4 * dim` 的经典 FFN 比一比。
# - **融合投影：** `w1`、`w3` 不动，改用 `F.linear(x, torch.cat([w1.weight, w3.weight])).chunk(2, -1)`
#   计算；原地修改权重之后，再和你的模块对一对结果。
# - **门控统计：** 在随机输入上，分别统计三种激活函数下门控绝对值小于 0.01 的隐藏单元比例。哪一种
#   最稀疏？
#
# ## 背景
#
# 文章《FFN, Residual Addition, LN》在“SwiGLU”一节列出了门控被认为带来的好处，在“Swish”和
# “GELU”两节给出了这两种门控函数的定义；文中“SwiGLU 的优势已被证明”的说法，题库里有专门讨论
# （`act-article-swiglu-proven`）。文章《Transformer残差连接与归一化层实现详解》在“3.3 替代结构实验”
# 一节给出了作者自己对其他几种 FFN 变体（分组、深度可分离、动态卷积，都不带门控）的对比。宽度规则出自 Meta 的 LLaMA 参考代码（`FeedForward`、`multiple_of`、
# `ffn_dim_multiplier`）。
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
#    `# addnorm: exercise glu_ffn`: the submit cell sends the last *executed* cell that starts with it.
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
# 2. 在下面的练习单元格里写好你的类并运行。第一行 `# addnorm: exercise glu_ffn` 不要删：提交单元格发送的是
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
# addnorm: exercise glu_ffn
import math  # noqa: F401  (math.sqrt, math.ceil: yours to use)

import torch
import torch.nn.functional as F  # noqa: F401  (F.silu, F.gelu, F.relu: yours to use)
from torch import nn


def llama_hidden_dim(
    dim: int, multiple_of: int = 256, ffn_dim_multiplier: float | None = None
) -> int:
    # 2/3 of 4 * dim (truncated), times ffn_dim_multiplier if given (truncated), rounded up to a
    # multiple of multiple_of. llama_hidden_dim(4096) == 11008.
    raise NotImplementedError("implement llama_hidden_dim")


class GLUFFN(nn.Module):
    def __init__(
        self,
        dim: int,
        hidden_dim: int | None = None,
        activation: str = "swish",
        multiple_of: int = 256,
        ffn_dim_multiplier: float | None = None,
    ) -> None:
        super().__init__()
        if hidden_dim is None:
            hidden_dim = llama_hidden_dim(dim, multiple_of, ffn_dim_multiplier)
        # The grader loads w1.weight, w2.weight and w3.weight: keep these names and shapes.
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)  # gate
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)  # down
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)  # up
        # Yours: the gate function for activation "swish" | "gelu" | "relu" (ValueError
        # otherwise).

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # x: (..., dim) -> w2(act(w1(x)) * w3(x)) -> (..., dim)
        raise NotImplementedError("implement GLUFFN.forward")


# %% [markdown]
# ## Quick local check
#
# Runs your exercise cell again on its own, in a fresh namespace, as the server does, then
# compares a few public cases, forward pass only, with a reference in this kernel. It is a sanity
# check and **does not replace the server's verdict**, which runs many more shapes and dtypes,
# the backward pass and the known-mistake diagnosis.
#
# Reference: The formula `w2(act(w1(x)) * w3(x))` for the three gates, with random weights.
#
# <details><summary>中文</summary>
#
# ## 本地快速检查
#
# 和服务器一样，把你的练习单元格单独放进全新的命名空间重新执行，再用几个公开用例（只做前向）
# 在当前 kernel 里与参考实现对比。这只是一次自检，**不能代替服务器的评测**：服务器会覆盖多得多的
# 形状和 dtype，还会检查反向传播并诊断已知错误。
#
# 参考实现：公式 `w2(act(w1(x)) * w3(x))`，三种门控，权重取随机值。
#
# </details>

# %%
from collections.abc import Callable

import torch
import torch.nn.functional as F

from addnorm_client.local import LocalCase

GATES: dict[str, Callable[..., torch.Tensor]] = {"swish": F.silu, "gelu": F.gelu, "relu": F.relu}


def local_cases() -> list[LocalCase]:
    g = torch.Generator().manual_seed(0)

    def case(name: str, shape: tuple[int, ...], hidden: int, activation: str) -> LocalCase:
        dim = shape[-1]
        x = torch.randn(shape, generator=g)
        # Scaled by 1/sqrt(fan_in) so the activations stay around unit size.
        w1 = torch.randn(hidden, dim, generator=g) / dim**0.5  # (hidden, dim)
        w3 = torch.randn(hidden, dim, generator=g) / dim**0.5  # (hidden, dim)
        w2 = torch.randn(dim, hidden, generator=g) / hidden**0.5  # (dim, hidden)
        gate = GATES[activation](F.linear(x, w1))
        return LocalCase(
            name=name,
            x=x,
            build=lambda cls: cls(dim, hidden, activation),
            state={"w1.weight": w1, "w2.weight": w2, "w3.weight": w3},
            expected=F.linear(gate * F.linear(x, w3), w2),
        )

    return [
        case("SwiGLU, 2-D, dim 8, hidden 16", (4, 8), 16, "swish"),
        case("GeGLU, 3-D, dim 16, hidden 40", (2, 3, 16), 40, "gelu"),
        case("ReGLU, hidden smaller than dim", (3, 12), 5, "relu"),
    ]


from addnorm_client.local import check

check("glu_ffn", "GLUFFN", local_cases())

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

submit_cell("glu_ffn")

# %% [markdown]
# ## Interviewer follow-ups
#
# Once the code runs, an interviewer keeps going. Answer out loud first, then check yourself: each
# question links to an item of the question bank, served and graded by the server
# (`GET /questions/<id>`) and collected by topic in the `questions_<topic>` notebooks.
#
# 1. What hidden size does LLaMA's rule give for dim 4096 and multiple_of 256? (`ffn-llama-hidden-size`, `questions_ffn`)
# 2. How many weights does one LLaMA-7B FFN have? (`ffn-llama-ffn-params`, `questions_ffn`)
# 3. Why 8/3 of dim instead of 4x? (`ffn-swiglu-matched-width`, `questions_ffn`)
# 4. At matched width, what stays the same between a SwiGLU and a ReLU FFN, and what does not? (`ffn-matched-swiglu-facts`, `questions_ffn`)
# 5. What does the gate do to each hidden unit? (`act-swiglu-gate`, `questions_activations`)
# 6. Why does SwiGLU beat a ReLU FFN, according to the paper that introduced it? (`act-swiglu-why`, `questions_activations`)
# 7. Is SwiGLU's advantage proven? (`act-article-swiglu-proven`, `questions_activations`)
# 8. Which properties does Swish have that ReLU lacks? (`act-swish-properties`, `questions_activations`)
# 9. Here is a colleague's SwiGLU. What is wrong with it? (`ffn-swiglu-gate-bug`, `questions_ffn`)
#
# <details><summary>中文</summary>
#
# ## 面试官的追问
#
# 代码跑通之后，面试官还会接着问。先试着口头回答，再去核对：每个问题都对应题库中的一道题，
# 由服务器提供并判分（`GET /questions/<id>`），也按主题收录在 `questions_<topic>` notebook 里。
#
# 1. dim 为 4096、multiple_of 为 256 时，LLaMA 的规则得出的隐藏宽度是多少？ (`ffn-llama-hidden-size`, `questions_ffn`)
# 2. LLaMA-7B 的一个 FFN 有多少个权重？ (`ffn-llama-ffn-params`, `questions_ffn`)
# 3. 为什么取 dim 的 8/3，而不是 4 倍？ (`ffn-swiglu-matched-width`, `questions_ffn`)
# 4. 宽度按参数量对齐后，SwiGLU FFN 和 ReLU FFN 哪些相同、哪些不同？ (`ffn-matched-swiglu-facts`, `questions_ffn`)
# 5. 门控对每个隐藏单元做了什么？ (`act-swiglu-gate`, `questions_activations`)
# 6. 按提出它的论文的说法，SwiGLU 为什么比 ReLU FFN 好？ (`act-swiglu-why`, `questions_activations`)
# 7. SwiGLU 的优势被证明过吗？ (`act-article-swiglu-proven`, `questions_activations`)
# 8. Swish 有哪些 ReLU 没有的性质？ (`act-swish-properties`, `questions_activations`)
# 9. 这是同事写的 SwiGLU，哪里错了？ (`ffn-swiglu-gate-bug`, `questions_ffn`)
#
# </details>
