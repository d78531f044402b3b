"""Fix suggestions that fit what the code did, read from its source in the trusted parent.

The same behaviour has different causes: dropout still active in eval mode is ``F.dropout``
without ``training=self.training`` in one submission and an ``nn.Dropout`` kept in a plain
dict (so ``.eval()`` never reaches it) in another. Telling the second to "use an nn.Dropout
module" is wrong advice. A known mistake therefore says in its explanation what the code did,
and lists ``Advice`` entries (``spec.Advice``), each shown only when the source holds the
evidence it names:

- ``calls:<qualified name>``: the source calls it (``calls:torch.nn.functional.dropout``);
- ``unregistered:<qualified name>``: the source builds one inside a plain dict, list, tuple or
  set literal, where ``nn.Module`` does not register it (``unregistered:torch.nn.Dropout``);
- ``float32:<qualified name>``: the source calls it without ``dtype=`` or with
  ``dtype=torch.float32`` (``float32:torch.tensor``: a tensor made from Python numbers, float32
  whatever the input).

Platform diagnoses (not a spec's mistakes) have their advice here, in ``PLATFORM``.

The source is only parsed (``ast``), never run here; a source that does not parse gives no
evidence, and no advice.
"""

from __future__ import annotations

import ast

from api.grading import static
from api.grading.findings import Diagnosis
from api.grading.spec import Advice, ExerciseSpec

_CONTAINERS = (ast.Dict, ast.List, ast.Tuple, ast.Set)
_FLOAT32_NAMES = ("torch.float32", "torch.float")

# A constant built as a tensor (torch.tensor(2.0), torch.sqrt(torch.tensor(d_k))) is float32
# whatever the input's dtype: float64 input multiplied by it is computed to float32's
# precision, the most common way real code meets "float64 input computed in float32".
_FLOAT32_CONSTANT = Advice(
    when=tuple(
        f"float32:torch.{name}" for name in ("tensor", "as_tensor", "scalar_tensor", "full")
    ),
    text="A constant made with torch.tensor(...) (or as_tensor, scalar_tensor, full) without "
    "dtype=, or with dtype=torch.float32, is float32 whatever your input's dtype, so float64 "
    "input combined with it loses float64's precision: use a Python number (math.sqrt(2.0), "
    "d_k ** -0.5) or pass dtype=x.dtype.",
    text_zh="不带 dtype=（或者 dtype=torch.float32）的 torch.tensor(...)（以及 as_tensor、"
    "scalar_tensor、full）做出的常量总是 float32，不管输入是什么类型，float64 的输入和它一起"
    "运算就失去了 float64 的精度：请改用 Python 数（math.sqrt(2.0)、d_k ** -0.5），"
    "或者传入 dtype=x.dtype。",
)
PLATFORM: dict[str, tuple[Advice, ...]] = {"float32_internals": (_FLOAT32_CONSTANT,)}


def evidence(source: str) -> set[str]:
    """The evidence tokens the source supports."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()
    aliases = static._aliases(tree)
    found: set[str] = set()
    inside: set[int] = set()  # calls that sit directly in a plain container literal
    for node in ast.walk(tree):
        if isinstance(node, _CONTAINERS):
            items = list(node.values) if isinstance(node, ast.Dict) else list(node.elts)
            inside.update(id(item) for item in items if isinstance(item, ast.Call))
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        qual = static._qualified(node.func, aliases)
        if qual is None:
            continue
        found.add(f"calls:{qual}")
        dtype = next((k.value for k in node.keywords if k.arg == "dtype"), None)
        if dtype is None or static._qualified(dtype, aliases) in _FLOAT32_NAMES:
            found.add(f"float32:{qual}")
        if id(node) in inside:
            found.add(f"unregistered:{qual}")
    return found


def advise(diagnosis: Diagnosis | None, spec: ExerciseSpec, source: str) -> Diagnosis | None:
    """The diagnosis with the fix suggestions its source supports appended (``advice``), or
    as it is when its mistake has none."""
    if diagnosis is None:
        return None
    mistake = next((m for m in spec.mistakes if m.name == diagnosis.name), None)
    entries = mistake.advice if mistake is not None else PLATFORM.get(diagnosis.name, ())
    if not entries:
        return diagnosis
    tokens = evidence(source)
    fitting = [a for a in entries if tokens.intersection(a.when)]
    if not fitting:
        return diagnosis
    text = " ".join(a.text for a in fitting)
    text_zh = "".join(a.text_zh for a in fitting)
    return diagnosis.model_copy(
        update={
            "advice": text,
            "advice_zh": text_zh,
            "explanation": f"{diagnosis.explanation} {text}",
            "explanation_zh": f"{diagnosis.explanation_zh}{text_zh}",
        }
    )
