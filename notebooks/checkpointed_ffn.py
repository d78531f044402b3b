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
# # An FFN that recomputes its activations: graded on memory
#
# **topic:** training · **difficulty:** hard
#
# Training keeps, for every op, what its backward will need: for an FFN
# `linear2(gelu(linear1(x)))` that is the input and the two `hidden_dim`-wide activations, four
# times the input's size each at the usual width. Activation checkpointing keeps only the input
# and recomputes the rest in backward: one more forward for most of the activation memory. This
# exercise asks for that recomputation by hand, and grades it on what it is for: the bytes kept
# for backward.
#
# ## What to write
#
# ```python
# class CheckpointedFFN(nn.Module):
#     def __init__(self, dim: int, hidden_dim: int) -> None: ...  # linear1, linear2 (nn.Linear)
#     def forward(self, x: torch.Tensor) -> torch.Tensor: ...
# ```
#
# - Parameters exactly as in the starter: `linear1 = nn.Linear(dim, hidden_dim)`,
#   `linear2 = nn.Linear(hidden_dim, dim)` (the grader loads them by these names).
# - `forward(x)` returns `linear2(gelu(linear1(x)))`, **exact** GELU, for `x` of shape
#   `(..., dim)` (1-D to 4-D, float32 or float64, any layout), with the same gradients of `x`
#   and of the four parameters as the plain module.
# - **Memory**: on every call with backward, what the forward keeps for backward must stay within
#   **twice the bytes of `x`, plus 5056 bytes** for state whose size does not depend on the
#   input (the CPU generator's state, which a checkpoint keeps with `preserve_rng_state=True` so
#   that a dropout inside redraws the same mask: PyTorch's own reentrant checkpoint does). The
#   budget is about activations: every case is sized so that keeping one exceeds it even with
#   that allowance. The child measures it with saved-tensor hooks: every tensor
#   autograd saves for backward (`ctx.save_for_backward` included), counted once per storage,
#   plus any tensor left on the ctx of your output's `autograd.Function`; the module's own
#   parameters are not counted (they exist anyway). Storing either hidden activation
#   (`N * hidden_dim` elements, `hidden_dim >= dim` in every case, and both where they are equal)
#   breaks the budget; keeping `x` (and the generator's state, if you like) and recomputing does
#   not.
# - The module is called again after parameter updates: recompute from the *current*
#   parameters, and cache nothing on the module (the hooks cannot see a module attribute, but a
#   cache is wrong on its own).
#
# In formulas: the forward keeps only $x$; backward recomputes the hidden activation and applies the chain rule to it:
#
# $$h = \mathrm{GELU}(x W_1^{\top} + b_1),\qquad y = h W_2^{\top} + b_2,\qquad \text{saved} = \{x\}\ \text{not}\ \{h\}$$
#
# ## Not allowed
#
# `torch.utils.checkpoint` (`checkpoint`, `checkpoint_sequential`, `CheckpointFunction`), and the
# saved-tensor hook machinery (`torch.autograd.graph.saved_tensors_hooks`, `save_on_cpu`,
# `disable_saved_tensors_hooks`), which would also blind the measurement. A submission that
# reaches one is *rejected*. `torch.autograd.Function`, `torch.enable_grad`, `torch.autograd.grad`
# and `torch.autograd.backward` inside your backward, `F.linear` and `F.gelu` are all fine.
#
# ## What your code may run
#
# A solution is built from arithmetic, elementwise math, reductions, shape and indexing operations, creation, random draws and matrix products, and the FFN's activations and dropout. Any other operation your code runs, by whatever route (an alias, `getattr`, `torch.ops`, `torch._C`, scripting, a custom op, a tensor subclass, another backend's tensor), is refused: the verdict is *rejected* and names the operation. The built-ins listed above are refused where they are written, even in a branch that never runs: an interviewer reading the code would stop there. torch's private operator implementations (`torch._refs`, `torch._decomp`, `torch._prims`) are refused the same way: they hold every exercise's answer.
#
# ## How it is graded
#
# Twelve freshly drawn scenarios with random weights: `(N, 64)` rows with `hidden_dim = 256`; a
# 3-D float64 input; a train call, a parameter update and an eval call; a strided 4-D view; a 1-D
# vector; a batch of one; `dim = 144` with `hidden_dim = 400`; a transposed view; inputs three
# times N(0,1); `hidden_dim = dim`; a forward under `torch.no_grad()` (where an in-place change of
# `x` is looked for); an eval call in float64. Every call with backward compares the output and
# the gradients of `x`, `linear1.weight`, `linear1.bias`, `linear2.weight`, `linear2.bias`, and
# checks **bytes saved for backward** against the budget (the verdict gives both numbers). A
# module that is right but keeps its activations fails as `saved_bytes_over_budget`.
#
# **Also, as for every exercise:** three calls in a row with fresh data of one shape, then an update and two more calls (code that caches what it computed, or changes from its third call on, fails); float64 cases are compared at float64's own precision: computing float64 input in float32 fails.
#
# ## Pitfalls interviewers look for
#
# - **Computing the FFN outside a custom Function**: autograd then records every op and keeps
#   the activations (`saved_bytes_over_budget`).
# - **`out.sum().backward()` in backward**: the upstream gradient replaced by ones.
# - **`None` for the parameters' gradients**: the FFN never trains.
# - **Grad mode left off in backward**: the recomputed output has no graph (an error).
# - **Recomputing a different function** (tanh GELU, another activation) than forward computed:
#   gradients off by about 1e-3, which a careful check catches.
# - **Recomputing from stale parameters** cached at construction.
#
# ## Why it works
#
# - **What autograd keeps.** `F.linear` keeps its input (and its weight); `gelu` keeps its input.
#   So the plain FFN keeps `x` (`N * dim`), the pre-activation and the activation
#   (`N * hidden_dim` each): with `hidden_dim = 4 * dim`, nine times the input. Inside a custom
#   `Function`'s forward, grad mode is off: nothing is recorded, and only what you pass to
#   `ctx.save_for_backward` survives (question `tr-checkpoint-what-it-saves`).
# - **Recompute, then differentiate.** In backward, turn grad mode back on, make fresh leaves
#   from the saved input and parameters, run the same forward, and call
#   `torch.autograd.grad(out, leaves, grad_output)`: the chain rule continues from the gradient
#   your backward was handed. The recomputed graph is freed when backward returns.
# - **The cost.** One extra forward per backward, about a third more compute for the block; in
#   return the block's activation memory is its input alone. Over a stack of blocks the peak is
#   every block's input plus one block's activations at a time (`tr-checkpoint-peak-memory`).
#
# ## Interviewer follow-ups
#
# The questions an interviewer asks once this runs are served with the exercise (the
# `follow_ups` field of `GET /exercises/checkpointed_ffn`) and listed at the end of its notebook,
# each linked to the question-bank item that answers it. A few to prepare:
#
# - Which memory does checkpointing reduce, and which not? (`tr-checkpoint-what-it-saves`)
# - The peak with checkpointing on every block of 24? (`tr-checkpoint-peak-memory`)
# - What does it really cost? (`tr-gradient-checkpointing`)
# - How does activation memory scale with sequence length? (`tr-activation-memory-scaling`)
#
# ## Cost and memory
#
# Forward: two matmuls of `N * dim * hidden_dim`; backward: those two again (the recomputation)
# plus the four of the ordinary backward, so about 4/3 of the plain module's compute. Memory
# kept for backward: `x` alone (plus the parameters, which exist anyway), against
# `x + 2 * N * hidden_dim` for the plain module. Dropout inside a recomputed block must draw the
# same mask twice: save the generator state (or a seed) in forward and restore it before
# recomputing, which is what `torch.utils.checkpoint` does with `preserve_rng_state=True`.
#
# ## Test yourself
#
# Measure it yourself: wrap a call in `torch.autograd.graph.saved_tensors_hooks` that sums
# `t.untyped_storage().nbytes()` over distinct storages, and compare your module with the plain
# FFN at `dim = 512`, `hidden_dim = 2048`, `N = 4096`. Then add a dropout between the two linears
# and make the recomputation draw the same mask.
#
# ## Background
#
# The article "Transformer残差连接与归一化层实现详解", section "3.2 内存优化技巧", recommends
# gradient checkpointing as a memory optimisation and puts a number on its trade-off; its
# troubleshooting table (section "4.1 典型问题排查表") suggests it when the FFN's memory causes
# out-of-memory errors on long sequences. The trade-off depends on what is recomputed: here one
# extra forward of the block in exchange for its activations (`tr-gradient-checkpointing`).

# %% [markdown]
# <details><summary>中文说明</summary>
#
# # 重算激活的 FFN：按内存评分
#
# 训练时，每个运算都会保留它的 backward 需要的东西：对 FFN `linear2(gelu(linear1(x)))` 来说，
# 就是输入和两个宽度为 `hidden_dim` 的激活，在常见宽度下每个都是输入的四倍大。激活重计算
# （checkpointing）只保留输入，在 backward 里重算其余部分：多做一次前向，换回大部分激活内存。
# 本题要你手写这个重计算，并按它的目的来评分：为 backward 保存的字节数。
#
# ## 要写什么
#
# ```python
# class CheckpointedFFN(nn.Module):
#     def __init__(self, dim: int, hidden_dim: int) -> None: ...  # linear1、linear2（nn.Linear）
#     def forward(self, x: torch.Tensor) -> torch.Tensor: ...
# ```
#
# - 参数与 starter 完全相同：`linear1 = nn.Linear(dim, hidden_dim)`，
#   `linear2 = nn.Linear(hidden_dim, dim)`（评测按这些名字载入参数）。
# - `forward(x)` 返回 `linear2(gelu(linear1(x)))`，用**精确** GELU；`x` 的形状为 `(..., dim)`
#   （1 维到 4 维，float32 或 float64，任意内存布局）；`x` 和四个参数的梯度都要与普通模块相同。
# - **内存**：每次带反向传播的调用中，forward 为 backward 保存的东西不能超过 **`x` 字节数的两倍再加 5056 字节**，后者留给大小与输入
#   无关的状态（CPU 随机数生成器的状态：检查点在 `preserve_rng_state=True` 时会保存它，好让里面的
#   dropout 重算时抽到同一个掩码，PyTorch 自己的 reentrant checkpoint 就是这样做的）。预算针对的是
#   激活：每个用例的大小都保证了即使算上这部分余量，保存一个激活也会超出预算。
#   子进程用 saved-tensor hooks 测量：autograd 为 backward 保存的每个张量（包括
#   `ctx.save_for_backward`），按存储去重计数，再加上留在输出所属 `autograd.Function` 的 ctx 上的
#   张量；模块自己的参数不计入（它们本来就存在）。保存任何一个隐藏层激活（`N * hidden_dim` 个元素，
#   每个用例都有 `hidden_dim >= dim`，两者相等时指两个都保存）都会超出预算；只保留 `x`（愿意的话再加上
#   生成器的状态）并重算则不会。
# - 参数更新后模块还会被再次调用：要用*当前*的参数重算，不要在模块上缓存任何东西（hooks 看不到
#   模块属性，但缓存本身就是错的）。
#
# 用公式写：前向只保留 $x$；反向重新计算隐藏层激活，再对它用链式法则：
#
# $$h = \mathrm{GELU}(x W_1^{\top} + b_1),\qquad y = h W_2^{\top} + b_2,\qquad \text{保存} = \{x\}\ \text{而不是}\ \{h\}$$
#
# ## 不允许使用
#
# `torch.utils.checkpoint`（`checkpoint`、`checkpoint_sequential`、`CheckpointFunction`），以及
# saved-tensor hook 机制（`torch.autograd.graph.saved_tensors_hooks`、`save_on_cpu`、
# `disable_saved_tensors_hooks`），它们也会让测量失效。用到其中任何一个的提交会被判为
# *rejected*。`torch.autograd.Function`、在你的 backward 里使用 `torch.enable_grad`、
# `torch.autograd.grad` 和 `torch.autograd.backward`、`F.linear` 和 `F.gelu` 都可以用。
#
# ## 代码可以运行什么
#
# 答案只能由算术、逐元素数学函数、归约、形状与索引操作、张量创建、随机采样和矩阵乘法，以及 FFN 的激活函数和 dropout构成。代码运行的任何其他运算，不管通过什么途径（起别名、`getattr`、`torch.ops`、`torch._C`、脚本化、自定义算子、张量子类、其他后端的张量），都会被拒绝：判定为 *rejected*，并指出是哪个运算。上面列出的内置函数只要写在代码里就会被拒绝，即使所在的分支从不执行：面试官读到那一行就会停下来。torch 私有的算子实现（`torch._refs`、`torch._decomp`、`torch._prims`）同样被拒绝：每道题的答案都在里面。
#
# ## 如何评测
#
# 每次提交有十二个新随机生成的场景，权重随机：`hidden_dim = 256` 的 `(N, 64)` 行；float64 的三维
# 输入；一次 train 调用、一次参数更新、一次 eval 调用；跨步切片得到的四维视图；一维向量；batch 为
# 1；`dim = 144`、`hidden_dim = 400`；转置视图；三倍 N(0,1) 的输入；`hidden_dim = dim`；
# `torch.no_grad()` 下的前向（检查有没有原地修改 `x`）；float64 的 eval 调用。每次带反向传播的
# 调用都会比较输出以及 `x`、`linear1.weight`、`linear1.bias`、`linear2.weight`、`linear2.bias` 的
# 梯度，并检查**为 backward 保存的字节数**是否在预算之内（评测结果会给出两个数字）。结果正确但保存
# 了激活的模块会判为 `saved_bytes_over_budget`。
#
# **和每道题一样，还有：**同一形状、新数据连续调用三次，再更新参数后调用两次（缓存结果、或从第三次调用起行为改变的代码会判错）；float64 用例按 float64 自身的精度比较：把 float64 输入放到 float32 里计算会判错。
#
# ## 面试官会盯的坑
#
# - **在自定义 Function 之外计算 FFN**：autograd 会记录每个运算并保存激活
#   （`saved_bytes_over_budget`）。
# - **在 backward 里 `out.sum().backward()`**：上游梯度被换成了全 1。
# - **参数的梯度返回 `None`**：这个 FFN 永远不会被训练。
# - **backward 里没有打开梯度模式**：重算的输出没有计算图（会报错）。
# - **重算的函数与 forward 不同**（tanh GELU、换了激活函数）：梯度相差约 1e-3，仔细检查就能发现。
# - **用构造时缓存的旧参数重算。**
#
# ## 为什么有效
#
# - **autograd 保存了什么。** `F.linear` 保存它的输入（和权重）；`gelu` 保存它的输入。所以普通
#   FFN 保存 `x`（`N * dim`）、激活前的值和激活（各 `N * hidden_dim`）：`hidden_dim = 4 * dim` 时是
#   输入的九倍。在自定义 `Function` 的 forward 里梯度模式是关闭的：什么都不会被记录，只有传给
#   `ctx.save_for_backward` 的东西会留下来（题目 `tr-checkpoint-what-it-saves`）。
# - **先重算，再求导。** 在 backward 里重新打开梯度模式，用保存的输入和参数创建新的叶子，运行同一个
#   前向，再调用 `torch.autograd.grad(out, leaves, grad_output)`：链式法则从传给 backward 的梯度
#   继续。重算出来的计算图在 backward 返回时被释放。
# - **代价。** 每次 backward 多一次前向，整个模块的计算量大约多三分之一；换来的是这个模块的激活
#   内存只剩它的输入。在多个模块堆叠时，峰值是所有模块的输入加上同一时刻一个模块的激活
#   （`tr-checkpoint-peak-memory`）。
#
# ## 面试官的追问
#
# 代码跑通之后面试官会接着问的问题随练习一起提供（`GET /exercises/checkpointed_ffn` 返回的
# `follow_ups` 字段），也列在对应 notebook 的末尾，每个问题都链接到题库中给出答案的那道题。
# 可以先准备这几个：
#
# - 重计算减少了哪部分内存，没减少哪部分？（`tr-checkpoint-what-it-saves`）
# - 24 个模块都做重计算时峰值是多少？（`tr-checkpoint-peak-memory`）
# - 它真正的代价是什么？（`tr-gradient-checkpointing`）
# - 激活内存如何随序列长度变化？（`tr-activation-memory-scaling`）
#
# ## 计算量与显存
#
# 前向：两次 `N * dim * hidden_dim` 的矩阵乘法；反向：再做这两次（重算），加上普通反向传播的四次，
# 所以约为普通模块计算量的 4/3。为 backward 保存的内存：只有 `x`（加上本来就存在的参数），而普通
# 模块是 `x + 2 * N * hidden_dim`。如果重算的模块里有 dropout，两次必须抽出同一个掩码：在 forward
# 里保存随机数生成器的状态（或种子），重算前恢复它，`torch.utils.checkpoint` 在
# `preserve_rng_state=True` 时就是这样做的。
#
# ## 自我检验
#
# 自己测一测：用一个 `torch.autograd.graph.saved_tensors_hooks` 包住一次调用，对不同的存储累加
# `t.untyped_storage().nbytes()`，在 `dim = 512`、`hidden_dim = 2048`、`N = 4096` 时比较你的模块和
# 普通 FFN。然后在两个 linear 之间加一个 dropout，让重算时抽出同一个掩码。
#
# ## 背景
#
# 文章《Transformer残差连接与归一化层实现详解》的“3.2 内存优化技巧”一节推荐把梯度检查点作为内存
# 优化手段，并给出了它的代价数字；它的排查表（“4.1 典型问题排查表”一节）建议在长序列下 FFN 内存
# 导致 OOM 时使用它。代价取决于重算了什么：这里是多做一次这个模块的前向，换回它的激活
# （`tr-gradient-checkpointing`）。
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
#    `# addnorm: exercise checkpointed_ffn`: the submit cell sends the last *executed* cell that starts with it.
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
# 2. 在下面的练习单元格里写好你的类并运行。第一行 `# addnorm: exercise checkpointed_ffn` 不要删：提交单元格发送的是
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
# addnorm: exercise checkpointed_ffn
import torch
import torch.nn.functional as F  # noqa: F401  (F.linear, F.gelu: yours to use)
from torch import nn


class CheckpointedFFN(nn.Module):
    def __init__(self, dim: int, hidden_dim: int) -> None:
        super().__init__()
        self.linear1 = nn.Linear(dim, hidden_dim)
        self.linear2 = nn.Linear(hidden_dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # linear2(gelu(linear1(x))), exact GELU, keeping only x (and the parameters) for
        # backward: recompute the activations there. A torch.autograd.Function helps.
        raise NotImplementedError("implement CheckpointedFFN.forward")


# %% [markdown]
# ## Quick local check
#
# Runs your exercise cell again on its own, in a fresh namespace, as the server does, then
# compares a few public cases, forward pass only, with a reference in this kernel. It is a sanity
# check and **does not replace the server's verdict**, which runs many more shapes and dtypes,
# the backward pass and the known-mistake diagnosis.
#
# Reference: `linear2(gelu(linear1(x)))` with random weights: the output, and the gradients of x and the
# parameters your recomputing backward returns (the memory budget is measured on the server).
#
# <details><summary>中文</summary>
#
# ## 本地快速检查
#
# 和服务器一样，把你的练习单元格单独放进全新的命名空间重新执行，再用几个公开用例（只做前向）
# 在当前 kernel 里与参考实现对比。这只是一次自检，**不能代替服务器的评测**：服务器会覆盖多得多的
# 形状和 dtype，还会检查反向传播并诊断已知错误。
#
# 参考实现：`linear2(gelu(linear1(x)))`，权重随机：比较输出，以及你的重算式 backward 给出的 x 和参数的
# 梯度（内存预算在服务器上测量）。
#
# </details>

# %%
import torch

from addnorm_client.local import LocalCase


def local_cases() -> list[LocalCase]:
    g = torch.Generator().manual_seed(0)

    def case(name: str, shape: tuple[int, ...], hidden: int) -> LocalCase:
        dim = shape[-1]
        x = torch.randn(shape, generator=g)
        state = {
            "linear1.weight": torch.randn(hidden, dim, generator=g) / dim**0.5,
            "linear1.bias": torch.randn(hidden, generator=g) * 0.5,
            "linear2.weight": torch.randn(dim, hidden, generator=g) / hidden**0.5,
            "linear2.bias": torch.randn(dim, generator=g) * 0.5,
        }
        h = torch.nn.functional.gelu(x @ state["linear1.weight"].T + state["linear1.bias"])
        expected = h @ state["linear2.weight"].T + state["linear2.bias"]
        return LocalCase(
            name=name, x=x, build=lambda cls: cls(dim, hidden), expected=expected, state=state
        )

    return [case("2-D", (4, 16), 64), case("3-D", (2, 3, 8), 32), case("1-D", (12,), 48)]


from addnorm_client.local import check

check("checkpointed_ffn", "CheckpointedFFN", local_cases())

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

submit_cell("checkpointed_ffn")

# %% [markdown]
# ## Interviewer follow-ups
#
# Once the code runs, an interviewer keeps going. Answer out loud first, then check yourself: each
# question links to an item of the question bank, served and graded by the server
# (`GET /questions/<id>`) and collected by topic in the `questions_<topic>` notebooks.
#
# 1. Which memory does activation checkpointing reduce? (`tr-checkpoint-what-it-saves`, `questions_training`)
# 2. With checkpointing at every block of a 24-block model, what is the peak activation memory? (`tr-checkpoint-peak-memory`, `questions_training`)
# 3. The article says checkpointing trades 30% speed for 50% memory. Is that what it costs? (`tr-gradient-checkpointing`, `questions_training`)
# 4. How does a layer's activation memory grow with sequence length and batch size? (`tr-activation-memory-scaling`, `questions_training`)
# 5. Why does every block have an FFN after its attention? (`ffn-why-after-attention`, `questions_ffn`)
#
# <details><summary>中文</summary>
#
# ## 面试官的追问
#
# 代码跑通之后，面试官还会接着问。先试着口头回答，再去核对：每个问题都对应题库中的一道题，
# 由服务器提供并判分（`GET /questions/<id>`），也按主题收录在 `questions_<topic>` notebook 里。
#
# 1. 激活重计算（checkpointing）减少的是哪部分内存？ (`tr-checkpoint-what-it-saves`, `questions_training`)
# 2. 24 个模块的模型在每个模块都做重计算时，激活内存的峰值是多少？ (`tr-checkpoint-peak-memory`, `questions_training`)
# 3. 文章说重计算用 30% 的速度换 50% 的内存。代价真是这样吗？ (`tr-gradient-checkpointing`, `questions_training`)
# 4. 一层的激活内存如何随序列长度和 batch 大小增长？ (`tr-activation-memory-scaling`, `questions_training`)
# 5. 为什么每个模块在注意力之后都有一个 FFN？ (`ffn-why-after-attention`, `questions_ffn`)
#
# </details>
