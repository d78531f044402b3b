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
# # Where the norm goes: pre, post, sandwich and DeepNorm
#
# **topic:** norm_placement · **difficulty:** medium
#
# A Transformer layer is two residual blocks, each `x + f(x)` with a normalisation somewhere. Where
# that norm sits decides whether the residual stream is ever normalised, how large each layer's
# update is next to the stream, and so whether a deep stack trains at all. Write one block that
# takes the sublayer `f` it wraps and places its LayerNorm in any of the four ways used in
# practice.
#
# ## What to write
#
# ```python
# class NormBlock(nn.Module):
#     def __init__(
#         self, dim: int, sublayer: nn.Module, placement: str = "pre", alpha: float = 1.0
#     ) -> None: ...
#     def forward(self, x: torch.Tensor) -> torch.Tensor: ...
# ```
#
# - `x` has shape `(..., dim)` (1-D to 4-D), float32 or float64; it may be a non-contiguous view.
#   Return a tensor of the same shape and dtype. `sublayer` maps `(..., dim)` to `(..., dim)`.
# - `placement` and what `forward` computes, with `f = self.sublayer`:
#
#   | placement | output | norms (each `nn.LayerNorm(dim)`, eps 1e-5) |
#   | --- | --- | --- |
#   | `"pre"` (default) | $x + f(\mathrm{norm}(x))$ | `self.norm` |
#   | `"post"` | $\mathrm{norm}(x + f(x))$ | `self.norm` |
#   | `"sandwich"` | $x + \mathrm{norm\_out}(f(\mathrm{norm\_in}(x)))$ | `self.norm_in`, `self.norm_out` |
#   | `"deepnorm"` | $\mathrm{norm}(\alpha \cdot x + f(x))$ | `self.norm` |
#
#   `alpha` is used by `"deepnorm"` only. Any other `placement` (a typo, another case such as
#   `"Pre"`) raises `ValueError` in `__init__`.
# - Attribute names are part of the contract: the grader loads and compares `norm.weight`,
#   `norm.bias` (or `norm_in.*` and `norm_out.*` for the sandwich) and `sublayer.*`. A sandwich
#   block has no `self.norm`; the other placements have no `norm_in` or `norm_out`.
# - The sublayer belongs to the caller: store it as given (`self.sublayer = sublayer`), never
#   re-initialise it, call it **exactly once** per forward (it may draw its own dropout in train
#   mode), and let its parameters train.
#
# ## How it is graded
#
# Each submission runs freshly drawn scenarios: every placement with a `Linear`, a small GELU MLP,
# a sublayer fixed at zero, or an MLP with its own dropout (train mode, seeded, so a second call
# of `f` draws different numbers); DeepNorm with alpha from DeepNet's `(2N)^(1/4)` for stacks of
# 6 to 500 layers; inputs of 1 to 4 dims, a transposed view, a feature size of 200 or 300, a
# small-variance input (the norm's eps matters), a batch of one after an optimiser-like update,
# and the module's own initialisation with the sublayer as given. Outputs, the gradients of `x`
# and of every parameter, and the calls to the sublayer are compared at every step. Two cases
# build the block with an unknown `placement` and expect `ValueError`.
#
# **Also, as for every exercise:** three calls in a row with fresh data of one shape, then an update and two more calls (code that caches what it computed, or changes from its third call on, fails); for each value of each constructor option, a call with the given module as given, at its default initialisation (re-initialising or copying it under one option fails); float64 cases are compared at float64's own precision: computing float64 input in float32 fails.
#
# ## Pitfalls interviewers look for
#
# - **Which is which.** Pre-norm normalises the branch's *input* and leaves the stream alone;
#   post-norm normalises the *sum*. Swapping them is the classic slip.
# - **x is added to the branch's output.** `f(norm(x) + x)` sends the skip through the sublayer:
#   the block keeps no identity path.
# - **DeepNorm's alpha goes on x.** `norm(alpha * x + f(x))`: the residual is up-weighted so each
#   layer's update is small next to it. `norm(x + alpha * f(x))` does the opposite.
# - **The sandwich's second norm** wraps `f`'s output only, before the add. Wrapping the sum turns
#   it into post-norm with an extra norm; leaving it out is pre-norm.
# - **One call of the sublayer.** Computing `f(x)` again (for logging, in another branch) doubles
#   the cost and, with dropout inside `f`, adds a different sample.
# - **Validate in `__init__`.** An unknown placement that silently becomes pre-norm trains the
#   wrong model; `assert` raises the wrong type and disappears under `python -O`.
#
# ## Why it works
#
# With pre-norm the stream `x` reaches the output through additions only, so the gradient has a
# path of identity Jacobians from the loss to every layer: deep stacks train stably with at most
# a short warm-up (Xiong et al. 2020 trained theirs without one; LLaMA still warms up for 2,000
# steps), at the price of later layers adding ever smaller relative updates. Post-norm normalises
# the stream at every layer, which keeps its scale fixed (the article's "stronger regularisation"
# is asserted, not shown), but the
# gradient through many norms is badly scaled at initialisation, hence warm-up. Sandwich-LN keeps
# pre-norm's clean path and also bounds what each branch adds, against values that blow up in
# very large models. DeepNorm keeps post-norm and makes it trainable at depth: with `alpha > 1`
# (and smaller initial weights in `f`) each update changes the normalised sum by a bounded amount.
#
# ## Interviewer follow-ups
#
# The questions an interviewer asks once this runs are served with the exercise (the
# `follow_ups` field of `GET /exercises/norm_block`) and listed at the end of its notebook, each
# linked to the question-bank item that answers it: the two formulas (`np-formulas`), which
# placement needs warm-up (`np-warmup-which`), where the sandwich's second norm goes
# (`np-sandwich-formula`), what DeepNorm changes (`np-deepnorm`) and its alpha for 64 layers
# (`np-deepnorm-alpha`), pre-norm's effective depth (`np-effective-depth`) and the final norm of
# pre-norm models (`np-final-norm`).
#
# ## Cost and memory
#
# - **Parameters:** `2 * dim` for one norm (`4 * dim` for the sandwich) plus the sublayer's.
# - **FLOPs:** a LayerNorm is about eight operations per element, tiny next to a sublayer's
#   matmuls; the sandwich pays for two. DeepNorm's `alpha * x` is one more multiply.
# - **Memory:** backward keeps the norm's input (or its normalised output) and `(rows,)`
#   statistics per norm, plus what the sublayer keeps. Calling the sublayer twice doubles both its
#   compute and what it saves for backward.
#
# ## Test yourself
#
# - Stack 24 blocks of each placement around random `Linear` sublayers and print the gradient norm
#   reaching the first layer's input; repeat with 96 blocks.
# - Measure the standard deviation of the stream after each block for pre-norm: why does it grow,
#   and why does a pre-norm model need a final norm?
# - Add DeepNet's initialisation: scale the sublayer's weights by `beta = (8N)^(-1/4)` at
#   construction, as an option the caller turns on (the contract here forbids doing it by
#   default: the sublayer is the caller's).
# - Replace LayerNorm by RMSNorm in all four placements.
#
# ## Background
#
# The article "FFN, Residual Addition, LN", section "2.3 Pre-Norm & Post-Norm", compares the two
# classic placements: post-norm's sensitivity to initialisation and learning rate, which is well
# documented, against a stronger regularisation and higher ceiling that it asserts without
# evidence; and pre-norm's clean residual path, with the view that pre-norm's "effective depth" is
# smaller. It says pre-norm's slow start calls for warm-up, which reverses what Xiong et al. 2020
# found: post-norm is the placement that needs it (`np-warmup-which`).
# The article "Transformer残差连接与归一化层实现详解", section "2.3 归一化层的位置争议", adds
# Sandwich-LN (norms before and after) to the comparison of stability, accuracy and convergence
# speed. DeepNorm is not in the material: it comes from Wang et al. 2022, "DeepNet: Scaling
# Transformers to 1,000 Layers"; Sandwich-LN from Ding et al. 2021, "CogView".

# %% [markdown]
# <details><summary>中文说明</summary>
#
# # 归一化放在哪里：Pre、Post、Sandwich 与 DeepNorm
#
# 一个 Transformer 层由两个残差块组成，每个都是 `x + f(x)`，再在某处加一个归一化。归一化放在哪，
# 决定了残差流本身会不会被归一化、每层的更新相对于残差流有多大，也就决定了一个很深的堆叠能不能训得
# 起来。请写一个残差块：它接收要包裹的子层 `f`，并能按实践中用到的四种方式之一放置 LayerNorm。
#
# ## 要写什么
#
# ```python
# class NormBlock(nn.Module):
#     def __init__(
#         self, dim: int, sublayer: nn.Module, placement: str = "pre", alpha: float = 1.0
#     ) -> None: ...
#     def forward(self, x: torch.Tensor) -> torch.Tensor: ...
# ```
#
# - `x` 的形状为 `(..., dim)`（一到四维），dtype 为 float32 或 float64，可能是不连续的视图。
#   返回形状和 dtype 都与 `x` 相同的张量。`sublayer` 把 `(..., dim)` 映射到 `(..., dim)`。
# - `placement` 的取值以及 `forward` 的计算，记 `f = self.sublayer`：
#
#   | placement | 输出 | 归一化层（都是 `nn.LayerNorm(dim)`，eps 1e-5） |
#   | --- | --- | --- |
#   | `"pre"`（默认） | $x + f(\mathrm{norm}(x))$ | `self.norm` |
#   | `"post"` | $\mathrm{norm}(x + f(x))$ | `self.norm` |
#   | `"sandwich"` | $x + \mathrm{norm\_out}(f(\mathrm{norm\_in}(x)))$ | `self.norm_in`、`self.norm_out` |
#   | `"deepnorm"` | $\mathrm{norm}(\alpha \cdot x + f(x))$ | `self.norm` |
#
#   `alpha` 只在 `"deepnorm"` 时使用。其他任何 `placement`（拼写错误，或者大小写不同，比如
#   `"Pre"`）都要在 `__init__` 里抛出 `ValueError`。
# - 属性名是约定的一部分：评测会载入并比较 `norm.weight`、`norm.bias`（sandwich 则是 `norm_in.*`
#   和 `norm_out.*`）以及 `sublayer.*`。sandwich 的模块没有 `self.norm`，其余三种没有 `norm_in`
#   和 `norm_out`。
# - 子层属于调用方：原样保存（`self.sublayer = sublayer`），不要重新初始化；每次 forward **只调用
#   一次**（训练模式下它可能自带 dropout），并让它的参数参与训练。
#
# ## 如何评测
#
# 每次提交都会现场生成若干场景：四种放置方式，子层分别是 `Linear`、带 GELU 的小 MLP、恒为零的
# 子层，以及自带 dropout 的 MLP（训练模式，固定随机种子，所以第二次调用 `f` 会抽到不同的随机数）；
# DeepNorm 的 alpha 按 DeepNet 的 `(2N)^(1/4)` 取 6 到 500 层的值；输入为一到四维，包括转置后的
# 视图、200 或 300 的特征维、方差很小的输入（此时归一化的 eps 起作用）、一次类似优化器的参数更新之后
# batch 为 1 的调用，以及原样保留子层的默认初始化。每一步都比较输出、对 `x` 和每个参数的梯度，以及
# 子层被调用的次数。另有两个场景用未知的 `placement` 构造模块，要求抛出 `ValueError`。
#
# **和每道题一样，还有：**同一形状、新数据连续调用三次，再更新参数后调用两次（缓存结果、或从第三次调用起行为改变的代码会判错）；每个构造选项的每个取值下，传入的模块都保持原样、用默认初始化运行一次（只在某个选项下重新初始化或复制它的代码会判错）；float64 用例按 float64 自身的精度比较：把 float64 输入放到 float32 里计算会判错。
#
# ## 面试官会盯的坑
#
# - **分清谁是谁。** Pre-Norm 归一化的是分支的**输入**，残差流不动；Post-Norm 归一化的是
#   **和**。把两者写反是最常见的失误。
# - **x 加在分支的输出上。** 写成 `f(norm(x) + x)`，跳连就穿过了子层：模块里不再有恒等通路。
# - **DeepNorm 的 alpha 乘在 x 上。** `norm(alpha * x + f(x))`：放大残差，让每层的更新相对它而言
#   很小。写成 `norm(x + alpha * f(x))` 效果正好相反。
# - **Sandwich 的第二个归一化**只包住 `f` 的输出，位于相加之前。包住整个和就成了多一层归一化的
#   Post-Norm；干脆不加就是 Pre-Norm。
# - **子层只调用一次。** 再算一遍 `f(x)`（为了打日志，或者在另一个分支里）会让计算量翻倍；`f`
#   里有 dropout 时，还会多加进一份不同的随机样本。
# - **在 `__init__` 里校验。** 未知的 placement 悄悄变成 Pre-Norm，模型就会带着错误的结构训练；
#   用 `assert` 抛出的异常类型不对，而且在 `python -O` 下直接消失。
#
# ## 为什么有效
#
# Pre-Norm 下，残差流 `x` 只经过加法就到达输出，所以从损失到每一层都有一条雅可比矩阵为单位阵的
# 梯度通路：很深的堆叠也能稳定训练，至多需要一小段预热（Xiong 等人 2020 年的实验完全没有预热；LLaMA
# 仍预热了 2,000 步），代价是靠后的层加进去的相对更新越来越小。Post-Norm
# 在每一层都对残差流做归一化，尺度保持不变（文章说的“正则化更强”只是断言，并无证据），但初始化时穿过许多归一化层的梯度尺度
# 很差，因此需要预热。Sandwich-LN 保留了 Pre-Norm 干净的通路，同时限制每个分支加进去的量，用来
# 对付超大模型里数值爆炸的问题。DeepNorm 保留 Post-Norm，并让它在很深时也能训练：`alpha > 1`
# （再配合更小的 `f` 初始权重）使每次更新对归一化之后的和只产生有界的影响。
#
# ## 面试官的追问
#
# 代码跑通之后面试官会接着问的问题随练习一起提供（`GET /exercises/norm_block` 返回的
# `follow_ups` 字段），也列在对应 notebook 的末尾，每个问题都链接到题库中给出答案的那道题：两个
# 公式（`np-formulas`）、哪种放置方式需要预热（`np-warmup-which`）、sandwich 的第二个归一化放在
# 哪里（`np-sandwich-formula`）、DeepNorm 改了什么（`np-deepnorm`）以及 64 层时 alpha 取多少
# （`np-deepnorm-alpha`）、Pre-Norm 的有效深度（`np-effective-depth`），以及 Pre-Norm 模型末尾
# 的那个归一化（`np-final-norm`）。
#
# ## 计算量与显存
#
# - **参数量：** 一个归一化层 `2 * dim`（sandwich 为 `4 * dim`），再加上子层自己的参数。
# - **FLOPs：** LayerNorm 每个元素约八次运算，和子层的矩阵乘法相比微不足道；sandwich 要算两次。
#   DeepNorm 的 `alpha * x` 只多一次乘法。
# - **显存：** 反向传播时每个归一化层要保留它的输入（或归一化后的输出）以及 `(rows,)` 形状的统计量，
#   另加子层自己保留的张量。把子层调用两次，它的计算量和为反向保留的显存都会翻倍。
#
# ## 自我检验
#
# - 用随机的 `Linear` 子层把每种放置方式各堆 24 个块，打印到达第一层输入的梯度范数；再用 96 个块
#   重复一遍。
# - 对 Pre-Norm 测量每个块之后残差流的标准差：它为什么会增长？Pre-Norm 模型为什么需要最后那个
#   归一化？
# - 加上 DeepNet 的初始化：构造时把子层权重乘以 `beta = (8N)^(-1/4)`，作为调用方可以打开的选项
#   （本题的约定不允许默认这样做，因为子层属于调用方）。
# - 在四种放置方式里都把 LayerNorm 换成 RMSNorm。
#
# ## 背景
#
# 文章《FFN, Residual Addition, LN》的“2.3 Pre-Norm & Post-Norm”一节比较了两种经典放置方式：
# Post-Norm 对初始化和学习率很敏感，这一点有充分的记录；它说 Post-Norm 正则化更强、上限更高，却没有给出证据。
# Pre-Norm 残差通路干净，并且有观点认为它的“有效深度”更小。文章说 Pre-Norm 起步慢、需要预热，
# 这与 Xiong 等人 2020 年的结论正好说反了：需要预热的是 Post-Norm（`np-warmup-which`）。文章《Transformer残差连接与归一化层实现详解》的
# “2.3 归一化层的位置争议”一节把 Sandwich-LN（前后都加归一化）也放进了稳定性、准确率和收敛速度的
# 对比。DeepNorm 不在这些材料里，它出自 Wang 等人 2022 年的 “DeepNet: Scaling Transformers to
# 1,000 Layers”；Sandwich-LN 出自 Ding 等人 2021 年的 “CogView”。
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
#    `# addnorm: exercise norm_block`: the submit cell sends the last *executed* cell that starts with it.
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
# 2. 在下面的练习单元格里写好你的类并运行。第一行 `# addnorm: exercise norm_block` 不要删：提交单元格发送的是
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
# addnorm: exercise norm_block
import torch
from torch import nn


class NormBlock(nn.Module):
    def __init__(
        self, dim: int, sublayer: nn.Module, placement: str = "pre", alpha: float = 1.0
    ) -> None:
        super().__init__()
        # The grader loads and compares these names: keep them. An unknown placement must
        # raise ValueError here.
        self.placement = placement
        self.alpha = alpha
        self.sublayer = sublayer
        if placement == "sandwich":
            self.norm_in = nn.LayerNorm(dim)
            self.norm_out = nn.LayerNorm(dim)
        else:
            self.norm = nn.LayerNorm(dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # x: (..., dim). "pre": x + f(norm(x)); "post": norm(x + f(x));
        # "sandwich": x + norm_out(f(norm_in(x))); "deepnorm": norm(alpha * x + f(x)).
        raise NotImplementedError("implement NormBlock.forward")


# %% [markdown]
# ## Quick local check
#
# Runs your exercise cell again on its own, in a fresh namespace, as the server does, then
# compares a few public cases, forward pass only, with a reference in this kernel. It is a sanity
# check and **does not replace the server's verdict**, which runs many more shapes and dtypes,
# the backward pass and the known-mistake diagnosis.
#
# Reference: The four placements in eval mode, `F.layer_norm` around a random `Linear` sublayer.
#
# <details><summary>中文</summary>
#
# ## 本地快速检查
#
# 和服务器一样，把你的练习单元格单独放进全新的命名空间重新执行，再用几个公开用例（只做前向）
# 在当前 kernel 里与参考实现对比。这只是一次自检，**不能代替服务器的评测**：服务器会覆盖多得多的
# 形状和 dtype，还会检查反向传播并诊断已知错误。
#
# 参考实现：四种放置方式（评估模式），子层为随机权重的 `Linear`，归一化用 `F.layer_norm`。
#
# </details>

# %%
import torch
import torch.nn.functional as F
from torch import nn

from addnorm_client.local import LocalCase


def local_cases() -> list[LocalCase]:
    g = torch.Generator().manual_seed(0)

    def case(placement: str, shape: tuple[int, ...], alpha: float = 1.0) -> LocalCase:
        dim = shape[-1]
        x = torch.randn(shape, generator=g)
        names = ["norm_in", "norm_out"] if placement == "sandwich" else ["norm"]
        state = {}
        for n in names:
            state[f"{n}.weight"] = torch.randn(dim, generator=g)
            state[f"{n}.bias"] = torch.randn(dim, generator=g)
        state["sublayer.weight"] = torch.randn(dim, dim, generator=g) / dim**0.5
        state["sublayer.bias"] = torch.randn(dim, generator=g)

        def norm(n: str, t: torch.Tensor) -> torch.Tensor:
            return F.layer_norm(t, (dim,), state[f"{n}.weight"], state[f"{n}.bias"])

        def f(t: torch.Tensor) -> torch.Tensor:
            return F.linear(t, state["sublayer.weight"], state["sublayer.bias"])

        if placement == "pre":
            expected = x + f(norm("norm", x))
        elif placement == "post":
            expected = norm("norm", x + f(x))
        elif placement == "sandwich":
            expected = x + norm("norm_out", f(norm("norm_in", x)))
        else:
            expected = norm("norm", alpha * x + f(x))
        return LocalCase(
            name=f"{placement}, {len(shape)}-D",
            x=x,
            build=lambda cls: cls(dim, nn.Linear(dim, dim), placement=placement, alpha=alpha),
            state=state,
            expected=expected,
        )

    return [
        case("pre", (4, 8)),
        case("post", (2, 3, 16)),
        case("sandwich", (2, 3, 16)),
        case("deepnorm", (4, 8), alpha=3.36),
    ]


from addnorm_client.local import check

check("norm_block", "NormBlock", local_cases())

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

submit_cell("norm_block")

# %% [markdown]
# ## Interviewer follow-ups
#
# Once the code runs, an interviewer keeps going. Answer out loud first, then check yourself: each
# question links to an item of the question bank, served and graded by the server
# (`GET /questions/<id>`) and collected by topic in the `questions_<topic>` notebooks.
#
# 1. Write pre-norm and post-norm as formulas. Which one normalises the residual stream? (`np-formulas`, `questions_norm_placement`)
# 2. Which placement needs a learning-rate warm-up, and why? (`np-warmup-which`, `questions_norm_placement`)
# 3. What does the second norm of Sandwich-LN sit on, and what problem was it for? (`np-sandwich-formula`, `questions_norm_placement`)
# 4. What does DeepNorm change in post-norm to train a thousand layers? (`np-deepnorm`, `questions_norm_placement`)
# 5. How large is DeepNorm's alpha for a 64-layer decoder? (`np-deepnorm-alpha`, `questions_norm_placement`)
# 6. Pre-norm trains more easily. Why might a post-norm model of the same depth still do better? (`np-effective-depth`, `questions_norm_placement`)
# 7. Why do pre-norm models add one more norm after the last block? (`np-final-norm`, `questions_norm_placement`)
#
# <details><summary>中文</summary>
#
# ## 面试官的追问
#
# 代码跑通之后，面试官还会接着问。先试着口头回答，再去核对：每个问题都对应题库中的一道题，
# 由服务器提供并判分（`GET /questions/<id>`），也按主题收录在 `questions_<topic>` notebook 里。
#
# 1. 用公式写出 Pre-Norm 和 Post-Norm。哪一种会对残差流本身做归一化？ (`np-formulas`, `questions_norm_placement`)
# 2. 哪种放置方式需要学习率预热（warm-up）？为什么？ (`np-warmup-which`, `questions_norm_placement`)
# 3. Sandwich-LN 的第二个归一化加在哪里？它是为了解决什么问题？ (`np-sandwich-formula`, `questions_norm_placement`)
# 4. 为了训练上千层，DeepNorm 对 Post-Norm 做了什么改动？ (`np-deepnorm`, `questions_norm_placement`)
# 5. 64 层的解码器里，DeepNorm 的 alpha 取多大？ (`np-deepnorm-alpha`, `questions_norm_placement`)
# 6. Pre-Norm 更好训练。那为什么同样深度的 Post-Norm 模型效果有时反而更好？ (`np-effective-depth`, `questions_norm_placement`)
# 7. Pre-Norm 模型为什么要在最后一个 block 之后再加一个归一化层？ (`np-final-norm`, `questions_norm_placement`)
#
# </details>
