"""Recompute each domain's hash chain from its events, a batch at a time."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from enum import Enum
from typing import Any
from uuid import UUID

from pydantic import BaseModel
from sqlalchemy import Connection, Engine, inspect, text

from memhall.audit.chain import GENESIS, ChainedEvent, link, next_head, tag_field, uuid_text
from memhall.audit.checkpoints import Checkpoint

#: rows fetched per query; memory stays flat however long the chain is
BATCH = 5000

_EVENTS = ("SELECT id, {originator}, originator_version, topic, state FROM {table} "
           "WHERE id > {m} ORDER BY id LIMIT {m}")

#: called with (position, topic, state) of each event a walk verifies, in log order: what
#: else `audit verify` checks of every event reads it here, instead of reading the log again
Watch = Callable[[int, str, bytes], None]
_CHAIN = "SELECT position, head FROM {table} WHERE position > {m} ORDER BY position LIMIT {m}"


@dataclass(frozen=True)
class ChainSource:
    """Where one domain's events and chain rows live."""

    domain: str
    events: str
    chain: str


class Problem(str, Enum):
    EDITED = "edited"  # an event no longer hashes to its chain row
    CHAIN_EDITED = "chain-edited"  # a chain row altered, the events intact
    DIVERGED = "diverged"  # two links in a row disagree: reordered, or chain rewritten
    EVENT_MISSING = "event-missing"  # a chain row whose event is gone
    UNCHAINED = "unchained"  # an event no chain row vouches for (forged)
    GAP = "gap"  # positions skip: events erased with their chain rows, the chain recomputed
    REWRITTEN = "rewritten"  # the chain is consistent but not the one a checkpoint saw
    TRUNCATED = "truncated"  # the chain ends before a checkpoint's position
    STREAM_MISSING = "stream-missing"  # a checkpointed domain, or its tables, are gone


class Break(BaseModel):
    """The first place where a chain stops verifying, and what is wrong there."""

    position: int
    problem: Problem
    detail: str


class ChainReport(BaseModel):
    """One domain's verdict; `position` and `head` are the last verified link."""

    domain: str
    ok: bool
    events: int
    position: int
    head: str
    checkpoints: int
    broken: Break | None = None


@contextmanager
def snapshot(engine: Engine) -> Iterator[Connection]:
    """One read transaction for the whole walk, so that writers appending
    meanwhile cannot make a consistent store look broken."""
    with engine.connect() as conn:
        if engine.dialect.name == "postgresql":
            conn.execution_options(isolation_level="REPEATABLE READ")
        with conn.begin():
            yield conn


def verify_store(conn: Connection, sources: Sequence[ChainSource], checkpoints: Sequence[Checkpoint] = (),
                 *, incremental: bool = False, batch: int = BATCH,
                 watch: Callable[[str], Watch | None] | None = None) -> list[ChainReport]:
    """Verify every stream, and that each checkpoint is a prefix of its chain.

    `incremental` trusts everything up to each domain's latest checkpoint and
    only checks that the chain still passes through it and extends it. `watch`
    gives each domain's `Watch`, if any.
    """
    by_domain: dict[str, list[Checkpoint]] = {}
    for checkpoint in checkpoints:
        by_domain.setdefault(checkpoint.domain, []).append(checkpoint)
    tables = set(inspect(conn).get_table_names())
    reports = []
    for source in sources:
        seen = by_domain.pop(source.domain, [])
        if source.events not in tables or source.chain not in tables:
            reports.append(_gone(source.domain, 0, f"the tables of {source.domain} are missing"))
            continue
        start = max(seen, key=lambda c: c.position) if incremental and seen else None
        reports.append(verify_chain(conn, source, seen, start=start, batch=batch,
                                    watch=watch(source.domain) if watch is not None else None))
    for domain, seen in sorted(by_domain.items()):
        last = max(seen, key=lambda c: c.position)
        reports.append(_gone(domain, last.position, (
            f"the checkpoint of {last.at:%Y-%m-%d %H:%M} recorded {domain} at position "
            f"{last.position}, but the store has no such domain: the whole stream was removed")))
    return reports


def verify_chain(conn: Connection, source: ChainSource, checkpoints: Sequence[Checkpoint] = (),
                 *, start: Checkpoint | None = None, batch: int = BATCH, watch: Watch | None = None) -> ChainReport:
    """Walk events and chain rows side by side in position order, recomputing
    every head; stop at the first break. `watch` sees every event the walk verified."""
    walk = _Walk(source.domain, checkpoints, start)
    if start is not None:
        walk.resume(conn, source.chain, start)
    if walk.broken is not None:
        return walk.report()
    sqlite = conn.dialect.name == "sqlite"
    m = "?" if sqlite else "%s"
    # PostgreSQL: the id as text, not a uuid the driver makes an object of and the walk a string again
    originator = "originator_id" if sqlite else "originator_id::text"
    events = _Cursor(_batches(conn, _EVENTS.format(originator=originator, table=source.events, m=m),
                              walk.position, batch))
    chain = _Cursor(_batches(conn, _CHAIN.format(table=source.chain, m=m), walk.position, batch))
    tag = tag_field(walk.domain)
    while walk.broken is None and (events.row is not None or chain.row is not None):
        at_event, at_chain = events.position, chain.position
        if at_chain is None or (at_event is not None and at_event < at_chain):
            walk.fail(events.position, Problem.UNCHAINED, (
                f"event {at_event} has no chain row: it was inserted outside the hall "
                "(forged), or its chain row was deleted"))
        elif at_event is None or at_chain < at_event:
            walk.fail(at_chain, Problem.EVENT_MISSING, (
                f"event {at_chain} is missing: it was deleted, its chain row remains"))
        else:
            _, originator, version, topic, state = events.row
            computed = next_head(tag, walk.head, at_event, _uuid(originator), version, str(topic),
                                 state if isinstance(state, bytes) else _bytes(state))
            stored = str(chain.row[1])
            events.advance()
            chain.advance()
            if at_event != walk.position + 1:
                walk.fail(walk.position + 1, Problem.GAP, (
                    f"positions {walk.position + 1} to {at_event - 1} are missing: events were "
                    "erased together with their chain rows (positions are assigned without gaps)"))
            elif computed == stored:
                walk.step(at_event, computed)
                if watch is not None:
                    watch(at_event, str(topic), state if isinstance(state, bytes) else _bytes(state))
            else:
                walk.fail(at_event, *_mismatch(walk, at_event, computed, stored, events, chain))
    walk.finish()
    return walk.report()


def _uuid(raw: Any) -> str:
    """An originator id as canonical UUID text: 16 raw bytes on SQLite, a uuid on PostgreSQL."""
    return uuid_text(raw) if isinstance(raw, bytes) else str(raw)


def _bytes(value: Any) -> bytes:
    """A state column as bytes, even where SQLite's loose typing let an edit store text."""
    return value.encode() if isinstance(value, str) else bytes(value)


def chained(row: Any) -> ChainedEvent:
    """A raw events row (id, originator id, version, topic, state) as the chain covers it."""
    position, raw, version, topic, state = row
    originator = UUID(bytes=bytes(raw)) if isinstance(raw, (bytes, memoryview)) else UUID(str(raw))
    return ChainedEvent(position=int(position), originator_id=originator, originator_version=int(version),
                        topic=str(topic), state=_bytes(state))


def _mismatch(walk: _Walk, position: int, computed: str, stored: str, events: _Cursor,
              chain: _Cursor) -> tuple[Problem, str]:
    """Say what most likely happened, from the next link: after an edited event
    it still follows from the stored head; after an edited chain row it
    follows from the recomputed one; after a reordering from neither."""
    if events.row is None or events.position != chain.position:
        return Problem.EDITED, (f"event {position} does not match its chain row: the event's content "
                                "or its chain row was changed")
    following, expected = chained(events.row), str(chain.row[1])
    if link(walk.domain, computed, following) == expected:
        return Problem.CHAIN_EDITED, (f"chain row {position} was altered: the events around it are "
                                      "intact and the next chain row follows from them")
    if link(walk.domain, stored, following) != expected:
        return Problem.DIVERGED, (f"events {position} and {events.position} do not match their chain "
                                  "rows: events were reordered or swapped, or the chain rows rewritten")
    if position > walk.position + 1:
        previous = f"position {walk.position}" if walk.position else "the start"
        return Problem.EDITED, (f"event {position} does not follow on from {previous}: its content was "
                                "changed, or events before it were deleted together with their chain rows")
    return Problem.EDITED, (f"event {position} was changed after it was chained (its payload, topic, "
                            "stream or version), or swapped with another event's")


class _Walk:
    """The state of one chain walk: last verified link and pending checkpoints."""

    def __init__(self, domain: str, checkpoints: Sequence[Checkpoint], start: Checkpoint | None) -> None:
        self.domain = domain
        self.head, self.position = GENESIS, 0
        self.events = self.matched = 0
        self.matched_at = 0
        self.broken: Break | None = None
        ordered = sorted(checkpoints, key=lambda c: c.position)
        base = start.position if start is not None else 0
        self.pending = deque(c for c in ordered if c.position > base)
        for checkpoint in ordered:
            if checkpoint.position == base:
                self._check(checkpoint, base, start.head if start is not None else GENESIS)

    def resume(self, conn: Connection, chain_table: str, start: Checkpoint) -> None:
        """Start after a trusted checkpoint, if the chain still passes through it."""
        if self.broken is not None or start.position == 0:
            return  # an empty stream's checkpoint was checked against the genesis head
        row = conn.execute(text(f"SELECT head FROM {chain_table} WHERE position = :p"),
                           {"p": start.position}).first()
        if row is None:
            self._lost(start)
        elif str(row[0]) != start.head:
            self._rewritten(start, start.position)
        else:
            self.head, self.position = start.head, start.position

    def step(self, position: int, head: str) -> None:
        while self.broken is None and self.pending and self.pending[0].position <= position:
            checkpoint = self.pending.popleft()
            if checkpoint.position < position:
                self._lost(checkpoint)
            else:
                self._check(checkpoint, position, head)
        if self.broken is None:
            self.head, self.position = head, position
            self.events += 1

    def _check(self, checkpoint: Checkpoint, position: int, head: str) -> None:
        if checkpoint.head != head:
            self._rewritten(checkpoint, position)
        else:
            self.matched += 1
            self.matched_at = position

    def _rewritten(self, checkpoint: Checkpoint, position: int) -> None:
        since = f"between positions {self.matched_at} and" if self.matched_at else "up to"
        self.fail(position, Problem.REWRITTEN, (
            f"the head at position {position} is not the one the checkpoint of "
            f"{checkpoint.at:%Y-%m-%d %H:%M} recorded: history {since} {position} was "
            "rewritten and its chain recomputed, or another copy of the store restored"))

    def _lost(self, checkpoint: Checkpoint) -> None:
        self.fail(checkpoint.position, Problem.TRUNCATED, (
            f"the checkpoint of {checkpoint.at:%Y-%m-%d %H:%M} recorded position "
            f"{checkpoint.position}, which is no longer in the chain: events were deleted "
            "together with their chain rows"))

    def finish(self) -> None:
        if self.broken is None and self.pending:
            checkpoint = self.pending[0]
            self.fail(checkpoint.position, Problem.TRUNCATED, (
                f"the checkpoint of {checkpoint.at:%Y-%m-%d %H:%M} recorded position "
                f"{checkpoint.position}, but the chain ends at {self.position}: its tail was "
                "cut off, or an older copy of the store restored"))

    def fail(self, position: int | None, problem: Problem, detail: str) -> None:
        if self.broken is None:
            self.broken = Break(position=position or 0, problem=problem, detail=detail)

    def report(self) -> ChainReport:
        return ChainReport(domain=self.domain, ok=self.broken is None, events=self.events,
                           position=self.position, head=self.head, checkpoints=self.matched,
                           broken=self.broken)


def _gone(domain: str, position: int, detail: str) -> ChainReport:
    return ChainReport(domain=domain, ok=False, events=0, position=0, head=GENESIS, checkpoints=0,
                       broken=Break(position=position, problem=Problem.STREAM_MISSING, detail=detail))


class _Cursor:
    """The current row of an ordered stream of rows; position is column 0."""

    def __init__(self, rows: Iterator[Any]) -> None:
        self._rows = rows
        self.row: Any = next(rows, None)

    @property
    def position(self) -> int | None:
        return None if self.row is None else int(self.row[0])

    def advance(self) -> None:
        self.row = next(self._rows, None)


def _batches(conn: Connection, sql: str, after: int, batch: int) -> Iterator[Any]:
    """Rows after a position as plain DBAPI tuples, fetched `batch` at a time by key, not by
    offset, in the caller's transaction."""
    db: Any = conn.connection.driver_connection
    # PostgreSQL: the binary format (the states are bytea, hex in the text format: twice the bytes)
    binary = {"binary": True} if conn.dialect.name == "postgresql" else {}
    while True:
        cursor = db.cursor()
        cursor.execute(sql, (after, batch), **binary)
        rows = cursor.fetchall()
        yield from rows
        if len(rows) < batch:
            return
        after = int(rows[-1][0])
