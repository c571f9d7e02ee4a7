"""What the hooks do in the hall, run in-process through the real CLI."""

from __future__ import annotations

import json
import os
import time

import pytest
import yaml

from memhall.governance import sessions
from memhall.governance.charters import adopt
from memhall.governance.hall import Hall
from memhall.policies.engine import PolicySet
from tests.agents.conftest import ROOT, Project, context_of
from tests.processes import run_memhall


def start(project: Project, agent: str, **fields: str) -> str:
    result = project.invoke(agent, "session-start", project.payload(agent, "session-start", **fields))
    return context_of(result.stdout).split('session="')[1][:36]


@pytest.mark.parametrize("agent", ["claude", "codex", "gemini"])
def test_pre_compact_keeps_the_transcripts_last_reply_as_the_draft(project: Project, agent: str) -> None:
    session_id = start(project, agent)

    result = project.invoke(agent, "pre-compact", project.payload(agent, "pre-compact"))

    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "")
    [draft] = project.entries(kind="wrap-up", layer="L1")
    assert draft.session_id == session_id and draft.status == "active"
    assert draft.text.startswith(f"[draft 1 of session {session_id[:8]}] ")
    assert not project.session(session_id).closed


def test_a_reply_holding_what_text_cannot_store_is_kept_with_a_replacement_character(project: Project) -> None:
    session_id = start(project, "claude")

    result = project.invoke("claude", "stop", project.payload(
        "claude", "stop", last_assistant_message="exported \x00 rows \ud800 done"))

    assert (result.exit_code, result.stderr) == (0, "")
    [draft] = project.entries(kind="wrap-up", layer="L1")
    assert draft.text == f"[draft 1 of session {session_id[:8]}] exported \ufffd rows \ufffd done"


def test_a_second_start_of_the_same_agent_session_opens_nothing(project: Project) -> None:
    first = start(project, "claude")
    events = project.event_count()

    second = start(project, "claude", source="compact")

    assert second == first
    assert project.event_count() == events


def test_a_session_resumed_after_its_end_opens_a_new_memhall_session(project: Project) -> None:
    first = start(project, "claude")
    project.invoke("claude", "session-end", project.payload("claude", "session-end"))

    resumed = start(project, "claude", source="resume")

    assert resumed != first
    assert project.session(first).closed and not project.session(resumed).closed


def test_a_wrap_up_file_written_during_the_session_is_the_summary(project: Project) -> None:
    start(project, "claude")
    wrap_up_file = project.root / ".memhall" / "wrap-up.md"
    wrap_up_file.parent.mkdir()
    wrap_up_file.write_text("Rounding fixed. Open: reminders, the export drift.\n")

    project.invoke("claude", "session-end", project.payload("claude", "session-end"))

    [wrap_up] = project.entries(kind="wrap-up", layer="L2")
    assert wrap_up.text == "Rounding fixed. Open: reminders, the export drift."


def test_a_wrap_up_file_older_than_the_session_is_left_alone(project: Project) -> None:
    wrap_up_file = project.root / ".memhall" / "wrap-up.md"
    wrap_up_file.parent.mkdir()
    wrap_up_file.write_text("last week's summary")
    an_hour_ago = time.time() - 3600
    os.utime(wrap_up_file, (an_hour_ago, an_hour_ago))
    start(project, "gemini")

    project.invoke("gemini", "session-end", project.payload("gemini", "session-end"))

    [wrap_up] = project.entries(kind="wrap-up", layer="L2")
    assert wrap_up.text.startswith("Release notes are in NOTES.md")


def test_a_long_summary_is_kept_whole_in_an_entry_the_wrap_up_points_to(project: Project) -> None:
    start(project, "claude")
    long_text = "Step done. " * 200
    project.transcript("claude").write_text(
        '{"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": "%s"}]}}\n'
        % long_text)

    project.invoke("claude", "session-end", project.payload("claude", "session-end"))

    [wrap_up] = project.entries(kind="wrap-up", layer="L2")
    [whole] = project.entries(kind="episode", layer="L2")
    assert len(wrap_up.text) <= 1000 and wrap_up.pointers == [whole.id]
    assert whole.text == long_text.strip()


def test_a_session_end_after_the_agent_wrapped_up_itself_only_supersedes_the_draft(project: Project) -> None:
    session_id = start(project, "claude")
    project.invoke("claude", "stop", project.payload("claude", "stop"))
    own = sessions.wrap_up(project.hall, "claude", "company", "wrapped up by the agent", session_id=session_id)

    result = project.invoke("claude", "session-end", project.payload("claude", "session-end"))

    assert (result.exit_code, result.stderr) == (0, "")
    assert [w.id for w in project.entries(kind="wrap-up", layer="L2")] == [own.entry_id]
    [draft] = project.entries(kind="wrap-up", layer="L1")
    assert draft.superseded_by == own.entry_id


def test_a_session_that_left_nothing_closes_with_no_wrap_up_and_the_last_one_still_leads_the_handoff(
        project: Project) -> None:
    earlier = sessions.wrap_up(project.hall, "claude", "company", "Invoices v2 live; next: reminder e-mails")
    session_id = start(project, "claude")
    project.transcript("claude").write_text("")  # no reply, no wrap-up file, no draft
    events = project.event_count()

    result = project.invoke("claude", "session-end", project.payload("claude", "session-end"))

    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "")
    closed = project.session(session_id)
    assert closed.closed and closed.summary_entry is None
    assert project.event_count() == events + 1  # Session.Closed, nothing else
    assert [w.id for w in project.entries(kind="wrap-up")] == [earlier.entry_id]
    handoff = sessions.handoff(project.hall, "codex", "company", open_session=False)
    assert [e.id for e in handoff.latest] == [earlier.entry_id]


def test_a_session_whose_summary_is_only_blank_lines_is_closed_the_same_way(project: Project) -> None:
    session_id = start(project, "claude")
    wrap_up_file = project.root / ".memhall" / "wrap-up.md"
    wrap_up_file.parent.mkdir()
    wrap_up_file.write_text("\n  \n")
    project.transcript("claude").write_text("")

    result = project.invoke("claude", "session-end", project.payload("claude", "session-end"))

    assert (result.exit_code, result.stderr) == (0, "")
    assert project.session(session_id).closed and project.entries(kind="wrap-up") == []


def gemini_a_seat(project: Project) -> None:
    """roles.yaml makes gemini a seat of company (codex its session chair), adopted."""
    roles_file = project.policy / "roles.yaml"
    roles = yaml.safe_load(roles_file.read_text())
    roles["roles"]["company"]["session_chair"] = ["codex"]
    roles["roles"]["company"]["seat"] = ["gemini"]
    roles_file.write_text(yaml.safe_dump(roles))
    adopt(Hall(project.hall.store, PolicySet.load(project.policy)), "maki", "company")


def test_a_session_that_left_nothing_and_may_not_wrap_up_stays_open_and_the_refusal_is_recorded(
        project: Project) -> None:
    gemini_a_seat(project)
    session_id = start(project, "gemini")
    project.transcript("gemini").write_text("")
    refused = len([t for t in project.hall.streams.topics("company") if "Refus" in t])

    result = project.invoke("gemini", "session-end", project.payload("gemini", "session-end"))

    assert (result.exit_code, result.stdout) == (0, "")
    assert len(result.stderr.splitlines()) == 1 and "wrap_up" in result.stderr
    assert not project.session(session_id).closed
    assert len([t for t in project.hall.streams.topics("company") if "Refus" in t]) == refused + 1


def test_a_refused_wrap_up_is_one_line_exit_0_and_recorded(project: Project) -> None:
    gemini_a_seat(project)
    start(project, "gemini")

    result = project.invoke("gemini", "session-end", project.payload("gemini", "session-end"))

    assert (result.exit_code, result.stdout) == (0, "")
    assert len(result.stderr.splitlines()) == 1 and "wrap_up" in result.stderr
    refusals = [t for t in project.hall.streams.topics("company") if "Refus" in t]
    assert refusals


def test_a_hook_never_acts_as_a_human_of_roles_yaml(project: Project) -> None:
    events = project.event_count()

    result = project.invoke("claude", "session-start", project.payload("claude", "session-start"), "--as", "maki")

    assert (result.exit_code, result.stdout) == (0, "")
    assert result.stderr.splitlines() == [
        "memhall hook session-start (claude): maki is a human in roles.yaml, and claude's hook acts for an "
        "agent: give it the agent's own name (`hooks install --as AGENT` bakes it in), or unset MEMHALL_AGENT "
        "in the agent's environment"]
    assert project.event_count() == events  # no session opened as the human


def test_a_hook_takes_the_domain_from_the_projects_config(project: Project) -> None:
    (project.root / ".memhall").mkdir(exist_ok=True)
    (project.root / ".memhall" / "config.toml").write_text('domain = "company"\nas = "maki"\n')
    args = [a for a in project.args("codex", "session-start") if a not in ("--domain", "company")]
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMHALL_")} | {"PYTHONPATH": str(ROOT)}

    done = run_memhall(args, cwd=project.root, env=env,
                       input=json.dumps(project.payload("codex", "session-start")))

    assert (done.returncode, done.stderr) == (0, "")
    assert 'domain=\\"company\\" as=\\"codex\\"' in done.stdout  # the project's domain, never its `as`


@pytest.mark.parametrize("stdin, message", [
    ("not json", "not JSON"),
    ("[]", "no hook input"),
    ('{"cwd": "/tmp"}', "no session_id"),
])
def test_bad_hook_input_is_one_line_and_exit_0(project: Project, stdin: str, message: str) -> None:
    result = project.invoke("claude", "stop", stdin)

    assert (result.exit_code, result.stdout) == (0, "")
    assert len(result.stderr.splitlines()) == 1 and message in result.stderr


def test_an_unknown_agent_or_stray_option_never_exits_non_zero(project: Project) -> None:
    unknown = project.invoke("cursor", "stop", "{}")
    stray = project.invoke("claude", "stop", "{}", "--bogus")

    assert (unknown.exit_code, stray.exit_code) == (0, 0)
    assert "unknown agent 'cursor'" in unknown.stderr
    assert "unexpected arguments: --bogus" in stray.stderr
