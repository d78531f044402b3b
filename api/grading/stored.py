"""A verdict in the form a submission keeps it: the status, the message, and every other detail
made safe to store and to send (``plaintext``), as one JSON tree.

Made where the verdict is decided. With decider processes that is not the service: a decider
sends this form, already bounded, and the service stores it as it comes. Sending the whole
verdict instead had the service parse it, validate it into a ``Verdict``, dump it back and walk
all of it again to bound it: about 3 ms of the service's interpreter per failing verdict, a sixth
of what the service spent on one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from api import jsonbody, plaintext
from api.grading.verdict import Verdict

# The grader's timings are measured in the service after a decider bounded the verdict. The
# decider bounds it with each of them at least as long as a real one will be written (a real
# one is rounded to 0.01 ms and stays under a billion ms), so the service's figures never push a
# verdict past ``plaintext.MAX_RESULT_BYTES``.
TIMING_PLACEHOLDER = 1e9


class StoredVerdictError(ValueError):
    """A stored form that is not one: a decider answering something else."""


@dataclass(frozen=True)
class StoredVerdict:
    status: str
    message: str
    # ``Verdict.model_dump(mode="json")`` without status and message, bounded: valid Unicode,
    # finite floats, 64-bit integers, capped strings and lists, at most MAX_RESULT_BYTES.
    result: dict[str, Any]

    def timed(self, timings_ms: dict[str, float]) -> StoredVerdict:
        """With the grader's own timings in place of what the verdict had (a verdict cut down
        to its ``truncated`` note has none, and gets none)."""
        if "timings_ms" not in self.result:
            return self
        return StoredVerdict(self.status, self.message, {**self.result, "timings_ms": timings_ms})


def stored(verdict: Verdict) -> StoredVerdict:
    return StoredVerdict(
        status=verdict.status,
        message=plaintext.capped(verdict.message, plaintext.MAX_MESSAGE),
        result=plaintext.bounded_result(
            verdict.model_dump(mode="json", exclude={"status", "message"})
        ),
    )


def encode(form: StoredVerdict) -> bytes:
    """For the wire between a decider and the service: bounded, so plain JSON holds it."""
    return jsonbody.dumps({"status": form.status, "message": form.message, "result": form.result})


def decode(blob: bytes) -> StoredVerdict:
    """``encode``'s bytes back, checked for the form's shape (from a trusted process, checked all
    the same: a decider of another version must fail loudly, not store something else)."""
    try:
        tree = jsonbody.loads(blob)
    except ValueError as exc:
        raise StoredVerdictError(f"not JSON: {exc}") from None
    if not isinstance(tree, dict) or set(tree) != {"status", "message", "result"}:
        raise StoredVerdictError("not a stored verdict")
    status, message, result = tree["status"], tree["message"], tree["result"]
    if not (isinstance(status, str) and 0 < len(status) <= 20 and status.isalpha()):
        raise StoredVerdictError(f"not a stored verdict (status {str(status)[:40]!r})")
    if not isinstance(message, str) or not isinstance(result, dict):
        raise StoredVerdictError("not a stored verdict (message or details)")
    return StoredVerdict(status, message, result)
