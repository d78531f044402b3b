"""Which cases a statement holds on, in words: "with norm_first=True", "for 2-D inputs".

A case has a few *features* a learner can act on: its constructor flags and options (booleans
and strings; sizes are left out, they would separate cases by accident), the mode it runs in,
the input's rank, dtype and memory layout, whether a call has a batch of one, and whether the
module keeps its own initialisation.
``separate`` finds one feature whose values on a set of cases occur on no case of another set.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from api.grading.spec import Call, Case, ExerciseSpec

# The order in which features are tried: a constructor flag explains more than a dtype does.
_ORDER = ("flag", "mode", "rank", "dtype", "init", "layout", "batch", "option")


@dataclass(frozen=True)
class Condition:
    feature: str  # "norm_first", "mode", "rank", ...
    values: tuple[str, ...]
    text: str  # "with norm_first=True"
    text_zh: str  # "norm_first=True", "输入为 2 维": a noun phrase the sentence wraps

    @property
    def words(self) -> dict[str, str]:
        return {self.feature: " or ".join(self.values)}


def zh_pad(phrase: str) -> str:
    """Spaces where a Chinese sentence meets Latin text: "在 norm_first=True 时"."""
    if not phrase:
        return phrase
    lead = " " if phrase[0].isascii() else ""
    tail = " " if phrase[-1].isascii() else ""
    return f"{lead}{phrase}{tail}"


def _defaults(spec: ExerciseSpec) -> dict[str, object]:
    """The reference's keyword defaults: a case that leaves a flag out runs with its default."""
    # Several functions (a mapping): the one the exercise is named after speaks for them.
    reference = spec.reference
    if isinstance(reference, Mapping):
        reference = reference[spec.class_name]
    try:
        params = inspect.signature(reference).parameters.values()
    except (TypeError, ValueError):
        return {}
    return {
        p.name: p.default
        for p in params
        if p.default is not inspect.Parameter.empty and isinstance(p.default, (bool, str, float))
    }


def features(spec: ExerciseSpec, case: Case) -> dict[tuple[str, str], str]:
    """(group, name) -> value, for every feature of the case."""
    found: dict[tuple[str, str], str] = {}
    for name, default in _defaults(spec).items():
        value = case.init_kwargs.get(name, default)
        group = "flag" if isinstance(value, (bool, str)) else "option"
        found[(group, name)] = str(value)
    for name, value in case.init_kwargs.items():
        if isinstance(value, (bool, str)):
            found[("flag", name)] = str(value)
        elif isinstance(value, float):
            found[("option", name)] = f"{value:g}"
    calls = [s for s in case.scenario if isinstance(s, Call)]
    modes = {"train" if s.train else "eval" for s in calls}
    if len(modes) == 1:  # a scenario that mixes modes is no condition a learner acts on
        found[("mode", "mode")] = modes.pop()
    found[("rank", "rank")] = str(case.x.dim())
    found[("dtype", "dtype")] = str(case.x.dtype).removeprefix("torch.")
    found[("init", "init")] = "default" if case.state is None else "given"
    layouts = {s.layout for s in calls}
    if len(layouts) == 1:
        found[("layout", "layout")] = layouts.pop()
    # A call on a batch of one (a leading dimension of 1, on a 2-D or larger input): code with
    # a shortcut for it ("if x.shape[0] == 1") fails only there.
    one = any(s.inputs and s.inputs[0].dim() >= 2 and s.inputs[0].shape[0] == 1 for s in calls)
    found[("batch", "batch")] = "one" if one else "many"
    return found


def _words(group: str, name: str, values: tuple[str, ...]) -> tuple[str, str]:
    """The condition in English ("with norm_first=True") and in Chinese as a noun phrase
    ("norm_first=True", "输入为 2 维"), which the sentences wrap ("在……时", "只有……的用例")."""
    joined, joined_zh = " or ".join(values), "或".join(values)
    if group in ("flag", "option"):
        return (" or ".join(f"with {name}={v}" for v in values), f"{name}={joined_zh}")
    if group == "mode":
        zh = {"train": "训练模式", "eval": "评估（eval）模式"}
        return (
            " or ".join(f"in {v} mode" for v in values),
            "或".join(zh.get(v, f"{v} 模式") for v in values),
        )
    if group == "rank":
        return (
            f"for {'-D or '.join(values)}-D inputs",
            "输入为 " + "或 ".join(f"{v} 维" for v in values),
        )
    if group == "dtype":
        return (f"for {joined} inputs", f"输入为 {joined_zh}")
    if group == "batch":
        if values == ("one",):
            return (
                "with a call on a batch of one (a leading dimension of 1)",
                "某次调用的批大小为 1（第一维为 1）",
            )
        return ("when no call has a batch of one", "没有批大小为 1 的调用")
    if group == "init":
        if values == ("default",):
            return (
                "when the module keeps its own initial parameters (nothing is loaded)",
                "模块使用自己的初始参数（不加载任何参数）",
            )
        return ("when parameters are loaded", "加载给定参数")
    return (f"for {joined} inputs", f"输入为 {joined_zh} 布局")


def separate(
    spec: ExerciseSpec, inside: Sequence[Case], outside: Sequence[Case]
) -> Condition | None:
    """A single feature whose values on ``inside`` occur on none of ``outside``; the first in
    ``_ORDER`` (then by name) that does, with as few values as possible."""
    if not inside:
        return None
    f_in = [features(spec, c) for c in inside]
    f_out = [features(spec, c) for c in outside]
    keys = sorted({k for f in f_in for k in f}, key=lambda k: (_ORDER.index(k[0]), k[1]))
    best: Condition | None = None
    for key in keys:
        if not all(key in f for f in f_in):
            continue
        values = tuple(sorted({f[key] for f in f_in}))
        if any(f.get(key) in values for f in f_out):
            continue
        text, text_zh = _words(key[0], key[1], values)
        found = Condition(key[1], values, text, text_zh)
        if best is None or len(values) < len(best.values):
            best = found
        if len(values) == 1:
            break
    return best
