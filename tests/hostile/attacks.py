"""The hostile submissions: one row per attack (name -> code, allowed verdicts, side effects).

Conventions that give every verdict check teeth:

- An attack whose hostile step **gets through** falls through to a *correct* LayerNorm, so a
  sandbox that let it through shows up as ``passed`` (and the suite fails). A blocked step raises,
  so the expected verdict is ``error`` (or ``crashed``/``timeout`` when that is what blocking
  looks like). Attacks that cheat return wrong outputs and must come out ``failed``.
- What an attack reads it prints and/or puts in the exception message, so a read that got
  through shows up as a leak in the response.
- What it tries to create carries the attack's unique names (``TARGETS``, ``SLEEP_ARG``,
  ``COMM``, ``NONCE``), which the checkers in ``probes`` look for afterwards.

The code of each attack is preceded by ``prelude(ctx)``: imports, the attack's constants (the
paths, ports and pids an attacker could guess or learn) and two helpers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from textwrap import dedent, indent
from typing import Any

from tests.hostile.probes import OUTPUT_CAP, Ctx

PRELUDE = """\
import ctypes, os, signal, socket, sys, threading, time
import torch
from torch import nn

{constants}
_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


def name_me():
    _libc.prctl(15, COMM.encode(), 0, 0, 0)  # PR_SET_NAME: visible in /proc/*/comm


def errno_text():
    e = ctypes.get_errno()
    return f"errno {{e}} ({{os.strerror(e)}})"

"""

CORRECT = """

class LayerNorm(nn.Module):
    def __init__(self, dim, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim))
        {init_hook}

    def forward(self, x):
        {forward_hook}
        mean = x.mean(-1, keepdim=True)
        var = ((x - mean) ** 2).mean(-1, keepdim=True)
        return (x - mean) * torch.rsqrt(var + self.eps) * self.weight + self.bias
"""

# The contract's constructor and parameters, outputs of zeros: always a "failed" verdict.
STUB = """

class LayerNorm(nn.Module):
    def __init__(self, dim, eps=1e-5):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim))

    def forward(self, x):
{forward}
        return x * 0 * self.weight + 0 * self.bias
"""


def prelude(ctx: Ctx) -> str:
    return PRELUDE.format(constants=ctx.constants())


def at_import(body: str) -> str:
    """The attack runs while the module is loaded, before any class is used."""
    return dedent(body).strip() + "\n" + CORRECT.format(init_hook="", forward_hook="")


def in_init(body: str) -> str:
    return (
        "def attack(self):\n"
        + indent(dedent(body).strip(), "    ")
        + "\n"
        + CORRECT.format(init_hook="attack(self)", forward_hook="")
    )


def in_forward(body: str) -> str:
    return (
        "def attack(self, x):\n"
        + indent(dedent(body).strip(), "    ")
        + "\n"
        + CORRECT.format(init_hook="", forward_hook="attack(self, x)")
    )


def stub(before: str = "", forward: str = "pass") -> str:
    """Wrong outputs (zeros); ``before`` runs at import, ``forward`` at each call."""
    body = indent(dedent(forward).strip(), " " * 8)
    return dedent(before).strip() + "\n" + STUB.format(forward=body)


def forged_frame(head: str) -> str:
    """A result header (the expression ``head``, bytes) written on every inherited fd, then exit:
    whatever reaches the slot server in place of the harness's answer must be refused cleanly."""
    return stub(
        before=f"""
        import json, struct
        head = {head}
        for fd in range(3, 64):
            try:
                os.write(fd, struct.pack(">I", len(head)) + head)
            except OSError:
                pass
        os._exit(0)
        """
    )


def custom(code: str) -> str:
    return dedent(code).strip() + "\n"


Extra = Callable[[dict[str, Any]], None]

ERROR = frozenset({"error"})
CRASHED = frozenset({"crashed"})
TIMEOUT = frozenset({"timeout"})
FAILED = frozenset({"failed"})

# How a system call refused by seccomp, Landlock or the uid reads in a message; in the private
# mount view (mount_ns) what lies outside the readable roots does not exist at all.
EPERM = (
    r"PermissionError|Operation not permitted|Permission denied"
    r"|FileNotFoundError|No such file or directory"
)
MEMORY = r"MemoryError|can't allocate memory|Cannot allocate memory"
WRONG = r"cases failed"
ENDED = r"ended the process before it answered"
SEGV = ENDED + r" \(killed by SIGSEGV: "
THREADS = ENDED + r" \(killed by SIGSYS: your code started more threads than the sandbox allows"
TOO_LONG = r"ran longer than the"


@dataclass(frozen=True)
class Attack:
    name: str
    code: str
    verdicts: frozenset[str]
    # A regex the verdict's message must match: the attack was stopped for the reason we think
    # (the sandbox), not by a typo in its own code.
    reason: str = EPERM
    # What it aims at (every checker runs after every attack anyway); the control run under the
    # insecure profile asserts these do fire when nothing stops the attack.
    effects: tuple[str, ...] = ()
    # Layers that must be active for the attack to be stopped (else the test is skipped and
    # says so): e.g. reading files needs Landlock (SECURITY.md, "Without Landlock").
    needs: tuple[str, ...] = ()
    # Extra solution submissions afterwards: 1 + the slot count proves every slot still grades.
    every_slot: bool = False
    extra: Extra | None = None
    xfail: str | None = None
    # Run under the insecure profile too, where it must visibly succeed: produce its
    # ``effects`` and leak the secrets named here (prefixes of ``probes.needles`` keys).
    control: bool = False
    leaks: tuple[str, ...] = ()


# --- extra assertions on a response -------------------------------------------------------------


def output_capped(body: dict[str, Any]) -> None:
    for key in ("stdout", "stderr"):
        assert len(body[key]) < OUTPUT_CAP, (key, len(body[key]))
        assert body[key].startswith("A" * 100), (key, body[key][:200])
        assert body[key].endswith("[... output truncated]"), (key, body[key][-200:])


def message_capped(body: dict[str, Any]) -> None:
    assert len(body["message"]) < 8 * 1024, len(body["message"])
    assert len(str(body["error"])) < 8 * 1024, len(str(body["error"]))
    assert body["error"]["type"] == "ValueError", body["error"]


def one_inherited_fd(body: dict[str, Any]) -> None:
    """The forged frame's stdout lists the fds 3..63 it could write to: the result pipe only."""
    assert body["stdout"].startswith("writable fds: ["), body["stdout"][:200]
    fds = body["stdout"].split("[", 1)[1].split("]", 1)[0]
    assert len([f for f in fds.split(",") if f.strip()]) == 1, body["stdout"][:200]


def quick(body: dict[str, Any], seconds: float) -> None:
    """The slot server did not wait for its deadline (it saw the pipe close and killed)."""
    assert body["timings_ms"]["total"] < seconds * 1000, body["timings_ms"]


def bounded_response(body: dict[str, Any]) -> None:
    """For forged or exotic answers: message and error stay small."""
    assert len(body.get("message") or "") < 8 * 1024, len(body.get("message") or "")
    assert len(str(body.get("error"))) < 8 * 1024, len(str(body.get("error")))


# --- the table ----------------------------------------------------------------------------------

EXFILTRATION = [
    Attack(
        "read_environ_of_ancestors_and_all_processes",
        at_import(r"""
            pids = [os.getppid(), API_PID, 1]
            pid = os.getppid()
            for _ in range(6):  # child -> slot server -> zygote -> API
                try:
                    with open(f"/proc/{pid}/stat") as f:
                        pid = int(f.read().rsplit(")", 1)[1].split()[1])
                except OSError:
                    break
                pids.append(pid)
            try:
                pids += [int(p) for p in os.listdir("/proc") if p.isdigit()]
            except OSError:
                pass
            texts = []
            for pid in dict.fromkeys(pids):
                try:
                    with open(f"/proc/{pid}/environ", "rb") as f:
                        texts.append(f.read().decode(errors="replace"))
                except OSError:
                    pass
            if not texts:
                raise PermissionError("no /proc/<pid>/environ readable")
            loot = [v for t in texts for v in t.split("\0") if "ADDNORM" in v or "SECRET" in v]
            print(loot or texts)
            raise RuntimeError(f"loot: {loot or texts}"[:1900])
        """),
        ERROR,
        needs=("landlock",),
        control=True,
        reason="no /proc/<pid>/environ readable",
        leaks=("server environment",),
    ),
    Attack(
        "read_proc_1_environ",
        at_import("""
            with open("/proc/1/environ", "rb") as f:
                print(f.read()[:4000])
        """),
        ERROR,
        needs=("landlock",),
    ),
    Attack(
        "read_own_environment_and_c_environ",
        at_import("""
            env = dict(os.environ)
            env_c = []
            p = ctypes.POINTER(ctypes.c_char_p).in_dll(_libc, "environ")
            if ctypes.cast(p, ctypes.c_void_p).value:
                i = 0
                while p[i]:
                    env_c.append(p[i].decode(errors="replace"))
                    i += 1
            _libc.getenv.restype = ctypes.c_char_p
            got = [_libc.getenv(b"ADDNORM_TEST_CANARY"), _libc.getenv(b"PATH")]
            print(env, env_c, got)
            if not env and not env_c:
                raise LookupError("the environment is empty")
        """),
        ERROR,
        reason="the environment is empty",
    ),
    Attack(
        "read_sqlite_file_bytes",
        at_import(r"""
            import re
            blobs = []
            for p in (DB_PATH, DB_PATH + "-wal"):
                try:
                    with open(p, "rb") as f:
                        blobs.append(f.read())
                except OSError as e:
                    err = e
            if not blobs:
                raise err
            hashes = sorted({m.decode() for b in blobs for m in re.findall(rb"[0-9a-f]{64}", b)})
            schema = [b[b.find(b"CREATE"):][:60] for b in blobs if b"CREATE" in b]
            print(hashes, schema)
            raise RuntimeError(f"{hashes} {schema}"[:1900])
        """),
        ERROR,
        needs=("landlock",),
        control=True,
        leaks=("token_hash", "database schema"),
    ),
    Attack(
        "query_sqlite_with_sqlite3",
        at_import("""
            import sqlite3
            con = sqlite3.connect(f"file:{DB_PATH}?mode=ro", uri=True)
            rows = con.execute("select name, token_hash from user").fetchall()
            print(rows)
            raise RuntimeError(repr(rows)[:1900])
        """),
        ERROR,
        needs=("landlock",),
        reason="unable to open database file",
    ),
    Attack(
        "read_data_dir_and_server_log",
        at_import("""
            print(os.listdir(DATA_DIR))
            with open(os.path.join(DATA_DIR, "server.log")) as f:
                log = f.read()
            print(log[:6000])
            raise RuntimeError(log[:1900])
        """),
        ERROR,
        needs=("landlock",),
    ),
    Attack(
        "read_grader_source_files",
        at_import("""
            names = ("__main__", "api.grading.zygote", "api.grading.sandbox", "api.grading.pool")
            files = [getattr(sys.modules.get(n), "__file__", None) for n in names]
            files += [os.path.join(REPO, "api", "grading", f) for f in ("zygote.py", "sandbox.py")]
            got = {}
            for path in dict.fromkeys(f for f in files if f):
                try:
                    with open(path) as f:
                        got[path] = f.read()
                except OSError:
                    pass
            try:
                print(os.listdir(os.path.join(REPO, "api", "grading")))
            except OSError:
                pass
            if not got:
                raise PermissionError("grader source unreadable")
            # Reconnaissance: the grader's functions and constants.
            lines = [ln for t in got.values() for ln in t.splitlines()
                     if ln.startswith("def ") or "Final[" in ln]
            print("\\n".join(lines))
            raise RuntimeError("\\n".join(lines)[:1900])
        """),
        ERROR,
        needs=("landlock",),
        control=True,
        reason="grader source unreadable",
        leaks=("grader source (zygote.py)", "grader source (sandbox.py)"),
    ),
    Attack(
        "grader_source_via_inspect_linecache_loader",
        at_import("""
            import inspect, linecache
            got = []
            for n in ("__main__", "api.grading.zygote", "api.grading.sandbox"):
                m = sys.modules.get(n)
                if m is None:
                    continue
                for how in (
                    lambda: inspect.getsource(m),
                    lambda: "".join(linecache.getlines(m.__file__)),
                    lambda: m.__loader__.get_source(m.__name__),
                ):
                    try:
                        text = how()
                    except Exception:
                        continue
                    if text:
                        got.append(text)
            if not got:
                raise PermissionError("no source through inspect, linecache or the loader")
            lines = [ln for t in got for ln in t.splitlines()
                     if ln.startswith("def ") or "Final[" in ln]
            print("\\n".join(lines))
        """),
        ERROR,
        needs=("landlock",),
        reason="no source through inspect, linecache or the loader",
    ),
    Attack(
        "read_and_import_the_worked_solution",
        custom("""
            texts = []
            for p in (SOLUTION_PATH, os.path.join(REPO, "exercises", "layer_norm", "spec.py")):
                try:
                    with open(p) as f:
                        texts.append(f.read())
                except OSError:
                    pass
            sys.path.insert(0, REPO)
            try:
                from solutions.layer_norm import LayerNorm as Stolen
            except Exception:
                Stolen = None
            print(texts)
            if not texts and Stolen is None:
                raise PermissionError("solutions/ unreadable and not importable")


            class LayerNorm(nn.Module):  # replaced below by the stolen one
                pass


            if Stolen is not None:
                LayerNorm = Stolen
        """),
        ERROR,
        needs=("landlock",),
        control=True,
        reason="solutions/ unreadable and not importable",
        leaks=("worked solution",),
    ),
    Attack(
        "read_etc_shadow",
        at_import("""
            got = []
            for p in ("/etc/shadow", "/etc/gshadow"):
                try:
                    with open(p) as f:
                        got.append(f.read())
                except OSError as e:
                    err = e
            if not got:
                raise err
            print(got)
        """),
        ERROR,
    ),
]

NETWORK = [
    Attack(
        "tcp_connect_to_test_listener",
        in_forward("""
            s = socket.create_connection(("127.0.0.1", TCP_PORT), timeout=2)
            s.sendall(NONCE.encode())
            s.close()
        """),
        ERROR,
        effects=("network",),
        control=True,
    ),
    Attack(
        "http_post_to_the_api_own_port",
        at_import("""
            import json
            body = json.dumps({"name": NONCE}).encode()
            s = socket.create_connection(("127.0.0.1", API_PORT), timeout=5)
            s.sendall(
                b"POST /users HTTP/1.1\\r\\nHost: x\\r\\nContent-Type: application/json\\r\\n"
                + b"Content-Length: " + str(len(body)).encode() + b"\\r\\n"
                + b"Connection: close\\r\\n\\r\\n" + body
            )
            print(s.recv(4096))
            s.close()
        """),
        ERROR,
        effects=("api_user",),
        control=True,
    ),
    Attack(
        "udp_datagram_to_test_listener",
        in_init("""
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.sendto(NONCE.encode(), ("127.0.0.1", UDP_PORT))
            s.close()
        """),
        ERROR,
        effects=("network",),
        control=True,
    ),
    Attack(
        "unix_socket_connect_to_test_listener",
        in_init("""
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(UNIX_SOCK)
            s.sendall(NONCE.encode())
            s.close()
        """),
        ERROR,
        effects=("network",),
        control=True,
    ),
]

FILES_AND_LIMITS = [
    Attack(
        "write_files_everywhere",
        at_import("""
            wrote, refused = [], []
            for key, path in TARGETS.items():
                if key in ("fill", "reduce", "link", "symlink", "dir", "renamed", "fifo"):
                    continue
                try:
                    with open(path, "w") as f:
                        f.write("# written by " + NONCE + "\\n")
                    wrote.append(path)
                except OSError as e:
                    refused.append(f"{key}: {type(e).__name__}")
            print(wrote, refused)
            if not wrote:
                raise PermissionError("; ".join(refused))
        """),
        ERROR,
        effects=("files",),
        control=True,
    ),
    Attack(
        "tamper_with_a_server_file_and_the_filesystem",
        in_forward("""
            done, refused = [], []
            steps = [
                ("append", lambda: os.write(os.open(VICTIM, os.O_WRONLY | os.O_APPEND), b"x")),
                ("truncate", lambda: os.truncate(VICTIM, 0)),
                ("chmod", lambda: os.chmod(VICTIM, 0o777)),
                ("hard link", lambda: os.link(VICTIM, TARGETS["link"])),
                ("symlink", lambda: os.symlink(DB_PATH, TARGETS["symlink"])),
                ("mkdir", lambda: os.mkdir(TARGETS["dir"])),
                ("mkfifo", lambda: os.mkfifo(TARGETS["fifo"])),
                ("rename", lambda: os.rename(VICTIM, TARGETS["renamed"])),
                ("unlink", lambda: os.unlink(VICTIM)),
            ]
            for what, step in steps:
                try:
                    step()
                    done.append(what)
                except OSError as e:
                    refused.append(f"{what}: {e.strerror}")
            print(done)
            if not done:
                raise PermissionError("; ".join(refused))
        """),
        ERROR,
        effects=("victim", "files"),
        control=True,
    ),
    Attack(
        "fill_the_disk",
        at_import("""
            with open(TARGETS["fill"], "wb") as f:
                for _ in range(256):  # 256 MiB, then stop: bounded even if nothing stops it
                    f.write(b"\\0" * (1 << 20))
                    f.flush()
        """),
        ERROR,
        effects=("files",),
    ),
    Attack(
        "exhaust_file_descriptors",
        in_init("""
            fds = []
            try:
                while len(fds) < 4096:
                    fds.append(os.dup(0))
            except OSError as e:
                raise OSError(f"stopped after {len(fds)} fds: {e}") from None
            for fd in fds:
                os.close(fd)
        """),
        ERROR,
        reason=r"stopped after \d+ fds: .*Too many open files",
    ),
    Attack(
        "memory_bomb_python_bytearray",
        at_import("""
            hog = bytearray(8 << 30)
        """),
        ERROR,
        reason=MEMORY,
    ),
    Attack(
        "memory_bomb_torch_empty",
        in_init("""
            self.hog = torch.empty(8 << 30, dtype=torch.uint8)
        """),
        ERROR,
        reason=MEMORY,
    ),
    Attack(
        "memory_bomb_torch_randn",
        in_forward("""
            hog = torch.randn(2 << 30)
        """),
        ERROR,
        reason=MEMORY,
    ),
    Attack(
        "memory_bomb_mmap_loop",
        at_import("""
            import mmap
            maps = [mmap.mmap(-1, 512 << 20) for _ in range(32)]  # 16 GiB, lazily
        """),
        ERROR,
        reason=MEMORY,
    ),
]

PROCESSES = [
    Attack(
        "os_system_background_sleep",
        at_import("""
            rc = os.system(f"sleep {SLEEP_ARG} &")
            if rc != 0:
                raise OSError(f"os.system answered {rc}")
        """),
        ERROR,
        effects=("processes",),
        reason="os.system answered",
    ),
    Attack(
        "subprocess_popen_new_session",
        in_init("""
            import subprocess
            subprocess.Popen(["sleep", SLEEP_ARG], start_new_session=True, close_fds=True)
        """),
        ERROR,
        effects=("processes",),
        control=True,
    ),
    Attack(
        "os_execv_sleep",
        in_init("""
            os.execv("/bin/sleep", ["sleep", SLEEP_ARG])
        """),
        ERROR,
        effects=("processes",),
    ),
    Attack(
        "os_posix_spawn_setsid",
        at_import("""
            os.posix_spawn("/bin/sleep", ["sleep", SLEEP_ARG], {}, setsid=True)
        """),
        ERROR,
        effects=("processes",),
    ),
    Attack(
        "fork_bomb",
        at_import("""
            for _ in range(64):  # bounded: 64 children even if nothing stops it
                if os.fork() == 0:
                    os.closerange(3, 1 << 16)
                    name_me()
                    time.sleep(1000)
                    os._exit(0)
        """),
        ERROR,
        effects=("processes",),
    ),
    Attack(
        "setsid_double_fork_escape",
        at_import("""
            pid = os.fork()
            if pid == 0:
                try:
                    os.setsid()
                    if os.fork() == 0:
                        os.closerange(3, 1 << 16)
                        name_me()
                        time.sleep(1000)
                finally:
                    os._exit(0)
            os.waitpid(pid, 0)
        """),
        ERROR,
        effects=("processes",),
        control=True,
    ),
    Attack(
        "ctypes_raw_fork_and_clone_syscalls",
        at_import("""
            SIGCHLD = 17
            results = {}
            for what, call in (
                ("fork(57)", lambda: _libc.syscall(57)),
                ("clone(56)", lambda: _libc.syscall(56, SIGCHLD, 0, 0, 0, 0)),
                ("libc fork()", lambda: _libc.fork()),
            ):
                pid = call()
                if pid == 0:
                    os.closerange(3, 1 << 16)
                    name_me()
                    time.sleep(1000)
                    os._exit(0)
                results[what] = pid if pid > 0 else errno_text()
            if not any(isinstance(v, int) for v in results.values()):
                raise OSError(str(results))
        """),
        ERROR,
        effects=("processes",),
        reason=r"'fork\(57\)': 'errno 1 .*'clone\(56\)': 'errno 1 .*'libc fork\(\)': 'errno 1 ",
    ),
    Attack(
        "thread_bomb",
        at_import("""
            def sleeper():
                name_me()
                time.sleep(1000)

            started = 0
            try:
                while started < 3000:
                    threading.Thread(target=sleeper, daemon=True).start()
                    started += 1
            except RuntimeError as e:
                raise RuntimeError(f"stopped after {started} threads: {e}") from None
        """),
        CRASHED,
        effects=("processes",),
        reason=THREADS,
    ),
    Attack(
        # An honest mistake as much as an attack: without a cap it holds every core for seconds
        # (as a non-root service, before the one-thread rule) and still passes.
        # 8, not 32: under insecure 32 threads' stacks and malloc arenas hit RLIMIT_AS first.
        "set_num_threads_8_and_a_matmul_loop",
        # The loop in the first call only: 17 calls of it take over 5 s on a slow 2-core machine
        # even with every thread allowed, so the control (no sandbox) would time out too.
        in_forward("""
            torch.set_num_threads(8)
            a = torch.randn(512, 512)
            for _ in range(0 if getattr(attack, "ran", False) else 10):
                a = torch.tanh(a @ a / 512)
            attack.ran = True
        """),
        CRASHED,
        reason=THREADS,
        control=True,
    ),
    Attack(
        "unshare_namespaces",
        at_import("""
            flags = {"user": 0x10000000, "mount": 0x00020000, "net": 0x40000000, "pid": 0x20000000}
            results = {k: _libc.unshare(v) for k, v in flags.items()}
            if all(r != 0 for r in results.values()):
                raise PermissionError(f"unshare refused: {errno_text()}")
        """),
        ERROR,
    ),
    Attack(
        "mount_tmpfs_and_chroot",
        at_import("""
            ok = []
            if _libc.mount(b"none", MOUNT_DIR.encode(), b"tmpfs", 0, None) == 0:
                ok.append("mount")
            if _libc.chroot(MOUNT_DIR.encode()) == 0:
                ok.append("chroot")
            if not ok:
                raise PermissionError(f"mount and chroot refused: {errno_text()}")
        """),
        ERROR,
        effects=("mount",),
    ),
    Attack(
        "setuid_root_capset_and_raise_rlimits",
        at_import("""
            import resource
            done, refused = [], []
            INF = resource.RLIM_INFINITY

            def raise_hard(which):
                soft, hard = resource.getrlimit(which)
                if hard == INF:
                    raise OSError("already unlimited: nothing to raise")
                resource.setrlimit(which, (hard + 1, hard + 1))

            class Hdr(ctypes.Structure):
                _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

            class Data(ctypes.Structure):
                _fields_ = [("e", ctypes.c_uint32), ("p", ctypes.c_uint32), ("i", ctypes.c_uint32)]

            def capset_all():
                data = (Data * 2)(Data(~0 & 0xFFFFFFFF, ~0 & 0xFFFFFFFF, 0), Data(0xFF, 0xFF, 0))
                if _libc.syscall(126, ctypes.byref(Hdr(0x20080522, 0)), data) != 0:
                    raise OSError(errno_text())

            steps = [
                ("setuid(0)", lambda: os.setuid(0)),
                ("setresuid(0)", lambda: os.setresuid(0, 0, 0)),
                ("setgid(0)", lambda: os.setgid(0)),
                ("setgroups([0])", lambda: os.setgroups([0])),
                ("capset(all)", capset_all),
                ("RLIMIT_AS", lambda: raise_hard(resource.RLIMIT_AS)),
                ("RLIMIT_CPU", lambda: raise_hard(resource.RLIMIT_CPU)),
                ("RLIMIT_FSIZE", lambda: raise_hard(resource.RLIMIT_FSIZE)),
                ("RLIMIT_NOFILE", lambda: raise_hard(resource.RLIMIT_NOFILE)),
                ("RLIMIT_NPROC", lambda: raise_hard(resource.RLIMIT_NPROC)),
            ]
            for what, step in steps:
                try:
                    step()
                    done.append(what)
                except (OSError, ValueError) as e:
                    refused.append(f"{what}: {e}")
            print(os.getresuid(), done)
            if not done:
                raise PermissionError("; ".join(refused)[:1500])
        """),
        ERROR,
        reason=r"setuid\(0\): .*Operation not permitted.*capset\(all\): errno 1 .*RLIMIT_AS: ",
    ),
    Attack(
        "ptrace_and_process_vm_readv_the_server",
        at_import("""
            PTRACE_ATTACH, PTRACE_SEIZE = 16, 0x4206
            r = [
                _libc.ptrace(PTRACE_ATTACH, os.getppid(), None, None),
                _libc.ptrace(PTRACE_SEIZE, API_PID, None, None),
            ]
            buf = ctypes.create_string_buffer(64)

            class IoVec(ctypes.Structure):
                _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]

            local = IoVec(ctypes.cast(buf, ctypes.c_void_p), 64)
            remote = IoVec(0x400000, 64)
            args = (ctypes.byref(local), 1, ctypes.byref(remote), 1, 0)
            r.append(_libc.syscall(310, API_PID, *args))  # process_vm_readv
            if all(v < 0 for v in r):
                raise PermissionError(f"ptrace/process_vm_readv refused: {errno_text()}")
        """),
        ERROR,
    ),
    Attack(
        "write_the_slot_servers_memory",
        at_import("""
            with open(f"/proc/{os.getppid()}/mem", "r+b") as mem:
                mem.seek(0x400000)
                mem.write(b"\\xcc")
        """),
        ERROR,
    ),
]

SIGNALS_AND_TIME = [
    Attack(
        "cpu_loop_ignoring_sigterm_and_sigxcpu",
        in_forward("""
            for s in (signal.SIGXCPU, signal.SIGTERM, signal.SIGINT, signal.SIGHUP,
                      signal.SIGALRM, signal.SIGUSR1, signal.SIGVTALRM, signal.SIGPROF):
                signal.signal(s, signal.SIG_IGN)
            while True:
                pass
        """),
        TIMEOUT,
        reason=TOO_LONG,
    ),
    Attack(
        "sleep_forever",
        in_init("""
            time.sleep(10**6)
        """),
        TIMEOUT,
        reason=TOO_LONG,
    ),
    Attack(
        "kill_and_stop_the_parent",
        at_import("""
            done, refused = [], []
            for what, step in (
                ("SIGSTOP parent", lambda: os.kill(os.getppid(), signal.SIGSTOP)),
                ("SIGKILL parent", lambda: os.kill(os.getppid(), signal.SIGKILL)),
                ("SIGKILL zygote group", lambda: os.killpg(os.getpgid(os.getppid()), 9)),
            ):
                try:
                    step()
                    done.append(what)
                except OSError as e:
                    refused.append(f"{what}: {e}")
            if not done:
                raise PermissionError("; ".join(refused))
        """),
        ERROR,
        every_slot=True,
        reason=r"SIGSTOP parent: .*not permitted; SIGKILL parent: .*not permitted",
    ),
    Attack(
        "close_the_result_pipe_then_spin",
        at_import("""
            import stat as st
            for fd in range(3, 64):
                try:
                    if st.S_ISFIFO(os.fstat(fd).st_mode):
                        os.close(fd)
                except OSError:
                    pass
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            while True:
                pass
        """),
        CRASHED,
        reason=ENDED,
        extra=lambda body: quick(body, 2.0),
    ),
    Attack(
        "kill_minus_one",
        at_import("""
            os.kill(-1, signal.SIGKILL)
        """),
        ERROR,
        every_slot=True,
    ),
    Attack(
        "signal_the_api_server",
        at_import("""
            os.kill(API_PID, signal.SIGUSR1)  # its default action ends the server
        """),
        ERROR,
    ),
]

CHEATING = [
    Attack(
        "patch_torch_comparisons_and_return_zeros",
        stub(
            before="""
            always = lambda *a, **k: True
            torch.allclose = torch.equal = always
            torch.Tensor.allclose = torch.Tensor.equal = always
            torch.testing.assert_close = lambda *a, **k: None
            torch.isclose = lambda a, b, *r, **k: torch.ones_like(a, dtype=torch.bool)
            torch.Tensor.__eq__ = lambda a, b: torch.ones_like(a, dtype=torch.bool)
            torch.Tensor.__ne__ = lambda a, b: torch.zeros_like(a, dtype=torch.bool)
            torch.Tensor.__sub__ = lambda a, b: torch.zeros_like(a)
            torch.Tensor.abs = lambda a: torch.zeros_like(a)
        """
        ),
        FAILED,
        reason=WRONG,
    ),
    Attack(
        "forge_a_result_frame_on_inherited_fds",
        stub(
            before="""
            import json, stat as st, struct
            writable = []
            for fd in range(3, 64):
                try:
                    mode = os.fstat(fd).st_mode
                except OSError:
                    continue
                if st.S_ISFIFO(mode) or st.S_ISSOCK(mode) or st.S_ISREG(mode):
                    writable.append(fd)
            claim = {
                "kind": "result", "status": "passed", "verdict": "passed", "cases_passed": 99,
                "cases": [], "banned_calls": [], "stdout": f"writable fds: {writable}",
                "stderr": "", "tensors": [],
            }
            head = json.dumps(claim).encode()
            frame = struct.pack(">I", len(head)) + head
            for fd in writable:
                try:
                    os.write(fd, frame)
                except OSError:
                    pass
            os._exit(0)
        """
        ),
        frozenset({"failed"}),
        extra=one_inherited_fd,
        reason="this case was never run",
    ),
    Attack(
        "scan_gc_for_tensors_and_return_one",
        custom("""
            import gc


            class LayerNorm(nn.Module):
                def __init__(self, dim, eps=1e-5):
                    super().__init__()
                    self.weight = nn.Parameter(torch.ones(dim))
                    self.bias = nn.Parameter(torch.zeros(dim))

                def forward(self, x):
                    seen = [o for o in gc.get_objects() if isinstance(o, torch.Tensor)]
                    same = [t for t in seen if t.shape == x.shape and t is not x]
                    print(len(seen), "tensors,", len(same), "of the input's shape")
                    pick = same[-1] if same else x
                    return pick.detach().to(x.dtype) * self.weight + self.bias
        """),
        FAILED,
        reason=WRONG,
    ),
    Attack(
        "return_a_lying_tensor_subclass",
        custom("""
            class Liar(torch.Tensor):
                def __eq__(self, other):
                    return True

                def allclose(self, *a, **k):
                    return True

                def double(self):
                    return self

                def __sub__(self, other):
                    return torch.zeros_like(other)

                def tolist(self):
                    return []


            class LayerNorm(nn.Module):
                def __init__(self, dim, eps=1e-5):
                    super().__init__()
                    self.weight = nn.Parameter(torch.ones(dim))
                    self.bias = nn.Parameter(torch.zeros(dim))

                def forward(self, x):
                    return (x * 0 * self.weight + self.bias).as_subclass(Liar)
        """),
        frozenset({"failed", "error", "crashed"}),
        reason=WRONG,
    ),
    Attack(
        "return_an_object_whose_pickling_runs_code",
        custom("""
            class Evil:
                def __reduce__(self):
                    return (os.system, (f"touch {TARGETS['reduce']}",))


            class EvilTensor(torch.Tensor):
                def __reduce_ex__(self, proto):
                    return (os.system, (f"touch {TARGETS['reduce']}",))


            class LayerNorm(nn.Module):
                calls = 0

                def __init__(self, dim, eps=1e-5):
                    super().__init__()
                    self.weight = nn.Parameter(torch.ones(dim))
                    self.bias = nn.Parameter(torch.zeros(dim))

                def forward(self, x):
                    LayerNorm.calls += 1
                    if LayerNorm.calls % 2:
                        return Evil()
                    return (x * 0 * self.weight).as_subclass(EvilTensor)
        """),
        FAILED,
        effects=("files",),
        reason="forward returned Evil, not",
    ),
    Attack(
        "return_a_huge_expanded_tensor",
        stub(forward="return x.reshape(-1)[:1].expand(10**9)"),
        frozenset({"crashed", "failed", "error"}),
        extra=bounded_response,
        reason=ENDED,
    ),
    Attack(
        "return_an_80_mb_tensor",
        custom("""
            class LayerNorm(nn.Module):
                calls = 0

                def __init__(self, dim, eps=1e-5):
                    super().__init__()
                    self.weight = nn.Parameter(torch.ones(dim))
                    self.bias = nn.Parameter(torch.zeros(dim))

                def forward(self, x):
                    LayerNorm.calls += 1
                    if LayerNorm.calls == 1:
                        return torch.zeros(2 * 10**7)
                    return x * 0 * self.weight + self.bias
        """),
        frozenset({"failed", "crashed"}),
        extra=bounded_response,
        reason="more output than the limit",
    ),
    Attack(
        "patch_the_harness_through_sys_modules",
        stub(
            before="""
            wire = sys.modules["api.grading.wire"]
            real_encode = wire.encode

            def forged(header, tensors):
                header = {**header, "banned_calls": [], "status": "passed", "load_error": None}
                return real_encode(header, {k: torch.zeros_like(v) for k, v in tensors.items()})

            wire.encode = forged
        """
        ),
        FAILED,
        reason=WRONG,
    ),
    Attack(
        "patch_globals_to_break_later_submissions",
        at_import("""
            import builtins
            zeros = lambda a, *r, **k: torch.zeros_like(a) if isinstance(a, torch.Tensor) else a
            for op in ("__add__", "__radd__", "__sub__", "__mul__", "__rmul__", "__pow__",
                       "__truediv__", "mean", "pow", "sum", "var", "sqrt", "rsqrt"):
                setattr(torch.Tensor, op, zeros)
            torch.rsqrt = torch.sqrt = torch.mean = zeros
            builtins.print = lambda *a, **k: None
            nn.Parameter.__new__ = lambda cls, data=None, requires_grad=True: data
        """),
        frozenset({"failed", "error", "crashed"}),
        every_slot=True,
        reason=WRONG,
    ),
]

CRASHES_AND_OUTPUT = [
    Attack(
        "sys_exit_at_import",
        custom("""
            import sys
            from torch import nn
            sys.exit(0)


            class LayerNorm(nn.Module):
                pass
        """),
        ERROR,
        reason="raised SystemExit",
    ),
    Attack(
        "os_exit_before_any_output",
        in_init("""
            os._exit(0)
        """),
        CRASHED,
        reason=ENDED,
    ),
    Attack(
        "raise_keyboard_interrupt_in_forward",
        in_forward("""
            raise KeyboardInterrupt("no grading for you")
        """),
        ERROR,
        reason="raised KeyboardInterrupt",
    ),
    Attack(
        "raise_a_base_exception_whose_str_raises",
        in_forward("""
            class Boom(BaseException):
                def __str__(self):
                    raise Boom()

            raise Boom()
        """),
        frozenset({"error", "crashed"}),
        reason=ENDED,
    ),
    Attack(
        "segfault_with_ctypes",
        in_forward("""
            ctypes.string_at(0)
        """),
        CRASHED,
        reason=SEGV,
    ),
    Attack(
        "unbounded_recursion_through_c",
        at_import("""
            sys.setrecursionlimit(10**6)

            class Deep:
                def __getattr__(self, name):
                    return getattr(self, name)

            Deep().anything
        """),
        frozenset({"crashed", "error"}),
        reason=SEGV + "|RecursionError",
    ),
    Attack(
        "print_100_mb_to_stdout_and_stderr",
        stub(
            before="""
                BIG = "A" * (100 << 20)
            """,
            forward="""
                print(BIG)
                sys.stderr.write(BIG)
                os.write(1, BIG[: 1 << 20].encode())
                sys.__stdout__.write(BIG[: 1 << 20])
            """,
        ),
        FAILED,
        extra=output_capped,
        reason=WRONG,
    ),
    Attack(
        "raise_a_100_mb_exception_message",
        at_import("""
            raise ValueError("A" * (100 << 20))
        """),
        ERROR,
        extra=message_capped,
        reason="raised ValueError",
    ),
    Attack(
        "raise_a_deeply_nested_exception",
        at_import("""
            nested = []
            for _ in range(200_000):
                nested = [nested]
            try:
                raise ValueError(nested)
            except ValueError as first:
                err = first
                for i in range(10_000):
                    try:
                        raise ValueError(i) from err
                    except ValueError as e:
                        err = e
                raise ValueError(nested) from err
        """),
        ERROR,
        extra=message_capped,
        reason="raised ValueError .*<unprintable>",
    ),
]

# Bugs this suite found (fixed): oversized or malformed errors, and undecodable frames, forged
# by the child.
FORMER_BUGS = [
    Attack(
        "exception_type_name_of_1_mb",
        at_import("""
            raise type("E" * 1_000_000, (Exception,), {})("short message")
        """),
        ERROR,
        reason="raised E",
    ),
    Attack(
        "forged_frame_with_a_6_mb_error_message",
        forged_frame(
            'json.dumps({"load_error": {"type": "X", "message": "m" * 3_000_000}}).encode()'
        ),
        # Capped when it was decoded; refused whole since headers are bounded (1 MiB).
        frozenset({"error", "crashed"}),
        reason="raised X|" + ENDED,
    ),
    Attack(
        "forged_frame_with_a_malformed_load_error",
        forged_frame('json.dumps({"load_error": "not an object"}).encode()'),
        frozenset({"error", "crashed"}),
        reason=".",
    ),
    Attack(
        "forged_frame_with_deeply_nested_json",
        forged_frame('b"[" * 200_000 + b"]" * 200_000'),
        frozenset({"crashed"}),
        reason=ENDED,
    ),
]


def forged_frame_with_blob(head: str, blob: str) -> str:
    """Like ``forged_frame``, with a data blob after the header (expressions, bytes)."""
    return stub(
        before=f"""
        import json, struct
        head = {head}
        blob = {blob}
        for fd in range(3, 64):
            try:
                os.write(fd, struct.pack(">I", len(head)) + head + blob)
            except OSError:
                pass
        os._exit(0)
        """
    )


# Round two (issue 8): what the service decodes, parses and stores around the sandbox. Run by
# ``test_service_bounds.py`` with the service's memory, its database and the listings watched.
LAYER_NORM_BY_NAME = 'getattr(torch.nn.functional, "layer" + "_norm")'
ROUND_TWO: dict[str, list[Attack]] = {
    "forged frames": [
        Attack(
            "forged_overlapping_tensor_descriptors",
            forged_frame_with_blob(
                'json.dumps({"tensors": [{"key": f"{i}.output", "dtype": "float32", '
                '"shape": [16384], "offset": 0, "nbytes": 65536} for i in range(5000)]}).encode()',
                "bytes(65536)",
            ),
            CRASHED,
            reason=ENDED,
            extra=bounded_response,
        ),
        Attack(
            "forged_integer_over_4300_digits",
            forged_frame('b\'{"stdout": \' + b"9" * 5000 + b"}"'),
            CRASHED,
            reason=ENDED,
        ),
        Attack(
            "forged_shape_whose_product_overflows",
            forged_frame(
                'json.dumps({"tensors": [{"key": "0.output", "dtype": "float64", '
                '"shape": [2**40, 2**40, 2**40], "offset": 0, "nbytes": 0}]}).encode()'
            ),
            CRASHED,
            reason=ENDED,
        ),
        Attack(
            "forged_huge_parameter_info",
            forged_frame(
                'json.dumps({"cases": [{"name": f"c{c}", "parameters": {f"p{i}" * 20: '
                "[10**19] * 8 for i in range(1000)}} for c in range(40)]}).encode()"
            ),
            frozenset({"failed", "error", "crashed"}),
            reason=".",
            extra=bounded_response,
        ),
        Attack(
            "forged_lone_surrogates_everywhere",
            forged_frame(
                'json.dumps({"stdout": "\\ud800" * 100, "stderr": "\\udfff", '
                '"load_error": {"type": "\\ud800", "message": "\\udc00"}}).encode()'
            ),
            ERROR,
            reason="raised",
        ),
    ],
    "metadata": [
        Attack(
            "stat_the_solutions_the_database_and_the_processes",
            at_import("""
                learned = {}
                for path in (SOLUTION_PATH, DB_PATH, DATA_DIR, REPO + "/solutions", "/etc/passwd"):
                    try:
                        st = os.stat(path)
                        learned[path] = (st.st_size, st.st_mtime, st.st_uid)
                    except OSError as e:
                        pass
                for probe in (
                    lambda: os.access(SOLUTION_PATH, os.F_OK) or 1 / 0,
                    lambda: os.readlink(f"/proc/{API_PID}/exe"),
                    lambda: len([p for p in os.listdir("/proc") if p.isdigit()]),
                    lambda: os.stat(f"/proc/{API_PID}").st_uid,
                ):
                    try:
                        learned[str(len(learned))] = probe()
                    except (OSError, ZeroDivisionError):
                        pass
                if not learned:
                    raise FileNotFoundError("learned nothing: No such file or directory")
                print("learned", learned)
            """),
            ERROR,
            needs=("mount_ns",),
            control=True,
        ),
    ],
    "child deaths": [
        Attack(
            "killed_by_a_real_time_signal",
            in_forward("""
                os.kill(os.getpid(), signal.SIGRTMIN + 3)
                time.sleep(5)
            """),
            CRASHED,
            reason=ENDED + r" \(killed by SIGRTMIN\+3",
        ),
        Attack(
            "killed_by_signal_64",
            in_init("""
                os.kill(os.getpid(), 64)
                time.sleep(5)
            """),
            CRASHED,
            reason=ENDED + r" \(killed by SIGRTMAX",
        ),
    ],
    "static check": [
        Attack(
            "ten_thousand_unary_minus",
            custom("x = " + "-" * 60_000 + "1\n" + "class LayerNorm:\n    pass\n"),
            ERROR,
            reason="nested too deeply",
        ),
        Attack(
            "nested_lambdas",
            custom("x = " + "lambda: " * 7_000 + "1\n" + "class LayerNorm:\n    pass\n"),
            ERROR,
            reason="nested too deeply",
        ),
        Attack(
            "chained_calls",
            custom("x = f" + "()" * 30_000 + "\n" + "class LayerNorm:\n    pass\n"),
            ERROR,
            reason="nested too deeply",
        ),
    ],
    "banned API bypasses": [
        Attack(
            "disable_torch_function_around_the_banned_builtin",
            custom(f"""
                import torch
                from torch import nn

                class LayerNorm(nn.Module):
                    def __init__(self, dim, eps=1e-5):
                        super().__init__()
                        self.eps = eps
                        self.weight = nn.Parameter(torch.ones(dim))
                        self.bias = nn.Parameter(torch.zeros(dim))

                    def forward(self, x):
                        with torch._C.DisableTorchFunction():
                            return {LAYER_NORM_BY_NAME}(
                                x, x.shape[-1:], self.weight, self.bias, self.eps
                            )
            """),
            frozenset({"error", "rejected"}),
            reason="not available in this exercise|does not allow|called",
        ),
        Attack(
            "disable_torch_function_subclass_around_the_banned_builtin",
            custom(f"""
                import torch
                from torch import nn

                class LayerNorm(nn.Module):
                    def __init__(self, dim, eps=1e-5):
                        super().__init__()
                        self.eps = eps
                        self.weight = nn.Parameter(torch.ones(dim))
                        self.bias = nn.Parameter(torch.zeros(dim))

                    def forward(self, x):
                        with torch._C.DisableTorchFunctionSubclass():
                            return {LAYER_NORM_BY_NAME}(
                                x, x.shape[-1:], self.weight, self.bias, self.eps
                            )
            """),
            frozenset({"error", "rejected"}),
            reason="not available in this exercise|does not allow|called",
        ),
        Attack(
            "empty_the_tripwire_through_gc",
            custom(f"""
                import gc
                import torch
                from torch import nn

                def blind():
                    for o in gc.get_objects():
                        for name in ("banned", "ops", "tripped"):
                            value = getattr(o, name, None) if hasattr(o, "__dict__") else None
                            if isinstance(value, (dict, set)):
                                value.clear()
                            elif isinstance(value, frozenset):
                                setattr(o, name, frozenset())

                class LayerNorm(nn.Module):
                    def __init__(self, dim, eps=1e-5):
                        super().__init__()
                        self.eps = eps
                        self.weight = nn.Parameter(torch.ones(dim))
                        self.bias = nn.Parameter(torch.zeros(dim))

                    def forward(self, x):
                        blind()
                        try:
                            return {LAYER_NORM_BY_NAME}(
                                x, x.shape[-1:], self.weight, self.bias, self.eps
                            )
                        finally:
                            blind()
            """),
            frozenset({"error", "rejected"}),
            reason="not available in this exercise|does not allow|called",
        ),
        Attack(
            "inference_mode_and_torch_ops_aten",
            custom("""
                import torch
                from torch import nn

                class LayerNorm(nn.Module):
                    def __init__(self, dim, eps=1e-5):
                        super().__init__()
                        self.eps = eps
                        self.weight = nn.Parameter(torch.ones(dim))
                        self.bias = nn.Parameter(torch.zeros(dim))

                    def forward(self, x):
                        op = getattr(torch.ops.aten, "native_" + "layer_norm")
                        with torch._C.DisableTorchFunction(), torch.inference_mode():
                            return op(x, x.shape[-1:], self.weight, self.bias, self.eps)[0]
            """),
            frozenset({"error", "rejected", "failed"}),
            reason="not available in this exercise|does not allow|called|cases failed",
        ),
        # torch's own Python implementations of whole operators (the references and
        # decompositions behind torch.compile) compute from primitive ops no ban can list.
        Attack(
            "private_reference_implementation_by_name",
            custom("""
                import torch
                from torch import nn

                class LayerNorm(nn.Module):
                    def __init__(self, dim, eps=1e-5):
                        super().__init__()
                        self.eps = eps
                        self.weight = nn.Parameter(torch.ones(dim))
                        self.bias = nn.Parameter(torch.zeros(dim))

                    def forward(self, x):
                        refs = getattr(torch, "_re" + "fs")
                        fn = getattr(refs, "native_layer" + "_norm")
                        return fn(x, x.shape[-1:], self.weight, self.bias, self.eps)[0]
            """),
            frozenset({"error", "rejected"}),
            reason="private operator implementations|not allowed|does not allow",
        ),
        Attack(
            "private_decomposition_table",
            custom("""
                import torch
                from torch import nn

                class LayerNorm(nn.Module):
                    def __init__(self, dim, eps=1e-5):
                        super().__init__()
                        self.eps = eps
                        self.weight = nn.Parameter(torch.ones(dim))
                        self.bias = nn.Parameter(torch.zeros(dim))

                    def forward(self, x):
                        table = getattr(getattr(torch, "_dec" + "omp"), "decomposition_table")
                        fn = [v for k, v in table.items() if "native_layer" + "_norm." in str(k)][0]
                        return fn(x, list(x.shape[-1:]), self.weight, self.bias, self.eps)[0]
            """),
            frozenset({"error", "rejected"}),
            reason="private operator implementations|not allowed|does not allow",
        ),
        Attack(
            "private_package_imported",
            custom("""
                import torch._refs as refs
                import torch
                from torch import nn

                class LayerNorm(nn.Module):
                    def __init__(self, dim, eps=1e-5):
                        super().__init__()
                        self.eps = eps
                        self.weight = nn.Parameter(torch.ones(dim))
                        self.bias = nn.Parameter(torch.zeros(dim))

                    def forward(self, x):
                        return refs.native_layer_norm(
                            x, x.shape[-1:], self.weight, self.bias, self.eps
                        )[0]
            """),
            frozenset({"rejected"}),
            reason="torch._refs",
        ),
    ],
}

ATTACKS: list[Attack] = [
    *EXFILTRATION,
    *NETWORK,
    *FILES_AND_LIMITS,
    *PROCESSES,
    *SIGNALS_AND_TIME,
    *CHEATING,
    *CRASHES_AND_OUTPUT,
    *FORMER_BUGS,
]
_ALL = [*ATTACKS, *(a for group in ROUND_TWO.values() for a in group)]
assert len({a.name for a in _ALL}) == len(_ALL)
for _a in _ALL:
    assert "passed" not in _a.verdicts, _a.name

# Not attacks: what must keep working inside the sandbox (so "passed" is reachable at all and
# the captured output is real).
BENIGN = {
    "socketpair_in_init": in_init("""
        a, b = socket.socketpair()
        a.sendall(b"ping")
        assert b.recv(4) == b"ping"
        a.close()
        b.close()
    """),
    "small_print": in_forward("""
        print("benign-output", int(x.numel()) > 0)
    """),
    "read_the_standard_library": at_import("""
        import json
        with open(json.__file__) as f:
            assert "JSON" in f.read()
    """),
}
