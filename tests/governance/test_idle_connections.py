"""A pooled PostgreSQL connection is pinged only after it sat idle; one the server dropped
meanwhile is replaced, and the write goes through (SQLite has no server to lose)."""

from __future__ import annotations

import pytest
from sqlalchemy import QueuePool, create_engine, text

from memhall.domains.entry import draft
from memhall.governance import store as store_module
from memhall.governance.hall import Hall
from tests.conftest import POSTGRES_URL


def test_a_connection_the_server_dropped_while_idle_is_replaced(postgres_hall: Hall,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    hall = postgres_hall
    hall.write("codex", "company", draft(text="before the server dropped us", layer="L2"))
    engine = hall.store.write_engine
    assert isinstance(engine.pool, QueuePool)
    pooled = [engine.connect() for _ in range(engine.pool.checkedin())]  # every pooled connection
    pids = [conn.execute(text("SELECT pg_backend_pid()")).scalar_one() for conn in pooled]
    for conn in pooled:
        conn.close()
    admin = create_engine(POSTGRES_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        for pid in pids:  # the server drops them all while they sit in the pool
            assert conn.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid}).scalar_one()
    admin.dispose()
    monkeypatch.setattr(store_module, "IDLE_PING_S", -1.0)  # as if they had sat idle for a while

    written = hall.write("codex", "company", draft(text="after the server dropped us", layer="L2"))

    assert written.entry_id and not written.replayed
