"""A large import on SQLite builds some read-model indexes once, at its end.

Every imported line adds a row to `entries`, `exposure`, `audit` and moves a
`threads` row; keeping those tables' secondary indexes up to date row by row
is a third of an import's SQLite time (ten indexes on `entries` alone). Past
`DEFER_MIN` lines, and once the import has read as many lines as the domain
had events when it began (so a small import into a large store never pays for
rebuilding its indexes), those indexes are dropped and built once, sorted,
when the import ends, as `rebuild` does for all of them.

What the import itself looks up stays: the unique idempotency index (what
makes importing a file again write nothing), dedup by key, and every primary
key. The rows are the same with or without the indexes: readers meanwhile are
slower, never wrong. An import that fails rebuilds them on its way out; one
killed outright leaves them missing, and the next process that opens the
domain builds them (`restore`) before it reads. (A process that opens the
domain while an import runs builds them too, between two of its batches: the
import then keeps them up to date as a small one does, slower, still right.)

While an import runs, its SQLite connection also keeps more pages in memory
and checkpoints the WAL less often (`tuned`): with SQLite's defaults (2 MiB of
cache, a checkpoint every 1,000 pages) a batch's dirty pages spill to the WAL
before its commit and every other commit copies them into the database file,
about ten page reads and writes per imported line. Its batches also commit
without syncing the WAL (synchronous=NORMAL); when the import ends, however it
ends, the WAL is synced once. Until then a power loss
(not a killed process: the pages are the kernel's already) could take back the
latest batches, never tear one, and running the import again writes them; a
reader that acts on an imported entry writes at synchronous=FULL, and that sync
of the same WAL file makes the entry durable first.

PostgreSQL keeps its indexes: dropping one locks the table against every
reader until the import's end.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from sqlalchemy import Index

from memhall.governance.store import Store, raw
from memhall.governance.tables import DomainTables

#: an import defers indexes from this many lines on
DEFER_MIN = 5_000
#: the read models an imported line writes
DEFERRED_TABLES = ("entries", "exposure", "audit", "threads")
#: what the import looks up while it runs (besides primary keys and unique indexes)
KEPT = ("entries_dedup",)
#: while an import runs: its page cache (KiB) and the WAL pages between two checkpoints
CACHE_KIB = 32_768
CHECKPOINT_PAGES = 10_000
#: PRAGMA synchronous = NORMAL: in WAL mode, a commit writes the WAL without syncing it
SYNC_NORMAL = 1


def deferrable(tables: DomainTables) -> list[Index]:
    """The secondary indexes a large import builds at its end."""
    names = {tables.prefix + suffix for suffix in DEFERRED_TABLES}
    kept = {tables.prefix + suffix for suffix in KEPT}
    return [index for table in tables.projections if table.name in names
            for index in table.indexes if not index.unique and index.name not in kept]


def missing(store: Store, tables: DomainTables) -> list[Index]:
    """The deferrable indexes that are not there (SQLite)."""
    wanted = deferrable(tables)
    with store.read() as conn:
        cursor = raw(conn).cursor()
        marks = ", ".join("?" for _ in wanted)
        cursor.execute(f"SELECT name FROM sqlite_master WHERE type = 'index' AND name IN ({marks})",
                       [index.name for index in wanted])
        present = {str(row[0]) for row in cursor.fetchall()}
    return [index for index in wanted if index.name not in present]


def restore(store: Store, tables: DomainTables) -> bool:
    """Build the deferred indexes an import killed before its end left missing; whether any were."""
    if store.dialect != "sqlite" or not missing(store, tables):
        return False
    with store.write() as conn:
        for index in deferrable(tables):
            index.create(conn, checkfirst=True)
    return True


@contextmanager
def tuned(store: Store) -> Iterator[None]:
    """An import's SQLite write connection with a larger cache, fewer checkpoints and no
    sync at each commit; its own settings back, and the files synced, when the import ends."""
    if store.dialect != "sqlite":
        yield
        return
    before = _settings(store, {"cache_size": -CACHE_KIB, "wal_autocheckpoint": CHECKPOINT_PAGES,
                               "synchronous": SYNC_NORMAL})
    try:
        yield
    finally:
        _settings(store, before)
        synced(store)


def _settings(store: Store, wanted: dict[str, int]) -> dict[str, int]:
    """Set PRAGMAs on the write connection, outside a transaction (SQLite refuses to change
    `synchronous` inside one); what they were."""
    with store.write_engine.connect() as conn:
        cursor = raw(conn).cursor()
        before = {name: int(cursor.execute(f"PRAGMA {name}").fetchone()[0]) for name in wanted}
        for name, value in wanted.items():
            cursor.execute(f"PRAGMA {name} = {int(value)}")
    return before


def synced(store: Store) -> None:
    """Make every committed page durable: sync the WAL (what a commit at synchronous=FULL
    does for its own pages; one fsync covers the whole file).

    Never the database file itself: closing any descriptor of it would drop every POSIX lock
    this process's SQLite connections hold on it, and another process (a rebuild's writer, a
    reader) closing its last connection would then take itself for the last one and delete the
    WAL under ours. Nor is it needed: pages reach the database file only by checkpoints, which
    at synchronous=NORMAL sync the WAL before copying it and the file after a complete one; what
    a partial one copied is still in the synced WAL."""
    path = store.write_engine.url.database
    if not path or path == ":memory:":
        return
    try:
        handle = os.open(f"{path}-wal", os.O_RDONLY)
    except FileNotFoundError:
        return
    try:
        os.fsync(handle)
    finally:
        os.close(handle)


@contextmanager
def deferring(store: Store, tables: DomainTables, at: int = DEFER_MIN) -> Iterator[Callable[[int], None]]:
    """For one import (of at least `at` lines): yields `ready(lines_read)`, called before each batch is written, which
    drops the indexes once the import is large enough; they are built again when the block
    exits, however it exits."""
    dropped = False
    threshold = max(at, _events(store, tables)) if store.dialect == "sqlite" else 0

    def ready(lines_read: int) -> None:
        nonlocal dropped
        if dropped or not threshold or lines_read < threshold:
            return
        with store.write() as conn:
            for index in deferrable(tables):
                conn.exec_driver_sql(f"DROP INDEX IF EXISTS {index.name}")
        dropped = True

    try:
        yield ready
    finally:
        if dropped:
            with store.write() as conn:
                for index in deferrable(tables):
                    index.create(conn, checkfirst=True)


def _events(store: Store, tables: DomainTables) -> int:
    with store.read() as conn:
        cursor = raw(conn).cursor()
        cursor.execute(f"SELECT position FROM {tables.head_name} WHERE id = 1")
        row = cursor.fetchone()
    return int(row[0]) if row is not None else 0
