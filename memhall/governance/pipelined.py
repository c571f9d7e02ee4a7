"""A large rebuild's SQL in a process beside the one that computes it.

A rebuild's time is Python's (decoding events, their row operations, encoding rows)
and the database's (binding the rows and SQLite's inserts, or PostgreSQL's COPY): about
half each. On two cores they overlap: this process computes a batch's writes as a plan
(`Planned`: the projection's own SQL backend writing to a list instead of a connection)
while a writer process (`projection.plans.serve`) runs the previous batch's plan in its
own transaction, plans in the order they were made (so the rows, and SQLite's rowids,
are those one process writes). A thread would not do: binding rows holds the GIL, and
the two threads took turns more than they overlapped. A read the projection needs (a
merge into a row it does not hold) is answered after every plan before it has run.

The writer's error is raised here once: by the next hand-over, read or `close`; from
then on it runs nothing more. Each batch commits alone, as without the writer: a failed
rebuild leaves the batches before the failure written, and running it again starts
over. A writer that dies is an error here, never a wait; if this process dies, the
writer reads the end of its input, rolls back and ends. A small rebuild (`Inline`) runs
each plan at once, in this process: the writer's start-up (~0.1 s) would not pay.
"""

from __future__ import annotations

import os
import pickle
import queue
import select
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any, NoReturn

from memhall.domains.errors import MemhallError
from memhall.governance.projection.apply import Key, SqlBackend
from memhall.governance.projection.plans import Plan, Recorder, frame, run
from memhall.governance.store import BUSY_TIMEOUT_S, Store, raw

#: a rebuild of at least this many events has its SQL run beside it
BESIDE_MIN = 20_000

#: requests on their way to the writer, beyond the one it reads: this process computes ahead
#: while the writer catches up (with its first plan, it empties the read models: ~1 s at 100k
#: events), instead of waiting at each hand-over for the pipe to drain
AHEAD = 2

_SERVE = "from memhall.governance.projection.plans import serve; serve()"


class Planned(SqlBackend):
    """The SQL backend of one batch, its writes kept (`plan`) for the writer to run; its
    reads are the writer's, after every plan handed to it before."""

    def __init__(self, writer: Inline | Beside, dialect: str, prefix: str, limit: int) -> None:
        super().__init__(Recorder(limit), dialect, prefix)
        self.writer = writer

    @property
    def plan(self) -> Plan:
        plan: Plan = self.connection.plan
        return plan

    def fetch(self, table: str, key: str) -> dict[str, Any] | None:
        found: dict[str, Any] | None = self.writer.read(("fetch", table, key))
        return found

    def fetch_many(self, keys: list[Key]) -> dict[Key, dict[str, Any] | None]:
        found: dict[Key, dict[str, Any] | None] = self.writer.read(("fetch_many", keys))
        return found


class Inline:
    """Plans run at once, each in a write transaction of the store's. `done`: events written."""

    def __init__(self, store: Store, prefix: str) -> None:
        self.store = store
        self.prefix = prefix
        self.done = 0

    def submit(self, plan: Plan, events: int) -> None:
        with self.store.write() as conn:
            if self.store.dialect == "postgresql":
                raw(conn).execute("SET LOCAL synchronous_commit TO OFF")  # as `plans.write`
            run(raw(conn), plan)
        self.done += events

    def read(self, request: tuple[Any, ...]) -> Any:
        with self.store.read() as conn:
            backend = SqlBackend(raw(conn), self.store.dialect, self.prefix, copy=False)
            return backend.fetch(*request[1:]) if request[0] == "fetch" else backend.fetch_many(request[1])

    def settle(self, keep: int = 0) -> None:
        pass

    def close(self, *, failed: bool = False) -> None:
        pass


class Beside:
    """The writer process of one domain's rebuild. `done`: events whose batch committed."""

    def __init__(self, store: Store, prefix: str) -> None:
        self.done = 0
        #: plans handed over, and those committed
        self.handed = self.committed = 0
        self._error: BaseException | None = None
        root = str(Path(__file__).resolve().parents[2])  # the memhall this process runs
        path = os.environ.get("PYTHONPATH")
        env = {**os.environ, "PYTHONPATH": root + (os.pathsep + path if path else "")}
        self._stderr = tempfile.TemporaryFile()  # a pipe nobody reads could fill and stop it
        self._process = subprocess.Popen([sys.executable, "-c", _SERVE], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=self._stderr, env=env)
        # a thread writes the framed requests to the pipe (the GIL released while it waits)
        self._outbox: queue.Queue[tuple[bytes, bytes] | None] = queue.Queue(maxsize=AHEAD)
        self._broken = False
        self._sender = threading.Thread(target=self._pump, daemon=True)
        self._sender.start()
        self._send(("open", store.dialect, _target(store), prefix, BUSY_TIMEOUT_S))

    def submit(self, plan: Plan, events: int) -> None:
        """Hand a batch over (while the writer runs the one before, the pipe holds it)."""
        self._drain()
        self._send(("plan", plan, events))
        self.handed += 1

    def settle(self, keep: int = 0) -> None:
        """Wait until every plan handed over but the last `keep` has committed; raise the
        writer's error, if any."""
        if self._error is not None:
            raise self._error
        while self.committed < self.handed - keep:
            self._receive()

    def read(self, request: tuple[Any, ...]) -> Any:
        self._send(request)
        while True:
            answer = self._receive()
            if answer[0] == "answer":
                return answer[1]

    def close(self, *, failed: bool = False) -> None:
        """Wait for every plan to be run (`failed`: for none more), and the writer to end;
        raise its error, if any (unless `failed`: the caller raises its own)."""
        try:
            if failed:
                self._process.kill()
            else:
                self._send(("close",))
                while self._receive()[0] != "closed":
                    pass
        finally:
            # the sender ends once it has written what it holds (the writer reads to the end of
            # its input; writes to a writer gone fail at once)
            self._outbox.put(None)
            self._sender.join()
            self._process.wait()
            for stream in (self._process.stdin, self._process.stdout, self._stderr):
                try:
                    if stream is not None:
                        stream.close()
                except OSError:
                    pass  # a pipe to a writer that is gone: what it held is not wanted

    def _drain(self) -> None:
        """Read the answers already there (each raising the writer's error, if it is one)."""
        assert self._process.stdout is not None
        while select.select([self._process.stdout], [], [], 0)[0]:
            self._receive()

    def _send(self, request: tuple[Any, ...]) -> None:
        if self._broken:
            self._gone()
        self._outbox.put(frame(request))

    def _pump(self) -> None:
        """The sender thread: each framed request to the writer's stdin, in order, until None."""
        stdin = self._process.stdin
        assert stdin is not None
        while True:
            framed = self._outbox.get()
            if framed is None:
                return
            if self._broken:
                continue
            try:
                stdin.write(framed[0])
                stdin.write(framed[1])
                stdin.flush()
            except OSError:  # the writer is gone: `_send` and `_receive` say so
                self._broken = True

    def _receive(self) -> tuple[Any, ...]:
        assert self._process.stdout is not None
        try:
            answer: tuple[Any, ...] = pickle.load(self._process.stdout)
        except (EOFError, pickle.UnpicklingError, OSError):
            self._gone()
        if answer[0] == "done":
            self.done += answer[1]
            self.committed += 1
        elif answer[0] == "error":
            self._error = answer[1]
            raise answer[1]
        return answer

    def _gone(self) -> NoReturn:
        if self._error is not None:
            raise self._error
        self._process.kill()
        self._process.wait()
        self._stderr.seek(0)
        last = (self._stderr.read().decode(errors="replace").strip().splitlines() or ["no answer"])[-1]
        raise MemhallError(f"the rebuild's writer process stopped (exit {self._process.returncode}): {last}")


def writer(store: Store, prefix: str, events: int) -> Inline | Beside:
    """Where a rebuild of `events` events runs its SQL."""
    database = store.write_engine.url.database
    if events < BESIDE_MIN or (store.dialect == "sqlite" and (not database or database == ":memory:")):
        return Inline(store, prefix)
    return Beside(store, prefix)


def _target(store: Store) -> Any:
    """What the writer connects to: the SQLite file, or psycopg's connection parameters (the
    store's own: host, database, user, options...)."""
    engine = store.write_engine
    if store.dialect == "sqlite":
        return str(engine.url.database)
    _, parameters = engine.dialect.create_connect_args(engine.url)
    return {name: value for name, value in parameters.items() if name != "context"}
