"""Read models compared as streams, for `audit verify`'s fast path.

Some read models are only ever inserted into, one row per event (or a few), in
log order, and never changed afterwards: the audit rows, who holds what
(exposure), the encodings, and SQLite's full-text rows. Rather than replaying them into a scratch
copy and comparing the two tables at the end, each stored table is read in log
order beside the replay and compared row by row as the replay produces its rows:
no scratch rows are written, and no table is sorted.

This is a shortcut, not the verdict: at the first row that is not exactly what
the replay produced — a difference, a missing or an extra row, rows in another
order, or any operation on these tables other than an insert — it raises
`Diverged`, and the caller verifies the domain again the thorough way, which
names the table, key and column. A false alarm only costs time.
"""

from __future__ import annotations

from typing import Any

from memhall.governance.projection.apply import SqlBackend, row_encoder
from memhall.governance.projection.schema import AUDIT, ENCODINGS, EXPOSURE, SEARCH, TableSpec

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


def streamed(dialect: str) -> tuple[TableSpec, ...]:
    return tuple(spec for spec in (AUDIT, EXPOSURE, SEARCH, ENCODINGS) if _query(spec, dialect, "") is not None)


class _Stored:
    """One stored table read in log order, a batch of rows at a time, on its own cursor."""

    def __init__(self, db: Any, dialect: str, prefix: str, spec: TableSpec) -> None:
        self.spec = spec
        self.encode = row_encoder(spec)
        self.sort = spec is EXPOSURE
        self.count = 0
        named = {"name": f"mhv_stream_{spec.suffix}"} if dialect == "postgresql" else {}
        self.cursor = db.cursor(**named)  # PostgreSQL: a server-side cursor, rows fetched as read
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


class StreamingBackend(SqlBackend):
    """The replay's SQL backend for the scratch copies, except that rows of streamed tables are
    compared with the stored ones as they come, and never written."""

    def __init__(self, db: Any, dialect: str, scratch_prefix: str, stored_prefix: str) -> None:
        super().__init__(db, dialect, scratch_prefix)
        self.stored: dict[str, _Stored] = {}
        try:
            for spec in streamed(dialect):
                self.stored[spec.suffix] = _Stored(db, dialect, stored_prefix, spec)
        except BaseException:
            self.close()
            raise

    def fetch(self, table: str, key: str) -> dict[str, Any] | None:
        self._not_streamed(table)
        return super().fetch(table, key)

    def fetch_many(self, keys: list[tuple[str, str]]) -> dict[tuple[str, str], dict[str, Any] | None]:
        for table, _ in keys:
            self._not_streamed(table)
        return super().fetch_many(keys)

    def insert(self, table: str, rows: list[dict[str, Any]]) -> None:
        stored = self.stored.get(table)
        if stored is None:
            super().insert(table, rows)
        else:
            stored.check(rows)

    def replace(self, table: str, rows: list[dict[str, Any]]) -> None:
        self._not_streamed(table)
        super().replace(table, rows)

    def update(self, table: str, columns: tuple[str, ...], rows: list[tuple[str, tuple[Any, ...]]]) -> None:
        self._not_streamed(table)
        super().update(table, columns, rows)

    def _not_streamed(self, table: str) -> None:
        if table in self.stored:
            raise Diverged(f"{table}: a replayed event changes a row it had inserted")

    def finish(self) -> dict[str, int]:
        """Rows compared per streamed table, once every stored row was accounted for."""
        return {suffix: stored.finish() for suffix, stored in self.stored.items()}

    def close(self) -> None:
        for stored in self.stored.values():
            stored.close()
