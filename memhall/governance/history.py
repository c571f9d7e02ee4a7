"""History: an entry and its events, full-text search, the domain's log.

Search is for history only: its results carry their layer and date, and the
view says plainly that they are not current state.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from sqlalchemy import Connection, select, text

from memhall.domains.errors import InvalidValueError, NotFoundError
from memhall.governance import fulltext, logged
from memhall.governance.exposure import held, holds_domain
from memhall.governance.hall import Hall
from memhall.governance.store import raw
from memhall.governance.streams import DomainStream
from memhall.governance.views import EntryView, EventView, SearchView, ShowView, as_utc
from memhall.policies.model import Action, ResourceType


#: the rule a seat's read of what it does not hold is refused under
HELD_ONLY = "seats-see-what-they-hold"
#: events a seat's log reads at a time while it filters them down to its own
_PAGE = 500


def entry_row(conn: Connection, stream: DomainStream, entry_id: UUID | str) -> EntryView | None:
    entries = stream.tables.entries
    row = conn.execute(select(entries).where(entries.c.id == str(entry_id))).first()
    return EntryView.from_row(stream.name, row) if row else None


def event_view(stream: DomainStream, record: Any) -> EventView:
    event = stream.mapper.to_domain_event(record)
    data = dict(getattr(event, "model_dump")(mode="json"))
    for key in ("originator_id", "originator_version", "timestamp", "originator_topic", "actor", "rule"):
        data.pop(key, None)
    return EventView(
        position=int(getattr(record, "id", 0) or 0),
        at=as_utc(getattr(event, "timestamp")),
        topic=str(record.topic),
        actor=str(getattr(event, "actor")),
        rule=str(getattr(event, "rule")),
        stream_id=str(record.originator_id),
        version=int(record.originator_version),
        data=data,
    )


def show(hall: Hall, actor: str, domain: str, entry_id: UUID) -> ShowView:
    stream, decision = hall.ask(actor, Action.READ, domain, resource_type=ResourceType.ENTRY,
                                resource_id=str(entry_id))
    actor = decision.request.principal
    with hall.store.read() as conn:
        at = logged.newest(raw(conn), stream.journal)  # before the row (`logged`)
        entry = entry_row(conn, stream, entry_id)
        if entry is None:
            raise NotFoundError("entry", entry_id)
        unheld = not holds_domain(hall.gate, actor, stream.name) and not held(conn, stream, actor, [entry.id])
        if not unheld:  # (one it may not see is refused below, whatever its row says)
            logged.require_served(raw(conn), stream, [entry], at=at)
        events = stream.tables
        rows = conn.execute(
            text(f"SELECT id, originator_id, originator_version, topic, state FROM {events.events_name} "
                 "WHERE originator_id = :oid ORDER BY originator_version"),
            {"oid": _uuid_param(hall, entry_id)},
        ).all()
    if unheld:
        # SPEC §6: a seat sees what it holds, never what it was not exposed to
        with hall.writing(stream) as session:
            hall.refuse(session, stream, decision.request, InvalidValueError(
                f"{actor} does not hold entry {entry_id}: it was never written by, told to or handed "
                f"to it [{HELD_ONLY}]"), rule=HELD_ONLY)
    return ShowView(entry=entry, history=[event_view(stream, _Record(r, hall)) for r in rows])


def _uuid_param(hall: Hall, ident: UUID) -> Any:
    # sqlalchemy-utils' UUIDType stores 16 raw bytes on SQLite, a uuid on PostgreSQL
    return ident.bytes if hall.store.dialect == "sqlite" else ident


def search(hall: Hall, actor: str, domain: str, query: str, limit: int = 20) -> SearchView:
    """History search: any word of the query (stemmed, stop words out), best match first,
    over what the actor holds (a seat: only what it was exposed to)."""
    stream, decision = hall.ask(actor, Action.SEARCH, domain)
    actor = decision.request.principal
    holder = None if holds_domain(hall.gate, actor, stream.name) else actor
    return SearchView(domain=stream.name, query=query,
                      results=lexical(hall, stream, query, limit, holder=holder))


def lexical(hall: Hall, stream: DomainStream, query: str, limit: int, *,
            holder: str | None = None) -> list[EntryView]:
    """Entries matching any word of `query`, best first (the analyser recall uses)."""
    if not fulltext.words_of(query):
        raise InvalidValueError("search needs at least one word")
    words = fulltext.terms_of(query)  # only stop words: nothing to rank by, nothing found
    entries = stream.tables.entries
    with hall.store.read() as conn:
        at = logged.newest(raw(conn), stream.journal)
        ids = [i for i, _ in fulltext.match(conn, stream.tables, hall.store.dialect, words,
                                            any_word=True, limit=limit, holder=holder)]
        rows = {r.id: r for r in conn.execute(select(entries).where(entries.c.id.in_(ids)))}
        found = [EntryView.from_row(stream.name, rows[i]) for i in ids if i in rows]
        logged.require_served(raw(conn), stream, found, at=at)
    return found


def log(hall: Hall, actor: str, domain: str, *, limit: int = 20, before: int | None = None) -> list[EventView]:
    """The domain's events, newest first, a page at a time; a seat sees the events of the
    entries it holds and its own acts, nothing else."""
    if limit < 1:
        raise InvalidValueError("--limit must be at least 1")
    stream, decision = hall.ask(actor, Action.READ, domain)
    actor = decision.request.principal
    whole = holds_domain(hall.gate, actor, stream.name)
    sql = f"SELECT id, originator_id, originator_version, topic, state FROM {stream.tables.events_name}"
    found: list[EventView] = []
    with hall.store.read() as conn:
        while len(found) < limit:
            page = limit if whole else _PAGE
            params: dict[str, Any] = {"n": page}
            where = ""
            if before is not None:
                where = " WHERE id < :before"
                params["before"] = before
            rows = conn.execute(text(sql + where + " ORDER BY id DESC LIMIT :n"), params).all()
            views = [event_view(stream, _Record(r, hall)) for r in rows]
            if not whole:
                mine = held(conn, stream, actor, [v.stream_id for v in views])
                views = [v for v in views if v.stream_id in mine or v.actor == actor]
            found += views
            if whole or len(rows) < page:
                break
            before = int(rows[-1].id)
    return found[:limit]


class _Record:
    """A raw events row, with its originator id decoded, as the mapper expects."""

    def __init__(self, row: Any, hall: Hall) -> None:
        self.id = row.id
        raw = row.originator_id
        self.originator_id = UUID(bytes=bytes(raw)) if isinstance(raw, (bytes, memoryview)) else UUID(str(raw))
        self.originator_version = row.originator_version
        self.topic = row.topic
        self.state = bytes(row.state) if isinstance(row.state, memoryview) else row.state
