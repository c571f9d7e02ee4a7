"""Drop every projection, recreate it in this version's schema, and replay the
log into it — the same handlers and the same set-based writer a single write
uses, a batch of events per transaction.

The hash chain and its head are not touched: they are evidence, not read
models. The domain registry is restored from each stream's `Domain.Opened`.
"""

from __future__ import annotations

import gc
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import orjson
from sqlalchemy import insert, select

from memhall.domains.records import Rebuild
from memhall.domains.values import principal_name
from memhall.governance import fulltext
from memhall.governance.hall import Hall
from memhall.governance.journal import analyze_sql
from memhall.governance.projection import ops_for
from memhall.governance.projection.apply import Backend, Projector, SqlBackend
from memhall.governance.projection.schema import iso
from memhall.governance.store import raw
from memhall.governance.tables import SYSTEM, domains_table
from memhall.policies.model import Action, Decision, PolicyRequest, ResourceType

BATCH = 5000
DOMAIN_OPENED = "memhall.Domain.Opened"

#: called after each batch with (domain, events replayed so far, events in the domain)
Progress = Callable[[str, int, int], None]


def events_of(connection: Any, events_table: str, dialect: str, *, batch: int = BATCH,
              after: int = 0) -> Iterator[list[tuple[int, str, bytes]]]:
    """A domain's events as (position, topic, state bytes), a batch at a time, by key."""
    m = "?" if dialect == "sqlite" else "%s"
    sql = f"SELECT id, topic, state FROM {events_table} WHERE id > {m} ORDER BY id LIMIT {m}"
    while True:
        cursor = connection.cursor()
        cursor.execute(sql, (after, batch))
        rows: list[tuple[int, str, bytes]] = cursor.fetchall()  # already int, str, bytes on both drivers
        if rows:
            yield rows
        if len(rows) < batch:
            return
        after = rows[-1][0]


def replay(rows: list[tuple[int, str, bytes]], backend: Backend) -> list[dict[str, Any]]:
    """Apply one batch of stored events to `backend`; the Domain.Opened states seen."""
    projector = Projector(backend)
    opened = []
    with collector_paused():
        batch = []
        for position, topic, data in rows:
            state = orjson.loads(data)
            batch.append(ops_for(topic, state, position))
            if topic == DOMAIN_OPENED:
                opened.append(state)
        # the rows the batch's merges need, read at once (a thread's row once, not once a batch
        # per query: on PostgreSQL each read is a round trip)
        projector.prefetch(op for ops in batch for op in ops)
        for ops in batch:
            projector.apply(ops)
        projector.flush()
    return opened


@contextmanager
def collector_paused() -> Iterator[None]:
    """A batch holds thousands of fresh rows, none of them in a reference cycle; without
    this the cycle collector walks all of them again and again while the batch grows.
    A replay pauses it for all its batches, not each: the collections a batch's end set off,
    with tens of thousands of young objects alive, were ~10 % of a verify's CPU time at
    100k events (and a 100k-event replay leaves a few hundred objects in cycles)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def count(connection: Any, events_table: str) -> int:
    cursor = connection.cursor()
    cursor.execute(f"SELECT count(*) FROM {events_table}")
    return int(cursor.fetchone()[0])


def rebuild(hall: Hall, domains: list[str] | None = None, batch: int = BATCH,
            progress: Progress | None = None) -> dict[str, int]:
    """Rebuild the projections of the given domains (default all); events replayed per domain.

    The read models' secondary indexes are dropped while the log is replayed and
    built once at the end: sorting each index once is cheaper than keeping it up
    to date row by row. Until then, readers of that domain are slow, not wrong."""
    names = domains if domains is not None else [*hall.streams.discovered(), SYSTEM]
    replayed: dict[str, int] = {}
    for name in names:
        stream = hall.streams.stream_of_tables(name) if domains is None else (
            hall.streams.system() if name == SYSTEM else hall.streams.stream(name))
        indexes = [index for table in stream.tables.projections for index in table.indexes]
        with hall.store.write() as conn:
            stream.reset_projections(conn)
            for index in indexes:
                index.drop(conn)
            for statement in fulltext.create_sql(stream.tables, hall.store.dialect):
                named = re.match(r"CREATE INDEX IF NOT EXISTS (\w+) ", statement)
                if named is not None:  # PostgreSQL's full-text index is one more secondary index
                    conn.exec_driver_sql(f"DROP INDEX IF EXISTS {named.group(1)}")
            total = count(raw(conn), stream.tables.events_name)
        done, after = 0, 0
        with collector_paused():
            while True:
                with hall.store.write() as conn:
                    connection = raw(conn)
                    rows = next(events_of(connection, stream.tables.events_name, hall.store.dialect,
                                          batch=batch, after=after), [])
                    opened = replay(rows, SqlBackend(connection, hall.store.dialect, stream.tables.prefix))
                    for state in opened:
                        _register(conn, state)
                done += len(rows)
                if progress is not None:
                    progress(name, done, total)
                if len(rows) < batch:
                    break
                after = rows[-1][0]
        with hall.store.write() as conn:
            for index in indexes:
                index.create(conn)
            stream.create_search(conn)
            for statement in fulltext.optimize_sql(stream.tables, hall.store.dialect):
                conn.exec_driver_sql(statement)
            if hall.store.dialect != "sqlite":
                conn.exec_driver_sql(analyze_sql(stream.tables.prefix))
        replayed[name] = done
    return replayed


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


def _register(conn: Any, state: dict[str, Any]) -> None:
    """Put a domain back in the registry if its row was lost."""
    found = conn.execute(select(domains_table.c.name).where(domains_table.c.name == state["name"])).first()
    if found is None:
        conn.execute(insert(domains_table).values(
            name=state["name"], created_at=_time(state["timestamp"]), created_by=state["actor"]))


def _time(value: str) -> Any:
    from memhall.governance.projection.schema import from_iso

    return from_iso(iso(value))
