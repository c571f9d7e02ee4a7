"""Shared fixtures: a real store (a SQLite file, or PostgreSQL when
MEMHALL_TEST_POSTGRES_URL is set) and the real policy engine."""

from __future__ import annotations

import importlib
import os
import pkgutil
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Connection, create_engine, text

from memhall.audit.chain import GENESIS
from memhall.governance.hall import Hall
from memhall.governance.store import Store
from memhall.policies.engine import PolicySet

import memhall


def _scratch_on_tmpfs() -> None:
    """Test stores are scratch: put them on a RAM file system when there is one, so the
    fsync of each SQLite commit (the store runs with synchronous=FULL) costs nothing.
    Durability under kill -9 does not depend on fsync and is still tested; the product's
    settings are unchanged."""
    shm = Path("/dev/shm")
    if "PYTEST_DEBUG_TEMPROOT" in os.environ or not (shm.is_dir() and os.access(shm, os.W_OK)):
        return
    free = os.statvfs(shm)
    if free.f_bavail * free.f_frsize >= 2 * 1024**3:
        os.environ["PYTEST_DEBUG_TEMPROOT"] = str(shm)


_scratch_on_tmpfs()

# Every memhall module imported before any test freezes the clock: a pydantic model whose
# module is first imported lazily (inside a use case) under freezegun would take
# FakeDatetime for its `datetime` fields and fail to build.
for _module in pkgutil.walk_packages(memhall.__path__, "memhall."):
    if not _module.name.endswith("__main__"):
        importlib.import_module(_module.name)

POSTGRES_URL = os.environ.get("MEMHALL_TEST_POSTGRES_URL", "")

BACKENDS = ["sqlite"] + (["postgresql"] if POSTGRES_URL else [])


def postgres_schema_url(schema: str) -> str:
    """A URL whose connections work in `schema`. Commits do not wait for the server's WAL
    flush (synchronous_commit=off: a server crash could lose the last commits of a test
    store, never reorder or corrupt them); isolation and locking are unchanged."""
    sep = "&" if "?" in POSTGRES_URL else "?"
    return f"{POSTGRES_URL}{sep}options=-csearch_path%3D{schema}%20-csynchronous_commit%3Doff"


#: this worker's PostgreSQL schemas that held a hall fixture's store and nothing else, emptied
#: for the next test that asks for a hall: building one (company, family and the system
#: stream: about 130 tables and indexes) costs the server ~0.7 s of DDL, emptying it ~30 ms
_SPARE: list[str] = []
#: the objects (tables, indexes, sequences) of a freshly built hall's schema, once seen
_HALL_OBJECTS: set[frozenset[str]] = set()


def _objects(conn: Connection, schema: str) -> frozenset[str]:
    return frozenset(str(r[0]) for r in conn.execute(text(
        "SELECT relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = :s"), {"s": schema}))


def _emptied(conn: Connection, schema: str) -> bool:
    """Empty a schema that holds exactly a fresh hall's objects (else leave it): every row
    deleted, each chain's head back at the start, a new store id."""
    if _objects(conn, schema) not in _HALL_OBJECTS:
        return False
    tables = [str(r[0]) for r in conn.execute(text("SELECT tablename FROM pg_tables WHERE schemaname = :s"),
                                             {"s": schema})]
    conn.execute(text("; ".join(
        f"UPDATE {schema}.{t} SET position = 0, head = '{GENESIS}'" if t.endswith("_head")
        else f"UPDATE {schema}.{t} SET id = '{uuid.uuid4()}'" if t == "mh_store"
        else f"DELETE FROM {schema}.{t}" for t in tables)))
    return True


@pytest.fixture(params=BACKENDS)
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh, empty store; on PostgreSQL a schema of its own, dropped afterwards (or, for a
    test that asks for a hall, one that held only a hall's store, emptied)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'memhall.db'}"
        return
    wants_hall = "hall" in request.fixturenames
    admin = create_engine(POSTGRES_URL, isolation_level="AUTOCOMMIT")
    schema = _SPARE.pop() if wants_hall and _SPARE else f"t_{uuid.uuid4().hex[:12]}"
    with admin.connect() as conn:
        conn.execute(text(f"CREATE SCHEMA IF NOT EXISTS {schema}"))
    try:
        yield postgres_schema_url(schema)
    finally:
        with admin.connect() as conn:
            if wants_hall and _emptied(conn, schema):
                _SPARE.append(schema)
            else:
                conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))
        admin.dispose()


@pytest.fixture(scope="session", autouse=True)
def _spares_dropped() -> Iterator[None]:
    """The emptied schemas kept for reuse are dropped when the worker's tests end, so runs
    leave nothing behind on the server."""
    yield
    if POSTGRES_URL and _SPARE:
        admin = create_engine(POSTGRES_URL, isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            for schema in _SPARE:
                conn.execute(text(f"DROP SCHEMA IF EXISTS {schema} CASCADE"))
        admin.dispose()
        _SPARE.clear()


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Once every worker is done: the test database vacuumed. The suite creates and drops
    hundreds of schemas there, and where the server runs without autovacuum (as on the CI
    machines) their dead catalog rows stay, so each run made every later one slower (pg_class
    grew to 50 MB with 260,000 dead rows, a scan of it took 20 ms instead of 2, building a
    hall's tables 0.18 s instead of 0.09). Vacuumed after each run, the catalogs reuse their
    space. A server that will not let the test user vacuum is left as it is."""
    if not POSTGRES_URL or hasattr(session.config, "workerinput"):  # the controller, or a lone process
        return
    admin = create_engine(POSTGRES_URL, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.exec_driver_sql("VACUUM")
    except Exception:  # noqa: BLE001 - maintenance only: the run's outcome is the tests'
        pass
    finally:
        admin.dispose()


def remember_hall_objects(hall: Hall) -> None:
    """After building a hall on a fresh PostgreSQL schema: what such a schema holds."""
    if hall.store.dialect != "postgresql":
        return
    with hall.store.read() as conn:
        schema = str(conn.execute(text("SELECT current_schema()")).scalar_one())
        if schema.startswith("t_"):
            _HALL_OBJECTS.add(_objects(conn, schema))


@pytest.fixture(scope="session")
def policies() -> PolicySet:
    """The shipped default policy set (maki owns; claude chairs the system;
    codex chairs sessions; gemini is a seat; domains company and family)."""
    return PolicySet.load(None)


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:
    s = Store(store_url)
    yield s
    s.dispose()


@pytest.fixture
def hall(store: Store, policies: PolicySet) -> Hall:
    """A hall with the company and family domains created by their owner."""
    h = Hall(store, policies)
    h.create_domain("maki", "company")
    h.create_domain("maki", "family")
    remember_hall_objects(h)
    return h


@pytest.fixture
def sqlite_hall(tmp_path: Path, policies: PolicySet) -> Iterator[Hall]:
    """A hall on a SQLite file, for what only SQLite has (FTS5 rows and segments)."""
    h = Hall(Store(f"sqlite:///{tmp_path / 'memhall.db'}"), policies)
    h.create_domain("maki", "company")
    h.create_domain("maki", "family")
    yield h
    h.store.dispose()


@pytest.fixture
def postgres_hall(policies: PolicySet) -> Iterator[Hall]:
    """A hall on a PostgreSQL schema of its own, for what only a server has (connections it drops)."""
    if not POSTGRES_URL:
        pytest.skip("no PostgreSQL server configured (MEMHALL_TEST_POSTGRES_URL)")
    schema = f"t_{uuid.uuid4().hex[:12]}"
    admin = create_engine(POSTGRES_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f"CREATE SCHEMA {schema}"))
    h = Hall(Store(postgres_schema_url(schema)), policies)
    h.create_domain("maki", "company")
    try:
        yield h
    finally:
        h.store.dispose()
        with admin.connect() as conn:
            conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))
        admin.dispose()
