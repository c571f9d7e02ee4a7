"""Read models compared as streams, for `audit verify`'s fast path.

Some read models are only ever inserted into, one row per event (or a few), in
log order, and never changed afterwards: the audit rows, who holds what
(exposure), the encodings, and SQLite's full-text rows. Rather than replaying them into a scratch
copy and comparing the two tables at the end, each stored table is read in log
order beside the replay and compared row by row as the replay produces its rows:
no scratch rows are written, and no table is sorted.

The entries are keyed and change after they are written (superseded,
promoted, retired), but each is inserted once, by its own event, so they too
are read in log order (by `created_position`) beside the replay: an inserted
row equal to its stored row is settled (only its key is kept); a row that
differs, or that a later event changes, is kept in the scratch copy and
compared by key at the end. Readers are served the final rows, so most rows
are compared once, as they are inserted, and never written anywhere.

This is a shortcut, not the verdict: at the first row that is not exactly what
the replay produced — a difference, a missing or an extra row, rows in another
order, or any operation on the append-only tables other than an insert — it
raises `Diverged`, and the caller verifies the domain again the thorough way,
which names the table, key and column. A false alarm only costs time.
"""

from __future__ import annotations

from typing import Any

from memhall.governance.projection.apply import SqlBackend, row_encoder
from memhall.governance.projection.ops import LOGGED, Insert, logged_ops
from memhall.governance.projection.schema import AUDIT, ENCODINGS, ENTRIES, EXPOSURE, SEARCH, TableSpec

#: rows read from a stored table at a time
FETCH = 5000


class Diverged(Exception):
    """A streamed table is not exactly what the replay produced (or not in its order)."""


def _query(spec: TableSpec, dialect: str, prefix: str) -> str | None:
    """The stored rows of a streamed table in log order; None: not streamed on this backend."""
    columns, table = ", ".join(spec.names), prefix + spec.suffix
    if spec is AUDIT:
        return f"SELECT {columns} FROM {table} ORDER BY position"
    if spec is EXPOSURE:  # the rows of one event are sorted by id on both sides
        by_id = 'id COLLATE "C"' if dialect == "postgresql" else "id"
        return f"SELECT {columns} FROM {table} ORDER BY position, {by_id}"
    if spec in (SEARCH, ENCODINGS) and dialect == "sqlite":
        # rowids are assigned in insertion order, which is log order (a VACUUM that renumbered
        # them out of order would only send verify the thorough way)
        return f"SELECT {columns} FROM {table} ORDER BY rowid"
    if spec is ENCODINGS:
        # PostgreSQL has no rowid: an encoding is written with its entry, at the entry's position
        # (an encoding without an entry, or an edited position, only sends verify the thorough way)
        return (f"SELECT {', '.join('e.' + c for c in spec.names)} FROM {table} e "
                f"LEFT JOIN {prefix}entries n ON n.id = e.entry_id "
                'ORDER BY n.created_position NULLS FIRST, e.entry_id COLLATE "C"')
    return None


def streamed(dialect: str, *, logged: bool = True) -> tuple[TableSpec, ...]:
    """The tables compared as streams on this backend; `logged=False`: without the LOGGED ones
    (checked elsewhere, by `LoggedCheck`)."""
    return tuple(spec for spec in (AUDIT, EXPOSURE, SEARCH, ENCODINGS) if _query(spec, dialect, "") is not None
                 and (logged or spec.suffix not in LOGGED))


#: keyed read models whose rows are each inserted once, in log order, and may change later:
#: the column that holds the position a row was inserted at (unique: one entry per event)
KEYED = {ENTRIES: "created_position"}


def keyed() -> tuple[TableSpec, ...]:
    return tuple(KEYED)


def _cursor(db: Any, dialect: str, name: str) -> Any:
    """PostgreSQL: a server-side cursor (named after the table: several domains' may be open at
    once), rows fetched as read, in the binary format (no text to parse back into numbers);
    SQLite's cursors are incremental anyway."""
    return db.cursor(name=f"mhv_stream_{name}", binary=True) if dialect == "postgresql" else db.cursor()


class _Stored:
    """One stored table read in log order, a batch of rows at a time, on its own cursor."""

    def __init__(self, db: Any, dialect: str, prefix: str, spec: TableSpec) -> None:
        self.spec = spec
        self.encode = row_encoder(spec)
        self.sort = spec is EXPOSURE
        self.count = 0
        self.cursor = _cursor(db, dialect, prefix + spec.suffix)
        self.cursor.execute(_query(spec, dialect, prefix))
        self.rows: list[Any] = []
        self.at = 0

    def check(self, replayed: list[dict[str, Any]]) -> None:
        if self.sort:
            replayed = sorted(replayed, key=lambda row: (row["position"], row["id"]))
        for row in replayed:
            if self.at == len(self.rows):
                self.rows, self.at = list(self.cursor.fetchmany(FETCH)), 0
                if not self.rows:
                    raise Diverged(f"{self.spec.suffix}: a row of the log is missing")
            if tuple(self.rows[self.at]) != self.encode(row):
                raise Diverged(f"{self.spec.suffix}: a row differs")
            self.at += 1
            self.count += 1

    def finish(self) -> int:
        if self.at < len(self.rows) or self.cursor.fetchmany(1):
            raise Diverged(f"{self.spec.suffix}: a row the log does not account for")
        self.cursor.close()
        return self.count

    def close(self) -> None:
        try:
            self.cursor.close()
        except Exception:  # noqa: BLE001 - closing after a failure; the failure is what counts
            pass


class _Keyed:
    """A keyed table read in the order its rows were inserted, beside the replay's inserts."""

    def __init__(self, db: Any, dialect: str, prefix: str, spec: TableSpec) -> None:
        self.spec = spec
        self.encode = row_encoder(spec)
        self.key_at = spec.names.index(spec.key)
        self.count = 0
        #: inserted and equal to the stored row, unchanged since
        self.settled: set[str] = set()
        #: inserted, and different from the stored row or changed since: in the scratch copy
        self.moved: set[str] = set()
        self.cursor = _cursor(db, dialect, prefix + spec.suffix)
        self.cursor.execute(f"SELECT {', '.join(spec.names)} FROM {prefix}{spec.suffix} "
                            f"ORDER BY {KEYED[spec]}")
        self.rows: list[Any] = []
        self.at = 0

    def check(self, replayed: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Settle the inserted rows equal to their stored rows; the others, to be kept."""
        key, kept = self.spec.key, []
        for row in replayed:
            if self.at == len(self.rows):
                self.rows, self.at = list(self.cursor.fetchmany(FETCH)), 0
                if not self.rows:
                    raise Diverged(f"{self.spec.suffix}: a row of the log is missing")
            stored, ident = self.rows[self.at], str(row[key])
            if tuple(stored) == self.encode(row):
                self.settled.add(ident)
            elif str(stored[self.key_at]) != ident:
                raise Diverged(f"{self.spec.suffix}: rows missing, extra, or out of order")
            else:
                self.moved.add(ident)
                kept.append(row)
            self.at += 1
            self.count += 1
        return kept

    def finish(self) -> None:
        if self.at < len(self.rows) or self.cursor.fetchmany(1):
            raise Diverged(f"{self.spec.suffix}: a row the log does not account for")
        self.cursor.close()

    def close(self) -> None:
        try:
            self.cursor.close()
        except Exception:  # noqa: BLE001 - closing after a failure; the failure is what counts
            pass


class StreamingBackend(SqlBackend):
    """The replay's SQL backend for the scratch copies, except that rows of streamed tables are
    compared with the stored ones as they come, and never written, and rows of keyed tables
    are written to the scratch copy only once they differ from the stored ones."""

    def __init__(self, db: Any, dialect: str, scratch_prefix: str, stored_prefix: str, *,
                 logged: bool = True) -> None:
        super().__init__(db, dialect, scratch_prefix)
        self.stored: dict[str, _Stored] = {}
        self.keyed: dict[str, _Keyed] = {}
        #: the stored tables, read where a settled row is needed again
        self.original = SqlBackend(db, dialect, stored_prefix)
        self.stored_prefix = stored_prefix
        try:
            for spec in streamed(dialect, logged=logged):
                self.stored[spec.suffix] = _Stored(db, dialect, stored_prefix, spec)
            for spec in keyed():
                self.keyed[spec.suffix] = _Keyed(db, dialect, stored_prefix, spec)
        except BaseException:
            self.close()
            raise

    def fetch(self, table: str, key: str) -> dict[str, Any] | None:
        self._not_streamed(table)
        keyed = self.keyed.get(table)
        if keyed is not None and key in keyed.settled:
            return self.original.fetch(table, key)  # equal to what the replay holds
        return super().fetch(table, key)  # in the scratch copy, or nowhere

    def fetch_many(self, keys: list[tuple[str, str]]) -> dict[tuple[str, str], dict[str, Any] | None]:
        settled: list[tuple[str, str]] = []
        others: list[tuple[str, str]] = []
        for table, key in keys:
            self._not_streamed(table)
            keyed = self.keyed.get(table)
            (settled if keyed is not None and key in keyed.settled else others).append((table, key))
        found = super().fetch_many(others) if others else {}
        if settled:
            found.update(self.original.fetch_many(settled))
        return found

    def insert(self, table: str, rows: list[dict[str, Any]]) -> None:
        stored, keyed = self.stored.get(table), self.keyed.get(table)
        if stored is not None:
            stored.check(rows)
        elif keyed is not None:
            kept = keyed.check(rows)
            if kept:
                super().insert(table, kept)
        else:
            super().insert(table, rows)

    def replace(self, table: str, rows: list[dict[str, Any]]) -> None:
        self._not_streamed(table)
        keyed = self.keyed.get(table)
        if keyed is not None:
            rows = self._unsettle(keyed, table, rows)
        if rows:
            super().replace(table, rows)

    def update(self, table: str, columns: tuple[str, ...], rows: list[tuple[str, tuple[Any, ...]]]) -> None:
        self._not_streamed(table)
        keyed = self.keyed.get(table)
        if keyed is not None:
            settled = [(ident, values) for ident, values in rows if ident in keyed.settled]
            if settled:
                rows = [(ident, values) for ident, values in rows if ident not in keyed.settled]
                before = self.original.fetch_many([(table, ident) for ident, _ in settled])
                changed = []
                for ident, values in settled:
                    row = before[(table, ident)]
                    if row is not None:
                        row.update(zip(columns, values))
                        changed.append(row)
                self._unsettle(keyed, table, changed)
        if rows:
            super().update(table, columns, rows)

    def _unsettle(self, keyed: _Keyed, table: str, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Rows of settled keys a replayed event changed go into the scratch copy; the others
        (already there) are returned."""
        key = keyed.spec.key
        fresh: list[dict[str, Any]] = []
        kept: list[dict[str, Any]] = []
        for row in rows:
            (fresh if str(row[key]) in keyed.settled else kept).append(row)
        for row in fresh:
            keyed.settled.discard(str(row[key]))
            keyed.moved.add(str(row[key]))
        if fresh:
            super().insert(table, fresh)
        return kept

    def _not_streamed(self, table: str) -> None:
        if table in self.stored:
            raise Diverged(f"{table}: a replayed event changes a row it had inserted")

    def finish(self) -> dict[str, int]:
        """Rows compared per streamed or keyed table, once every stored row was accounted for
        and every kept row equals its stored row."""
        counts = {suffix: stored.finish() for suffix, stored in self.stored.items()}
        for suffix, keyed in self.keyed.items():
            keyed.finish()
            if keyed.moved and self._differs(keyed.spec):
                raise Diverged(f"{suffix}: a row differs from what the log says")
            counts[suffix] = keyed.count
        return counts

    def _differs(self, spec: TableSpec) -> bool:
        """Whether a kept row differs from the stored row of its key."""
        same = " IS " if self.dialect == "sqlite" else " IS NOT DISTINCT FROM "
        equal = " AND ".join(f"s.{c}{same}r.{c}" for c in spec.names if c != spec.key)
        cursor = self.connection.cursor()
        cursor.execute(f"SELECT 1 FROM {self.prefix}{spec.suffix} r LEFT JOIN {self.stored_prefix}{spec.suffix} s "
                       f"ON s.{spec.key} = r.{spec.key} WHERE s.{spec.key} IS NULL OR NOT ({equal}) LIMIT 1")
        return cursor.fetchone() is not None

    def close(self) -> None:
        for stored in self.stored.values():
            stored.close()
        for keyed in self.keyed.values():
            keyed.close()


class LoggedCheck:
    """The LOGGED read models of one domain (audit rows, exposure, encodings) compared as streams
    with the rows its events imply, fed one event at a time by a walk that reads the log anyway
    (`audit verify`'s chain walk), on that walk's connection and in its snapshot. The rows are
    what a `Projector` would insert: an event's rows of one key (an author also told) are one,
    the last, where the first was; no two events' rows share a key (each holds its position or
    its entry, written once)."""

    def __init__(self, db: Any, dialect: str, prefix: str, *, batch: int | None = None) -> None:
        self.batch = batch or FETCH
        self.stored: dict[str, _Stored] = {}
        self.rows: dict[str, list[dict[str, Any]]] = {}
        self.events = 0
        #: why, once a row differs (or is missing, extra, out of order)
        self.diverged: str | None = None
        try:
            for spec in (AUDIT, EXPOSURE, ENCODINGS):  # LOGGED, each streamed on both backends
                self.stored[spec.suffix] = _Stored(db, dialect, prefix, spec)
                self.rows[spec.suffix] = []
        except BaseException:
            self.close()
            raise

    def event(self, position: int, topic: str, state: dict[str, Any]) -> None:
        if self.diverged is not None:
            return
        ops = logged_ops(topic, state, position)
        inserts = [op for op in ops if type(op) is Insert]
        if len(inserts) < len(ops):
            self.diverged = "a logged handler changes a row"
            return
        # two exposure rows may be one (its audit row is last, and at most one row is another's)
        if len(inserts) > 3 or (len(inserts) == 3 and inserts[0].table == inserts[1].table):
            inserts = list({(op.table, str(op.row[_KEYS[op.table]])): op for op in inserts}.values())
        rows = self.rows
        for op in inserts:
            rows[op.table].append(op.row)
        self.events += 1
        if self.events >= self.batch:
            self._flush()

    def _flush(self) -> None:
        try:
            for table, rows in self.rows.items():
                if rows:
                    self.stored[table].check(rows)
                    rows.clear()
        except Diverged as diverged:
            self.diverged = str(diverged)
        self.events = 0

    def finish(self) -> int | None:
        """Rows compared, once every stored row was accounted for; None: they diverged."""
        try:
            if self.diverged is None:
                self._flush()
            if self.diverged is None:
                try:
                    return sum(stored.finish() for stored in self.stored.values())
                except Diverged as diverged:
                    self.diverged = str(diverged)
            return None
        finally:
            self.close()

    def close(self) -> None:
        for stored in self.stored.values():
            stored.close()


#: each LOGGED table's key column
_KEYS = {spec.suffix: spec.key for spec in (AUDIT, EXPOSURE, ENCODINGS)}
