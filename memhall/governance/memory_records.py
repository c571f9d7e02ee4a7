"""Reading memories as the dynamics see them: MemoryRecords from the read models.

A record joins an entry with its recorded encoding (its emotion) and, for one
holder, its reviews: the exposure rows of the calls that handed it out
(materialize, an answer, a handoff, a recall), one per call — never a row
written for the purpose. `causes` are the entry's evidence refs (a consolidation
note's are its sources); a dynamic's own proposals are told apart by the
idempotency key the hall gave them (`consolidation:…`, `wandering:…`).
Everything here is a read of rows the log accounts for (`audit verify`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

from sqlalchemy import ColumnElement, Connection, Select, and_, select, text

from memhall.domains.dynamics.encoding import Emotion
from memhall.domains.dynamics.record import CONSOLIDATION, WANDERING, MemoryRecord
from memhall.domains.values import BeliefState, Kind, Status
from memhall.governance.exposure import held_clause, holds_domain
from memhall.governance.streams import DomainStream
from memhall.governance.views import as_utc

#: exposure routes that are a review: the memory was handed out and used
REVIEWS = ("materialize", "answer", "handoff", "recall")
#: idempotency-key prefixes of the dynamics' proposals
SOURCES = (CONSOLIDATION, WANDERING)
_CHUNK = 500


@dataclass(frozen=True)
class Scope:
    """Whose memory is read: an observer, who holds either the whole domain (by role)
    or the entries exposure lists for it."""

    observer: str
    whole: bool

    @classmethod
    def of(cls, gate: object, observer: str, domain: str) -> Scope:
        return cls(observer, holds_domain(gate, observer, domain))


def source_of(idempotency_key: str | None, author: str) -> str:
    """`consolidation` or `wandering` for a dynamic's proposal, else the author."""
    prefix = (idempotency_key or "").partition(":")[0]
    return prefix if prefix in SOURCES and idempotency_key != prefix else author


def _columns(stream: DomainStream) -> Select[Any]:
    e, c = stream.tables.entries, stream.tables.encodings
    return select(
        e.c.id, e.c.text, e.c.occurred_at, e.c.kind, e.c.people, e.c.places, e.c.topics,
        e.c.confidence, e.c.state, e.c.status, e.c.idempotency_key, e.c.author, e.c.evidence_refs,
        c.c.emotion,
    ).select_from(e.outerjoin(c, c.c.entry_id == e.c.id))


def _record(row: Any, reviews: Sequence[datetime]) -> MemoryRecord:
    emotion = row.emotion or {}
    text_ = str(row.text)
    # rows come from the hall's own projection (tags already in normal form): no re-validation
    return MemoryRecord.model_construct(
        id=str(row.id), text=text_, occurred_at=as_utc(row.occurred_at), kind=Kind(row.kind),
        people=tuple(row.people or ()), places=tuple(row.places or ()), topics=tuple(row.topics or ()),
        emotion=Emotion.model_construct(
            valence=float(emotion.get("valence", 0.0)), arousal=float(emotion.get("arousal", 0.0)),
            tags=tuple(emotion.get("tags", ())), significance=float(emotion.get("significance", 0.0))),
        confidence=int(row.confidence), trust=1.0, source=source_of(row.idempotency_key, str(row.author)),
        state=BeliefState(row.state), status=Status(row.status), reviews=tuple(sorted(reviews)),
        causes=tuple(row.evidence_refs or ()), contradicts=(),
        open_question=row.kind == Kind.OPEN_LOOP.value and text_.rstrip().endswith(("?", "？")),
    )


def _held(stream: DomainStream, scope: Scope | None) -> list[ColumnElement[bool]]:
    if scope is None or scope.whole:
        return []
    return [held_clause(stream, scope.observer)]


def reviews(conn: Connection, stream: DomainStream, scope: Scope | None,
            ids: Iterable[str] | None = None) -> dict[str, list[datetime]]:
    """When each memory was handed out; for a scope, to its observer only; `ids` None: all."""
    x = stream.tables.exposure
    where: list[ColumnElement[bool]] = [x.c.via.in_(REVIEWS)]
    if scope is not None:
        where.append(x.c.holder == scope.observer)
    found: dict[str, list[datetime]] = defaultdict(list)
    chunks = [None] if ids is None else _chunks(ids)
    for chunk in chunks:
        clause = where if chunk is None else [*where, x.c.entry_id.in_(chunk)]
        for entry_id, at in conn.execute(select(x.c.entry_id, x.c.at).where(and_(*clause))):
            found[str(entry_id)].append(as_utc(at))
    return found


def by_ids(conn: Connection, stream: DomainStream, scope: Scope | None,
           ids: Iterable[str]) -> dict[str, MemoryRecord]:
    """The records of `ids` (those that exist), with the scope's reviews."""
    wanted = list(dict.fromkeys(ids))
    rows: list[Any] = []
    e = stream.tables.entries
    for chunk in _chunks(wanted):
        rows.extend(conn.execute(_columns(stream).where(e.c.id.in_(chunk))))
    seen = reviews(conn, stream, scope, wanted)
    return {str(r.id): _record(r, seen.get(str(r.id), ())) for r in rows}


def held_records(conn: Connection, stream: DomainStream, scope: Scope | None, *,
                 active_only: bool = True) -> list[MemoryRecord]:
    """Every memory the scope holds (the whole domain for a chair or None), by id."""
    e = stream.tables.entries
    where = _held(stream, scope) + ([e.c.status == Status.ACTIVE.value] if active_only else [])
    rows = list(conn.execute(_columns(stream).where(*where).order_by(e.c.id)))
    seen = reviews(conn, stream, scope)
    return [_record(r, seen.get(str(r.id), ())) for r in rows]


def episodes_since(conn: Connection, stream: DomainStream, scope: Scope | None,
                   start: datetime) -> list[MemoryRecord]:
    """Active episodes recorded since `start` (occurred_at is never later than recorded,
    so this holds every episode that occurred since; the caller filters on occurred_at)."""
    e = stream.tables.entries
    where = [e.c.kind == Kind.EPISODE.value, e.c.status == Status.ACTIVE.value, e.c.created_at >= start,
             *_held(stream, scope)]
    rows = list(conn.execute(_columns(stream).where(*where).order_by(e.c.id)))
    seen = reviews(conn, stream, scope, [str(r.id) for r in rows])
    return [_record(r, seen.get(str(r.id), ())) for r in rows]


def proposals(conn: Connection, stream: DomainStream, source: str, *,
              limit: int | None = None) -> list[MemoryRecord]:
    """Active entries a dynamic proposed (by key prefix, over the key's unique index)."""
    e = stream.tables.entries
    query = _columns(stream).where(e.c.idempotency_key >= f"{source}:", e.c.idempotency_key < f"{source};",
                                   e.c.status == Status.ACTIVE.value).order_by(e.c.idempotency_key)
    if limit is not None:
        query = query.limit(limit)
    return [_record(r, ()) for r in conn.execute(query)]


def proposal_keys(conn: Connection, stream: DomainStream, source: str) -> set[str]:
    """Every key a dynamic has used, whatever became of its entry since (retired, promoted)."""
    e = stream.tables.entries
    query = select(e.c.idempotency_key).where(e.c.idempotency_key >= f"{source}:",
                                              e.c.idempotency_key < f"{source};")
    return {str(k) for (k,) in conn.execute(query)}


def recent(conn: Connection, stream: DomainStream, scope: Scope, n: int) -> list[MemoryRecord]:
    """About the observer's `n` newest memories (for the mood): a chair's are the domain's
    newest writes, read backwards along the log; anyone else's the newest that reached it."""
    if scope.whole:
        rows = conn.execute(text(
            f"SELECT originator_id FROM {stream.tables.events_name} "
            "WHERE topic = 'memhall.Entry.Written' ORDER BY id DESC LIMIT :k"), {"k": 2 * n}).all()
        ids = [str(UUID(bytes=bytes(r[0])) if isinstance(r[0], (bytes, memoryview)) else r[0]) for r in rows]
    else:
        x = stream.tables.exposure
        ids = [str(r[0]) for r in conn.execute(
            select(x.c.entry_id).where(x.c.holder == scope.observer)
            .order_by(x.c.position.desc()).limit(4 * n))]
    found = by_ids(conn, stream, None, ids)
    return [found[i] for i in dict.fromkeys(ids) if i in found]


def nudge_sums(conn: Connection, stream: DomainStream, holder: str,
               ids: Iterable[str]) -> dict[str, dict[str, float]]:
    """Each memory's reconsolidation deltas for `holder`, added up in log order."""
    n = stream.tables.nudges
    sums: dict[str, dict[str, float]] = {}
    for chunk in _chunks(ids):
        query = (select(n.c.entry_id, n.c.deltas).where(n.c.holder == holder, n.c.entry_id.in_(chunk))
                 .order_by(n.c.position))
        for entry_id, deltas in conn.execute(query):
            total = sums.setdefault(str(entry_id), {})
            for name, value in deltas.items():
                total[name] = total.get(name, 0.0) + float(value)
    return sums


def _chunks(ids: Iterable[str]) -> list[list[str]]:
    wanted = list(dict.fromkeys(ids))
    return [wanted[i:i + _CHUNK] for i in range(0, len(wanted), _CHUNK)]
