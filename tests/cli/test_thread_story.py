"""Handoff by thread as real processes: every open thread's latest state, one session
for two handoffs in a row, the current value of a topic, and a wrap-up's drift."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.cli.conftest import run_cli


class Folder:
    def __init__(self, folder: Path, store_url: str) -> None:
        self.folder, self.store_url = folder, store_url

    def run(self, actor: str, *args: str, session: str = "") -> tuple[int, str, str]:
        env = {"MEMHALL_AGENT": actor, "MEMHALL_DOMAIN": "company", **({"MEMHALL_SESSION": session} if session else {})}
        done = run_cli(["--store", self.store_url, *args], cwd=self.folder, env=env)
        return done.returncode, done.stdout, done.stderr

    def json(self, actor: str, *args: str, session: str = "") -> Any:
        code, out, err = self.run(actor, "--json", *args, session=session)
        assert code == 0, err
        return json.loads(out)


def test_handoff_by_thread_state_and_drift_as_processes(tmp_path: Path, store_url: str) -> None:
    hall = Folder(tmp_path, store_url)
    hall.json("maki", "domain", "create", "company")
    billing = hall.json("codex", "write", "invoices v2 live", "--kind", "state", "--layer", "L2",
                        "--topic", "billing")["entry_id"]
    for step in range(6):
        hall.json("codex", "write", f"deploy step {step}", "--kind", "state", "--layer", "L2", "--topic", "deploy")
    proposal = hall.json("gemini", "write", "invoices v3?", "--kind", "state", "--topic", "billing")["entry_id"]

    code, plain, _ = hall.run("codex", "handoff", "--limit", "2")
    again = hall.json("codex", "handoff", "--limit", "2")
    value = hall.json("codex", "state", "--topic", "billing")

    assert code == 0 and "## L1 candidates" in plain and "thread: billing" in plain
    assert [e["thread"] for e in again["latest"]] == ["deploy", "billing"]
    assert again["latest"][1]["id"] == billing and [e["id"] for e in again["candidates"]] == [proposal]
    assert again["session_reused"] and again["session_id"] in plain
    assert value["values"][0]["entry"]["id"] == billing and value["values"][0]["candidate"]["id"] == proposal

    session = again["session_id"]
    opened = hall.json("codex", "wrap-up", "--thread", "billing", "--summary", "v2 live", "--open", "send reminders",
                       session=session)
    second = hall.json("codex", "handoff")["session_id"]
    code, _, err = hall.run("codex", "wrap-up", "--thread", "billing", "--summary", "v2 stable", session=second)
    long = hall.run("codex", "wrap-up", "--summary", "z" * 1200)

    assert code == 0 and f"drift: open loop {opened['opened_loops'][0]} of thread billing" in err
    assert long[0] == 3 and "point to them with --pointer" in long[2] and len(long[2].strip().splitlines()) == 1
    verified = hall.run("maki", "audit", "verify")
    assert verified[0] == 0, verified[2]  # the fast path's session events are the main path's


def test_a_write_names_its_thread_and_another_principals_own_thread_is_refused_as_a_process(
        tmp_path: Path, store_url: str) -> None:
    hall = Folder(tmp_path, store_url)
    hall.json("maki", "domain", "create", "company")
    named = hall.json("codex", "write", "deploys move to fridays", "--kind", "state", "--layer", "L2",
                      "--thread", "deploy", "--topic", "ops")["entry_id"]
    refused = hall.run("gemini", "write", "maki: ship it", "--kind", "state", "--thread", "@maki")
    wrapped = hall.run("codex", "wrap-up", "--thread", "@maki", "--summary", "maki is done")

    assert hall.json("codex", "state", "--topic", "deploy")["values"][0]["entry"]["id"] == named
    for code, out, err in (refused, wrapped):
        assert code == 3 and not out and err.strip().splitlines() == [
            err.strip()] and "'@maki' is maki's own" in err and "[own-thread-only]" in err
    code, log, _ = hall.run("maki", "audit", "log")
    assert code == 0 and log.count("REFUSED by own-thread-only") == 2


def test_a_state_edited_in_the_store_file_is_never_handed_over_as_a_process(tmp_path: Path, store_url: str) -> None:
    from sqlalchemy import update

    from memhall.governance.store import Store
    from memhall.governance.tables import tables_for

    hall = Folder(tmp_path, store_url)
    hall.json("maki", "domain", "create", "company")
    state = hall.json("codex", "write", "invoices v2 live", "--kind", "state", "--layer", "L2",
                      "--topic", "billing")["entry_id"]
    hall.json("codex", "handoff")  # the decision cached: the next handoff may take the lean path
    store, entries = Store(store_url), tables_for("company").entries
    with store.write() as conn:
        conn.execute(update(entries).where(entries.c.id == state).values(text="invoices v1 restored"))
    store.dispose()

    for args in (["handoff"], ["handoff", "--no-session"]):
        code, out, err = hall.run("codex", *args)
        assert (code, out) == (4, ""), args
        assert f"entry {state} shows text 'invoices v1 restored', its events say 'invoices v2 live'" in err
    code, out, _ = hall.run("codex", "--json", "handoff")
    assert code == 4 and set(json.loads(out)) == {"error"}
