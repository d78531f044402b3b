"""What a value check found, in both languages as written here: 'differs from the reference by
up to 0.0828 (relative 0.0318) at index (0, 12); allowed 0.000574 there' and '与参考结果最多相差
0.0828（相对误差 0.0318），位于索引 (0, 12)；该处允许的误差为 0.000574'. Numbers and indices
are the same in both."""

from __future__ import annotations

from collections.abc import Sequence

from api.grading.phrase import Phrase

# ``Comparison.nonfinite``'s English, as the comparison names it, and its Chinese.
NONFINITE_ZH = {
    "NaN where the reference is finite": "在参考结果为有限值的位置出现了 NaN",
    "inf where the reference is finite": "在参考结果为有限值的位置出现了 inf",
    "a different value where the reference is infinite": "在参考结果为无穷的位置给出了不同的值",
}


def figure(v: float) -> str:
    return f"{v:.3g}"


def matches(max_abs: float, allowed: float) -> Phrase:
    e, a = figure(max_abs), figure(allowed)
    return Phrase(f"matches (max error {e}, allowed {a})", f"一致（最大误差 {e}，允许 {a}）")


def nonfinite(what: str, index: Sequence[int]) -> Phrase:
    at = str(tuple(index))
    zh = NONFINITE_ZH.get(what, what)
    return Phrase(f"{what} (first at index {at})", f"{zh}（首次出现在索引 {at}）")


def differs(max_abs: float, max_rel: float, index: Sequence[int], allowed: float) -> Phrase:
    e, r, a, at = figure(max_abs), figure(max_rel), figure(allowed), str(tuple(index))
    return Phrase(
        f"differs from the reference by up to {e} (relative {r}) at index {at}; allowed {a} there",
        f"与参考结果最多相差 {e}（相对误差 {r}），位于索引 {at}；该处允许的误差为 {a}",
    )


# --- what a contract, shape, dtype, gradient or memory check found ---------------------------

NEVER_RUN = Phrase("this case was never run", "这个用例没有运行")
MATCHES = Phrase("matches", "一致")
REINITIALISED = Phrase(
    "failed: your constructor changed the parameters of the module it was given",
    "你的构造函数修改了传入模块的参数",
)
MUTATED = Phrase("forward modified its input tensor in place", "forward 原地修改了输入张量")
MISSING_AFTER = Phrase("missing after this step", "这一步之后缺失，或者形状不对")
NO_REPORT = Phrase("no report of the construction", "没有收到构造过程的报告")
BYTES_UNSEEN = Phrase(
    "what forward kept for backward was not observed",
    "没有观测到 forward 为 backward 保存了什么",
)
SAVES_UNSEEN = Phrase(
    "what forward saved for backward was not observed",
    "没能观察到 forward 为 backward 保存了什么",
)
SAVED_NOTHING = Phrase(
    "forward saved nothing with ctx.save_for_backward",
    "forward 没有用 ctx.save_for_backward 保存任何张量",
)


def raised(error_type: str, message: str) -> Phrase:
    """An exception the learner's code raised: its own text stays as Python wrote it."""
    text = f"{error_type}: {message}"
    return Phrase(text, text)


def listing(shapes: dict[str, list[int]], limit: int = 12) -> Phrase:
    """Parameters or buffers with their shapes: 'w1.weight (4, 2), b (4,) and 3 more'."""
    items = [f"{k[:60]} {tuple(v)}" for k, v in list(shapes.items())[:limit]]
    more = len(shapes) - limit
    return Phrase(
        (", ".join(items) or "none") + (f" and {more} more" if more > 0 else ""),
        ("、".join(items) or "无") + (f"，另有 {more} 个" if more > 0 else ""),
    )


def contract_mismatch(expected: dict[str, list[int]], yours: dict[str, list[int]]) -> Phrase:
    want, got = listing(expected), listing(yours)
    return Phrase(
        f"do not match the contract: expected {want.en}; "
        + (f"yours are {got.en}" if yours else "your module has none"),
        f"与约定不符：应为 {want.zh}；" + (f"你的是 {got.zh}" if yours else "你的模块里一个也没有"),
    )


def calls(got: int | None, want: int) -> Phrase:
    if got is None:
        return Phrase(
            f"an unknown number of call(s) in this step; the contract makes {want}",
            f"这一步的调用次数未知；按约定应为 {want} 次",
        )
    return Phrase(
        f"{got} call(s) in this step; the contract makes {want}",
        f"这一步调用了 {got} 次；按约定应为 {want} 次",
    )


def foreign_backward(grad_fn: str) -> Phrase:
    return Phrase(
        f"the output's grad_fn is {grad_fn}, not your Function's backward",
        f"输出的 grad_fn 是 {grad_fn}，而不是你的 Function 的 backward",
    )


def kept_on_ctx(names: str) -> Phrase:
    return Phrase(
        f"forward kept tensors on ctx attributes ({names}) instead of save_for_backward",
        f"forward 把张量存成了 ctx 的属性（{names}），而没有用 save_for_backward 保存",
    )


def saved(n: str | None) -> Phrase:
    return Phrase(
        f"forward kept {n} tensor(s) with ctx.save_for_backward and none on ctx attributes",
        f"forward 用 ctx.save_for_backward 保存了 {n} 个张量，没有把张量存成 ctx 的属性",
    )


def bytes_kept(kept: int, budget: int) -> Phrase:
    if kept > budget:
        return Phrase(
            f"forward kept {kept} bytes for backward, over the budget of {budget} bytes: "
            "activations are stored instead of recomputed",
            f"forward 为 backward 保存了 {kept} 字节，超出了 {budget} 字节的预算："
            "激活被保存了下来，而不是重新计算",
        )
    return Phrase(
        f"forward kept {kept} bytes for backward, within the budget of {budget} bytes",
        f"forward 为 backward 保存了 {kept} 字节，在 {budget} 字节的预算之内",
    )


def returned(what: str) -> Phrase:
    if what == "nothing usable":
        return Phrase(
            "forward returned nothing usable, not what the contract asks",
            "forward 没有返回可用的结果，不符合约定",
        )
    return Phrase(
        f"forward returned {what}, not what the contract asks",
        f"forward 返回的是 {what}，不符合约定",
    )


def shape(got: tuple[int, ...], want: tuple[int, ...]) -> Phrase:
    return Phrase(f"shape {got}, expected {want}", f"形状为 {got}，应为 {want}")


def gradient_shape(got: tuple[int, ...], want: tuple[int, ...]) -> Phrase:
    return Phrase(
        f"gradient shape {got}, expected {want} (the shape of what it is the gradient of)",
        f"梯度的形状为 {got}，应为 {want}（即求导对象的形状）",
    )


def output_dtype(got: str | None, want: str | None) -> Phrase:
    return Phrase(
        f"is {got}, expected {want} (the input's)", f"是 {got}，应为 {want}（与输入相同）"
    )


def gradient_dtype(got: str | None, want: str | None) -> Phrase:
    return Phrase(
        f"is {got}, expected {want} (the dtype of what it is the gradient of)",
        f"是 {got}，应为 {want}（与求梯度的那个张量相同）",
    )


def no_gradient(name: str) -> Phrase:
    return Phrase(
        f"no gradient reached {name}: it is not used in forward, or it is detached",
        f"{name} 没有收到梯度（forward 里没有用到它，或者它被 detach 了）",
    )


def value(got: str, want: str) -> Phrase:
    """A non-float buffer's value against the contract's (a count)."""
    return Phrase(f"is {got}, expected {want}", f"为 {got}，应为 {want}")


def raised_as_contract(name: str) -> Phrase:
    return Phrase(f"raised {name}", f"抛出了 {name}")


def raised_instead(name: str, want: str) -> Phrase:
    return Phrase(
        f"raised {name}, but the contract raises {want} here",
        f"抛出的是 {name}，按约定这里应抛出 {want}",
    )


def returned_a_module(want: str) -> Phrase:
    return Phrase(
        f"returned a module; the contract raises {want} here",
        f"返回了一个模块；按约定这里应抛出 {want}",
    )


# --- what a check compares (its target) -------------------------------------------------------
# The English is also the key clients and tests match a check on ("grad of weight"); the
# Chinese is what a reader sees.


def spaced(words: str) -> str:
    """A space after ASCII that meets the Chinese word following it: '输入[0] 的梯度'."""
    return words + " " if words[-1:].isascii() else words


RUN = Phrase("run", "运行")
PARAMETERS = Phrase("parameters", "参数")
BUFFERS = Phrase("buffers", "buffer")
BACKWARD = Phrase("backward", "backward")
SAVED_FOR_BACKWARD = Phrase("saved for backward", "为 backward 保存的张量")
BYTES_SAVED = Phrase("bytes saved for backward", "为 backward 保存的字节数")


def output(suffix: str = "") -> Phrase:
    """The output, or one of several (``suffix`` '[1]'); ``'.<name>'`` and
    ``'.<name>.grad'``: a parameter's values or gradient after a call that updates it in
    place (``spec.Parameters``)."""
    if suffix.startswith("."):
        return Phrase(f"{suffix[1:]} after the call", f"调用之后的 {suffix[1:]}")
    return Phrase(f"output{suffix}", f"输出{suffix}")


def dtype_of(target: Phrase) -> Phrase:
    return Phrase(f"{target.en} dtype", f"{spaced(target.zh)}的 dtype")


def grad_of(name: str) -> Phrase:
    """The gradient of an input ('input', 'input[1]') or of a parameter by its name."""
    if name == "input" or (name.startswith("input[") and name.endswith("]")):
        return Phrase(f"grad of {name}", f"{spaced('输入' + name[len('input') :])}的梯度")
    return Phrase(f"grad of {name}", f"{name} 的梯度")


def unchanged(suffix: str = "") -> Phrase:
    return Phrase(f"input{suffix} unchanged", f"{spaced('输入' + suffix)}未被修改")


def buffer(name: str) -> Phrase:
    return Phrase(f"buffer {name}", f"buffer {name}")


def calls_to(name: str) -> Phrase:
    return Phrase(f"calls to {name}", f"对 {name} 的调用")


def untouched(name: str) -> Phrase:
    return Phrase(f"{name} untouched", f"{name} 保持原样")


def constructor_raises(error: str) -> Phrase:
    return Phrase(f"constructor raises {error}", f"构造函数抛出 {error}")
