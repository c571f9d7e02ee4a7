"""Sessions keyed by a coding agent's own session id, and the one draft wrap-up each keeps.

An agent's hooks know the agent's session id, not memhall's. Rather than store
a mapping, the memhall session id is derived from a key (agent, agent session,
domain, principal) with uuid5: the end hook finds the session again by
recomputing it, and a second start of the same agent session (resume, or the
start that follows a compaction) finds it open and opens nothing. A key whose
session was closed and then resumed moves to its next generation.

The draft is one L1 `wrap-up` entry per session, rewritten as the agent's turns
end: each new draft supersedes the previous one, so one stays active; the
session's real wrap-up supersedes the last draft when the session closes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any
from uuid import UUID

from sqlalchemy import select

from memhall.domains.entry import draft
from memhall.domains.errors import InvalidValueError, NotFoundError
from memhall.domains.session import Session as WorkSession
from memhall.domains.values import Kind, Layer, principal_name
from memhall.governance import sessions
from memhall.governance.hall import Hall
from memhall.governance.keyed import GENERATIONS, keyed_ids, session_key
from memhall.governance.streams import DomainStream
from memhall.governance.views import EntryView, WrapUpResult, WriteResult, as_utc
from memhall.policies.model import Action

__all__ = ["GENERATIONS", "keyed_ids", "session_key"]
DRAFT_KEY = "hook-draft:"
WRAP_UP_KEY = "hook-wrap-up:"
_DRAFT_HEADER = re.compile(r"^\[draft \d+ of session [0-9a-f]{8}\] ")


@dataclass(frozen=True)
class KeyedSession:
    id: str
    generation: int
    opened_at: datetime
    closed: bool
    summary_entry: str | None = None
    #: True when this start found the session already open and opened nothing
    reused: bool = False


def latest(db: Any, stream: DomainStream, key: str) -> KeyedSession | None:
    """The newest generation of the key's session that exists, if any."""
    ids = [str(i) for i in keyed_ids(key)]
    t = stream.tables.sessions
    rows = {r.id: r for r in db.execute(select(t).where(t.c.id.in_(ids)))}
    for generation in reversed(range(GENERATIONS)):
        row = rows.get(ids[generation])
        if row is not None:
            return KeyedSession(id=row.id, generation=generation, opened_at=as_utc(row.opened_at),
                                closed=bool(row.closed), summary_entry=row.summary_entry)
    return None


def open_keyed(hall: Hall, actor: str, domain: str, key: str) -> KeyedSession:
    """Open the key's session, or find it open: a second start opens nothing."""
    actor = principal_name(actor)
    stream, decision = hall.ask(actor, Action.HANDOFF, domain)
    with hall.writing() as session:
        stream.lock(session)
        current = latest(session, stream, key)
        if current is not None and not current.closed:
            return replace(current, reused=True)
        generation = 0 if current is None else current.generation + 1
        if generation >= GENERATIONS:
            raise InvalidValueError(f"this agent session was reopened {GENERATIONS} times; start a new one")
        # eventsourcing's own way to create an aggregate with a given id
        work = WorkSession._create(WorkSession.Opened, id=keyed_ids(key)[generation],
                                   domain=stream.name, principal=actor, actor=actor,
                                   rule=decision.rule_id)
        stream.save(session, work)
    return KeyedSession(id=str(work.id), generation=generation, opened_at=hall.clock(), closed=False)


def find_keyed(hall: Hall, actor: str, domain: str, key: str) -> tuple[DomainStream, KeyedSession]:
    stream, _ = hall.ask(principal_name(actor), Action.READ, domain)
    with hall.store.read() as conn:
        found = latest(conn, stream, key)
    if found is None:
        raise NotFoundError("memhall session", "opened for this agent session (did session-start run?)")
    return stream, found


def current_draft(db: Any, stream: DomainStream, session_id: str) -> tuple[EntryView | None, int]:
    """The session's active draft, and how many drafts it has had."""
    t = stream.tables.entries
    # kind first: the (kind, status, created_at) index narrows the scan
    rows = db.execute(select(t).where(t.c.kind == Kind.WRAP_UP.value, t.c.session_id == session_id,
                                      t.c.idempotency_key.like(f"{DRAFT_KEY}{session_id}:%"))
                      .order_by(t.c.created_position)).all()
    active = [r for r in rows if r.status == "active"]
    view = EntryView.from_row(stream.name, active[-1]) if active else None
    return view, len(rows)


def draft_body(text: str) -> str:
    return _DRAFT_HEADER.sub("", text, count=1)


def save_draft(hall: Hall, actor: str, domain: str, key: str, body: str) -> WriteResult | None:
    """Rewrite the key's draft wrap-up; the same body again writes nothing."""
    body = body.strip()
    if not body:
        return None
    stream, keyed = find_keyed(hall, actor, domain, key)
    if keyed.closed:
        return None
    with hall.store.read() as conn:
        active, count = current_draft(conn, stream, keyed.id)
    if active is not None and draft_body(active.text) == body:
        return None
    number = count + 1
    # The header keeps each draft's text its own: without it the hall's dedup
    # would take a draft equal to an earlier one (of any session) as that one.
    entry = draft(layer=Layer.L1.value, kind=Kind.WRAP_UP.value,
                  text=f"[draft {number} of session {keyed.id[:8]}] {body}",
                  session_id=keyed.id, idempotency_key=f"{DRAFT_KEY}{keyed.id}:{number}")
    return hall.write(actor, domain, entry, supersedes=UUID(active.id) if active else None)


@dataclass(frozen=True)
class Closing:
    session_id: str
    wrap_up: WrapUpResult | None
    #: the draft the wrap-up superseded, if there was one
    draft_id: str | None


def close_keyed(hall: Hall, actor: str, domain: str, key: str, summary: str | None,
                pointers: tuple[str, ...] = ()) -> Closing:
    """Wrap up and close the key's session, then let the wrap-up supersede the
    draft. A session already closed (the agent wrapped up itself) only has its
    draft superseded by the wrap-up it recorded. With no summary (the session
    left nothing to hand over) it is closed without a wrap-up
    (`sessions.close_unwrapped`)."""
    stream, keyed = find_keyed(hall, actor, domain, key)
    result: WrapUpResult | None = None
    summary_entry = keyed.summary_entry
    if not keyed.closed and summary is None:
        sessions.close_unwrapped(hall, actor, domain, keyed.id)
    elif not keyed.closed and summary is not None:
        result = sessions.wrap_up(hall, actor, domain, summary, session_id=keyed.id, pointers=pointers,
                                  idempotency_key=f"{WRAP_UP_KEY}{keyed.id}")
        summary_entry = result.entry_id
    with hall.store.read() as conn:
        active, _ = current_draft(conn, stream, keyed.id)
    if active is not None and summary_entry:
        by = UUID(summary_entry)
        # Superseding is governed on the target: may an L2 wrap-up replace this draft?
        hall.entry_action(actor, domain, UUID(active.id), Action.SUPERSEDE,
                          lambda e, d: e.supersede(by, actor=d.request.principal, rule=d.rule_id),
                          target_layer=Layer.L2.value)
    return Closing(session_id=keyed.id, wrap_up=result, draft_id=active.id if active else None)
