"""Handoff by thread, the current value of a topic, and the wrap-up's drift check."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import pytest

from memhall.domains.entry import draft
from memhall.domains.errors import RefusedError
from memhall.governance import sessions, threads
from memhall.governance.hall import Hall
from memhall.governance.recompute import verify_read_models
from memhall.governance.store import raw


def state(hall: Hall, text: str, topic: str, *, layer: str = "L2", actor: str = "codex") -> str:
    return hall.write(actor, "company", draft(text=text, kind="state", layer=layer,
                                              tags={"topics": [topic]})).entry_id


def test_handoff_lists_each_open_thread_once_however_busy_the_others(hall: Hall) -> None:
    billing = state(hall, "billing: invoices v2 live", "billing")
    for i in range(12):
        state(hall, f"deploy step {i} done", "deploy")
    hall.write("codex", "company", draft(text="met the auditor", layer="L2", tags={"topics": ["deploy"]}))

    view = sessions.handoff(hall, "codex", "company", open_session=False, limit=5)

    assert [e.thread for e in view.latest] == ["deploy", "billing"]
    assert view.latest[0].text == "deploy step 11 done"
    assert view.latest[1].id == billing


def test_handoff_orders_threads_by_their_latest_state_not_by_their_latest_write(hall: Hall) -> None:
    state(hall, "billing: invoices v2 live", "billing")
    deploy = state(hall, "deploy: canary at 10%", "deploy")
    hall.write("codex", "company", draft(text="billing call with finance", layer="L2", tags={"topics": ["billing"]}))

    view = sessions.handoff(hall, "codex", "company", open_session=False, limit=1)

    assert [e.id for e in view.latest] == [deploy]


def test_a_thread_flooding_the_newest_state_entries_hides_no_other_thread(hall: Hall) -> None:
    billing = state(hall, "billing: invoices v2 live", "billing")
    hall.write_many("codex", "company", [draft(text=f"deploy step {i} done", kind="state", layer="L2",
                                              tags={"topics": ["deploy"]}) for i in range(60)])

    view = sessions.handoff(hall, "codex", "company", open_session=False, limit=3)
    with hall.store.read() as conn:
        reader = threads.Reader(raw(conn), hall.streams.stream("company").tables.prefix, conn.dialect.name)
        walked = threads.latest(reader, limit=3, budget=20)  # past its budget: the threads walked instead

    assert [e.thread for e in view.latest] == ["deploy", "billing"]
    assert view.latest[1].id == billing
    assert [r["id"] for r in walked] == [e.id for e in view.latest]


class Recording:
    """The store's own DBAPI connection, keeping the statements run on it."""

    def __init__(self, db: Any) -> None:
        self.db, self.statements = db, list[str]()

    def cursor(self) -> Recording:
        self.current = self.db.cursor()
        return self

    def execute(self, sql: str, params: Any = ()) -> Any:
        self.statements.append(sql)
        return self.current.execute(sql, params)

    def fetchall(self) -> list[Any]:
        return list(self.current.fetchall())


def test_fewer_threads_than_asked_for_are_walked_without_reading_through_their_state_entries(
        hall: Hall) -> None:
    hall.write_many("codex", "company", [draft(text=f"{topic} step {i}", kind="state", layer="L2",
                                              tags={"topics": [topic]})
                                        for i in range(40) for topic in ("deploy", "billing", "hiring")])
    with hall.store.read() as conn:
        prefix = hall.streams.stream("company").tables.prefix
        few, many = Recording(raw(conn)), Recording(raw(conn))
        every = threads.latest(threads.Reader(few, prefix, conn.dialect.name), limit=100)
        newest_two = threads.latest(threads.Reader(many, prefix, conn.dialect.name), limit=2, budget=20)

    assert [r["text"] for r in every] == ["hiring step 39", "billing step 39", "deploy step 39"]
    assert not any("UNION ALL" in sql for sql in few.statements)  # no page of state entries read
    assert [r["text"] for r in newest_two] == ["hiring step 39", "billing step 39"]
    assert any("UNION ALL" in sql for sql in many.statements)  # more threads than asked for: the scan


def test_a_seats_l1_state_is_a_candidate_never_the_latest_state(hall: Hall) -> None:
    agreed = state(hall, "release on Friday", "release")
    proposal = state(hall, "release on Monday instead", "release", layer="L1", actor="gemini")

    view = sessions.handoff(hall, "codex", "company", open_session=False)

    assert [e.id for e in view.latest] == [agreed]
    assert [e.id for e in view.candidates] == [proposal]


def test_state_gives_the_current_value_of_each_topic_and_of_one(hall: Hall) -> None:
    state(hall, "db: postgres 15", "db")
    current = state(hall, "db: postgres 16", "db")
    state(hall, "cache: redis", "cache")
    state(hall, "db: sqlite?", "db", layer="L1", actor="gemini")

    every = sessions.current_state(hall, "codex", "company")
    one = sessions.current_state(hall, "codex", "company", topic="DB")

    assert [v.topic for v in every.values] == ["cache", "db"]
    assert [(v.entry.id, v.candidate is not None) for v in one.values] == [(current, True)]
    assert sessions.current_state(hall, "codex", "company", topic="nothing").values == []


def test_a_second_handoff_continues_the_open_session(hall: Hall) -> None:
    first = sessions.handoff(hall, "codex", "company")
    second = sessions.handoff(hall, "codex", "company")
    peek = sessions.handoff(hall, "codex", "company", open_session=False)
    sessions.wrap_up(hall, "codex", "company", "done", session_id=first.session_id)
    third = sessions.handoff(hall, "codex", "company")

    assert (second.session_id, second.session_reused) == (first.session_id, True)
    assert peek.session_id is None
    assert third.session_id != first.session_id and not third.session_reused


def test_a_wrap_up_supersedes_only_the_previous_wrap_up_of_its_thread(hall: Hall) -> None:
    mine = sessions.wrap_up(hall, "codex", "company", "billing half done", thread="billing")
    other = sessions.wrap_up(hall, "codex", "company", "deploy paused", thread="deploy")

    newer = sessions.wrap_up(hall, "codex", "company", "billing done", thread="billing")

    view = sessions.handoff(hall, "codex", "company", open_session=False)
    assert newer.superseded == [mine.entry_id]
    assert {e.id for e in view.latest} == {newer.entry_id, other.entry_id}


def test_a_wrap_up_names_the_loops_it_forgets_and_the_pointers_that_went_stale(hall: Hall) -> None:
    first = sessions.wrap_up(hall, "codex", "company", "started", thread="billing",
                             opens=["send reminders", "fix rounding"])
    reminders, rounding = first.opened_loops
    hall.close_loop("codex", "company", UUID(rounding), "fixed")

    second = sessions.wrap_up(hall, "codex", "company", "rounding fixed", thread="billing",
                              pointers=[rounding, "ticket-17"])

    assert second.unmentioned_loops == [reminders]
    assert second.closed_pointers == [rounding]
    assert second.unknown_pointers == ["ticket-17"]


def test_a_long_wrap_up_summary_is_refused_with_advice_and_recorded(hall: Hall) -> None:
    with pytest.raises(RefusedError, match="point to them with --pointer") as refused:
        sessions.wrap_up(hall, "codex", "company", "x" * 1001)

    assert refused.value.rule == "wrap-up-stays-short"
    assert sessions.wrap_up(hall, "codex", "company", "y" * 1001, max_chars=2000).entry_id


def test_audit_verify_recomputes_the_threads(hall: Hall) -> None:
    state(hall, "db: postgres 16", "db")
    sessions.wrap_up(hall, "codex", "company", "done", thread="db")

    reports = verify_read_models(hall.streams, ["company"])

    assert all(r.ok for r in reports), reports


def audit_refusals(hall: Hall, rule: str) -> list[str]:
    with hall.store.read() as conn:
        cursor = raw(conn).cursor()
        cursor.execute(f"SELECT actor FROM {hall.streams.stream('company').tables.prefix}audit "
                       f"WHERE decision = 'refused' AND rule = '{rule}' ORDER BY position")
        return [str(actor) for (actor,) in cursor.fetchall()]


def test_a_thread_named_by_the_writer_holds_its_entries_and_gives_the_topics_value(hall: Hall) -> None:
    named = hall.write("codex", "company", draft(text="deploys move to fridays", kind="state", layer="L2",
                                                 thread="deploy", tags={"topics": ["ops"]})).entry_id

    value = sessions.current_state(hall, "codex", "company", topic="deploy")
    view = sessions.handoff(hall, "codex", "company", open_session=False)

    assert [v.entry.id for v in value.values] == [named]
    assert [(e.thread, e.id) for e in view.latest] == [("deploy", named)]  # not its topic's thread


def test_nobody_writes_into_another_principals_own_thread(hall: Hall) -> None:
    mine = hall.write("codex", "company", draft(text="codex: cache warmed", kind="state", layer="L2",
                                                thread="@codex")).entry_id
    with pytest.raises(RefusedError, match=r"'@maki' is maki's own.*\[own-thread-only\]") as single:
        hall.write("gemini", "company", draft(text="maki: ship it", kind="state", thread="@maki"))
    with pytest.raises(RefusedError) as batched:
        hall.write_many("codex", "company", [draft(text="fine", kind="state", layer="L2", thread="ops"),
                                             draft(text="maki: ship it", kind="state", thread="@maki")])
    with pytest.raises(RefusedError) as wrapped:
        sessions.wrap_up(hall, "codex", "company", "maki is done for today", thread="@maki")

    assert single.value.rule == batched.value.rule == wrapped.value.rule == "own-thread-only"
    assert audit_refusals(hall, "own-thread-only") == ["gemini", "codex", "codex"]
    assert mine and sessions.handoff(hall, "maki", "company", open_session=False).latest[0].id == mine
    assert not hall.write("codex", "company", draft(text="fine", kind="state", layer="L2", thread="ops")).duplicate


def test_hearsay_from_a_principal_may_go_into_that_principals_own_thread(hall: Hall) -> None:
    told = draft(text="claude: the cache is warm", kind="state", layer="L2", thread="@claude",
                 provenance={"source_kind": "hearsay", "source_agent_id": "claude"})
    other = draft(text="maki: ship it", kind="state", layer="L2", thread="@maki",
                  provenance={"source_kind": "hearsay", "source_agent_id": "claude"})

    written = hall.write_many("codex", "company", [told])
    with pytest.raises(RefusedError) as refused:
        hall.write("codex", "company", other)

    assert not written[0].duplicate and refused.value.rule == "own-thread-only"
