"""Inline projections: read models updated in the same transaction as the events.

`apply` is the one place that turns an event into rows; `Hall._save` calls it
for new events and `rebuild` calls it while replaying the log, which is why the
two can never disagree (a Hypothesis test checks it).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

from sqlalchemy import Connection, insert, text, update
from sqlalchemy.orm import Session

from memhall.domains.aggregate import DomainEvent
from memhall.domains.entry import Entry
from memhall.domains.records import DomainStream, Refusal
from memhall.domains.session import Session as WorkSession
from memhall.governance.tables import DomainTables

Db = Session | Connection
Handler = Callable[[Db, DomainTables, Any, int], None]

_handlers: dict[type[DomainEvent], Handler] = {}
#: the audit action an event stands for, when it is not the event's own name
_actions: dict[type[DomainEvent], Callable[[Any], tuple[str, str]]] = {}


def projects(*event_classes: type[DomainEvent]) -> Callable[[Handler], Handler]:
    """Register a handler for event classes (other modules add their own)."""

    def register(handler: Handler) -> Handler:
        for cls in event_classes:
            _handlers[cls] = handler
        return handler

    return register


def audits(
    event_class: type[DomainEvent],
) -> Callable[[Callable[[Any], tuple[str, str]]], Callable[[Any], tuple[str, str]]]:
    """Register how an event reads in the audit log: (action, layer)."""

    def register(fn: Callable[[Any], tuple[str, str]]) -> Callable[[Any], tuple[str, str]]:
        _actions[event_class] = fn
        return fn

    return register


def apply(db: Db, tables: DomainTables, event: DomainEvent, position: int) -> None:
    handler = _handlers.get(type(event))
    if handler is not None:
        handler(db, tables, event, position)
    _audit_row(db, tables, event, position)


def _dialect(db: Db) -> str:
    return db.get_bind().dialect.name if isinstance(db, Session) else db.dialect.name


def utc(moment: datetime) -> datetime:
    return moment.astimezone(timezone.utc)


def _audit_row(db: Db, tables: DomainTables, event: DomainEvent, position: int) -> None:
    describe = _actions.get(type(event))
    action, layer = describe(event) if describe else (type(event).__name__.lower(), "")
    refused = isinstance(event, Refusal.Recorded)
    detail = event.reason if isinstance(event, Refusal.Recorded) else ""
    resource = event.resource_id if isinstance(event, Refusal.Recorded) else str(event.originator_id)
    db.execute(
        insert(tables.audit), dict(
            position=position,
            at=utc(event.timestamp),
            actor=event.actor,
            action=action,
            decision="refused" if refused else "allowed",
            rule=event.rule,
            resource_id=resource,
            layer=layer,
            topic=type(event).TOPIC,
            detail=detail,
        )
    )


@projects(Entry.Written)
def _entry_written(db: Db, t: DomainTables, e: Entry.Written, position: int) -> None:
    at = utc(e.timestamp)
    db.execute(
        insert(t.entries), dict(
            id=str(e.originator_id),
            layer=e.layer.value,
            kind=e.kind.value,
            text=e.text,
            interpretation=e.interpretation,
            author=e.actor,
            session_id=e.session_id,
            status="active",
            state="influencing",
            confidence=e.confidence,
            source_kind=e.provenance.source_kind.value,
            source_agent_id=e.provenance.source_agent_id,
            claim_root_id=e.provenance.claim_root_id,
            evidence_refs=list(e.provenance.evidence_refs),
            people=list(e.tags.people),
            places=list(e.tags.places),
            topics=list(e.tags.topics),
            pending_requests=list(e.pending_requests),
            pointers=list(e.pointers),
            dedup_key=e.dedup_key,
            idempotency_key=e.idempotency_key,
            created_at=at,
            updated_at=at,
            created_position=position,
            position=position,
        )
    )
    body = " ".join([e.text, e.interpretation or "", *e.tags.people, *e.tags.places, *e.tags.topics])
    if _dialect(db) == "sqlite":
        db.execute(
            text(f"INSERT INTO {t.search_name} (entry_id, body) VALUES (:id, :body)"),
            {"id": str(e.originator_id), "body": body},
        )


def _touch(db: Db, t: DomainTables, e: DomainEvent, position: int, **values: Any) -> None:
    db.execute(
        update(t.entries)
        .where(t.entries.c.id == str(e.originator_id))
        .values(updated_at=utc(e.timestamp), position=position, **values)
    )


@projects(Entry.Superseded)
def _superseded(db: Db, t: DomainTables, e: Entry.Superseded, position: int) -> None:
    _touch(db, t, e, position, status="superseded", superseded_by=str(e.by_entry))


@projects(Entry.Retired)
def _retired(db: Db, t: DomainTables, e: Entry.Retired, position: int) -> None:
    _touch(db, t, e, position, status="retired")


@projects(Entry.OpenLoopClosed)
def _loop_closed(db: Db, t: DomainTables, e: Entry.OpenLoopClosed, position: int) -> None:
    _touch(db, t, e, position, status="closed")


@projects(Entry.Promoted, Entry.Demoted)
def _layer_changed(db: Db, t: DomainTables, e: Entry.Promoted | Entry.Demoted, position: int) -> None:
    _touch(db, t, e, position, layer=e.to_layer.value)


@projects(WorkSession.Opened)
def _session_opened(db: Db, t: DomainTables, e: WorkSession.Opened, position: int) -> None:
    db.execute(
        insert(t.sessions), dict(
            id=str(e.originator_id), principal=e.principal, opened_at=utc(e.timestamp), closed=False
        )
    )


@projects(WorkSession.WrappedUp)
def _session_wrapped(db: Db, t: DomainTables, e: WorkSession.WrappedUp, position: int) -> None:
    db.execute(
        update(t.sessions)
        .where(t.sessions.c.id == str(e.originator_id))
        .values(summary_entry=str(e.summary_entry))
    )


@projects(WorkSession.Closed)
def _session_closed(db: Db, t: DomainTables, e: WorkSession.Closed, position: int) -> None:
    db.execute(update(t.sessions).where(t.sessions.c.id == str(e.originator_id)).values(closed=True))


@audits(Entry.Written)
def _written_action(e: Entry.Written) -> tuple[str, str]:
    return (f"write_{e.layer.value.lower()}", e.layer.value)


@audits(Entry.Promoted)
def _promoted_action(e: Entry.Promoted) -> tuple[str, str]:
    return ("promote", e.to_layer.value)


@audits(Entry.Demoted)
def _demoted_action(e: Entry.Demoted) -> tuple[str, str]:
    return ("demote", e.to_layer.value)


def described_as(action: str) -> Callable[[Any], tuple[str, str]]:
    """An audit description for events whose action is fixed and name no layer."""
    return lambda event: (action, "")


for _event, _action in ((Entry.Retired, "retire"), (Entry.OpenLoopClosed, "close_loop"),
                        (Entry.Superseded, "supersede"), (WorkSession.Opened, "handoff"),
                        (WorkSession.WrappedUp, "wrap_up"), (WorkSession.Closed, "session_close"),
                        (DomainStream.Opened, "domain_create")):
    audits(_event)(described_as(_action))


@audits(Refusal.Recorded)
def _refusal_action(e: Refusal.Recorded) -> tuple[str, str]:
    return (e.action, e.layer)
