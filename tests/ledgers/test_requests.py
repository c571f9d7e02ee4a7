"""MEMORY REQUEST and PENDING: requested, answered, expired, on a clock passed in."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from uuid import UUID, uuid4

import pytest

from tests.conftest import remember_hall_objects
from sqlalchemy import select

from memhall.domains.errors import (
    PolicyDeniedError,
    RefusedError,
)
from memhall.domains.request import MemoryRequest, RequestStatus
from memhall.governance import history, requests
from memhall.governance.hall import Hall
from memhall.governance.store import Store
from memhall.governance.tables import tables_for
from memhall.policies.engine import PolicySet
from tests.ledgers.conftest import Write

START = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def hall(store: Store, policies: PolicySet, clock: Clock) -> Hall:
    """The shared hall, on a clock the test moves."""
    h = Hall(store, policies, clock=clock)
    h.create_domain("maki", "company")
    h.create_domain("maki", "family")
    remember_hall_objects(h)
    return h


def ask(hall: Hall, need: str = "when does billing run?", hours: float = 72) -> str:
    return requests.request_memory(hall, "gemini", "company", "gemini", need, timedelta(hours=hours)).id


def last_audit(hall: Hall) -> dict[str, object]:
    audit = tables_for("company").audit
    with hall.store.read() as conn:
        return dict(conn.execute(select(audit).order_by(audit.c.position.desc()).limit(1)).one()._mapping)


def test_a_seat_asks_and_the_request_is_pending(hall: Hall) -> None:
    made = ask(hall)

    open_now = requests.pending(hall, "claude", "company")

    assert [(r.id, r.seat, r.status) for r in open_now] == [(made, "gemini", "open")]
    assert open_now[0].expires_at == START + timedelta(hours=72)
    assert last_audit(hall)["action"] == "request"


def test_the_system_chair_answers_with_an_entry_of_the_same_domain(hall: Hall, write: Write) -> None:
    made = ask(hall)
    fact = write("billing runs nightly at 2am")

    answered = requests.answer(hall, "claude", "company", UUID(made), UUID(fact))

    assert (answered.status, answered.answer_entry, answered.answered_by) == ("answered", fact, "claude")
    assert requests.pending(hall, "claude", "company") == []
    events = [e.topic for e in history.log(hall, "maki", "company", limit=3)]
    assert events[0] == MemoryRequest.Answered.TOPIC


def test_an_answer_from_another_domain_is_refused(hall: Hall, write: Write) -> None:
    made = ask(hall)
    elsewhere = write("billing of the family insurance", domain="family")

    with pytest.raises(RefusedError, match="no entry"):
        requests.answer(hall, "claude", "company", UUID(made), UUID(elsewhere))

    assert last_audit(hall)["decision"] == "refused"
    assert [r.id for r in requests.pending(hall, "claude", "company")] == [made]


def test_an_inference_cannot_answer_a_request(hall: Hall, write: Write) -> None:
    made = ask(hall)
    guess = write("billing probably runs at night", layer="L1")

    with pytest.raises(RefusedError, match="never an inference"):
        requests.answer(hall, "claude", "company", UUID(made), UUID(guess))


def test_a_seat_cannot_answer_its_own_request(hall: Hall, write: Write) -> None:
    made = ask(hall)
    fact = write("billing runs nightly")

    with pytest.raises(PolicyDeniedError):
        requests.answer(hall, "gemini", "company", UUID(made), UUID(fact))

    assert last_audit(hall)["decision"] == "refused"


def test_a_request_past_its_expiry_is_no_longer_pending(hall: Hall, clock: Clock) -> None:
    ask(hall, hours=2)

    clock.advance(hours=2)

    assert requests.pending(hall, "claude", "company") == []


def test_answering_an_expired_request_records_the_expiry_and_refuses(
    hall: Hall, clock: Clock, write: Write
) -> None:
    made = ask(hall, hours=1)
    fact = write("billing runs nightly")
    clock.advance(hours=3)

    with pytest.raises(RefusedError, match="expired"):
        requests.answer(hall, "claude", "company", UUID(made), UUID(fact))

    topics = [e.topic for e in history.log(hall, "maki", "company", limit=2)]
    assert topics == ["memhall.Refusal.Recorded", MemoryRequest.Expired.TOPIC]
    with hall.store.read() as conn:
        t = tables_for("company").requests
        assert conn.execute(select(t.c.status).where(t.c.id == made)).scalar() == "expired"


def test_a_new_request_sweeps_the_overdue_ones(hall: Hall, clock: Clock) -> None:
    old = ask(hall, "old need", hours=1)
    clock.advance(hours=5)

    fresh = ask(hall, "new need")

    t = tables_for("company").requests
    with hall.store.read() as conn:
        status = {row.id: row.status for row in conn.execute(select(t.c.id, t.c.status))}
    assert status == {old: "expired", fresh: "open"}


def test_a_principal_without_a_role_cannot_request(hall: Hall) -> None:
    with pytest.raises(PolicyDeniedError):
        requests.request_memory(hall, "grok", "company", "grok", "anything")


def test_a_request_needs_a_need(hall: Hall) -> None:
    with pytest.raises(RefusedError, match="--need"):
        requests.request_memory(hall, "gemini", "company", "gemini", "  ")


def test_the_handoff_section_lists_requests_open_on_the_clock(hall: Hall, clock: Clock) -> None:
    made = ask(hall, "who owns billing?")
    ask(hall, "soon stale", hours=1)
    clock.advance(hours=2)

    with hall.store.read() as conn:
        section = requests.open_requests_section(conn, hall.streams.stream("company"), clock())

    assert [r["id"] for r in section["open_requests"]] == [made]
    assert "who owns billing?" in section["open_requests"][0]["summary"]


def test_a_pending_mark_must_name_an_open_request(hall: Hall, clock: Clock) -> None:
    made = ask(hall, hours=1)
    stream = hall.streams.stream("company")

    def check(ids: list[str]) -> str | None:
        return requests.unresolved_pending(stream, ids, clock())

    assert check([made]) is None
    assert "no memory request" in (check([str(uuid4())]) or "")
    clock.advance(hours=2)
    assert "expired" in (check([made]) or "")


def test_status_on_the_clock_does_not_wait_for_the_event() -> None:
    request = MemoryRequest.issue("company", "gemini", "x", now=START, expires_in=timedelta(hours=1),
                                  actor="gemini", rule="r")

    assert request.status_at(START) is RequestStatus.OPEN
    assert request.status_at(START + timedelta(hours=1)) is RequestStatus.EXPIRED
    assert request.status is RequestStatus.OPEN
