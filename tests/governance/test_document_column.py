"""PostgreSQL keeps each entry's full-text document in a stored column, its GIN index on that
column; a store an earlier version made (an expression index, no column) is searched the
same way, with the same answers, until `memhall rebuild` gives it the column."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import text

from memhall.domains.entry import draft
from memhall.governance import fulltext, history
from memhall.governance.hall import Hall
from memhall.governance.rebuild import rebuild
from memhall.governance.recompute import verify_read_models
from memhall.governance.store import Store
from memhall.policies.engine import PolicySet

TEXTS = ["billing runs nightly at two", "the billing export failed twice", "invoices go out monthly",
         "nightly backups of billing data", "deploys happen on fridays"]


@pytest.fixture
def searched(postgres_hall: Hall) -> Iterator[Hall]:
    for words in TEXTS:
        postgres_hall.write("codex", "company", draft(text=words, kind="claim"))
    yield postgres_hall


def found(hall: Hall, query: str) -> list[str]:
    return [view.text for view in history.search(hall, "maki", "company", query).results]


def made_by_an_earlier_version(hall: Hall) -> None:
    """The entries as an earlier version left them: no document column, the expression indexed."""
    entries = hall.streams.stream("company").tables.entries.name
    with hall.store.write() as conn:
        conn.execute(text(f"ALTER TABLE {entries} DROP COLUMN {fulltext.COLUMN}"))
        conn.execute(text(f"CREATE INDEX mh_company_entries_fts_en ON {entries} USING GIN ({fulltext.DOCUMENT})"))


def index_definitions(hall: Hall) -> list[str]:
    """Entries' GIN index definitions. Picked here, not by the query: a condition on `indexdef`
    has the server write out every index's definition, other schemas' too, and an index that
    another test's schema drops meanwhile fails it ("could not open relation with OID ...")."""
    with hall.store.read() as conn:
        found = [str(r[0]) for r in conn.execute(text(
            "SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'mh_company_entries'"))]
    return [definition for definition in found if "USING gin" in definition]


def test_a_new_domain_searches_a_stored_document_column_by_its_gin_index(searched: Hall) -> None:
    assert found(searched, "billing nightly")[:2] == ["billing runs nightly at two", "nightly backups of billing data"]
    [definition] = index_definitions(searched)
    assert f"gin ({fulltext.COLUMN})" in definition
    with searched.store.read() as conn:
        assert fulltext.document(conn, searched.streams.stream("company").tables) == fulltext.COLUMN


def test_a_store_an_earlier_version_made_is_searched_alike_until_a_rebuild_gives_it_the_column(
        searched: Hall, policies: PolicySet) -> None:
    before = found(searched, "billing nightly")
    made_by_an_earlier_version(searched)
    # a process that opens it now: the same answers, from the expression
    reader = Hall(Store(searched.store.url), policies)
    try:
        assert found(reader, "billing nightly") == before
        assert found(reader, "fridays") == ["deploys happen on fridays"]
        with reader.store.read() as conn:
            assert fulltext.document(conn, reader.streams.stream("company").tables) == fulltext.DOCUMENT

        rebuild(searched)

        # the reader, still open, sees the column at once (it looks while it has not found it)
        with reader.store.read() as conn:
            assert fulltext.document(conn, reader.streams.stream("company").tables) == fulltext.COLUMN
        assert found(reader, "billing nightly") == before
        [definition] = index_definitions(searched)
        assert f"gin ({fulltext.COLUMN})" in definition
        assert all(report.ok for report in verify_read_models(searched.streams, ["company"], thorough=True))
        assert all(report.ok for report in verify_read_models(searched.streams, ["company"]))
    finally:
        reader.store.dispose()


def test_the_document_column_holds_each_entry_s_document_and_verify_passes_over_it(searched: Hall) -> None:
    """The column is generated from the row, whatever wrote it; verify compares the read
    model's own columns (the scratch copies leave the document out)."""
    entries = searched.streams.stream("company").tables.entries.name
    with searched.store.read() as conn:
        stored = {str(r[0]): str(r[1]) for r in conn.execute(text(
            f"SELECT text, {fulltext.COLUMN}::text = {fulltext.DOCUMENT}::text FROM {entries}"))}
    assert set(stored) == set(TEXTS)
    assert set(stored.values()) == {"True"}
    assert all(report.ok for report in verify_read_models(searched.streams, ["company"], thorough=True))


def test_making_the_index_again_takes_no_lock_that_another_index_build_of_entries_would_block(
        searched: Hall) -> None:
    """A rebuild builds the GIN index on one connection while it builds the other indexes of
    entries on another (each holding a SHARE lock): the document column, there already, is not
    added again (ALTER TABLE would wait for the other build, and fail after the lock timeout)."""
    stream = searched.streams.stream("company")
    with searched.store.write_engine.connect() as building:
        building.execute(text(f"LOCK TABLE {stream.tables.entries.name} IN SHARE MODE"))
        with searched.store.write_engine.begin() as conn:
            conn.execute(text("SET LOCAL lock_timeout = '2s'"))
            stream.create_search(conn)
        building.rollback()
    [definition] = index_definitions(searched)
    assert f"gin ({fulltext.COLUMN})" in definition


def test_entries_an_earlier_version_filled_keep_their_expression_index_when_a_domain_is_made_again(
        searched: Hall) -> None:
    """Making a domain's tables again (idempotent) adds no column to entries that have rows:
    that would rewrite the table under an exclusive lock. `memhall rebuild` gives it the column."""
    made_by_an_earlier_version(searched)
    searched.streams.stream("company").create()

    [definition] = index_definitions(searched)
    assert "to_tsvector" in definition
    with searched.store.read() as conn:
        assert fulltext.document(conn, searched.streams.stream("company").tables) == fulltext.DOCUMENT
    assert found(searched, "fridays") == ["deploys happen on fridays"]


def verdict(hall: Hall) -> Any:
    [report] = verify_read_models(hall.streams, ["company"])
    return report


def test_documents_written_by_hand_behind_a_dropped_expression_fail_verify(searched: Hall) -> None:
    """The column's values cannot be edited, but its expression can be dropped and the values
    written by hand: an entry hidden from search, no row of the log or of entries touched."""
    entries = searched.streams.stream("company").tables.entries.name
    assert verdict(searched).ok
    with searched.store.write() as conn:
        conn.execute(text(f"ALTER TABLE {entries} ALTER COLUMN {fulltext.COLUMN} DROP EXPRESSION"))
        conn.execute(text(f"UPDATE {entries} SET {fulltext.COLUMN} = ''::tsvector WHERE text LIKE 'deploys%'"))
    assert found(searched, "fridays") == []  # hidden

    report = verdict(searched)

    assert not report.ok
    assert report.broken is not None
    assert (report.broken.table, report.broken.column) == (entries, fulltext.COLUMN)
    assert "no longer generated" in report.broken.detail
    rebuild(searched)
    assert verdict(searched).ok
    assert found(searched, "fridays") == ["deploys happen on fridays"]


def test_a_document_column_made_again_from_another_expression_fails_verify(searched: Hall) -> None:
    entries = searched.streams.stream("company").tables.entries.name
    with searched.store.write() as conn:
        conn.execute(text(f"ALTER TABLE {entries} DROP COLUMN {fulltext.COLUMN}"))
        conn.execute(text(f"ALTER TABLE {entries} ADD COLUMN {fulltext.COLUMN} tsvector GENERATED ALWAYS AS "
                          "(to_tsvector('english', text)) STORED"))

    report = verdict(searched)

    assert not report.ok
    assert report.broken is not None and report.broken.column == fulltext.COLUMN
    assert "another expression" in report.broken.detail
    [thorough] = verify_read_models(searched.streams, ["company"], thorough=True)
    assert not thorough.ok


def test_a_store_an_earlier_version_made_passes_verify_without_the_column(searched: Hall) -> None:
    made_by_an_earlier_version(searched)

    assert verdict(searched).ok
