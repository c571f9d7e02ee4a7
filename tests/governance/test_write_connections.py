"""A SQLite store's connections: how its write connections checkpoint the WAL, and what a
drop writes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memhall.governance import fast_handoff
from memhall.governance.projection import plans
from memhall.governance import store as store_module
from memhall.governance.store import WRITE_CHECKPOINT_PAGES, Store


def test_a_write_connection_checkpoints_after_more_pages_than_a_batch_dirties(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'memhall.db'}")
    try:
        with store.write() as conn:
            write_pages = conn.exec_driver_sql("PRAGMA wal_autocheckpoint").scalar()
        with store.read() as conn:
            read_pages = conn.exec_driver_sql("PRAGMA wal_autocheckpoint").scalar()
    finally:
        store.dispose()
    assert write_pages == WRITE_CHECKPOINT_PAGES > 1000
    assert read_pages == 1000  # a reader commits nothing: SQLite's default, untouched


def wal_bytes_of_a_drop(db: Any, wal: Path) -> int:
    """How many bytes of WAL dropping a table of about 3 MB writes, on a DBAPI connection
    in autocommit (its settings as memhall made them)."""
    db.execute("CREATE TABLE scratch (blob BLOB)")
    db.executemany("INSERT INTO scratch VALUES (?)", [(bytes(3000),) for _ in range(1000)])
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.execute("DROP TABLE scratch")
    return wal.stat().st_size


def test_dropping_a_table_does_not_write_its_freed_pages_again(tmp_path: Path) -> None:
    # a rebuild drops every read model: with SQLite's secure_delete on (as Debian builds it)
    # each freed page was zeroed and written to the WAL once more, as much as the table held
    path = tmp_path / "memhall.db"
    store = Store(f"sqlite:///{path}")
    try:
        db = store.write_engine.raw_connection()
        try:
            written = {"store": wal_bytes_of_a_drop(db.driver_connection, Path(f"{path}-wal"))}
        finally:
            db.close()
    finally:
        store.dispose()
    beside = plans.connect("sqlite", str(path), 5)  # a rebuild's writer process
    try:
        written["writer"] = wal_bytes_of_a_drop(beside, Path(f"{path}-wal"))
    finally:
        beside.close()
    handoff = fast_handoff.connect(path)
    try:
        handoff.execute("PRAGMA journal_mode = WAL")
        written["fast handoff"] = wal_bytes_of_a_drop(handoff, Path(f"{path}-wal"))
    finally:
        handoff.close()
    assert all(size < 300_000 for size in written.values()), written  # the table held 3 MB


def test_a_wal_grown_large_is_cut_back_once_it_starts_over(tmp_path: Path, monkeypatch: Any) -> None:
    # a rebuild's writer lets the WAL grow to hundreds of MB between checkpoints; a process that
    # keeps the store open must not keep a file that size (SQLite's default keeps the largest)
    monkeypatch.setattr(store_module, "WAL_KEPT_BYTES", 256 << 10)
    path = tmp_path / "memhall.db"
    store = Store(f"sqlite:///{path}")
    wal = Path(f"{path}-wal")
    try:
        db = store.write_engine.raw_connection()
        try:
            lite = db.driver_connection
            lite.execute("CREATE TABLE scratch (blob BLOB)")
            lite.execute("BEGIN IMMEDIATE")
            lite.executemany("INSERT INTO scratch VALUES (?)", [(bytes(3000),) for _ in range(1000)])
            lite.execute("COMMIT")
            grown = wal.stat().st_size
            lite.execute("PRAGMA wal_checkpoint(PASSIVE)")  # every frame copied: the WAL may start over
            lite.execute("INSERT INTO scratch VALUES (x'00')")  # ... and does, here
            kept = wal.stat().st_size
        finally:
            db.close()
    finally:
        store.dispose()
    assert grown > 2_000_000
    assert kept <= (256 << 10) + (64 << 10), (grown, kept)
