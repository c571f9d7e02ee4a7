"""A batch's SQL as data (a plan), and the process that runs plans beside a rebuild.

`Recorder` is the DBAPI connection `apply.SqlBackend` writes to when its statements
are to run elsewhere: it keeps each call (`execute`, `executemany`, a COPY's rows) in
order, as a plan. `run` plays a plan on a real connection. `serve` is the writer
process of a large rebuild (`governance.pipelined`): it reads requests from stdin
(`frame`d) — open a connection, run a plan in a transaction, read rows for a merge —
and answers on stdout, pickled. Stdlib, the database driver and this package only: no
SQLAlchemy.
"""

from __future__ import annotations

import marshal
import pickle
import struct
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, BinaryIO, NamedTuple

ONE, MANY, COPY = "one", "many", "copy"
#: (APPEND, domain, (dialect, position, events)): append events (`_append`) to a domain's
#: journal, which chains and projects them there (`Journal.append`), if its last position is
#: still `position` (None: not checked)
APPEND = "append"
Plan = list[tuple[str, str, Any]]

#: SQLite's `secure_delete` on every connection memhall writes with. Debian's SQLite (and
#: others) is built with it on: every page a write frees is overwritten with zeros, so dropping
#: the read models at a rebuild's start wrote each of their pages to the WAL once more (171 MB
#: of WAL at 100k events: 1.3 s of the writer's time, 0.4 s with FAST), as does each FTS5
#: segment merge and each index an import drops. FAST still zeroes what is deleted on a page
#: the write writes anyway; only whole freed pages keep their bytes until reused. Nothing is
#: lost to that: memhall never erases an event, and every read-model row is derived from the
#: log that keeps it (`audit verify` recomputes them from it).
SECURE_DELETE = "secure_delete = FAST"
#: WAL pages between two checkpoints of the writer beside an import or a rebuild. Its batches
#: write thousands of pages each, and in a large store most are leaves of the read models'
#: randomly keyed indexes (entry ids), written again by the batches after: the fewer
#: checkpoints, the fewer times each is copied into the database file. At 1M events a rebuild's
#: writer spent a third of its time checkpointing every 10,000 pages (40 MB): 101 s for the
#: rebuild, 71-86 s with 100,000 (400 MB of WAL at most; 250,000 gained nothing more). The
#: writer does not cut its WAL back (`WAL_KEPT_BYTES`): shrinking and growing the file again
#: at each restart cost 10 s of those; the store's own connections cut it back after.
BESIDE_CHECKPOINT_PAGES = 100_000
#: the WAL file cut back to this size once a checkpoint lets it start over (`journal_size_limit`),
#: on the store's connections: a store does not keep a WAL of 400 MB after a rebuild for as
#: long as a process holds it open (SQLite's default keeps the largest it has been)
WAL_KEPT_BYTES = 64 << 20
#: SQLite settings of the writer's connection: those of the store's write connection, and those
#: `bulkload.tuned` gives an import's (a larger cache, commits not synced: the rebuild syncs the
#: files once at its end), with fewer checkpoints still
SQLITE_PRAGMAS = ("journal_mode = WAL", "synchronous = NORMAL", "foreign_keys = ON", "cache_size = -32768",
                  f"wal_autocheckpoint = {BESIDE_CHECKPOINT_PAGES}", SECURE_DELETE)


class Recorder:
    """The DBAPI calls `SqlBackend` writes with, kept as a plan instead of run."""

    def __init__(self, limit: int) -> None:
        self.plan: Plan = []
        self.limit = limit

    def cursor(self) -> Recorder:
        return self

    def execute(self, sql: str, params: Any = ()) -> None:
        self.plan.append((ONE, sql, params))

    def executemany(self, sql: str, params: Any) -> None:
        self.plan.append((MANY, sql, params))

    def getlimit(self, _category: int) -> int:
        return self.limit

    @contextmanager
    def copy(self, sql: str) -> Iterator[Rows]:
        rows: list[tuple[Any, ...]] = []
        yield Rows(rows.append)
        self.plan.append((COPY, sql, rows))  # a plain list: see `frame`


class Rows(NamedTuple):
    """A COPY's rows, kept in a list."""

    write_row: Callable[[tuple[Any, ...]], None]


_HEADER = struct.Struct("<cQ")


def frame(request: tuple[Any, ...]) -> tuple[bytes, bytes]:
    """A request as the writer reads it: marshal's bytes where it takes them (a plan's rows are
    str, int, float, bool, None, in lists and tuples: marshal writes and reads 100k events'
    plans in 0.6 s of CPU where pickle took 1.0 s), else pickle's, after a header (which of
    the two, how long), sent before them."""
    try:
        data, codec = marshal.dumps(request), b"m"
    except ValueError:  # a value marshal does not know
        data, codec = pickle.dumps(request, protocol=pickle.HIGHEST_PROTOCOL), b"p"
    return _HEADER.pack(codec, len(data)), data


def unframe(source: BinaryIO) -> tuple[Any, ...]:
    """The next request `frame` made; EOFError at the end of the input."""
    header = source.read(_HEADER.size)
    if len(header) < _HEADER.size:
        raise EOFError
    codec, size = _HEADER.unpack(header)
    data = source.read(size)
    if len(data) < size:
        raise EOFError
    request: tuple[Any, ...] = marshal.loads(data) if codec == b"m" else pickle.loads(data)
    return request


def run(connection: Any, plan: Plan) -> None:
    """Run a plan on a DBAPI connection (in its transaction)."""
    cursor = connection.cursor()
    for kind, sql, params in plan:
        if kind == MANY:
            cursor.executemany(sql, params)
        elif kind == ONE:
            cursor.execute(sql, params)
        elif kind == APPEND:
            _append(connection, sql, *params)
        else:
            with cursor.copy(sql) as copy:
                for values in params:
                    copy.write_row(values)


def _append(connection: Any, domain: str, dialect: str, position: int | None,
            events: list[tuple[bytes, int, str, bytes]]) -> None:
    """Events given as (originator id's bytes, version, topic, stored bytes)."""
    from uuid import UUID

    import orjson

    from memhall.governance.journal import Journal, NewEvent, StaleHeadError

    journal = Journal(domain, dialect)
    if position is not None and journal.head(connection)[0] != position:
        raise StaleHeadError(f"{domain} was written to since this batch was planned")
    journal.append(connection, [NewEvent(UUID(bytes=ident), version, topic, orjson.loads(data), data)
                                for ident, version, topic, data in events])


def connect(dialect: str, target: Any, busy_s: int) -> Any:
    """The writer's connection: `target` is a SQLite file's path or psycopg's parameters."""
    if dialect == "sqlite":
        import sqlite3

        lite = sqlite3.connect(target, isolation_level=None, timeout=busy_s)
        for pragma in (f"busy_timeout = {busy_s * 1000}", *SQLITE_PRAGMAS):
            lite.execute(f"PRAGMA {pragma}")
        return lite
    import psycopg

    server = psycopg.connect(**target)
    server.execute(f"SET lock_timeout = '{busy_s}s'")
    server.commit()
    return server


def write(connection: Any, dialect: str, plan: Plan) -> None:
    """One batch's plan in a transaction of its own."""
    if dialect == "sqlite":
        connection.execute("BEGIN IMMEDIATE")
    else:
        # its commit does not wait for the WAL to reach the disk: the index builds' commit at
        # the end does (a crash before it loses only read models, which a rebuild recomputes)
        connection.execute("SET LOCAL synchronous_commit TO OFF")
    try:
        run(connection, plan)
    except BaseException:
        connection.rollback()
        raise
    connection.commit()


def read(connection: Any, dialect: str, prefix: str, request: tuple[Any, ...]) -> Any:
    """Rows a merge needs (`SqlBackend.fetch` or `fetch_many`), outside any batch."""
    from memhall.governance.projection.apply import SqlBackend

    backend = SqlBackend(connection, dialect, prefix, copy=False)
    try:
        return backend.fetch(*request[1:]) if request[0] == "fetch" else backend.fetch_many(request[1])
    finally:
        connection.rollback()


def serve(source: BinaryIO | None = None, sink: BinaryIO | None = None) -> None:
    """The writer process: ("open", dialect, target, prefix, busy_s) first, then ("plan", plan,
    events), ("fetch", table, key), ("fetch_many", keys), ("close",). It answers ("done",
    events) for each plan committed, ("answer", value) for each read, ("closed",) at the end,
    and ("error", exception) once, after which it runs nothing more. End of input (the
    rebuild is gone) rolls back the batch in progress and ends it."""
    source = source or sys.stdin.buffer
    sink = sink or sys.stdout.buffer
    try:
        _, dialect, target, prefix, busy_s = unframe(source)
    except EOFError:
        return
    connection: Any = None
    failed = False
    while True:
        try:
            request = unframe(source)
        except EOFError:
            return
        if request[0] == "close":
            _send(sink, ("closed",))
            return
        if failed:
            continue
        try:
            if connection is None:
                connection = connect(dialect, target, busy_s)
            if request[0] == "plan":
                write(connection, dialect, request[1])
                answer: tuple[Any, ...] = ("done", request[2])
            else:
                answer = ("answer", read(connection, dialect, prefix, request))
        except Exception as error:  # noqa: BLE001 - the rebuild raises it
            failed = True
            answer = ("error", error)
        _send(sink, answer)


def _send(sink: BinaryIO, answer: tuple[Any, ...]) -> None:
    try:
        data = pickle.dumps(answer)
    except Exception:  # noqa: BLE001 - an exception that does not pickle goes as its text
        data = pickle.dumps(("error", RuntimeError(f"{type(answer[1]).__name__}: {answer[1]}")))
    sink.write(data)
    sink.flush()


if __name__ == "__main__":
    serve()
