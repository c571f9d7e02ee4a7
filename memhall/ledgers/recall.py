"""Recall channels: the bounded candidate pool of a task, read at one log position.

Every channel returns at most its top k, so the pool (and the time to build
it) stays bounded however large the domain grows. All reads happen in one read
transaction (a snapshot), so the log position and the rows agree.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from uuid import UUID

from sqlalchemy import Connection, or_, select, text

from memhall.domains.entry import Tags
from memhall.domains.values import Layer
from memhall.governance import fulltext
from memhall.governance.store import Store
from memhall.governance.streams import DomainStream
from memhall.governance.views import as_utc

LEXICAL_K = 50
ENTITY_K = 50
#: rows read to find tag neighbours (the full-text index holds the tags too)
ENTITY_SCAN = 200
RECENT_K = 10
#: at most this many L3/L4 claim neighbours per 500 pool members
CLAIM_K = 200
MAX_WORDS = 32

#: channels that say a candidate is about the task; recency alone does not
RELATED = ("lexical", "entity", "claim")

_WORD = re.compile(r"\w+", re.UNICODE)
_STOP = frozenset(
    "a an and are as at be but by do does for from has have how i in is it its of on or our "
    "so that the their this to was we were what when where which who why will with you your "
    "about after before into over than then there these those".split()
)


@dataclass(frozen=True)
class Candidate:
    """One entry as the projection shows it at the pool's position."""

    id: str
    layer: str
    kind: str
    text: str
    author: str
    status: str
    state: str
    confidence: int
    source_kind: str
    source_agent_id: str | None
    claim_root_id: str | None
    evidence_refs: tuple[str, ...]
    session_id: str | None
    tags: frozenset[str]
    superseded_by: str | None
    created_at: datetime
    created_position: int

    @property
    def rank(self) -> int:
        return Layer(self.layer).rank

    @classmethod
    def from_row(cls, row: Any) -> Candidate:
        m = row._mapping
        return cls(
            id=m["id"], layer=m["layer"], kind=m["kind"], text=m["text"], author=m["author"],
            status=m["status"], state=m["state"], confidence=int(m["confidence"]),
            source_kind=m["source_kind"], source_agent_id=m["source_agent_id"],
            claim_root_id=m["claim_root_id"], evidence_refs=tuple(m["evidence_refs"] or ()),
            session_id=m["session_id"],
            tags=frozenset([*(m["people"] or ()), *(m["places"] or ()), *(m["topics"] or ())]),
            superseded_by=m["superseded_by"], created_at=as_utc(m["created_at"]),
            created_position=int(m["created_position"]),
        )


@dataclass
class Pool:
    """Candidates and, per channel, their ids best first with the channel's raw score."""

    position: int
    words: tuple[str, ...]
    tags: tuple[str, ...]
    candidates: dict[str, Candidate] = field(default_factory=dict)
    channels: dict[str, list[tuple[str, float]]] = field(default_factory=dict)

    @property
    def newest(self) -> datetime | None:
        """The time the recency decay counts from: the newest entry, never the wall clock."""
        return max((c.created_at for c in self.candidates.values()), default=None)


def task_words(task: str) -> tuple[str, ...]:
    words = [w for w in _WORD.findall(task.casefold()) if w not in _STOP and (len(w) > 1 or not w.isascii())]
    return tuple(dict.fromkeys(words))[:MAX_WORDS]


def task_terms(words: Sequence[str], tags: Tags) -> frozenset[str]:
    """What a tag must equal to be the task's: explicit tags, task words and word pairs."""
    pairs = [f"{a} {b}" for a, b in zip(words, words[1:])]
    return frozenset([*tags.all(), *words, *pairs])


def gather(store: Store, stream: DomainStream, task: str, tags: Tags) -> Pool:
    words = task_words(task)
    terms = task_terms(words, tags)
    with store.read() as conn:
        if store.dialect != "sqlite":
            conn = conn.execution_options(isolation_level="REPEATABLE READ")
        pool = Pool(position=_position(conn, stream), words=words, tags=())
        if pool.position == 0:
            return pool
        lexical = _lexical(conn, stream, words, LEXICAL_K, store.dialect)
        scanned = _rows(conn, stream, _tag_scan(conn, stream, sorted(terms), store.dialect))
        entity = sorted(
            ((c, len(c.tags & terms)) for c in scanned.values() if c.tags & terms),
            key=lambda pair: (-pair[1], -pair[0].created_position, pair[0].id),
        )[:ENTITY_K]
        recent = _recent(conn, stream, RECENT_K, store.dialect)
        ids = [i for i, _ in lexical] + [c.id for c, _ in entity] + recent
        pool.candidates = _rows(conn, stream, ids)
        pool.channels = {
            "lexical": [(i, s) for i, s in lexical if i in pool.candidates],
            "entity": [(c.id, float(n)) for c, n in entity],
            "recent": [(i, float(-n)) for n, i in enumerate(recent) if i in pool.candidates],
        }
        claim = _claim_neighbours(conn, stream, pool.candidates)
        pool.channels["claim"] = [(c.id, 1.0) for c in claim if c.id not in pool.candidates]
        pool.candidates.update({c.id: c for c in claim})
        pool.tags = tuple(sorted(set(tags.all()) | {t for c, _ in entity for t in c.tags & terms}))
    return pool


def _position(conn: Connection, stream: DomainStream) -> int:
    """The newest event that changed an entry: the ledgers read nothing else,
    so a materialization's own record (or a refusal) does not move it."""
    row = conn.execute(text(
        f"SELECT id FROM {stream.tables.events_name} WHERE topic LIKE 'memhall.Entry.%' "
        "ORDER BY id DESC LIMIT 1")).first()
    return int(row[0]) if row else 0


def _lexical(conn: Connection, stream: DomainStream, words: Sequence[str], k: int,
             dialect: str) -> list[tuple[str, float]]:
    """Full-text match of any task word, best first (BM25 on SQLite, ts_rank on PostgreSQL)."""
    return fulltext.match(conn, stream.tables, dialect, words, any_word=True, limit=k)


def _tag_scan(conn: Connection, stream: DomainStream, terms: Sequence[str], dialect: str) -> list[str]:
    """Entries that may share a tag with the task (checked exactly afterwards)."""
    if not terms:
        return []
    t = stream.tables
    if dialect == "sqlite":
        rows = conn.execute(text(
            f"SELECT entry_id FROM {t.search_name} WHERE {t.search_name} MATCH :q "
            f"ORDER BY bm25({t.search_name}), entry_id LIMIT :k"),
            {"q": " OR ".join(f'"{w}"' for w in terms), "k": ENTITY_SCAN}).all()
        return [str(r[0]) for r in rows]
    e = t.entries
    rows = conn.execute(text(
        f"SELECT id FROM {e.name} WHERE people::jsonb ?| :tags OR places::jsonb ?| :tags "
        "OR topics::jsonb ?| :tags ORDER BY created_position DESC LIMIT :k"),
        {"tags": list(terms), "k": ENTITY_SCAN}).all()
    return [str(r[0]) for r in rows]


def _recent(conn: Connection, stream: DomainStream, k: int, dialect: str) -> list[str]:
    """The newest entries, walking the log backwards (its primary key) rather than
    sorting the projection."""
    rows = conn.execute(text(
        f"SELECT originator_id FROM {stream.tables.events_name} "
        "WHERE topic = 'memhall.Entry.Written' ORDER BY id DESC LIMIT :k"), {"k": k}).all()
    return [str(UUID(bytes=bytes(r[0])) if isinstance(r[0], (bytes, memoryview)) else r[0])
            for r in rows]


def _rows(conn: Connection, stream: DomainStream, ids: Sequence[str]) -> dict[str, Candidate]:
    entries = stream.tables.entries
    wanted = list(dict.fromkeys(ids))
    found: dict[str, Candidate] = {}
    for start in range(0, len(wanted), 500):
        chunk = wanted[start:start + 500]
        for row in conn.execute(select(entries).where(entries.c.id.in_(chunk))):
            found[row.id] = Candidate.from_row(row)
    return {i: found[i] for i in wanted if i in found}


def _claim_neighbours(conn: Connection, stream: DomainStream,
                      pool: dict[str, Candidate]) -> list[Candidate]:
    """Knowledge (L3/L4) tied to the pool by claim identity (SPEC §5: identity
    is the claim root, never similarity) or superseded by a pool member: such
    an entry decides a conflict (council.conflicts), so it is read even when no
    channel found it. Only higher layers can make a pool member lose, so only
    they are read, which keeps the pool bounded by the size of K, not of L2."""
    roots = sorted({c.claim_root_id for c in pool.values() if c.claim_root_id})
    ids = sorted(pool)
    e = stream.tables.entries
    found: dict[str, Candidate] = {}
    for start in range(0, max(len(ids), len(roots)), 500):
        clauses = [e.c.superseded_by.in_(ids[start:start + 500])]
        if roots[start:start + 500]:
            clauses.append(e.c.claim_root_id.in_(roots[start:start + 500]))
        query = select(e).where(e.c.layer.in_(("L3", "L4")), or_(*clauses)).limit(CLAIM_K)
        for row in conn.execute(query):
            found.setdefault(row.id, Candidate.from_row(row))
    return sorted(found.values(), key=lambda c: c.id)
