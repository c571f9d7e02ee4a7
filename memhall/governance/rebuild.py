"""Drop every projection, recreate it in this version's schema, and replay the
log into it — the same handlers and the same set-based writer a single write
uses, a batch of events per transaction.

The hash chain and its head are not touched: they are evidence, not read
models. The domain registry is restored from each stream's `Domain.Opened`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import Index, insert, select
from sqlalchemy.schema import CreateIndex, CreateTable, DropTable

from memhall.domains.records import Rebuild
from memhall.domains.values import principal_name
from memhall.governance import bulkload, fulltext, pipelined, rebuilding
from memhall.governance.hall import Hall
from memhall.governance.journal import head_table_sql
from memhall.governance.pipelined import Planned
from memhall.governance.projection.apply import Projector
from memhall.governance.projection.plans import ONE
from memhall.governance.projection.schema import RETIRED, iso
from memhall.governance.replay import BATCH, KEPT, collector_paused, count, events_of, replay
from memhall.governance.store import raw
from memhall.governance.tables import SYSTEM, DomainTables, domains_table
from memhall.policies.model import Action, Decision, PolicyRequest, ResourceType

__all__ = ["BATCH", "events_of", "governed_rebuild", "rebuild"]

#: called after each batch with (domain, events replayed so far, events in the domain)
Progress = Callable[[str, int, int], None]

#: SQLite: the indexes a rebuild keeps up to date as it replays, created with their (empty)
#: tables, instead of built sorted once at its end as the others are. Each one's key grows with
#: the log after a few distinct leading values (a position, a time, a kind or status), so a row
#: lands at the right edge of its group, pages in the cache: cheap to add, and added in the
#: writer process beside (`pipelined`), which has time to spare while this one decodes the
#: next batch. What is built at the end runs alone, nothing beside it. Measured at 100k
#: events, taking turns: 17,600 events/s with every index built at the end, 19,300 with these
#: kept. Random keys (dedup hashes, entry ids, threads) stay at the end: a row of theirs lands
#: anywhere, a page read and written per row.
GROWING = frozenset({"entries_created", "entries_occurred", "entries_kind_time", "entries_newest",
                     "entries_state", "entries_session", "audit_actor"})


def rebuild(hall: Hall, domains: list[str] | None = None, batch: int = BATCH,
            progress: Progress | None = None) -> dict[str, int]:
    """Rebuild the projections of the given domains (default all); events replayed per domain.

    The read models' secondary indexes are dropped while the log is replayed and
    built once at the end: sorting each index once is cheaper than keeping it up
    to date row by row (on SQLite, but those whose keys grow with the log: `GROWING`). Meanwhile the domain is closed to readers and writers
    (`rebuilding`): its read models hold only what was replayed so far."""
    with rebuilding.exclusive(hall.store):  # a second rebuild would empty the read models under this one
        return _rebuild(hall, domains, batch, progress)


def _rebuild(hall: Hall, domains: list[str] | None, batch: int, progress: Progress | None) -> dict[str, int]:
    names = domains if domains is not None else [*hall.streams.discovered(), SYSTEM]
    replayed: dict[str, int] = {}
    for name in names:
        stream = hall.streams.stream_of_tables(name) if domains is None else (
            hall.streams.system() if name == SYSTEM else hall.streams.stream(name))
        indexes = [index for table in stream.tables.projections for index in table.indexes]
        growing = [index for index in indexes if hall.store.dialect == "sqlite"
                   and str(index.name).removeprefix(stream.tables.prefix) in GROWING]
        indexes = [index for index in indexes if index not in growing]
        with hall.store.read() as conn:
            total = count(raw(conn), stream.tables.events_name)
        done = 0
        # closed until its read models are whole again, committed before they are emptied (a
        # failed rebuild leaves it closed: see `rebuilding`)
        rebuilding.mark(hall.store, name)
        # the threads' rows stay in memory from batch to batch (this replay
        # alone writes them), written once, with the last batch
        projector: Projector | None = None
        # a larger page cache and fewer WAL checkpoints while the log is replayed (as an import);
        # the events are read on a connection of their own, each batch's writes computed here and
        # run by `writer` (a large rebuild's in a process beside this one: see `pipelined`)
        with bulkload.tuned(hall.store), collector_paused(), hall.store.read() as reading:
            writer = pipelined.writer(hall.store, stream.tables.prefix, total)
            opened: list[dict[str, Any]] = []
            try:
                # the read models emptied first, in a transaction of their own (dropping a large
                # SQLite table visits each of its pages: in a writer beside, meanwhile the first
                # batches are computed here)
                writer.submit([(ONE, statement, ()) for statement
                               in reset_sql(hall, stream.name, stream.tables, growing)], 0)
                limit = raw(reading).getlimit(9) if hall.store.dialect == "sqlite" else 0
                for rows in events_of(raw(reading), stream.tables.events_name, hall.store.dialect, batch=batch):
                    backend = Planned(writer, hall.store.dialect, stream.tables.prefix, limit)
                    if projector is None:
                        projector = Projector(backend, keep=KEPT)
                    projector.backend = backend  # this batch's plan
                    opened += replay(rows, backend, projector=projector)
                    done += len(rows)
                    if len(rows) < batch:
                        projector.flush()
                    writer.submit(backend.plan, len(rows))
                    if progress is not None:
                        progress(name, writer.done, total)
                if projector is not None and done % batch == 0:
                    # the last batch was full: the rows kept in memory are written by one more
                    backend = Planned(writer, hall.store.dialect, stream.tables.prefix, limit)
                    projector.backend = backend
                    projector.flush()
                    writer.submit(backend.plan, 0)
            except BaseException:
                writer.close(failed=True)
                raise
            writer.close()
        with hall.store.write() as conn:
            for state in opened:  # the registry's row of a domain, if it was lost
                _register(conn, state)
        if progress is not None:
            progress(name, done, total)
        if hall.store.dialect == "postgresql":
            _index_postgresql(hall, stream, indexes)
        else:
            with hall.store.write() as conn:
                # the writer process changed the schema: a statement that reads it makes this
                # connection load it again (CREATE INDEX checks names against the one it holds)
                conn.exec_driver_sql("SELECT count(*) FROM sqlite_master")
                for index in indexes:
                    index.create(conn, checkfirst=True)  # one a reader of an older version built
                stream.create_search(conn)
                for statement in fulltext.optimize_sql(stream.tables, hall.store.dialect):
                    conn.exec_driver_sql(statement)
        rebuilding.clear(hall.store, name)
        replayed[name] = done
    return replayed


def reset_sql(hall: Hall, name: str, tables: DomainTables, indexes: Sequence[Index] = ()) -> list[str]:
    """Drop every read model (and those of earlier versions, `RETIRED`) and create it
    again, empty, in this version's schema, with only the given secondary indexes (the others
    are built at the end); the chain's head table as `Stream` makes it."""
    dialect = hall.store.write_engine.dialect
    projections = set(tables.projections)
    return [
        *fulltext.drop_sql(tables, dialect.name),
        *(str(DropTable(table, if_exists=True).compile(dialect=dialect)) for table in reversed(tables.projections)),
        *(f"DROP TABLE IF EXISTS {tables.prefix}{suffix}" for suffix in RETIRED),
        *(str(CreateTable(table).compile(dialect=dialect)).strip()
          for table in tables.metadata.sorted_tables if table in projections),
        *(str(CreateIndex(index).compile(dialect=dialect)).strip() for index in indexes),
        # SQLite's full-text tables; PostgreSQL's document column (its index is one more secondary index)
        *fulltext.table_sql(tables, dialect.name),
        *head_table_sql(name, dialect.name),
    ]


def governed_rebuild(hall: Hall, actor: str, *, batch: int = BATCH,
                     progress: Progress | None = None) -> dict[str, int]:
    """`memhall rebuild`: every domain's read models, if the policy lets the actor
    rebuild each of them (its chairs and owner, by default). A refusal in any
    domain is recorded and nothing is rebuilt; each rebuilt domain's log then
    records who rebuilt it, under which rule."""
    actor = principal_name(actor)
    allowed: dict[str, Decision] = {}
    for name in hall.streams.discovered():
        stream = hall.streams.stream_of_tables(name)
        request = PolicyRequest(principal=actor, action=Action.REBUILD, domain=name,
                                resource_type=ResourceType.DOMAIN, resource_id=name)
        with hall.writing(stream) as session:
            allowed[name] = hall.authorize(session, stream, request)  # a refusal is recorded, and raised
    counts = rebuild(hall, batch=batch, progress=progress)
    for name, decision in allowed.items():
        stream = hall.streams.stream_of_tables(name)
        with hall.writing(stream) as session:
            stream.save(session, Rebuild(events=counts.get(name, 0), actor=actor, rule=decision.rule_id))
    return counts


class _Beside:
    """A call run in a thread (its time is the server's: the thread only waits); `join` raises
    what it raised."""

    def __init__(self, call: Callable[[], None]) -> None:
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, args=(call,), daemon=True)
        self.thread.start()

    def _run(self, call: Callable[[], None]) -> None:
        try:
            call()
        except BaseException as error:  # noqa: BLE001 - handed to the caller by join
            self.error = error

    def join(self) -> None:
        self.thread.join()
        if self.error is not None:
            raise self.error


def _index_postgresql(hall: Hall, stream: Any, indexes: list[Any]) -> None:
    """PostgreSQL: the planner's statistics and the read models' secondary indexes, on two
    connections at once (two cores: neither waits for the other). A table's statistics are
    its columns' (the document column's too), whatever indexes it has, so they come first,
    each in a transaction of its own: ANALYZE and CREATE INDEX of one table wait for each
    other. This connection then builds entries' btrees; the one beside builds every other
    read model's indexes, then the full-text index (a GIN over every entry's document, the
    longest build, sharing entries' SHARE lock) once entries' statistics are in."""
    entries = stream.tables.entries
    analyzed = threading.Event()
    beside = _Beside(lambda: _others_then_search(hall, stream, [i for i in indexes if i.table is not entries],
                                                 analyzed))
    try:
        try:
            with hall.store.write() as conn:
                conn.exec_driver_sql(_analyze_sql(stream.tables, entries=True))
        finally:
            analyzed.set()  # (on an error, the one beside ends as it would: its own error, or none)
        with hall.store.write() as conn:
            for index in indexes:
                if index.table is entries:
                    index.create(conn, checkfirst=True)  # one a reader of an older version built
    finally:
        beside.join()


def _others_then_search(hall: Hall, stream: Any, indexes: list[Any], analyzed: threading.Event) -> None:
    with hall.store.write_engine.begin() as conn:
        conn.exec_driver_sql(_analyze_sql(stream.tables, entries=False))
    with hall.store.write_engine.begin() as conn:
        for index in indexes:
            index.create(conn, checkfirst=True)
    analyzed.wait()
    with hall.store.write_engine.begin() as conn:
        stream.create_search(conn)


def _analyze_sql(tables: DomainTables, *, entries: bool) -> str:
    """PostgreSQL: ANALYZE the entries read model, or every other one."""
    return "ANALYZE " + ", ".join(table.name for table in tables.projections
                                  if (table is tables.entries) == entries)


def _register(conn: Any, state: dict[str, Any]) -> None:
    """Put a domain back in the registry if its row was lost."""
    found = conn.execute(select(domains_table.c.name).where(domains_table.c.name == state["name"])).first()
    if found is None:
        conn.execute(insert(domains_table).values(
            name=state["name"], created_at=_time(state["timestamp"]), created_by=state["actor"]))


def _time(value: str) -> Any:
    from memhall.governance.projection.schema import from_iso

    return from_iso(iso(value))
