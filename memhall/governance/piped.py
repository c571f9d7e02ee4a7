"""A large import's SQL in a process beside it, as a large rebuild's (`pipelined.Beside`).

An import batch's time is this process's Python (drafts, encodings, events) and the
journal's (chaining the events, their read-model rows, SQLite's inserts and commit). On
two cores they overlap: each batch is planned here, its events made as the batched write
always makes them (`batch.write_batch`: the same policy decisions, dedup and checks), and
handed to the writer process, which appends them in a transaction of its own
(`plans.APPEND`: `Journal.append` there, which chains and projects them), while this
process plans the next batch. What that batch reads is the store as the batches before
it left it: the entries of the one still being written are added to what it reads
(`batch.Pending`: by dedup key and by idempotency key), and it follows that one's last
position. A batch that supersedes, names a pending request or claims a confidence of its
own, or follows one that wrote more than entries (a first adoption), waits for the
batches before it to commit first.

Nothing holds the write lock while a batch is planned: another writer of the domain may
append meanwhile. Then the writer finds the domain's last position is not the one the
plan follows, appends nothing (its transaction rolls back, whole) and runs no further
plan; those batches are written again here, the ordinary way (`transfer.write_lines`,
which takes the lock before it reads), and so is the rest of the import. A batch that
supersedes an entry, or that is refused, is also written the ordinary way (after the
batches before it committed): a refusal is recorded and raised as it always is. Each
batch commits whole or not at all, and counts in the report once it has committed.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import Any, NamedTuple

from memhall.domains.entry import EntryDraft
from memhall.governance import pipelined
from memhall.governance.batch import Pending
from memhall.governance.encodings import encoded
from memhall.governance.hall import Hall
from memhall.governance.journal import Journal, NewEvent
from memhall.governance.projection.plans import APPEND, Plan
from memhall.governance.store import raw
from memhall.governance.transfer import ImportReport, Line, to_draft, write_lines

#: the topic of an entry written
WRITTEN = "memhall.Entry.Written"
#: an import on SQLite has its SQL run beside it from this many lines read on
BESIDE_FROM = 2_000


def available(hall: Hall) -> bool:
    """Whether this store's imports can have a writer beside them (a SQLite file)."""
    database = hall.store.write_engine.url.database
    return hall.store.dialect == "sqlite" and bool(database) and database != ":memory:"


class Appending:
    """Where a planned batch's saves go (`streams.planned`): its events, each save's as one
    append for the writer to make (`plans.APPEND`: chained and projected there, as
    `Journal.append` does here), the first of each domain with the position it follows:
    `after` (where the batch ahead of it ends), else the domain's head, read first, before
    anything the batch reads (by `reader`, a DBAPI connection of this process). If the
    writer finds another position there, a write got in since, which what the batch read
    may not have seen, and it appends nothing."""

    def __init__(self, reader: Any, dialect: str, journal: Journal, after: int | None = None) -> None:
        self.reader = reader
        self.dialect = dialect
        self.plan: Plan = []
        #: each domain's last position, as the plan leaves it
        self.positions: dict[str, int] = {journal.domain: journal.head(reader)[0] if after is None else after}
        #: whether every event planned is an entry written (nothing the next batch reads but entries)
        self.entries_only = True

    def append(self, journal: Journal, events: Sequence[NewEvent]) -> list[int]:
        if not events:
            return []
        last = self.positions.get(journal.domain)
        if last is None:
            last = journal.head(self.reader)[0]
        # each event as its stored bytes: its state is what they decode to (pickling the state
        # itself cost more than the rest of the writer's work)
        slim = [(e.originator_id.bytes, e.version, e.topic, e.data) for e in events]
        self.plan.append((APPEND, journal.domain, (self.dialect, last, slim)))
        self.entries_only = self.entries_only and all(e.topic == WRITTEN for e in events)
        self.positions[journal.domain] = last + len(events)
        return list(range(last + 1, last + len(events) + 1))


class _Flight(NamedTuple):
    """A batch handed to the writer: its lines and drafts (to write here if it fails there),
    what it adds to the report and the entries it writes once it commits, the plan's number,
    where it ends, and whether it wrote entries only."""

    lines: list[Line]
    drafts: list[EntryDraft]
    added: ImportReport
    pending: Pending
    number: int
    end: int
    entries_only: bool


class Piped:
    """One import's batches, each planned here while the writer beside runs the one before."""

    def __init__(self, hall: Hall, actor: str, domain: str) -> None:
        self.hall, self.actor, self.domain = hall, actor, domain
        stream = hall.streams.stream(domain)
        self.prefix, self.journal = stream.tables.prefix, stream.journal
        self.writer: pipelined.Beside | None = pipelined.Beside(hall.store, self.prefix)
        #: the batches handed over and not known to be committed, oldest first
        self._flights: deque[_Flight] = deque()

    def write(self, lines: list[Line], report: ImportReport) -> None:
        hall, actor = self.hall, self.actor
        lines = list(lines)
        try:
            drafts = [to_draft(line, actor) for line in lines]
            encodings = [encoded(hall.encoder, entry, actor, hall.clock()) for entry in drafts]
        except BaseException:
            self._settle(report)  # the batches before this one are written
            raise
        # planned while the batch before it is written: a batch of new entries after one of new
        # entries, which reads nothing else the batch before changes (supersedes nothing, names
        # no pending request, claims no confidence of its own)
        plain = all(line.fields.get("supersedes") is None for line in lines) and not any(
            entry.pending_requests or entry.confidence is not None for entry in drafts)
        self._settle(report, keep=1 if plain and all(f.entries_only for f in self._flights) else 0)
        if self.writer is None or any(line.fields.get("supersedes") is not None for line in lines):
            write_lines(hall, actor, self.domain, lines, report, drafts=drafts)
            return
        added, pending = ImportReport(), Pending()
        for flight in self._flights:
            pending.live_before.update(flight.pending.live)
            pending.keyed_before.update(flight.pending.keyed)
        try:
            with hall.store.read() as conn:
                plan = Appending(raw(conn), hall.store.dialect, self.journal,
                                 self._flights[-1].end if self._flights else None)
                write_lines(hall, actor, self.domain, lines, added, drafts=drafts, encodings=encodings,
                            plan=plan, pending=pending)
        except Exception:  # noqa: BLE001 - written the ordinary way, which records a refusal and raises
            self._settle(report)
            write_lines(hall, actor, self.domain, lines, report, drafts=drafts)
            return
        if not plan.plan:
            _add(report, added)
            return
        try:
            self.writer.submit(plan.plan, len(lines))
        except Exception:  # noqa: BLE001 - the writer is gone: what it did not commit is written here
            self._fail(report)
            write_lines(hall, actor, self.domain, lines, report, drafts=drafts)
            return
        self._flights.append(_Flight(lines, drafts, added, pending, self.writer.handed,
                                     plan.positions[self.domain], plan.entries_only))

    def close(self, report: ImportReport) -> None:
        """Wait for the last batches (written here again if they failed there), and the writer to end."""
        try:
            self._settle(report)
        finally:
            if self.writer is not None:
                self.writer.close(failed=bool(self._flights))
                self.writer = None

    def abort(self) -> None:
        if self.writer is not None:
            self.writer.close(failed=True)
            self.writer = None

    def _settle(self, report: ImportReport, keep: int = 0) -> None:
        """Wait until all batches handed over but the last `keep` have committed, and count them;
        if the writer failed, those it did not commit are written here (and so is the rest of
        the import)."""
        if len(self._flights) <= keep:
            return
        assert self.writer is not None
        try:
            self.writer.settle(keep)
        except Exception:  # noqa: BLE001 - rolled back there: written here, with the lock
            self._fail(report)
            return
        while len(self._flights) > keep:
            _add(report, self._flights.popleft().added)

    def _fail(self, report: ImportReport) -> None:
        """The writer failed or is gone: end it, count the batches it committed, and write
        the others here; so is the rest of the import."""
        assert self.writer is not None
        committed = self.writer.committed
        self.abort()
        while self._flights:
            flight = self._flights.popleft()
            if flight.number <= committed:
                _add(report, flight.added)
            else:
                write_lines(self.hall, self.actor, self.domain, flight.lines, report, drafts=flight.drafts)


def _add(report: ImportReport, added: ImportReport) -> None:
    report.written += added.written
    report.already += added.already
    report.duplicates += added.duplicates
    report.entries.update(added.entries)
