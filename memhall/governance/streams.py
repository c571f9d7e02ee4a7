"""Per-domain event streams: loading aggregates and the one `save` that hands
their new events to the journal (events, chain and projections together)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from contextvars import ContextVar
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, TypeVar
from uuid import UUID, uuid4

from eventsourcing.persistence import StoredEvent
from eventsourcing_sqlalchemy.datastore import SQLAlchemyDatastore
from eventsourcing_sqlalchemy.recorders import SQLAlchemyApplicationRecorder
from sqlalchemy import Connection, inspect, insert, select, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import sessionmaker

from memhall.domains.aggregate import Aggregate
from memhall.domains.errors import DomainRebuildingError, NotFoundError, UnknownDomainError
from memhall.governance import bulkload, fulltext, rebuilding
from memhall.governance.journal import Ahead, Journal, NewEvent, head_table_sql
from memhall.governance.mapper import PydanticMapper, new_mapper
from memhall.governance.store import Store, raw
from memhall.governance.tables import (
    SYSTEM,
    DomainTables,
    domains_table,
    registry_metadata,
    settings_table,
    store_table,
    tables_for,
)

if TYPE_CHECKING:
    from memhall.governance.seal import Seal

A = TypeVar("A", bound=Aggregate)

#: keys per IN (...) lookup
_CHUNK = 500

#: while a write is planned here to run elsewhere (`planned`): its connection's id, and what its
#: saves append to instead
_PLANNED: ContextVar[tuple[int, Any] | None] = ContextVar("planned", default=None)


@contextmanager
def planned(conn: Connection, plan: Any) -> Iterator[None]:
    """Every save on `conn` (any domain's, a refusal's too) hands its events to `plan`
    (`plan.append(journal, events)`, see `governance.piped`) instead of appending them: a
    batch computed here, appended by another process."""
    token = _PLANNED.set((id(raw(conn)), plan))
    try:
        yield
    finally:
        _PLANNED.reset(token)


def planning() -> bool:
    """Whether saves are being planned to run elsewhere (`planned`)."""
    return _PLANNED.get() is not None


class DomainStream:
    """Everything of one domain's stream within one store."""

    def __init__(self, store: Store, name: str, mapper: PydanticMapper, seal: Seal | None = None) -> None:
        self.name = name
        #: stamps the adopted policy's digest on every event and signs human acts (None: unsealed)
        self.seal = seal
        self.store = store
        self.tables: DomainTables = tables_for(name)
        self.journal = Journal(name, store.dialect)
        self.mapper = mapper
        self._sql: dict[tuple[str, int], str] = {}
        #: per connection, the answers read with the lock (`locked`), until a save: by kind
        #: ("live": `live_entries`, "replay": `replays`), the keys asked and the rows found
        self._early: dict[int, dict[str, tuple[set[str], list[tuple[Any, ...]]]]] = {}

    def create(self) -> None:
        """Create the domain's tables (idempotent). The events table keeps
        eventsourcing's schema, so its tools can still read the log."""
        datastore = SQLAlchemyDatastore(session_maker=sessionmaker(bind=self.store.write_engine))
        SQLAlchemyApplicationRecorder(datastore, events_table_name=self.tables.events_name).create_table()
        # the tables missing, from one listing of those there (SQLAlchemy's own check asks
        # about each table in turn: ~30 round trips a domain, a third of creating one)
        from memhall.governance.recompute import table_names  # (creating a domain is rare: loaded then)

        with self.store.write_engine.connect() as conn:  # connected already, by the events table's creation
            there = table_names(raw(conn), self.store.dialect)
        missing = [table for table in self.tables.metadata.sorted_tables if table.name not in there]
        if missing:
            self.tables.metadata.create_all(self.store.write_engine, tables=missing, checkfirst=False)
        with self.store.write_engine.begin() as conn:
            self.create_search(conn)
            for statement in head_table_sql(self.name, self.store.dialect):
                conn.execute(text(statement))

    def create_search(self, conn: Connection) -> None:
        for statement in fulltext.create_sql(self.tables, conn.dialect.name):
            conn.execute(text(statement))

    def reset_projections(self, conn: Connection) -> None:
        """Drop and recreate the read models (never the events, the chain or its
        head), so a rebuild also brings them to this version's schema."""
        for statement in fulltext.drop_sql(self.tables, conn.dialect.name):
            conn.execute(text(statement))
        for table in reversed(self.tables.projections):
            table.drop(conn, checkfirst=True)
        self.tables.metadata.create_all(conn, tables=list(self.tables.projections), checkfirst=False)  # dropped just now
        self.create_search(conn)
        for statement in head_table_sql(self.name, conn.dialect.name):
            conn.execute(text(statement))

    def lock(self, conn: Connection) -> None:
        """Serialize this domain's writers from the first read of a use case on,
        so facts read for the policy and for dedup cannot go stale before the
        save (SQLite already holds its write lock; PostgreSQL locks the head row)."""
        self.journal.head(raw(conn))

    @contextmanager
    def locked(self, conn: Connection, *, dedup: Sequence[str] = (), replay: Sequence[str] = (),
               rows: Sequence[tuple[str, str]] = (), open_only: bool = False) -> Iterator[None]:
        """`lock`, for the rest of the transaction: meanwhile the chain head and the charter,
        read once under the lock, are not read again (a write needs each several times).
        `dedup` (keys the write will look up, `live_entries`), `replay` (idempotency keys,
        `replays`) and `rows` (read-model rows its first save merges into) are read with the
        lock: on PostgreSQL in its round trip, so the lock is held for fewer of them.
        `open_only`: on PostgreSQL, a domain being rebuilt is refused here, its mark read in
        the same round trip (`DomainRebuildingError`; `Hall.stream(in_lock=True)` did not look)."""
        charter = self.seal.charter_ident(self.name) if self.seal is not None else None
        asked = [(kind, sorted(set(keys))) for kind, keys in (("live", dedup), ("replay", replay)) if keys]
        queries = [(self._in_sql(kind, len(keys)), keys) for kind, keys in asked]
        mark = open_only and self.store.dialect == "postgresql"
        if mark:
            queries.append(rebuilding.QUERY)
        ahead = Ahead(queries, rows) if queries or rows else None
        db = raw(conn)
        with self.journal.held(db, last_of=charter, ahead=ahead) as taken, \
                self.seal.locked(self.name, taken.last) if self.seal is not None else nullcontext():
            if mark and taken.answers:  # (a nested use: the outer one looked)
                since = rebuilding.since_in(taken.answers[-1], self.name)
                if since is not None:
                    raise DomainRebuildingError(self.name, since)
            if asked and taken.answers:
                self._early[id(db)] = {kind: (set(keys), found)
                                       for (kind, keys), found in zip(asked, taken.answers)}
            try:
                yield
            finally:
                self._early.pop(id(db), None)

    def get(self, aggregate_id: UUID, what: str = "entry", *, kind: type[A] | None = None) -> Any:
        """An aggregate rebuilt from its events, read in the current write
        transaction if there is one. An id of another kind is "not found"."""
        with self.store.read() as conn:
            rows = self.journal.load(raw(conn), aggregate_id)
        aggregate: Any = None
        for version, topic, state in rows:
            event = self.mapper.to_domain_event(StoredEvent(
                originator_id=aggregate_id, originator_version=version, topic=topic, state=state))
            aggregate = event.mutate(aggregate)  # type: ignore[attr-defined]
        if aggregate is None or (kind is not None and not isinstance(aggregate, kind)):
            raise NotFoundError(what, aggregate_id, self.name)
        return aggregate

    def save(self, conn: Connection, *aggregates: Aggregate, last: bool = False) -> list[int]:
        """Append the aggregates' new events, chained and projected, inside the
        caller's write transaction; their positions. `last`: nothing follows in the
        transaction, so on PostgreSQL it commits with these statements, in their round
        trip (one fewer under the domain's lock), unless a caller opened it around the use
        case (`Store.may_commit_early`)."""
        new: list[NewEvent] = []
        for aggregate in aggregates:
            for event in aggregate.collect_events():
                # sealed events are encoded once, by the seal, with the policy digest in them
                topic, state = self.mapper.state(event)
                data = self.mapper.transcoder.encode(state) if self.seal is None else b""
                new.append(NewEvent(event.originator_id, event.originator_version, topic, state, data))
        if self.seal is not None:
            new = self.seal.seal(conn, self, new)
        db = raw(conn)
        self._early.pop(id(db), None)  # what it read ahead may change now
        plan = _PLANNED.get()
        if plan is not None and plan[0] == id(db):
            positions: list[int] = plan[1].append(self.journal, new)
            return positions
        return self.journal.append(db, new, commit=last and self.store.may_commit_early())

    def live_entries(self, conn: Connection, dedup_keys: Iterable[str]) -> dict[str, str]:
        """Active stored entries by dedup key (the earliest if several): a value that was
        superseded or retired and comes back is a new write, not a duplicate."""
        found: dict[str, str] = {}
        for key, ident in self._rows(conn, "live", dedup_keys):
            found.setdefault(str(key), str(ident))
        return found

    def replays(self, conn: Connection, idempotency_keys: Iterable[str]) -> dict[str, tuple[str, str]]:
        """Stored entries by idempotency key: (entry id, its dedup key)."""
        return {str(key): (str(ident), str(dedup))
                for key, ident, dedup in self._rows(conn, "replay", idempotency_keys)}

    def _rows(self, conn: Connection, kind: str, keys: Iterable[str]) -> list[tuple[Any, ...]]:
        """The rows of `_in_sql(kind)` for `keys`: those read with the lock when it read them all."""
        ordered = sorted(set(keys))
        early = self._early.get(id(raw(conn)), {}).get(kind)
        if early is not None and early[0].issuperset(ordered):
            wanted = set(ordered)
            return [row for row in early[1] if str(row[0]) in wanted]
        cursor = raw(conn).cursor()
        rows: list[tuple[Any, ...]] = []
        for start in range(0, len(ordered), _CHUNK):
            chunk = ordered[start:start + _CHUNK]
            cursor.execute(self._in_sql(kind, len(chunk)), chunk)
            rows.extend(cursor.fetchall())
        return rows

    def _in_sql(self, kind: str, n: int) -> str:
        sql = self._sql.get((kind, n))
        if sql is None:
            m = "?" if self.store.dialect == "sqlite" else "%s"
            marks = ", ".join([m] * n)
            entries = self.tables.entries.name
            sql = self._sql[(kind, n)] = (
                f"SELECT dedup_key, id FROM {entries} WHERE dedup_key IN ({marks}) "
                "AND status = 'active' ORDER BY created_position" if kind == "live" else
                f"SELECT idempotency_key, id, dedup_key FROM {entries} WHERE idempotency_key IN ({marks})")
        return sql

    def head(self, db: Any) -> str:
        row = db.execute(
            select(self.tables.chain.c.head).order_by(self.tables.chain.c.position.desc()).limit(1)
        ).first()
        return str(row[0]) if row else "0" * 64


class Streams:
    """The registry of domains in a store, and their streams."""

    def __init__(self, store: Store, seal: Seal | None = None) -> None:
        self.store = store
        self.seal = seal
        self.mapper = new_mapper()
        self._streams: dict[str, DomainStream] = {}
        self._known: set[str] = set()
        self._restored: set[str] = set()
        self._ready = False

    def ensure_registry(self) -> None:
        if self._ready:
            return
        # looked at through the read engine: on SQLite a write connection's every transaction
        # takes the write lock (BEGIN IMMEDIATE), so a reader would wait behind any writer
        # (a hook's handoff on a busy store, `audit log` beside an import) to see tables that exist
        engine, looking = self.store.write_engine, inspect(self.store.read_engine)
        if not looking.has_table(store_table.name):
            registry_metadata.create_all(engine, checkfirst=True)
            try:
                with engine.begin() as conn:
                    conn.execute(insert(store_table), {"key": "store", "id": str(uuid4()),
                                                       "created_at": datetime.now(timezone.utc)})
            except IntegrityError:
                pass  # another process named the store first
        elif not looking.has_table(settings_table.name):  # a store older than its settings
            settings_table.create(engine, checkfirst=True)
        system = self._stream(SYSTEM)
        if not looking.has_table(system.tables.head_name):
            system.create()
        self._ready = True

    def _stream(self, name: str) -> DomainStream:
        stream = self._streams.get(name)
        if stream is None:
            stream = self._streams[name] = DomainStream(self.store, name, self.mapper, self.seal)
        return stream

    def names(self) -> list[str]:
        self.ensure_registry()
        with self.store.read() as conn:
            return [r[0] for r in conn.execute(select(domains_table.c.name).order_by(domains_table.c.name))]

    def discovered(self) -> list[str]:
        """Domains whose event tables exist, whether or not the registry lists them
        (the registry is a read model: `rebuild` restores it, `audit verify` checks it)."""
        names = []
        for table in inspect(self.store.read_engine).get_table_names():
            if table.startswith("mh_") and table.endswith("_events"):
                name = table[3:-7]
                if name != SYSTEM:
                    names.append(name)
        return sorted(names)

    def exists(self, name: str) -> bool:
        if name in self._known:
            return True
        self.ensure_registry()
        with self.store.read() as conn:
            found = conn.execute(select(domains_table.c.name).where(domains_table.c.name == name)).first()
        if found:
            self._known.add(name)
        return found is not None

    def stream(self, name: str) -> DomainStream:
        """The stream of an existing domain; an unknown domain is refused."""
        if not self.exists(name):
            raise UnknownDomainError(name)
        stream = self._stream(name)
        if name not in self._restored:  # once per process: what an import killed midway set aside
            self._restored.add(name)
            bulkload.restore(self.store, stream.tables)
        return stream

    def opened(self, name: str) -> bool:
        """Whether this process has opened the domain's stream (`stream`) already."""
        return name in self._restored

    def stream_of_tables(self, name: str) -> DomainStream:
        """A stream by its tables alone, for maintenance of a damaged registry."""
        return self.system() if name == SYSTEM else self._stream(name)

    def system(self) -> DomainStream:
        self.ensure_registry()
        return self._stream(SYSTEM)

    def prepare(self, name: str) -> DomainStream:
        """Create a new domain's tables, outside any write transaction (DDL on
        another connection would wait on the write lock the transaction holds)."""
        self.ensure_registry()
        stream = self._stream(name)
        stream.create()
        return stream

    def topics(self, name: str) -> list[str]:
        """The topics of a domain's events, in log order (for reviews and tests)."""
        with self.store.read() as conn:
            return [str(r[0]) for r in conn.execute(text(
                f"SELECT topic FROM {tables_for(name).events_name} ORDER BY id"))]

    def event_count(self, name: str) -> int:
        with self.store.read() as conn:
            return int(conn.execute(text(f"SELECT count(*) FROM {tables_for(name).events_name}")).scalar_one())

    def register(self, conn: Connection, name: str, actor: str, at: datetime) -> DomainStream:
        stream = self._stream(name)
        conn.execute(insert(domains_table).values(name=name, created_at=at, created_by=actor))
        self._known.add(name)
        return stream
