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
# # The LLaMA FFN half-layer: x + SwiGLU(RMSNorm(x))
#
# **topic:** residual · **difficulty:** medium
#
# A LLaMA decoder layer is two half-layers on the residual stream: attention, then the FFN. Each
# one reads the stream through a norm, computes, and *adds* its result back:
# `h = x + attention(norm(x))`, then `out = h + ffn(norm(h))`. This exercise is the second half,
# built from the two pieces you wrote before: an RMSNorm and a SwiGLU FFN. What is new is how they
# are wired: pre-norm, with the skip path carrying `x` itself.
#
# ## What to write
#
# ```python
# class FFNBlock(nn.Module):
#     def __init__(self, dim: int, hidden_dim: int, eps: float = 1e-6) -> None: ...
#     def forward(self, x: torch.Tensor) -> torch.Tensor: ...
# ```
#
# - Two submodules, with exactly these names (write their classes in the same cell; any class
#   names will do):
#
#   | attribute | what | state dict |
#   | --- | --- | --- |
#   | `norm` | your RMSNorm over the last dim, eps = `eps`, gain `weight` initialised to ones | `norm.weight` `(dim,)` |
#   | `ffn` | your SwiGLU, bias-free `w1` (gate), `w3` (up), `w2` (down) | `ffn.w1.weight` `(hidden_dim, dim)`, `ffn.w2.weight` `(dim, hidden_dim)`, `ffn.w3.weight` `(hidden_dim, dim)` |
#
#   Nothing else: no biases, no extra parameters or buffers.
# - The function, for `x` of shape `(..., dim)` (1-D to 4-D, possibly non-contiguous), float32 or
#   float64, returning `(..., dim)` in the same dtype, without modifying `x`:
#
#   $$\begin{aligned}
#   \mathrm{norm}(x) &= \frac{x}{\sqrt{\mathrm{mean}(x^2) + \varepsilon}} \cdot \mathrm{weight} \qquad \text{mean over the last dim}\\
#   \mathrm{ffn}(h) &= w_2\big(\mathrm{silu}(w_1(h)) \odot w_3(h)\big)\\
#   y &= x + \mathrm{ffn}(\mathrm{norm}(x))
#   \end{aligned}$$
#
# - No dropout and no other state: train and eval compute the same thing, on every call, with
#   whatever values the parameters hold at that call.
# - Computing the norm's statistics in float32 and casting back (LLaMA's
#   `self._norm(x.float()).type_as(x)`) is correct: float64 cases are compared at a tolerance that
#   leaves room for it.
#
# Outputs and the gradients with respect to `x` and all four parameters are compared.
#
# ## Not allowed
#
# The whole-norm built-ins: `nn.RMSNorm`, `F.rms_norm`, `torch.rms_norm`, and the LayerNorm ones
# (`nn.LayerNorm`, `F.layer_norm`, `torch.layer_norm`). A submission that reaches them is
# rejected. `nn.Linear`, `F.linear`, `F.silu`, `torch.rsqrt` are fine.
#
# ## What your code may run
#
# A solution is built from arithmetic, elementwise math, reductions, shape and indexing operations, creation, random draws and matrix products, and the FFN's activations and dropout. Any other operation your code runs, by whatever route (an alias, `getattr`, `torch.ops`, `torch._C`, scripting, a custom op, a tensor subclass, another backend's tensor), is refused: the verdict is *rejected* and names the operation. The built-ins listed above are refused where they are written, even in a branch that never runs: an interviewer reading the code would stop there. torch's private operator implementations (`torch._refs`, `torch._decomp`, `torch._prims`) are refused the same way: they hold every exercise's answer.
#
# ## How it is graded
#
# Each case builds `FFNBlock`, loads random weights
# (gains around 1, projections scaled by `1/sqrt(fan_in)`), then calls it two or three times in
# train and eval mode with a backward pass and a parameter update after each call. Inputs: standard
# normal; tiny (`1e-4 * N(0,1)`, where `eps` dominates the mean square, with the default and a
# non-default `eps`); offset (`N(0,1) + 5`, where mean-centring shows); large (`30 * N(0,1)`); a
# square input with as many rows as features (where a missing `keepdim` broadcasts silently);
# `dim` from 1 to 200, 1-D to 4-D, a leading dimension of 1, a transposed input; float32 and
# float64. (`norm.weight` initialised to ones is part of the contract; the server loads weights in
# every case, so check the initial value yourself.)
#
# **Also, as for every exercise:** three calls in a row with fresh data of one shape, then an update and two more calls (code that caches what it computed, or changes from its third call on, fails); float64 cases leave room for float32 internals (`x.float()` and a cast back, as Llama's RMSNorm does, is correct).
#
# ## Pitfalls interviewers look for
#
# - **The skip path is `x`.** `h = norm(x); return h + ffn(h)` adds the *normalised* input back:
#   the stream is rescaled at every block. `norm(x + ffn(x))` is post-norm. Neither is LLaMA.
# - **RMSNorm is not LayerNorm.** No mean subtraction, no bias.
# - **eps inside the root, and 1e-6.** `rsqrt(ms + eps)`, not `1 / (sqrt(ms) + eps)`; LLaMA's
#   reference default is 1e-6 (`nn.LayerNorm`'s is 1e-5; Llama 2 checkpoints set 1e-5 in their
#   config, which is why the constructor takes `eps`).
# - **`keepdim=True`.** Without it the statistic has shape `(...,)` and multiplies the wrong axis,
#   silently when the shapes happen to broadcast.
# - **Per token.** `x.pow(2).mean()` over the whole tensor makes every token depend on its batch.
# - **The gain is a gain.** `weight` starts at ones and multiplies; a `(1 + weight)` offset with
#   zero init (Gemma's convention) is the same function at init but reads a LLaMA checkpoint wrong.
#
# ## Why it works
#
# The residual stream is the model's working memory; each half-layer reads a normalised view of it
# and writes an update. Normalising only the branch input means the branch always sees inputs of a
# controlled scale, whatever the stream has grown to, while the skip path stays an exact identity:
# $\frac{\partial y}{\partial x} = I + \frac{\partial\, \mathrm{ffn}(\mathrm{norm}(x))}{\partial x}$, so gradients reach the first layers without passing through
# any norm. That is why pre-norm stacks train deep without depending on the long warm-up that
# post-norm needs (they still usually warm up briefly: LLaMA uses 2,000 steps). The
# price: the stream's magnitude grows with depth (each block adds to it), which is why LLaMA adds
# one final RMSNorm before the output projection. RMSNorm drops LayerNorm's centring and bias: it
# only needs the scale, and is cheaper.
#
# ## Interviewer follow-ups
#
# The questions an interviewer asks once this runs are served with the exercise (the
# `follow_ups` field of `GET /exercises/ffn_block`) and listed at the end of its notebook, each linked
# to the question-bank item that answers it.
#
# Among them (`followups.yaml`): pre- vs post-norm
# formulas (`np-formulas`), a pre-norm block with a bug (`np-prenorm-code-bug`), the identity
# path (`np-identity-path`), the final norm (`np-final-norm`), the stream's variance growth
# (`res-stream-variance-growth`), the residual gradient (`res-gradient-formula`), RMSNorm's
# formula and its keepdim bug (`rms-formula`, `rms-keepdim-bug`), Gemma's gain offset
# (`rms-gemma-gain-offset`) and porting a LLaMA checkpoint (`rms-port-checklist`).
#
# ## Cost and memory
#
# - **Parameters:** `dim + 3 * dim * hidden_dim`: the norm is negligible, the FFN is everything.
# - **FLOPs:** `6 * dim * hidden_dim` per token for the FFN's matmuls; the norm and the add are a
#   few FLOPs per feature, but they are memory-bound passes over `(..., dim)`, which is why
#   inference engines fuse the add with the next norm (the `fused_add_rms_norm` exercise).
# - **Activations kept for backward:** `x` (for the norm), the per-token `rsqrt` (one number per
#   token), the normalised input, and the SwiGLU's four `(..., hidden_dim)` tensors. The add keeps
#   nothing.
#
# ## Test yourself
#
# - **Stack it:** build eight blocks with `dim = 64` and random weights, feed `N(0,1)` tokens and
#   print the stream's RMS after each block; then do the same with the post-norm mistake. Which
#   one keeps growing, and which one stays at the norm's scale?
# - **Zero the branch:** set `ffn.w2.weight` to zero. What does the block compute, and what is its
#   gradient with respect to `x`? (This is why some models initialise the last projection of each
#   branch small.)
#
# ## Background
#
# The article "FFN, Residual Addition, LN" covers the three pieces in "1.1 FFN（Feed Forward
# Network，前馈层）", "1.2 Add （Residual Connection，残差连接）" and "1.3 LN （Layer Norm，层归一化）",
# RMSNorm in "2.2 RMSNorm" and the placement question in "2.3 Pre-Norm & Post-Norm"; its
# section "残差连接为什么能缓解梯度消失？" derives the `1 +` term of the residual gradient. The
# article "Add & Norm 层" explains the add in "Add", wired the original Transformer's way (norm after the add).
# The article "Transformer残差连接与归一化层实现详解" discusses where norms go in "2.3 归一化层的位置争议".

# %% [markdown]
# <details><summary>中文说明</summary>
#
# # LLaMA 的 FFN 半层：x + SwiGLU(RMSNorm(x))
#
# LLaMA 的一个解码层由残差流上的两个半层组成：先注意力，后 FFN。每个半层都先经过归一化读取残差流，
# 做完计算，再把结果*加*回去：`h = x + attention(norm(x))`，然后 `out = h + ffn(norm(h))`。本题
# 做的是后一半，用的是你之前写过的两块积木：RMSNorm 和 SwiGLU FFN。新的地方在于怎么把它们接起来：
# 前置归一化，跳连路径传的是 `x` 本身。
#
# ## 要写什么
#
# ```python
# class FFNBlock(nn.Module):
#     def __init__(self, dim: int, hidden_dim: int, eps: float = 1e-6) -> None: ...
#     def forward(self, x: torch.Tensor) -> torch.Tensor: ...
# ```
#
# - 两个子模块，属性名必须如下（它们的类写在同一个单元格里，类名随意）：
#
#   | 属性 | 内容 | state dict |
#   | --- | --- | --- |
#   | `norm` | 你的 RMSNorm，作用于最后一维，eps = `eps`，增益 `weight` 初始化为全 1 | `norm.weight` `(dim,)` |
#   | `ffn` | 你的 SwiGLU，不带 bias 的 `w1`（门控）、`w3`（升维）、`w2`（降维） | `ffn.w1.weight` `(hidden_dim, dim)`、`ffn.w2.weight` `(dim, hidden_dim)`、`ffn.w3.weight` `(hidden_dim, dim)` |
#
#   别的都不要：没有 bias，也没有额外的参数或 buffer。
# - 计算公式：`x` 的形状为 `(..., dim)`（1 维到 4 维，可能是非连续张量），dtype 为 float32 或
#   float64，返回形状 `(..., dim)`、dtype 相同的结果，不要修改 `x`：
#
#   $$\begin{aligned}
#   \mathrm{norm}(x) &= \frac{x}{\sqrt{\mathrm{mean}(x^2) + \varepsilon}} \cdot \mathrm{weight} \qquad \text{mean 在最后一维上求}\\
#   \mathrm{ffn}(h) &= w_2\big(\mathrm{silu}(w_1(h)) \odot w_3(h)\big)\\
#   y &= x + \mathrm{ffn}(\mathrm{norm}(x))
#   \end{aligned}$$
#
# - 没有 dropout，也没有其他状态：train 和 eval 模式算的是同一个东西，每次调用都用参数在那一刻的值。
# - 归一化的统计量用 float32 计算再转回原 dtype（LLaMA 的 `self._norm(x.float()).type_as(x)`）
#   也算对：float64 用例的容差给这种写法留了余地。
#
# 评测比较输出，以及对 `x` 和四个参数的梯度。
#
# ## 不允许使用
#
# 整个归一化的内置实现：`nn.RMSNorm`、`F.rms_norm`、`torch.rms_norm`，以及 LayerNorm 的对应实现
# （`nn.LayerNorm`、`F.layer_norm`、`torch.layer_norm`）。用到它们的提交会被拒绝。`nn.Linear`、
# `F.linear`、`F.silu`、`torch.rsqrt` 都可以用。
#
# ## 代码可以运行什么
#
# 答案只能由算术、逐元素数学函数、归约、形状与索引操作、张量创建、随机采样和矩阵乘法，以及 FFN 的激活函数和 dropout构成。代码运行的任何其他运算，不管通过什么途径（起别名、`getattr`、`torch.ops`、`torch._C`、脚本化、自定义算子、张量子类、其他后端的张量），都会被拒绝：判定为 *rejected*，并指出是哪个运算。上面列出的内置函数只要写在代码里就会被拒绝，即使所在的分支从不执行：面试官读到那一行就会停下来。torch 私有的算子实现（`torch._refs`、`torch._decomp`、`torch._prims`）同样被拒绝：每道题的答案都在里面。
#
# ## 如何评测
#
# 每个用例先构建 `FFNBlock`，加载随机权重（增益在 1 附近，
# 投影矩阵按 `1/sqrt(fan_in)` 缩放），然后在 train 和 eval 模式下调用两三次，每次调用后做一次反向
# 传播和一次参数更新。输入包括：标准正态；极小值（`1e-4 * N(0,1)`，此时 `eps` 在均方值里占主导，
# 分别用默认和非默认的 `eps`）；带偏移（`N(0,1) + 5`，中心化的错误会在这里暴露）；较大值
# （`30 * N(0,1)`）；行数和特征数相等的方阵输入（漏写 `keepdim` 时会悄悄广播）；`dim` 从 1 到 200，
# 1 维到 4 维，首维为 1，转置输入；float32 和 float64。（`norm.weight` 初始化为全 1 是接口的一部分；
# 服务器在每个用例里都会加载权重，所以初始值请自己检查。）
#
# **和每道题一样，还有：**同一形状、新数据连续调用三次，再更新参数后调用两次（缓存结果、或从第三次调用起行为改变的代码会判错）；float64 用例给 float32 内部计算留了余量（像 Llama 的 RMSNorm 那样先 `x.float()` 再转回去也算对）。
#
# ## 面试官会盯的坑
#
# - **跳连路径传的是 `x`。** `h = norm(x); return h + ffn(h)` 加回去的是*归一化后*的输入：每个块
#   都在重新缩放残差流。`norm(x + ffn(x))` 则是后置归一化。两者都不是 LLaMA。
# - **RMSNorm 不是 LayerNorm。** 不减均值，也没有 bias。
# - **eps 在根号里，取 1e-6。** 是 `rsqrt(ms + eps)`，不是 `1 / (sqrt(ms) + eps)`；LLaMA 参考代码的
#   默认值是 1e-6（`nn.LayerNorm` 默认 1e-5；Llama 2 的检查点在配置里写的是 1e-5，所以构造函数要接收
#   `eps`）。
# - **`keepdim=True`。** 不加的话统计量形状是 `(...,)`，会乘到错误的轴上，形状恰好能广播时还不报错。
# - **逐 token。** 对整个张量求 `x.pow(2).mean()`，每个 token 的结果就会依赖同一批的其他 token。
# - **增益就是增益。** `weight` 初始化为 1，直接相乘；写成 `(1 + weight)` 再零初始化（Gemma 的约定），
#   初始化时函数相同，但读 LLaMA 检查点时就错了。
#
# ## 为什么有效
#
# 残差流是模型的工作记忆；每个半层读取它的一个归一化视图，再写回一次更新。只对分支输入做归一化，
# 分支看到的输入尺度就始终受控，不管残差流已经长到多大；而跳连路径保持严格的恒等：
# $\frac{\partial y}{\partial x} = I + \frac{\partial\, \mathrm{ffn}(\mathrm{norm}(x))}{\partial x}$，梯度不经过任何归一化就能传到最前面几层。这就是前置归一化的深层
# 堆叠不依赖后置归一化所需的那种长时间预热也能训起来的原因（实际上通常仍会短暂预热：LLaMA 用了 2,000 步）。代价是残差流的幅度随深度增长（每个块都往上加），
# 所以 LLaMA 在输出投影之前还要再加一个 RMSNorm。RMSNorm 去掉了 LayerNorm 的中心化和 bias：它只需要
# 尺度，计算也更省。
#
# ## 面试官的追问
#
# 代码跑通之后面试官会接着问的问题随练习一起提供（`GET /exercises/ffn_block` 返回的 `follow_ups` 字段），
# 也列在对应 notebook 的末尾，每个问题都链接到题库中给出答案的那道题。
#
# 其中有（`followups.yaml`）：前置与后置归一化的公式
# （`np-formulas`）、一个有 bug 的前置归一化模块（`np-prenorm-code-bug`）、恒等路径
# （`np-identity-path`）、最后那个归一化（`np-final-norm`）、残差流方差的增长
# （`res-stream-variance-growth`）、残差的梯度（`res-gradient-formula`）、RMSNorm 的公式及其
# keepdim bug（`rms-formula`、`rms-keepdim-bug`）、Gemma 的增益偏移（`rms-gemma-gain-offset`），
# 以及移植 LLaMA 检查点（`rms-port-checklist`）。
#
# ## 计算量与显存
#
# - **参数量：** `dim + 3 * dim * hidden_dim`：归一化可以忽略，参数几乎全在 FFN 里。
# - **FLOPs：** FFN 的矩阵乘每个 token `6 * dim * hidden_dim`；归一化和加法每个特征只有几次运算，
#   但它们是对 `(..., dim)` 的访存密集型遍历，所以推理引擎会把加法和下一个归一化融合起来（见
#   `fused_add_rms_norm` 这道题）。
# - **为反向保存的激活：** `x`（归一化要用）、每个 token 的 `rsqrt`（每个 token 一个数）、归一化后的
#   输入，以及 SwiGLU 的四个 `(..., hidden_dim)` 张量。加法什么都不用存。
#
# ## 自我检验
#
# - **堆起来：** 用 `dim = 64` 和随机权重搭八个块，输入 `N(0,1)` 的 token，打印每个块之后残差流的
#   RMS；再用后置归一化的错误写法做一遍。哪一种会一直增长，哪一种始终停在归一化的尺度上？
# - **把分支置零：** 把 `ffn.w2.weight` 设为零。这个块算的是什么？它对 `x` 的梯度是多少？（这也是
#   一些模型把每个分支最后一个投影初始化得很小的原因。）
#
# ## 背景
#
# 文章《FFN, Residual Addition, LN》在“1.1 FFN（Feed Forward Network，前馈层）”“1.2 Add
# （Residual Connection，残差连接）”“1.3 LN （Layer Norm，层归一化）”三节分别介绍了这三块积木，在
# “2.2 RMSNorm”一节介绍了 RMSNorm，在“2.3 Pre-Norm & Post-Norm”一节讨论了放置位置；其中
# “残差连接为什么能缓解梯度消失？”一节推导了残差梯度里的那个 `1 +`。文章《Add & Norm 层》在“Add”一节
# 讲解了加法，用的是原始 Transformer 的接法（先相加再归一化）。文章
# 《Transformer残差连接与归一化层实现详解》在“2.3 归一化层的位置争议”一节讨论了归一化放在哪里。
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
#    `# addnorm: exercise ffn_block`: the submit cell sends the last *executed* cell that starts with it.
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
# 2. 在下面的练习单元格里写好你的类并运行。第一行 `# addnorm: exercise ffn_block` 不要删：提交单元格发送的是
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
# addnorm: exercise ffn_block
import torch
import torch.nn.functional as F  # noqa: F401  (F.silu, F.linear: yours to use)
from torch import nn


class FFNBlock(nn.Module):
    # The exercise's class comes first; the two pieces it is built from follow.
    def __init__(self, dim: int, hidden_dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        # The grader loads norm.weight and ffn.w1/w2/w3.weight: keep these names.
        self.norm = RMSNorm(dim, eps)
        self.ffn = SwiGLU(dim, hidden_dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # x: (..., dim) -> the LLaMA FFN half-layer -> (..., dim)
        raise NotImplementedError("implement FFNBlock.forward")


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))  # (dim,): the gain, ones at init

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # x: (..., dim) -> x * rsqrt(mean(x^2) over the last dim + eps) * weight
        raise NotImplementedError("implement RMSNorm.forward")


class SwiGLU(nn.Module):
    def __init__(self, dim: int, hidden_dim: int) -> None:
        super().__init__()
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)  # gate
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)  # down
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)  # up

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # x: (..., dim) -> w2(silu(w1(x)) * w3(x))
        raise NotImplementedError("implement SwiGLU.forward")


# %% [markdown]
# ## Quick local check
#
# Runs your exercise cell again on its own, in a fresh namespace, as the server does, then
# compares a few public cases, forward pass only, with a reference in this kernel. It is a sanity
# check and **does not replace the server's verdict**, which runs many more shapes and dtypes,
# the backward pass and the known-mistake diagnosis.
#
# Reference: The formula `x + w2(silu(w1(h)) * w3(h))` with `h = RMSNorm(x)`, with random weights.
#
# <details><summary>中文</summary>
#
# ## 本地快速检查
#
# 和服务器一样，把你的练习单元格单独放进全新的命名空间重新执行，再用几个公开用例（只做前向）
# 在当前 kernel 里与参考实现对比。这只是一次自检，**不能代替服务器的评测**：服务器会覆盖多得多的
# 形状和 dtype，还会检查反向传播并诊断已知错误。
#
# 参考实现：公式 `x + w2(silu(w1(h)) * w3(h))`，其中 `h = RMSNorm(x)`，权重取随机值。
#
# </details>

# %%
import torch
import torch.nn.functional as F

from addnorm_client.local import LocalCase


def local_cases() -> list[LocalCase]:
    g = torch.Generator().manual_seed(0)

    def case(name: str, shape: tuple[int, ...], hidden: int, scale: float) -> LocalCase:
        dim = shape[-1]
        x = torch.randn(shape, generator=g) * scale
        gain = 1 + 0.5 * torch.randn(dim, generator=g)  # (dim,)
        # Scaled by 1/sqrt(fan_in) so the activations stay around unit size.
        w1 = torch.randn(hidden, dim, generator=g) / dim**0.5  # (hidden, dim)
        w3 = torch.randn(hidden, dim, generator=g) / dim**0.5  # (hidden, dim)
        w2 = torch.randn(dim, hidden, generator=g) / hidden**0.5  # (dim, hidden)
        h = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * gain
        return LocalCase(
            name=name,
            x=x,
            build=lambda cls: cls(dim, hidden),
            state={
                "norm.weight": gain,
                "ffn.w1.weight": w1,
                "ffn.w2.weight": w2,
                "ffn.w3.weight": w3,
            },
            expected=x + F.linear(F.silu(F.linear(h, w1)) * F.linear(h, w3), w2),
        )

    return [
        case("2-D, dim 8, hidden 16", (4, 8), 16, 1.0),
        case("3-D, dim 16, hidden 40", (2, 3, 16), 40, 1.0),
        case("tiny inputs (eps matters)", (3, 12), 20, 1e-4),
    ]


from addnorm_client.local import check

check("ffn_block", "FFNBlock", local_cases())

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

submit_cell("ffn_block")

# %% [markdown]
# ## Interviewer follow-ups
#
# Once the code runs, an interviewer keeps going. Answer out loud first, then check yourself: each
# question links to an item of the question bank, served and graded by the server
# (`GET /questions/<id>`) and collected by topic in the `questions_<topic>` notebooks.
#
# 1. Write pre-norm and post-norm as formulas. Which one is your block? (`np-formulas`, `questions_norm_placement`)
# 2. This block is meant to be pre-norm. What is wrong with it? (`np-prenorm-code-bug`, `questions_norm_placement`)
# 3. What does the skip path give the gradient in a pre-norm stack? (`np-identity-path`, `questions_norm_placement`)
# 4. Why do pre-norm models add one more norm after the last block? (`np-final-norm`, `questions_norm_placement`)
# 5. How does the residual stream's variance grow over 24 blocks? (`res-stream-variance-growth`, `questions_residual`)
# 6. What is dy/dx for y = x + F(x), and why does the identity term matter? (`res-gradient-formula`, `questions_residual`)
# 7. Write RMSNorm's formula. Where does eps go? (`rms-formula`, `questions_rms_norm`)
# 8. What goes wrong without keepdim=True in the mean? (`rms-keepdim-bug`, `questions_rms_norm`)
# 9. Gemma stores the gain as an offset. What changes when you load its weights? (`rms-gemma-gain-offset`, `questions_rms_norm`)
# 10. You port a LLaMA checkpoint to torch.nn.RMSNorm. What must you check? (`rms-port-checklist`, `questions_rms_norm`)
#
# <details><summary>中文</summary>
#
# ## 面试官的追问
#
# 代码跑通之后，面试官还会接着问。先试着口头回答，再去核对：每个问题都对应题库中的一道题，
# 由服务器提供并判分（`GET /questions/<id>`），也按主题收录在 `questions_<topic>` notebook 里。
#
# 1. 分别写出前置归一化和后置归一化的公式。你的模块是哪一种？ (`np-formulas`, `questions_norm_placement`)
# 2. 这个模块本应是前置归一化，哪里错了？ (`np-prenorm-code-bug`, `questions_norm_placement`)
# 3. 在前置归一化的堆叠中，跳连路径给梯度带来了什么？ (`np-identity-path`, `questions_norm_placement`)
# 4. 前置归一化的模型为什么要在最后一个块之后再加一个归一化？ (`np-final-norm`, `questions_norm_placement`)
# 5. 经过 24 个块，残差流的方差会怎样增长？ (`res-stream-variance-growth`, `questions_residual`)
# 6. y = x + F(x) 的 dy/dx 是什么？恒等项为什么重要？ (`res-gradient-formula`, `questions_residual`)
# 7. 写出 RMSNorm 的公式。eps 放在哪里？ (`rms-formula`, `questions_rms_norm`)
# 8. 求均值时不加 keepdim=True 会出什么问题？ (`rms-keepdim-bug`, `questions_rms_norm`)
# 9. Gemma 把增益存成偏移量，加载它的权重时要注意什么？ (`rms-gemma-gain-offset`, `questions_rms_norm`)
# 10. 把 LLaMA 检查点移植到 torch.nn.RMSNorm，需要检查哪些地方？ (`rms-port-checklist`, `questions_rms_norm`)
#
# </details>
