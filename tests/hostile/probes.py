"""What the hostile suite observes from outside the sandbox: a per-attack context (unique names,
targets and listeners the attack aims at), and checkers for leaks and side effects.

Every checker returns a list of findings (empty means nothing happened) and is itself tested
against real events in ``test_attacks_over_http.py`` (``test_checkers_see_real_events``) and,
end to end, under the ``insecure`` profile (``test_control_attacks_work_without_the_sandbox``).
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import select
import socket
import sqlite3
import stat
import sysconfig
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from tests.support import REPO, Server

SOLUTION_PATH = REPO / "solutions" / "layer_norm.py"
SOLUTION = SOLUTION_PATH.read_text()
# Text that exists only in files the child must not read. Names that also live in the zygote's
# memory (``_REQUIRED`` is a global of the sandbox module, readable through ``dir()``; SECURITY.md
# "The zygote's memory") are not secrets, so the needles are source-only spellings.
SOURCE_NEEDLES = {
    "grader source (zygote.py)": "def _serve_slot(",
    "grader source (sandbox.py)": "_REQUIRED: Final[",
    "worked solution": "Subtract the mean *before* squaring",
    "database schema": "CREATE TABLE",
    "server log in the data dir": "Uvicorn running on",
}
assert "Subtract the mean *before* squaring" in SOLUTION
assert "def _serve_slot(" in (REPO / "api" / "grading" / "zygote.py").read_text()
assert "_REQUIRED: Final[" in (REPO / "api" / "grading" / "sandbox.py").read_text()

# A response may hold stdout and stderr (10,000 characters each), a message and a few dozen
# checks: far below this. Anything above means the parent relayed the child's output uncapped.
RESPONSE_CAP = 256 * 1024
OUTPUT_CAP = 64 * 1024


# --- listeners ------------------------------------------------------------------------------------


class Listener:
    """TCP and UDP on 127.0.0.1 and a pathname unix socket, all open to every uid.

    No thread: the kernel completes a TCP or unix handshake into the accept backlog and queues
    a datagram without our help, so ``events()`` (a non-blocking drain) sees every attempt that
    got through once the attack's child is dead.
    """

    def __init__(self, unix_path: Path) -> None:
        self.tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.tcp.bind(("127.0.0.1", 0))
        self.tcp.listen(64)
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", 0))
        self.unix_path = unix_path
        self.unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.unix.bind(str(unix_path))
        os.chmod(unix_path, 0o777)  # a per-slot uid may connect: only the sandbox stops it
        self.unix.listen(64)
        self.tcp_port = int(self.tcp.getsockname()[1])
        self.udp_port = int(self.udp.getsockname()[1])
        self._events: list[str] = []

    def events(self) -> list[str]:
        socks = [self.tcp, self.udp, self.unix]
        while True:
            ready, _, _ = select.select(socks, [], [], 0)
            if not ready:
                return list(self._events)
            for s in ready:
                if s is self.udp:
                    data, addr = s.recvfrom(65536)
                    self._events.append(f"UDP datagram from {addr}: {data[:60]!r}")
                else:
                    conn, addr = s.accept()
                    conn.close()
                    kind = "TCP" if s is self.tcp else "unix"
                    self._events.append(f"{kind} connection from {addr or 'a unix peer'}")

    def close(self) -> None:
        for s in (self.tcp, self.udp, self.unix):
            s.close()
        with contextlib.suppress(FileNotFoundError):
            self.unix_path.unlink()


# --- the context of one attack --------------------------------------------------------------------


@dataclass
class Ctx:
    """Unique names and the targets one attack aims at; rendered into its code as constants."""

    server: Server
    listener: Listener
    nonce: str = field(default_factory=lambda: secrets.token_hex(6))
    num: str = field(default_factory=lambda: str(10**8 + secrets.randbelow(9 * 10**8)))

    def __post_init__(self) -> None:
        tag = f"hx-{self.nonce}"
        home = Path.home()
        purelib = Path(sysconfig.get_paths()["purelib"])
        # Files no attack may create. "cwd" is relative: the child's cwd (/), the server's (the
        # repo) and ours are all checked.
        self.cwd_name = f"{tag}-cwd"
        self.targets: dict[str, str] = {
            "tmp": f"/tmp/{tag}",
            "var_tmp": f"/var/tmp/{tag}",
            "shm": f"/dev/shm/{tag}",
            "data": str(self.data_dir / tag),
            "repo": str(REPO / tag),
            "tests": str(REPO / "tests" / tag),
            "home": str(home / tag),
            "site": str(purelib / f"{tag}.pth"),
            "cwd": self.cwd_name,
            "fill": f"/tmp/{tag}-fill",
            "reduce": f"/tmp/{tag}-reduce",
            "link": f"/tmp/{tag}-link",
            "symlink": f"/tmp/{tag}-symlink",
            "dir": f"/tmp/{tag}-dir",
            "renamed": f"/tmp/{tag}-renamed",
            "fifo": f"/tmp/{tag}-fifo",
        }
        self.victim = self.data_dir / f"{tag}-victim"
        self.victim_text = f"the server's file {self.nonce}\n"
        self.mount_dir = Path(f"/tmp/{tag}-mnt")

    # --- what the attack code sees ----------------------------------------------------------------

    @property
    def comm(self) -> str:
        """A process/thread name (15 bytes at most) an attack gives whatever it starts."""
        return f"hx{self.num}"

    @property
    def sleep_arg(self) -> str:
        """``sleep <this>``: a valid duration only this attack uses, visible in ``ps``."""
        return f"1000.{self.num}"

    @property
    def data_dir(self) -> Path:
        return self.server.data_dir

    @property
    def db_path(self) -> Path:
        return self.data_dir / "addnorm.db"

    @property
    def api_port(self) -> int:
        port = urlsplit(self.server.url).port
        assert port is not None
        return port

    def constants(self) -> str:
        values: dict[str, object] = {
            "NONCE": self.nonce,
            "COMM": self.comm,
            "SLEEP_ARG": self.sleep_arg,
            "TCP_PORT": self.listener.tcp_port,
            "UDP_PORT": self.listener.udp_port,
            "UNIX_SOCK": str(self.listener.unix_path),
            "API_PORT": self.api_port,
            "API_PID": self.server.process.pid,
            "DB_PATH": str(self.db_path),
            "DATA_DIR": str(self.data_dir),
            "REPO": str(REPO),
            "SOLUTION_PATH": str(SOLUTION_PATH),
            "TARGETS": self.targets,
            "VICTIM": str(self.victim),
            "MOUNT_DIR": str(self.mount_dir),
        }
        return "".join(f"{k} = {v!r}\n" for k, v in values.items())

    # --- set-up and clean-up ----------------------------------------------------------------------

    def set_up(self) -> None:
        self.victim.write_text(self.victim_text)
        self.victim.chmod(0o644)
        self.mount_dir.mkdir(mode=0o777)
        self.mount_dir.chmod(0o777)

    def clean_up(self) -> None:
        """Undo what a successful attack did (only the control run should need this)."""
        for pid, _ in processes_tagged(self):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, 9)
        if self.mount_dir.as_posix() in _mounts():
            os.system(f"umount -l {self.mount_dir}")  # our own path
        for path in self.created_paths():
            p = Path(path)
            with contextlib.suppress(OSError):
                if p.is_dir() and not p.is_symlink():
                    p.rmdir()
                else:
                    p.unlink()
        with contextlib.suppress(OSError):
            self.victim.unlink()
        with contextlib.suppress(OSError):
            self.mount_dir.rmdir()

    def created_paths(self) -> list[str]:
        paths = [p for k, p in self.targets.items() if k != "cwd"]
        paths += [
            f"/{self.cwd_name}",
            str(REPO / self.cwd_name),
            str(Path.cwd() / self.cwd_name),
            str(self.mount_dir / self.nonce),
        ]
        return [p for p in paths if os.path.lexists(p)]


# --- checkers -------------------------------------------------------------------------------------


def files_created(ctx: Ctx) -> list[str]:
    return [f"{p} exists" for p in ctx.created_paths()]


def victim_tampered(ctx: Ctx) -> list[str]:
    v = ctx.victim
    if not v.exists():
        return [f"{v} was removed"]
    found = []
    if v.read_text() != ctx.victim_text:
        found.append(f"{v} was changed: {v.read_text()[:80]!r}")
    if stat.S_IMODE(v.stat().st_mode) != 0o644:
        found.append(f"{v} mode is now {oct(stat.S_IMODE(v.stat().st_mode))}")
    return found


def network_events(ctx: Ctx) -> list[str]:
    return ctx.listener.events()


def _proc_entries() -> list[int]:
    return [int(p) for p in os.listdir("/proc") if p.isdigit()]


def processes_tagged(ctx: Ctx) -> list[tuple[int, str]]:
    """Live (non-zombie) processes or threads carrying the attack's sleep argument or name."""
    found = []
    for pid in _proc_entries():
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
            if state in ("Z", "X"):
                continue
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            names = [Path(f"/proc/{pid}/comm").read_text().strip()]
            with contextlib.suppress(OSError):
                for tid in os.listdir(f"/proc/{pid}/task"):
                    names.append(Path(f"/proc/{pid}/task/{tid}/comm").read_text().strip())
        except (OSError, IndexError):
            continue  # gone meanwhile
        if ctx.sleep_arg in cmdline or ctx.comm in names:
            found.append((pid, f"{cmdline.strip() or names[0]!r}"))
    return found


def processes_started(ctx: Ctx) -> list[str]:
    return [f"pid {pid} is running: {what}" for pid, what in processes_tagged(ctx)]


def _db(ctx: Ctx) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{ctx.db_path}?mode=ro", uri=True, timeout=30)


def users_named(ctx: Ctx) -> list[str]:
    with contextlib.closing(_db(ctx)) as con:
        rows = con.execute("SELECT id FROM user WHERE name = ?", (ctx.nonce,)).fetchall()
    return [f"a user named {ctx.nonce} was created (id {r[0]})" for r in rows]


def token_hashes(ctx: Ctx) -> list[str]:
    with contextlib.closing(_db(ctx)) as con:
        return [str(r[0]) for r in con.execute("SELECT token_hash FROM user")]


def _mounts() -> str:
    return Path("/proc/self/mountinfo").read_text()


def mounted(ctx: Ctx) -> list[str]:
    return [f"{ctx.mount_dir} is a mount point"] if str(ctx.mount_dir) in _mounts() else []


CHECKERS = {
    "files": files_created,
    "victim": victim_tampered,
    "network": network_events,
    "processes": processes_started,
    "api_user": users_named,
    "mount": mounted,
}


def side_effects(ctx: Ctx) -> dict[str, list[str]]:
    """Every checker, whatever the attack aimed at: an attack may do more than it says."""
    return {name: found for name, check in CHECKERS.items() if (found := check(ctx))}


# --- leaks ----------------------------------------------------------------------------------------


def shadow_line() -> str | None:
    """The first line of /etc/shadow when we can read it (as root), as a needle."""
    try:
        line = Path("/etc/shadow").read_text().splitlines()[0]
    except (OSError, IndexError):
        return None
    return line if len(line) >= 8 else None


def needles(ctx: Ctx) -> dict[str, str]:
    found = {"server environment (canary)": ctx.server.canary, **SOURCE_NEEDLES}
    for i, h in enumerate(token_hashes(ctx)):
        found[f"token_hash #{i} from the database"] = h
    shadow = shadow_line()
    if shadow:
        found["/etc/shadow"] = shadow
    return found


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (*_strings(k), *_strings(v))]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def leaks(raw: str, body: object, secrets_: dict[str, str]) -> list[str]:
    """Secrets found in the raw response or in any string of its decoded JSON."""
    texts = [raw, *_strings(body)]
    hay = "\n".join(texts)
    folded = re.sub(r"\s+", " ", hay)
    return [what for what, s in secrets_.items() if s in hay or s in folded]
