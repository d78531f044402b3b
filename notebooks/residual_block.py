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
# # Residual block: pre-norm and post-norm
#
# **topic:** residual · **difficulty:** medium
#
# Every Transformer sublayer (attention, FFN) sits inside an "Add & Norm" wrapper: a skip
# connection that adds the sublayer's input back to its output, and a LayerNorm. Where the norm
# goes is a real design choice:
#
# - **post-norm** (the 2017 paper):
#
#   $$y = \mathrm{norm}\big(x + \mathrm{dropout}(\mathrm{sublayer}(x))\big)$$
#
# - **pre-norm** (GPT-2, Llama and most models since):
#
#   $$y = x + \mathrm{dropout}\big(\mathrm{sublayer}(\mathrm{norm}(x))\big)$$
#
# ## What to write
#
# ```python
# class ResidualBlock(nn.Module):
#     def __init__(
#         self, dim: int, sublayer: nn.Module, norm_first: bool = True, dropout: float = 0.0
#     ) -> None: ...
#     def forward(self, x: torch.Tensor) -> torch.Tensor: ...
# ```
#
# - `sublayer` is given to you (the grader passes a `Linear(dim, dim)`, a small
#   `Linear -> GELU -> Linear` MLP, or a Linear fixed at zero). Store it as `self.sublayer`; its
#   parameters appear in the state dict as `sublayer.*`.
# - Create the norm as `self.norm = nn.LayerNorm(dim)` (here `nn.LayerNorm` is allowed, and
#   required under this name): parameters `norm.weight` `(dim,)` ones and `norm.bias` `(dim,)`
#   zeros. The grader casts your module to the input's dtype and copies each case's values into
#   `norm.*` and `sublayer.*` in place.
# - `norm_first=True` selects pre-norm, `False` post-norm, as above.
# - `dropout` is the probability of dropping an element of the **sublayer's output** in training
#   mode; in eval mode (`module.eval()`) there is no dropout at all.
# - `x` has shape `(..., dim)`, float32 or float64; return the same shape and dtype.
#
# Outputs and the gradients with respect to `x`, `norm.*` and `sublayer.*` are compared with the
# formulas above. The starter imports `torch.nn.functional as F` for `F.dropout`: the server runs
# your cell on its own, so an `F` imported in another notebook cell would not be there.
#
# ## Dropout and the random seed
#
# Train-mode cases call `torch.manual_seed(seed)` right before your forward and compare with the
# reference under the same seed. Draw dropout exactly once, on the sublayer's output, with
# `nn.Dropout` or `F.dropout(..., training=self.training)`: then your mask is the reference's
# mask. A hand-made mask (`torch.rand_like(h) > p`) is correct in spirit but draws different
# random numbers and will not match.
#
# ## How it is graded
#
# About a dozen freshly drawn cases covering both values of `norm_first` with each kind of
# sublayer, the constructor's defaults, train-mode dropout (`p = 0.3`, seeded), dropout
# configured but the module in eval mode, float32 and float64, 1-D to 4-D inputs. The zero
# sublayer isolates the skip path: pre-norm must then return `x` exactly, post-norm `norm(x)`.
# One case runs under `torch.no_grad()` and checks that `x` was not modified in place.
#
# **Also, as for every exercise:** three calls in a row with fresh data of one shape, then an update and two more calls (code that caches what it computed, or changes from its third call on, fails); for each value of each constructor option, a call with the given module as given, at its default initialisation (re-initialising or copying it under one option fails); float64 cases are compared at float64's own precision: computing float64 input in float32 fails.
#
# ## Pitfalls interviewers look for
#
# - **Follow `norm_first`.** Both placements are graded.
# - **Keep the skip path clean.** In pre-norm, `x = self.norm(x)` followed by
#   `x + sublayer(x)` adds `norm(x)`, not `x`.
# - **Normalise the input of the sublayer (pre-norm), not its output.**
# - **Add x to the sublayer's output, not its input.** `sublayer(norm(x) + x)` sends the skip
#   through the sublayer, and nothing reaches the output untouched.
# - **Dropout on the branch, before the add**, never on the sum: dropping the sum cuts the residual
#   stream itself.
# - **Dropout must follow train/eval.** `F.dropout(h, p)` alone keeps dropping in eval mode.
# - **No `x += ...`**: it modifies the caller's tensor.
#
# ## Why it works
#
# With $y = x + F(x)$ the Jacobian is $I + \frac{\partial F}{\partial x}$: whatever the branch does, the gradient has an
# identity path back, and each block only has to learn a correction to its input, which is easy
# to start at zero (He et al. 2016, "Deep Residual Learning for Image Recognition"). Where the
# norm sits decides what that identity path looks like. In post-norm every add is followed by a
# norm, so the path to the bottom layers passes through one norm per block; Xiong et al. (2020,
# "On Layer Normalization in the Transformer Architecture") show that at initialisation the
# gradients of the parameters near the output are then large, so a large learning rate early
# on destabilises training and post-norm needs a learning-rate warm-up. In pre-norm the residual
# stream is a plain sum from the embeddings to the top, the gradients are well-behaved at
# initialisation, and the warm-up can be shortened or dropped. The price is that the stream
# itself is never normalised and its scale grows with depth, so pre-norm models add one final
# norm after the last block, before the output layer (GPT-2's `ln_f`, Llama's final RMSNorm).
#
# ## Interviewer follow-ups
#
# The questions an interviewer asks once this runs are served with the exercise (the
# `follow_ups` field of `GET /exercises/residual_block`) and listed at the end of its notebook,
# each linked to the question-bank item that answers it.
#
# ## Cost and memory
#
# - **Parameters:** `2 * dim` for the norm, plus the sublayer's own.
# - **FLOPs:** the add is one per element, the norm about eight; the sublayer dominates.
# - **Memory-bound:** the add, the dropout and the norm are element-wise passes over the whole
#   `(..., dim)` tensor; fused kernels do "dropout, add, norm" in one pass.
# - **Activations kept for backward:** the add keeps nothing; dropout keeps its mask (one byte per
#   element as a bool tensor, or just the random seed in a fused kernel); the norm keeps its input,
#   which in post-norm is the sum, one more full-size tensor per block.
# - **Low precision:** in pre-norm the residual stream grows with depth and every block adds a
#   small update to a large sum, which is where half precision loses digits; some frameworks can
#   keep the stream in float32 (Megatron-LM's fp32 residual connection option).
#
# ## Test yourself
#
# - **A pre-norm stack with a final norm:** chain eight of your pre-norm blocks with small MLPs as
#   sublayers, print the standard deviation of the stream after each block, then add one final
#   `nn.LayerNorm(dim)` and see what it does to the output. Each block is what this exercise
#   grades.
# - **Warm-up by experiment:** train a 12-block post-norm and a 12-block pre-norm stack on a toy
#   task with Adam at a high constant learning rate, then with a linear warm-up; compare the
#   first hundred losses.
# - **Sandwich-LN:** `x + norm2(sublayer(norm1(x)))` (Ding et al. 2021, "CogView"). Write it and
#   say where its extra norm sits relative to the skip path.
#
# ## Background
#
# The article "FFN, Residual Addition, LN" derives $\frac{dy}{dx} = 1 + \frac{dF(x)}{dx}$ in its section
# "残差连接为什么能缓解梯度消失？", and in its section "残差连接为什么有助于训练深层网络？" explains
# that each layer then only learns a correction to its input; the article "Add & Norm 层" makes
# the same point about learning the increment in its section "Add". In its section
# "2.3 Pre-Norm & Post-Norm", "FFN, Residual Addition, LN" compares the two placements: post-norm
# is sensitive to initialisation and learning rate (and, it asserts without evidence, regularises
# more and may reach a higher ceiling); pre-norm keeps an un-normalised residual "highway" and trains stably at depth. The same
# section says that pre-norm is the one that needs warm-up: it has it backwards, since Xiong et al.
# (2020) show that post-norm needs warm-up and pre-norm can train without it (large pre-norm
# models such as LLaMA still warm up briefly). The article
# "Transformer残差连接与归一化层实现详解" recommends dropout after the sublayer and before the
# addition in its section "1.3 实现细节与调参经验".

# %% [markdown]
# <details><summary>中文说明</summary>
#
# # 残差块：Pre-Norm 与 Post-Norm
#
# Transformer 里的每个子层（注意力、FFN）都套在一个 “Add & Norm” 结构里：一条把子层输入直接加到
# 子层输出上的跳连（残差连接），外加一个 LayerNorm。归一化放在哪里，是一个实打实的设计选择：
#
# - **Post-Norm**（2017 年的原论文）：
#
#   $$y = \mathrm{norm}\big(x + \mathrm{dropout}(\mathrm{sublayer}(x))\big)$$
#
# - **Pre-Norm**（GPT-2、Llama 以及此后的大多数模型）：
#
#   $$y = x + \mathrm{dropout}\big(\mathrm{sublayer}(\mathrm{norm}(x))\big)$$
#
# ## 要写什么
#
# ```python
# class ResidualBlock(nn.Module):
#     def __init__(
#         self, dim: int, sublayer: nn.Module, norm_first: bool = True, dropout: float = 0.0
#     ) -> None: ...
#     def forward(self, x: torch.Tensor) -> torch.Tensor: ...
# ```
#
# - `sublayer` 由调用方传入（评测会传入 `Linear(dim, dim)`、一个小的 `Linear -> GELU -> Linear`
#   MLP，或者一个权重固定为 0 的 Linear）。把它保存为 `self.sublayer`；它的参数在 state dict 里
#   以 `sublayer.*` 的名字出现。
# - 归一化层写成 `self.norm = nn.LayerNorm(dim)`（本题允许使用 `nn.LayerNorm`，而且必须用这个
#   名字）：参数为 `norm.weight` `(dim,)` 全 1、`norm.bias` `(dim,)` 全 0。评测时先把模块转换到
#   输入的 dtype，再把每个用例的参数值原地拷贝进 `norm.*` 和 `sublayer.*`。
# - `norm_first=True` 表示 Pre-Norm，`False` 表示 Post-Norm，公式如上。
# - `dropout` 是训练模式下把**子层输出**中每个元素置零的概率；评估模式（`module.eval()`）下完全
#   不做 dropout。
# - `x` 的形状为 `(..., dim)`，dtype 为 float32 或 float64；返回形状和 dtype 都相同的张量。
#
# 评测会按上面的公式比较输出，以及对 `x`、`norm.*` 和 `sublayer.*` 的梯度。起始代码已经替你写好
# `import torch.nn.functional as F`，方便使用 `F.dropout`：服务器会把你的单元格单独拿出来运行，
# 在 notebook 其他单元格里导入的 `F`，到了那里并不存在。
#
# ## Dropout 与随机种子
#
# 训练模式的用例会在调用你的 forward 之前执行 `torch.manual_seed(seed)`，再和同一种子下的参考
# 实现比较。只在子层输出上做一次 dropout，用 `nn.Dropout` 或
# `F.dropout(..., training=self.training)`：这样你的掩码就和参考实现的一模一样。自己手写掩码
# （`torch.rand_like(h) > p`）思路没错，但抽到的随机数不同，结果对不上。
#
# ## 如何评测
#
# 大约十几个现场随机生成的用例：`norm_first` 的两种取值分别搭配每一种子层、构造函数的默认参数、
# 训练模式下的 dropout（`p = 0.3`，固定种子）、设置了 dropout 但模块处于评估模式、float32 和
# float64、1 维到 4 维输入。恒为 0 的子层专门用来检查跳连那一路：此时 Pre-Norm 必须原样返回 `x`，
# Post-Norm 必须返回 `norm(x)`。有一个用例在 `torch.no_grad()` 下运行，检查 `x` 有没有被原地修改。
#
# **和每道题一样，还有：**同一形状、新数据连续调用三次，再更新参数后调用两次（缓存结果、或从第三次调用起行为改变的代码会判错）；每个构造选项的每个取值下，传入的模块都保持原样、用默认初始化运行一次（只在某个选项下重新初始化或复制它的代码会判错）；float64 用例按 float64 自身的精度比较：把 float64 输入放到 float32 里计算会判错。
#
# ## 面试官会盯的坑
#
# - **按 `norm_first` 选择放置方式。** 两种放法都会被评测。
# - **跳连那一路不能动。** 在 Pre-Norm 里先写 `x = self.norm(x)` 再写 `x + sublayer(x)`，加回去的
#   就成了 `norm(x)`，而不是 `x`。
# - **Pre-Norm 归一化的是子层的输入，不是子层的输出。**
# - **x 加在子层的输出上，不是输入上。** 写成 `sublayer(norm(x) + x)`，跳连就穿过了子层，没有任何
#   东西原样到达输出。
# - **Dropout 放在分支上、相加之前**，绝不能放在和上：对和做 dropout，等于把残差流本身切断了。
# - **Dropout 要区分训练和评估模式。** 只写 `F.dropout(h, p)`，评估模式下照样会丢。
# - **不要写 `x += ...`**：它会改掉调用方传进来的张量。
#
# ## 为什么有效
#
# 对 $y = x + F(x)$，雅可比矩阵是 $I + \frac{\partial F}{\partial x}$：不管分支做了什么，梯度总有一条恒等路径可以传回去；
# 而且每个块只需学习对输入的修正，这个修正从 0 开始学起很容易（He 等 2016，“Deep Residual
# Learning for Image Recognition”）。归一化放在哪里，决定了这条恒等路径是什么样子。Post-Norm 里
# 每次相加之后都跟着一个归一化，通往底层的路径每经过一个块就要穿过一个归一化层；Xiong 等（2020，
# “On Layer Normalization in the Transformer Architecture”）证明，这时在初始化阶段，靠近输出的
# 参数梯度很大，一开始就用大学习率会让训练不稳定，所以 Post-Norm 需要学习率预热（warm-up）。
# Pre-Norm 的残差流从词嵌入一路直接累加到顶层，初始化时梯度很规整，预热可以缩短甚至去掉。代价是
# 残差流本身从不经过归一化，数值尺度随深度增长，所以 Pre-Norm 模型要在最后一个块之后、输出层之前
# 再加一个归一化（GPT-2 的 `ln_f`，Llama 最后的 RMSNorm）。
#
# ## 面试官的追问
#
# 代码跑通之后面试官会接着问的问题随练习一起提供（`GET /exercises/residual_block` 返回的
# `follow_ups` 字段），也列在对应 notebook 的末尾，每个问题都链接到题库中给出答案的那道题。
#
# ## 计算量与显存
#
# - **参数量：** 归一化层 `2 * dim`，外加子层自己的参数。
# - **FLOPs：** 相加每个元素一次，归一化大约八次；大头在子层。
# - **受限于访存：** 相加、dropout 和归一化都是在整个 `(..., dim)` 张量上逐元素地过一遍；融合
#   kernel 会把“dropout、相加、归一化”一次做完。
# - **为反向传播保存的激活：** 相加什么都不用存；dropout 要存掩码（bool 张量每个元素一个字节，
#   融合 kernel 只存随机种子即可）；归一化要存它的输入，在 Post-Norm 里就是那个和，每个块多出一个
#   完整大小的张量。
# - **低精度：** Pre-Norm 的残差流随深度增长，每个块都往一个很大的和上加一个很小的更新，半精度
#   正是在这里丢掉有效数字；有些框架可以让残差流保持 float32（Megatron-LM 的 fp32 残差连接选项）。
#
# ## 自我检验
#
# - **带最终归一化的 Pre-Norm 堆叠：** 用小 MLP 作子层，把八个你写的 Pre-Norm 块串起来，打印每个
#   块之后残差流的标准差；再在最后加一个 `nn.LayerNorm(dim)`，看看输出有什么变化。其中每一个块
#   都是本题评测的内容。
# - **用实验看预热：** 在一个玩具任务上，用 Adam、较大的固定学习率分别训练 12 个块的 Post-Norm
#   和 Pre-Norm 堆叠，再换成线性预热各训一次，比较前一百步的 loss。
# - **Sandwich-LN：** `x + norm2(sublayer(norm1(x)))`（Ding 等 2021，“CogView”）。写出来，并说明
#   多出来的那个归一化相对跳连放在了哪里。
#
# ## 背景
#
# 《FFN, Residual Addition, LN》在“残差连接为什么能缓解梯度消失？”一节推导了
# $\frac{dy}{dx} = 1 + \frac{dF(x)}{dx}$，并在“残差连接为什么有助于训练深层网络？”一节说明，有了残差连接，每层
# 只需学习对输入的修正；《Add & Norm 层》在“Add”一节用“学增量”的说法讲了同一件事。
# 《FFN, Residual Addition, LN》在“2.3 Pre-Norm & Post-Norm”一节比较了两种放置方式：Post-Norm
# 对初始化和学习率很敏感（文章还断言它正则化更强、上限可能更高，但并无证据）；Pre-Norm 保留了一条不经归一化的残差
# “高速公路”，很深也能稳定训练。同一节说需要预热的是 Pre-Norm，这一点说反了：Xiong 等（2020）
# 证明需要预热的是 Post-Norm，Pre-Norm 不预热也能训练（LLaMA 这类大型 Pre-Norm 模型仍会短暂预热）。《Transformer残差连接与归一化层实现详解》
# 在“1.3 实现细节与调参经验”一节建议把 dropout 放在子层之后、相加之前。
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
#    `# addnorm: exercise residual_block`: the submit cell sends the last *executed* cell that starts with it.
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
# 2. 在下面的练习单元格里写好你的类并运行。第一行 `# addnorm: exercise residual_block` 不要删：提交单元格发送的是
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
# addnorm: exercise residual_block
import torch
import torch.nn.functional as F  # noqa: F401  (F.dropout: yours to use)
from torch import nn


class ResidualBlock(nn.Module):
    def __init__(
        self, dim: int, sublayer: nn.Module, norm_first: bool = True, dropout: float = 0.0
    ) -> None:
        super().__init__()
        # The grader loads norm.weight, norm.bias and sublayer.*: keep these names.
        self.norm = nn.LayerNorm(dim)
        self.sublayer = sublayer

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # x: (..., dim). Pre-norm or post-norm depending on norm_first, with dropout on the
        # sublayer's branch before the add; the output has x's shape.
        raise NotImplementedError("implement ResidualBlock.forward")


# %% [markdown]
# ## Quick local check
#
# Runs your exercise cell again on its own, in a fresh namespace, as the server does, then
# compares a few public cases, forward pass only, with a reference in this kernel. It is a sanity
# check and **does not replace the server's verdict**, which runs many more shapes and dtypes,
# the backward pass and the known-mistake diagnosis.
#
# Reference: The formulas `x + sublayer(norm(x))` (pre-norm) and `norm(x + sublayer(x))` (post-norm),
# in eval mode, with a random `Linear` sublayer.
#
# <details><summary>中文</summary>
#
# ## 本地快速检查
#
# 和服务器一样，把你的练习单元格单独放进全新的命名空间重新执行，再用几个公开用例（只做前向）
# 在当前 kernel 里与参考实现对比。这只是一次自检，**不能代替服务器的评测**：服务器会覆盖多得多的
# 形状和 dtype，还会检查反向传播并诊断已知错误。
#
# 参考实现：公式 `x + sublayer(norm(x))`（Pre-Norm）和 `norm(x + sublayer(x))`（Post-Norm），
# 评估模式，子层为随机权重的 `Linear`。
#
# </details>

# %%
import torch
import torch.nn.functional as F
from torch import nn

from addnorm_client.local import LocalCase


def local_cases() -> list[LocalCase]:
    g = torch.Generator().manual_seed(0)

    def case(name: str, shape: tuple[int, ...], norm_first: bool) -> LocalCase:
        dim = shape[-1]
        x = torch.randn(shape, generator=g)
        state = {
            "norm.weight": torch.randn(dim, generator=g),
            "norm.bias": torch.randn(dim, generator=g),
            "sublayer.weight": torch.randn(dim, dim, generator=g) / dim**0.5,
            "sublayer.bias": torch.randn(dim, generator=g),
        }

        def norm(t: torch.Tensor) -> torch.Tensor:
            return F.layer_norm(t, (dim,), state["norm.weight"], state["norm.bias"])

        def sublayer(t: torch.Tensor) -> torch.Tensor:
            return F.linear(t, state["sublayer.weight"], state["sublayer.bias"])

        expected = x + sublayer(norm(x)) if norm_first else norm(x + sublayer(x))
        return LocalCase(
            name=name,
            x=x,
            build=lambda cls: cls(dim, nn.Linear(dim, dim), norm_first=norm_first),
            state=state,
            expected=expected,
        )

    return [
        case("pre-norm, 2-D", (4, 8), norm_first=True),
        case("pre-norm, 3-D", (2, 3, 16), norm_first=True),
        case("post-norm, 2-D", (4, 8), norm_first=False),
        case("post-norm, 3-D", (2, 3, 16), norm_first=False),
    ]


from addnorm_client.local import check

check("residual_block", "ResidualBlock", local_cases())

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

submit_cell("residual_block")

# %% [markdown]
# ## Interviewer follow-ups
#
# Once the code runs, an interviewer keeps going. Answer out loud first, then check yourself: each
# question links to an item of the question bank, served and graded by the server
# (`GET /questions/<id>`) and collected by topic in the `questions_<topic>` notebooks.
#
# 1. Write down the Jacobian of y = x + F(x). Why does it help deep stacks train? (`res-gradient-formula`, `questions_residual`)
# 2. So residual connections rule out vanishing and exploding gradients altogether? (`res-not-a-cure-all`, `questions_residual`)
# 3. Which placement needs a learning-rate warm-up, and why? (`np-warmup-which`, `questions_norm_placement`)
# 4. In a pre-norm stack, does the residual stream ever pass through a norm? (`np-identity-path`, `questions_norm_placement`)
# 5. Why do pre-norm models add one more norm after the last block? (`np-final-norm`, `questions_norm_placement`)
# 6. Where does dropout go, and what breaks if it goes on the sum? (`res-dropout-placement-bug`, `questions_residual`)
# 7. What does the block compute if the sublayer outputs zero, say at a zero initialisation? (`res-identity-at-zero`, `questions_residual`)
# 8. Which famous models are post-norm and which are pre-norm? (`np-original-post-ln`, `questions_norm_placement`)
# 9. Can post-norm be made to train at great depth? What does DeepNorm change? (`np-deepnorm`, `questions_norm_placement`)
#
# <details><summary>中文</summary>
#
# ## 面试官的追问
#
# 代码跑通之后，面试官还会接着问。先试着口头回答，再去核对：每个问题都对应题库中的一道题，
# 由服务器提供并判分（`GET /questions/<id>`），也按主题收录在 `questions_<topic>` notebook 里。
#
# 1. 写出 y = x + F(x) 的雅可比矩阵。它为什么能让深层网络训得动？ (`res-gradient-formula`, `questions_residual`)
# 2. 这么说，残差连接能彻底杜绝梯度消失和梯度爆炸？ (`res-not-a-cure-all`, `questions_residual`)
# 3. 哪种放置方式需要学习率预热（warm-up）？为什么？ (`np-warmup-which`, `questions_norm_placement`)
# 4. 在 Pre-Norm 的堆叠里，残差流会经过归一化层吗？ (`np-identity-path`, `questions_norm_placement`)
# 5. Pre-Norm 模型为什么要在最后一个 block 之后再加一个归一化层？ (`np-final-norm`, `questions_norm_placement`)
# 6. dropout 该放在哪里？放在相加之后会坏在哪里？ (`res-dropout-placement-bug`, `questions_residual`)
# 7. 如果子层输出恒为 0（比如零初始化），这个残差块算的是什么？ (`res-identity-at-zero`, `questions_residual`)
# 8. 哪些著名模型用 Post-Norm，哪些用 Pre-Norm？ (`np-original-post-ln`, `questions_norm_placement`)
# 9. Post-Norm 能不能训得很深？DeepNorm 改了什么？ (`np-deepnorm`, `questions_norm_placement`)
#
# </details>
