"""Hosts of our own on this one machine: a network namespace per host, each with a veth link into
a bridge that lives in a "switch" namespace, and its own address on a private test subnet.

What runs in one namespace reaches another only over those links, so a process on the ``api``
host talks to PostgreSQL on the ``db`` host as it would across a real network, and cutting a
host's link (``ip link set eth0 down`` inside it) is a host falling off the network while its
processes keep running. PostgreSQL and Redis are started inside their namespaces as throwaway
instances: the machine's own servers listen on 127.0.0.1 of the root namespace, which no test
host can reach.

Needs root (``ip netns add``). Nothing is attached to the machine's real interfaces and no
namespace has a route out: the subnet exists only between these namespaces, so no packet of the
test leaves them, and two runs at once do not meet (each has its own namespaces and bridge).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import pwd
import secrets
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
import redis

# Private to the namespaces below; never configured on the machine itself.
SUBNET = "10.213.7"
PREFIX_LEN = 24
# Each host's last octet.
ADDRESSES = {"api": 10, "worker1": 11, "worker2": 12, "db": 20, "broker": 21, "learner": 30}
CLONE_NEWNET = 0x40000000
PG_PORT = 5432
REDIS_PORT = 6379


def can_build() -> str | None:
    """Why this machine cannot build the network (None: it can)."""
    if os.geteuid() != 0:
        return "network namespaces need root (ip netns add); this run is unprivileged"
    if shutil.which("ip") is None:
        return "iproute2's ip is not installed"
    return None


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, timeout=30)


@dataclass
class Network:
    """One switch, one link per host; ``address(host)`` is how the others reach it."""

    tag: str = field(default_factory=lambda: secrets.token_hex(3))
    built: list[str] = field(default_factory=list)

    def ns(self, host: str) -> str:
        return f"addnorm-mh-{self.tag}-{host}"

    def address(self, host: str) -> str:
        return f"{SUBNET}.{ADDRESSES[host]}"

    @property
    def switch(self) -> str:
        return self.ns("switch")

    def build(self) -> None:
        _ip("netns", "add", self.switch)
        self.built.append(self.switch)
        _ip("-n", self.switch, "link", "add", "br0", "type", "bridge")
        _ip("-n", self.switch, "link", "set", "br0", "up")
        for host in ADDRESSES:
            ns = self.ns(host)
            _ip("netns", "add", ns)
            self.built.append(ns)
            port = f"p-{host}"
            # The veth is made inside the switch with its far end put straight into the host:
            # it never exists in the machine's own namespace.
            _ip("-n", self.switch, "link", "add", port, "type", "veth", "peer", "eth0", "netns", ns)
            _ip("-n", self.switch, "link", "set", port, "master", "br0", "up")
            _ip("-n", ns, "link", "set", "lo", "up")
            _ip("-n", ns, "addr", "add", f"{self.address(host)}/{PREFIX_LEN}", "dev", "eth0")
            _ip("-n", ns, "link", "set", "eth0", "up")

    def exec_prefix(self, host: str) -> list[str]:
        """argv prefix that runs a command on ``host``."""
        return ["ip", "netns", "exec", self.ns(host)]

    def cut(self, host: str) -> None:
        """The host falls off the network: its link goes down, its processes run on."""
        _ip("-n", self.ns(host), "link", "set", "eth0", "down")

    def reconnect(self, host: str) -> None:
        _ip("-n", self.ns(host), "link", "set", "eth0", "up")

    @contextlib.contextmanager
    def entered(self, host: str) -> Iterator[None]:
        """Run the calling thread on ``host``: every socket it opens meanwhile (and every child
        process it starts) belongs to that host's network."""
        libc = ctypes.CDLL(None, use_errno=True)
        home = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
        target = os.open(f"/run/netns/{self.ns(host)}", os.O_RDONLY)
        try:
            if libc.setns(target, CLONE_NEWNET) != 0:
                raise OSError(ctypes.get_errno(), f"setns into {self.ns(host)}")
            try:
                yield
            finally:
                if libc.setns(home, CLONE_NEWNET) != 0:
                    raise OSError(ctypes.get_errno(), "setns back to the machine's network")
        finally:
            os.close(target)
            os.close(home)

    def pids(self, host: str) -> list[int]:
        found = subprocess.run(
            ["ip", "netns", "pids", self.ns(host)], capture_output=True, text=True, timeout=30
        )
        return [int(p) for p in found.stdout.split()]

    def destroy(self) -> None:
        """Kill whatever still runs on our hosts, then delete every namespace we made."""
        for ns in reversed(self.built):
            host = ns.removeprefix(f"addnorm-mh-{self.tag}-")
            for pid in self.pids(host):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        for ns in reversed(self.built):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=30)
        self.built.clear()


@contextlib.contextmanager
def network() -> Iterator[Network]:
    net = Network()
    try:
        net.build()
        yield net
    finally:
        net.destroy()


def _wait(
    what: str, ready: Callable[[], bool], log: Path, process: subprocess.Popen[bytes]
) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited with {process.returncode}:\n{log.read_text()}")
        if ready():
            return
        time.sleep(0.2)
    raise RuntimeError(f"{what} did not come up in 60 s:\n{log.read_text()}")


def _stop(process: subprocess.Popen[bytes], sig: signal.Signals) -> None:
    """``sig`` to the server's process group; SIGKILL if it is not gone within 20 s."""
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, sig)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()


@contextlib.contextmanager
def _scratch(prefix: str) -> Iterator[Path]:
    # Not under pytest's tmp_path: that is root's and closed to the postgres user.
    directory = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        yield directory
    finally:
        shutil.rmtree(directory, ignore_errors=True)


@contextlib.contextmanager
def postgres_on(net: Network, host: str = "db") -> Iterator[str]:
    """A throwaway PostgreSQL cluster on ``host`` (Debian's binaries, run as the ``postgres``
    user since PostgreSQL refuses root), trusting the test subnet; yields its SQLAlchemy URL.
    Call from a thread on a host of ``net`` (the readiness check connects over the links)."""
    bins = sorted(Path("/usr/lib/postgresql").glob("*/bin/postgres"))
    assert bins, "PostgreSQL server binaries not found under /usr/lib/postgresql/*/bin"
    bindir = bins[-1].parent
    owner = pwd.getpwnam("postgres")
    as_postgres = ["runuser", "-u", "postgres", "--"]
    address = net.address(host)
    with _scratch("addnorm-mh-pg-") as data:
        os.chown(data, owner.pw_uid, owner.pw_gid)
        cluster = data / "cluster"
        initdb = [*as_postgres, str(bindir / "initdb"), "-D", str(cluster), "-U", "postgres"]
        subprocess.run(
            [*initdb, "--auth=trust", "--no-sync", "-E", "UTF8"],
            check=True,
            capture_output=True,
            timeout=120,
        )
        with (cluster / "pg_hba.conf").open("a") as hba:
            hba.write(f"host all all {SUBNET}.0/{PREFIX_LEN} trust\n")
        log = data / "postgres.log"
        argv = [*net.exec_prefix(host), *as_postgres, str(bindir / "postgres"), "-D", str(cluster)]
        argv += ["-c", f"listen_addresses={address}", "-c", f"port={PG_PORT}"]
        argv += ["-c", f"unix_socket_directories={data}", "-c", "max_connections=60"]
        # A test database: no durability, and shared memory kept in the data directory so even
        # a killed cluster leaves nothing behind in /dev/shm.
        argv += ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"]
        argv += ["-c", "dynamic_shared_memory_type=mmap"]
        with log.open("wb") as out:
            process = subprocess.Popen(
                argv, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )
        url = f"postgresql://postgres@{address}:{PG_PORT}/postgres"

        def ready() -> bool:
            try:
                with psycopg.connect(url, connect_timeout=2):
                    return True
            except psycopg.OperationalError:
                return False

        try:
            _wait("postgres", ready, log, process)
            yield f"postgresql+psycopg://postgres@{address}:{PG_PORT}/postgres"
        finally:
            _stop(process, signal.SIGINT)  # fast shutdown: it removes its own shared memory


@contextlib.contextmanager
def redis_on(net: Network, host: str = "broker") -> Iterator[str]:
    """A throwaway ``redis-server`` bound to ``host``'s address, no persistence; yields its URL.
    Call from a thread on a host of ``net``."""
    server = shutil.which("redis-server")
    assert server, "redis-server is not installed (apt-get install redis-server)"
    address = net.address(host)
    with _scratch("addnorm-mh-redis-") as data:
        log = data / "redis.log"
        argv = [*net.exec_prefix(host), server, "--bind", address, "--port", str(REDIS_PORT)]
        argv += ["--dir", str(data), "--save", "", "--appendonly", "no"]
        # Protected mode answers every client not on loopback with DENIED; here every client is
        # on another host, and the only network it listens on is the test's own.
        argv += ["--protected-mode", "no"]
        with log.open("wb") as out:
            process = subprocess.Popen(
                argv, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )
        url = f"redis://{address}:{REDIS_PORT}/0"

        def ready() -> bool:
            client = redis.Redis.from_url(url, socket_connect_timeout=1)
            try:
                return bool(client.ping())
            except redis.RedisError:
                return False
            finally:
                client.close()

        try:
            _wait("redis-server", ready, log, process)
            yield url
        finally:
            _stop(process, signal.SIGTERM)
