"""How a grading child died, in words a learner understands.

The slot server calls ``describe`` on the child's wait status when the child gave no answer.
It never raises: a signal number Python has no name for (the real-time signals 34-64, or one a
newer kernel adds) still gets a name and a sentence.
"""

from __future__ import annotations

import os
import signal

# What each signal means for a submission in this sandbox (see sandbox.py for the limits).
_MEANING: dict[int, str] = {
    signal.SIGSYS: "your code started more threads than the sandbox allows "
    "(e.g. torch.set_num_threads above 1, or a threading.Thread); grading uses one thread",
    signal.SIGXCPU: "your code used up its CPU time",
    signal.SIGKILL: "the process was killed from outside: it ran out of memory or CPU time",
    signal.SIGSEGV: "a C call read memory it should not have, or the recursion was too deep",
    signal.SIGBUS: "a C call read memory it should not have",
    signal.SIGABRT: "a C library aborted (often an assertion inside torch or out of memory)",
    signal.SIGFPE: "an arithmetic error in a C call (integer division by zero?)",
    signal.SIGILL: "the CPU met an illegal instruction in a C call",
    signal.SIGXFSZ: "your code tried to write a file, which the sandbox forbids",
    signal.SIGPIPE: "your code wrote to a pipe nobody reads",
}


def signal_name(signum: int) -> str:
    """``SIGSEGV``, ``SIGRTMIN+3``, or ``signal 99``: never raises."""
    try:
        return signal.Signals(signum).name
    except ValueError:
        pass
    low, high = int(signal.SIGRTMIN), int(signal.SIGRTMAX)
    if low <= signum <= high:
        return "SIGRTMIN" if signum == low else f"SIGRTMIN+{signum - low}"
    return f"signal {signum}"


def explain_signal(signum: int) -> str:
    """The name and, where known, what it means here: ``SIGSYS: your code started ...``."""
    name = signal_name(signum)
    meaning = _MEANING.get(signum)
    if meaning is None:
        meaning = "a signal sent by your own code (a real-time signal, or one it raised)"
        if not int(signal.SIGRTMIN) <= signum <= int(signal.SIGRTMAX):
            meaning = "a signal your code raised or a C call received"
    return f"{name}: {meaning}"


def describe(wait_status: int) -> dict[str, str | int | None]:
    """``{"signal": <name: meaning> or None, "exit_code": int or None}`` of a wait status."""
    if os.WIFSIGNALED(wait_status):
        return {"signal": explain_signal(os.WTERMSIG(wait_status)), "exit_code": None}
    if os.WIFEXITED(wait_status):
        return {"signal": None, "exit_code": os.WEXITSTATUS(wait_status)}
    return {"signal": None, "exit_code": None}
