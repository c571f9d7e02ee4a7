"""A write nested in another transaction of the same domain joins it: the chain head the
outer one appends from is the one the inner write left, not the one it read first."""

from __future__ import annotations

from uuid import UUID

import pytest
from sqlalchemy import func, select

from memhall.audit.verify import ChainSource, snapshot, verify_store
from memhall.domains.entry import Entry, draft
from memhall.domains.errors import NotFoundError
from memhall.governance.hall import Hall
from memhall.governance.recompute import verify_read_models
from memhall.governance.tables import tables_for


def test_an_append_after_a_nested_write_follows_on_from_it(hall: Hall) -> None:
    stream = hall.streams.stream("company")
    with hall.writing(stream) as session:
        hall.write("codex", "company", draft(text="written inside", layer="L2"))
        stream.save(session, Entry.write("company", draft(text="appended after it", layer="L2"),
                                         actor="codex", rule="test", implanted=50))
    hall.write("codex", "company", draft(text="written after both", layer="L2"))

    t = tables_for("company")
    with snapshot(hall.store.read_engine) as conn:
        (chain,) = verify_store(conn, [ChainSource("company", t.events_name, t.chain.name)])
    assert chain.ok, chain.broken
    assert all(report.ok for report in verify_read_models(hall.streams, ["company"]))


def test_a_write_inside_a_transaction_its_caller_opened_is_undone_with_it(hall: Hall) -> None:
    stream = hall.streams.stream("company")

    with pytest.raises(RuntimeError), hall.writing(stream):
        written = hall.write("codex", "company", draft(text="written inside, then undone", layer="L2"))
        raise RuntimeError("the caller's use case fails after the write")
    alone = hall.write("codex", "company", draft(text="written alone", layer="L2"))

    with pytest.raises(NotFoundError):
        stream.get(UUID(written.entry_id))
    assert stream.get(UUID(alone.entry_id)).text == "written alone"
    with hall.store.read() as conn:
        assert conn.execute(select(func.count()).select_from(tables_for("company").entries)).scalar_one() == 1
