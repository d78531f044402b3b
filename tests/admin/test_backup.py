"""``addnorm admin backup`` while the server runs and takes submissions, ``addnorm admin
restore`` into a fresh data directory, and the same progress read back over HTTP from a server
started on it."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from tests.admin.conftest import admin_cli, deploy
from tests.support import REPO, start_server, stop_server

SOLUTION = (REPO / "solutions" / "layer_norm.py").read_text()
UNBIASED = (
    REPO / "exercises" / "layer_norm" / "variants" / "failed_unbiased_variance.py"
).read_text()


def test_backup_while_running_then_restore_into_a_fresh_data_directory(tmp_path: Path) -> None:
    live = tmp_path / "live"
    d = deploy(live, f"sqlite:///{live / 'addnorm.db'}")
    try:
        with d.server.client() as c:
            token = c.post("/users", json={"name": "Backed Up"}).json()["token"]
        with d.server.client(token) as me:
            for code in (UNBIASED, SOLUTION):
                assert (
                    me.post("/exercises/layer_norm/submissions", json={"code": code}).status_code
                    == 201
                )
            assert me.put("/exercises/rms_norm/draft", json={"code": "# later"}).status_code == 200
            progress = me.get("/progress").json()
            drafts = me.get("/exercises/rms_norm/draft").json()

        # The service keeps writing while the backup is taken: a learner submits meanwhile.
        busy = threading.Event()

        def keep_submitting() -> None:
            with d.server.client() as c:
                other = c.post("/users", json={"name": "Busy"}).json()["token"]
            with d.server.client(other) as them:
                while not busy.is_set():
                    them.post("/exercises/layer_norm/submissions", json={"code": UNBIASED})

        writer = threading.Thread(target=keep_submitting)
        writer.start()
        try:
            backup = tmp_path / "backups" / "addnorm-backup.db"
            done = d.admin("backup", str(backup))
            assert "backed up" in done.stdout
        finally:
            busy.set()
            writer.join()
        # Never over an existing file.
        assert d.admin("backup", str(backup), check=False).returncode == 1
        with d.server.client(token) as me:
            assert me.get("/users/me").status_code == 200  # still serving
    finally:
        stop_server(d.server)

    fresh = tmp_path / "fresh"
    env = {
        "ADDNORM_DATA_DIR": str(fresh),
        "ADDNORM_DATABASE_URL": f"sqlite:///{fresh / 'addnorm.db'}",
    }
    restored = admin_cli(env, "restore", str(backup))
    assert "restored" in restored.stdout
    server = start_server(fresh, **env, ADDNORM_GRADER_SLOTS="1")
    try:
        with server.client(token) as me:
            assert me.get("/users/me").json()["name"] == "Backed Up"
            assert me.get("/progress").json() == progress
            assert me.get("/exercises/rms_norm/draft").json() == drafts
        # The operator made before the backup is in it too.
        with server.client(d.operator) as op:
            assert op.get("/admin/learners").status_code == 200
    finally:
        stop_server(server)


def test_restore_refuses_what_is_not_an_addnorm_backup(tmp_path: Path) -> None:
    env = {
        "ADDNORM_DATA_DIR": str(tmp_path / "d"),
        "ADDNORM_DATABASE_URL": f"sqlite:///{tmp_path / 'd' / 'addnorm.db'}",
    }
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not a database at all" * 100)
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE notes (x)")
    for path, why in ((junk, "not a SQLite database"), (other, "not an addnorm database")):
        done = admin_cli(env, "restore", str(path), check=False)
        assert done.returncode == 1 and why in done.stderr, done.stderr
    missing = admin_cli(env, "restore", str(tmp_path / "nope.db"), check=False)
    assert missing.returncode == 1 and "no backup" in missing.stderr


def test_postgresql_is_sent_to_pg_dump(tmp_path: Path) -> None:
    env = {
        "ADDNORM_DATA_DIR": str(tmp_path),
        "ADDNORM_DATABASE_URL": "postgresql+psycopg://postgres@127.0.0.1:5432/test",
    }
    done = admin_cli(env, "backup", str(tmp_path / "b.db"), check=False)
    assert done.returncode == 1 and "pg_dump" in done.stderr
    # Nothing was written.
    assert not (tmp_path / "b.db").exists()
