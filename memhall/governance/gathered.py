"""PostgreSQL: a small append's read-model writes gathered into the statement that logs it.

`Journal.append` logs up to `LOG_IN_ONE` events, their chain links and the head's move in
one statement (`WITH e AS (INSERT …), c AS (INSERT …) UPDATE head …`). A write's read-model
changes — the entry's row, its encoding, exposure and audit rows, the thread it
moves — were a statement each after it: the server parsed, planned (or bound) and
ran seven statements under the domain's lock, and the client sent them one by one. Here
they become more data-modifying CTEs of that one statement.

The rows and their encoding are `SqlBackend`'s: `Gathered` is that backend with its writes
kept instead of sent (the same SQL, the same values, in the same order), so there is still
one implementation of each projection. What one statement cannot do is see its own changes:
all its parts run on one snapshot, and a row two of them write (one inserts it, another
updates it) would not end as the one-by-one statements leave it. Such a flush, or one too
large for one statement, runs its parts one after another, as `SqlBackend` would.
"""

from __future__ import annotations

from typing import Any

from memhall.governance.projection.apply import SqlBackend, row_encoder, to_sql_partial
from memhall.governance.projection.schema import BY_SUFFIX

#: parameters past which the parts run as statements of their own (PostgreSQL allows 65,535
#: to a statement; a statement this large is rare and not worth preparing)
MOST_PARAMETERS = 4096

#: the statement of a log (its CTEs, its last statement) and parts' SQL -> the gathered text
_GATHERED: dict[tuple[str, str, tuple[str, ...]], str] = {}
#: how many gathered texts are kept (one a shape of write: single writes have a few)
_KEPT = 256


class Gathered(SqlBackend):
    """Read models of one domain on a psycopg connection: reads run as they come (a merge
    needs its row), writes are kept as parts (SQL, parameters) for `run`."""

    def __init__(self, connection: Any, prefix: str) -> None:
        super().__init__(connection, "postgresql", prefix, copy=False)
        self.parts: list[tuple[str, list[Any]]] = []
        self._written: set[tuple[str, str]] = set()
        #: a row written by two parts: they must run one after another
        self._apart = False
        self._parameters = 0

    def insert(self, table: str, rows: list[dict[str, Any]]) -> None:
        if self._skip(table) or not rows:
            return
        spec = BY_SUFFIX[table]
        encode = row_encoder(spec)
        values = [value for row in rows for value in encode(row)]
        self._written_to(table, [str(row[spec.key]) for row in rows])
        self._add(self._statement("insert", spec, rows=len(rows)), values)

    def update(self, table: str, columns: tuple[str, ...], rows: list[tuple[str, tuple[Any, ...]]]) -> None:
        if self._skip(table) or not rows:
            return
        spec = BY_SUFFIX[table]
        stored = to_sql_partial(spec, columns)
        sql = self._statement("update", spec, columns)
        self._written_to(table, [ident for ident, _ in rows])
        for ident, values in rows:
            self._add(sql, [*stored(values), ident])

    def _written_to(self, table: str, keys: list[str]) -> None:
        written = self._written
        for key in keys:
            if (table, key) in written:
                self._apart = True
            written.add((table, key))

    def _add(self, sql: str, values: list[Any]) -> None:
        self.parts.append((sql, values))
        self._parameters += len(values)

    def run(self, ctes: str, before: list[Any], last: str, after: list[Any]) -> None:
        """Run the statement `WITH {ctes} {last}` (the values of its CTEs, then of its last
        statement) and the kept writes: as one statement, or, where they cannot be one, that
        statement and then each write, in order."""
        cursor = self.connection.cursor()
        if self._apart or self._parameters + len(before) + len(after) > MOST_PARAMETERS:
            cursor.execute(f"WITH {ctes} {last}", [*before, *after])
            for sql, params in self.parts:
                cursor.execute(sql, params)
        else:
            from psycopg import RawCursor  # loaded already: this is a psycopg connection

            # numbered placeholders ($1…): psycopg parses a statement's %s again at every call
            # when it has more than 50 parameters (0.12 ms of a write's time under the lock)
            RawCursor(self.connection).execute(
                gathered_sql(ctes, last, tuple(sql for sql, _ in self.parts)),
                [*before, *(value for _, params in self.parts for value in params), *after])
        self.parts.clear()
        self._written.clear()
        self._apart = False
        self._parameters = 0


def gathered_sql(ctes: str, last: str, parts: tuple[str, ...]) -> str:
    """One statement: the log's CTEs, each part as one more, then the log's last statement,
    its placeholders (%s in the texts given) numbered in the order they are written."""
    key = (ctes, last, parts)
    sql = _GATHERED.get(key)
    if sql is None:
        if len(_GATHERED) >= _KEPT:
            _GATHERED.clear()
        more = "".join(f", w{i} AS ({part})" for i, part in enumerate(parts))
        pieces = f"WITH {ctes}{more} {last}".split("%s")
        if any("%" in piece for piece in pieces):
            raise ValueError(f"not a placeholder: {ctes}{more} {last}")
        sql = _GATHERED[key] = "".join(f"{piece}${n}" for n, piece in enumerate(pieces[:-1], 1)) + pieces[-1]
    return sql
