"""A SQLite store's connections: how its write connections checkpoint the WAL."""

from __future__ import annotations

from pathlib import Path

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
