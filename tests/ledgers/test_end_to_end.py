"""A Council story through the real CLI as a process: request, handoff, materialize, rebuild.

It passes once memhall.cli.main lists the ledger commands and the governance
modules register the request projections and handoff section (see the
ledgers issue note); in-process tests register them test-locally instead.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from tests.processes import run_memhall

ROOT = Path(__file__).resolve().parents[2]


def memhall(store: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for key in ("MEMHALL_AGENT", "MEMHALL_DOMAIN", "MEMHALL_SESSION", "MEMHALL_POLICY", "MEMHALL_STORE"):
        env.pop(key, None)
    return run_memhall(["--store", str(store), *args], cwd=store.parent, env=env)


def test_a_council_round_trip_through_the_real_cli(tmp_path: Path) -> None:
    store = tmp_path / "memhall.db"
    assert memhall(store, "--as", "maki", "domain", "create", "company").returncode == 0
    company = ("--domain", "company")
    fact = json.loads(memhall(store, "--as", "codex", *company, "--json", "write", "billing runs nightly",
                              "--layer", "L2", "--topic", "billing").stdout)["entry_id"]
    asked = memhall(store, "--as", "gemini", *company, "--json", "request", "--seat", "gemini",
                    "--need", "who approves billing changes?")
    assert asked.returncode == 0, asked.stderr
    request_id = json.loads(asked.stdout)["id"]

    handoff = memhall(store, "--as", "codex", *company, "handoff", "--no-session")
    first = memhall(store, "--as", "claude", *company, "materialize", "--seat", "gemini", "--task", "billing")
    second = memhall(store, "--as", "claude", *company, "materialize", "--seat", "gemini", "--task", "billing")
    refused = memhall(store, "--as", "gemini", *company, "materialize", "--seat", "gemini", "--task", "billing")
    log = memhall(store, "--as", "maki", *company, "--json", "log", "--limit", "50")
    rebuilt = memhall(store, "--as", "maki", "rebuild")
    seen = memhall(store, "--as", "claude", *company, "--json", "materializations", "--seat", "gemini")
    waiting = memhall(store, "--as", "gemini", *company, "--json", "pending")

    assert request_id in handoff.stdout and "who approves billing changes?" in handoff.stdout
    assert first.returncode == 0, first.stderr
    assert first.stdout == second.stdout
    assert fact in first.stdout
    assert refused.returncode == 3
    assert log.returncode == 0, log.stderr
    assert "memhall.Materialization.Recorded" in log.stdout
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert [r["ledger_b"] for r in json.loads(seen.stdout)] == [[fact], [fact]]
    assert [r["id"] for r in json.loads(waiting.stdout)] == [request_id]
