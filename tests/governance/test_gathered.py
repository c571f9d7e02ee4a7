"""On PostgreSQL a small append's read-model writes run as CTEs of the statement that logs it,
and leave exactly the rows their statements run one by one leave."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memhall.governance.gathered import Gathered
from memhall.governance.hall import Hall
from memhall.governance.projection.apply import Projector, SqlBackend
from memhall.governance.projection.ops import Insert, Merge, Op, Update
from memhall.governance.store import raw

THREADS = ["alpha", "beta", "gamma", "delta"]
PREFIX = "mh_company_"

step = st.one_of(st.tuples(st.just("insert"), st.sampled_from(THREADS)),
                 st.tuples(st.just("update"), st.sampled_from(THREADS)),
                 st.tuples(st.just("merge"), st.sampled_from(THREADS)))


def row(thread: str, n: int) -> dict[str, Any]:
    return {"thread": thread, "entries": n, "last_entry": f"e{n}", "last_at": f"2026-12-01T00:00:{n:02d}Z",
            "position": n}


def later(n: int) -> Callable[[dict[str, Any]], dict[str, Any]]:
    return lambda found: {"entries": found["entries"] + 1, "last_entry": f"e{n}"}


def operations(existing: list[str], plan: list[tuple[str, str]]) -> list[Op]:
    ops: list[Op] = []
    for n, (kind, thread) in enumerate(plan):
        if kind == "insert" and thread not in existing:  # a stored row inserted again is an error on both
            ops.append(Insert("threads", row(thread, n)))
        elif kind == "update":
            ops.append(Update("threads", thread, {"last_at": f"2026-12-02T00:00:{n:02d}Z", "position": 100 + n}))
        elif kind == "merge":
            ops.append(Merge("threads", thread, later(n), default=row(thread, n)))
    return ops


def rows_left(hall: Hall, existing: list[str], plan: list[tuple[str, str]], *,
              gathered: bool) -> list[tuple[Any, ...]]:
    """The threads table after the plan's operations, in a transaction rolled back afterwards."""
    ops = operations(existing, plan)  # made for each run: a projector owns the rows it is given
    with hall.store.write_engine.connect() as conn:
        db = raw(conn)
        cursor = db.cursor()
        for thread in existing:
            cursor.execute(f"INSERT INTO {PREFIX}threads (thread, entries, last_entry, last_at, position) "
                           "VALUES (%s, 5, 'old', '', 0)", (thread,))
        backend = Gathered(db, PREFIX) if gathered else SqlBackend(db, "postgresql", PREFIX)
        projector = Projector(backend)
        projector.apply(ops)
        projector.flush()
        if isinstance(backend, Gathered):
            backend.run("n AS (SELECT %s)", [1], "SELECT %s", [2])
        cursor.execute(f"SELECT thread, entries, last_entry, last_at, position FROM {PREFIX}threads ORDER BY thread")
        found = [tuple(r) for r in cursor.fetchall()]
        conn.rollback()
    return found


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(existing=st.lists(st.sampled_from(THREADS), unique=True), plan=st.lists(step, min_size=1, max_size=8))
def test_row_operations_gathered_into_one_statement_leave_the_rows_of_one_statement_each(
        hall: Hall, store_url: str, existing: list[str], plan: list[tuple[str, str]]) -> None:
    if not store_url.startswith("postgresql"):
        pytest.skip("SQLite runs a write's statements one by one")
    gathered = rows_left(hall, existing, plan, gathered=True)

    assert gathered == rows_left(hall, existing, plan, gathered=False)
