"""The promotion story end to end, through the real CLI as subprocesses:
a seat's answer rises L1 -> L2 -> L3 -> L4; the chair's own attempts to
ratify are refused and audited at every step."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import run_cli


class Story:
    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def run(self, actor: str, *args: str, session: str | None = None) -> tuple[int, dict[str, object], str]:
        env = {"MEMHALL_AGENT": actor, "MEMHALL_DOMAIN": "company"}
        if session:
            env["MEMHALL_SESSION"] = session
        done = run_cli(["--json", *args], cwd=self.folder, env=env)
        data = json.loads(done.stdout) if done.returncode == 0 and done.stdout.strip() else {}
        return done.returncode, data, done.stderr

    def ok(self, actor: str, *args: str, session: str | None = None) -> dict[str, object]:
        code, data, err = self.run(actor, *args, session=session)
        assert code == 0, err
        return data

    def refused(self, actor: str, *args: str) -> str:
        code, _, err = self.run(actor, *args)
        assert code == 3, err
        assert len(err.strip().splitlines()) == 1
        return err

    def layer(self, entry: str) -> str:
        return str(self.ok("maki", "show", entry)["entry"]["layer"])  # type: ignore[index]


def test_a_seat_answer_becomes_canon_only_through_the_owner(tmp_path: Path) -> None:
    story = Story(tmp_path)
    story.ok("maki", "domain", "create", "company")

    answer = str(story.ok("gemini", "write", "Invoices are sent on the 1st business day")["entry_id"])
    story.refused("gemini", "promote", answer, "--useful", "yes", "--evidence", "t-1",
                  "--not-temporary", "yes", "--safe", "yes")
    story.ok("codex", "promote", answer, "--useful", "yes", "--evidence", "ticket-17",
             "--not-temporary", "yes", "--safe", "yes")
    assert story.layer(answer) == "L2"

    stale = str(story.ok("claude", "nominate", answer, "--to", "L3",
                         "--stale-fact", "held for three closes")["promotion_id"])
    assert "held for three closes" not in json.dumps(story.ok("maki", "knowledge"))
    assert "chair" in story.refused("claude", "ratify", stale)
    story.ok("maki", "ratify", stale)
    assert story.layer(answer) == "L3"

    canon = str(story.ok("claude", "nominate", answer, "--to", "L4", "--reason", "binding")["promotion_id"])

    def session_that_reminds(day: int) -> None:
        # a session per day: handoff, remind, wrap-up (a second handoff in a row would continue it)
        session = str(story.ok("codex", "handoff")["session_id"])
        story.ok("codex", "remind", canon, session=session)
        story.ok("codex", "wrap-up", "--summary", f"day {day} done", session=session)

    session_that_reminds(0)
    session_that_reminds(1)
    assert "2 of 3 reminders" in story.refused("maki", "ratify", canon)
    assert "chair" in story.refused("claude", "ratify", canon)
    session_that_reminds(2)
    assert "no dissent recorded" in story.refused("maki", "ratify", canon)
    story.ok("gemini", "dissent", canon, "--position", "agree", "--reason", "matches")
    story.ok("codex", "dissent", canon, "--position", "abstain", "--reason", "no view")
    story.ok("claude", "dissent", canon, "--position", "agree", "--reason", "nominated it")
    assert "chair" in story.refused("claude", "ratify", canon)
    assert story.ok("maki", "canon")["available"] is False
    story.ok("maki", "ratify", canon)

    assert story.layer(answer) == "L4"
    canon_view = story.ok("maki", "canon")
    assert [e["id"] for e in canon_view["entries"]] == [answer]  # type: ignore[index]
    events = story.ok("maki", "log", "--limit", "200")
    refusals = [e for e in events if e["topic"] == "memhall.Refusal.Recorded"]  # type: ignore[union-attr]
    assert [r["actor"] for r in refusals].count("claude") == 3
    assert len(refusals) == 6
    history = story.ok("maki", "show", answer)["history"]
    assert [h["data"].get("to_layer") for h in history if h["topic"] == "memhall.Entry.Promoted"] == [  # type: ignore[union-attr]
        "L2", "L3", "L4"]
