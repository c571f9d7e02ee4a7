"""Rows about to be handed over, held against their entries' events.

A handoff hands an agent where work was left: each thread's latest state, the
L1 candidates and the open loops. They are read from the read models, and a
read model is only a table: a row edited in the store file (a wrap-up's text,
a superseded state set back to active) would be handed over as where things
stand. So before a handoff is shown, each row it serves is compared with what
its entry's own events say, replayed through the one projection: few rows
(at most 40), their events read in one query. The same check guards what is
served elsewhere: `state`, `show`, `search`, `recall`, and what is handed out as
authority (`canon`, `knowledge`, ledger B of `materialize`).

Stdlib only below the projection, so the fast paths (`fast_handoff`,
`fast_start`, on a sqlite3 connection) and the main path (on the store's DBAPI
connection, either backend) run the same check.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any
from uuid import UUID

from memhall.domains.errors import AuditFailureError
from memhall.governance.journal import Journal
from memhall.governance.projection import codec, ops_for
from memhall.governance.projection.apply import MemoryBackend, Projector
from memhall.governance.projection.schema import BY_SUFFIX

if TYPE_CHECKING:  # the fast paths import this module without SQLAlchemy
    from memhall.governance.streams import DomainStream

#: the columns of a served row its entry's events must give it
SERVED = ("layer", "kind", "text", "author", "status")
REPAIR = "nothing is served: run `memhall audit verify`, then `memhall rebuild`"


def require(db: Any, journal: Journal, table: str, rows: Iterable[Mapping[str, Any]], *, at: int) -> None:
    """`first_unlike`, raised: a row that is not what its events say serves nothing (exit 4)."""
    unlike = first_unlike(db, journal, rows, at=at)
    if unlike is not None:
        raise AuditFailureError(f"{table}: {unlike}; {REPAIR}")


def require_served(db: Any, stream: DomainStream, views: Iterable[Any], *, at: int) -> None:
    """`require` of entries as the main path serves them (`EntryView`s), in `stream`."""
    require(db, stream.journal, stream.tables.entries.name,
            [view.model_dump(include={"id", "position", *SERVED}) for view in views], at=at)


def first_unlike(db: Any, journal: Journal, rows: Iterable[Mapping[str, Any]], *, at: int) -> str | None:
    """The first row that is not what its entry's events say, described (its id, the column,
    both values); None when every row agrees with the log. The entries' events are read in
    one query.

    `at`: the log's newest position when the rows were about to be read (`newest`), or the
    position of the snapshot they were read in. A row is held to its entry's events up to
    `at`, or up to its own `position` where that is later (a write committed while the rows
    were read), never to a later event: a writer superseding a served entry meanwhile is not
    a forgery. A row whose `position` was edited gains nothing: it is never held to less than
    `at`, and events it claims that the log does not have are not there to replay."""
    served = list(rows)
    idents: dict[str, UUID | None] = {str(row["id"]): _uuid(str(row["id"])) for row in served}
    events = journal.load_many(db, list(dict.fromkeys(i for i in idents.values() if i is not None)))
    for row in served:
        ident = idents[str(row["id"])]
        bound = max(at, int(row.get("position") or 0))
        logged = as_logged([(topic, data) for position, topic, data in (events.get(ident, []) if ident else [])
                            if position <= bound], str(row["id"]))
        if logged is None:
            return f"entry {row['id']} has no events"
        for column in SERVED:
            if row[column] != logged[column]:
                return (f"entry {row['id']} shows {column} {_short(row[column])}, its events say "
                        f"{_short(logged[column])}")
    return None


def newest(db: Any, journal: Journal) -> int:
    """The log's newest position (0 when it is empty): read before the rows `first_unlike`
    will hold to it."""
    cursor = db.cursor()
    cursor.execute(f"SELECT max(id) FROM {journal.events_table}")
    row = cursor.fetchone()
    return int(row[0]) if row and row[0] is not None else 0


def as_logged(events: Iterable[tuple[str, bytes]], ident: str) -> dict[str, Any] | None:
    """The entries row the entry's own events (topic, state) give it; None when they give none."""
    backend = _AsMade()
    projector = Projector(backend)
    for topic, data in events:
        # the entry's own row only: its events also give audit, exposure and search rows
        projector.apply(op for op in ops_for(topic, codec.loads(data), 0) if op.table == "entries")
    projector.flush()
    return backend.tables.get("entries", {}).get(ident)


class _AsMade(MemoryBackend):
    """Rows as the handlers make them, without `MemoryBackend`'s round trip through the SQL
    types (half the cost here): the columns compared are text, which it leaves as they are."""

    def insert(self, table: str, rows: list[dict[str, Any]]) -> None:
        target, key = self.tables.setdefault(table, {}), BY_SUFFIX[table].key
        for row in rows:
            target[str(row[key])] = dict(row)

    def update(self, table: str, columns: tuple[str, ...], rows: list[tuple[str, tuple[Any, ...]]]) -> None:
        target = self.tables.setdefault(table, {})
        for ident, values in rows:
            if ident in target:
                target[ident] = {**target[ident], **dict(zip(columns, values))}


def _uuid(text: str) -> UUID | None:
    try:
        return UUID(text)
    except ValueError:
        return None


def _short(value: Any) -> str:
    text = str(value)
    return repr(text if len(text) <= 60 else text[:57] + "...")
