"""A single write prepared before its domain's lock, and committed under it if nothing it
depended on changed meanwhile (optimistic; otherwise the write is decided again under the lock).

On PostgreSQL the writers of one domain take turns on its head row (`Journal.held`), so
whatever a write does while holding it runs on one core at most, however many writers
wait. Most of a plain write depends on the draft alone: its policy decision, its checks,
the entry and its event, the seal. That is done here, first, under the charter this
process last read (`Seal.known`). Under the lock the write checks what the preparation
took for granted — the domain's charter is still that one (its last event, read in the
lock's own round trip), the draft repeats no active entry and no idempotency key — and
only then appends, taking its position, chain link and timestamp there (`restamped`),
so the log's times never run backwards within a domain: readers order by either.

On PostgreSQL, outside a transaction a caller opened, those checks are the statement's own
and the lock, the append and the commit go in one round trip (`at_once`, `commit_at_once`):
the lock is held for the server's work alone; a check that fails there sends the write here.

Anything else (a supersede, a claim to weigh, a pending mark, an explicit confidence, a
refusal, and on SQLite a first write before this process has read the charter) is decided
under the lock, as `Hall.write` always did.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, NamedTuple

from pydantic import TypeAdapter
from sqlalchemy import Connection

from memhall.domains.charter import Charter
from memhall.domains.dynamics.encoding import EncodingRecord
from memhall.domains.entry import Entry, EntryDraft
from memhall.domains.values import Layer
from memhall.governance import at_once
from memhall.governance.journal import NewEvent
from memhall.governance.store import raw
from memhall.governance.streams import DomainStream
from memhall.governance.views import WriteResult
from memhall.policies.model import Decision, PolicyRequest

if TYPE_CHECKING:
    from memhall.governance.hall import Hall

_TIME = TypeAdapter(datetime)


class Prepared(NamedTuple):
    """A write made ready before the lock, and what it was made under."""

    entry: Entry
    events: list[NewEvent]
    decision: Decision
    charter: Charter
    dedup_key: str


def prepare(hall: Hall, stream: DomainStream, request: PolicyRequest, entry: EntryDraft,
            encoding: EncodingRecord) -> Prepared | None:
    """The write of a new entry, ready to append, when it can be decided without the log;
    None when it must be decided under the lock (see the module's docstring)."""
    seal = hall.seal
    if seal is None or not plain(entry) or entry.foreign_thread(request.principal) is not None:
        return None
    charter = seal.known(stream.name)
    if charter is None and at_once.may(hall.store):
        # a process's first write (a CLI command's only one): the charter read here, not under
        # the lock, which the write then takes in the round trip of its append (`at_once`)
        charter = seal.current(stream)
    if charter is None or charter.digest != seal.digest:
        return None
    with seal.assumed(stream.name, charter):
        decision = hall.decide(stream, request)
    if not decision.allowed:
        return None
    key = entry.dedup_key()
    new = Entry.write(stream.name, entry, actor=request.principal, rule=decision.rule_id,
                      implanted=hall.implanted_confidence, encoding=encoding, dedup_key=key)
    events = []
    for event in new.collect_events():
        topic, state = stream.mapper.state(event)
        events.append(NewEvent(event.originator_id, event.originator_version, topic, state, b""))
    sealed = seal.stamped(stream, events, charter)
    return None if sealed is None else Prepared(new, sealed, decision, charter, key)


def plain(entry: EntryDraft) -> bool:
    """A draft whose write depends on nothing but the charter, dedup and idempotency: no
    pending mark (open requests), no claim root (its evidence), no explicit confidence
    (capped by provenance, for hearsay by trust) and a layer one may write at."""
    return (entry.layer in (Layer.L1, Layer.L2) and not entry.pending_requests
            and not entry.provenance.claim_root_id and entry.confidence is None)


def holds(hall: Hall, session: Connection, stream: DomainStream, prepared: Prepared,
          idempotency_key: str | None) -> bool:
    """Under the domain's lock: whether what the preparation took for granted is still so."""
    assert hall.seal is not None  # a write is prepared only under a seal
    if hall.seal.current(stream) is not prepared.charter:  # the charter's last event moved
        return False
    if stream.live_entries(session, [prepared.dedup_key]):
        return False  # a duplicate (or what looks like one) came first: decided under the lock
    return idempotency_key is None or not stream.replays(session, [idempotency_key])


def commit(hall: Hall, session: Connection, stream: DomainStream, prepared: Prepared) -> WriteResult:
    """Append the prepared events under the lock, stamped with the time they take their place."""
    stream.journal.append(raw(session), restamped(prepared.events, Entry.Written.create_timestamp(), stream),
                          commit=hall.store.may_commit_early())
    return written(stream, prepared)


def commit_at_once(hall: Hall, stream: DomainStream, prepared: Prepared,
                   idempotency_key: str | None) -> WriteResult | None:
    """PostgreSQL, outside any transaction: the prepared write locked, checked, appended and
    committed in one round trip (`at_once`); None when it was not written (it is then decided
    under the lock, as `holds` and `commit` do)."""
    store, seal = hall.store, hall.seal
    if not at_once.may(store) or seal is None or len(prepared.events) != 1:
        return None
    last = seal.known_last(stream.name, prepared.charter)
    if last is None:
        return None
    event = restamped(prepared.events, at_once.STAND_IN_TIME, stream)[0]
    with store.write() as session:
        position = at_once.append(stream.journal, raw(session), event, now=Entry.Written.create_timestamp(),
                                  charter=seal.charter_ident(stream.name),
                                  charter_last=last, dedup_key=prepared.dedup_key,
                                  idempotency_key=idempotency_key)
    return None if position is None else written(stream, prepared)


def written(stream: DomainStream, prepared: Prepared) -> WriteResult:
    return WriteResult(entry_id=str(prepared.entry.id), domain=stream.name,
                       layer=prepared.entry.layer.value, rule=prepared.decision.rule_id)


def restamped(events: list[NewEvent], now: datetime, stream: DomainStream) -> list[NewEvent]:
    """The events as recorded now: their time is the time they are appended, under the lock,
    as when they were made there (the chain and every projection read it from the bytes)."""
    stamp: Any = _TIME.dump_python(now, mode="json")
    out = []
    for event in events:
        state = {**event.state, "timestamp": stamp}
        out.append(NewEvent(event.originator_id, event.version, event.topic, state,
                            stream.mapper.transcoder.encode(state)))
    return out
