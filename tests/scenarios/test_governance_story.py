"""Governance that cannot be talked around, through the real CLI as subprocesses:
made-up reminder sessions, another member's dissent, superseding from below or
onto canon, a value that comes back, and a forged canon row."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from tests.cli.conftest import run_cli


class Story:
    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def run(self, actor: str, *args: str, session: str | None = None) -> tuple[int, str, str]:
        env = {"MEMHALL_AGENT": actor, "MEMHALL_DOMAIN": "company"}
        if session:
            env["MEMHALL_SESSION"] = session
        done = run_cli(["--json", *args], cwd=self.folder, env=env)
        return done.returncode, done.stdout, done.stderr

    def ok(self, actor: str, *args: str, session: str | None = None) -> dict[str, object]:
        code, out, err = self.run(actor, *args, session=session)
        assert code == 0, err
        data: dict[str, object] = json.loads(out) if out.strip() else {}
        return data

    def fails(self, code: int, actor: str, *args: str, session: str | None = None) -> str:
        got, _, err = self.run(actor, *args, session=session)
        assert got == code, err
        assert len(err.strip().splitlines()) == 1, err
        return err

    def listed(self) -> dict[str, object]:
        code, out, err = self.run("maki", "promotions")
        assert code == 0, err
        rows: list[dict[str, object]] = json.loads(out)
        return rows[0]


def test_reminders_dissent_and_supersede_cannot_be_talked_around(tmp_path: Path) -> None:
    story = Story(tmp_path)
    story.ok("maki", "domain", "create", "company")
    fact = str(story.ok("codex", "write", "--layer", "L2", "--kind", "claim",
                        "the build cache lives on the NAS")["entry_id"])
    stale = str(story.ok("claude", "nominate", fact, "--to", "L3", "--stale-fact", "unchanged")["promotion_id"])
    story.ok("maki", "ratify", stale)
    canon = str(story.ok("claude", "nominate", fact, "--to", "L4", "--reason", "bind")["promotion_id"])

    # §1 reminders count only from open sessions of one's own, opened after the nomination
    for made_up in ("made-up-a", "made-up-b", "made-up-c"):
        assert "reminders-come-from-open-sessions-of-their-own" in story.fails(
            3, "codex", "remind", canon, "--session", made_up)
    assert "memhall handoff" in story.fails(1, "codex", "remind", canon)
    claudes = str(story.ok("claude", "handoff")["session_id"])
    assert "opened by claude" in story.fails(3, "codex", "remind", canon, "--session", claudes)
    for day in range(3):
        session = str(story.ok("codex", "handoff")["session_id"])
        story.ok("codex", "remind", canon, session=session)
        story.ok("codex", "wrap-up", "--summary", f"day {day} done", session=session)
    assert "3 of 3 reminders" in str(story.listed()["progress"])

    # §2 each member records its own position; a chair cannot record the others'
    story.fails(2, "claude", "dissent", canon, "--member", "gemini", "--position", "agree", "--reason", "r")
    story.ok("gemini", "dissent", canon, "--position", "agree", "--reason", "matches the NAS runbook")
    story.ok("gemini", "dissent", canon, "--position", "disagree", "--reason", "the NAS moves in May")
    assert story.listed()["missing"] == ["claude", "codex"]
    assert "no dissent recorded" in story.fails(3, "maki", "ratify", canon)
    story.ok("codex", "dissent", canon, "--position", "abstain", "--reason", "no view")
    story.ok("claude", "dissent", canon, "--position", "agree", "--reason", "nominated it")
    assert story.listed()["missing"] == []
    story.ok("maki", "ratify", canon)

    # §3 superseding is decided on the target: never onto canon, never from below
    assert "l3-and-l4-are-never-superseded" in story.fails(
        3, "codex", "write", "--layer", "L2", "--kind", "claim", "the cache is in S3", "--supersedes", fact)
    assert [e["id"] for e in story.ok("maki", "canon")["entries"]] == [fact]  # type: ignore[index, union-attr]
    on = str(story.ok("codex", "write", "--layer", "L2", "--kind", "state", "flag = on")["entry_id"])
    assert "supersede-never-from-below" in story.fails(
        3, "gemini", "write", "flag = off", "--supersedes", on)

    # §4 a value that comes back is recorded
    off = str(story.ok("codex", "write", "--layer", "L2", "--kind", "state", "flag = off",
                       "--supersedes", on)["entry_id"])
    back = story.ok("codex", "write", "--layer", "L2", "--kind", "state", "flag = on", "--supersedes", off)
    assert back["duplicate_of"] is None and back["entry_id"] not in (on, off)
    latest = story.ok("codex", "handoff", "--no-session")["latest"]
    assert "flag = on" in [e["text"] for e in latest]  # type: ignore[union-attr, index]
    assert "flag = off" not in [e["text"] for e in latest]  # type: ignore[union-attr, index]

    # issue 10 §1: what is served as canon is checked against its events
    db = sqlite3.connect(tmp_path / ".memhall" / "memhall.db")
    db.execute("UPDATE mh_company_entries SET layer = 'L4' WHERE id = ?", (back["entry_id"],))
    db.commit()
    db.close()
    code, out, err = story.run("maki", "canon")
    assert code == 4, err
    assert "its events say 'L2'" in err
    assert json.loads(out)["error"]["code"] == 4 and "entries" not in json.loads(out)
