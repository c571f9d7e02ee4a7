"""Per-domain event streams: a recorder, event store and repository per domain,
and the one `save` that writes events, projections and the chain together."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any, cast
from uuid import UUID, uuid4

from eventsourcing.application import AggregateNotFoundError, Repository
from eventsourcing.domain import DomainEventProtocol
from eventsourcing.persistence import EventStore, StoredEvent
from eventsourcing_sqlalchemy.recorders import SQLAlchemyApplicationRecorder
from sqlalchemy import Connection, insert, inspect, select, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from memhall.audit.chain import GENESIS, ChainedEvent, link
from memhall.domains.aggregate import Aggregate, DomainEvent
from memhall.domains.errors import NotFoundError, UnknownDomainError
from memhall.governance import fulltext, projections, promotion_records, requests  # noqa: F401 (registers handlers)
from memhall.governance.mapper import PydanticMapper, new_mapper
from memhall.governance.store import Store
from memhall.governance.tables import (
    SYSTEM,
    DomainTables,
    domains_table,
    registry_metadata,
    store_table,
    tables_for,
)


class DomainStream:
    """Everything of one domain's stream within one store."""

    def __init__(self, store: Store, name: str, mapper: PydanticMapper, *, chained: bool = True) -> None:
        self.name = name
        #: False only in benchmarks that measure what the chain costs
        self.chained = chained
        self.tables: DomainTables = tables_for(name)
        self.recorder = SQLAlchemyApplicationRecorder(
            store.datastore, events_table_name=self.tables.events_name
        )
        self.events = EventStore(mapper, self.recorder)
        self.repository: Repository[UUID] = Repository(self.events)
        self.mapper = mapper

    def create(self, store: Store) -> None:
        """Create the domain's tables (idempotent)."""
        self.recorder.create_table()
        self.tables.metadata.create_all(store.write_engine, checkfirst=True)
        with store.write_engine.begin() as conn:
            self._create_search(conn)

    def _create_search(self, conn: Connection) -> None:
        if conn.dialect.name == "sqlite":
            conn.execute(text(
                f"CREATE VIRTUAL TABLE IF NOT EXISTS {self.tables.search_name} "
                "USING fts5(entry_id UNINDEXED, body, tokenize='unicode61 remove_diacritics 2')"))
        else:
            conn.execute(text(
                f"CREATE INDEX IF NOT EXISTS {self.tables.prefix}entries_fts ON "
                f"{self.tables.entries.name} USING GIN ({fulltext.DOCUMENT})"))

    def reset_projections(self, session: Session) -> None:
        """Drop and recreate the read models (never the events or the chain), so
        a rebuild also brings them to this version's schema."""
        conn = session.connection()
        if conn.dialect.name == "sqlite":
            conn.execute(text(f"DROP TABLE IF EXISTS {self.tables.search_name}"))
        for table in reversed(self.tables.projections):
            table.drop(conn, checkfirst=True)
        self.tables.metadata.create_all(conn, tables=list(self.tables.projections))
        self._create_search(conn)

    def lock(self, session: Session) -> None:
        """Serialize writers of this domain from the first read of a use case on:
        facts read for the policy and for dedup cannot go stale before the save.
        SQLite already holds its write lock (BEGIN IMMEDIATE); PostgreSQL takes
        the same table lock the event recorder takes on insert."""
        if session.get_bind().dialect.name == "postgresql":
            session.execute(text(f"LOCK TABLE {self.tables.events_name} IN EXCLUSIVE MODE"))

    def get(self, aggregate_id: UUID, what: str = "entry") -> Any:
        try:
            return self.repository.get(aggregate_id)
        except AggregateNotFoundError:
            raise NotFoundError(what, aggregate_id) from None

    def save(self, session: Session, *aggregates: Aggregate) -> list[int]:
        """Append the aggregates' new events, then project and chain them,
        all inside the caller's write transaction."""
        pending: list[DomainEventProtocol[UUID]] = []
        for aggregate in aggregates:
            pending.extend(aggregate.collect_events())
        if not pending:
            return []
        recordings = self.events.put(pending, session=session)
        for recording in recordings:
            projections.apply(session, self.tables, cast(DomainEvent, recording.domain_event),
                              recording.notification.id)
        if self.chained:
            self._chain(session, [r.notification for r in recordings])
        return [r.notification.id for r in recordings]

    def _chain(self, session: Session, notifications: Sequence[Any]) -> None:
        head = self.head(session)
        rows = []
        for notification in notifications:
            head = link(self.name, head, as_chained(notification))
            rows.append({"position": notification.id, "head": head})
        session.execute(insert(self.tables.chain), rows)

    def head(self, db: Any) -> str:
        row = db.execute(
            select(self.tables.chain.c.head).order_by(self.tables.chain.c.position.desc()).limit(1)
        ).first()
        return str(row[0]) if row else GENESIS


def as_chained(record: Any) -> ChainedEvent:
    state = record.state
    return ChainedEvent(
        position=int(record.id),
        originator_id=record.originator_id if isinstance(record.originator_id, UUID) else UUID(str(record.originator_id)),
        originator_version=int(record.originator_version),
        topic=str(record.topic),
        state=bytes(state) if isinstance(state, memoryview) else state,
    )


class Streams:
    """The registry of domains in a store, and their streams."""

    def __init__(self, store: Store, *, chained: bool = True) -> None:
        self.store = store
        self.chained = chained
        self.mapper = new_mapper()
        self._streams: dict[str, DomainStream] = {}
        self._known: set[str] = set()
        self._ready = False

    def ensure_registry(self) -> None:
        if self._ready:
            return
        engine = self.store.write_engine
        if not inspect(engine).has_table(store_table.name):
            registry_metadata.create_all(engine, checkfirst=True)
            try:
                with engine.begin() as conn:
                    conn.execute(insert(store_table), {"key": "store", "id": str(uuid4()),
                                                       "created_at": datetime.now(timezone.utc)})
            except IntegrityError:
                pass  # another process named the store first
        system = self._stream(SYSTEM)
        if not inspect(engine).has_table(system.tables.chain.name):
            system.create(self.store)
        self._ready = True

    def _stream(self, name: str) -> DomainStream:
        stream = self._streams.get(name)
        if stream is None:
            stream = self._streams[name] = DomainStream(self.store, name, self.mapper,
                                                        chained=self.chained)
        return stream

    def names(self) -> list[str]:
        self.ensure_registry()
        with self.store.read() as conn:
            return [r[0] for r in conn.execute(select(domains_table.c.name).order_by(domains_table.c.name))]

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
        return self._stream(name)

    def system(self) -> DomainStream:
        self.ensure_registry()
        return self._stream(SYSTEM)

    def prepare(self, name: str) -> DomainStream:
        """Create a new domain's tables, outside any write transaction (DDL on
        another connection would wait on the write lock the transaction holds)."""
        self.ensure_registry()
        stream = self._stream(name)
        stream.create(self.store)
        return stream

    def register(self, session: Session, name: str, actor: str, at: datetime) -> DomainStream:
        stream = self._stream(name)
        session.execute(insert(domains_table).values(name=name, created_at=at, created_by=actor))
        self._known.add(name)
        return stream

    def notifications(self, name: str, start: int, limit: int) -> list[Any]:
        return cast(list[Any], self._stream(name).recorder.select_notifications(start, limit))

    def decode(self, name: str, record: Any) -> DomainEvent:
        stored = StoredEvent(
            originator_id=record.originator_id,
            originator_version=record.originator_version,
            topic=record.topic,
            state=bytes(record.state) if isinstance(record.state, memoryview) else record.state,
        )
        return cast(DomainEvent, self.mapper.to_domain_event(stored))

