"""PostgreSQL's read models compare and sort text by its bytes (collation "C"), as SQLite's
do: the same order on both backends whatever the server's locale. A store an earlier version
made (its text in the database's collation) works as it is beside tables made since, and a
rebuild brings it to bytes."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import text

from memhall.domains.entry import draft
from memhall.domains.values import Layer
from memhall.governance import history, sessions
from memhall.governance.document import COLUMN, DOCUMENT
from memhall.governance.hall import Hall
from memhall.governance.rebuild import rebuild
from memhall.governance.recompute import verify_read_models
from memhall.governance.tables import tables_for
from memhall.ledgers.recall.observer import recall

#: byte order: upper case before lower case, accented letters after both
WORDS = ["zebra", "Zulu", "apple", "Äpfel", "banana", "Cherry"]


def collations(hall: Hall) -> dict[tuple[str, str], str | None]:
    """(table, column) -> collation of every text column of the company domain's read models
    (None: the database's)."""
    names = [t.name for t in tables_for("company").projections]
    with hall.store.read() as conn:
        rows = conn.execute(text(
            "SELECT table_name, column_name, collation_name FROM information_schema.columns "
            "WHERE table_schema = current_schema() AND table_name = ANY(:names) "
            "AND data_type IN ('text', 'character varying')"), {"names": names})
        return {(str(t), str(c)): (str(n) if n is not None else None) for t, c, n in rows}


def test_every_text_column_of_a_new_domain_sorts_by_bytes(postgres_hall: Hall) -> None:
    found = collations(postgres_hall)

    assert ("mh_company_entries", "dedup_key") in found and ("mh_company_entries", "created_at") in found
    assert set(found.values()) == {"C"}


def test_a_read_model_sorts_text_by_its_bytes_on_both_backends(hall: Hall) -> None:
    for word in WORDS:
        hall.write("codex", "company", draft(text=word))

    with hall.store.read() as conn:
        ordered = [str(r[0]) for r in conn.execute(text("SELECT text FROM mh_company_entries ORDER BY text"))]

    assert ordered == sorted(WORDS, key=lambda w: w.encode())  # Python's bytes order: SQLite's BINARY


@pytest.fixture
def earlier(postgres_hall: Hall) -> Iterator[Hall]:
    """Entries and exposure as an earlier version made them: text in the database's collation
    (entries' document column, which a column's type cannot change under, made again over it)."""
    entries = "mh_company_entries"
    with postgres_hall.store.write() as conn:
        conn.execute(text(f"ALTER TABLE {entries} DROP COLUMN {COLUMN}"))
        for table, column in collations(postgres_hall):
            if table in (entries, "mh_company_exposure"):
                type_ = "VARCHAR(32)" if column.endswith("_at") or column == "at" else "TEXT"
                conn.execute(text(f'ALTER TABLE {table} ALTER COLUMN {column} TYPE {type_} COLLATE "default"'))
        conn.execute(text(f"ALTER TABLE {entries} ADD COLUMN {COLUMN} tsvector GENERATED ALWAYS AS ({DOCUMENT}) STORED"))
        conn.execute(text(f"CREATE INDEX {entries}_{COLUMN} ON {entries} USING GIN ({COLUMN})"))
    yield postgres_hall


def test_a_store_an_earlier_version_made_is_read_and_written_and_a_rebuild_brings_it_to_bytes(
        earlier: Hall) -> None:
    assert None in set(collations(earlier).values())
    for i, word in enumerate(WORDS):
        earlier.write("codex", "company", draft(text=f"the {word} audit, note {i}", thread=word, kind="state",
                                                 layer=Layer.L2 if i % 2 else Layer.L1))
    earlier.write("codex", "company", draft(text="the zebra audit, note 0", thread="zebra", kind="state"))  # a duplicate

    assert [v.text for v in history.search(earlier, "maki", "company", "audit").results]
    assert sessions.handoff(earlier, "codex", "company").latest  # joins entries with exposure
    assert recall(earlier, "codex", "company", "zebra audit").items
    assert all(report.ok for report in verify_read_models(earlier.streams, ["company"], thorough=True))

    rebuild(earlier)

    assert set(collations(earlier).values()) == {"C"}
    assert all(report.ok for report in verify_read_models(earlier.streams, ["company"], thorough=True))
    assert [v.text for v in history.search(earlier, "maki", "company", "zebra").results] == ["the zebra audit, note 0"]
