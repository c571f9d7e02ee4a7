"""Read models verified, not trusted: replay the log in memory and compare.

`audit verify` recomputes every stored read model of every domain — entries,
full-text rows, sessions, promotions, requests, materializations, audit rows,
and the domain registry — with the very handlers and projector a write uses
(the rebuild path, into memory instead of SQL), then compares them row by row
with what is stored. The first difference is reported with its table, key and
column. Values derived at read time (aging, strength) are not stored and so
are not compared.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from pydantic import BaseModel
from sqlalchemy import Connection, select

from memhall.governance.projection.apply import MemoryBackend
from memhall.governance.projection.schema import READ_MODELS, SEARCH, TableSpec, from_sql
from memhall.governance.rebuild import events_of, replay
from memhall.governance.store import raw
from memhall.governance.streams import Streams
from memhall.governance.tables import SYSTEM, domains_table


class ModelBreak(BaseModel):
    """The first stored row that the log does not account for."""

    table: str
    key: str
    column: str
    detail: str


class ModelReport(BaseModel):
    domain: str
    ok: bool
    events: int
    rows: int
    broken: ModelBreak | None = None


@contextmanager
def _snapshot(streams: Streams) -> Iterator[Connection]:
    with streams.store.read_engine.connect() as conn:
        if streams.store.dialect == "postgresql":
            conn = conn.execution_options(isolation_level="REPEATABLE READ")
        with conn.begin():
            yield conn


def verify_read_models(streams: Streams, domains: list[str] | None = None) -> list[ModelReport]:
    """One report per domain (and the system stream), each stopping at its first difference."""
    names = domains if domains is not None else [*streams.discovered(), SYSTEM]
    reports = []
    with _snapshot(streams) as conn:
        registry = {r.name: r for r in conn.execute(select(domains_table))}
        for name in names:
            reports.append(_verify(streams, conn, name, registry))
    return reports


def _verify(streams: Streams, conn: Connection, name: str, registry: dict[str, Any]) -> ModelReport:
    stream = streams.stream_of_tables(name)
    dialect = streams.store.dialect
    backend = MemoryBackend()
    events, opened = 0, []
    for rows in events_of(raw(conn), stream.tables.events_name, dialect):
        opened.extend(replay(rows, backend))
        events += len(rows)
    specs = [*READ_MODELS, *([SEARCH] if dialect == "sqlite" else [])]
    checked = 0
    for spec in specs:
        expected = backend.tables.get(spec.suffix, {})
        broken, seen = _compare(conn, stream.tables.prefix + spec.suffix, spec, expected)
        checked += seen
        if broken is not None:
            return ModelReport(domain=name, ok=False, events=events, rows=checked, broken=broken)
    for state in opened:
        row = registry.get(state["name"])
        if row is None or row.created_by != state["actor"]:
            return ModelReport(domain=name, ok=False, events=events, rows=checked, broken=ModelBreak(
                table=domains_table.name, key=state["name"], column="name" if row is None else "created_by",
                detail=(f"the log opened domain {state['name']} but the registry has no row for it"
                        if row is None else f"the registry says {row.created_by!r} created it, "
                        f"the log says {state['actor']!r}")))
    return ModelReport(domain=name, ok=True, events=events, rows=checked)


def _compare(conn: Connection, table: str, spec: TableSpec,
             expected: dict[str, dict[str, Any]]) -> tuple[ModelBreak | None, int]:
    cursor = raw(conn).cursor()
    cursor.execute(f"SELECT {', '.join(spec.names)} FROM {table}")
    stored = {}
    for values in cursor.fetchall():
        row = from_sql(spec, values)
        stored[str(row[spec.key])] = row
    for key in sorted(set(stored) | set(expected), key=_order):
        have, want = stored.get(key), expected.get(key)
        if want is None:
            return ModelBreak(table=table, key=key, column=spec.key, detail=(
                f"row {key} of {table} is not in the log: it was inserted outside the hall")), len(stored)
        if have is None:
            return ModelBreak(table=table, key=key, column=spec.key, detail=(
                f"row {key} of {table} is missing: the log says it exists (deleted from the read model)")), len(stored)
        for column in spec.names:
            if have[column] != want[column]:
                return ModelBreak(table=table, key=key, column=column, detail=(
                    f"{table} row {key}, column {column}: stored {_short(have[column])}, "
                    f"the log says {_short(want[column])}")), len(stored)
    return None, len(stored)


def _order(key: str) -> tuple[int, str]:
    return (int(key), "") if key.isdigit() else (0, key)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
