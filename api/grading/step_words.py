"""A case's step in words, in both languages as written here: 'step 3 of 3: eval-mode call
with backward, input of shape (1, 64)' and '第 3/3 步：以 eval 模式调用并做反向传播，输入形状为
(1, 64)'. A spec's note on a step carries its Chinese (``Call.note_zh``, ``Update.note_zh``);
a note without one is put into Chinese by ``verdict_zh``, the fallback."""

from __future__ import annotations

from api.grading import verdict_zh
from api.grading.phrase import Phrase, view_zh
from api.grading.spec import Call, Case, Kind, Update

NONE = Phrase("", "")


def _shape(shape: tuple[int, ...]) -> str:
    return "(" + ", ".join(str(s) for s in shape) + ")"


def step_words(case: Case, k: int, kind: Kind = "module") -> Phrase:
    """Step ``k`` of the case in words, for a learner: empty for a single call. Only a module
    has a train or eval mode to name."""
    steps = case.scenario
    if len(steps) == 1:
        return NONE
    step = steps[k]
    en = f"step {k + 1} of {len(steps)}: "
    zh = f"第 {k + 1}/{len(steps)} 步："
    if isinstance(step, Update):
        return Phrase(
            en + step.note,
            zh + (step.note_zh if step.note_zh is not None else verdict_zh.note(step.note)),
        )
    if step.parameters is not None:
        return _on_parameters(en, zh, step, kind)
    # A function has no train/eval mode; in an exercise with several, the call names its own.
    mode = None
    if step.function:
        en += f"call of {step.function}"
        called = f"调用 {step.function} "  # a space after a name, none between Chinese words
    elif kind == "module":
        mode = "train" if step.train else "eval"
        en += f"{mode}-mode call"
        called = f"以 {mode} 模式调用"
    else:
        en += "call"
        called = "调用"
    if step.backward and step.defer:
        en += " with its backward held: run with the next call's, in one backward"
        zh += called.rstrip() + "，反向传播暂缓，与下一次调用的反向传播合在一次里做"
    elif step.backward:
        en += " with backward"
        zh += called + "并做反向传播"
    else:
        en += ", forward only under torch.no_grad()"
        zh += called.rstrip() + "，在 torch.no_grad() 下只做前向"
    shape = _shape(tuple(step.inputs[0].shape))
    if step.layout != "contiguous":
        en += f", input a non-contiguous ({step.layout}) view of shape {shape}"
        zh += f"，输入是{view_zh(step.layout)}，形状为 {shape}"
    elif k > 0 and step.inputs[0].shape != case.x.shape:
        en += f", input of shape {shape}"
        zh += f"，输入形状为 {shape}"
    if step.note:
        en += f" ({step.note})"
        # A note that only repeats the call's mode is not said twice in Chinese.
        said = step.note_zh if step.note_zh is not None else verdict_zh.call_note(mode, step.note)
        zh += f"（{said if said is not None else step.note}）" if said != "" else ""
    return Phrase(en, zh)


def _on_parameters(en: str, zh: str, step: Call, kind: Kind) -> Phrase:
    """A call on parameters the contract updates in place (``spec.Parameters``): what is
    called, and the gradients it meets."""
    assert step.parameters is not None
    called = f"{step.function or 'step'}()" if kind == "optimizer" else "call"
    if step.grad_outputs is None:
        en += f"{called}, the gradients left as they are"
        zh += f"梯度保持原样，调用 {called if kind == 'optimizer' else ''}".rstrip()
    else:
        en += f"{called} with fresh gradients"
        zh += f"写入新的梯度后调用 {called if kind == 'optimizer' else ''}".rstrip()
    missing = len(step.parameters.no_grad)
    if missing:
        en += f", {missing} parameter(s) without a gradient (None)"
        zh += f"，其中 {missing} 个参数没有梯度（None）"
    if step.note:
        en += f" ({step.note})"
        said = step.note_zh if step.note_zh is not None else verdict_zh.note(step.note)
        zh += f"（{said}）" if said else ""
    return Phrase(en, zh)
