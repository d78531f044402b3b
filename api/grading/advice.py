"""Fix suggestions that fit what the code did, read from its source in the trusted parent.

The same behaviour has different causes: dropout still active in eval mode is ``F.dropout``
without ``training=self.training`` in one submission and an ``nn.Dropout`` kept in a plain
dict (so ``.eval()`` never reaches it) in another. Telling the second to "use an nn.Dropout
module" is wrong advice. A known mistake therefore says in its explanation what the code did,
and lists ``Advice`` entries (``spec.Advice``), each shown only when the source holds the
evidence it names:

- ``calls:<qualified name>``: the source calls it (``calls:torch.nn.functional.dropout``);
- ``unregistered:<qualified name>``: the source builds one inside a plain dict, list, tuple or
  set literal, where ``nn.Module`` does not register it (``unregistered:torch.nn.Dropout``).

The source is only parsed (``ast``), never run here; a source that does not parse gives no
evidence, and no advice.
"""

from __future__ import annotations

import ast

from api.grading import static
from api.grading.findings import Diagnosis
from api.grading.spec import ExerciseSpec

_CONTAINERS = (ast.Dict, ast.List, ast.Tuple, ast.Set)


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
        if id(node) in inside:
            found.add(f"unregistered:{qual}")
    return found


def advise(diagnosis: Diagnosis | None, spec: ExerciseSpec, source: str) -> Diagnosis | None:
    """The diagnosis with the fix suggestions its source supports appended (``advice``), or
    as it is when its mistake has none."""
    if diagnosis is None:
        return None
    mistake = next((m for m in spec.mistakes if m.name == diagnosis.name), None)
    if mistake is None or not mistake.advice:
        return diagnosis
    tokens = evidence(source)
    fitting = [a for a in mistake.advice if tokens.intersection(a.when)]
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
