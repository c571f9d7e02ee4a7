"""Session start and end: handoff reads the latest state, wrap-up records it.

Handoff never ranks by similarity: it takes the newest `state` / `wrap-up` /
`handoff` entries of the domain by time (an index on kind, status and time,
so its cost does not grow with the domain), then the open loops.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any
from uuid import UUID

from sqlalchemy import Connection, select

from memhall.domains.entry import Entry, draft
from memhall.domains.errors import InvalidValueError, MemhallError, NotFoundError
from memhall.domains.session import Session as WorkSession
from memhall.domains.values import HANDOFF_KINDS, Kind, Layer, principal_name
from memhall.governance import incubation, promotion_records, requests
from memhall.governance.hall import Hall
from memhall.governance.streams import DomainStream
from memhall.governance.views import EntryView, HandoffView, WrapUpResult
from memhall.policies.model import Action, PolicyRequest, ResourceType

HANDOFF_LATEST = 5
HANDOFF_LOOPS = 20

#: extra sections other modules add to a handoff (pending nominations, requests)
HandoffSection = Callable[[Connection, DomainStream], dict[str, list[dict[str, Any]]]]
handoff_sections: list[HandoffSection] = [promotion_records.pending_section, incubation.section]


def latest_state(conn: Connection, stream: DomainStream, limit: int = HANDOFF_LATEST) -> list[EntryView]:
    entries = stream.tables.entries
    rows = conn.execute(
        select(entries)
        .where(entries.c.kind.in_([k.value for k in HANDOFF_KINDS]), entries.c.status == "active")
        .order_by(entries.c.created_at.desc(), entries.c.created_position.desc())
        .limit(limit)
    )
    return [EntryView.from_row(stream.name, r) for r in rows]


def open_loops(conn: Connection, stream: DomainStream, limit: int = HANDOFF_LOOPS) -> list[EntryView]:
    entries = stream.tables.entries
    rows = conn.execute(
        select(entries)
        .where(entries.c.kind == Kind.OPEN_LOOP.value, entries.c.status == "active")
        .order_by(entries.c.created_at.desc(), entries.c.created_position.desc())
        .limit(limit)
    )
    return [EntryView.from_row(stream.name, r) for r in rows]


def handoff(hall: Hall, actor: str, domain: str, *, open_session: bool = True,
            limit: int = HANDOFF_LATEST) -> HandoffView:
    """Session start: where the domain was left, newest first; opens a session."""
    actor = principal_name(actor)
    stream, decision = hall.ask(actor, Action.HANDOFF, domain)
    session_id: str | None = None
    if open_session:
        with hall.writing(stream) as session:
            session_id = str(hall.open_session(session, stream, actor, decision.rule_id).id)
    with hall.store.read() as conn:
        extra: dict[str, list[dict[str, Any]]] = {}
        for section in handoff_sections:
            extra.update(section(conn, stream))
        extra.update(requests.open_requests_section(conn, stream, hall.clock()))
        return HandoffView(
            domain=stream.name,
            as_of=hall.clock(),
            session_id=session_id,
            latest=latest_state(conn, stream, limit),
            open_loops=open_loops(conn, stream),
            **extra,
        )


def wrap_up(
    hall: Hall,
    actor: str,
    domain: str,
    summary: str,
    *,
    session_id: str | None = None,
    pointers: Sequence[str] = (),
    closes: Sequence[UUID] = (),
    opens: Sequence[str] = (),
    idempotency_key: str | None = None,
) -> WrapUpResult:
    """Session end: an L2 wrap-up (short summary + pointers), loops opened and
    closed, the session wrapped up and closed, all in one transaction."""
    actor = principal_name(actor)
    if not summary.strip():
        raise InvalidValueError("a wrap-up needs a summary (--summary or stdin)")
    stream = hall.stream(domain, actor=actor, action=Action.WRAP_UP)
    with hall.writing(stream) as session:
        request = PolicyRequest(
            principal=actor, action=Action.WRAP_UP, domain=stream.name,
            resource_type=ResourceType.DOMAIN, target_layer=Layer.L2.value, kind=Kind.WRAP_UP.value,
        )
        decision = hall.authorize(session, stream, request)
        rule = decision.rule_id
        if idempotency_key is not None:
            earlier = _replayed_wrap_up(session, stream, summary, idempotency_key)
            if earlier is not None:
                return earlier
        if session_id:
            work: WorkSession = _session(stream, session_id)
        else:
            work = WorkSession.open(stream.name, actor, actor=actor, rule=rule)
        loops = [
            Entry.write(stream.name, draft(layer="L2", kind="open-loop", text=text,
                                           session_id=str(work.id)),
                        actor=actor, rule=rule, implanted=hall.implanted_confidence)
            for text in opens
        ]
        all_pointers = tuple(dict.fromkeys(
            [*pointers, *(str(loop.id) for loop in loops), *(str(c) for c in closes)]
        ))
        summary_entry = Entry.write(
            stream.name,
            draft(layer="L2", kind="wrap-up", text=summary.strip(),
                  session_id=str(work.id), pointers=all_pointers, idempotency_key=idempotency_key),
            actor=actor, rule=rule, implanted=hall.implanted_confidence,
        )
        closed: list[Entry] = []
        try:
            for loop_id in closes:
                loop: Entry = stream.get(loop_id, kind=Entry)
                loop.close_loop(summary_entry.id, f"closed by the wrap-up of session {work.id}",
                                actor=actor, rule=rule)
                closed.append(loop)
            work.wrap_up(summary_entry.id, actor=actor, rule=rule)
        except MemhallError as error:
            hall.refuse(session, stream, request, error, rule=rule)
        stream.save(session, work, *loops, *closed, summary_entry)
    return WrapUpResult(
        entry_id=str(summary_entry.id), session_id=str(work.id), domain=stream.name,
        closed_loops=[str(c.id) for c in closed], opened_loops=[str(l.id) for l in loops],
        pointers=list(all_pointers),
    )


def _replayed_wrap_up(session: Any, stream: DomainStream, summary: str, key: str) -> WrapUpResult | None:
    """A retried wrap-up (same key) returns what the first one recorded."""
    entries = stream.tables.entries
    row = session.execute(select(entries).where(entries.c.idempotency_key == key)).first()
    if row is None:
        return None
    if row.kind != Kind.WRAP_UP.value or row.text != summary.strip():
        raise InvalidValueError(f"idempotency key {key!r} was already used for entry {row.id} "
                                "with different content")
    loops = {r.id: r.session_id for r in session.execute(
        select(entries.c.id, entries.c.session_id)
        .where(entries.c.id.in_(row.pointers), entries.c.kind == Kind.OPEN_LOOP.value))}
    return WrapUpResult(
        entry_id=row.id, session_id=row.session_id or "", domain=stream.name,
        opened_loops=[p for p in row.pointers if p in loops and loops[p] == row.session_id],
        closed_loops=[p for p in row.pointers if p in loops and loops[p] != row.session_id],
        pointers=list(row.pointers), replayed=True,
    )


def _session(stream: DomainStream, session_id: str) -> WorkSession:
    try:
        ident = UUID(session_id)
    except ValueError:
        raise InvalidValueError(f"invalid session id {session_id!r}") from None
    try:
        found: WorkSession = stream.get(ident, "session", kind=WorkSession)
    except NotFoundError:
        raise NotFoundError("session", session_id) from None
    return found
