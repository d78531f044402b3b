"""The lock-down applied in a forked grading child before any learner code runs.

The zygote calls ``prepare()`` once (after importing torch, before forking): it loads libseccomp,
pre-imports what a child may need lazily, records the directories of loaded shared libraries and
probes every layer. Each child then calls ``lock_down()``; it either returns with every layer the
profile requires in force, or raises ``SandboxError``, and the child must then ``os._exit``
without running the submission (fail closed).

Layers, in the order they are applied (the order matters, see ``apply_layers``):

``setsid``        a new session and process group, so the slot server can kill the whole group
``close_fds``     stdio onto /dev/null, every other fd closed except ``keep_fds``
``clear_env``     empty environment, cwd ``/``, the repo removed from ``sys.path``
``rlimits``       address space, CPU seconds, file size 0, few fds, no core dumps, tasks (with uid)
``mount_ns``      a private mount namespace whose root holds only the readable roots and three
                  devices (``mountns.py``): no ``stat`` of anything else, no ``/proc``
``no_new_privs``  ``PR_SET_NO_NEW_PRIVS``: no privilege gain through exec; Landlock needs it
``landlock``      read-only access to the Python install, site-packages and loaded libraries'
                  directories; no writes, no TCP, no signals or abstract sockets out of the domain
``uid``           a per-slot unprivileged uid/gid when running as root
``capabilities``  every capability dropped (a root child without the uid switch keeps uid 0
                  but can no longer raise its rlimits, override file modes or signal anyone)
``seccomp``       an allowlist of system calls; one thread (a second one is death by SIGSYS),
                  no new processes, exec, sockets, ptrace, ...

Linux x86_64 only (syscall numbers below); ``probe()`` reports a layer unavailable elsewhere.
"""

from __future__ import annotations

import ctypes
import errno
import json
import linecache
import os
import resource
import select
import signal
import site
import stat
import struct
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from types import ModuleType
from typing import Any, Final

from api.grading import mountns

# --- public types --------------------------------------------------------------------------------


class Layer(StrEnum):
    SETSID = "setsid"
    CLOSE_FDS = "close_fds"
    CLEAR_ENV = "clear_env"
    RLIMITS = "rlimits"
    MOUNT_NS = "mount_ns"
    NO_NEW_PRIVS = "no_new_privs"
    LANDLOCK = "landlock"
    UID = "uid"
    CAPABILITIES = "capabilities"
    SECCOMP = "seccomp"


APPLY_ORDER: Final[tuple[Layer, ...]] = tuple(Layer)


class Profile(StrEnum):
    """How much isolation the operator demands; chosen with ``ADDNORM_SANDBOX``.

    ``strict`` (default) requires every layer, and the per-slot uid when running as root.
    ``standard`` drops the Landlock and per-slot uid requirements (both still used when
    available): for kernels without Landlock, or a root install whose Python is private.
    ``insecure`` is for development only: process hygiene and rlimits, nothing that stops a
    submission from reading files, opening sockets or starting programs.
    """

    STRICT = "strict"
    STANDARD = "standard"
    INSECURE = "insecure"


_BASE: Final = frozenset({Layer.SETSID, Layer.CLOSE_FDS, Layer.CLEAR_ENV, Layer.RLIMITS})
_REQUIRED: Final[dict[Profile, frozenset[Layer]]] = {
    Profile.STRICT: _BASE | {Layer.NO_NEW_PRIVS, Layer.LANDLOCK, Layer.CAPABILITIES, Layer.SECCOMP},
    Profile.STANDARD: _BASE | {Layer.NO_NEW_PRIVS, Layer.CAPABILITIES, Layer.SECCOMP},
    Profile.INSECURE: _BASE,
}
_OPTIONAL: Final[dict[Profile, frozenset[Layer]]] = {
    # uid: required as root, meaningless otherwise. mount_ns: where the host allows it (root, or
    # unprivileged user namespaces); /health says whether it is in force.
    Profile.STRICT: frozenset({Layer.UID, Layer.MOUNT_NS}),
    Profile.STANDARD: frozenset({Layer.LANDLOCK, Layer.UID, Layer.MOUNT_NS}),
    Profile.INSECURE: frozenset(),
}


@dataclass(frozen=True)
class LayerStatus:
    available: bool
    detail: str


@dataclass(frozen=True)
class Limits:
    """Resource limits for one child. ``address_space_headroom`` is added to the child's current
    address space at lock-down: a warm torch process already maps ~0.6 GiB."""

    address_space_headroom: int = 3 << 30
    cpu_seconds: int = 10
    open_files: int = 32
    # Threads the child may run (RLIMIT_NPROC counts tasks per uid); only enforceable with the
    # per-slot uid: root ignores it and a shared service uid has many tasks already.
    tasks: int = 4
    uid_base: int = 61000


class SandboxError(RuntimeError):
    """A layer the profile requires could not be applied: the child must not run the code."""


# --- profile resolution --------------------------------------------------------------------------


def _running_as_root() -> bool:
    return os.geteuid() == 0


def required_layers(profile: Profile) -> frozenset[Layer]:
    req = _REQUIRED[profile]
    if profile is Profile.STRICT and _running_as_root():
        req = req | {Layer.UID}
    return req


def check_profile(profile: Profile, status: dict[Layer, LayerStatus]) -> list[str]:
    """One message per layer the profile requires but this host lacks; empty means go."""
    missing = []
    for layer in APPLY_ORDER:
        if layer in required_layers(profile) and not status[layer].available:
            missing.append(
                f"sandbox layer {layer.value!r} required by profile "
                f"{profile.value!r} is unavailable: {status[layer].detail}"
            )
    if missing:
        weaker = [p.value for p in Profile if not (required_layers(p) - _available(status))]
        hint = (
            f"choose a weaker profile explicitly, e.g. ADDNORM_SANDBOX={weaker[0]}"
            if weaker
            else "no profile can run here"
        )
        missing.append(f"{hint} (profiles: strict > standard > insecure; see SECURITY.md)")
    return missing


def _available(status: dict[Layer, LayerStatus]) -> set[Layer]:
    return {layer for layer, s in status.items() if s.available}


def layers_for(profile: Profile, status: dict[Layer, LayerStatus]) -> list[Layer]:
    """The layers a child applies: all required ones, plus the optional ones this host has."""
    wanted = required_layers(profile) | (_OPTIONAL[profile] & _available(status))
    if not _running_as_root():
        wanted = wanted - {Layer.UID}
    return [layer for layer in APPLY_ORDER if layer in wanted]


# --- libc, prctl, raw syscalls -------------------------------------------------------------------

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
_libc.prctl.restype = ctypes.c_int
_libc.prctl.argtypes = [
    ctypes.c_int,
    ctypes.c_ulong,
    ctypes.c_ulong,
    ctypes.c_ulong,
    ctypes.c_ulong,
]

PR_SET_NO_NEW_PRIVS: Final = 38
PR_GET_NO_NEW_PRIVS: Final = 39
_X86_64: Final = os.uname().machine == "x86_64"
SYS_LANDLOCK_CREATE_RULESET: Final = 444
SYS_LANDLOCK_ADD_RULE: Final = 445
SYS_LANDLOCK_RESTRICT_SELF: Final = 446


def _oserror(what: str) -> OSError:
    err = ctypes.get_errno()
    return OSError(err, f"{what}: {os.strerror(err)}")


PR_CAPBSET_DROP: Final = 24
PR_CAP_AMBIENT: Final = 47
PR_CAP_AMBIENT_CLEAR_ALL: Final = 4
SYS_CAPSET: Final = 126
_CAP_VERSION_3: Final = 0x20080522
_CAP_LAST: Final = 63  # more than any kernel defines; the kernel answers EINVAL past its last


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [
        ("effective", ctypes.c_uint32),
        ("permitted", ctypes.c_uint32),
        ("inheritable", ctypes.c_uint32),
    ]


def _drop_capabilities() -> None:
    """Empty every capability set. After the uid switch this is already so; a root child
    without it would otherwise keep CAP_SYS_RESOURCE (raise its rlimits), CAP_KILL, ..."""
    _libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    # The bounding set matters only to a later exec (which seccomp forbids); without
    # CAP_SETPCAP (a non-root service) it cannot be changed and the first drop says EPERM.
    for cap in range(_CAP_LAST + 1):
        if _libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 and ctypes.get_errno() == errno.EPERM:
            break
    header = _CapHeader(_CAP_VERSION_3, 0)
    data = (_CapData * 2)()
    if _libc.syscall(SYS_CAPSET, ctypes.byref(header), ctypes.byref(data)) != 0:
        raise _oserror("capset")


def _set_no_new_privs() -> None:
    if _libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise _oserror("prctl(PR_SET_NO_NEW_PRIVS)")


# --- Landlock ------------------------------------------------------------------------------------

_FS_READ_FILE: Final = 1 << 2
_FS_READ_DIR: Final = 1 << 3
# Every filesystem right each ABI knows: handling a right and granting it nowhere denies it.
_FS_HANDLED_BY_ABI: Final = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1, 5: (1 << 16) - 1}
_NET_BIND_TCP: Final = 1 << 0
_NET_CONNECT_TCP: Final = 1 << 1
_SCOPE_ABSTRACT_UNIX_SOCKET: Final = 1 << 0
_SCOPE_SIGNAL: Final = 1 << 1
_CREATE_RULESET_VERSION: Final = 1 << 0
_RULE_PATH_BENEATH: Final = 1


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def landlock_abi() -> int:
    """The kernel's Landlock ABI version, 0 if it has none (or it is disabled at boot)."""
    if not _X86_64:
        return 0
    abi = _libc.syscall(SYS_LANDLOCK_CREATE_RULESET, None, 0, _CREATE_RULESET_VERSION)
    return max(int(abi), 0)


def _fs_handled(abi: int) -> int:
    return _FS_HANDLED_BY_ABI[max(k for k in _FS_HANDLED_BY_ABI if k <= abi)]


def _ruleset_attr(abi: int) -> tuple[_RulesetAttr, int]:
    """The attribute and the size to pass: older kernels reject fields they do not know."""
    attr = _RulesetAttr(handled_access_fs=_fs_handled(abi))
    size = 8
    if abi >= 4:  # TCP bind/connect: handled and never granted
        attr.handled_access_net = _NET_BIND_TCP | _NET_CONNECT_TCP
        size = 16
    if abi >= 6:  # no signals to, no abstract unix sockets of, processes outside the domain
        attr.scoped = _SCOPE_ABSTRACT_UNIX_SOCKET | _SCOPE_SIGNAL
        size = 24
    return attr, size


def _landlock_restrict(abi: int, read_only: Iterable[str]) -> None:
    attr, size = _ruleset_attr(abi)
    ruleset = int(_libc.syscall(SYS_LANDLOCK_CREATE_RULESET, ctypes.byref(attr), size, 0))
    if ruleset < 0:
        raise _oserror("landlock_create_ruleset")
    try:
        for path in read_only:
            _landlock_allow(ruleset, path)
        if _libc.syscall(SYS_LANDLOCK_RESTRICT_SELF, ruleset, 0) != 0:
            raise _oserror("landlock_restrict_self")
    finally:
        os.close(ruleset)


def _landlock_allow(ruleset: int, path: str) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except FileNotFoundError:
        return  # a library directory that went away grants nothing
    try:
        is_dir = stat.S_ISDIR(os.fstat(fd).st_mode)
        rule = _PathBeneathAttr(_FS_READ_FILE | (_FS_READ_DIR if is_dir else 0), fd)
        if (
            _libc.syscall(SYS_LANDLOCK_ADD_RULE, ruleset, _RULE_PATH_BENEATH, ctypes.byref(rule), 0)
            != 0
        ):
            raise _oserror(f"landlock_add_rule({path})")
    finally:
        os.close(fd)


def repo_root() -> Path:
    """The directory holding the ``api`` package: the grader's source, never readable."""
    return Path(__file__).resolve().parents[2]


_repo = str(repo_root())


def readable_roots(mapped: Iterable[str] = ()) -> list[str]:
    """What a child may read: the standard library, the import path outside the repo
    (site-packages, including directories a ``.pth`` file added) and the directories of the
    shared libraries already loaded (so a stdlib extension imported late finds its .so).

    Inside the repo only site-packages directories (a venv in the checkout) are granted; the
    repo itself, its ancestors and everything else in it (the grader, solutions/, the data
    directory) never are.
    """
    paths = sysconfig.get_paths()
    candidates = [paths.get(k, "") for k in ("stdlib", "purelib", "platlib")]
    candidates += site.getsitepackages() + sys.path + list(mapped)
    repo = repo_root()
    roots: set[Path] = set()
    for c in candidates:
        if not c or not os.path.isabs(c):
            continue
        p = Path(os.path.realpath(c))
        if not p.is_dir() or p == repo or p in repo.parents:
            continue
        if repo in p.parents and not _is_site_dir(p, repo):
            continue
        roots.add(p)
    # A root beneath another adds nothing.
    return sorted(str(p) for p in roots if not any(q in p.parents for q in roots))


def _is_site_dir(path: Path, repo: Path) -> bool:
    """``path`` is (inside) a site-packages directory, and no part of the repo's own tree."""
    parts = path.relative_to(repo).parts
    return any(part in ("site-packages", "dist-packages") for part in parts)


def _mapped_library_dirs() -> list[str]:
    dirs: set[str] = set()
    with open("/proc/self/maps") as maps:
        for line in maps:
            parts = line.split(maxsplit=5)
            if len(parts) == 6 and parts[5].startswith("/") and ".so" in parts[5]:
                dirs.add(os.path.dirname(parts[5].strip()))
    return sorted(dirs)


# --- seccomp -------------------------------------------------------------------------------------

# The calls a warm torch process needs for forward/backward, Python's own runtime (imports from
# allowed directories, threads, signals, time) and nothing that reaches outside the process.
# Everything else answers EPERM: new processes (fork/vfork/clone without CLONE_THREAD), exec,
# (a new thread is not EPERM but death by SIGSYS, see _seccomp_filter),
# socket(), ptrace, process_vm_*, io_uring, bpf, unshare/setns, mount, keyctl, perf_event_open,
# personality, chroot, module loading, setsid, set*id, kill of other processes, ...
_ALLOWED_NAMES = """
    read write readv writev pread64 pwrite64 preadv pwritev preadv2 pwritev2 lseek close dup
    dup2 dup3 fstat newfstatat stat lstat statx statfs fstatfs access faccessat faccessat2
    getdents64 readlink readlinkat getcwd chdir fchdir fsync fdatasync ftruncate fadvise64
    umask pipe pipe2 eventfd2 poll ppoll select pselect6 epoll_create1 epoll_ctl
    epoll_wait epoll_pwait sendmsg recvmsg sendto recvfrom shutdown getsockopt getsockname
    getpeername mmap munmap mprotect mremap madvise brk msync mincore membarrier get_mempolicy
    futex futex_waitv set_robust_list get_robust_list rseq set_tid_address arch_prctl
    rt_sigaction rt_sigprocmask rt_sigreturn sigaltstack rt_sigpending rt_sigtimedwait
    rt_sigsuspend pause getpid gettid getppid getuid geteuid getgid getegid getresuid getresgid
    getgroups getpgrp getpgid getsid capget clock_gettime clock_getres clock_nanosleep
    nanosleep gettimeofday time getitimer setitimer alarm sched_yield sched_getaffinity
    sched_getparam sched_getscheduler sched_get_priority_max
    sched_get_priority_min sched_getattr getrlimit setrlimit getrusage times sysinfo uname
    getrandom getcpu wait4 waitid exit exit_group restart_syscall
"""
_ALLOWED: Final = tuple(_ALLOWED_NAMES.split())
# ioctl requests Python and libc make on ordinary fds (isatty, non-blocking, close-on-exec).
_IOCTLS: Final = (0x5401, 0x5413, 0x541B, 0x5421, 0x5450, 0x5451)
# fcntl commands that cannot reach another process: not F_SETOWN/F_SETSIG (SIGIO would signal
# it), F_SETLEASE, F_NOTIFY, nor the record locks (a read lock on a file the server writes
# stalls it, should Landlock be missing). Dup, fd flags, status flags, F_GETLK, pipe size, seals.
_FCNTLS: Final = (0, 1, 2, 3, 4, 5, 36, 1030, 1032, 1034)
_OPEN_WRITE_FLAGS: Final = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
_CLONE_THREAD: Final = 0x00010000
# CLONE_NEWNS|NEWCGROUP|NEWUTS|NEWIPC|NEWUSER|NEWPID|NEWNET: a thread may carry none of them.
_CLONE_NEW_NAMESPACES: Final = 0x7E020000
_AF_UNIX: Final = 1

_seccomp: ModuleType | None = None
_seccomp_error = "not loaded yet"


def _load_seccomp() -> ModuleType | None:
    """pyseccomp, imported once in the zygote: its import runs ``ctypes.util.find_library``,
    which starts ``ldconfig`` -- impossible in a locked child."""
    global _seccomp, _seccomp_error
    if _seccomp is None:
        try:
            import pyseccomp

            _seccomp = pyseccomp
            _seccomp_error = ""
            _syscall_numbers(pyseccomp)
        except (ImportError, RuntimeError, OSError) as exc:
            _seccomp_error = f"{type(exc).__name__}: {exc}"
    return _seccomp


_numbers: dict[str, int] = {}


def _syscall_numbers(sc: Any) -> dict[str, int]:
    """Names resolved once (in the zygote, by prepare) rather than in every child."""
    if not _numbers:
        names = [*_ALLOWED, "openat", "open", "openat2", "clone3", "clone", "ioctl", "fcntl"]
        names += ["socketpair", "prctl", "prlimit64", "sched_setaffinity", "kill", "tgkill"]
        _numbers.update({n: sc.resolve_syscall(sc.Arch.NATIVE, n) for n in names})
    return _numbers


def _seccomp_filter(sc: Any, pid: int, *, threads: bool = False) -> Any:
    """The allowlist. A child runs on one thread: starting another kills it (``thread_cap``),
    so ``torch.set_num_threads(32)`` cannot take every core, root or not; RLIMIT_NPROC alone
    needs a per-slot uid. ``threads=True`` is for the tests of the filter itself."""
    nr = _syscall_numbers(sc)
    f = sc.SyscallFilter(sc.ERRNO(errno.EPERM))
    allow = sc.ALLOW
    for name in _ALLOWED:
        f.add_rule(allow, nr[name])
    # Read-only opens even if Landlock is missing (standard profile on an old kernel).
    f.add_rule(allow, nr["openat"], sc.Arg(2, sc.MASKED_EQ, _OPEN_WRITE_FLAGS, 0))
    f.add_rule(allow, nr["open"], sc.Arg(1, sc.MASKED_EQ, _OPEN_WRITE_FLAGS, 0))
    # openat2 takes its flags in a struct the filter cannot read: ENOSYS makes libc use openat.
    # clone3 likewise: libc falls back to clone, whose flags the filter can inspect.
    f.add_rule(sc.ERRNO(errno.ENOSYS), nr["openat2"])
    f.add_rule(sc.ERRNO(errno.ENOSYS), nr["clone3"])
    thread_only = _CLONE_THREAD | _CLONE_NEW_NAMESPACES
    if threads:
        f.add_rule(allow, nr["clone"], sc.Arg(0, sc.MASKED_EQ, thread_only, _CLONE_THREAD))
    else:
        # Killed, not EPERM: libgomp exits(1) silently when a thread cannot start, while SIGSYS
        # (which nothing else here raises) lets the verdict say exactly what happened.
        f.add_rule(
            sc.KILL_PROCESS, nr["clone"], sc.Arg(0, sc.MASKED_EQ, _CLONE_THREAD, _CLONE_THREAD)
        )
    for request in _IOCTLS:
        f.add_rule(allow, nr["ioctl"], sc.Arg(1, sc.EQ, request))
    for cmd in _FCNTLS:
        f.add_rule(allow, nr["fcntl"], sc.Arg(1, sc.EQ, cmd))
    f.add_rule(allow, nr["socketpair"], sc.Arg(0, sc.EQ, _AF_UNIX))
    f.add_rule(allow, nr["prctl"], sc.Arg(0, sc.EQ, 15))  # PR_SET_NAME: threads name themselves
    f.add_rule(allow, nr["prctl"], sc.Arg(0, sc.EQ, 16))  # PR_GET_NAME
    f.add_rule(allow, nr["prlimit64"], sc.Arg(0, sc.EQ, 0))  # own limits only (lowering)
    f.add_rule(allow, nr["sched_setaffinity"], sc.Arg(0, sc.EQ, 0))  # not pinning the server
    # Signals to itself only: kill(0) and kill(-1) would reach the group or every process.
    f.add_rule(allow, nr["kill"], sc.Arg(0, sc.EQ, pid))
    f.add_rule(allow, nr["tgkill"], sc.Arg(0, sc.EQ, pid))
    return f


# The production filter, compiled once in the zygote (libseccomp takes ~1.5 ms per build, in
# every child otherwise): its BPF program with a placeholder where the child's own pid goes, and
# where that is. Two placeholders compiled give two programs that differ exactly there, or the
# filter is built per child as before.
_PID_PLACEHOLDERS: Final = (0x3EADBEEF, 0x2BADCAFE)  # above any pid (pid_max <= 2**22)
_BPF_INSN: Final = struct.Struct("=HBBI")  # struct sock_filter: code, jt, jf, k
PR_SET_SECCOMP: Final = 22
SECCOMP_MODE_FILTER: Final = 2


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


@dataclass(frozen=True)
class _CompiledFilter:
    program: bytes
    pid_slots: tuple[int, ...]  # byte offsets of the instructions comparing with the pid

    def for_pid(self, pid: int) -> bytearray:
        program = bytearray(self.program)
        for offset in self.pid_slots:
            code, jt, jf, _ = _BPF_INSN.unpack_from(program, offset)
            _BPF_INSN.pack_into(program, offset, code, jt, jf, pid)
        return program


_compiled: _CompiledFilter | None = None


def _export_bpf(sc: Any, pid: int) -> bytes:
    with tempfile.TemporaryFile() as out:
        _seccomp_filter(sc, pid).export_bpf(out)
        out.seek(0)
        return out.read()


def _compile_filter(sc: Any) -> _CompiledFilter | None:
    first, second = (_export_bpf(sc, p) for p in _PID_PLACEHOLDERS)
    if len(first) != len(second) or not first or len(first) % _BPF_INSN.size:
        return None
    slots = []
    for offset in range(0, len(first), _BPF_INSN.size):
        a, b = _BPF_INSN.unpack_from(first, offset), _BPF_INSN.unpack_from(second, offset)
        if a == b:
            continue
        if a[:3] != b[:3] or (a[3], b[3]) != _PID_PLACEHOLDERS:
            return None
        slots.append(offset)
    # kill and tgkill compare their first argument with the pid (one block when libseccomp
    # shares the identical comparison).
    return _CompiledFilter(first, tuple(slots)) if slots else None


def _load_compiled(compiled: _CompiledFilter, pid: int) -> None:
    program = compiled.for_pid(pid)
    buf = (ctypes.c_char * len(program)).from_buffer(program)
    fprog = _SockFprog(len(program) // _BPF_INSN.size, ctypes.addressof(buf))
    # What libseccomp's load does with its default attributes: no_new_privs, then the filter.
    _set_no_new_privs()
    if _libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.addressof(fprog), 0, 0) != 0:
        raise _oserror("prctl(PR_SET_SECCOMP)")


def _apply_seccomp(*, threads: bool = False) -> None:
    sc = _load_seccomp()
    if sc is None:
        raise SandboxError(f"seccomp: libseccomp unavailable ({_seccomp_error})")
    if _compiled is not None and not threads:
        _load_compiled(_compiled, os.getpid())
        return
    _seccomp_filter(sc, os.getpid(), threads=threads).load()


def thread_cap(layers: Collection[Layer], limits: Limits) -> LayerStatus:
    """How a child's threads (hence its share of the CPU) are bounded, for /health."""
    if Layer.SECCOMP in layers:
        also = (
            f"; RLIMIT_NPROC {limits.tasks} under the per-slot uid" if Layer.UID in layers else ""
        )
        return LayerStatus(True, f"one thread: seccomp kills a child that starts another{also}")
    if Layer.UID in layers and Layer.RLIMITS in layers:
        return LayerStatus(True, f"RLIMIT_NPROC {limits.tasks} tasks under the per-slot uid")
    return LayerStatus(
        False, "no cap: without seccomp or a per-slot uid a child may use every core"
    )


# --- the other layers ----------------------------------------------------------------------------


def _apply_setsid() -> None:
    if os.getpgid(0) != os.getpid():  # a group leader cannot (and need not) start a session
        os.setsid()


def _apply_close_fds(keep_fds: Sequence[int]) -> None:
    keep = sorted(set(keep_fds))
    if any(fd < 3 for fd in keep):
        raise SandboxError("keep_fds must be >= 3: stdio is pointed at /dev/null")
    # C-level writes (torch warnings, os.write(2, ...)) must not reach the server's log.
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    low = 3
    for fd in keep:
        os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, 1 << 20)  # close_range(2): one system call whatever the bound


def _apply_clear_env() -> None:
    os.environ.clear()  # unsetenv for each: the C environ is emptied too
    os.chdir("/")
    # The grader's directory on sys.path let a submission find its source (DESIGN pitfalls).
    repo = _repo
    gone = [p for p in sys.path if p in ("", ".", repo) or os.path.realpath(p) == repo]
    sys.path[:] = [p for p in sys.path if p not in gone]
    for key in gone:
        sys.path_importer_cache.pop(key, None)
    # Source lines the zygote once formatted a traceback from (the grader's own files) stay in
    # memory past Landlock: ``inspect.getsource`` would still return them.
    if linecache.cache:
        linecache.clearcache()


def _address_space() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def _apply_rlimits(limits: Limits, *, tasks: bool) -> None:
    def both(which: int, value: int) -> None:
        resource.setrlimit(which, (value, value))

    both(resource.RLIMIT_AS, _address_space() + limits.address_space_headroom)
    # Soft limit: SIGXCPU; a second later the hard limit kills even a process that ignores it.
    resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds + 1))
    both(resource.RLIMIT_FSIZE, 0)
    both(resource.RLIMIT_NOFILE, limits.open_files)
    both(resource.RLIMIT_CORE, 0)
    both(resource.RLIMIT_MEMLOCK, 0)
    both(resource.RLIMIT_MSGQUEUE, 0)
    if tasks:
        both(resource.RLIMIT_NPROC, limits.tasks)


def slot_ids(slot: int, limits: Limits) -> int:
    """The uid (and gid) of a slot's children."""
    return limits.uid_base + slot


def _apply_uid(slot: int, limits: Limits) -> None:
    if not _running_as_root():
        raise SandboxError("uid: not running as root, cannot switch to a per-slot uid")
    ident = slot_ids(slot, limits)
    os.setgroups([])
    os.setresgid(ident, ident, ident)
    os.setresuid(ident, ident, ident)
    if os.getresuid() != (ident, ident, ident) or os.getresgid() != (ident, ident, ident):
        raise SandboxError("uid: the switch did not take")


# --- preparation in the zygote, probing ----------------------------------------------------------


@dataclass
class _Prepared:
    status: dict[Layer, LayerStatus] = field(default_factory=dict)
    read_only: list[str] = field(default_factory=list)
    landlock_abi: int = 0


_prepared: _Prepared | None = None

# Modules imported lazily by the standard library or by torch error paths; after the uid switch
# or Landlock they may no longer be importable (``LookupError: unknown encoding: idna``).
_PRELOAD: Final = (
    "encodings.idna",
    "encodings.utf_8",
    "encodings.latin_1",
    "encodings.ascii",
    "encodings.unicode_escape",
    "encodings.raw_unicode_escape",
    "linecache",
    "traceback",
    "tokenize",
    "unicodedata",
    "json",
    "resource",
)


def prepare() -> dict[Layer, LayerStatus]:
    """Run once in the zygote, after ``import torch`` and before forking: preload, then probe."""
    global _prepared
    for name in _PRELOAD:
        __import__(name)
    # Freeing cached source in every child costs ~2 ms (copy-on-write pages); do it once here.
    # Call prepare() after the zygote's warm-up, last thing before forking.
    linecache.clearcache()
    global _compiled
    sc = _load_seccomp()
    if sc is not None:
        try:
            _compiled = _compile_filter(sc)
        except (OSError, RuntimeError, ValueError):
            _compiled = None  # each child builds its own, as libseccomp does
    status = probe()
    _prepared = _Prepared(
        status=status, read_only=readable_roots(_mapped_library_dirs()), landlock_abi=landlock_abi()
    )
    return status


def _in_child(test: Callable[[int], str], timeout: float = 10.0) -> tuple[bool, str]:
    """Run ``test(pipe_fd)`` in a throwaway fork (layers are irreversible); it returns a detail
    or raises."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            os.close(r)
            try:
                payload = [True, test(w)]
            except BaseException as exc:
                payload = [False, f"{type(exc).__name__}: {exc}"]
            os.write(w, json.dumps(payload).encode())
        finally:
            os._exit(0)
    os.close(w)
    raw = _read_until_eof(r, timeout)
    os.close(r)
    done, code = os.waitpid(pid, os.WNOHANG)
    if not done:
        os.kill(pid, signal.SIGKILL)
        done, code = os.waitpid(pid, 0)
    if not raw:
        return False, f"probe child died without an answer (wait status {code})"
    ok, detail = json.loads(raw)
    return bool(ok), str(detail)


def _read_until_eof(fd: int, timeout: float) -> bytes:
    deadline = time.monotonic() + timeout
    chunks = []
    while (left := deadline - time.monotonic()) > 0:
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            break
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)


def _probe_no_new_privs(_pipe: int) -> str:
    _set_no_new_privs()
    if _libc.prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1:
        raise SandboxError("flag not set after PR_SET_NO_NEW_PRIVS")
    return "prctl(PR_SET_NO_NEW_PRIVS) works"


def _probe_capabilities(_pipe: int) -> str:
    _drop_capabilities()
    with open("/proc/self/status") as f:
        caps = {k: v.strip() for k, _, v in (line.partition(":") for line in f)}
    held = [
        k
        for k in ("CapEff", "CapPrm", "CapBnd", "CapAmb")
        if int(caps.get(k, "0"), 16) and not (k == "CapBnd" and not _running_as_root())
    ]
    if held:
        raise SandboxError(f"still held after dropping: {', '.join(held)}")
    return "capability sets emptied" if _running_as_root() else "no capabilities held"


def _probe_landlock(_pipe: int) -> str:
    abi = landlock_abi()
    if abi < 1:
        raise SandboxError("the kernel has no Landlock (needs 5.13+ with lsm=...,landlock)")
    _set_no_new_privs()
    _landlock_restrict(abi, [])
    try:
        os.listdir("/")
    except PermissionError:
        net = "TCP and " if abi >= 4 else ""
        scope = ", signal/abstract-socket scoping" if abi >= 6 else ""
        return f"ABI {abi}: filesystem, {net}enforced{scope}"
    raise SandboxError(f"ABI {abi} reported but a restricted process could still list /")


def _probe_seccomp(_pipe: int) -> str:
    sc = _load_seccomp()
    if sc is None:
        raise SandboxError(f"libseccomp unavailable ({_seccomp_error})")
    f = sc.SyscallFilter(sc.ALLOW)
    f.add_rule(sc.ERRNO(errno.EPERM), "uname")
    f.load()
    try:
        os.uname()
    except PermissionError:
        return "libseccomp loaded, filters enforced"
    raise SandboxError("a loaded filter did not take effect")


def _probe_mount_ns(_pipe: int) -> str:
    roots = readable_roots(_mapped_library_dirs())
    mountns.enter(roots)
    if os.path.exists(repo_root() / "api") or os.path.exists("/proc/self"):
        raise SandboxError("the repo or /proc is still visible in the private view")
    os.listdir(sysconfig.get_paths()["stdlib"])
    how = "as root" if not _user_namespace_needed() else "in an unprivileged user namespace"
    return f"private root of {len(roots)} read-only trees {how}: nothing else can be stat()ed"


def _user_namespace_needed() -> bool:
    return os.geteuid() != 0


def _probe_uid(_pipe: int) -> str:
    """As an unprivileged uid, read what a child needs: the stdlib, site-packages, torch."""
    targets = [sysconfig.get_paths()["stdlib"], *site.getsitepackages()]
    torch_mod = sys.modules.get("torch")
    if torch_mod is not None and torch_mod.__file__:
        targets.append(torch_mod.__file__)
    targets = [t for t in targets if os.path.exists(t)]  # Debian lists site dirs it lacks
    ident = slot_ids(0, Limits()) - 1  # a uid no slot uses
    os.setgroups([])
    os.setresgid(ident, ident, ident)
    os.setresuid(ident, ident, ident)
    for target in targets:
        if os.path.isdir(target):
            os.listdir(target)
        else:
            with open(target, "rb") as f:
                f.read(1)
    return f"uid {ident} can read {', '.join(targets)}"


def probe() -> dict[Layer, LayerStatus]:
    """What this host offers, checked for real in throwaway children (~5 ms each)."""
    linux = sys.platform == "linux"
    basic = LayerStatus(linux, "POSIX, always applied" if linux else "needs Linux")
    status = {
        layer: basic for layer in (Layer.SETSID, Layer.CLOSE_FDS, Layer.CLEAR_ENV, Layer.RLIMITS)
    }
    status[Layer.CAPABILITIES] = LayerStatus(*_in_child(_probe_capabilities))
    status[Layer.NO_NEW_PRIVS] = LayerStatus(*_in_child(_probe_no_new_privs))
    status[Layer.MOUNT_NS] = LayerStatus(*_in_child(_probe_mount_ns))
    if _X86_64:
        status[Layer.LANDLOCK] = LayerStatus(*_in_child(_probe_landlock))
        status[Layer.SECCOMP] = LayerStatus(*_in_child(_probe_seccomp))
    else:
        status[Layer.LANDLOCK] = status[Layer.SECCOMP] = LayerStatus(False, "x86_64 only")
    if not _running_as_root():
        status[Layer.UID] = LayerStatus(
            False,
            "not running as root: children keep the service uid (run as root for per-slot uids)",
        )
    else:
        ok, detail = _in_child(_probe_uid)
        if not ok:
            detail = (
                f"an unprivileged uid cannot read the Python install ({detail}); install "
                "Python and its packages world-readable (not under /root)"
            )
        status[Layer.UID] = LayerStatus(ok, detail)
    return status


# --- applying ------------------------------------------------------------------------------------


def apply_layers(
    layers: Collection[Layer], *, slot: int, keep_fds: Sequence[int], limits: Limits
) -> dict[Layer, float]:
    """Apply ``layers`` in ``APPLY_ORDER``; returns the milliseconds each took.

    Order: fds and environment first (while opening /dev/null is still allowed); the private
    mount namespace after rlimits (which read /proc) and before Landlock; rlimits before
    the uid switch (RLIMIT_NPROC is then checked against the slot uid); Landlock before the uid
    switch (root may open any rule path) but after no_new_privs (an unprivileged process needs
    it); seccomp last, since its filter forbids set*id and setsid.
    """
    prepared = _prepared or _Prepared(read_only=readable_roots(), landlock_abi=landlock_abi())
    steps: dict[Layer, Callable[[], None]] = {
        Layer.SETSID: _apply_setsid,
        Layer.CLOSE_FDS: lambda: _apply_close_fds(keep_fds),
        Layer.CLEAR_ENV: _apply_clear_env,
        Layer.RLIMITS: lambda: _apply_rlimits(limits, tasks=Layer.UID in layers),
        Layer.MOUNT_NS: lambda: mountns.enter(prepared.read_only),
        Layer.NO_NEW_PRIVS: _set_no_new_privs,
        Layer.LANDLOCK: lambda: _apply_landlock(prepared),
        Layer.UID: lambda: _apply_uid(slot, limits),
        Layer.CAPABILITIES: _drop_capabilities,
        Layer.SECCOMP: _apply_seccomp,
    }
    timings: dict[Layer, float] = {}
    for layer in APPLY_ORDER:
        if layer in layers:
            start = time.perf_counter()
            try:
                steps[layer]()
            except SandboxError:
                raise
            except Exception as exc:
                raise SandboxError(f"{layer.value}: {type(exc).__name__}: {exc}") from exc
            timings[layer] = (time.perf_counter() - start) * 1000
    return timings


def _apply_landlock(prepared: _Prepared) -> None:
    if prepared.landlock_abi < 1:
        raise SandboxError("landlock: the kernel has no Landlock")
    _landlock_restrict(prepared.landlock_abi, prepared.read_only)


def lock_down(*, slot: int, keep_fds: Sequence[int], profile: Profile, limits: Limits) -> None:
    """Lock the calling (freshly forked, single-threaded) child down per ``profile``.

    Raises ``SandboxError`` if a required layer cannot be applied; the caller must then exit
    without running the submission. Call ``prepare()`` in the zygote first: without it the
    child probes (slow) and may fail to load libseccomp.
    """
    status = _prepared.status if _prepared is not None else probe()
    missing = check_profile(profile, status)
    if missing:
        raise SandboxError("; ".join(missing))
    apply_layers(layers_for(profile, status), slot=slot, keep_fds=keep_fds, limits=limits)


# --- reaping -------------------------------------------------------------------------------------


def reap_slot(slot: int, limits: Limits | None = None) -> None:
    """SIGKILL every process running as the slot's uid (escapees of earlier submissions: setsid
    plus a double fork leaves the process group).

    Only meaningful with the uid layer; a no-op unless root. Call it in the single-threaded
    slot server between submissions. ``kill(-1)`` sent with the slot's real and effective uid
    reaches exactly that uid's processes in one system call (a /proc scan costs 2-12 ms); the
    saved uid 0 switches us back. Seccomp already forbids fork: this is defence in depth.
    (``kill(-1)`` answers 0 whenever any process exists, so it cannot tell how many it hit.)
    """
    if not _running_as_root():
        return
    ident = slot_ids(slot, limits or Limits())
    os.setresuid(ident, ident, 0)
    try:
        os.kill(-1, signal.SIGKILL)
    except ProcessLookupError:
        pass
    finally:
        os.setresuid(0, 0, 0)


# --- operator check: python -m api.grading.sandbox ----------------------------------------------


def _main() -> None:
    """Print what this host offers and what each profile would do, and time a lock-down."""
    status = prepare()
    for layer, st in status.items():
        print(f"{layer.value:13} {'yes' if st.available else 'NO ':3}  {st.detail}")
    for profile in Profile:
        missing = check_profile(profile, status)
        print(f"profile {profile.value}: {'OK' if not missing else 'refused: ' + missing[0]}")
    layers = [layer for layer in APPLY_ORDER if status[layer].available]

    def timed(pipe: int) -> str:
        ms = apply_layers(layers, slot=0, keep_fds=[pipe], limits=Limits())
        return json.dumps(
            {k.value: round(v, 3) for k, v in ms.items()} | {"total": round(sum(ms.values()), 3)}
        )

    print("lock-down cost (ms):", _in_child(timed)[1])


if __name__ == "__main__":
    _main()
