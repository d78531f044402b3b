"""The committed browser bundle is exactly what web/'s lock file builds (npm ci, then
`node build.mjs`): no hand edits, no drift from the locked CodeMirror and KaTeX versions."""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
from pathlib import Path

from tests.support import REPO

WEB = REPO / "web"
COMMITTED = REPO / "api" / "web" / "static" / "dist"


def _files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def test_installed_packages_are_the_locked_ones() -> None:
    assert (WEB / "node_modules").is_dir(), "run `npm ci --prefix web` (see .ci/run)"
    lock = json.loads((WEB / "package-lock.json").read_text())
    locked = {k: v["version"] for k, v in lock["packages"].items() if k.startswith("node_modules/")}
    assert "node_modules/codemirror" in locked and "node_modules/katex" in locked
    for path, version in locked.items():
        manifest = WEB / path / "package.json"
        if not manifest.is_file():
            # Optional platform binaries (esbuild's other OSes) are locked but not installed.
            assert lock["packages"][path].get("optional"), f"{path} is locked but not installed"
            continue
        assert json.loads(manifest.read_text())["version"] == version, path


def test_vendored_axe_is_the_locked_version() -> None:
    # The accessibility scans read tests/browser/vendor/axe.min.js, not node_modules: the copy
    # must be the axe-core web/'s lock file names, and byte for byte the installed one.
    lock = json.loads((WEB / "package-lock.json").read_text())
    version = lock["packages"]["node_modules/axe-core"]["version"]
    vendored = REPO / "tests" / "browser" / "vendor" / "axe.min.js"
    assert vendored.read_text(encoding="utf-8").startswith(f"/*! axe v{version}\n"), version
    installed = WEB / "node_modules" / "axe-core" / "axe.min.js"
    assert installed.is_file(), "run `npm ci --prefix web` (see .ci/run)"
    assert installed.read_bytes() == vendored.read_bytes()


def test_committed_bundle_matches_a_fresh_build(tmp_path: Path) -> None:
    node = shutil.which("node")
    assert node, "node is needed to rebuild the bundle (Debian: apt-get install nodejs npm)"
    out = tmp_path / "dist"
    subprocess.run([node, "build.mjs", str(out)], cwd=WEB, check=True, timeout=300)
    built, committed = _files(out), _files(COMMITTED)
    assert sorted(built) == sorted(committed)
    stale = [name for name in built if built[name] != committed[name]]
    assert not stale, f"rebuild with `npm --prefix web run build` and commit: {stale}"
    # Sanity: the bundle holds what the pages rely on, under the names the manifest gives.
    manifest = json.loads(committed["manifest.json"])
    assert sorted(manifest) == ["addnorm-css.css", "addnorm.js"]
    script = committed[manifest["addnorm.js"]].decode()
    assert "cm-editor" in script and "katex" in script.lower()
    # Each script and style sheet has its compressed twins, and they hold the same bytes.
    for name in (n for n in committed if n.endswith((".js", ".css"))):
        assert gzip.decompress(committed[f"{name}.gz"]) == committed[name], name
        unbrotli = subprocess.run(
            [
                node,
                "-e",
                "process.stdout.write(require('zlib').brotliDecompressSync("
                "require('fs').readFileSync(process.argv[1])))",
                str(COMMITTED / f"{name}.br"),
            ],
            capture_output=True,
            check=True,
            timeout=60,
        )
        assert unbrotli.stdout == committed[name], name
