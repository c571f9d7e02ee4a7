"""The candidate pool of one recall: entries the observer holds, read at one log position.

Every read goes through a `Reader`, which carries the observer's scope: a
chair or the ratify owner holds the whole domain by role, anyone else exactly
the entries exposure lists for it (SPEC §6: there is no "everything anyone
knows" path). Each channel returns at most its top k, so the pool stays
bounded however large the domain grows; all reads happen in one read
transaction (a snapshot), so the position and the rows agree.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

import orjson
from sqlalchemy import Connection, func, select, text

from memhall.domains.moments import from_iso
from memhall.domains.values import Layer
from memhall.governance import fulltext
from memhall.governance.store import raw
from memhall.governance.streams import DomainStream
from memhall.ledgers.recall.query import Query

_CHUNK = 500
#: at most this many L3/L4 claim neighbours per 500 pool members
CLAIM_K = 200


#: the entry columns a candidate is made of, in this order
COLUMNS = ("id", "layer", "kind", "text", "interpretation", "author", "status", "state", "confidence",
           "source_kind", "source_agent_id", "claim_root_id", "evidence_refs", "session_id", "people",
           "places", "topics", "superseded_by", "occurred_at", "created_at", "created_position")
SELECTED = ", ".join(f"e.{c}" for c in COLUMNS)


@dataclass(frozen=True)
class Candidate:
    """One entry as the projection shows it at the pool's position."""

    id: str
    layer: str
    kind: str
    text: str
    interpretation: str | None
    author: str
    status: str
    state: str
    confidence: int
    source_kind: str
    source_agent_id: str | None
    claim_root_id: str | None
    evidence_refs: tuple[str, ...]
    session_id: str | None
    people: tuple[str, ...]
    tags: frozenset[str]
    superseded_by: str | None
    occurred_at: datetime
    created_at: datetime
    created_position: int

    @property
    def rank(self) -> int:
        return Layer(self.layer).rank

    @property
    def body(self) -> str:
        """What the full-text index holds of it."""
        return " ".join([self.text, self.interpretation or "", *sorted(self.tags)])

    def by(self, person: str) -> bool:
        """Whether the person said or did it: its author, or the named source of hearsay."""
        return person in (self.author.casefold(), (self.source_agent_id or "").casefold())

    @classmethod
    def from_sql(cls, row: Sequence[Any]) -> Candidate:
        (ident, layer, kind, text_, interpretation, author, status, state, confidence, source_kind,
         source_agent_id, claim_root_id, evidence_refs, session_id, people, places, topics,
         superseded_by, occurred_at, created_at, created_position) = row
        who = _json(people)
        # the fields set at once, not one object.__setattr__ each as a frozen dataclass's
        # __init__ does (more than half of building one, and a recall builds a hundred)
        made = object.__new__(cls)
        made.__dict__.update(
            id=str(ident), layer=layer, kind=kind, text=text_, interpretation=interpretation,
            author=author, status=status, state=state, confidence=int(confidence),
            source_kind=source_kind, source_agent_id=source_agent_id, claim_root_id=claim_root_id,
            evidence_refs=_json(evidence_refs), session_id=session_id, people=who,
            tags=frozenset([*who, *_json(places), *_json(topics)]), superseded_by=superseded_by,
            occurred_at=moment(occurred_at), created_at=moment(created_at),
            created_position=int(created_position),
        )
        return made


def moment(stored: str) -> datetime:
    """A stored time in UTC. The projection stores UTC; converting a time already in UTC
    cost five times its parsing, over the hundreds of rows of one recall."""
    try:
        parsed = datetime.fromisoformat(stored)
    except ValueError:
        return from_iso(stored)  # as an older version stored a year before 1000
    return parsed if parsed.tzinfo is timezone.utc else from_iso(stored)


def tags_of(people: Any, places: Any, topics: Any) -> frozenset[str]:
    return frozenset([*_json(people), *_json(places), *_json(topics)])


def _json(stored: Any) -> tuple[str, ...]:
    if not stored or stored == "[]":
        return ()
    return tuple(orjson.loads(stored) if isinstance(stored, (str, bytes)) else stored)


@dataclass
class Reader:
    """One read transaction of one domain, as one observer sees it: plain SQL on the
    DBAPI connection (a recall makes a few dozen small reads; SQLAlchemy's statement
    building cost more than the reads themselves)."""

    conn: Connection
    stream: DomainStream
    dialect: str
    observer: str
    #: the observer holds the whole domain by its role
    whole: bool
    #: the log position read at (entries and exposure after it are not seen)
    at: int
    _total: int | None = field(default=None, repr=False)
    _counts: dict[str, int] = field(default_factory=dict, repr=False)
    #: word -> whether its count stopped at a cap (so is a lower bound)
    _capped: dict[str, bool] = field(default_factory=dict, repr=False)

    @property
    def holder(self) -> str | None:
        """Whom exposure rows must name, or None for a whole-domain holder."""
        return None if self.whole else self.observer

    @property
    def entries(self) -> str:
        return self.stream.tables.entries.name

    def sql(self, statement: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Rows of `statement` (written with `?` marks)."""
        cursor = raw(self.conn).cursor()
        mark = "?" if self.dialect == "sqlite" else "%s"
        cursor.execute(statement.replace("?", mark), tuple(params))
        return list(cursor.fetchall())

    def visible(self) -> tuple[str, list[Any]]:
        """The condition on `e` (entries) the observer sees, and its parameters."""
        if self.whole:
            return "e.created_position <= ?", [self.at]
        return (f"e.created_position <= ? AND e.id IN (SELECT x.entry_id FROM "
                f"{self.stream.tables.exposure.name} x WHERE x.holder = ? AND x.position <= ?)",
                [self.at, self.observer, self.at])

    def rows(self, ids: Sequence[str]) -> dict[str, Candidate]:
        """The held entries among `ids`, in the order asked."""
        wanted = list(dict.fromkeys(ids))
        found: dict[str, Candidate] = {}
        seen, params = self.visible()
        for start in range(0, len(wanted), _CHUNK):
            chunk = wanted[start:start + _CHUNK]
            marks = ", ".join("?" for _ in chunk)
            for row in self.sql(f"SELECT {SELECTED} FROM {self.entries} e WHERE e.id IN ({marks}) AND {seen}",
                                [*chunk, *params]):
                candidate = Candidate.from_sql(row)
                found[candidate.id] = candidate
        return {i: found[i] for i in wanted if i in found}

    def glimpse(self, ids: Sequence[str]) -> dict[str, tuple[frozenset[str], datetime, int]]:
        """Id -> (tags, when it happened, log position) of the held entries among `ids`:
        what a channel that scores by tags needs, without building whole candidates."""
        found: dict[str, tuple[frozenset[str], datetime, int]] = {}
        seen, params = self.visible()
        wanted = list(dict.fromkeys(ids))
        for start in range(0, len(wanted), _CHUNK):
            chunk = wanted[start:start + _CHUNK]
            marks = ", ".join("?" for _ in chunk)
            for ident, people, places, topics, occurred, position_ in self.sql(
                    f"SELECT e.id, e.people, e.places, e.topics, e.occurred_at, e.created_position "
                    f"FROM {self.entries} e WHERE e.id IN ({marks}) AND {seen}", [*chunk, *params]):
                found[str(ident)] = (tags_of(people, places, topics), moment(occurred), int(position_))
        return found

    def select(self, where: str, params: Sequence[Any] = (), *, order: str, limit: int) -> list[Candidate]:
        """Held entries matching `where` (on `e`), ordered, at most `limit`."""
        seen, scope = self.visible()
        return [Candidate.from_sql(r) for r in self.sql(
            f"SELECT {SELECTED} FROM {self.entries} e WHERE {where} AND {seen} ORDER BY {order} LIMIT ?",
            [*params, *scope, limit])]

    def counts(self, words: Iterable[str], at_most: int | None = None) -> dict[str, int]:
        """How many entries hold each word (by its stem), counted once per recall whichever
        channel asks first; with `at_most`, counted only that far (a common word's count
        costs its whole posting list). A capped count is recounted when an exact one is asked."""
        asked = list(dict.fromkeys(words))
        missing = [w for w in asked if w not in self._counts
                   or (self._capped.get(w, False) and (at_most is None or self._counts[w] < at_most))]
        if missing:
            found = fulltext.document_counts(self.conn, self.stream.tables, self.dialect, missing,
                                             at_most=at_most)
            for w, n in found.items():
                self._counts[w] = n
                self._capped[w] = at_most is not None and n >= at_most
        return {w: self._counts[w] if at_most is None else min(self._counts[w], at_most) for w in asked}

    @property
    def total(self) -> int:
        """How many entries the domain has (what an idf is computed against)."""
        if self._total is None:
            self._total = int(self.sql(f"SELECT count(*) FROM {self.entries}")[0][0])
        return self._total


@dataclass
class Pool:
    """Candidates and, per channel, their ids best first with the channel's raw score."""

    position: int
    query: Query
    candidates: dict[str, Candidate] = field(default_factory=dict)
    channels: dict[str, list[tuple[str, float]]] = field(default_factory=dict)
    #: the entities in play: the query's and those of its strongest candidates
    entities: tuple[str, ...] = ()
    #: a neighbour in time of a strong candidate -> (that anchor's id, distance in turns)
    anchors: dict[str, tuple[str, int]] = field(default_factory=dict)

    @property
    def words(self) -> tuple[str, ...]:
        return self.query.terms

    @property
    def tags(self) -> tuple[str, ...]:
        return self.entities

    def add(self, channel: str, found: Sequence[tuple[Candidate, float]]) -> None:
        self.channels[channel] = [(c.id, score) for c, score in found]
        for c, _ in found:
            self.candidates.setdefault(c.id, c)


def position(conn: Connection, stream: DomainStream) -> int:
    """The newest event that changed what a materialization reads (entries, the evidence that
    moves their beliefs, relationships, subjective claims): its own record (or a refusal) does
    not move it, so a re-run with nothing new written reads the same position and prints the
    same bytes."""
    row = conn.execute(text(
        f"SELECT id FROM {stream.tables.events_name} WHERE topic LIKE 'memhall.Entry.%' "
        "OR topic LIKE 'memhall.Evidence.%' OR topic LIKE 'memhall.Relationship.%' "
        "OR topic LIKE 'memhall.SubjectiveClaim.%' ORDER BY id DESC LIMIT 1")).first()
    return int(row[0]) if row else 0


def newest(conn: Connection, stream: DomainStream) -> int:
    """The newest event of the domain: a recall reads everything up to it (exposure moves
    with materializations, handoffs and recalls too)."""
    cursor = raw(conn).cursor()
    cursor.execute(f"SELECT max(id) FROM {stream.tables.events_name}")
    row = cursor.fetchone()
    return int(row[0]) if row and row[0] is not None else 0


def position_at(conn: Connection, stream: DomainStream, moment: datetime) -> int:
    """The last log position recorded at or before `moment` (for --as-of)."""
    audit = stream.tables.audit
    found = conn.execute(select(func.max(audit.c.position)).where(audit.c.at <= moment)).scalar()
    return int(found or 0)


def claim_neighbours(reader: Reader, pool: dict[str, Candidate]) -> list[Candidate]:
    """Knowledge (L3/L4) tied to the pool by claim identity (SPEC §5: identity
    is the claim root, never similarity) or superseded by a pool member: such
    an entry decides a conflict (council.conflicts), so it is read even when no
    channel found it. Only higher layers can make a pool member lose, so only
    they are read, which keeps the pool bounded by the size of K, not of L2."""
    roots = sorted({c.claim_root_id for c in pool.values() if c.claim_root_id})
    ids = sorted(pool)
    found: dict[str, Candidate] = {}
    for start in range(0, max(len(ids), len(roots)), _CHUNK):
        some, more = ids[start:start + _CHUNK], roots[start:start + _CHUNK]
        clauses = [f"e.superseded_by IN ({', '.join('?' for _ in some)})"] if some else []
        if more:
            clauses.append(f"e.claim_root_id IN ({', '.join('?' for _ in more)})")
        if not clauses:
            break
        where = f"e.layer IN ('L3', 'L4') AND ({' OR '.join(clauses)})"
        for c in reader.select(where, [*some, *more], order="e.id", limit=CLAIM_K):
            found.setdefault(c.id, c)
    return sorted(found.values(), key=lambda c: c.id)
