"""Each agent's hooks as the agent runs them: the real CLI as a process, real hook JSON on stdin."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memhall.domains.entry import draft
from memhall.policies.engine import init_policy_dir
from tests.agents.conftest import Project, context_of


def test_a_claude_session_briefs_at_start_keeps_one_draft_and_wraps_up_at_its_end(project: Project) -> None:
    state = project.hall.write("codex", "company", draft(layer="L2", kind="state", text="Invoices v2 shipped"))

    started = project.run("claude", "session-start", project.payload("claude", "session-start"))
    first = project.run("claude", "stop", project.payload("claude", "stop"))
    events_after_first = project.event_count()
    again = project.run("claude", "stop", project.payload("claude", "stop"))
    events_after_again = project.event_count()
    ended = project.run("claude", "session-end", project.payload("claude", "session-end"))

    assert [p.returncode for p in (started, first, again, ended)] == [0, 0, 0, 0]
    assert (first.stdout, again.stdout, ended.stdout) == ("", "", "")
    assert len(started.stdout.encode()) <= 8000
    context = context_of(started.stdout)
    assert context.startswith("<memory-handoff") and context.endswith("</memory-handoff>")
    assert f"[L2] state {state.entry_id} by codex" in context
    session_id = context.split('session="')[1][:36]
    assert events_after_again == events_after_first  # the same turn again wrote nothing
    drafts = project.entries(layer="L1", kind="wrap-up")
    assert len(drafts) == 1 and drafts[0].session_id == session_id
    wrap_up = project.entries(layer="L2", kind="wrap-up")[0]
    assert wrap_up.text == "Invoice totals now round half-even at the end; reminders are still open."
    assert drafts[0].status == "superseded" and drafts[0].superseded_by == wrap_up.id
    assert project.session(session_id).closed


def test_a_gemini_session_drafts_after_each_agent_turn_and_closes_at_session_end(project: Project) -> None:
    started = project.run("gemini", "session-start", project.payload("gemini", "session-start"))
    project.run("gemini", "stop", project.payload("gemini", "stop"))
    turn = project.run("gemini", "stop", project.payload("gemini", "stop", prompt_response="Changelog linked."))
    ended = project.run("gemini", "session-end", project.payload("gemini", "session-end"))

    assert (turn.returncode, turn.stdout, ended.returncode, ended.stdout) == (0, "", 0, "")
    session_id = context_of(started.stdout).split('session="')[1][:36]
    drafts = project.entries(layer="L1", kind="wrap-up")
    assert [d.status for d in drafts] == ["superseded", "superseded"]
    assert drafts[0].superseded_by == drafts[1].id
    assert drafts[1].text.endswith("Changelog linked.")
    wrap_up = project.entries(layer="L2", kind="wrap-up")[0]
    assert wrap_up.text.startswith("Release notes are in NOTES.md")
    assert project.session(session_id).closed


def test_codex_stop_fires_per_turn_so_it_drafts_and_never_closes_the_session(project: Project) -> None:
    started = project.run("codex", "session-start", project.payload("codex", "session-start"))
    project.run("codex", "stop", project.payload("codex", "stop"))
    stopped = project.run("codex", "stop", project.payload("codex", "stop"))

    assert (stopped.returncode, stopped.stdout) == (0, "")
    assert len(started.stdout.encode()) <= 8000
    session_id = context_of(started.stdout).split('session="')[1][:36]
    drafts = project.entries(layer="L1", kind="wrap-up", status="active")
    assert len(drafts) == 1 and drafts[0].text.endswith("the backfill still has to run.")
    assert not project.session(session_id).closed
    assert project.entries(layer="L2", kind="wrap-up") == []


def test_a_full_hall_is_cut_to_8kb_saying_how_many_items_are_left_out(project: Project) -> None:
    texts = [f"open question {i}: " + "why does the nightly export drift " * 12 for i in range(60)]
    project.hall.write_many("codex", "company", [draft(layer="L2", kind="open-loop", text=t) for t in texts])

    started = project.run("claude", "session-start", project.payload("claude", "session-start"))

    assert started.returncode == 0
    assert len(started.stdout.encode("utf-8")) <= 8000
    context = context_of(started.stdout)
    assert "## Open loops" in context and "more: " in context


@pytest.mark.parametrize("store_arg", ["missing.db", "broken.db"])
def test_a_broken_store_is_one_line_on_stderr_and_exit_0(tmp_path: Path, store_arg: str) -> None:
    (tmp_path / "broken.db").write_text("this is not a database")
    init_policy_dir(tmp_path / "memhall-policy")
    project = Project(tmp_path, str(tmp_path / store_arg), tmp_path / "memhall-policy",
                      hall=None)  # type: ignore[arg-type]
    payload = json.loads((Path(__file__).parent / "fixtures/claude/SessionStart.json").read_text())

    done = project.run("claude", "session-start", payload)

    assert done.returncode == 0
    assert done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1
    assert done.stderr.startswith("memhall hook session-start (claude): ")
    assert not (tmp_path / "missing.db").exists()
