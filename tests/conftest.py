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
from sqlalchemy import create_engine, text

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


@pytest.fixture(params=BACKENDS)
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh, empty store; on PostgreSQL a schema of its own, dropped afterwards."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'memhall.db'}"
        return
    schema = f"t_{uuid.uuid4().hex[:12]}"
    admin = create_engine(POSTGRES_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f"CREATE SCHEMA {schema}"))
    try:
        yield postgres_schema_url(schema)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))
        admin.dispose()


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
    return h
