"""Reading memories as the dynamics see them: MemoryRecords from the read models.

A record joins an entry with its recorded encoding (its emotion) and, for one
holder, its reviews: the exposure rows of the calls that handed it out
(materialize, an answer, a handoff, a recall), one per call, and the
supporting evidence recorded on it (it reinforces the memory) — never a row
written for the purpose. `causes` are the entry's evidence refs (a consolidation
note's are its sources); a dynamic's own proposals are told apart by the
idempotency key the hall gave them (`consolidation:…`, `wandering:…`).

Reads go through the DBAPI connection under the caller's SQLAlchemy one (as
the journal writes): recall pays for these reads on every call, and the whole
store is read by a walk, so statement building must cost nothing. Every read
model stores its values as text in one form (`projection.schema`), so the
decoding is the same on SQLite and PostgreSQL.
"""

from __future__ import annotations

import gc
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import orjson
from sqlalchemy import Connection

from memhall.domains.dynamics.encoding import Emotion
from memhall.domains.dynamics.incubation import asks
from memhall.domains.dynamics.record import CONSOLIDATION, WANDERING, MemoryRecord, constructed, felt
from memhall.domains.moments import from_iso, iso
from memhall.domains.values import BeliefState, Kind, Status
from memhall.governance.exposure import holds_domain
from memhall.governance.store import raw
from memhall.governance.streams import DomainStream

#: exposure routes that are a review: the memory was handed out and used
REVIEWS = ("materialize", "answer", "handoff", "recall")
#: evidence that reviews the claim it lands on: it reinforces it
REINFORCES = "supports"
#: idempotency-key prefixes of the dynamics' proposals
SOURCES = (CONSOLIDATION, WANDERING)
_CHUNK = 500
_COLUMNS = ("e.id, e.occurred_at, e.kind, e.people, e.places, e.topics, e.confidence, e.state, e.status, "
            "e.idempotency_key, e.author, e.evidence_refs, c.emotion")
_NEUTRAL = Emotion()


@dataclass(frozen=True)
class Scope:
    """Whose memory is read: an observer, who holds either the whole domain (by role)
    or the entries exposure lists for it."""

    observer: str
    whole: bool

    @classmethod
    def of(cls, gate: object, observer: str, domain: str) -> Scope:
        return cls(observer, holds_domain(gate, observer, domain))


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic garbage collector paused. Around reading a whole domain and building its
    graph, as a million small acyclic objects (records, nodes, links) would otherwise
    make it rescan the growing heap again and again (about half of a walk's time).
    A recall pauses it too: its few thousand candidates, rows and records are acyclic
    and gone when it returns, yet they set off collections while it runs."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def source_of(idempotency_key: str | None, author: str) -> str:
    """`consolidation` or `wandering` for a dynamic's proposal, else the author."""
    prefix = (idempotency_key or "").partition(":")[0]
    return prefix if prefix in SOURCES and idempotency_key != prefix else author


class _Reader:
    """SQL over one domain's read models, on the raw connection, with its dialect's marks."""

    def __init__(self, conn: Connection, stream: DomainStream) -> None:
        self.db = raw(conn)
        self.mark = "?" if conn.dialect.name == "sqlite" else "%s"
        self.p = stream.tables.prefix
        self.events = stream.tables.events_name

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        cursor = self.db.cursor()
        cursor.execute(sql.replace("?", self.mark), tuple(params))
        return list(cursor.fetchall())

    def marks(self, n: int) -> str:
        return ", ".join("?" for _ in range(n))

    def entries(self, where: str, params: Sequence[Any] = (), *, text: bool = False) -> list[tuple[Any, ...]]:
        columns = _COLUMNS + (", e.text" if text else "")
        return self.rows(f"SELECT {columns} FROM {self.p}entries e LEFT JOIN {self.p}encodings c "
                         f"ON c.entry_id = e.id WHERE {where} ORDER BY e.id", params)

    def held(self, scope: Scope | None) -> tuple[str, list[Any]]:
        if scope is None or scope.whole:
            return "1 = 1", []
        return f"e.id IN (SELECT entry_id FROM {self.p}exposure WHERE holder = ?)", [scope.observer]


def _record(row: tuple[Any, ...], reviews: Sequence[datetime]) -> MemoryRecord:
    (ident, occurred, kind, people, places, topics, confidence, state, status, key, author, refs,
     emotion, *text) = row
    feeling = orjson.loads(emotion) if emotion else None
    words = str(text[0]) if text else ""
    return constructed(
        id=str(ident), text=words, occurred_at=from_iso(occurred), kind=_KINDS[kind],
        people=_tags(people), places=_tags(places), topics=_tags(topics),
        emotion=_NEUTRAL if feeling is None else felt(
            float(feeling["valence"]), float(feeling["arousal"]), tuple(feeling["tags"]),
            float(feeling["significance"])),
        confidence=int(confidence), source=source_of(key, str(author)), state=_STATES[state],
        status=_STATUSES[status], reviews=tuple(sorted(reviews)) if reviews else (), causes=_tags(refs),
        open_question=asks(kind, words),
    )


#: enum members by stored value (a dict lookup is several times cheaper than Enum(value))
_KINDS = {k.value: k for k in Kind}
_STATES = {s.value: s for s in BeliefState}
_STATUSES = {s.value: s for s in Status}


def _tags(stored: str) -> tuple[str, ...]:
    return () if stored == "[]" else tuple(orjson.loads(stored))


def reviews(conn: Connection, stream: DomainStream, scope: Scope | None,
            ids: Iterable[str] | None = None) -> dict[str, list[datetime]]:
    """When each memory was handed out; for a scope, to its observer only; `ids` None: all."""
    db = _Reader(conn, stream)
    base = f"SELECT entry_id, at FROM {db.p}exposure WHERE via IN ({db.marks(len(REVIEWS))})"
    params: list[Any] = list(REVIEWS)
    if scope is not None:
        base += " AND holder = ?"
        params.append(scope.observer)
    # reinforcing evidence is a review too (seed 001: reviewed by use or by evidence)
    backed = f"SELECT claim_entry, recorded_at FROM {db.p}evidence WHERE kind = ?"
    backed_params: list[Any] = [REINFORCES]
    if scope is not None:
        backed += " AND actor = ?"
        backed_params.append(scope.observer)
    found: dict[str, list[datetime]] = defaultdict(list)
    chunks: list[list[str] | None] = [None] if ids is None else list(_chunks(ids))
    for chunk in chunks:
        sql = base if chunk is None else base + f" AND entry_id IN ({db.marks(len(chunk))})"
        for entry_id, at in db.rows(sql, params + (chunk or [])):
            found[str(entry_id)].append(from_iso(at))
        sql = backed if chunk is None else backed + f" AND claim_entry IN ({db.marks(len(chunk))})"
        for entry_id, at in db.rows(sql, backed_params + (chunk or [])):
            found[str(entry_id)].append(from_iso(at))
    return found


def by_ids(conn: Connection, stream: DomainStream, scope: Scope | None, ids: Iterable[str], *,
           with_reviews: bool = True, text: bool = True) -> dict[str, MemoryRecord]:
    """The records of `ids` (those that exist), with the scope's reviews; without their
    text when the caller only weighs them."""
    db = _Reader(conn, stream)
    wanted = list(dict.fromkeys(ids))
    rows = [r for chunk in _chunks(wanted) for r in db.entries(f"e.id IN ({db.marks(len(chunk))})", chunk,
                                                                text=text)]
    seen = reviews(conn, stream, scope, wanted) if with_reviews and rows else {}
    return {str(r[0]): _record(r, seen.get(str(r[0]), ())) for r in rows}


def held_records(conn: Connection, stream: DomainStream, scope: Scope | None, *,
                 text: bool = False) -> list[MemoryRecord]:
    """Every active memory the scope holds (the whole domain for a chair or None), by id;
    without their text unless asked (a graph needs tags, not words)."""
    db = _Reader(conn, stream)
    held, params = db.held(scope)
    rows = db.entries(f"e.status = ? AND {held}", [Status.ACTIVE.value, *params], text=text)
    seen = reviews(conn, stream, scope)
    return [_record(r, seen.get(str(r[0]), ())) for r in rows]


def episodes_since(conn: Connection, stream: DomainStream, scope: Scope | None,
                   start: datetime) -> list[MemoryRecord]:
    """Active episodes recorded since `start` (occurred_at is never later than recorded,
    so this holds every episode that occurred since; the caller filters on occurred_at)."""
    db = _Reader(conn, stream)
    held, params = db.held(scope)
    rows = db.entries(f"e.kind = ? AND e.status = ? AND e.created_at >= ? AND {held}",
                      [Kind.EPISODE.value, Status.ACTIVE.value, iso(start), *params], text=True)
    seen = reviews(conn, stream, scope, [str(r[0]) for r in rows]) if rows else {}
    return [_record(r, seen.get(str(r[0]), ())) for r in rows]


def proposals(conn: Connection, stream: DomainStream, source: str, *,
              limit: int | None = None, text: bool = True) -> list[MemoryRecord]:
    """Active entries a dynamic proposed (by key prefix, over the key's unique index)."""
    db = _Reader(conn, stream)
    sql = (f"SELECT {_COLUMNS}{', e.text' if text else ''} FROM {db.p}entries e LEFT JOIN {db.p}encodings c ON c.entry_id = e.id "
           "WHERE e.idempotency_key >= ? AND e.idempotency_key < ? AND e.status = ? ORDER BY e.idempotency_key")
    if limit is not None:
        sql += f" LIMIT {int(limit)}"
    return [_record(r, ()) for r in db.rows(sql, [f"{source}:", f"{source};", Status.ACTIVE.value])]


def proposal_keys(conn: Connection, stream: DomainStream, source: str) -> set[str]:
    """Every key a dynamic has used, whatever became of its entry since (retired, promoted)."""
    db = _Reader(conn, stream)
    sql = f"SELECT idempotency_key FROM {db.p}entries WHERE idempotency_key >= ? AND idempotency_key < ?"
    return {str(k) for (k,) in db.rows(sql, [f"{source}:", f"{source};"])}


def recent(conn: Connection, stream: DomainStream, scope: Scope, n: int, *,
           pages: int = 5) -> list[MemoryRecord]:
    """The observer's `n` newest lived memories (for the mood), newest first, with their time
    and emotion: a chair's are the domain's newest writes (the entries in the order they were
    written, through `entries_created`); anyone else's the newest that reached it. A dynamic's
    proposals are no experience and are skipped, a page at a time."""
    db = _Reader(conn, stream)
    lived: list[MemoryRecord] = []
    after = None
    page = (2 if scope.whole else 4) * n
    for _ in range(pages):
        since: list[Any] = [after] if after is not None else []
        if scope.whole:
            rows = db.rows(f"SELECT e.created_position, e.id, e.occurred_at, e.idempotency_key, e.author, c.emotion "
                           f"FROM {db.p}entries e LEFT JOIN {db.p}encodings c ON c.entry_id = e.id"
                           + (" WHERE e.created_position < ?" if since else "")
                           + " ORDER BY e.created_position DESC LIMIT ?", [*since, page])
            ids = [str(r[1]) for r in rows]
            found = {str(r[1]): r[1:] for r in rows}
        else:
            rows = db.rows(f"SELECT position, entry_id FROM {db.p}exposure WHERE holder = ?"
                           + (" AND position < ?" if since else "") + " ORDER BY position DESC LIMIT ?",
                           [scope.observer, *since, page])
            ids = [str(r[1]) for r in rows]
            found = _lived(db, ids)
        seen = {r.id for r in lived}
        for ident in dict.fromkeys(ids):
            row = found.get(ident)
            if row is None or ident in seen or source_of(row[2], str(row[3])) in SOURCES:
                continue
            lived.append(_mood_record(row))
            if len(lived) >= n:
                break
        if len(lived) >= n or len(rows) < page:
            break
        after = rows[-1][0]
    return lived[:n]


def _lived(db: _Reader, ids: Sequence[str]) -> dict[str, tuple[Any, ...]]:
    """Rows of the memories among `ids` as the mood reads them: when they happened, their
    emotion, their source (a recall reads a page of them; whole records cost ten times more)."""
    found: dict[str, tuple[Any, ...]] = {}
    for chunk in _chunks(ids):
        for row in db.rows(f"SELECT e.id, e.occurred_at, e.idempotency_key, e.author, c.emotion FROM {db.p}entries e "
                           f"LEFT JOIN {db.p}encodings c ON c.entry_id = e.id WHERE e.id IN ({db.marks(len(chunk))})",
                           chunk):
            found[str(row[0])] = row
    return found


def _mood_record(row: tuple[Any, ...]) -> MemoryRecord:
    ident, occurred, key, author, emotion = row
    feeling = orjson.loads(emotion) if emotion else None
    return constructed(
        id=str(ident), text="", occurred_at=from_iso(occurred), source=source_of(key, str(author)),
        emotion=_NEUTRAL if feeling is None else felt(
            float(feeling["valence"]), float(feeling["arousal"]), tuple(feeling["tags"]),
            float(feeling["significance"])))


def nudge_sums(conn: Connection, stream: DomainStream, holder: str,
               ids: Iterable[str]) -> dict[str, dict[str, float]]:
    """Each memory's reconsolidation deltas for `holder`, added up in log order."""
    db = _Reader(conn, stream)
    sums: dict[str, dict[str, float]] = {}
    for chunk in _chunks(ids):
        sql = (f"SELECT entry_id, deltas FROM {db.p}nudges WHERE holder = ? "
               f"AND entry_id IN ({db.marks(len(chunk))}) ORDER BY position")
        for entry_id, deltas in db.rows(sql, [holder, *chunk]):
            total = sums.setdefault(str(entry_id), {})
            for name, value in orjson.loads(deltas).items():
                total[name] = total.get(name, 0.0) + float(value)
    return sums


def _chunks(ids: Iterable[str]) -> Iterable[list[str]]:
    wanted = list(dict.fromkeys(ids))
    return (wanted[i:i + _CHUNK] for i in range(0, len(wanted), _CHUNK))
