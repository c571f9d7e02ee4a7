"""A hook its agent waits on never waits long for a busy SQLite store: session-start hands
out the handoff without opening a session, a turn's end leaves its draft as it was."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from memhall.agents import lean_start
from memhall.domains.entry import draft
from tests.agents.conftest import Project, context_of

pytestmark = pytest.mark.parametrize("store_url", ["sqlite"], indirect=True)


@contextmanager
def write_locked(project: Project) -> Iterator[None]:
    """Another process's write transaction, held open."""
    holder = sqlite3.connect(project.store_url.removeprefix("sqlite:///"), isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        yield
    finally:
        holder.execute("ROLLBACK")
        holder.close()


@pytest.fixture(autouse=True)
def brief_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lean_start, "HOOK_LOCK_WAIT_S", 0.2)


def start(project: Project, agent: str, session: str) -> tuple[str, str, float]:
    began = time.monotonic()
    result = project.invoke(agent, "session-start", project.payload(agent, "session-start", session_id=session))
    assert result.exit_code == 0
    return context_of(result.stdout), result.stderr, time.monotonic() - began


def test_a_start_on_a_busy_store_hands_out_the_handoff_and_opens_no_session(project: Project) -> None:
    project.hall.write("codex", "company", draft(text="the billing export moved to Friday", kind="state",
                                                 layer="L2", tags={"topics": ["billing"]}))
    events = project.event_count()

    with write_locked(project):
        context, stderr, took = start(project, "claude", "s-1")

    assert "No memhall session was opened for you in company (the store is busy" in context
    assert 'session=""' in context and "the billing export moved to Friday" in context
    assert stderr.count("\n") == 1 and "the handoff was given without opening a session" in stderr
    assert project.event_count() == events and took < 5
    context, stderr, _ = start(project, "claude", "s-1")  # the store free again: the session opens
    assert "is open for you in company" in context and stderr == ""
    assert project.event_count() == events + 1


def test_the_fast_start_gives_up_as_soon_and_hands_out_the_same(project: Project) -> None:
    start(project, "claude", "s-1")  # the main path's start caches what the fast one needs
    events = project.event_count()

    with write_locked(project):
        context, stderr, took = start(project, "claude", "s-2")

    assert "No memhall session was opened for you" in context and "store is busy" in stderr
    assert project.event_count() == events and took < 5


def test_a_turns_end_on_a_busy_store_is_one_line_and_keeps_the_draft_it_had(project: Project) -> None:
    start(project, "claude", "s-1")
    events = project.event_count()

    with write_locked(project):
        result = project.invoke("claude", "stop", project.payload(
            "claude", "stop", session_id="s-1", last_assistant_message="half way there"))

    assert (result.exit_code, result.stdout) == (0, "")
    assert result.stderr.count("\n") == 1 and "the store is busy" in result.stderr
    assert project.event_count() == events and project.entries(kind="wrap-up") == []


def test_a_start_as_a_process_waits_once_not_on_each_path(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    """The click-free start (`console`) gives up first; click's hook then does not wait again."""
    # the forked process inherits it; long enough that a process started on a loaded machine
    # (~1 s here at worst) cannot pass for a second wait
    monkeypatch.setattr(lean_start, "HOOK_LOCK_WAIT_S", 2.0)
    start(project, "claude", "s-1")
    events = project.event_count()

    with write_locked(project):
        began = time.monotonic()
        done = project.run("claude", "session-start", project.payload("claude", "session-start", session_id="s-9"))
        took = time.monotonic() - began

    assert done.returncode == 0 and "No memhall session was opened for you" in context_of(done.stdout)
    assert done.stderr.count("\n") == 1 and "for 2 s" in done.stderr
    assert project.event_count() == events
    assert 2.0 <= took < 3.9  # one wait of 2 s, not one on each path
