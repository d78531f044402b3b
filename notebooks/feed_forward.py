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
# # The classic Transformer feed-forward block
#
# **topic:** ffn · **difficulty:** medium
#
# Attention is the step where tokens look at each other; the feed-forward network (FFN) is the
# step where each token, on its own and with the same weights at every position, transforms what
# it has gathered. The classic FFN of the original Transformer (and of BERT and GPT-2) is two
# linear layers with a non-linearity between them: widen from `d_model` to `d_ff` (4 times
# wider by default), activate, narrow back to `d_model` so the output can be added to the
# residual stream. Dropout regularises the wide hidden layer during training.
#
# ## What to write
#
# ```python
# class FeedForward(nn.Module):
#     def __init__(
#         self,
#         d_model: int,
#         d_ff: int | None = None,
#         activation: str = "gelu",
#         dropout: float = 0.1,
#     ) -> None: ...
#     def forward(self, x: torch.Tensor) -> torch.Tensor: ...
# ```
#
# - `x` has shape `(..., d_model)` (1-D to 4-D in the tests, possibly a non-contiguous view such
#   as a transposed tensor), float32 or float64. Return a tensor of shape `(..., d_model)` and the
#   same dtype. Do not modify `x`.
# - `d_ff` defaults to `4 * d_model` when it is `None`.
# - Two linear layers **with bias**, with exactly these names:
#
#   | name | module | state dict |
#   | --- | --- | --- |
#   | `linear1` | `nn.Linear(d_model, d_ff)` | `linear1.weight` `(d_ff, d_model)`, `linear1.bias` `(d_ff,)` |
#   | `linear2` | `nn.Linear(d_ff, d_model)` | `linear2.weight` `(d_model, d_ff)`, `linear2.bias` `(d_model,)` |
#
#   No other parameters or buffers. Their initial values are not graded: every case loads its own
#   weights into these parameters (see "Test yourself" for the material's initialisation).
# - `activation` is `"gelu"` (the exact GELU, `z * Phi(z)`, as `F.gelu` computes by default) or
#   `"relu"`. Any other value raises `ValueError` in the constructor.
# - The function:
#
#   $$\begin{aligned}
#   h &= \mathrm{act}(x W_1^\top + b_1) && (\ldots, d_{\mathrm{ff}})\\
#   h &= \mathrm{dropout}(h) && \text{only in training mode}\\
#   y &= h W_2^\top + b_2 && (\ldots, d_{\mathrm{model}})
#   \end{aligned}$$
#
# - **Dropout** with probability `dropout` on the hidden activation, after the activation and
#   before `linear2`, and nowhere else; active only in training mode (`module.train()`), the
#   identity in eval mode (`module.eval()`). Kept units are scaled by `1 / (1 - dropout)`.
#   Draw the mask with `nn.Dropout`, `F.dropout(h, p, training=self.training)` or
#   `torch.empty_like(h).bernoulli_(1 - p)`, once per call: the grader replays the same random
#   stream for your module and the reference, so these all draw the same mask. (A mask drawn
#   another way, with `torch.rand`, say, is a correct dropout too but cannot be compared value by
#   value; use one of the three.)
#
# Outputs and the gradients with respect to `x` and all four parameters are compared, in train
# and eval mode, over several calls of the same module with a parameter update between calls.
#
# ## Not allowed
#
# Nothing is banned: `nn.Linear`, `F.linear`, `F.gelu`, `F.relu`, `nn.Dropout`, `F.dropout` are
# what this block is made of. The starter imports `torch.nn.functional as F` and `math` for you,
# because the server runs your cell on its own.
#
# ## How it is graded
#
# Each case is a short scenario: build the module with the case's arguments (defaults included),
# load its weights, then call it several times in train and eval mode, with a backward pass and a
# small parameter update after each call. The cases cover `d_model` from 7 to 300 (odd sizes
# included), `d_ff` from 1 to 480 (also the default and smaller than `d_model`), both
# activations, dropout 0, 0.1, 0.2, 0.25, 0.3 and 0.5, 1-D to 4-D inputs, a leading dimension of
# 1, a transposed (non-contiguous) input, large inputs (`8 * N(0,1)`, where GELU's approximations
# show) and float32 and float64. An unknown `activation` (a near-miss such as `"swish"` or
# `"GELU"`) must raise `ValueError` in the constructor: one case checks it.
#
# **Also, as for every exercise:** three calls in a row with fresh data of one shape, then an update and two more calls (code that caches what it computed, or changes from its third call on, fails); float64 cases are compared at float64's own precision: computing float64 input in float32 fails.
#
# ## Pitfalls interviewers look for
#
# - **`F.dropout` in eval.** `F.dropout(h, p)` has `training=True` by default: without
#   `training=self.training` it keeps dropping after `model.eval()`. `nn.Dropout` follows the
#   module's mode for you.
# - **Where the dropout goes.** On the hidden activation, after the activation. Before a ReLU it
#   makes no difference (`relu(c * z) = c * relu(z)` for `c >= 0`); before a GELU it does.
#   Dropout on the output is the residual wrapper's job, not the FFN's.
# - **Exact or approximate GELU.** The tanh formula is within about 1e-3 of the exact one: close,
#   but a different function. GPT-2 used the tanh form; `activation="gelu"` here means the exact one.
# - **The default width is a ratio.** `d_ff = 4 * d_model`, not 2048 (the original paper's value
#   for `d_model = 512`).
# - **No activation after `linear2`.** The output is added to the residual stream and must be
#   free to move it in any direction.
# - **A typo is not ReLU.** `F.gelu if activation == "gelu" else F.relu` turns `"swish"` or
#   `"Gelu"` into ReLU without a word.
#
# ## Why it works
#
# Attention's output for a token is a weighted mix of value vectors: it gathers information but
# cannot transform a token's features beyond that mix. The FFN does the per-token computation.
# Widening first gives the non-linearity room: with `d_ff` hidden units, each unit is a feature
# detector (`w_i . x + b_i` passed through the activation) and `linear2` writes a learned vector
# per active unit back into the residual stream, which is why FFN layers are often read as
# key-value memories. Narrowing back to `d_model` is what lets `x + FFN(x)` line up, and keeps
# the cost of the next layer fixed. Dropout on the hidden layer makes the output robust to any
# single detector missing; scaling the kept units by `1 / (1 - p)` keeps the expected input of
# `linear2` the same in training and inference, so nothing changes at `eval()`.
#
# ## Interviewer follow-ups
#
# The questions an interviewer asks once this runs are served with the exercise (the
# `follow_ups` field of `GET /exercises/feed_forward`) and listed at the end of its notebook, each linked
# to the question-bank item that answers it.
#
# Among them (`followups.yaml`): the classic formula (`ffn-classic-formula`), why widen then
# narrow (`ffn-up-then-down`), the parameter count with biases (`ffn-params-with-bias`), the
# forward FLOPs (`ffn-forward-flops`), whether 512/2048 really is the paper's pair
# (`ffn-article-four-times`), GELU's approximations (`act-gelu-approximations`), the material's
# initialisation (`tr-article002-init-code`, `tr-article002-kaiming-gelu`) and a dropout placement
# bug in a residual wrapper (`res-dropout-placement-bug`).
#
# ## Cost and memory
#
# - **Parameters:** `2 * d_model * d_ff + d_ff + d_model`; with `d_ff = 4 * d_model` that is
#   about `8 * d_model^2` (2,099,712 for `d_model = 512`).
# - **FLOPs:** `4 * d_model * d_ff` per token forward (two matmuls, 2 FLOPs per multiply-add),
#   `16 * d_model^2` at the default width; backward costs about twice the forward.
# - **Activations kept for backward:** `x`, the pre-activation `linear1(x)` (GELU's derivative
#   needs it), the dropout mask (a boolean `(..., d_ff)` tensor) and the dropped activation that
#   `linear2` needs: in float32 about 13 times the input's bytes at the default width, measured
#   with saved-tensor hooks for ReLU or a fused `F.gelu` (a GELU written from elementwise ops
#   keeps its intermediates too: about 21 times). This is the
#   FFN memory that gradient checkpointing and fused kernels go after.
#
# ## Test yourself
#
# - **The material's initialisation.** The article "Add & Norm 层" (section "FeedForward")
#   initialises `linear1` with Kaiming-normal for ReLU and `linear2` with Xavier-normal at a gain
#   of 0.02. Write it, build a block with `d_model = 512`, and measure the standard deviation of
#   `linear2.weight` and of the output on `N(0,1)` inputs. Is the output layer's std really 0.02?
#   (The question bank's `tr-article002-init-code` discusses it.)
# - **Dropout is unbiased.** Set `dropout=0.5`, call in train mode twice after the same
#   `torch.manual_seed` and check the outputs are equal; then average many train-mode outputs and
#   watch them approach the eval-mode output (the mask's expectation is 1 after the rescaling, and
#   `linear2` is linear). Why would this fail with dropout before `linear1`?
#
# ## Background
#
# The article "Add & Norm 层" presents this block in its section "FeedForward": the formula with
# ReLU, the 4x widening, and a PyTorch implementation with this very constructor (its code is the
# origin of this exercise's contract, including the fallback to ReLU that the contract turns into
# a `ValueError`). The article "FFN, Residual Addition, LN" explains in "为什么有了 Attention 还需要
# FFN" why attention alone is not enough (its claim that attention is only linear overstates it:
# see the question bank's `ffn-attention-not-linear`) and in "FFN 为什么先升维再降维" why the block
# widens then narrows. The article "Transformer残差连接与归一化层实现详解" discusses the standard FFN
# and its width in "3.1 标准FFN结构分析" and the FFN's memory in "3.2 内存优化技巧".

# %% [markdown]
# <details><summary>中文说明</summary>
#
# # 经典 Transformer 前馈网络
#
# 注意力是 token 之间互相“看一眼”的环节；前馈网络（FFN）则是每个 token 各自消化收集来的信息，
# 所有位置共用同一套权重。原始 Transformer（以及 BERT、GPT-2）的经典 FFN 就是两层线性层中间夹
# 一个非线性激活：先从 `d_model` 升到 `d_ff`（默认宽 4 倍），激活，再降回 `d_model`，这样输出才能
# 加回残差流。训练时用 dropout 对这层宽的隐藏表示做正则化。
#
# ## 要写什么
#
# ```python
# class FeedForward(nn.Module):
#     def __init__(
#         self,
#         d_model: int,
#         d_ff: int | None = None,
#         activation: str = "gelu",
#         dropout: float = 0.1,
#     ) -> None: ...
#     def forward(self, x: torch.Tensor) -> torch.Tensor: ...
# ```
#
# - `x` 的形状为 `(..., d_model)`（测试覆盖 1 维到 4 维，也可能是转置之类的非连续视图），dtype 为
#   float32 或 float64。返回形状 `(..., d_model)`、dtype 相同的张量。不要修改 `x`。
# - `d_ff` 为 `None` 时取 `4 * d_model`。
# - 两个**带 bias** 的线性层，名称必须如下：
#
#   | 名称 | 模块 | state dict |
#   | --- | --- | --- |
#   | `linear1` | `nn.Linear(d_model, d_ff)` | `linear1.weight` `(d_ff, d_model)`、`linear1.bias` `(d_ff,)` |
#   | `linear2` | `nn.Linear(d_ff, d_model)` | `linear2.weight` `(d_model, d_ff)`、`linear2.bias` `(d_model,)` |
#
#   除此之外不要有别的参数或 buffer。初始值不参与评测：每个用例都会把自己的权重加载进这些参数
#   （资料里的初始化方式见“自我检验”）。
# - `activation` 取 `"gelu"`（精确 GELU，即 `z * Phi(z)`，也就是 `F.gelu` 默认的算法）或 `"relu"`。
#   其他取值在构造函数里抛出 `ValueError`。
# - 计算过程：
#
#   $$\begin{aligned}
#   h &= \mathrm{act}(x W_1^\top + b_1) && (\ldots, d_{\mathrm{ff}})\\
#   h &= \mathrm{dropout}(h) && \text{仅在训练模式下}\\
#   y &= h W_2^\top + b_2 && (\ldots, d_{\mathrm{model}})
#   \end{aligned}$$
#
# - **Dropout**：概率为 `dropout`，作用在隐藏激活上，位置在激活函数之后、`linear2` 之前，别处都
#   不加；只在训练模式（`module.train()`）下生效，eval 模式（`module.eval()`）下是恒等映射。保留
#   下来的单元乘以 `1 / (1 - dropout)`。每次调用只采样一次掩码，用 `nn.Dropout`、
#   `F.dropout(h, p, training=self.training)` 或 `torch.empty_like(h).bernoulli_(1 - p)` 都行：
#   评测会让你的模块和参考实现重放同一条随机数流，这三种写法采到的掩码完全一样。（用 `torch.rand`
#   之类的其他方式采样，dropout 本身也没错，但没法逐个数值比较，所以请用上面三种之一。）
#
# 评测比较输出，以及对 `x` 和四个参数的梯度；同一个模块会在 train 和 eval 模式下被调用多次，
# 两次调用之间还会更新一次参数。
#
# ## 不允许使用
#
# 没有禁用项：`nn.Linear`、`F.linear`、`F.gelu`、`F.relu`、`nn.Dropout`、`F.dropout` 本来就是这个
# 模块的组成部分。起始代码已经替你导入了 `torch.nn.functional as F` 和 `math`，因为服务器会把你
# 的单元格单独拿出来运行。
#
# ## 如何评测
#
# 每个用例是一小段场景：按用例的参数（包括默认值）构建模块，加载权重，然后在 train 和 eval 模式
# 下调用若干次，每次调用后做一次反向传播和一次小幅参数更新。用例覆盖：`d_model` 从 7 到 300（含
# 奇数维度），`d_ff` 从 1 到 480（含默认值，也有比 `d_model` 小的），两种激活函数，dropout 取 0、
# 0.1、0.2、0.25、0.3 和 0.5，1 维到 4 维输入，首维为 1，转置后的非连续输入，较大的输入
# （`8 * N(0,1)`，GELU 的近似式在这里会露馅），float32 和 float64。未知的 `activation`（比如
# `"swish"`、`"GELU"` 这类差一点就对的名字）要在构造函数里抛出 `ValueError`：有一个场景专门检查这一条。
#
# **和每道题一样，还有：**同一形状、新数据连续调用三次，再更新参数后调用两次（缓存结果、或从第三次调用起行为改变的代码会判错）；float64 用例按 float64 自身的精度比较：把 float64 输入放到 float32 里计算会判错。
#
# ## 面试官会盯的坑
#
# - **eval 模式下的 `F.dropout`。** `F.dropout(h, p)` 的 `training` 默认是 `True`：不传
#   `training=self.training`，`model.eval()` 之后它照样丢弃。`nn.Dropout` 会自动跟随模块的模式。
# - **dropout 放在哪。** 放在隐藏激活上、激活函数之后。放在 ReLU 之前结果一样（`c >= 0` 时
#   `relu(c * z) = c * relu(z)`），放在 GELU 之前就不一样了。输出端的 dropout 是残差包装的事，
#   不归 FFN 管。
# - **精确 GELU 还是近似 GELU。** tanh 近似式和精确式相差 1e-3 左右：很接近，但终究是另一个函数。
#   GPT-2 用的是 tanh 形式；这里的 `activation="gelu"` 指精确式。
# - **默认宽度是比例。** `d_ff = 4 * d_model`，不是 2048（2048 只是原论文在 `d_model = 512` 时的
#   取值）。
# - **`linear2` 之后没有激活。** 输出要加回残差流，必须能朝任意方向改变它。
# - **拼错不等于 ReLU。** `F.gelu if activation == "gelu" else F.relu` 会把 `"swish"`、`"Gelu"`
#   悄无声息地变成 ReLU。
#
# ## 为什么有效
#
# 对每个 token 来说，注意力的输出是若干 value 向量的加权组合：它能汇集信息，却没法在这种组合之外
# 再变换 token 自身的特征。逐 token 的计算由 FFN 完成。先升维是给非线性留出空间：`d_ff` 个隐藏
# 单元各自是一个特征检测器（`w_i . x + b_i` 过一次激活），`linear2` 再为每个被激活的单元往残差流
# 里写回一个学到的向量，所以 FFN 层常被看作一种键值记忆。降回 `d_model` 则是为了让 `x + FFN(x)`
# 对得上，同时让下一层的开销保持不变。对隐藏层做 dropout，让输出不依赖任何单个检测器；保留单元
# 乘以 `1 / (1 - p)`，让 `linear2` 收到的输入在训练和推理时期望相同，所以 `eval()` 时什么都不用改。
#
# ## 面试官的追问
#
# 代码跑通之后面试官会接着问的问题随练习一起提供（`GET /exercises/feed_forward` 返回的 `follow_ups` 字段），
# 也列在对应 notebook 的末尾，每个问题都链接到题库中给出答案的那道题。
#
# 其中有（`followups.yaml`）：
# 经典公式（`ffn-classic-formula`）、为什么先升维再降维（`ffn-up-then-down`）、带 bias 的参数量
# （`ffn-params-with-bias`）、前向 FLOPs（`ffn-forward-flops`）、512/2048 是不是论文里的那一对
# （`ffn-article-four-times`）、GELU 的近似式（`act-gelu-approximations`）、资料里的初始化
# （`tr-article002-init-code`、`tr-article002-kaiming-gelu`），以及残差包装里 dropout 放错位置的
# bug（`res-dropout-placement-bug`）。
#
# ## 计算量与显存
#
# - **参数量：** `2 * d_model * d_ff + d_ff + d_model`；`d_ff = 4 * d_model` 时约为
#   `8 * d_model^2`（`d_model = 512` 时是 2,099,712）。
# - **FLOPs：** 每个 token 前向 `4 * d_model * d_ff`（两次矩阵乘，一次乘加算 2 FLOPs），默认宽度下
#   是 `16 * d_model^2`；反向约为前向的两倍。
# - **为反向保存的激活：** `x`、激活前的 `linear1(x)`（GELU 的导数要用它）、dropout 掩码（形状为
#   `(..., d_ff)` 的布尔张量），以及 `linear2` 需要的 dropout 之后的激活：默认宽度、float32 下约为
#   输入字节数的 13 倍（用 saved-tensor hooks 对 ReLU 或融合的 `F.gelu` 实测；用逐元素运算手写的 GELU 还会保存中间结果，约 21 倍）。梯度检查点和融合算子想省的，正是 FFN 的这部分显存。
#
# ## 自我检验
#
# - **资料里的初始化。** 文章《Add & Norm 层》在“FeedForward”一节里，用面向 ReLU 的 Kaiming 正态
#   分布初始化 `linear1`，用 gain 为 0.02 的 Xavier 正态分布初始化 `linear2`。照着写出来，构建一个
#   `d_model = 512` 的模块，测一下 `linear2.weight` 的标准差，以及 `N(0,1)` 输入下输出的标准差。
#   输出层的标准差真的是 0.02 吗？（题库里的 `tr-article002-init-code` 讨论了这个问题。）
# - **dropout 是无偏的。** 设 `dropout=0.5`，在同一个 `torch.manual_seed` 之后以训练模式调用两次，
#   确认输出相同；再把多次训练模式的输出取平均，看它逐渐逼近 eval 模式的输出（重新缩放后掩码的期望
#   是 1，而 `linear2` 是线性的）。如果把 dropout 放在 `linear1` 之前，这个结论为什么不成立？
#
# ## 背景
#
# 文章《Add & Norm 层》在“FeedForward”一节介绍了这个模块：带 ReLU 的公式、4 倍升维，以及一份构造
# 函数与本题完全相同的 PyTorch 实现（本题的接口就出自那里，包括回退到 ReLU 的写法，本题把它改成了
# 抛出 `ValueError`）。文章《FFN, Residual Addition, LN》在“为什么有了 Attention 还需要 FFN”一节
# 解释了为什么只有注意力不够（其中“注意力只是线性的”说法过头了，见题库的
# `ffn-attention-not-linear`），在“FFN 为什么先升维再降维”一节解释了先升后降的原因。文章
# 《Transformer残差连接与归一化层实现详解》在“3.1 标准FFN结构分析”讨论了标准 FFN 及其宽度，在
# “3.2 内存优化技巧”讨论了 FFN 的显存。
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
#    `# addnorm: exercise feed_forward`: the submit cell sends the last *executed* cell that starts with it.
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
# 2. 在下面的练习单元格里写好你的类并运行。第一行 `# addnorm: exercise feed_forward` 不要删：提交单元格发送的是
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
# addnorm: exercise feed_forward
import math  # noqa: F401  (math.sqrt: yours to use)

import torch
import torch.nn.functional as F  # noqa: F401  (F.gelu, F.relu, F.dropout: yours to use)
from torch import nn


class FeedForward(nn.Module):
    def __init__(
        self,
        d_model: int,
        d_ff: int | None = None,
        activation: str = "gelu",
        dropout: float = 0.1,
    ) -> None:
        super().__init__()
        d_ff = 4 * d_model if d_ff is None else d_ff
        # The grader loads linear1.weight/bias and linear2.weight/bias: keep these names.
        self.linear1 = nn.Linear(d_model, d_ff)  # (d_ff, d_model), (d_ff,)
        self.linear2 = nn.Linear(d_ff, d_model)  # (d_model, d_ff), (d_model,)
        # Yours: choose the activation ("gelu" exact, "relu"; ValueError otherwise) and keep
        # the dropout for the hidden activation.

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # x: (..., d_model) -> linear1 -> activation -> dropout (training only) -> linear2
        raise NotImplementedError("implement FeedForward.forward")


# %% [markdown]
# ## Quick local check
#
# Runs your exercise cell again on its own, in a fresh namespace, as the server does, then
# compares a few public cases, forward pass only, with a reference in this kernel. It is a sanity
# check and **does not replace the server's verdict**, which runs many more shapes and dtypes,
# the backward pass and the known-mistake diagnosis.
#
# Reference: The formula `linear2(act(linear1(x)))` in eval mode (dropout off), with random weights.
#
# <details><summary>中文</summary>
#
# ## 本地快速检查
#
# 和服务器一样，把你的练习单元格单独放进全新的命名空间重新执行，再用几个公开用例（只做前向）
# 在当前 kernel 里与参考实现对比。这只是一次自检，**不能代替服务器的评测**：服务器会覆盖多得多的
# 形状和 dtype，还会检查反向传播并诊断已知错误。
#
# 参考实现：公式 `linear2(act(linear1(x)))`，eval 模式（dropout 关闭），权重取随机值。
#
# </details>

# %%
import torch
import torch.nn.functional as F

from addnorm_client.local import LocalCase


def local_cases() -> list[LocalCase]:
    g = torch.Generator().manual_seed(0)

    def case(name: str, shape: tuple[int, ...], d_ff: int, activation: str) -> LocalCase:
        d_model = shape[-1]
        x = torch.randn(shape, generator=g)
        # Scaled by 1/sqrt(fan_in) so the activations stay around unit size.
        w1 = torch.randn(d_ff, d_model, generator=g) / d_model**0.5  # (d_ff, d_model)
        b1 = torch.randn(d_ff, generator=g) * 0.5  # (d_ff,)
        w2 = torch.randn(d_model, d_ff, generator=g) / d_ff**0.5  # (d_model, d_ff)
        b2 = torch.randn(d_model, generator=g) * 0.5  # (d_model,)
        h = F.linear(x, w1, b1)
        h = F.gelu(h) if activation == "gelu" else F.relu(h)
        return LocalCase(
            name=name,
            x=x,
            build=lambda cls: cls(d_model, d_ff, activation, 0.5),
            state={
                "linear1.weight": w1,
                "linear1.bias": b1,
                "linear2.weight": w2,
                "linear2.bias": b2,
            },
            expected=F.linear(h, w2, b2),
        )

    return [
        case("2-D, d_model 8, d_ff 32, gelu", (4, 8), 32, "gelu"),
        case("3-D, d_model 16, d_ff 40, relu", (2, 3, 16), 40, "relu"),
        case("d_ff smaller than d_model, gelu", (3, 12), 5, "gelu"),
    ]


from addnorm_client.local import check

check("feed_forward", "FeedForward", local_cases())

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

submit_cell("feed_forward")

# %% [markdown]
# ## Interviewer follow-ups
#
# Once the code runs, an interviewer keeps going. Answer out loud first, then check yourself: each
# question links to an item of the question bank, served and graded by the server
# (`GET /questions/<id>`) and collected by topic in the `questions_<topic>` notebooks.
#
# 1. Write the classic FFN as a formula. Where do the biases and the activation go? (`ffn-classic-formula`, `questions_ffn`)
# 2. Why does the FFN widen to d_ff and then narrow back to d_model? (`ffn-up-then-down`, `questions_ffn`)
# 3. How many parameters does your block have for d_model 512 and d_ff 2048? (`ffn-params-with-bias`, `questions_ffn`)
# 4. How many FLOPs per token does its forward pass take? (`ffn-forward-flops`, `questions_ffn`)
# 5. Is d_ff = 4 * d_model really what the original Transformer used? (`ffn-article-four-times`, `questions_ffn`)
# 6. How far are GELU's tanh and sigmoid approximations from the exact function? (`act-gelu-approximations`, `questions_activations`)
# 7. Here is the material's initialisation of linear2. What is wrong with it? (`tr-article002-init-code`, `questions_training`)
# 8. Kaiming init for ReLU with a GELU activation. Does the mismatch break training? (`tr-article002-kaiming-gelu`, `questions_training`)
# 9. Where does the residual wrapper's dropout go, compared with the FFN's own? (`res-dropout-placement-bug`, `questions_residual`)
#
# <details><summary>中文</summary>
#
# ## 面试官的追问
#
# 代码跑通之后，面试官还会接着问。先试着口头回答，再去核对：每个问题都对应题库中的一道题，
# 由服务器提供并判分（`GET /questions/<id>`），也按主题收录在 `questions_<topic>` notebook 里。
#
# 1. 用公式写出经典 FFN。bias 和激活函数分别在哪里？ (`ffn-classic-formula`, `questions_ffn`)
# 2. FFN 为什么先升到 d_ff，再降回 d_model？ (`ffn-up-then-down`, `questions_ffn`)
# 3. d_model 为 512、d_ff 为 2048 时，你的模块有多少参数？ (`ffn-params-with-bias`, `questions_ffn`)
# 4. 它的前向计算每个 token 要多少 FLOPs？ (`ffn-forward-flops`, `questions_ffn`)
# 5. 原始 Transformer 真的用的是 d_ff = 4 * d_model 吗？ (`ffn-article-four-times`, `questions_ffn`)
# 6. GELU 的 tanh 近似和 sigmoid 近似离精确函数有多远？ (`act-gelu-approximations`, `questions_activations`)
# 7. 这是资料里 linear2 的初始化代码，哪里有问题？ (`tr-article002-init-code`, `questions_training`)
# 8. 用为 ReLU 设计的 Kaiming 初始化配 GELU 激活，这种不匹配会让训练失败吗？ (`tr-article002-kaiming-gelu`, `questions_training`)
# 9. 残差包装里的 dropout 放在哪里？和 FFN 自己的 dropout 有什么区别？ (`res-dropout-placement-bug`, `questions_residual`)
#
# </details>
