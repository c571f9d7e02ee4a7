"""The batched import (`Hall.write_many`) has the outcome of the same writes made one by one."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import text

from memhall.domains.entry import EntryDraft, draft
from memhall.domains.errors import InvalidValueError
from memhall.governance.batch import write_batch
from memhall.governance.hall import Hall
from memhall.governance.piped import Appending
from memhall.governance.projection.plans import run
from memhall.governance.store import Store, raw
from memhall.governance.tables import tables_for
from memhall.policies.engine import PolicySet

POLICY = PolicySet.load(None)

drafts = st.lists(st.tuples(
    st.sampled_from(["alpha", "beta", "Alpha", "gamma delta"]),
    st.sampled_from(["L1", "L2"]),
    st.sampled_from(["episode", "claim", "state"]),
    st.sampled_from([None, None, "k1", "k2"]),
), min_size=1, max_size=12)


def shape(results: list[Any]) -> list[tuple[Any, ...]]:
    """Which results name the same entry, and which were duplicates or replays, without the ids."""
    first: dict[str, int] = {}
    return [(first.setdefault(r.entry_id, i), r.duplicate_of is not None, r.replayed, r.layer, r.rule)
            for i, r in enumerate(results)]


def stored(hall: Hall) -> list[tuple[Any, ...]]:
    """The entries as rows, ids and times left out, in log order; and the audit trail."""
    t = tables_for("company")
    with hall.store.read() as conn:
        entries = [tuple(r) for r in conn.execute(text(
            f"SELECT layer, kind, text, dedup_key, idempotency_key, status, thread, confidence, position "
            f"FROM {t.entries.name} ORDER BY position"))]
        audit = [tuple(r) for r in conn.execute(text(
            f"SELECT position, actor, action, decision, rule, layer, topic FROM {t.audit.name} ORDER BY position"))]
    return entries + audit


def fresh_hall(folder: str, name: str) -> Hall:
    hall = Hall(Store(f"sqlite:///{Path(folder) / name}"), POLICY)
    hall.create_domain("maki", "company")
    return hall


def written(spec: list[tuple[str, str, str, str | None]]) -> list[EntryDraft]:
    # an idempotency key names one content, so that the one-by-one path never refuses it
    return [draft(text=t if key is None else f"{key} {t}", layer=layer, kind=kind, idempotency_key=key
                  and f"{key}-{t}-{layer}-{kind}") for t, layer, kind, key in spec]


def planned(hall: Hall, entries: list[EntryDraft]) -> list[Any]:
    """`write_many` as a large import writes beside it: planned here, appended by the plan's runner."""
    journal = hall.streams.stream("company").journal
    with hall.store.read() as conn:
        plan = Appending(raw(conn), hall.store.dialect, journal)
        results = write_batch(hall, "codex", "company", entries, (), plan=plan)
    with hall.store.write() as conn:
        run(raw(conn), plan.plan)
    return results


def many_at_once(hall: Hall, entries: list[EntryDraft]) -> list[Any]:
    return hall.write_many("codex", "company", entries)


@pytest.mark.parametrize("write_batch_of", [many_at_once, planned],
                         ids=["write_many", "planned here, appended elsewhere"])
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(drafts, drafts)
def test_a_batched_import_stores_what_writing_one_by_one_stores(
    write_batch_of: Callable[[Hall, list[EntryDraft]], list[Any]],
    before: list[tuple[str, str, str, str | None]], batch: list[tuple[str, str, str, str | None]],
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        one, many = fresh_hall(folder, "one.db"), fresh_hall(folder, "many.db")
        for hall in (one, many):
            for entry in written(before):
                hall.write("codex", "company", entry)

        singly = [one.write("codex", "company", entry) for entry in written(batch)]
        batched = write_batch_of(many, written(batch))

        assert shape(batched) == shape(singly)
        assert stored(many) == stored(one)
        one.store.dispose()
        many.store.dispose()


def test_an_idempotency_key_reused_for_other_content_in_one_batch_is_refused(hall: Hall) -> None:
    batch = [draft(text="deploy done", idempotency_key="run-7"), draft(text="other", idempotency_key="run-7")]

    with pytest.raises(InvalidValueError, match="already used"):
        hall.write_many("codex", "company", batch)

    assert hall.streams.topics("company") == ["memhall.Domain.Opened", "memhall.Charter.Opened"]


def test_a_bulk_import_on_postgresql_leaves_the_planner_fresh_statistics(hall: Hall, store_url: str) -> None:
    if not store_url.startswith("postgresql"):
        pytest.skip("SQLite's planner needs no statistics for these indexes")

    hall.write_many("codex", "company", [draft(text=f"note {i}") for i in range(1100)])

    with hall.store.read() as conn:
        estimated = conn.execute(text(
            "SELECT reltuples FROM pg_class WHERE relname = 'mh_company_entries' "
            "AND relnamespace = current_schema()::regnamespace")).scalar_one()
    assert estimated >= 1000  # analyzed in the import's transaction, not whenever autovacuum gets to it
