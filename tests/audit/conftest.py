"""A small recorded history in a SQLite file, and ways to verify and tamper with it."""

from __future__ import annotations

import shutil
import sqlite3
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from sqlalchemy import select

from memhall.audit.checkpoints import Checkpoint
from memhall.audit.verify import BATCH, ChainReport, ChainSource, snapshot, verify_store
from memhall.cli.audit import write_checkpoint
from memhall.cli.context import App
from memhall.domains.entry import draft
from memhall.domains.errors import PolicyDeniedError, UnknownDomainError
from memhall.governance.hall import Hall
from memhall.governance.store import Store
from memhall.governance.tables import SYSTEM, domains_table, tables_for
from memhall.policies.engine import PolicySet

#: company's positions in the recorded history
OPENED, CHARTER, FIRST_WRITE, REFUSAL, LAST = 1, 2, 3, 8, 10


def record_history(hall: Hall) -> None:
    """company: opened (1), its charter (2: the policy adopted on first use), five
    writes (3-7), a refusal (8), two writes (9-10); family: opened, its charter and
    one write; the system stream: its charter and one refusal."""
    for n in range(5):
        hall.write("codex", "company", draft(text=f"company fact number {n}", layer="L2"))
    with pytest.raises(PolicyDeniedError):
        hall.write("gemini", "company", draft(text="a seat may not write L2", layer="L2"))
    for n in range(5, 7):
        hall.write("codex", "company", draft(text=f"company fact number {n}", layer="L2"))
    hall.write("codex", "family", draft(text="family fact", layer="L2"))
    with pytest.raises(UnknownDomainError):
        hall.write("codex", "atlantis", draft(text="nowhere", layer="L2"))


def write_more(db: Path, policies: PolicySet, count: int) -> None:
    hall = Hall(Store(url(db)), policies)
    for n in range(count):
        hall.write("codex", "company", draft(text=f"later company fact {uuid.uuid4()}", layer="L2"))
    hall.store.dispose()


@pytest.fixture
def db(tmp_path: Path, policies: PolicySet) -> Path:
    """The recorded history in a closed SQLite file."""
    path = tmp_path / "memhall.db"
    hall = Hall(Store(url(path)), policies)
    hall.create_domain("maki", "company")
    hall.create_domain("maki", "family")
    record_history(hall)
    hall.store.dispose()
    return path


def url(db: Path) -> str:
    return f"sqlite:///{db}"


def verify(db: Path | str, seen: list[Checkpoint] | None = None, *, batch: int = BATCH,
           incremental: bool = False) -> dict[str, ChainReport]:
    """Every stream's verdict, by domain, composed as the CLI composes it."""
    store = Store(db if isinstance(db, str) else url(db))
    try:
        with snapshot(store.read_engine) as conn:
            names = [r[0] for r in conn.execute(select(domains_table.c.name))] + [SYSTEM]
            sources = [ChainSource(n, tables_for(n).events_name, tables_for(n).chain.name) for n in names]
            reports = verify_store(conn, sources, seen or [], batch=batch, incremental=incremental)
    finally:
        store.dispose()
    return {r.domain: r for r in reports}


def take_checkpoint(db: Path | str, file: Path) -> list[Checkpoint]:
    return write_checkpoint(App(store_arg=str(db)), file)


@contextmanager
def raw(db: Path) -> Iterator[sqlite3.Connection]:
    """A plain sqlite3 connection, as an attacker with the file would use."""
    conn = sqlite3.connect(db)
    try:
        yield conn
        conn.commit()
    finally:
        conn.close()


def copy_store(source: Path, target: Path) -> None:
    """Copy a closed SQLite store, its WAL folded in first, and no stale -wal/-shm left beside it."""
    with raw(source) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    for suffix in ("-wal", "-shm"):
        Path(f"{target}{suffix}").unlink(missing_ok=True)
    shutil.copyfile(source, target)
