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
# # SiLU with a hand-written backward
#
# **topic:** activations · **difficulty:** medium
#
# SiLU (Swish with beta = 1) is `x * sigmoid(x)`, the activation inside LLaMA's SwiGLU
# feed-forward block. Here you write it as a custom `torch.autograd.Function`: the forward *and*
# the backward. Autograd will not derive the gradient for you; it will call your `backward`, and
# whatever it returns is the gradient the rest of the network trains on. A forward that is right
# with a backward that is wrong is a wrong answer, and this exercise grades exactly that.
#
# ## What to write
#
# ```python
# class SiLUFunction(torch.autograd.Function):
#     @staticmethod
#     def forward(ctx, x: torch.Tensor) -> torch.Tensor: ...
#
#     @staticmethod
#     def backward(ctx, grad_output: torch.Tensor) -> torch.Tensor: ...
# ```
#
# - It is used as `y = SiLUFunction.apply(x)`: do not override `apply`, and do the work in
#   `forward`.
# - `x` has any shape (the tests use 1-D to 4-D inputs, contiguous and transposed) and dtype
#   float32, float64, bfloat16 or float16. `forward` returns a new tensor of the **same shape
#   and dtype**; it does not modify `x`.
# - `backward` receives `grad_output` (dL/dy, the shape of `y`) and returns dL/dx, with the
#   shape and dtype of `x`:
#
#   $$\begin{aligned}
#   s &= \sigma(x)\\
#   y &= x \cdot s\\
#   \frac{dy}{dx} &= s + x \cdot s \cdot (1 - s) = s \cdot \big(1 + x \cdot (1 - s)\big)\\
#   \mathrm{grad\_x} &= \mathrm{grad\_output} \cdot \frac{dy}{dx}
#   \end{aligned}$$
#
# - Keep what backward needs with **`ctx.save_for_backward(...)`** and read it back with
#   `ctx.saved_tensors`; not as an attribute such as `ctx.x = x`.
# - `backward` computes the derivative itself: no `torch.autograd.grad`, `.backward()` or
#   `torch.func` inside it.
# - For float16/bfloat16 inputs, compute in float32 and cast back once, in both directions.
#
# Your function must behave like `torch.nn.functional.silu`: same output, same gradient with
# respect to `x`.
#
# ## Not allowed
#
# `F.silu`, `nn.SiLU`, the aten `silu`/`silu_backward` ops (however reached), and autograd
# itself inside `backward` (`torch.autograd.grad`, `torch.autograd.backward`, `Tensor.backward`,
# `torch.func`). A submission that uses one is *rejected*. `torch.sigmoid`, `torch.exp`,
# `torch.tanh` are fine.
#
# ## What your code may run
#
# A solution is built from arithmetic, elementwise math, reductions, shape and indexing operations, creation, random draws and matrix products. Any other operation your code runs, by whatever route (an alias, `getattr`, `torch.ops`, `torch._C`, scripting, a custom op, a tensor subclass, another backend's tensor), is refused: the verdict is *rejected* and names the operation. The built-ins listed above are refused where they are written, even in a branch that never runs: an interviewer reading the code would stop there. torch's private operator implementations (`torch._refs`, `torch._decomp`, `torch._prims`) are refused the same way: they hold every exercise's answer.
#
# Inside your Function's forward and backward, grad mode stays off and the autograd engine is not entered (no `torch.autograd.grad`, `.backward()`, `torch.func`, forward-mode AD): a Function that has autograd do the work is *rejected*.
#
# ## How it is graded
#
# Ten freshly drawn scenarios: one calls the function on four inputs in turn (ranks 1 to 4, a
# leading dim of 1, feature sizes that are no power of two);
# standard normal inputs; 401 points across [-10, 10] in float32 and in float64 (the minimum near
# x = -1.28, the derivative's peak of 1.1 near x = 2.4); `x * 100` in float32 and `x * 1e4` in
# float64, where `exp(x)` overflows; tiny inputs (`x * 1e-3`); a transposed, non-contiguous
# input; a bfloat16 input. Every call but one runs a backward pass with a random upstream
# gradient. The grader calls your backward node itself (`y.grad_fn.apply(grad_output)`) and
# compares what it returns, exactly as returned, with the reference's gradient (computed in
# float64). On every backward pass it also checks that:
#
# - the output's `grad_fn` is your `SiLUFunction`'s node, so the gradient graded is the one you
#   wrote (`backward_not_used` otherwise);
# - your forward kept its tensors with `ctx.save_for_backward` (the grader counts them with
#   saved-tensor hooks) and none on an attribute of `ctx` (`saved_on_ctx_attribute` otherwise);
# - your `backward` called nothing banned: the run-time check watches inside it too, however the
#   call is reached (`getattr`, `torch.ops`).
#
# One call runs under `torch.no_grad()` and checks that `x` was not modified in place.
#
# **Also, as for every exercise:** three calls in a row with fresh data of one shape (code that caches what it computed, or changes from its third call on, fails); float64 cases are compared at float64's own precision: computing float64 input in float32 fails.
#
# ## Pitfalls interviewers look for
#
# - **`grad_output * sigmoid(x)`**: the product rule's second term is missing.
# - **`grad_output * s * (1 - s)`**: sigmoid's derivative, not SiLU's; it vanishes for large x.
# - **`s + x * (1 - s)`**: a factor `s` dropped (at x = -5 that gives -5.0 instead of -0.027).
# - **Not multiplying by `grad_output`**: the chain rule stops at your layer.
# - **`exp(x) / (1 + exp(x))`**: NaN for large x, in forward and backward.
# - **`ctx.x = x`**: right values, but autograd cannot protect or manage the tensor.
# - **Overriding `apply`** (or computing outside `forward`): autograd differentiates the plain ops
#   and your backward never runs.
# - **In-place tricks** (`x.mul_(...)` in forward): the caller's tensor changes.
#
# ## Why it works
#
# - **Product rule.** $y = x \cdot s(x)$, so $\frac{dy}{dx} = s(x) + x \cdot s'(x)$, and sigmoid's derivative is
#   $s' = s(1 - s)$ (at most 1/4, at 0: question `act-sigmoid-max-derivative`). Together:
#   $s\big(1 + x(1 - s)\big)$. For large x it tends to 1 (like ReLU), for very negative x to 0, and it
#   slightly exceeds 1 near x = 2.4: SiLU is not monotone in slope.
# - **Chain rule.** backward receives dL/dy and returns $\frac{\partial L}{\partial x} = \frac{\partial L}{\partial y} \cdot \frac{dy}{dx}$, elementwise.
# - **What to save.** The derivative needs `x` (and `s`, which is cheap to recompute from `x`).
#   Saving `x` alone costs one tensor of memory per call and one extra sigmoid in backward;
#   saving `x` and `s` costs two tensors and saves the sigmoid. Both are correct. The output `y`
#   alone would not do: `x` cannot be recovered from it cheaply.
# - **Why `save_for_backward`.** Autograd tracks tensors saved this way: it raises if one was
#   modified in place before backward (instead of silently returning a wrong gradient), frees them
#   with the graph, and lets saved-tensor hooks offload or recompute them. An attribute on `ctx`
#   escapes all of that.
# - **Stability.** `torch.sigmoid` is stable at both ends; `exp(x) / (1 + exp(x))` is `inf / inf`
#   above x = 88.7 in float32.
#
# ## Interviewer follow-ups
#
# The questions an interviewer asks once this runs are served with the exercise (the
# `follow_ups` field of `GET /exercises/silu_function`) and listed at the end of its notebook, each linked
# to the question-bank item that answers it. A few to prepare:
#
# - What is SiLU(1)? (`act-silu-value`: 0.731)
# - Which statements about Swish are true (minimum, monotonicity, bounds)?
#   (`act-swish-properties`)
# - What is the largest value of sigmoid's derivative, and what does it mean for deep sigmoid
#   networks? (`act-sigmoid-max-derivative`)
# - In SwiGLU, what does the gate do? (`act-swiglu-gate`)
# - How would you verify a hand-written backward? (`torch.autograd.gradcheck` in float64)
# - What changes if `forward` must also support `x` that does not require grad, or a second-order
#   gradient?
#
# ## Cost and memory
#
# Forward and backward are a few elementwise ops each, memory-bound. The memory that matters is
# what stays alive between forward and backward: here one tensor the size of `x` (two if you
# save `s`). In a large model the activations saved for backward, not the weights, dominate
# training memory; recomputing cheap things in backward (as activation checkpointing does for
# whole blocks) trades a little compute for that memory (question `tr-gradient-checkpointing`).
#
# ## Test yourself
#
# Run `torch.autograd.gradcheck(SiLUFunction.apply, (torch.randn(20, dtype=torch.float64,
# requires_grad=True),))` on your function and on each wrong backward above. Then generalise to
# Swish with a learnable `beta` (`y = x * sigmoid(beta * x)`): `forward(ctx, x, beta)` returns
# two gradients, and the one for `beta` must be summed down to `beta`'s shape.
#
# ## Background
#
# The course article "FFN, Residual Addition, LN", section "Swish", notes what sets Swish apart
# from ReLU: negative inputs still produce a (small, negative) output instead of a flat zero, so
# they still pass a gradient (question `act-article-swish-negative`). Its section "SwiGLU" is where SiLU earns its place in modern LLMs:
# LLaMA, Mistral and others gate their FFN with `Swish(x W) * (x V)`, and the article credits
# the gate with more expressive power and healthier gradients. What is established is narrower:
# Shazeer (2020) measured lower perplexity for gated FFNs at equal parameter count and offered no
# explanation of why; the mechanisms are the article's reading, not results. The derivative you write here is
# the one every SwiGLU layer backpropagates through.

# %% [markdown]
# <details><summary>中文说明</summary>
#
# # 手写反向传播的 SiLU
#
# SiLU（beta = 1 的 Swish）就是 `x * sigmoid(x)`，LLaMA 的 SwiGLU 前馈层里用的正是它。本题要把它写成
# 一个自定义的 `torch.autograd.Function`：前向**和**反向都由你来写。autograd 不会替你推导梯度，
# 它只会调用你的 `backward`，你返回什么，网络的其余部分就用什么梯度来训练。前向正确而反向错误，
# 就是错误答案；本题评测的恰恰是这一点。
#
# ## 要写什么
#
# ```python
# class SiLUFunction(torch.autograd.Function):
#     @staticmethod
#     def forward(ctx, x: torch.Tensor) -> torch.Tensor: ...
#
#     @staticmethod
#     def backward(ctx, grad_output: torch.Tensor) -> torch.Tensor: ...
# ```
#
# - 调用方式为 `y = SiLUFunction.apply(x)`：不要重写 `apply`，计算要放在 `forward` 里完成。
# - `x` 可以是任意形状（测试中为 1 维到 4 维，有连续的也有转置后不连续的），dtype 为 float32、
#   float64、bfloat16 或 float16。`forward` 返回一个**形状和 dtype 都与 `x` 相同**的新张量，
#   不修改 `x`。
# - `backward` 接收 `grad_output`（即 dL/dy，形状与 `y` 相同），返回 dL/dx，形状和 dtype 与 `x`
#   相同：
#
#   $$\begin{aligned}
#   s &= \sigma(x)\\
#   y &= x \cdot s\\
#   \frac{dy}{dx} &= s + x \cdot s \cdot (1 - s) = s \cdot \big(1 + x \cdot (1 - s)\big)\\
#   \mathrm{grad\_x} &= \mathrm{grad\_output} \cdot \frac{dy}{dx}
#   \end{aligned}$$
#
# - 反向传播需要的张量用 **`ctx.save_for_backward(...)`** 保存，再通过 `ctx.saved_tensors` 取回；
#   不要存成 `ctx.x = x` 这样的属性。
# - `backward` 要自己算出导数：里面不能调用 `torch.autograd.grad`、`.backward()` 或 `torch.func`。
# - 输入为 float16/bfloat16 时，前向和反向都先转成 float32 计算，最后只转换回原 dtype 一次。
#
# 你的函数要与 `torch.nn.functional.silu` 行为一致：输出相同，对 `x` 的梯度也相同。
#
# ## 不允许使用
#
# `F.silu`、`nn.SiLU`、aten 的 `silu`/`silu_backward` 算子（无论通过什么方式调用），以及在
# `backward` 中使用 autograd 本身（`torch.autograd.grad`、`torch.autograd.backward`、
# `Tensor.backward`、`torch.func`）。用到其中任何一个的提交会被判为 *rejected*。`torch.sigmoid`、
# `torch.exp`、`torch.tanh` 都可以用。
#
# ## 代码可以运行什么
#
# 答案只能由算术、逐元素数学函数、归约、形状与索引操作、张量创建、随机采样和矩阵乘法构成。代码运行的任何其他运算，不管通过什么途径（起别名、`getattr`、`torch.ops`、`torch._C`、脚本化、自定义算子、张量子类、其他后端的张量），都会被拒绝：判定为 *rejected*，并指出是哪个运算。上面列出的内置函数只要写在代码里就会被拒绝，即使所在的分支从不执行：面试官读到那一行就会停下来。torch 私有的算子实现（`torch._refs`、`torch._decomp`、`torch._prims`）同样被拒绝：每道题的答案都在里面。
#
# 在你的 Function 的 forward 和 backward 里，grad mode 保持关闭，也不能进入 autograd 引擎（不能用 `torch.autograd.grad`、`.backward()`、`torch.func`、前向模式自动微分）：让 autograd 代劳的 Function 会被判为 *rejected*。
#
# ## 如何评测
#
# 每次提交有十个新随机生成的场景：一个场景依次在四个输入上调用函数（1 到 4 维、前置维度为 1、
# 特征数不是 2 的幂）；标准正态输入；[-10, 10] 上的 401 个点，float32 和
# float64 各一次（覆盖 x = -1.28 附近的最小值，以及 x = 2.4 附近导数的峰值 1.1）；float32 下的
# `x * 100` 和 float64 下的 `x * 1e4`，此时 `exp(x)` 会溢出；极小的输入（`x * 1e-3`）；转置后
# 不连续的输入；bfloat16 输入。除了一次调用外，每次调用都会用随机的上游梯度做反向传播。评测程序
# 直接调用你的反向节点（`y.grad_fn.apply(grad_output)`），把它返回的梯度原样与参考梯度（在
# float64 下计算）比较。每次反向传播还会检查：
#
# - 输出的 `grad_fn` 是你的 `SiLUFunction` 的节点，这样被评测的才是你写的梯度（否则判为
#   `backward_not_used`）；
# - 你的 forward 用 `ctx.save_for_backward` 保存张量（评测程序用 saved-tensor hooks 计数），
#   并且没有把张量存成 `ctx` 的属性（否则判为 `saved_on_ctx_attribute`）；
# - 你的 `backward` 没有调用任何被禁止的函数：运行时检查同样覆盖 backward 内部，无论是通过
#   `getattr` 还是 `torch.ops` 调到的。
#
# 有一次调用在 `torch.no_grad()` 下运行，检查你没有原地修改 `x`。
#
# **和每道题一样，还有：**同一形状、新数据连续调用三次（缓存结果、或从第三次调用起行为改变的代码会判错）；float64 用例按 float64 自身的精度比较：把 float64 输入放到 float32 里计算会判错。
#
# ## 面试官会盯的坑
#
# - **`grad_output * sigmoid(x)`**：漏掉了乘积法则的第二项。
# - **`grad_output * s * (1 - s)`**：这是 sigmoid 的导数，不是 SiLU 的；x 很大时它趋于 0。
# - **`s + x * (1 - s)`**：漏了一个因子 `s`（x = -5 时得到 -5.0，正确值约为 -0.027）。
# - **没有乘以 `grad_output`**：链式法则在你这一层断掉了。
# - **`exp(x) / (1 + exp(x))`**：x 很大时前向和反向都得到 NaN。
# - **`ctx.x = x`**：数值对，但 autograd 无法保护和管理这个张量。
# - **重写 `apply`**（或在 `forward` 之外做计算）：autograd 会对普通运算求导，你的 backward
#   根本不会运行。
# - **原地操作的小技巧**（在 forward 中 `x.mul_(...)`）：调用者的张量被改掉了。
#
# ## 为什么有效
#
# - **乘积法则。** $y = x \cdot s(x)$，所以 $\frac{dy}{dx} = s(x) + x \cdot s'(x)$，而 sigmoid 的导数是
#   $s' = s(1 - s)$（最大为 1/4，在 0 点取到：题目 `act-sigmoid-max-derivative`）。合起来就是
#   $s\big(1 + x(1 - s)\big)$。x 很大时它趋于 1（与 ReLU 一样），x 很负时趋于 0，在 x = 2.4 附近还略
#   大于 1：SiLU 的斜率并不单调。
# - **链式法则。** backward 接收 dL/dy，逐元素返回 $\frac{\partial L}{\partial x} = \frac{\partial L}{\partial y} \cdot \frac{dy}{dx}$。
# - **保存什么。** 导数需要 `x`（以及 `s`，而 `s` 可以从 `x` 便宜地重新算出）。只保存 `x`，每次
#   调用多占一个张量的内存，反向时多算一次 sigmoid；同时保存 `x` 和 `s`，要占两个张量，但省了那次
#   sigmoid。两种都对。只保存输出 `y` 不行：从 `y` 无法便宜地恢复出 `x`。
# - **为什么用 `save_for_backward`。** 这样保存的张量受 autograd 管理：如果它在反向传播前被原地
#   修改，autograd 会报错（而不是悄悄返回错误的梯度）；它随计算图一起释放；saved-tensor hooks
#   可以把它卸载到别处或改为重新计算。存成 `ctx` 的属性就绕开了这一切。
# - **数值稳定。** `torch.sigmoid` 在两端都是稳定的；`exp(x) / (1 + exp(x))` 在 float32 中 x 超过
#   88.7 时就成了 `inf / inf`。
#
# ## 面试官的追问
#
# 代码跑通之后面试官会接着问的问题随练习一起提供（`GET /exercises/silu_function` 返回的 `follow_ups` 字段），
# 也列在对应 notebook 的末尾，每个问题都链接到题库中给出答案的那道题。可以先准备这几个：
#
# - SiLU(1) 等于多少？（`act-silu-value`：0.731）
# - 关于 Swish 的哪些说法是正确的（最小值、单调性、有界性）？（`act-swish-properties`）
# - sigmoid 导数的最大值是多少？这对很深的 sigmoid 网络意味着什么？（`act-sigmoid-max-derivative`）
# - SwiGLU 中的门控起什么作用？（`act-swiglu-gate`）
# - 怎样验证一个手写的 backward？（在 float64 下用 `torch.autograd.gradcheck`）
# - 如果 `forward` 还要支持不需要梯度的 `x`，或者要支持二阶导数，需要改什么？
#
# ## 计算量与显存
#
# 前向和反向各是几次逐元素运算，瓶颈在访存。真正要紧的内存是从前向保留到反向的那部分：这里是一个
# 与 `x` 同样大的张量（如果同时保存 `s` 就是两个）。在大模型里，训练时占内存的主要是为反向传播
# 保存的激活值，而不是权重；在反向时重新计算便宜的量（激活检查点对整个模块做的就是这件事），就是
# 用一点计算换这部分内存（题目 `tr-gradient-checkpointing`）。
#
# ## 自我检验
#
# 对你的函数以及上面每一种错误的 backward 运行
# `torch.autograd.gradcheck(SiLUFunction.apply, (torch.randn(20, dtype=torch.float64,
# requires_grad=True),))`。然后推广到带可学习参数 `beta` 的 Swish（`y = x * sigmoid(beta * x)`）：
# `forward(ctx, x, beta)` 要返回两个梯度，其中 `beta` 的梯度必须求和归约到 `beta` 的形状。
#
# ## 背景
#
# 课程文章《FFN, Residual Addition, LN》的“Swish”一节指出了 Swish 与 ReLU 的不同：负输入仍会产生
# 一个（小的、负的）输出，而不是一片平坦的零，因此仍然能传回梯度（题目 `act-article-swish-negative`）。同一篇文章的“SwiGLU”一节则说明
# 了 SiLU 在现代大模型中的地位：LLaMA、Mistral 等模型用 `Swish(x W) * (x V)` 给 FFN 加上门控，
# 文章认为门控带来了更强的表达能力和更健康的梯度。有定论的只有更窄的一点：Shazeer（2020）测得参数量相同时门控
# FFN 的困惑度更低，并明说无法解释原因；那些机制是文章自己的解读，不是实验结论。你在这里写的导数，正是每一层 SwiGLU 反向传播时
# 要经过的那个导数。
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
#    `# addnorm: exercise silu_function`: the submit cell sends the last *executed* cell that starts with it.
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
# 2. 在下面的练习单元格里写好你的类并运行。第一行 `# addnorm: exercise silu_function` 不要删：提交单元格发送的是
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
# addnorm: exercise silu_function
from typing import Any

import torch


class SiLUFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
        # Compute x * sigmoid(x); keep what backward needs with ctx.save_for_backward(...).
        raise NotImplementedError("implement SiLUFunction.forward")

    @staticmethod
    def backward(ctx: Any, grad_output: torch.Tensor) -> torch.Tensor:
        # Read ctx.saved_tensors and return grad_output times dSiLU/dx.
        raise NotImplementedError("implement SiLUFunction.backward")


# %% [markdown]
# ## Quick local check
#
# Runs your exercise cell again on its own, in a fresh namespace, as the server does, then
# compares a few public cases, forward pass only, with a reference in this kernel. It is a sanity
# check and **does not replace the server's verdict**, which runs many more shapes and dtypes,
# the backward pass and the known-mistake diagnosis.
#
# Reference: `torch.nn.functional.silu`: the output, and your backward's gradient for x.
#
# <details><summary>中文</summary>
#
# ## 本地快速检查
#
# 和服务器一样，把你的练习单元格单独放进全新的命名空间重新执行，再用几个公开用例（只做前向）
# 在当前 kernel 里与参考实现对比。这只是一次自检，**不能代替服务器的评测**：服务器会覆盖多得多的
# 形状和 dtype，还会检查反向传播并诊断已知错误。
#
# 参考实现：`torch.nn.functional.silu`：比较输出，以及你的 backward 对 x 的梯度。
#
# </details>

# %%
import torch
import torch.nn.functional as F

from addnorm_client.local import LocalCase


def local_cases() -> list[LocalCase]:
    g = torch.Generator().manual_seed(0)

    def case(name: str, shape: tuple[int, ...], scale: float) -> LocalCase:
        x = torch.randn(shape, generator=g) * scale
        return LocalCase(
            name=name,
            x=x,
            build=lambda fn: fn.apply,
            expected=F.silu(x),
        )

    return [
        case("2-D", (4, 8), 1.0),
        case("3-D, wide range", (2, 3, 40), 4.0),
        case("large |x|", (3, 16), 100.0),
    ]


from addnorm_client.local import check

check("silu_function", "SiLUFunction", local_cases())

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

submit_cell("silu_function")

# %% [markdown]
# ## Interviewer follow-ups
#
# Once the code runs, an interviewer keeps going. Answer out loud first, then check yourself: each
# question links to an item of the question bank, served and graded by the server
# (`GET /questions/<id>`) and collected by topic in the `questions_<topic>` notebooks.
#
# 1. What is SiLU(1)? (`act-silu-value`, `questions_activations`)
# 2. Is Swish monotone? Bounded? Where is its minimum? (`act-swish-properties`, `questions_activations`)
# 3. Your backward uses sigmoid's derivative. What is its largest value, and what follows for deep sigmoid networks? (`act-sigmoid-max-derivative`, `questions_activations`)
# 4. What does Swish do with negative inputs that ReLU does not? (`act-article-swish-negative`, `questions_activations`)
# 5. Where does SiLU sit in a SwiGLU FFN, and what does the gate do? (`act-swiglu-gate`, `questions_activations`)
# 6. You saved x and recomputed sigmoid in backward. How does that idea scale up to whole blocks? (`tr-gradient-checkpointing`, `questions_training`)
#
# <details><summary>中文</summary>
#
# ## 面试官的追问
#
# 代码跑通之后，面试官还会接着问。先试着口头回答，再去核对：每个问题都对应题库中的一道题，
# 由服务器提供并判分（`GET /questions/<id>`），也按主题收录在 `questions_<topic>` notebook 里。
#
# 1. SiLU(1) 等于多少？ (`act-silu-value`, `questions_activations`)
# 2. Swish 单调吗？有界吗？最小值在哪里？ (`act-swish-properties`, `questions_activations`)
# 3. 你的 backward 用到了 sigmoid 的导数。它的最大值是多少？这对很深的 sigmoid 网络意味着什么？ (`act-sigmoid-max-derivative`, `questions_activations`)
# 4. 对负输入，Swish 做了什么 ReLU 没做的事？ (`act-article-swish-negative`, `questions_activations`)
# 5. SiLU 在 SwiGLU FFN 中处在什么位置？门控起什么作用？ (`act-swiglu-gate`, `questions_activations`)
# 6. 你保存了 x，在反向时重新计算 sigmoid。这个思路放大到整个模块是什么？ (`tr-gradient-checkpointing`, `questions_training`)
#
# </details>
