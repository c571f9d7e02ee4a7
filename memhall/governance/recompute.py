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

import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, NamedTuple

from pydantic import BaseModel

from memhall.governance.document import COLUMN, altered
from memhall.governance.projection import ops_for
from memhall.governance.projection.apply import Projector, SqlBackend
from memhall.governance.projection.ops import LOGGED, replayed_ops
from memhall.governance.projection.schema import READ_MODELS, SEARCH, TableSpec, from_sql
from memhall.governance.replay import BATCH, KEPT, collector_paused, events_of, replay
from memhall.governance.streamed import Diverged, StreamingBackend, keyed, streamed

if TYPE_CHECKING:
    from sqlalchemy import Connection

    from memhall.governance.streams import Streams

#: the domain registry, the system stream (as in `tables`, which this module does not import:
#: it is what `audit verify`'s process beside runs, without SQLAlchemy)
REGISTRY = "mh_domains"
SYSTEM = "0sys"


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


class Half(NamedTuple):
    """What `audit verify`'s process beside says of one domain (`models_at`): the verdict on
    every read model but the LOGGED ones, which the chain walk checks (`LoggedCheck`), unless
    it had to take the thorough way, which covers them all (`whole`)."""

    report: ModelReport
    whole: bool


class Source(NamedTuple):
    """How to reach a store without SQLAlchemy: its dialect and the DBAPI connect arguments."""

    dialect: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any]


@contextmanager
def _snapshot(streams: Streams) -> Iterator[Connection]:
    with streams.store.read_engine.connect() as conn:
        if streams.store.dialect == "postgresql":
            conn = conn.execution_options(isolation_level="REPEATABLE READ")
        with conn.begin():
            yield conn


def verify_read_models(streams: Streams, domains: list[str] | None = None, *,
                       batch: int = BATCH, thorough: bool = False) -> list[ModelReport]:
    """One report per domain (and the system stream), each stopping at its first difference;
    the log is replayed `batch` events at a time (`thorough`: the thorough way at once)."""
    names = domains if domains is not None else [*streams.discovered(), SYSTEM]
    with _snapshot(streams) as conn:
        return [half.report for half in _halves(conn.connection.driver_connection, streams.store.dialect,
                                                names, batch=batch, thorough=thorough)]


def verify_on(db: Any, dialect: str, names: Sequence[str], *, batch: int = BATCH) -> list[ModelReport]:
    """`verify_read_models` on a DBAPI connection, in the snapshot its transaction sees."""
    return [half.report for half in _halves(db, dialect, names, batch=batch)]


def _halves(db: Any, dialect: str, names: Sequence[str], *, batch: int, logged: bool = True,
            thorough: bool = False) -> list[Half]:
    cursor = db.cursor()
    cursor.execute(f"SELECT name, created_by FROM {REGISTRY}")
    registry = {str(name): by for name, by in cursor.fetchall()}
    return [_verify(db, dialect, name, registry, batch, logged=logged, thorough=thorough) for name in names]


def models_of(url: str, names: list[str] | None = None, *, thorough: bool = False) -> list[ModelReport]:
    """`verify_read_models` of the given streams (default every one) of the store at `url`,
    in this process."""
    from memhall.governance.store import Store
    from memhall.governance.streams import Streams

    store = Store(url)
    try:
        return verify_read_models(Streams(store), names, thorough=thorough)
    finally:
        store.dispose()


def combined(halves: list[Half], logged: dict[str, int | None],
             thorough: Callable[[list[str]], list[ModelReport]]) -> list[ModelReport]:
    """`verify_read_models`' reports from its two halves: the process beside's (`models_at`) and
    the LOGGED tables' rows compared per domain by the chain walk (`LoggedCheck.finish`: None
    where they diverged). A domain whose LOGGED rows diverged is verified again the thorough
    way (`thorough`), as `verify_read_models` would have: the report names the same row."""
    again = [h.report.domain for h in halves if not h.whole and logged.get(h.report.domain) is None]
    redone = {report.domain: report for report in thorough(again)} if again else {}
    reports = []
    for half in halves:
        domain, report = half.report.domain, half.report
        if half.whole:
            reports.append(report)
        elif domain in redone:
            reports.append(redone[domain])
        else:
            reports.append(report.model_copy(update={"rows": report.rows + (logged[domain] or 0)}))
    return reports


#: a stream's own tables, by which a stream is found without the registry
STREAM_TABLE = re.compile(r"^mh_(.+)_(?:events|chain)$")


def table_names(db: Any, dialect: str) -> set[str]:
    """The tables of the store's schema, in one catalog query on a DBAPI connection
    (SQLAlchemy's reflection of them took ~50 ms on PostgreSQL)."""
    cursor = db.cursor()
    try:
        cursor.execute("SELECT name FROM sqlite_master WHERE type = 'table'" if dialect == "sqlite" else
                       "SELECT tablename FROM pg_catalog.pg_tables WHERE schemaname = current_schema()")
        return {str(row[0]) for row in cursor.fetchall()}
    finally:
        cursor.close()


def beside_plan(db: Any, dialect: str) -> tuple[list[str], int] | None:
    """What `audit verify`'s process beside is given, read with the driver alone: the streams
    whose events table exists (registered domains and any stream found by its tables, the
    system stream last), and how many events they hold together (from each chain's head row).
    None: no registry and no stream tables (not a memhall store)."""
    tables = table_names(db, dialect)
    cursor = db.cursor()
    names = {m.group(1) for m in map(STREAM_TABLE.match, tables) if m}
    if REGISTRY in tables:
        cursor.execute(f"SELECT name FROM {REGISTRY}")
        names.update(str(row[0]) for row in cursor.fetchall())
    elif not names:
        return None
    names.discard(SYSTEM)
    streams = [name for name in [*sorted(names), SYSTEM] if f"mh_{name}_events" in tables]
    size = 0
    for name in streams:
        if f"mh_{name}_head" in tables:
            cursor.execute(f"SELECT position FROM mh_{name}_head")
            size += sum(int(row[0] or 0) for row in cursor.fetchall())
    return streams, size


def source_of(url: str) -> Source:
    """The DBAPI connect arguments SQLAlchemy would use for `url` (for `models_at`)."""
    from sqlalchemy import create_engine

    engine = create_engine(url)
    args, kwargs = engine.dialect.create_connect_args(engine.url)
    kwargs.pop("context", None)  # psycopg's adapters of this engine: the child has its own
    engine.dispose()
    return Source(engine.dialect.name, tuple(args), dict(kwargs))


def models_at(source: Source, names: list[str]) -> list[Half]:
    """`verify_read_models` of the given streams but their LOGGED tables (see `Half`), on a
    connection of its own: what `audit verify` runs in a process beside the chain walk. It
    imports neither SQLAlchemy nor the hall (half a second of a child's start-up on PostgreSQL)."""
    if source.dialect == "sqlite":
        import sqlite3

        db = sqlite3.connect(*source.args, **{**source.kwargs, "timeout": 30, "isolation_level": None})
        try:
            db.execute("PRAGMA busy_timeout = 30000")
            db.execute("BEGIN")  # one read snapshot for the whole check
            return _halves(db, "sqlite", names, batch=BATCH, logged=False)
        finally:
            db.close()
    import psycopg

    pg = psycopg.connect(*source.args, **source.kwargs)
    try:
        pg.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
        return _halves(pg, "postgresql", names, batch=BATCH, logged=False)
    finally:
        pg.close()


def _verify(db: Any, dialect: str, name: str, registry: dict[str, Any], batch: int, *,
            logged: bool = True, thorough: bool = False) -> Half:
    """The domain's verdict: first the fast way (the append-only read models and the entries
    compared as streams; `logged=False`: but the LOGGED tables, checked elsewhere); at the first
    divergence there, again the thorough way, which names the row."""
    if not thorough:
        try:
            return Half(_verify_once(db, dialect, name, registry, batch, streaming=True, logged=logged), False)
        except Diverged:
            pass
    return Half(_verify_once(db, dialect, name, registry, batch, streaming=False), True)


def _verify_once(db: Any, dialect: str, name: str, registry: dict[str, Any], batch: int, *,
                 streaming: bool, logged: bool = True) -> ModelReport:
    prefix = f"mh_{name}_"
    specs = [*READ_MODELS, *([SEARCH] if dialect == "sqlite" else [])]
    if not logged:
        specs = [s for s in specs if s.suffix not in LOGGED]
    direct = streamed(dialect, logged=logged) if streaming else ()
    scratch = _Scratch(db, dialect, prefix, [s for s in specs if s not in direct])
    backend = (StreamingBackend(db, dialect, scratch.prefix, prefix, logged=logged) if streaming
               else SqlBackend(db, dialect, scratch.prefix))
    ops_of = ops_for if logged else replayed_ops
    try:
        events, opened = 0, []
        projector = Projector(backend, keep=KEPT)  # the scratch copies are this replay's alone
        with collector_paused():
            for rows in events_of(db, prefix + "events", dialect, batch=batch):
                opened.extend(replay(rows, backend, ops_of, projector=projector))
                events += len(rows)
            projector.flush()
        checked = sum(backend.finish().values()) if isinstance(backend, StreamingBackend) else 0
        for spec in specs:
            if spec in direct or (streaming and spec in keyed()):
                continue
            broken, seen = _compare(db, prefix + spec.suffix, scratch.prefix + spec.suffix, spec)
            checked += seen
            if broken is not None:
                return ModelReport(domain=name, ok=False, events=events, rows=checked, broken=broken)
    finally:
        if isinstance(backend, StreamingBackend):
            backend.close()
        scratch.drop()
    wrong = altered(db, prefix + "entries") if dialect == "postgresql" else None
    if wrong is not None:
        return ModelReport(domain=name, ok=False, events=events, rows=checked, broken=ModelBreak(
            table=prefix + "entries", key="", column=COLUMN, detail=wrong))
    for state in opened:
        known, by = state["name"] in registry, registry.get(state["name"])
        if not known or by != state["actor"]:
            return ModelReport(domain=name, ok=False, events=events, rows=checked, broken=ModelBreak(
                table=REGISTRY, key=state["name"], column="created_by" if known else "name",
                detail=(f"the log opened domain {state['name']} but the registry has no row for it"
                        if not known else f"the registry says {by!r} created it, "
                        f"the log says {state['actor']!r}")))
    return ModelReport(domain=name, ok=True, events=events, rows=checked)


class _Scratch:
    """Empty copies of a domain's read models, keyed but without secondary indexes,
    that live as long as the verifying session (SQLite's temp schema, PostgreSQL's
    temporary tables): the log is replayed into them with the rebuild path, then
    they are compared with the stored ones in SQL."""

    def __init__(self, db: Any, dialect: str, prefix: str, specs: list[TableSpec]) -> None:
        self.db = db
        self.names = [f"mhv_{prefix.removeprefix('mh_')}{spec.suffix}" for spec in specs]
        self.prefix = ("temp." if dialect == "sqlite" else "") + f"mhv_{prefix.removeprefix('mh_')}"
        cursor = db.cursor()
        if dialect == "sqlite":
            # up to 256 MB of scratch pages stay in memory (the default is 2 MB); beyond, a temp file
            cursor.execute("PRAGMA temp.cache_size = -262144")
        for spec, scratch in zip(specs, self.names):
            qualified = ("temp." if dialect == "sqlite" else "") + scratch
            cursor.execute(f"DROP TABLE IF EXISTS {qualified}")
            if dialect == "sqlite":
                cursor.execute(f"CREATE TEMP TABLE {scratch} AS SELECT {', '.join(spec.names)} "
                               f"FROM {prefix}{spec.suffix} WHERE 0")
            else:
                cursor.execute(f"CREATE TEMP TABLE {scratch} (LIKE {prefix}{spec.suffix})")
            cursor.execute(f"CREATE UNIQUE INDEX {'temp.' if dialect == 'sqlite' else ''}{scratch}_key "
                           f"ON {scratch} ({spec.key})")
        self.qualified = [("temp." if dialect == "sqlite" else "") + n for n in self.names]

    def drop(self) -> None:
        cursor = self.db.cursor()
        for name in self.qualified:
            cursor.execute(f"DROP TABLE IF EXISTS {name}")


def _compare(db: Any, table: str, scratch: str, spec: TableSpec) -> tuple[ModelBreak | None, int]:
    """The first row (by key) where the stored table and its replay differ; rows stored."""
    cursor = db.cursor()
    cursor.execute(f"SELECT count(*) FROM {table}")
    stored_rows = int(cursor.fetchone()[0])
    cursor.execute(_differing_sql(table, scratch, spec, type(db).__module__.startswith("psycopg")))
    differing = sorted((str(r[0]) for r in cursor.fetchall()), key=_order)
    if not differing:
        return None, stored_rows
    key = differing[0]
    mark = "%s" if type(db).__module__.startswith("psycopg") else "?"
    have, want = (_row(db, name, spec, key, mark) for name in (table, scratch))
    if want is None:
        return ModelBreak(table=table, key=key, column=spec.key, detail=(
            f"row {key} of {table} is not in the log: it was inserted outside the hall")), stored_rows
    if have is None:
        return ModelBreak(table=table, key=key, column=spec.key, detail=(
            f"row {key} of {table} is missing: the log says it exists (deleted from the read model)")), stored_rows
    column = next((c for c in spec.names if have[c] != want[c]), spec.key)
    return ModelBreak(table=table, key=key, column=column, detail=(
        f"{table} row {key}, column {column}: stored {_short(have[column])}, "
        f"the log says {_short(want[column])}")), stored_rows


def _differing_sql(table: str, scratch: str, spec: TableSpec, postgresql: bool) -> str:
    """The keys of rows that differ, are missing, or are extra: each stored row looked up by
    key in the replay (whose key is indexed), then each replayed key looked for among the
    stored ones. Keys are unique on both sides, so this is the two-way EXCEPT, without
    sorting every column of both tables (the FTS table has no index on its key: NOT IN
    builds one once)."""
    same = " IS NOT DISTINCT FROM " if postgresql else " IS "
    equal = " AND ".join(f"s.{c}{same}r.{c}" for c in spec.names if c != spec.key)
    key = spec.key
    return (f"SELECT s.{key} FROM {table} s LEFT JOIN {scratch} r ON r.{key} = s.{key} "
            f"WHERE r.{key} IS NULL OR NOT ({equal}) "
            f"UNION SELECT r.{key} FROM {scratch} r WHERE r.{key} NOT IN (SELECT {key} FROM {table})")


def _row(db: Any, table: str, spec: TableSpec, key: str, mark: str) -> dict[str, Any] | None:
    cursor = db.cursor()
    cursor.execute(f"SELECT {', '.join(spec.names)} FROM {table} WHERE {spec.key} = {mark}", (key,))
    found = cursor.fetchone()
    return from_sql(spec, found) if found is not None else None


def _order(key: str) -> tuple[int, str]:
    return (int(key), "") if key.isdigit() else (0, key)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
