"""Applying row operations, in set-based batches, to SQL or to memory.

A `Projector` collects the operations of a batch of events (one write, an
import batch, a rebuild batch) in an overlay keyed by table and row key, and
flushes them as a few `executemany` statements: one insert per table, one
full-row update per table for rows the batch read, one partial update per
(table, columns) for rows it did not. A row is read only when an operation
needs its current values (`Merge`). The SQL backend runs on a plain DBAPI
connection (sqlite3 or psycopg) inside the caller's transaction; the memory
backend holds whole tables, for `audit verify` to compare with.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

from memhall.governance.projection.ops import LOGGED, Insert, Merge, Op, Update
from memhall.governance.projection.schema import BY_SUFFIX, SEARCH, TableSpec, from_sql, to_sql
from memhall.governance.projection.stored import flat_values, row_encoder, to_sql_partial

__all__ = ["Backend", "MemoryBackend", "Projector", "SqlBackend", "copy_rows", "row_encoder", "to_sql_partial"]

Key = tuple[str, str]


class Backend(Protocol):
    def fetch(self, table: str, key: str) -> dict[str, Any] | None: ...

    def fetch_many(self, keys: list[Key]) -> dict[Key, dict[str, Any] | None]: ...

    def insert(self, table: str, rows: list[dict[str, Any]]) -> None: ...

    def replace(self, table: str, rows: list[dict[str, Any]]) -> None: ...

    def update(self, table: str, columns: tuple[str, ...], rows: list[tuple[str, tuple[Any, ...]]]) -> None: ...


#: each table's key column
_KEYS = {suffix: spec.key for suffix, spec in BY_SUFFIX.items()}

#: the tables no operation ever updates or merges into (`ops.LOGGED`, and the full-text rows):
#: their rows skip the keyed overlay, and are kept by table, keyed by their own key (an entry
#: written inserts five of them: the (table, key) tuples, their hashes and the regrouping at
#: `flush` were ~5 % of a replay's Python time)
APPENDED = LOGGED | {"search"}


class Projector:
    """The overlay of one batch; `flush` writes it and starts the next."""

    def __init__(self, backend: Backend, ahead: dict[Key, dict[str, Any] | None] | None = None, *,
                 keep: frozenset[str] = frozenset()) -> None:
        self.backend = backend
        #: tables whose rows stay here from one `flush(final=False)` to the next, written by the
        #: final one: a replay's merge targets (a thread's row), read and rewritten by every
        #: batch otherwise. Only for a replay into empty tables it alone writes: a kept table's
        #: row that is not here does not exist, and is never read (a rebuild's reads wait for
        #: every batch before them to be written: see `pipelined`)
        self.keep = keep
        #: rows read ahead for the merges of a write (`prefetch`, or given: read with the domain's
        #: lock, in its round trip), None where there is no row
        self._ahead: dict[Key, dict[str, Any] | None] = dict(ahead or {})
        self._rows: dict[Key, dict[str, Any]] = {}
        self._new: dict[Key, None] = {}
        self._dirty: dict[Key, None] = {}
        self._partial: dict[Key, dict[str, Any]] = {}
        #: rows of the APPENDED tables: table -> key -> row (a key inserted again keeps its
        #: place, with the last row, as in the overlay)
        self._appended: dict[str, dict[Any, dict[str, Any]]] = {}

    def apply(self, ops: Iterable[Op]) -> None:
        rows, new, keys, appended = self._rows, self._new, _KEYS, self._appended
        for op in ops:
            if type(op) is Insert:
                table, row = op
                if table in APPENDED:
                    group = appended.get(table)
                    if group is None:
                        group = appended[table] = {}
                    group[row[keys[table]]] = row
                    continue
                key = (table, str(row[keys[table]]))
                rows[key] = row  # the handler built it for us: no copy
                new[key] = None
            elif type(op) is Update:
                if op.table in APPENDED:
                    raise ValueError(f"{op.table} rows are never updated")
                key = (op.table, op.key)
                if key in rows:
                    rows[key].update(op.values)
                    if key not in new:
                        self._dirty[key] = None
                else:
                    self._partial.setdefault(key, {}).update(op.values)
            elif type(op) is Merge:
                held = rows.get((op[0], op[1]))
                if held is not None:  # `_merge`'s own path for a row held here, without its call
                    held.update(op[2](held))
                else:
                    self._merge(op)
            else:
                raise TypeError(f"not a row operation: {op!r}")

    def prefetch(self, ops: Iterable[Op]) -> None:
        """Read the rows the merges among `ops` will need, at once: on PostgreSQL in pipeline
        mode one round trip for all of them instead of one each."""
        rows, ahead, keep = self._rows, self._ahead, self.keep
        wanted: dict[Key, None] = {}
        for op in ops:
            if type(op) is Merge and op.table not in keep:
                key = (op.table, op.key)
                if key not in rows and key not in ahead:
                    wanted[key] = None
        if len(wanted) > 1:
            ahead.update(self.backend.fetch_many(list(wanted)))

    def _merge(self, op: Merge) -> None:
        if op.table in APPENDED:
            raise ValueError(f"{op.table} rows are never merged into")
        key = (op.table, op.key)
        row = self._rows.get(key)
        if row is None:
            if op.table in self.keep:
                row = None  # not written yet: see `keep`
            else:
                row = self._ahead.pop(key) if key in self._ahead else self.backend.fetch(op.table, op.key)
            if row is None:
                if op.default is not None:  # an upsert's first row
                    self._rows[key] = dict(op.default)
                    self._new[key] = None
                return  # like an UPDATE of a missing row: nothing to change
            row.update(self._partial.pop(key, {}))
            self._rows[key] = row
            self._dirty[key] = None
        row.update(op.change(row))  # a change reads the row and returns new values, never mutates it

    def flush(self, *, final: bool = True) -> None:
        kept: list[tuple[Key, dict[str, Any], bool, bool]] = []
        if self.keep and not final:
            keep, new, dirty = self.keep, self._new, self._dirty
            kept = [(key, row, key in new, key in dirty) for key, row in self._rows.items() if key[0] in keep]
            for key, _, was_new, was_dirty in kept:
                if was_new:
                    del new[key]
                if was_dirty:
                    del dirty[key]
        for table, rows in _by_table(self._new, self._rows).items():
            self.backend.insert(table, rows)
        for table, appended in self._appended.items():
            self.backend.insert(table, list(appended.values()))
        for table, rows in _by_table(self._dirty, self._rows).items():
            self.backend.replace(table, rows)
        grouped: dict[tuple[str, tuple[str, ...]], list[tuple[str, tuple[Any, ...]]]] = {}
        for (table, ident), values in self._partial.items():
            columns = tuple(values)
            grouped.setdefault((table, columns), []).append((ident, tuple(values.values())))
        for (table, columns), changes in grouped.items():
            self.backend.update(table, columns, changes)
        self._ahead.clear()
        self._rows.clear()
        self._new.clear()
        self._dirty.clear()
        self._partial.clear()
        self._appended.clear()
        for key, row, was_new, was_dirty in kept:
            self._rows[key] = row
            if was_new:
                self._new[key] = None
            if was_dirty:
                self._dirty[key] = None


def _by_table(keys: dict[Key, None], rows: dict[Key, dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The rows of `keys`, grouped by table, in order (a rebuild groups ~600k rows per 100k
    events: no list made and dropped per row, as `setdefault(table, [])` would)."""
    grouped: dict[str, list[dict[str, Any]]] = {}
    for key in keys:
        group = grouped.get(key[0])
        if group is None:
            group = grouped[key[0]] = []
        group.append(rows[key])
    return grouped


#: compiled statements, shared by every backend: (dialect, prefix, kind, table, columns) -> SQL
_STATEMENTS: dict[tuple[str, ...], str] = {}


#: keys per query when many rows are read at once (`fetch_many`)
FETCH_CHUNK = 500

#: on SQLite, rows inserted by one statement (fewer where its limit of parameters says so)
ROWS_PER_INSERT = 32
#: sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER (without importing sqlite3 here)
_SQLITE_VARIABLES = 9

#: on PostgreSQL, inserts of at least this many rows go through COPY (one round trip, no
#: per-row statement); fewer are an executemany
COPY_MIN = 64


class SqlBackend:
    """Read models of one domain on a DBAPI connection (qmark for sqlite3, format for psycopg).
    `copy=False` when the connection is in pipeline mode, where COPY is not allowed."""

    def __init__(self, connection: Any, dialect: str, prefix: str, *, copy: bool = True) -> None:
        self.connection = connection
        self.dialect = dialect
        self.prefix = prefix
        self.mark = "?" if dialect == "sqlite" else "%s"
        self.copy = copy and dialect == "postgresql"

    def _skip(self, table: str) -> bool:
        # PostgreSQL indexes the entries table itself; only SQLite keeps FTS rows
        return table == "search" and self.dialect != "sqlite"

    def _statement(self, kind: str, spec: TableSpec, columns: tuple[str, ...] = (), rows: int = 1) -> str:
        cache_key = (self.dialect, self.prefix, kind, spec.suffix, str(rows), *columns)
        sql = _STATEMENTS.get(cache_key)
        if sql is None:
            name, m = self.prefix + spec.suffix, self.mark
            names = spec.names
            if kind == "insert":
                one = f"({', '.join(m for _ in names)})"
                verb = "INSERT OR FAIL" if rows > 1 and self.dialect == "sqlite" else "INSERT"  # _insert_many
                sql = f"{verb} INTO {name} ({', '.join(names)}) VALUES {', '.join([one] * rows)}"
            elif kind == "select":
                sql = f"SELECT {', '.join(names)} FROM {name} WHERE {spec.key} = {m}"
            else:
                sets = ", ".join(f"{c} = {m}" for c in columns)
                sql = f"UPDATE {name} SET {sets} WHERE {spec.key} = {m}"
            _STATEMENTS[cache_key] = sql
        return sql

    def fetch(self, table: str, key: str) -> dict[str, Any] | None:
        if self._skip(table):
            return None
        spec = BY_SUFFIX[table]
        cursor = self.connection.cursor()
        cursor.execute(self._statement("select", spec), (key,))
        found = cursor.fetchone()
        return from_sql(spec, found) if found is not None else None

    def fetch_many(self, keys: list[Key]) -> dict[Key, dict[str, Any] | None]:
        """The rows of many keys: one query per table (and per 500 keys), every one sent before
        any answer is read (in pipeline mode, one round trip for them all)."""
        return self.answers(keys, self.ask_many(keys))

    def ask_many(self, keys: list[Key]) -> list[tuple[str, Any]]:
        """`fetch_many`'s queries, sent: their answers are read by `answers` (in pipeline mode,
        after the pipeline's end, which reads them with every other answer of its round trip)."""
        by_table: dict[str, list[str]] = {}
        for table, key in keys:
            if not self._skip(table):
                by_table.setdefault(table, []).append(key)
        sent = []
        for table, wanted in by_table.items():
            spec = BY_SUFFIX[table]
            for start in range(0, len(wanted), FETCH_CHUNK):
                chunk = wanted[start:start + FETCH_CHUNK]
                cursor = self.connection.cursor()
                cursor.execute(f"SELECT {', '.join(spec.names)} FROM {self.prefix}{spec.suffix} "
                               f"WHERE {spec.key} IN ({', '.join(self.mark for _ in chunk)})", chunk)
                sent.append((table, cursor))
        return sent

    @staticmethod
    def answers(keys: list[Key], sent: list[tuple[str, Any]]) -> dict[Key, dict[str, Any] | None]:
        found: dict[Key, dict[str, Any] | None] = dict.fromkeys(keys)
        for table, cursor in sent:
            spec = BY_SUFFIX[table]
            for row in cursor.fetchall():
                value = from_sql(spec, row)
                found[(table, str(value[spec.key]))] = value
        return found

    def insert(self, table: str, rows: list[dict[str, Any]]) -> None:
        if self._skip(table):
            return
        spec = BY_SUFFIX[table]
        if self.dialect == "sqlite" and len(rows) > 1 and spec is not SEARCH:
            self._insert_many(spec, flat_values(spec, rows), len(rows))
            return
        encode = row_encoder(spec)
        if self.copy and len(rows) >= COPY_MIN:
            copy_rows(self.connection, self.prefix + spec.suffix, spec.names, map(encode, rows))
        else:
            self.connection.cursor().executemany(self._statement("insert", spec), [encode(row) for row in rows])

    def _insert_many(self, spec: TableSpec, values: list[Any], count: int) -> None:
        """SQLite: many rows, ROWS_PER_INSERT to a statement, in order. A statement's run has a
        cost of its own (its start, its end, and a savepoint of each full-text table the
        transaction has written): with one row each, ~3k instructions a row. Not for the
        full-text table (FTS5), where a statement of many rows costs more than its rows alone.
        `INSERT OR FAIL` (`_statement`): with the default ABORT, a statement of many rows into a
        table with a unique key needs a statement journal, and past 64 KiB SQLite keeps it in a
        temporary file: every page the statement touches was copied there first (a batch of
        1,000 entries wrote 3.3x the bytes, ~17 us of system time an entry). A failing statement
        then keeps its earlier rows, but the transaction around it never commits. `values`: the
        `count` rows' values, one row after the other (`stored.flat_values`)."""
        width = len(spec.names)
        per = max(1, min(ROWS_PER_INSERT, self.connection.getlimit(_SQLITE_VARIABLES) // width))
        cursor = self.connection.cursor()
        full = count - count % per
        if full:
            step = per * width
            cursor.executemany(self._statement("insert", spec, rows=per),
                               [values[at:at + step] for at in range(0, full * width, step)])
        if full < count:
            cursor.execute(self._statement("insert", spec, rows=count - full), values[full * width:])

    def replace(self, table: str, rows: list[dict[str, Any]]) -> None:
        if self._skip(table):
            return
        spec = BY_SUFFIX[table]
        columns = tuple(c for c in spec.names if c != spec.key)
        changes = [(str(row[spec.key]), tuple(row[c] for c in columns)) for row in rows]
        self.update(table, columns, changes)

    def update(self, table: str, columns: tuple[str, ...], rows: list[tuple[str, tuple[Any, ...]]]) -> None:
        if self._skip(table):
            return
        spec = BY_SUFFIX[table]
        stored = to_sql_partial(spec, columns)
        self.connection.cursor().executemany(
            self._statement("update", spec, columns),
            [(*stored(values), ident) for ident, values in rows])


def copy_rows(connection: Any, table: str, columns: tuple[str, ...], rows: Iterable[tuple[Any, ...]]) -> None:
    """PostgreSQL COPY … FROM STDIN of many rows (psycopg)."""
    with connection.cursor().copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
        for values in rows:
            copy.write_row(values)


class MemoryBackend:
    """Whole read models in memory: what replaying the log says they must hold."""

    def __init__(self) -> None:
        self.tables: dict[str, dict[str, dict[str, Any]]] = {}

    def fetch(self, table: str, key: str) -> dict[str, Any] | None:
        row = self.tables.get(table, {}).get(key)
        return dict(row) if row is not None else None

    def fetch_many(self, keys: list[Key]) -> dict[Key, dict[str, Any] | None]:
        return {(table, key): self.fetch(table, key) for table, key in keys}

    def insert(self, table: str, rows: list[dict[str, Any]]) -> None:
        spec = BY_SUFFIX[table]
        target = self.tables.setdefault(table, {})
        for row in rows:
            target[str(row[spec.key])] = _canonical(spec, row)

    def replace(self, table: str, rows: list[dict[str, Any]]) -> None:
        self.insert(table, rows)

    def update(self, table: str, columns: tuple[str, ...], rows: list[tuple[str, tuple[Any, ...]]]) -> None:
        target = self.tables.setdefault(table, {})
        spec = BY_SUFFIX[table]
        for ident, values in rows:
            if ident in target:
                target[ident] = _canonical(spec, {**target[ident], **dict(zip(columns, values))})


def _canonical(spec: TableSpec, row: dict[str, Any]) -> dict[str, Any]:
    """A row as it reads back from SQL (JSON round-tripped), for exact comparison."""
    return from_sql(spec, to_sql(spec, row, stored=False))
