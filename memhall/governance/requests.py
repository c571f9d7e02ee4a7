"""MEMORY REQUEST use cases and their read-model queries.

Expiry is a fact of the clock, not of a daemon: a read compares `expires_at`
with the hall's clock and shows an overdue request as expired without writing
(reads never take the write lock); the `Expired` event is recorded the next
time a write touches the request (an answer, or a new request in the domain,
which sweeps the overdue ones). The log thus says when the hall *noticed*.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any
from uuid import UUID

from sqlalchemy import Connection, select

from memhall.domains.errors import (
    InvalidTransitionError,
    InvalidValueError,
    NotFoundError,
)
from memhall.domains.request import (
    DEFAULT_EXPIRY,
    MemoryRequest,
    RequestStatus,
    effective_status,
)
from memhall.domains.entry import Entry
from memhall.domains.values import Layer, Status, principal_name
from memhall.governance import waiting
from memhall.governance.projection.schema import iso
from memhall.governance.views import View, as_utc
from memhall.policies.model import Action, PolicyRequest, ResourceType

if TYPE_CHECKING:
    from memhall.governance.hall import Hall
    from memhall.governance.streams import DomainStream

EXPIRY_RULE = "requests-expire-on-the-clock"
SWEEP_LIMIT = 100


class RequestView(View):
    id: str
    domain: str
    seat: str
    need: str
    requested_by: str
    status: str
    answer_entry: str | None = None
    answered_by: str | None = None
    created_at: datetime
    expires_at: datetime

    @property
    def summary(self) -> str:
        return waiting.request_summary(self.model_dump())


# -- memory requests -------------------------------------------------------------


def request_memory(hall: Hall, actor: str, domain: str, seat: str, need: str,
                   expires_in: timedelta = DEFAULT_EXPIRY) -> RequestView:
    """Record a MEMORY REQUEST; overdue requests of the domain expire in the same write."""
    actor = principal_name(actor)
    seat = principal_name(seat)
    stream = hall.stream(domain, actor=actor, action=Action.REQUEST)
    now = hall.clock()
    with hall.writing(stream) as session:
        policy = PolicyRequest(principal=actor, action=Action.REQUEST, domain=stream.name,
                               resource_type=ResourceType.DOMAIN, seat=seat)
        decision = hall.authorize(session, stream, policy)
        try:
            new = MemoryRequest.issue(stream.name, seat, need, now=now, expires_in=expires_in,
                                      actor=actor, rule=decision.rule_id)
        except InvalidValueError as error:
            hall.refuse(session, stream, policy, error, rule=decision.rule_id)
        stream.save(session, *_overdue(session, stream, now, actor), new)
    return _request_view(stream, new)


def answer(hall: Hall, actor: str, domain: str, request_id: UUID, entry_id: UUID) -> RequestView:
    """Resolve a request with an existing L2+ entry of the same domain (never an inference)."""
    actor = principal_name(actor)
    stream = hall.stream(domain, actor=actor, action=Action.ANSWER)
    now = hall.clock()
    with hall.writing(stream) as session:
        found: MemoryRequest = stream.get(request_id, "memory request", kind=MemoryRequest)
        policy = PolicyRequest(principal=actor, action=Action.ANSWER, domain=stream.name,
                               resource_type=ResourceType.DOMAIN, resource_id=str(request_id),
                               seat=found.seat)
        decision = hall.authorize(session, stream, policy)
        if found.expire_if_due(now=now, actor=actor, rule=EXPIRY_RULE):
            stream.save(session, found)
        problem = _uncitable(stream, entry_id)
        try:
            if problem is not None:
                raise problem
            found.answer(entry_id, now=now, actor=actor, rule=decision.rule_id)
        except (InvalidValueError, InvalidTransitionError, NotFoundError) as error:
            hall.refuse(session, stream, policy, error, rule=decision.rule_id)
        stream.save(session, found)
    return _request_view(stream, found)


def _uncitable(stream: DomainStream, entry_id: UUID) -> InvalidValueError | None:
    """Why an entry cannot answer a request, read from its events (never from
    the entries table, whose row could be edited to say L2)."""
    try:
        entry: Entry = stream.get(entry_id, kind=Entry)
    except NotFoundError:
        # a refusal, not a mere mistake: the id may name another domain's memory
        return InvalidValueError(f"no entry {entry_id} in {stream.name}: an answer cites memory of "
                                 "this domain")
    if entry.status is not Status.ACTIVE:
        return InvalidValueError(f"entry {entry_id} is {entry.status.value}: answer with current memory")
    if entry.layer is Layer.L1:
        return InvalidValueError(f"entry {entry_id} is L1, a candidate: an answer cites L2 or above, "
                                 "never an inference")
    return None


def pending(hall: Hall, actor: str, domain: str, *, seat: str | None = None,
            limit: int = 50) -> list[RequestView]:
    """Open requests, oldest first; an overdue one is not open (see the module note)."""
    stream, _ = hall.ask(actor, Action.READ, domain)
    seat = principal_name(seat) if seat is not None else None
    return open_requests(hall.store.read, stream, hall.clock(), seat=seat, limit=limit)


def open_requests(read: Any, stream: DomainStream, now: datetime, *, seat: str | None = None,
                  limit: int = 50) -> list[RequestView]:
    t = stream.tables.requests
    query = select(t).where(t.c.status == RequestStatus.OPEN.value, t.c.expires_at > iso(now))
    if seat:
        query = query.where(t.c.seat == seat)
    with read() as conn:
        rows = conn.execute(query.order_by(t.c.created_at, t.c.id).limit(limit)).all()
    return [_row_view(stream.name, r, now) for r in rows]


def unresolved_pending(stream: DomainStream, ids: Sequence[str], now: datetime) -> str | None:
    """Why `write --pending` must be refused, or None when every id is an open
    request (read from the requests' events, not from the requests table)."""
    for ident in ids:
        try:
            found: MemoryRequest = stream.get(UUID(ident), "memory request", kind=MemoryRequest)
        except (ValueError, NotFoundError):
            return f"--pending {ident}: no memory request {ident} in {stream.name}"
        status = found.status_at(now)
        if status is not RequestStatus.OPEN:
            return f"--pending {ident}: the memory request is {status.value}, not open"
    return None


def open_requests_section(conn: Connection, stream: DomainStream,
                          now: datetime | None = None) -> dict[str, list[dict[str, Any]]]:
    """Handoff section: the requests still recorded open (past-expiry ones are
    left out when the caller passes the clock)."""
    t = stream.tables.requests
    query = select(t).where(t.c.status == RequestStatus.OPEN.value)
    if now is not None:
        query = query.where(t.c.expires_at > iso(now))
    rows = conn.execute(query.order_by(t.c.created_at, t.c.id).limit(20)).all()
    views = [_row_view(stream.name, r, now) for r in rows]
    return {"open_requests": [{**v.model_dump(mode="json"), "summary": v.summary} for v in views]}



def _overdue(session: Connection, stream: DomainStream, now: datetime, actor: str) -> list[MemoryRequest]:
    t = stream.tables.requests
    ids = session.execute(select(t.c.id).where(t.c.status == RequestStatus.OPEN.value,
                                               t.c.expires_at <= iso(now))
                          .order_by(t.c.expires_at, t.c.id).limit(SWEEP_LIMIT)).scalars().all()
    due: list[MemoryRequest] = []
    for ident in ids:
        request: MemoryRequest = stream.get(UUID(ident), "memory request", kind=MemoryRequest)
        if request.expire_if_due(now=now, actor=actor, rule=EXPIRY_RULE):
            due.append(request)
    return due


def _request_view(stream: DomainStream, r: MemoryRequest) -> RequestView:
    return RequestView(
        id=str(r.id), domain=stream.name, seat=r.seat, need=r.need, requested_by=r.requested_by,
        status=r.status.value, answer_entry=str(r.answer_entry) if r.answer_entry else None,
        answered_by=r.answered_by, created_at=as_utc(r.requested_at), expires_at=as_utc(r.expires_at),
    )


def _row_view(domain: str, row: Any, now: datetime | None) -> RequestView:
    data = dict(row._mapping)
    data.pop("position", None)
    data["created_at"], data["expires_at"] = as_utc(data["created_at"]), as_utc(data["expires_at"])
    if now is not None:
        data["status"] = effective_status(RequestStatus(data["status"]), data["expires_at"], now).value
    return RequestView(domain=domain, **data)
