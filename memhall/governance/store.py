"""Where events live: one engine per store URL, SQLite or PostgreSQL.

SQLite is tuned for several processes writing at once (DESIGN.md): WAL,
synchronous=FULL, a 30 s busy timeout, and write transactions that take the
write lock up front with BEGIN IMMEDIATE. A read-then-write transaction
without it fails with "database is locked" at once, whatever the timeout.
Reads go through a second engine whose transactions begin deferred, so
readers never queue behind writers.
"""

from __future__ import annotations

import random
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any, cast

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.exc import DisconnectionError, OperationalError

from memhall.domains.errors import StoreBusyError
from memhall.governance.projection.plans import SECURE_DELETE, WAL_KEPT_BYTES

BUSY_TIMEOUT_S = 30
#: page cache of a read connection, in KiB: SQLite's default 2 MB held less than one recall
#: touches at 100k entries, so each read re-fetched the same index pages from the OS
#: (counting the entries alone: 0.8 ms, 0.14 ms with the pages kept). Filled only as used.
READ_CACHE_KIB = 65536
#: WAL pages after which a write connection's commit copies the WAL into the file (SQLite's
#: default is 1,000): a batch of 1,000 entries dirties more than that, so each `write_many`
#: paid a checkpoint (and its sync) of pages the next batch dirtied again; with 10,000 (about
#: 40 MB of WAL) a page is copied once for several commits. Measured, taking turns in one
#: process: write_many 7,991/s against 7,421/s, single writes 955/s against 896/s (the
#: slowest single write 39 ms against 7 ms: the commit that checkpoints copies more).
WRITE_CHECKPOINT_PAGES = 10_000
#: a pooled PostgreSQL connection idle longer than this is pinged before it is used again
IDLE_PING_S = 10.0
#: after the busy timeout, how long a writer keeps retrying (with jitter) before it fails
RETRY_S = 120


def _sqlite_engine(url: str, *, immediate: bool, wait_s: float | None = None) -> Engine:
    """`wait_s`: the longest a write waits for the lock (then `StoreBusyError`), if shorter
    than the busy timeout and its retries."""
    path = url.removeprefix("sqlite:///")
    if path and path != ":memory:":
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    busy_s = BUSY_TIMEOUT_S if wait_s is None else min(wait_s, BUSY_TIMEOUT_S)
    engine = create_engine(url, connect_args={"timeout": busy_s})

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # we issue BEGIN ourselves
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {int(busy_s * 1000)}")
        cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA synchronous = FULL")
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.execute(f"PRAGMA {SECURE_DELETE}")
        cursor.execute(f"PRAGMA journal_size_limit = {WAL_KEPT_BYTES}")
        if immediate:
            cursor.execute(f"PRAGMA wal_autocheckpoint = {WRITE_CHECKPOINT_PAGES}")
        else:
            cursor.execute(f"PRAGMA cache_size = -{READ_CACHE_KIB}")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Connection) -> None:
        # on the sqlite3 connection itself: through `exec_driver_sql`, SQLAlchemy's handling
        # of a statement cost more than SQLite's BEGIN (~0.1 ms of a single write's CPU)
        driver = cast(sqlite3.Connection, connection.connection.dbapi_connection)
        if not immediate:
            driver.execute("BEGIN")
            return
        _begin_immediate(driver, wait_s)

    return engine


def _begin_immediate(connection: sqlite3.Connection, wait_s: float | None = None) -> None:
    """Take the write lock up front. SQLite's busy handler is not fair: under
    many writers one can wait out the whole timeout while others get in, so
    after it gives up we retry with jittered backoff instead of failing; unless
    the caller waits `wait_s` at most (the busy timeout), then `StoreBusyError`."""
    deadline = time.monotonic() + RETRY_S
    delay = 0.02
    while True:
        try:
            connection.execute("BEGIN IMMEDIATE")
            return
        except sqlite3.OperationalError as error:
            if wait_s is not None and "locked" in str(error):
                raise StoreBusyError(wait_s) from None
            if "locked" not in str(error) or time.monotonic() > deadline:
                # as SQLAlchemy wraps a driver's error, for those who catch its errors
                raise OperationalError("BEGIN IMMEDIATE", None, error) from error
        time.sleep(random.uniform(0, delay))
        delay = min(delay * 2, 1.0)


def _postgres_engine(url: str) -> Engine:
    engine = create_engine(url)

    @event.listens_for(engine, "checkin")
    def _on_checkin(_dbapi_connection: Any, record: Any) -> None:
        record.info["idle_since"] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _on_checkout(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        # A pooled connection idle for a while is pinged before use, and replaced if the
        # server dropped it; one just checked in is not (a ping is a round trip per write).
        since = record.info.get("idle_since")
        if since is not None and time.monotonic() - since > IDLE_PING_S:
            try:
                alive = engine.dialect.do_ping(dbapi_connection)
            except Exception as error:  # noqa: BLE001 - whatever the driver raises, the connection is gone
                raise DisconnectionError(str(error)) from error
            if not alive:
                raise DisconnectionError("the server closed the connection")

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # The event recorder locks the events table on insert; a stuck writer
        # must fail after a while instead of hanging every other writer.
        with dbapi_connection.cursor() as cursor:
            cursor.execute(f"SET lock_timeout = '{BUSY_TIMEOUT_S}s'")
        dbapi_connection.commit()

    return engine


def raw(connection: Connection) -> Any:
    """The DBAPI connection (sqlite3 or psycopg) under a SQLAlchemy connection,
    in the same transaction: the journal writes through it."""
    return connection.connection.driver_connection


class Store:
    """One database: its engines and its transactions."""

    def __init__(self, url: str, *, lock_wait_s: float | None = None) -> None:
        """`lock_wait_s` (SQLite): a write waits this long at most for another process's
        write lock, then fails with `StoreBusyError` (a hook must not keep its agent waiting);
        by default 30 s, then retries for up to two minutes more."""
        self.url = url
        #: the SQLite file, if this store is one
        self.sqlite_file: Path | None = None
        if url.startswith("sqlite"):
            self.dialect = "sqlite"
            path = url.removeprefix("sqlite:///")
            self.sqlite_file = Path(path) if path and path != ":memory:" else None
            self.write_engine = _sqlite_engine(url, immediate=True, wait_s=lock_wait_s)
            self.read_engine = _sqlite_engine(url, immediate=False)
        else:
            self.dialect = "postgresql"
            self.write_engine = _postgres_engine(url)
            self.read_engine = self.write_engine
        self._current: ContextVar[Connection | None] = ContextVar(f"memhall-write-{id(self)}", default=None)
        #: whether the write transaction in progress was joined by a nested use (`write`)
        self._joined: ContextVar[bool] = ContextVar(f"memhall-joined-{id(self)}", default=False)

    @contextmanager
    def autocommit(self) -> Iterator[Any]:
        """A pooled DBAPI connection in autocommit, outside any transaction: for a point read
        made before each command (`rebuilding.check`: one round trip on PostgreSQL where a
        transaction took three, 0.16 ms against 0.33 ms on this machine), or a session-level
        lock held across transactions (`rebuilding.exclusive`)."""
        pooled = self.read_engine.raw_connection()
        try:
            db: Any = pooled.driver_connection
            if self.dialect != "postgresql":
                yield db  # a SQLite connection of the read engine is in autocommit already
                return
            db.autocommit = True
            try:
                yield db
            finally:
                db.autocommit = False
        finally:
            pooled.close()

    @property
    def display(self) -> str:
        return self.write_engine.url.render_as_string(hide_password=True)

    @contextmanager
    def write(self) -> Iterator[Connection]:
        """One write transaction, holding the write lock from its first statement
        (SQLite) or from the domain's head row (PostgreSQL, see `journal`).
        Nested uses join the outer transaction; an exception rolls it back."""
        current = self._current.get()
        if current is not None:
            joined = self._joined.set(True)
            try:
                yield current
            finally:
                self._joined.reset(joined)
            return
        with self.write_engine.begin() as connection:
            token = self._current.set(connection)
            try:
                yield connection
            finally:
                self._current.reset(token)

    def in_transaction(self) -> bool:
        """Whether a write transaction is open in this context (`write`)."""
        return self._current.get() is not None

    def may_commit_early(self) -> bool:
        """Whether the write in progress may commit its transaction itself, with its last
        statements (PostgreSQL, in their round trip): it runs in the outermost use of a
        write transaction, not in one a caller opened around it (whose end commits)."""
        return self.dialect == "postgresql" and self._current.get() is not None and not self._joined.get()

    @contextmanager
    def read(self) -> Iterator[Connection]:
        """A read connection; inside a write transaction, that transaction (so a
        use case reads what it is about to change, under its lock)."""
        current = self._current.get()
        if current is not None:
            yield current
            return
        with self.read_engine.connect() as connection:
            yield connection

    def dispose(self) -> None:
        self.write_engine.dispose()
        if self.read_engine is not self.write_engine:
            self.read_engine.dispose()
