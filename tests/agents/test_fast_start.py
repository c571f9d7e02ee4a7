"""session-start on the fast path: the main path's session, events and JSON line, or the main path itself."""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from uuid import UUID

import orjson
import pytest
from click.testing import CliRunner

from memhall.agents import lifecycle
from memhall.agents.lean_start import fast_start
from memhall.cli.context import App
from memhall.cli.main import cli
from memhall.domains.entry import draft
from memhall.domains.values import Layer
from memhall.governance import fast_handoff, promotions, requests
from memhall.governance.hall import Hall
from memhall.governance.keyed import session_key
from memhall.governance.recompute import verify_read_models
from memhall.governance.store import Store
from memhall.policies.engine import PolicySet
from tests.agents.conftest import Project, context_of

NOW = datetime(2026, 11, 30, 21, 0, 0, tzinfo=timezone.utc)
AGENTS = ["claude", "codex", "gemini"]


@pytest.fixture
def store_url(tmp_path: Path) -> str:
    """The fast path reads SQLite stores only (on PostgreSQL the hook always takes the main
    path, which the hook process stories cover on both backends)."""
    return f"sqlite:///{tmp_path / 'memhall.db'}"


def main_start(project: Project, agent: str, agent_session: str) -> str:
    """The hook's main path at NOW, leaving the policy's answers cached as the hook does."""
    hall = Hall(Store(project.store_url), PolicySet.load(project.policy), clock=lambda: NOW)
    try:
        line = lifecycle.start(lifecycle.HookRun(hall=hall, actor=agent, domain="company"),
                               session_key(agent, agent_session, "company", agent))
        fast_handoff.remember_allowed(hall, agent, "company", project.policy,
                                      (fast_handoff.HANDOFF, fast_handoff.READ), marks=(fast_handoff.AGENT,))
    finally:
        hall.store.dispose()
    return line


def fast(project: Project, agent: str, agent_session: str) -> str | None:
    return fast_start(project.store_url, project.policy, agent, "company",
                      session_key(agent, agent_session, "company", agent), NOW)


def busy(project: Project) -> None:
    """A hall with something in every section: an L3 entry (ratified by its owner), an open
    nomination, an open memory request, an L2 state, a candidate, an open loop and an open question."""
    hall = project.hall
    entry = UUID(hall.write("codex", "company", draft(text="deploys go out on tuesdays", layer="L2")).entry_id)
    stale = promotions.nominate(hall, "claude", "company", entry, Layer.L3, "held for a quarter")
    promotions.ratify(hall, "maki", "company", stale.id)
    other = UUID(hall.write("codex", "company", draft(text="exports run nightly", layer="L2")).entry_id)
    promotions.nominate(hall, "claude", "company", other, Layer.L3, "settled")
    requests.request_memory(hall, "codex", "company", "gemini", "who owns the export job")
    hall.write("codex", "company", draft(text="billing: v2 live", kind="state", layer="L2",
                                         tags={"topics": ["billing"]}))
    hall.write("gemini", "company", draft(text="billing: v3 next", kind="state", tags={"topics": ["billing"]}))
    hall.write("codex", "company", draft(text="send the reminders", kind="open-loop", layer="L2"))
    hall.write("codex", "company", draft(text="why does the export drift?", kind="open-loop", layer="L2"))


def events(project: Project, topic: str, domain: str = "company") -> list[dict[str, Any]]:
    """A stream's events of `topic`, in log order (SQLite only)."""
    store = fast_handoff.sqlite_path(project.store_url)
    assert store is not None
    with sqlite3.connect(store) as conn:
        rows = conn.execute(f"SELECT state FROM mh_{domain}_events WHERE topic = ? ORDER BY id", [topic]).fetchall()
    return [orjson.loads(state) for (state,) in rows]


def test_the_fast_start_serves_only_a_principal_a_hooks_main_path_found_to_be_no_human(project: Project) -> None:
    hall = Hall(Store(project.store_url), PolicySet.load(project.policy), clock=lambda: NOW)
    try:  # what a human's own handoffs may leave cached: every answer, but not the hook's mark
        fast_handoff.remember_allowed(hall, "maki", "company", project.policy,
                                      (fast_handoff.HANDOFF, fast_handoff.READ))
    finally:
        hall.store.dispose()
    before = project.event_count()

    served = fast(project, "maki", "agent-session-1")

    assert served is None and project.event_count() == before  # the main path decides: it refuses


@pytest.mark.parametrize("agent", AGENTS)
def test_the_fast_start_prints_the_main_paths_line_byte_for_byte(project: Project, agent: str) -> None:
    busy(project)

    main = main_start(project, agent, "agent-session-1")
    again = fast(project, agent, "agent-session-1")

    assert again is not None
    assert again == main
    assert "deploys go out on tuesdays" in context_of(main + "\n").split("## Knowledge (L3)")[1]
    assert "billing: v3 next" in main
    context = context_of(main + "\n")
    assert "who owns the export job" in context.split("## Open memory requests")[1]
    assert "nominated by claude" in context.split("## Pending nominations")[1]


def test_the_fast_start_writes_the_main_paths_event_chained_and_projected(project: Project) -> None:
    busy(project)
    main_start(project, "claude", "opened-by-the-main-path")
    before = project.event_count()

    line = fast(project, "claude", "opened-by-the-fast-path")

    assert line is not None and project.event_count() == before + 1
    by_main, by_fast = events(project, "memhall.Session.Opened")
    assert by_fast["originator_id"] == str(session_key_id("claude", "opened-by-the-fast-path"))
    assert {**by_fast, "originator_id": "", "timestamp": ""} == {**by_main, "originator_id": "", "timestamp": ""}
    assert all(r.ok for r in verify_read_models(project.hall.streams, ["company"]))
    verified = CliRunner().invoke(cli, ["--store", project.store_url, "--policy", str(project.policy),
                                        "--as", "maki", "audit", "verify"], obj=App())
    assert verified.exit_code == 0, verified.output


def session_key_id(agent: str, agent_session: str) -> UUID:
    from memhall.governance.keyed import keyed_ids

    return keyed_ids(session_key(agent, agent_session, "company", agent))[0]


def test_a_second_fast_start_of_the_same_agent_session_writes_nothing(project: Project) -> None:
    main_start(project, "codex", "first")
    first = fast(project, "codex", "second")
    count = project.event_count()

    again = fast(project, "codex", "second")

    assert first is not None and again == first
    assert project.event_count() == count


def test_without_a_cached_answer_the_fast_path_declines_and_the_main_path_refuses_and_records(
        project: Project) -> None:
    main_start(project, "codex", "cached")  # codex's answers are cached, grok's never were

    assert fast(project, "grok", "a-stranger") is None
    result = project.invoke("claude", "session-start", project.payload("claude", "session-start"), "--as", "grok")

    assert (result.exit_code, result.stdout) == (0, "")
    assert "grok" in result.stderr and "refused" in result.stderr.lower()
    assert any(e["actor"] == "grok" and e["action"] == "handoff" for e in refusals(project))


def refusals(project: Project) -> list[dict[str, Any]]:
    """Refusals in company, and in the system stream (where a stranger's are kept)."""
    return [*events(project, "memhall.Refusal.Recorded"), *events(project, "memhall.Refusal.Recorded", "0sys")]


def test_a_policy_adopted_since_the_answer_was_cached_sends_the_start_to_the_main_path(project: Project) -> None:
    main_start(project, "codex", "cached")
    store = fast_handoff.sqlite_path(project.store_url)
    assert store is not None
    digest = fast_handoff.policy_digest(project.policy)
    cached = fast_handoff.cached_decision(store, digest, "codex", "company")
    assert cached is not None
    fast_handoff.remember(store, digest, "codex", "company", fast_handoff.Cached(cached.rule, "0" * 64, cached.charter))

    assert fast(project, "codex", "after-an-adoption") is None


@pytest.mark.parametrize("shown, edited", [
    ("deploys go out on tuesdays", "deploys go out whenever"),  # an L3 entry: knowledge
    ("billing: v2 live", "billing: v1 is back"),  # a thread's latest state: the handoff
])
def test_an_edited_row_is_left_to_the_main_path_which_refuses_to_hand_it_over(
        project: Project, shown: str, edited: str) -> None:
    busy(project)
    main_start(project, "codex", "cached")
    t = project.hall.streams.stream("company").tables.entries
    with project.hall.store.write() as conn:
        conn.execute(t.update().where(t.c.text == shown).values(text=edited))

    assert fast(project, "codex", "after-the-edit") is None
    result = project.invoke("codex", "session-start", project.payload("codex", "session-start"))
    assert (result.exit_code, result.stdout) == (0, "")
    assert f"shows text '{edited}', its events say '{shown}'" in result.stderr


def test_the_hook_process_takes_the_fast_path_once_an_answer_is_cached(project: Project) -> None:
    first = project.run("codex", "session-start", project.payload("codex", "session-start", session_id="one"))
    second = project.run("codex", "session-start", project.payload("codex", "session-start", session_id="two"))

    assert (first.returncode, second.returncode) == (0, 0)
    assert json.loads(second.stdout)["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert second.stdout.count("\n") == 1 and len(second.stdout.encode()) <= 8000
