"""The hall's use cases on a real store with the real default policy."""

from __future__ import annotations

from uuid import UUID

import pytest
from sqlalchemy import select

from memhall.domains.entry import draft
from memhall.domains.errors import (
    DomainExistsError,
    InvalidValueError,
    NotFoundError,
    PolicyDeniedError,
    RefusedError,
    UnknownDomainError,
)
from memhall.governance import history, sessions
from memhall.governance.hall import Hall
from memhall.governance.store import Store
from memhall.governance.tables import SYSTEM, tables_for
from memhall.policies.engine import PolicySet


def audit_rows(hall: Hall, domain: str) -> list[dict[str, object]]:
    audit = tables_for(domain).audit
    with hall.store.read() as conn:
        return [dict(r._mapping) for r in conn.execute(select(audit).order_by(audit.c.position))]


def test_a_written_entry_survives_reopening_the_store(hall: Hall, store_url: str, policies: PolicySet) -> None:
    result = hall.write("codex", "company", draft(text="billing runs nightly", layer="L2", kind="claim"))

    reopened = Hall(Store(store_url), policies)
    view = history.show(reopened, "codex", "company", UUID(result.entry_id))

    assert view.entry.text == "billing runs nightly"
    assert view.entry.layer == "L2"
    assert [e.topic for e in view.history] == ["memhall.Entry.Written"]
    assert view.history[0].rule == "session-chair-writes-l2"


def test_the_same_memory_written_twice_is_stored_once(hall: Hall) -> None:
    first = hall.write("codex", "company", draft(text="Deploys happen on Fridays", kind="claim"))
    second = hall.write("codex", "company", draft(text="deploys  happen on FRIDAYS", kind="claim"))

    assert not first.duplicate
    assert second.duplicate_of == first.entry_id
    assert len(history.search(hall, "codex", "company", "deploys fridays").results) == 1


def test_a_write_to_an_unknown_domain_is_refused_and_recorded(hall: Hall) -> None:
    with pytest.raises(UnknownDomainError):
        hall.write("codex", "atlantis", draft(text="x"))

    refusals = audit_rows(hall, SYSTEM)
    assert refusals[-1]["decision"] == "refused"
    assert refusals[-1]["resource_id"] == "atlantis"
    assert refusals[-1]["actor"] == "codex"


def test_a_domain_cannot_be_created_twice(hall: Hall) -> None:
    with pytest.raises(DomainExistsError):
        hall.create_domain("maki", "company")


def test_a_principal_must_be_named(hall: Hall) -> None:
    with pytest.raises(InvalidValueError, match="--as"):
        hall.write("", "company", draft(text="x"))


def test_a_policy_refusal_stores_only_the_refusal_event(hall: Hall) -> None:
    before = len(history.log(hall, "maki", "company", limit=100))

    with pytest.raises(PolicyDeniedError, match="no rule permits"):
        hall.write("gemini", "company", draft(text="seats do not write the hall", layer="L2"))

    events = history.log(hall, "maki", "company", limit=100)
    assert len(events) == before + 1
    assert events[0].topic == "memhall.Refusal.Recorded"
    assert events[0].actor == "gemini"
    assert events[0].data["action"] == "write_l2"
    assert history.search(hall, "maki", "company", "seats hall").results == []


def test_a_payload_claiming_another_author_is_refused(hall: Hall) -> None:
    with pytest.raises(PolicyDeniedError, match="claimed-principal-must-be-the-actor"):
        hall.write("codex", "company", draft(text="maki decided X"), claimed_principal="maki")

    assert audit_rows(hall, "company")[-1]["rule"] == "claimed-principal-must-be-the-actor"


def test_an_entry_of_one_domain_cannot_be_read_from_another(hall: Hall) -> None:
    secret = hall.write("codex", "family", draft(text="the anniversary is in May", layer="L2"))

    with pytest.raises(NotFoundError):
        history.show(hall, "codex", "company", UUID(secret.entry_id))
    assert history.search(hall, "codex", "company", "anniversary").results == []


def test_handoff_returns_the_latest_state_not_the_most_similar_lesson(hall: Hall) -> None:
    hall.write("codex", "company", draft(
        text="Where we left off on the billing migration: the dry run failed, roll back",
        kind="lesson", layer="L2"))
    old = sessions.wrap_up(hall, "codex", "company", "Billing migration paused")
    new = sessions.wrap_up(hall, "codex", "company", "Invoices v2 live; next: reminders")

    view = sessions.handoff(hall, "codex", "company")

    assert [e.id for e in view.latest] == [new.entry_id]
    assert new.superseded == [old.entry_id]
    assert all(e.kind != "lesson" for e in view.latest)
    found = history.search(hall, "codex", "company", "where we left off billing migration")
    assert found.results[0].kind == "lesson"
    assert "not current state" in found.notice


def test_handoff_of_an_empty_domain_is_empty(hall: Hall) -> None:
    view = sessions.handoff(hall, "codex", "family", open_session=False)

    assert view.empty
    assert view.session_id is None


def test_wrap_up_opens_and_closes_loops_and_closes_the_session(hall: Hall) -> None:
    start = sessions.handoff(hall, "codex", "company")
    first = sessions.wrap_up(hall, "codex", "company", "half way", session_id=start.session_id,
                             opens=["write the migration test", "ask maki about invoices"])
    assert first.session_id == start.session_id

    second = sessions.wrap_up(hall, "codex", "company", "migration tested",
                              closes=[UUID(first.opened_loops[0])])

    view = sessions.handoff(hall, "codex", "company")
    assert [l.text for l in view.open_loops] == ["ask maki about invoices"]
    assert view.latest[0].id == second.entry_id
    assert first.opened_loops[0] in view.latest[0].pointers
    closed = history.show(hall, "codex", "company", UUID(first.opened_loops[0]))
    assert closed.entry.status == "closed"
    assert closed.history[-1].data["by_entry"] == second.entry_id
    with pytest.raises(Exception, match="already closed"):
        sessions.wrap_up(hall, "codex", "company", "again", session_id=start.session_id)


def test_a_session_closed_unwrapped_leaves_its_threads_state_and_is_refused_to_anyone_else(hall: Hall) -> None:
    done = sessions.wrap_up(hall, "codex", "company", "invoices v2 live")
    start = sessions.handoff(hall, "codex", "company")
    assert start.session_id is not None

    with pytest.raises(PolicyDeniedError, match="wrap_up for claude"):
        sessions.close_unwrapped(hall, "claude", "company", start.session_id)
    sessions.close_unwrapped(hall, "codex", "company", start.session_id)

    assert [e.id for e in sessions.handoff(hall, "codex", "company", open_session=False).latest] == [done.entry_id]
    with pytest.raises(RefusedError, match="already closed"):
        sessions.close_unwrapped(hall, "codex", "company", start.session_id)
    with pytest.raises(RefusedError, match="already closed"):
        sessions.wrap_up(hall, "codex", "company", "late", session_id=start.session_id)


def test_wrap_up_needs_a_summary(hall: Hall) -> None:
    with pytest.raises(InvalidValueError, match="summary"):
        sessions.wrap_up(hall, "codex", "company", "  ")


def test_the_log_pages_newest_first(hall: Hall) -> None:
    for n in range(5):
        hall.write("codex", "company", draft(text=f"note {n}"))

    page = history.log(hall, "codex", "company", limit=3)
    rest = history.log(hall, "codex", "company", limit=10, before=page[-1].position)

    positions = [e.position for e in page + rest]
    assert positions == sorted(positions, reverse=True)
    assert len(set(positions)) == len(positions) == 7  # the domain's opening, its charter, 5 notes


def test_superseding_takes_the_old_state_out_of_handoff(hall: Hall) -> None:
    old = hall.write("codex", "company", draft(text="state: on v1", kind="state", layer="L2"))
    new = hall.write("codex", "company", draft(text="state: on v2", kind="state", layer="L2"),
                     supersedes=UUID(old.entry_id))

    view = sessions.handoff(hall, "codex", "company", open_session=False)

    assert [e.id for e in view.latest] == [new.entry_id]
    assert history.show(hall, "codex", "company", UUID(old.entry_id)).entry.superseded_by == new.entry_id


def test_the_batched_import_writes_all_or_nothing_and_deduplicates(hall: Hall) -> None:
    results = hall.write_many("codex", "company", [draft(text="a"), draft(text="b"), draft(text="A")])

    assert results[2].duplicate_of == results[0].entry_id
    assert len({r.entry_id for r in results}) == 2
    with pytest.raises(PolicyDeniedError):
        hall.write_many("gemini", "company", [draft(text="c"), draft(text="d", layer="L2")])
    assert history.search(hall, "codex", "company", "c").results == []


def test_a_write_retried_with_its_idempotency_key_is_stored_once(hall: Hall) -> None:
    first = hall.write("codex", "company", draft(text="deploy done", idempotency_key="run-7"))
    again = hall.write("codex", "company", draft(text="deploy done", idempotency_key="run-7"))

    assert again.replayed and again.entry_id == first.entry_id
    with pytest.raises(InvalidValueError, match="already used"):
        hall.write("codex", "company", draft(text="something else", idempotency_key="run-7"))


def test_a_wrap_up_retried_with_its_idempotency_key_returns_the_first(hall: Hall) -> None:
    first = sessions.wrap_up(hall, "codex", "company", "shipped", opens=["follow up"], idempotency_key="w-1")
    again = sessions.wrap_up(hall, "codex", "company", "shipped", opens=["follow up"], idempotency_key="w-1")

    assert again.replayed
    assert (again.entry_id, again.session_id, again.opened_loops) == (
        first.entry_id, first.session_id, first.opened_loops)
    view = sessions.handoff(hall, "codex", "company", open_session=False)
    assert [e.id for e in view.latest] == [first.entry_id]
    assert len(view.open_loops) == 1
