"""The one write path: append a domain's events, chain them and project them.

Every writer goes through `Journal.append` — a single governed write, a
batched import, the session event of the fast handoff — inside the caller's
transaction, on a plain DBAPI connection (sqlite3 or psycopg). One call is a
handful of statements whatever the batch size: the head row (read and, on
PostgreSQL, locked), one multi-row insert of events, one of chain links, one
update of the head, and the read-model changes as set-based batches.

The head row is the domain's lock and its clock. It holds the last position
and chain head, so positions are assigned here, contiguous: a gap in the log
is always a deletion, never a rolled-back writer. On PostgreSQL `SELECT … FOR
UPDATE` on it serializes the writers of one domain only, for the span of
their transaction; writers of other domains never wait. The same statement
first takes the domain's advisory lock, so writers queue in the lock manager,
not on the row (whose waiters, once it is unlocked, find and lock its newer
version: the server's work per turn grows with contention). Measured, eight
processes taking turns on a row alone cost the server 0.90 ms a turn against
0.68 ms behind the advisory lock, and made 651 turns/s against 743 (medians of
twelve alternating pairs; one process alone: the same). A write prepared before
the lock takes it in the round trip of its append and commit (`at_once`), so the
client does no work while holding it. SQLite has one write lock per file, taken up
front by BEGIN IMMEDIATE.

Stdlib only (plus orjson): the fast handoff path imports it without
SQLAlchemy or pydantic.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, NamedTuple
from uuid import UUID

from memhall.audit.chain import GENESIS, ChainedEvent, link
from memhall.governance.gathered import Gathered
from memhall.governance.projection import ops_for
from memhall.governance.projection.apply import COPY_MIN, Projector, SqlBackend, copy_rows
from memhall.governance.projection.ops import State
from memhall.governance.projection.schema import READ_MODELS

#: the high half of a domain's advisory lock key ("mh"); the low half, its head table's oid
ADVISORY = 0x6D68

#: the events table's columns, as every append writes them
EVENT_COLUMNS = ("id", "originator_id", "originator_version", "topic", "state")
_EVENT_NAMES = ", ".join(EVENT_COLUMNS)

#: up to how many events a PostgreSQL append logs in one statement (`Journal._log_sql`)
LOG_IN_ONE = 16


class NewEvent(NamedTuple):
    """An event ready to store: its state as the log keeps it, and those bytes."""

    originator_id: UUID
    version: int
    topic: str
    state: State
    data: bytes


class Ahead(NamedTuple):
    """What a write reads first, read with the domain's lock (`Journal.held`): queries
    (SQL, parameters) whose rows it wants, and the read-model rows (table, key) the merges
    of its first append will need."""

    queries: Sequence[tuple[str, Sequence[Any]]] = ()
    rows: Sequence[tuple[str, str]] = ()


class Taken(NamedTuple):
    """What `Journal.held` read with the lock: the last event of `last_of` (as `Journal.last`
    gives it; (0, b"") when it has none), and the rows of each of `ahead`'s queries; None and () when they were
    not read with it (SQLite, or a nested use)."""

    last: tuple[int, bytes] | None = None
    answers: tuple[list[tuple[Any, ...]], ...] = ()


class StaleHeadError(Exception):
    """The head row is missing or behind the log: the store was not set up by
    this version (run `memhall rebuild`) or was tampered with."""


class Journal:
    """Appending to one domain's stream (its events, chain and head tables)."""

    def __init__(self, domain: str, dialect: str) -> None:
        self.domain = domain
        self.dialect = dialect
        #: per connection holding the domain's lock (`held`): (connection, position, head)
        self._held: dict[int, tuple[Any, int, str]] = {}
        #: per connection, read-model rows read with the lock for its first append (`held`)
        self._ahead: dict[int, dict[tuple[str, str], dict[str, Any] | None]] = {}
        self.prefix = f"mh_{domain}_"
        self.events_table = self.prefix + "events"
        self.chain_table = self.prefix + "chain"
        self.head_table = self.prefix + "head"
        m = "?" if dialect == "sqlite" else "%s"
        # PostgreSQL: the domain's advisory lock (keyed by its head table: the store's own), then
        # the head row's, taken at once then (`held`)
        lock = "" if dialect == "sqlite" else (
            f" AND pg_advisory_xact_lock({ADVISORY << 32} + '{self.head_table}'::regclass::oid::bigint) "
            "IS NOT NULL FOR UPDATE")
        self.head_sql = f"SELECT position, head FROM {self.head_table} WHERE id = 1{lock}"
        self._event_sql = f"INSERT INTO {self.events_table} ({_EVENT_NAMES}) VALUES ({m}, {m}, {m}, {m}, {m})"
        self._chain_sql = f"INSERT INTO {self.chain_table} (position, head) VALUES ({m}, {m})"
        self._move_sql = f"UPDATE {self.head_table} SET position = {m}, head = {m} WHERE id = 1"
        self._load_sql = (f"SELECT originator_version, topic, state FROM {self.events_table} "
                          f"WHERE originator_id = {m} ORDER BY originator_version")
        self._mark = m
        #: `_log_sql` by number of events
        self._logs: dict[int, tuple[str, str]] = {}
        # PostgreSQL: the row's version (xmin, ctid) stands for its state: any other row, or
        # any change to this one, has another; the state itself is not read (a charter's last
        # event, which every write asks for with the lock, is ~50 KB, stored compressed)
        token = "state" if dialect == "sqlite" else "convert_to(xmin::text || ':' || ctid::text, 'UTF8')"
        #: an aggregate's last version and what tells its stored event from any other (`last`)
        self.last_sql = (f"SELECT originator_version, {token} FROM {self.events_table} "
                          f"WHERE originator_id = {m} ORDER BY originator_version DESC LIMIT 1")

    @contextmanager
    def held(self, connection: Any, *, last_of: UUID | None = None,
             ahead: Ahead | None = None) -> Iterator[Taken]:
        """Lock the domain (`head`) for the rest of the caller's transaction on `connection`;
        until this exits, appends on it take the head from here, not from another query
        (nobody else can move it while the lock is held). On PostgreSQL, what the write
        reads first is read in the same round trip, under the lock: `last_of`'s last event,
        `ahead`'s queries (their rows are yielded) and the read-model rows its merges need
        (kept for the first append). Elsewhere the write reads them itself, as it goes."""
        key = id(connection)
        outer = key in self._held  # a nested use joins the outer transaction: the head it keeps
        taken = Taken()  # is the latest, for the outer too
        if outer:
            ahead = None  # rows read ahead serve the outer use's first append, not a nested one's
        if self.dialect == "postgresql" and (last_of is not None or ahead is not None):
            # every answer is read after the pipeline's end, which reads them all in its one
            # round trip (an answer read inside it costs a round trip of its own, lock held)
            keys = list(ahead.rows) if ahead is not None else []
            with connection.pipeline():
                heads = connection.cursor()
                heads.execute(self.head_sql)
                lasts = connection.cursor()
                if last_of is not None:
                    lasts.execute(self.last_sql, (self.uuid_param(last_of),))
                queries = []
                for sql, params in ahead.queries if ahead is not None else ():
                    queries.append(connection.cursor())
                    queries[-1].execute(sql, params)
                sent = SqlBackend(connection, self.dialect, self.prefix, copy=False).ask_many(keys) if keys else []
            row = heads.fetchone()
            found = lasts.fetchone() if last_of is not None else None
            answers = tuple(cursor.fetchall() for cursor in queries)
            rows = SqlBackend.answers(keys, sent) if keys else {}
            if row is None:
                raise StaleHeadError(f"the head row of {self.domain} is missing")
            head = (int(row[0]), str(row[1]))
            last = None if last_of is None else (int(found[0]), bytes(found[1])) if found is not None else (0, b"")
            taken = Taken(last, answers)
            if rows:
                self._ahead[key] = rows
        else:
            head = self.head(connection)
        self._held[key] = (connection, *head)
        try:
            yield taken
        finally:
            if not outer:
                self._held.pop(key, None)
                self._ahead.pop(key, None)

    def head(self, connection: Any) -> tuple[int, str]:
        """The last position and chain head; on PostgreSQL this locks the domain."""
        cursor = connection.cursor()
        cursor.execute(self.head_sql)
        row = cursor.fetchone()
        if row is None:
            raise StaleHeadError(f"the head row of {self.domain} is missing")
        return int(row[0]), str(row[1])

    def append(self, connection: Any, events: Sequence[NewEvent], *, commit: bool = False) -> list[int]:
        """Store, chain and project `events` in the caller's transaction; their positions.
        `commit` (PostgreSQL): commit the transaction with them, in the same round trip
        (the caller's transaction then has nothing left to do)."""
        if not events:
            return []
        held = self._held.get(id(connection))
        position, head = held[1:] if held is not None and held[0] is connection else self.head(connection)
        # rows read with the lock are fresh for the first append only: it changes them
        ahead = self._ahead.pop(id(connection), None) if held is not None and held[0] is connection else None
        stored, links, positions = [], [], []
        for event in events:
            position += 1
            head = link(self.domain, head, ChainedEvent(
                position=position, originator_id=event.originator_id,
                originator_version=event.version, topic=event.topic, state=event.data))
            stored.append((position, self.uuid_param(event.originator_id), event.version,
                           event.topic, event.data))
            links.append((position, head))
            positions.append(position)
        if self.dialect == "sqlite":
            self._store(connection, stored, links, position, head, events, positions, copy=False)
        elif len(events) >= COPY_MIN:
            self._store(connection, stored, links, position, head, events, positions, copy=True, ahead=ahead)
            if grew(positions[0] - 1, position):
                # A bulk load outpaces autovacuum: without fresh statistics the planner
                # picks scans for the readers' queries (a handoff took seconds at 100k).
                connection.cursor().execute(analyze_sql(self.prefix))
        else:
            with connection.pipeline():  # one round trip for the whole write, not one per statement
                self._store(connection, stored, links, position, head, events, positions, copy=False,
                            ahead=ahead)
                if commit:  # a statement: the driver's commit() would end the round trip, and wait
                    connection.cursor().execute("COMMIT")  # for one more at the pipeline's end
        if held is not None and held[0] is connection:
            self._held[id(connection)] = (connection, position, head)
        return positions

    def _store(self, connection: Any, stored: list[tuple[Any, ...]], links: list[tuple[int, str]],
               position: int, head: str, events: Sequence[NewEvent], positions: list[int], *,
               copy: bool, ahead: dict[tuple[str, str], dict[str, Any] | None] | None = None) -> None:
        if self.dialect == "postgresql" and not copy and len(stored) <= LOG_IN_ONE:
            # the events, their links, the head and the read-model rows in one statement (`gathered`):
            # fewer for the client to send and the server to run while the domain's lock is held
            gathered = Gathered(connection, self.prefix)
            self._project(gathered, events, positions, ahead)
            ctes, last = self._log_sql(len(stored))
            gathered.run(ctes, [v for values in stored for v in values] + [v for values in links for v in values],
                         last, [position, head])
            return
        cursor = connection.cursor()
        if copy:
            copy_rows(connection, self.events_table, EVENT_COLUMNS, stored)
            copy_rows(connection, self.chain_table, ("position", "head"), links)
            cursor.execute(self._move_sql, (position, head))
        else:
            cursor.executemany(self._event_sql, stored)
            cursor.executemany(self._chain_sql, links)
            cursor.execute(self._move_sql, (position, head))
        self._project(SqlBackend(connection, self.dialect, self.prefix, copy=copy), events, positions, ahead)

    def _project(self, backend: SqlBackend, events: Sequence[NewEvent], positions: list[int],
                 ahead: dict[tuple[str, str], dict[str, Any] | None] | None) -> None:
        projector = Projector(backend, ahead)
        ops = [ops_for(event.topic, event.state, at) for event, at in zip(events, positions)]
        projector.prefetch(op for event_ops in ops for op in event_ops)
        for event_ops in ops:
            projector.apply(event_ops)
        projector.flush()

    def _log_sql(self, n: int) -> tuple[str, str]:
        """PostgreSQL: insert n events and their links (the CTEs), and move the head (the last
        statement), in one statement: `WITH {ctes} {last}`."""
        sql = self._logs.get(n)
        if sql is None:
            events = ", ".join(["(%s, %s, %s, %s, %s)"] * n)
            links = ", ".join(["(%s, %s)"] * n)
            sql = self._logs[n] = (
                f"e AS (INSERT INTO {self.events_table} ({_EVENT_NAMES}) VALUES {events}), c AS (INSERT INTO {self.chain_table} (position, head) VALUES {links})",
                f"UPDATE {self.head_table} SET position = %s, head = %s WHERE id = 1")
        return sql

    def load(self, connection: Any, originator_id: UUID) -> list[tuple[int, str, bytes]]:
        """One aggregate's stored events, in version order."""
        cursor = connection.cursor()
        cursor.execute(self._load_sql, (self.uuid_param(originator_id),))
        return [(int(v), str(t), bytes(s)) for v, t, s in cursor.fetchall()]

    def load_many(self, connection: Any, originator_ids: list[UUID]) -> dict[UUID, list[tuple[int, str, bytes]]]:
        """Several aggregates' stored events (position, topic, state), each one's in version
        order, in one query (every id has a list, empty when it has no events)."""
        found: dict[UUID, list[tuple[int, str, bytes]]] = {ident: [] for ident in originator_ids}
        if not originator_ids:
            return found
        cursor = connection.cursor()
        cursor.execute(f"SELECT originator_id, id, topic, state FROM {self.events_table} WHERE originator_id IN "
                       f"({', '.join([self._mark] * len(found))}) ORDER BY originator_id, originator_version",
                       [self.uuid_param(ident) for ident in found])
        for ident, position, topic, state in cursor.fetchall():
            key = UUID(bytes=bytes(ident)) if self.dialect == "sqlite" else ident
            found[key].append((int(position), str(topic), bytes(state)))
        return found

    def last(self, connection: Any, originator_id: UUID) -> tuple[int, bytes]:
        """One aggregate's last stored version and what tells that stored event from any other:
        its state on SQLite, its row's version on PostgreSQL ((0, b"") when it has no events)."""
        cursor = connection.cursor()
        cursor.execute(self.last_sql, (self.uuid_param(originator_id),))
        row = cursor.fetchone()
        return (int(row[0]), bytes(row[1])) if row is not None else (0, b"")

    def uuid_param(self, ident: UUID) -> Any:
        # the events table's originator id: 16 raw bytes on SQLite, a uuid on PostgreSQL
        return ident.bytes if self.dialect == "sqlite" else ident


def grew(before: int, after: int) -> bool:
    """Whether a domain's log doubled in size (from 1,024 events on) between two positions."""
    return after >= 1024 and before.bit_length() != after.bit_length()


def analyze_sql(prefix: str) -> str:
    """PostgreSQL: refresh the planner's statistics of a domain's log and read models."""
    tables = [f"{prefix}{suffix}" for suffix in ("events", "chain", *(spec.suffix for spec in READ_MODELS))]
    return "ANALYZE " + ", ".join(tables)


def head_table_sql(domain: str, dialect: str) -> list[str]:
    """Create the head row of a domain, continuing its chain if one exists."""
    prefix = f"mh_{domain}_"
    big = "INTEGER" if dialect == "sqlite" else "BIGINT"
    conflict = "OR IGNORE " if dialect == "sqlite" else ""
    tail = "" if dialect == "sqlite" else " ON CONFLICT (id) DO NOTHING"
    return [
        f"CREATE TABLE IF NOT EXISTS {prefix}head (id INTEGER PRIMARY KEY, position {big} NOT NULL, "
        "head VARCHAR(64) NOT NULL)",
        f"INSERT {conflict}INTO {prefix}head (id, position, head) "
        f"SELECT 1, coalesce(max(position), 0), coalesce((SELECT head FROM {prefix}chain "
        f"ORDER BY position DESC LIMIT 1), '{GENESIS}') FROM {prefix}chain{tail}",
    ]
