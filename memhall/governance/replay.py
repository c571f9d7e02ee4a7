"""The log replayed into read models, a batch of events at a time: what `rebuild`
writes and what `audit verify` compares with. The standard library, orjson and the
projection package only, on a plain DBAPI connection: `audit verify`'s process
beside the chain walk imports neither SQLAlchemy nor the hall.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from itertools import chain
from typing import Any

import orjson

from memhall.governance.projection import ops_for
from memhall.governance.projection.apply import Backend, Projector
from memhall.governance.projection.ops import Op

BATCH = 5000
DOMAIN_OPENED = "memhall.Domain.Opened"


def events_of(connection: Any, events_table: str, dialect: str, *, batch: int = BATCH,
              after: int = 0) -> Iterator[list[tuple[int, str, bytes]]]:
    """A domain's events as (position, topic, state bytes), a batch at a time, by key."""
    m = "?" if dialect == "sqlite" else "%s"
    sql = f"SELECT id, topic, state FROM {events_table} WHERE id > {m} ORDER BY id LIMIT {m}"
    while True:
        cursor = connection.cursor()
        cursor.execute(sql, (after, batch), **binary(dialect))
        rows: list[tuple[int, str, bytes]] = cursor.fetchall()  # already int, str, bytes on both drivers
        if rows:
            yield rows
        if len(rows) < batch:
            return
        after = rows[-1][0]


def binary(dialect: str) -> dict[str, bool]:
    """PostgreSQL: rows in the binary format. The events' states are bytea, which the text
    format sends as hex, twice their size, encoded by the server and decoded by the client:
    reading 100k events took 0.56 s of the client's CPU, 0.2 s in binary, and half the wall time."""
    return {"binary": True} if dialect == "postgresql" else {}


#: the merge targets a replay keeps in memory from batch to batch (see `Projector.keep`)
KEPT = frozenset({"threads"})


def replay(rows: list[tuple[int, str, bytes]], backend: Backend,
           ops_of: Callable[[str, dict[str, Any], int], list[Op]] = ops_for, *,
           projector: Projector | None = None) -> list[dict[str, Any]]:
    """Apply one batch of stored events to `backend` (`ops_of` each: all its row operations, or
    a part of them); the Domain.Opened states seen. A `projector` given is flushed but for the
    rows it keeps (the caller's final `flush` writes them)."""
    projector = projector if projector is not None else Projector(backend)
    opened = []
    with collector_paused():
        batch = []
        for position, topic, data in rows:
            state = orjson.loads(data)
            batch.append(ops_of(topic, state, position))
            if topic == DOMAIN_OPENED:
                opened.append(state)
        # the rows the batch's merges need, read at once (a thread's row once, not once a batch
        # per query: on PostgreSQL each read is a round trip)
        projector.prefetch(chain.from_iterable(batch))
        for ops in batch:
            projector.apply(ops)
        projector.flush(final=False)
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


