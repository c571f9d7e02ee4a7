"""The indexes looked up by a value most entries lack (an idempotency key, a claim's
root, a session) hold only the entries that have one, on both backends, however the
indexes were built: at creation, at the end of a large import, by a rebuild."""

from __future__ import annotations

import sqlite3
from contextlib import closing

from sqlalchemy import text

from memhall.governance import transfer
from memhall.governance.hall import Hall
from memhall.governance.rebuild import rebuild
from memhall.governance.tables import tables_for
from tests.governance.test_bulkload import lines

SPARSE = ("entries_root", "entries_idempotency", "entries_session")
FULL = ("entries_dedup", "entries_thread", "entries_created")


def definitions(hall: Hall) -> dict[str, str]:
    """Each index of the company's entries table by its name after the prefix: its SQL."""
    table = tables_for("company").entries.name
    prefix = table.removesuffix("entries")
    query = ("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = :t"
             if hall.store.write_engine.dialect.name == "sqlite" else
             "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = :t AND schemaname = current_schema()")
    with hall.store.read() as conn:
        return {str(name).removeprefix(prefix): str(sql) for name, sql in conn.execute(text(query), {"t": table})}


def assert_sparse(hall: Hall) -> None:
    found = definitions(hall)
    for name in SPARSE:
        column = {"entries_root": "claim_root_id", "entries_idempotency": "idempotency_key",
                  "entries_session": "session_id"}[name]
        assert f"{column} IS NOT NULL" in found[name], found[name]
    for name in FULL:
        assert "WHERE" not in found[name].upper(), found[name]


def test_a_new_domain_indexes_only_the_entries_that_carry_a_key_a_root_or_a_session(hall: Hall) -> None:
    assert_sparse(hall)


def test_the_indexes_built_after_a_large_import_and_by_a_rebuild_are_sparse_too(hall: Hall) -> None:
    transfer.run_import(hall, "codex", "company", transfer.jsonl(lines(30)), batch=10, defer_from=10)
    assert_sparse(hall)

    rebuild(hall, ["company"])

    assert_sparse(hall)


def test_a_line_imported_twice_is_found_by_its_key_through_the_sparse_index(hall: Hall) -> None:
    first = transfer.run_import(hall, "codex", "company", transfer.jsonl(lines(12)), batch=5, defer_from=5)
    again = transfer.run_import(hall, "codex", "company", transfer.jsonl(lines(12)), batch=5, defer_from=5)

    assert (first.written, again.written) == (12, 0)
    stream = hall.streams.stream("company")
    with hall.store.read() as conn:
        found = stream.replays(conn, [f"import:n{i}" for i in range(12)] + ["import:absent"])
    assert set(found) == {f"import:n{i}" for i in range(12)}
    assert len({entry for entry, _ in found.values()}) == 12


def test_sqlite_seeks_a_key_a_root_and_a_session_through_their_sparse_indexes(sqlite_hall: Hall) -> None:
    transfer.run_import(sqlite_hall, "codex", "company", transfer.jsonl(lines(20)), batch=10, defer_from=10)
    entries = tables_for("company").entries.name
    prefix = entries.removesuffix("entries")
    # a connection of its own: the planner's choice for a statement prepared now
    with closing(sqlite3.connect(str(sqlite_hall.store.write_engine.url.database))) as conn:
        plans = {column: " ".join(str(row[-1]) for row in conn.execute(
                     f"EXPLAIN QUERY PLAN SELECT id FROM {entries} WHERE {column} IN (?, ?)", ("x", "y")))
                 for column in ("idempotency_key", "claim_root_id", "session_id")}

    assert f"{prefix}entries_idempotency" in plans["idempotency_key"]
    assert f"{prefix}entries_root" in plans["claim_root_id"]
    assert f"{prefix}entries_session" in plans["session_id"]
