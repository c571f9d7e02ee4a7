"""A batch whose rows collide with a stored row part-way through leaves nothing written.

SQLite inserts a batch's read-model rows many to a statement with `INSERT OR FAIL` (no
statement journal: a statement of many rows with the default ABORT would copy every
page it touches to a temporary file first, three times the bytes a batch writes). A
failing statement then keeps the rows before the failure; the transaction they are
in must not."""

from __future__ import annotations

from collections.abc import Iterator
from uuid import UUID, uuid4

import pytest
from sqlalchemy import text

from memhall.domains.entry import Entry, draft
from memhall.governance.hall import Hall
from memhall.governance.projection.apply import ROWS_PER_INSERT
from memhall.governance.tables import tables_for


def counts(hall: Hall) -> dict[str, int]:
    t = tables_for("company")
    with hall.store.read() as conn:
        return {name: int(conn.execute(text(f"SELECT count(*) FROM {t.prefix}{name}")).scalar_one())
                for name in ("events", "chain", "entries", "encodings", "exposure", "audit")}


def planted_encoding(hall: Hall, entry_id: UUID) -> None:
    """An encodings row for an entry that does not exist yet (what an edited store might hold)."""
    t = tables_for("company")
    with hall.store.write() as conn:
        conn.execute(text(f"INSERT INTO {t.prefix}encodings (entry_id, encoder, encoder_version, emotion, "
                          "entities) VALUES (:id, 'lexicon', '1', '{}', '[]')"), {"id": str(entry_id)})


def test_a_batch_that_collides_midway_through_a_statement_of_many_rows_writes_nothing(
        hall: Hall, monkeypatch: pytest.MonkeyPatch) -> None:
    hall.write_many("codex", "company", [draft(text=f"before {i}") for i in range(3)])
    ids = [uuid4() for _ in range(ROWS_PER_INSERT + 8)]
    planted_encoding(hall, ids[ROWS_PER_INSERT // 2])  # in the middle of the first statement
    before = counts(hall)
    given: Iterator[UUID] = iter(ids)
    monkeypatch.setattr(Entry, "create_id", classmethod(lambda cls, *a, **k: next(given)))

    with pytest.raises(Exception, match="(?i)unique|duplicate"):
        hall.write_many("codex", "company", [draft(text=f"batch {i}") for i in range(len(ids))])

    assert counts(hall) == before
    monkeypatch.undo()
    written = hall.write_many("codex", "company", [draft(text=f"after {i}") for i in range(ROWS_PER_INSERT + 1)])
    assert counts(hall)["entries"] == before["entries"] + len(written)
