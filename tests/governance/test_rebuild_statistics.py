"""A PostgreSQL rebuild leaves the planner statistics of every read model it filled, and
every index valid: its tables are made anew (with no statistics), and autovacuum may be
off (it is on the CI machines) or late."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import text

from memhall.domains.entry import draft
from memhall.governance import sessions
from memhall.governance.hall import Hall
from memhall.governance.rebuild import rebuild
from memhall.governance.tables import tables_for


@pytest.fixture
def filled(postgres_hall: Hall) -> Iterator[Hall]:
    postgres_hall.write_many("codex", "company", [
        draft(text=f"note {i}: the payroll audit moved", tags={"topics": ["payroll"]}) for i in range(40)])
    sessions.handoff(postgres_hall, "codex", "company")  # exposure rows
    yield postgres_hall


def analyzed(hall: Hall) -> dict[str, set[str]]:
    """Per table of this schema: the columns the planner has statistics of."""
    with hall.store.read() as conn:
        rows = conn.execute(text("SELECT tablename, attname FROM pg_stats WHERE schemaname = current_schema()"))
        found: dict[str, set[str]] = {}
        for table, column in rows:
            found.setdefault(str(table), set()).add(str(column))
    return found


def test_a_rebuild_leaves_statistics_of_every_read_model_it_filled(filled: Hall) -> None:
    tables = tables_for("company")
    with filled.store.read() as conn:
        counts = {t.name: conn.execute(text(f"SELECT count(*) FROM {t.name}")).scalar_one() for t in tables.projections}
    filled_tables = {name for name, n in counts.items() if n}
    assert {tables.entries.name, "mh_company_exposure", "mh_company_audit"} <= filled_tables

    rebuild(filled)

    stats = analyzed(filled)
    assert filled_tables <= set(stats)
    assert {"document", "text", "dedup_key"} <= stats[tables.entries.name]  # what a search and a write weigh
    with filled.store.read() as conn:
        estimated = conn.execute(text(
            "SELECT reltuples FROM pg_class WHERE relname = :t AND relnamespace = current_schema()::regnamespace"),
            {"t": tables.entries.name}).scalar_one()
        invalid = conn.execute(text(
            "SELECT count(*) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
            "WHERE c.relnamespace = current_schema()::regnamespace AND NOT i.indisvalid")).scalar_one()
    assert estimated == counts[tables.entries.name]
    assert invalid == 0


def test_a_rebuild_searches_by_the_document_index_it_built(filled: Hall) -> None:
    rebuild(filled)

    with filled.store.read() as conn:
        conn.exec_driver_sql("SET enable_seqscan = off")
        plan = "\n".join(str(r[0]) for r in conn.execute(text(
            "EXPLAIN SELECT id FROM mh_company_entries WHERE document @@ plainto_tsquery('english', 'payroll')")))
    assert "mh_company_entries_document" in plan
