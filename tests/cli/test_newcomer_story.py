"""A newcomer's first minutes, as real processes: nothing appears until `init`,
defaults from config.toml, short ids, bytes that are not UTF-8, and listings
as tables on a terminal but plain text on a pipe."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

from tests.cli.conftest import ROOT


def memhall(args: list[str | bytes], cwd: Path, *, stdin: bytes = b"",
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("MEMHALL_") and k != "NO_COLOR"}
    return subprocess.run([sys.executable, "-m", "memhall", *args], cwd=cwd, input=stdin, capture_output=True,
                          env={**clean, "PYTHONPATH": str(ROOT), **(env or {})}, timeout=120)


def on_terminal(args: list[str], cwd: Path, env: dict[str, str]) -> str:
    """Run with stdout on a pseudo-terminal, as a person at a shell would."""
    leader, follower = pty.openpty()
    clean = {k: v for k, v in os.environ.items() if not k.startswith("MEMHALL_") and k != "NO_COLOR"}
    process = subprocess.Popen([sys.executable, "-m", "memhall", *args], cwd=cwd, stdout=follower,
                               stderr=subprocess.DEVNULL,
                               env={**clean, "PYTHONPATH": str(ROOT), "TERM": "xterm", "COLUMNS": "120", **env})
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal closed with the process
            break
        if not chunk:
            break
        chunks.append(chunk)
    process.wait(timeout=120)
    os.close(leader)
    return b"".join(chunks).decode()


def test_a_newcomer_sets_up_a_project_and_works_with_short_ids(tmp_path: Path) -> None:
    before_init = memhall(["log"], tmp_path)
    assert before_init.returncode == 1
    assert b"run `memhall init`" in before_init.stderr and list(tmp_path.iterdir()) == []

    assert memhall(["init"], tmp_path).returncode == 0
    (tmp_path / ".memhall" / "config.toml").write_text('as = "codex"\ndomain = "company"\n')
    assert memhall(["--as", "maki", "domain", "create", "company"], tmp_path).returncode == 0
    written = memhall(["--json", "write", "--layer", "L2", "billing runs nightly"], tmp_path)
    entry = json.loads(written.stdout)["entry_id"]

    shown = memhall(["show", entry[:6]], tmp_path)
    not_utf8 = memhall(["write", b"caf\xe9"], tmp_path)
    piped = memhall(["write"], tmp_path, stdin=b"caf\xe9")
    plain = memhall(["log"], tmp_path)
    table = on_terminal(["log"], tmp_path, {"NO_COLOR": "1"})

    assert shown.returncode == 0 and entry.encode() in shown.stdout
    assert (not_utf8.returncode, not_utf8.stderr) == (2, b"usage error: argument 2 is not valid UTF-8\n")
    assert (piped.returncode, piped.stderr) == (1, b"error: stdin is not valid UTF-8 (byte 3)\n")
    assert b"Entry.Written by codex" in plain.stdout and "┃".encode() not in plain.stdout
    assert "┃" in table and "Entry.Written" in table and "billing runs nightly" in table
    assert "\x1b[" not in table  # NO_COLOR: a table without colour
