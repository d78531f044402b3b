"""Each attack works in a child with only process hygiene, and fails once a layer that should
stop it is applied on its own; every attack fails under the full lock-down of this host.

A "stopper" is a layer (with what it needs: Landlock needs no_new_privs when not root, the
rlimits need the capability drop when root) plus the minimum Landlock ABI where relevant.
"""

from __future__ import annotations

import ctypes
import inspect
import mmap
import os
import resource
import signal
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import sandbox_attempt
import torch
from sandbox_attempt import HYGIENE, Runner, full_layers

from api.grading import harness, sandbox
from api.grading.sandbox import Layer, LayerStatus

SECRET_ENV = "ADDNORM_TEST_SECRET_KEY"
libc = ctypes.CDLL(None, use_errno=True)
libc.getenv.restype = ctypes.c_char_p


@dataclass(frozen=True)
class Targets:
    """What a submission would like to reach: the grader, the data, the server, its peers."""

    repo_file: Path
    data_file: Path
    writable_dir: Path
    tcp_port: int
    udp_port: int
    unix_path: str
    server_pid: int
    server_fd: int


@pytest.fixture
def targets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Targets]:
    data = tmp_path / "data"
    data.mkdir()
    db = data / "addnorm.sqlite3"
    db.write_text("SECRET-ROWS")
    writable = tmp_path / "w"
    writable.mkdir()
    monkeypatch.setenv(SECRET_ENV, "hunter2")
    tcp = socket.create_server(("127.0.0.1", 0))
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    unix = socket.socket(socket.AF_UNIX)
    unix_path = str(tmp_path / "api.sock")
    unix.bind(unix_path)
    unix.listen()
    fd = os.open(db, os.O_RDONLY)
    try:
        yield Targets(
            repo_file=sandbox.repo_root() / "api" / "grading" / "harness.py",
            data_file=db,
            writable_dir=writable,
            tcp_port=tcp.getsockname()[1],
            udp_port=udp.getsockname()[1],
            unix_path=unix_path,
            server_pid=os.getpid(),
            server_fd=fd,
        )
    finally:
        os.close(fd)
        for s in (tcp, udp, unix):
            s.close()


# --- the attacks: return when they worked, raise when stopped -----------------------------------


def read_grader_source(t: Targets) -> object:
    return t.repo_file.read_text()[:40]


def getsource_of_harness(t: Targets) -> object:
    return inspect.getsource(harness)[:40]


def list_repo(t: Targets) -> object:
    return os.listdir(sandbox.repo_root())


def read_data_dir(t: Targets) -> object:
    return t.data_file.read_text()


def read_server_environ(t: Targets) -> object:
    return Path(f"/proc/{t.server_pid}/environ").read_bytes()[:40]


def write_file(t: Targets) -> object:
    (t.writable_dir / "planted.py").write_text("x")
    return "written"


def create_empty_file(t: Targets) -> object:
    os.close(os.open(t.writable_dir / "marker", os.O_WRONLY | os.O_CREAT, 0o644))
    return "created"


def write_dev_shm(t: Targets) -> object:
    path = f"/dev/shm/addnorm-test-{os.getpid()}"
    try:
        with open(path, "w") as f:
            f.write("x")
    finally:
        if os.path.exists(path):
            os.unlink(path)
    return "written"


def tcp_connect_loopback(t: Targets) -> object:
    with socket.create_connection(("127.0.0.1", t.tcp_port), timeout=2):
        return "connected"


def udp_send_loopback(t: Targets) -> object:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        return s.sendto(b"x", ("127.0.0.1", t.udp_port))


def unix_connect(t: Targets) -> object:
    with socket.socket(socket.AF_UNIX) as s:
        s.connect(t.unix_path)
        return "connected"


def execve(t: Targets) -> object:
    # On success /bin/sh answers on the result pipe in our place.
    os.dup2(sandbox_attempt.CURRENT_PIPE, 9)  # inheritable; dash redirects one-digit fds only
    os.execv("/bin/sh", ["sh", "-c", 'printf \'{"succeeded": true, "detail": "exec"}\' >&9'])


def fork(t: Targets) -> object:
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    return pid


def raw_fork_syscall(t: Targets) -> object:
    pid = libc.syscall(57)  # fork(2) itself, not glibc's clone
    if pid == 0:
        os._exit(0)
    if pid < 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    os.waitpid(pid, 0)
    return pid


def run_subprocess(t: Targets) -> object:
    return subprocess.run(["/bin/true"], check=True).returncode


def double_fork_escape(t: Targets) -> object:
    os.setsid()  # leave the process group the slot server kills
    return "own session"


def signal_server(t: Targets) -> object:
    os.kill(t.server_pid, 0)  # signal 0: the permission check without the signal
    return "may signal"


def signal_everyone(t: Targets) -> object:
    os.kill(-1, 0)
    return "may signal"


def raise_rlimit(t: Targets) -> object:
    inf = resource.RLIM_INFINITY
    resource.setrlimit(resource.RLIMIT_AS, (inf, inf))
    resource.setrlimit(resource.RLIMIT_CPU, (inf, inf))
    return "raised"


def map_8_gib(t: Targets) -> object:
    with mmap.mmap(-1, 8 << 30):
        return "mapped"


def torch_8_gib(t: Targets) -> object:
    return torch.empty(2 << 30, dtype=torch.float32).numel()


def exhaust_fds(t: Targets) -> object:
    return len([os.dup(0) for _ in range(200)])


def fill_disk(t: Targets) -> object:
    with open(t.writable_dir / "big", "wb") as f:
        f.write(b"x" * 4096)
    return "wrote"


def read_environment(t: Targets) -> object:
    value = os.environ.get(SECRET_ENV) or libc.getenv(SECRET_ENV.encode())
    if not value:
        raise LookupError("no secret in the environment")
    return value


def read_inherited_fd(t: Targets) -> object:
    return os.pread(t.server_fd, 11, 0)


def stderr_reaches_server_log(t: Targets) -> object:
    target = os.readlink("/proc/self/fd/2")
    if target == "/dev/null":
        raise PermissionError("stderr is /dev/null")
    return target


def grader_on_sys_path(t: Targets) -> object:
    repo = str(sandbox.repo_root())
    found = [p for p in sys.path if p in ("", ".") or os.path.realpath(p or ".") == repo]
    if not found:
        raise LookupError("repo not on sys.path")
    return found


@dataclass(frozen=True)
class Stopper:
    layers: tuple[Layer, ...]
    min_landlock_abi: int = 0


LANDLOCK = Stopper((Layer.NO_NEW_PRIVS, Layer.LANDLOCK))
LANDLOCK_NET = Stopper((Layer.NO_NEW_PRIVS, Layer.LANDLOCK), 4)
LANDLOCK_SCOPE = Stopper((Layer.NO_NEW_PRIVS, Layer.LANDLOCK), 6)
SECCOMP = Stopper((Layer.SECCOMP,))
RLIMITS = Stopper((Layer.RLIMITS, Layer.CAPABILITIES))
CLOSE_FDS = Stopper((Layer.CLOSE_FDS,))
CLEAR_ENV = Stopper((Layer.CLEAR_ENV,))
SETSID = Stopper((Layer.SETSID,))

AttackFn = Callable[[Targets], object]
ATTACKS: dict[str, tuple[AttackFn, tuple[Stopper, ...]]] = {
    "read grader source": (read_grader_source, (LANDLOCK,)),
    "inspect.getsource(harness)": (getsource_of_harness, (LANDLOCK,)),
    "list the repo": (list_repo, (LANDLOCK,)),
    "read the data dir": (read_data_dir, (LANDLOCK,)),
    "read /proc/<server>/environ": (read_server_environ, (LANDLOCK,)),
    "write a file": (write_file, (LANDLOCK, SECCOMP)),
    "create an empty file": (create_empty_file, (LANDLOCK, SECCOMP)),
    "write /dev/shm": (write_dev_shm, (LANDLOCK, SECCOMP)),
    "fill the disk": (fill_disk, (LANDLOCK, SECCOMP, RLIMITS)),
    "TCP connect to loopback": (tcp_connect_loopback, (SECCOMP, LANDLOCK_NET)),
    "UDP send to loopback": (udp_send_loopback, (SECCOMP,)),
    "connect to a unix socket": (unix_connect, (SECCOMP,)),
    "execve /bin/sh": (execve, (SECCOMP, LANDLOCK)),
    "os.fork": (fork, (SECCOMP,)),
    "raw fork syscall 57": (raw_fork_syscall, (SECCOMP,)),
    "subprocess.run": (run_subprocess, (SECCOMP, LANDLOCK)),
    "setsid out of the group": (double_fork_escape, (SETSID, SECCOMP)),
    "signal the server": (signal_server, (SECCOMP, LANDLOCK_SCOPE)),
    # Not LANDLOCK_SCOPE: under it kill(-1) reaches nobody yet returns 0 (the kernel reports
    # EPERM only if no target answered otherwise), so signal 0 cannot tell; "signal the
    # server" shows the scoping.
    "kill(-1)": (signal_everyone, (SECCOMP,)),
    "raise rlimits": (raise_rlimit, (RLIMITS,)),
    "map 8 GiB": (map_8_gib, (RLIMITS,)),
    "torch.empty 8 GiB": (torch_8_gib, (RLIMITS,)),
    "exhaust fds": (exhaust_fds, (RLIMITS,)),
    "read the environment": (read_environment, (CLEAR_ENV,)),
    "read an inherited fd": (read_inherited_fd, (CLOSE_FDS,)),
    "stderr reaches the server log": (stderr_reaches_server_log, (CLOSE_FDS,)),
    "grader on sys.path": (grader_on_sys_path, (CLEAR_ENV,)),
}
# Without the layer under test, these rely on the hygiene layers not being applied.
_BASELINE_WITHOUT = {
    "read an inherited fd": (Layer.CLOSE_FDS,),
    "stderr reaches the server log": (Layer.CLOSE_FDS,),
    "read the environment": (Layer.CLEAR_ENV,),
    "grader on sys.path": (Layer.CLEAR_ENV,),
    "setsid out of the group": (Layer.SETSID,),
}


def _usable(stopper: Stopper, status: dict[Layer, LayerStatus]) -> str | None:
    """Why this host cannot test ``stopper``, or None."""
    for layer in stopper.layers:
        if not status[layer].available:
            return f"layer {layer.value} unavailable: {status[layer].detail}"
    if stopper.min_landlock_abi and sandbox.landlock_abi() < stopper.min_landlock_abi:
        return f"needs Landlock ABI {stopper.min_landlock_abi}, have {sandbox.landlock_abi()}"
    return None


@pytest.mark.hostile
@pytest.mark.parametrize("name", list(ATTACKS))
def test_attack_works_without_the_layers(name: str, run: Runner, targets: Targets) -> None:
    """The attack is real: in a child with only process hygiene it succeeds."""
    fn, _ = ATTACKS[name]
    layers = [layer for layer in HYGIENE if layer not in _BASELINE_WITHOUT.get(name, ())]
    if name == "grader on sys.path" and not grader_on_sys_path_here():
        pytest.skip("this pytest run does not have the repo on sys.path")
    result = run(lambda: fn(targets), layers)
    assert result.setup_error is None
    assert result.succeeded, result.detail


def grader_on_sys_path_here() -> bool:
    try:
        grader_on_sys_path(None)  # type: ignore[arg-type]
    except LookupError:
        return False
    return True


STOPPER_CASES = [
    pytest.param(name, i, id=f"{name}-by-{'+'.join(s.layers[-1].value for s in [stopper])}")
    for name, (_, stoppers) in ATTACKS.items()
    for i, stopper in enumerate(stoppers)
]


@pytest.mark.hostile
@pytest.mark.parametrize(("name", "index"), STOPPER_CASES)
def test_each_stopping_layer_alone_stops_the_attack(
    name: str, index: int, run: Runner, targets: Targets, status: dict[Layer, LayerStatus]
) -> None:
    fn, stoppers = ATTACKS[name]
    stopper = stoppers[index]
    why = _usable(stopper, status)
    if why:
        pytest.skip(why)
    baseline = [layer for layer in HYGIENE if layer not in _BASELINE_WITHOUT.get(name, ())]
    layers = {*baseline, *stopper.layers}
    result = run(lambda: fn(targets), layers)
    assert result.setup_error is None, result.setup_error
    assert result.blocked, f"{name} succeeded under {stopper.layers}: {result.detail}"


@pytest.mark.hostile
@pytest.mark.parametrize("name", list(ATTACKS))
def test_full_lock_down_stops_the_attack(
    name: str, run: Runner, targets: Targets, status: dict[Layer, LayerStatus]
) -> None:
    fn, _ = ATTACKS[name]
    result = run(lambda: fn(targets), full_layers(status))
    assert result.setup_error is None, result.setup_error
    assert result.blocked, f"{name} succeeded under the full lock-down: {result.detail}"


# --- attacks with a shape of their own ----------------------------------------------------------


def _spin_ignoring_sigxcpu() -> object:
    signal.signal(signal.SIGXCPU, signal.SIG_IGN)
    while True:
        pass


@pytest.mark.hostile
def test_cpu_loop_ignoring_sigxcpu_is_killed_at_the_hard_limit(run: Runner) -> None:
    limits = sandbox.Limits(cpu_seconds=1)
    result = run(
        _spin_ignoring_sigxcpu,
        [*HYGIENE, Layer.RLIMITS, Layer.CAPABILITIES],
        limits=limits,
        timeout=10,
    )
    assert result.signal == signal.SIGKILL, result


# x86_64 numbers: calls that must answer EPERM (or ENOSYS) under the seccomp layer whatever
# their arguments. The arguments are harmless if a call were ever let through.
DENIED_SYSCALLS: dict[str, tuple[int, tuple[int, ...], int]] = {
    "ptrace": (101, (0,), 1),  # PTRACE_TRACEME
    "process_vm_readv": (310, (1, 0, 0, 0, 0, 0), 1),
    "process_vm_writev": (311, (1, 0, 0, 0, 0, 0), 1),
    "io_uring_setup": (425, (1, 0), 1),
    "bpf": (321, (0, 0, 0), 1),
    "unshare": (272, (0x10000000,), 1),  # CLONE_NEWUSER
    "setns": (308, (0, 0), 1),
    "mount": (165, (0, 0, 0, 0, 0), 1),
    "umount2": (166, (0, 0), 1),
    "keyctl": (250, (0,), 1),
    "add_key": (248, (0, 0, 0, 0, 0), 1),
    "request_key": (249, (0, 0, 0, 0), 1),
    "perf_event_open": (298, (0, 0, -1, -1, 0), 1),
    "personality": (135, (0xFFFFFFFF,), 1),
    "chroot": (161, (0,), 1),
    "pivot_root": (155, (0, 0), 1),
    "init_module": (175, (0, 0, 0), 1),
    "finit_module": (313, (-1, 0, 0), 1),
    "delete_module": (176, (0, 0), 1),
    "reboot": (169, (0, 0, 0, 0), 1),
    "swapon": (167, (0, 0), 1),
    "kexec_load": (246, (0, 0, 0, 0), 1),
    "setsid": (112, (), 1),
    "setuid": (105, (0,), 1),
    "setresuid": (117, (0, 0, 0), 1),
    "setgroups": (116, (0, 0), 1),
    "capset": (126, (0, 0), 1),
    "pidfd_open": (434, (1, 0), 1),
    "pidfd_send_signal": (424, (0, 0, 0, 0), 1),
    "pidfd_getfd": (438, (0, 0, 0), 1),
    "userfaultfd": (323, (0,), 1),
    "fanotify_init": (300, (0, 0), 1),
    "socket AF_UNIX": (41, (1, 1, 0), 1),
    "socket AF_INET": (41, (2, 1, 0), 1),
    "socket AF_NETLINK": (41, (16, 3, 0), 1),
    "socketpair AF_INET": (53, (2, 1, 0, 0), 1),
    "execve": (59, (0, 0, 0), 1),
    "execveat": (322, (-1, 0, 0, 0, 0), 1),
    "fork": (57, (), 1),
    "vfork": (58, (), 1),
    "clone without CLONE_THREAD": (56, (17, 0, 0, 0, 0), 1),  # SIGCHLD: fork semantics
    # CLONE_VM|FS|FILES|SIGHAND|THREAD|NEWNET: a "thread" in a new network namespace.
    "clone of a thread with CLONE_NEWNET": (56, (0x40010F00, 0, 0, 0, 0), 1),
    "sched_setaffinity of pid 1": (203, (1, 8, 0), 1),
    "fcntl F_SETLK": (72, (0, 6, 0), 1),
    "fcntl F_OFD_SETLKW": (72, (0, 38, 0), 1),
    "flock": (73, (0, 2), 1),
    "clone3": (435, (0, 0), 38),  # ENOSYS: libc falls back to clone
    "openat2": (437, (-100, 0, 0, 0), 38),
    "kill(0)": (62, (0, 0), 1),
    "kill(-1)": (62, (-1, 0), 1),
    "kill(1)": (62, (1, 0), 1),
    "tkill": (200, (1, 0), 1),
    "tgkill of pid 1": (234, (1, 1, 0), 1),
    "rt_sigqueueinfo": (129, (1, 0, 0), 1),
    "prlimit64 of pid 1": (302, (1, 7, 0, 0), 1),
    "ioctl TIOCSTI": (16, (0, 0x5412, 0), 1),
    "fcntl F_SETOWN": (72, (0, 8, 1), 1),
    "fcntl F_SETSIG": (72, (0, 10, 9), 1),
    "prctl PR_SET_DUMPABLE": (157, (4, 1, 0, 0, 0), 1),
    "memfd_create": (319, (0, 0), 1),
    "mknod": (133, (0, 0, 0), 1),
    "mkdir": (83, (0, 0), 1),
    "unlink": (87, (0,), 1),
    "rename": (82, (0, 0), 1),
    "symlink": (88, (0, 0), 1),
    "chmod": (90, (0, 0), 1),
    "open O_WRONLY": (2, (0, 1, 0), 1),
    "openat O_CREAT": (257, (-100, 0, 0o100, 0), 1),
    "openat O_RDWR": (257, (-100, 0, 2, 0), 1),
    "open_by_handle_at": (304, (0, 0, 0), 1),
    "iopl": (172, (3,), 1),
    "modify_ldt": (154, (0, 0, 0), 1),
    "clock_settime": (227, (0, 0), 1),
    "syslog": (103, (0, 0, 0), 1),
    "acct": (163, (0,), 1),
    "kcmp": (312, (0, 0, 0, 0, 0), 1),
    "move_pages": (279, (1, 0, 0, 0, 0, 0), 1),
}


def _raw(nr: int, args: tuple[int, ...]) -> tuple[int, int]:
    ctypes.set_errno(0)
    res = libc.syscall(nr, *(ctypes.c_long(a) for a in args))
    err = ctypes.get_errno()
    if res == 0 and nr in (57, 58, 56):  # a fork that got through: the copy leaves at once
        os._exit(0)
    return int(res), err


@pytest.mark.hostile
@pytest.mark.parametrize("name", list(DENIED_SYSCALLS))
def test_seccomp_denies(name: str, run: Runner, status: dict[Layer, LayerStatus]) -> None:
    if not status[Layer.SECCOMP].available:
        pytest.skip(f"seccomp unavailable: {status[Layer.SECCOMP].detail}")
    nr, args, expected = DENIED_SYSCALLS[name]

    def call() -> object:
        res, err = _raw(nr, args)
        if res == -1 and err == expected:
            raise PermissionError(os.strerror(err))
        return [res, err]

    result = run(call, [Layer.SECCOMP])
    assert result.blocked, f"{name} answered {result.detail}, expected errno {expected}"


def test_seccomp_keeps_what_python_needs(run: Runner, status: dict[Layer, LayerStatus]) -> None:
    """Signals to itself, socketpair, sleeping, reading the stdlib. (Not threads: one thread
    per child, ``test_lockdown.test_a_thread_kills_the_child_under_seccomp``.)"""
    if not status[Layer.SECCOMP].available:
        pytest.skip(f"seccomp unavailable: {status[Layer.SECCOMP].detail}")

    def everyday() -> object:
        import time

        got: list[int] = []
        signal.signal(signal.SIGUSR1, lambda *_: got.append(2))
        signal.raise_signal(signal.SIGUSR1)
        os.kill(os.getpid(), 0)
        a, b = socket.socketpair()
        a.send(b"x")
        got.append(len(b.recv(1)))
        time.sleep(0.001)
        got.append(len(Path(os.__file__).read_text()) > 0)
        return got

    result = run(everyday, [Layer.SECCOMP])
    assert result.succeeded, result.detail
    assert result.detail == "[2, 1, True]"
