"""Session start and end: handoff reads the latest state, wrap-up records it.

Handoff never ranks by similarity: it takes the latest `state` / `wrap-up` /
`handoff` entry of each open thread by time (`memhall.governance.threads`: an
index seek per thread, so its cost does not grow with the domain), the L1
candidates apart from them, then the open loops.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

from sqlalchemy import Connection, select

from memhall.domains.entry import Entry, draft
from memhall.domains.errors import InvalidValueError, MemhallError, NotFoundError
from memhall.domains.session import Session as WorkSession
from memhall.domains.values import HANDOFF_KINDS, Kind, Layer, clean_text, principal_name
from memhall.domains.moments import iso
from memhall.governance import logged, threads, waiting
from memhall.governance.hall import Hall
from memhall.governance.store import raw
from memhall.governance.streams import DomainStream
from memhall.governance.views import EntryView, HandoffView, StateView, TopicValue, WrapUpResult
from memhall.governance.write_checks import check_thread
from memhall.policies.model import Action, PolicyRequest, ResourceType

HANDOFF_LATEST = threads.HANDOFF_LATEST
#: a wrap-up summary stays short; longer text goes into entries it points to
SUMMARY_CHARS = 1000
HANDOFF_LOOPS = threads.HANDOFF_LOOPS
STATE_LIMIT = 100
#: a handoff within this time of the actor's last one continues that session
SESSION_REUSE = timedelta(minutes=30)



def _reader(conn: Connection, stream: DomainStream) -> threads.Reader:
    return threads.Reader(raw(conn), stream.tables.prefix, conn.dialect.name)


def latest_state(conn: Connection, stream: DomainStream, limit: int = HANDOFF_LATEST) -> list[EntryView]:
    """The latest L2+ state of each open thread, newest first."""
    return [EntryView.of(stream.name, r) for r in threads.latest(_reader(conn, stream), limit=limit)]


def open_loops(conn: Connection, stream: DomainStream, limit: int = HANDOFF_LOOPS) -> list[EntryView]:
    return [EntryView.of(stream.name, r) for r in threads.open_loops(_reader(conn, stream), limit=limit)]


def reusable_session(conn: Connection, stream: DomainStream, actor: str, now: datetime,
                     named: str | None = None) -> str | None:
    """The actor's open session a handoff continues (`threads.reusable_session`)."""
    return threads.reusable_session(_reader(conn, stream), actor, iso(now - SESSION_REUSE), named)


def handoff(hall: Hall, actor: str, domain: str, *, open_session: bool = True,
            limit: int = HANDOFF_LATEST, session_id: str | None = None) -> HandoffView:
    """Session start: the latest state of each open thread, newest first, then L1
    candidates and open loops; opens a session, or continues the actor's open one."""
    actor = principal_name(actor)
    stream, decision = hall.ask(actor, Action.HANDOFF, domain)
    now = hall.clock()
    with hall.store.read() as conn:
        at = logged.newest(raw(conn), stream.journal)  # before the rows (`logged`)
        reader = _reader(conn, stream)
        view = HandoffView.model_validate({
            "domain": stream.name, "as_of": now,
            "latest": [EntryView.of(stream.name, r) for r in threads.latest(reader, limit=limit)],
            "candidates": [EntryView.of(stream.name, r) for r in threads.candidates(reader, limit=limit)],
            "open_loops": [EntryView.of(stream.name, r)
                           for r in threads.open_loops(reader, limit=HANDOFF_LOOPS)],
            **waiting.sections(reader, stream.name, now),
        })
        logged.require_served(raw(conn), stream, (*view.latest, *view.candidates, *view.open_loops), at=at)
    if not open_session:
        return view
    handed = tuple(dict.fromkeys(e.id for e in (*view.latest, *view.candidates, *view.open_loops)))
    with hall.writing(stream) as session:
        opened = reusable_session(session, stream, actor, now, session_id)
        reused = opened is not None
        if opened is None:
            work = WorkSession.open(stream.name, actor, actor=actor, rule=decision.rule_id, handed=handed)
            stream.save(session, work)
            opened = str(work.id)
    return view.model_copy(update={"session_id": opened, "session_reused": reused})


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
    thread: str | None = None,
    max_chars: int = SUMMARY_CHARS,
) -> WrapUpResult:
    """Session end: an L2 wrap-up (short summary + pointers) that supersedes the
    previous wrap-up of its thread, loops opened and closed, the session wrapped
    up and closed, all in one transaction. It says which of the thread's open
    loops it does not mention and which pointers name closed or unknown entries."""
    actor = principal_name(actor)
    if not summary.strip():
        raise InvalidValueError("a wrap-up needs a summary (--summary or stdin)")
    for value, what in ((session_id, "session id"), (idempotency_key, "idempotency key")):
        if value is not None:
            clean_text(value, what)  # looked up before anything is stored
    stream = hall.stream(domain, actor=actor, action=Action.WRAP_UP)
    with hall.writing(stream) as session:
        request = _wrap_up_request(stream, actor)
        decision = hall.authorize(session, stream, request)
        rule = decision.rule_id
        check_thread(hall.refusals, session, stream, request, thread, actor)
        if idempotency_key is not None:
            earlier = _replayed_wrap_up(session, stream, summary, idempotency_key)
            if earlier is not None:
                return earlier
        if len(summary.strip()) > max_chars:
            hall.refuse(session, stream, request, InvalidValueError(
                f"the summary is {len(summary.strip())} characters, over the {max_chars} a wrap-up keeps: "
                "write the detail as entries (memhall write …) and point to them with --pointer ID"
            ), rule="wrap-up-stays-short")
        if session_id:
            work: WorkSession = _session(stream, session_id)
        else:
            work = WorkSession.open(stream.name, actor, actor=actor, rule=rule)
        name = thread or f"@{actor}"
        loops = [
            Entry.write(stream.name, draft(layer="L2", kind="open-loop", text=text,
                                           session_id=str(work.id), thread=name),
                        actor=actor, rule=rule, implanted=hall.implanted_confidence)
            for text in opens
        ]
        all_pointers = tuple(dict.fromkeys(
            [*pointers, *(str(loop.id) for loop in loops), *(str(c) for c in closes)]
        ))
        summary_entry = Entry.write(
            stream.name,
            draft(layer="L2", kind="wrap-up", text=summary.strip(), thread=name,
                  session_id=str(work.id), pointers=all_pointers, idempotency_key=idempotency_key),
            actor=actor, rule=rule, implanted=hall.implanted_confidence,
        )
        drift = _drift(session, stream, name, pointers, closes)
        previous = _previous_wrap_ups(session, stream, name)
        closed: list[Entry] = []
        superseded: list[Entry] = []
        try:
            for loop_id in closes:
                loop: Entry = stream.get(loop_id, kind=Entry)
                loop.close_loop(summary_entry.id, f"closed by the wrap-up of session {work.id}",
                                actor=actor, rule=rule)
                closed.append(loop)
            for earlier_id in previous:
                earlier_entry: Entry = stream.get(UUID(earlier_id), kind=Entry)
                earlier_entry.supersede(summary_entry.id, actor=actor, rule=rule)
                superseded.append(earlier_entry)
            work.wrap_up(summary_entry.id, actor=actor, rule=rule)
        except MemhallError as error:
            hall.refuse(session, stream, request, error, rule=rule)
        stream.save(session, work, *loops, *closed, *superseded, summary_entry)
    return WrapUpResult(
        entry_id=str(summary_entry.id), session_id=str(work.id), domain=stream.name, thread=name,
        closed_loops=[str(c.id) for c in closed], opened_loops=[str(l.id) for l in loops],
        pointers=list(all_pointers), superseded=[str(e.id) for e in superseded],
        unmentioned_loops=drift["unmentioned_loops"], closed_pointers=drift["closed_pointers"],
        unknown_pointers=drift["unknown_pointers"],
    )


def close_unwrapped(hall: Hall, actor: str, domain: str, session_id: str) -> None:
    """End a session that left nothing to hand over, with no wrap-up: a placeholder saying so
    would supersede its thread's last wrap-up and stand in every handoff as where work was left.
    Decided as a wrap-up is (and refused, recorded, where one would be); `Session.Closed` alone
    in the log says it ended."""
    actor = principal_name(actor)
    clean_text(session_id, "session id")
    stream = hall.stream(domain, actor=actor, action=Action.WRAP_UP)
    with hall.writing(stream) as session:
        request = _wrap_up_request(stream, actor)
        rule = hall.authorize(session, stream, request).rule_id
        work = _session(stream, session_id)
        try:
            work.close(actor=actor, rule=rule)
        except MemhallError as error:
            hall.refuse(session, stream, request, error, rule=rule)
        stream.save(session, work)


def _wrap_up_request(stream: DomainStream, actor: str) -> PolicyRequest:
    return PolicyRequest(principal=actor, action=Action.WRAP_UP, domain=stream.name,
                         resource_type=ResourceType.DOMAIN, target_layer=Layer.L2.value,
                         kind=Kind.WRAP_UP.value)


def _previous_wrap_ups(session: Connection, stream: DomainStream, thread: str) -> list[str]:
    """The thread's active L2 wrap-ups (normally one): the new one supersedes them.
    L1 drafts stay for their own session to supersede; L3/L4 are not the writer's to replace."""
    e = stream.tables.entries
    return [str(r[0]) for r in session.execute(
        select(e.c.id).where(e.c.thread == thread, e.c.status == "active",
                             e.c.kind == Kind.WRAP_UP.value, e.c.layer == Layer.L2.value))]


def _drift(session: Connection, stream: DomainStream, thread: str, pointers: Sequence[str],
           closes: Sequence[UUID]) -> dict[str, list[str]]:
    """Double-write drift between the wrap-up and the thread's open loops (seed 002): the
    loops it does not mention, and the pointers that name closed or unknown entries."""
    reader = _reader(session, stream)
    mentioned = {*pointers, *(str(c) for c in closes)}
    loops = threads.open_loops(reader, limit=1000, thread=thread)
    named = reader.entries([p for p in dict.fromkeys(pointers) if _is_uuid(p)])
    return {
        "unmentioned_loops": [r["id"] for r in loops if r["id"] not in mentioned],
        "closed_pointers": [p for p in dict.fromkeys(pointers) if p in named and named[p]["status"] != "active"],
        "unknown_pointers": [p for p in dict.fromkeys(pointers) if p not in named],
    }


def _is_uuid(text: str) -> bool:
    try:
        UUID(text)
    except ValueError:
        return False
    return True


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


def current_state(hall: Hall, actor: str, domain: str, *, topic: str | None = None,
                  limit: int = STATE_LIMIT) -> StateView:
    """The current value of each topic (thread): its latest L2+ state, and a newer L1
    candidate beside it when there is one; of one topic when given."""
    actor = principal_name(actor)
    stream, _ = hall.ask(actor, Action.READ, domain)
    # topics are stored lowercase; a --thread name as given
    wanted = None if topic is None else list(dict.fromkeys([topic, topic.strip().lower()]))
    with hall.store.read() as conn:
        at = logged.newest(raw(conn), stream.journal)
        reader = _reader(conn, stream)
        values = threads.latest(reader, limit=limit, threads=wanted)
        proposed = threads.candidates(reader, limit=limit, threads=[r["thread"] for r in values])
        logged.require(raw(conn), stream.journal, stream.tables.entries.name, [*values, *proposed], at=at)
    newer = {r["thread"]: r for r in proposed}
    return StateView(domain=stream.name, topic=topic, values=[
        TopicValue(topic=r["thread"], entry=EntryView.of(stream.name, r),
                   candidate=EntryView.of(stream.name, newer[r["thread"]])
                   if r["thread"] in newer and newer[r["thread"]]["created_position"] > r["created_position"]
                   else None)
        for r in values])
