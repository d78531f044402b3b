"""The verdict's own sentences (its status line), written in both languages where they are
produced: the time limit, a crash, a refusal, code that raised, all passed, the failing frame.

The checks inside a verdict word themselves (``check_words``, ``step_words``, ``draw``); this
module only frames them. Chinese typography as ``phrase`` says: full-width punctuation, one
space between a Chinese word and a number, name or code.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from api.grading.findings import quoted
from api.grading.phrase import Phrase


def timed_out(limit: float) -> Phrase:
    return Phrase(
        f"Your code ran longer than the {limit:g} s limit and was stopped. "
        "Look for an infinite loop or a very slow Python-level loop over elements.",
        f"你的代码运行超过了 {limit:g} 秒的时限，已被终止。请检查有没有死循环，"
        "或者在 Python 层逐个元素计算的慢循环。",
    )


OUTPUT_TOO_LONG = Phrase(
    "Your code produced more output than the limit.", "你的代码输出的内容超过了上限。"
)
UNREADABLE = Phrase(
    "Your code's process answered something the grader cannot read.",
    "你的代码所在的进程返回了评测程序无法读取的内容。",
)
GUARD_OFF = Phrase(
    "Your code switched off the grader's check of the operations it runs. Implement it from "
    "tensor ops, without touching the dispatcher's modes.",
    "你的代码关掉了评测程序对其所用运算的检查。请用张量运算自己实现，不要改动分发器"
    "（dispatcher）的模式。",
)


def crashed(signal: str | None) -> Phrase:
    return Phrase(
        "Your code ended the process before it answered"
        + (f" (killed by {signal})" if signal else "")
        + ". Look for os._exit, sys.exit, a segfault in a C call, or memory exhaustion.",
        "你的代码在给出结果之前就结束了进程"
        + (f"（被 {signal} 终止）" if signal else "")
        + "。请检查 os._exit、sys.exit、C 调用里的段错误，或者内存耗尽。",
    )


def called(names: str) -> Phrase:
    """A banned built-in the run-time tripwire saw."""
    return Phrase(
        f"Your code called {names}, which does the whole job this exercise asks you to write. "
        "Implement it from tensor ops.",
        f"你的代码调用了 {names}，它一步就完成了本题要你自己实现的全部工作。请用张量运算自己实现。",
    )


def ran_outside(ops: str, elementary: Phrase, instead: Phrase) -> Phrase:
    """An operation outside the exercise's allow-list."""
    return Phrase(
        f"Your code ran {ops}, which this exercise does not allow: a solution is built from "
        f"{elementary.en}. Instead, {instead.en}.",
        f"你的代码运行了 {ops}，本题不允许使用它：答案只能由{elementary.zh}构成。{instead.zh}。",
    )


def autograd_did_it(what: list[Phrase]) -> Phrase:
    """A hand-written backward that had autograd do the work."""
    return Phrase(
        f"Your Function {' and '.join(w.en for w in what)} inside forward or backward: autograd "
        "did the work the exercise asks you to write. Inside them grad mode stays off and the "
        "autograd engine is not entered; write the gradient with tensor operations.",
        "你的 Function 在 forward 或 backward 里"
        + "，并且".join(w.zh for w in what)
        + "：本题要你亲手写的梯度被 autograd 代劳了。在这两个方法里 grad mode 保持关闭，"
        "也不能进入 autograd 引擎；请用张量运算写出梯度。",
    )


def raised_loading(err: Mapping[str, Any]) -> Phrase:
    line = err.get("line")
    return Phrase(
        f"Your code raised {err.get('type')}"
        + (f" at line {line}" if line else "")
        + f" while loading: {err.get('message')}",
        "你的代码加载时"
        + (f"在第 {line} 行" if line else "")
        + f"抛出了 {err.get('type')}：{err.get('message')}",
    )


def must_define(noun: str) -> Phrase:
    return Phrase(f"Your code must define `{noun}`.", f"你的代码必须定义 `{noun}`。")


def all_passed(n: int, used: float) -> Phrase:
    return Phrase(
        f"All {n} cases passed: outputs and gradients match the reference "
        f"(the closest call used {used:.0%} of its tolerance).",
        f"全部 {n} 个用例通过：输出和梯度都与参考结果一致（最接近上限的一项检查用掉了容差的 "
        f"{used:.0%}）。",
    )


def where(case: str, description: Phrase, step: Phrase) -> Phrase:
    """The case a sentence quotes: its name, what it is and, when there are steps, which."""
    return Phrase(
        f"'{case}' ({description.en})" + (f", {step.en}" if step.en else ""),
        f"'{case}'（{description.zh}" + (f"；{step.zh}" if step.zh else "") + "）",
    )


def raised_on_case(err: Mapping[str, Any], at: Phrase) -> Phrase:
    line = err.get("line")
    return Phrase(
        f"Your code raised {err.get('type')}"
        + (f" at line {line} of your code" if line else "")
        + f" on case {at.en}: {err.get('message')}",
        f"你的代码运行用例 {at.zh}时"
        + (f"，在第 {line} 行" if line else "")
        + f"抛出了 {err.get('type')}：{err.get('message')}",
    )


def _count(failed: int, total: int) -> Phrase:
    return Phrase(
        f"{failed} of {total} cases failed.",
        f"{total} 个用例全部未通过。"
        if failed == total
        else f"{total} 个用例中有 {failed} 个未通过。",
    )


def failed(failed: int, total: int, at: Phrase, target: Phrase, found: Phrase) -> Phrase:
    """'N of M cases failed. First: <case>: <what it checks> <what it found>.'"""
    count = _count(failed, total)
    # A case that never ran has no target to name ("run").
    checked = Phrase(f"{target.en} ", f"检查项「{target.zh}」：") if target.en != "run" else None
    return Phrase(
        f"{count.en} First: {at.en}: {target.en} {found.en}.",
        f"{count.zh}第一个未通过的是用例 {at.zh}，{checked.zh if checked else ''}{found.zh}。",
    )


def looks_like(title: Phrase) -> Phrase:
    return Phrase(
        f" This looks like a known mistake: {quoted(title.en)}.",
        f"这看起来是一个常见错误：{quoted(title.zh)}。",
    )


def raised_elsewhere(err: Mapping[str, Any], case: str) -> Phrase:
    """The end of a named mistake that raises on some shapes and is wrong on others."""
    line = err.get("line")
    return Phrase(
        f" On other cases your code raised {err.get('type')}"
        + (f" at line {line} of your code" if line else "")
        + f", as that mistake does (case '{case}'): {err.get('message')}",
        "在其他用例上，你的代码"
        + (f"在第 {line} 行" if line else "")
        # Python's own message stays out of the Chinese sentence (it is English); the error
        # itself is shown beside the verdict.
        + f"抛出了 {err.get('type')}，这个错误本就会这样（用例 '{case}'）。",
    )
