"""A large import on SQLite builds some read-model indexes at its end: the store it leaves,
however the import ends, has every index and the read models its log says."""

from __future__ import annotations

import json
import os
import tempfile
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import inspect

from memhall.domains.errors import InvalidValueError
from memhall.governance import bulkload, transfer
from memhall.governance.hall import Hall
from memhall.governance.recompute import verify_read_models
from memhall.governance.store import Store
from memhall.governance.tables import tables_for
from tests.governance.test_import import fresh_hall, stored
from tests.governance.test_import_beside import entries


def lines(n: int, start: int = 0) -> list[bytes]:
    return [json.dumps({"text": f"note {i} on topic{i % 3}", "tags": [f"topic{i % 3}"], "key": f"n{i}",
                        "kind": "state" if i % 4 == 0 else "episode", "layer": "L2",
                        "author": "gemini" if i % 2 else "codex"}).encode() for i in range(start, start + n)]


def indexes(store: Store) -> set[str]:
    found = inspect(store.write_engine)
    return {str(index["name"]) for name in found.get_table_names() if name.startswith("mh_company_")
            for index in found.get_indexes(name)}


def test_an_import_past_the_threshold_leaves_every_index_and_the_read_models_its_log_says(hall: Hall) -> None:
    before = indexes(hall.store)

    report = transfer.run_import(hall, "codex", "company", transfer.jsonl(lines(40)), batch=7, defer_from=10)

    assert report.written == 40
    assert indexes(hall.store) == before
    assert all(r.ok for r in verify_read_models(hall.streams, ["company"]))


def test_an_import_past_the_threshold_stores_what_a_small_import_of_the_same_lines_stores(
        hall: Hall) -> None:
    transfer.run_import(hall, "codex", "company", transfer.jsonl(lines(40)), batch=7, defer_from=10)
    transfer.run_import(hall, "codex", "family", transfer.jsonl(lines(40)), batch=7, defer_from=10**6)

    assert entries(hall, "company") == entries(hall, "family")


def test_an_import_that_fails_after_setting_indexes_aside_builds_them_again(sqlite_hall: Hall) -> None:
    before = indexes(sqlite_hall.store)
    bad = [*lines(20), b'{"text": 7}']

    with pytest.raises(InvalidValueError, match="line 21"):
        transfer.run_import(sqlite_hall, "codex", "company", transfer.jsonl(bad), batch=5, defer_from=10)

    assert indexes(sqlite_hall.store) == before
    assert all(r.ok for r in verify_read_models(sqlite_hall.streams, ["company"]))


def test_indexes_an_import_killed_midway_left_missing_are_built_by_the_next_process_to_open_the_domain(
        sqlite_hall: Hall) -> None:
    before = indexes(sqlite_hall.store)
    transfer.run_import(sqlite_hall, "codex", "company", transfer.jsonl(lines(12)))
    with sqlite_hall.store.write() as conn:  # what a killed import leaves: its batches, not the indexes
        for index in bulkload.deferrable(tables_for("company")):
            conn.exec_driver_sql(f"DROP INDEX {index.name}")
    assert indexes(sqlite_hall.store) < before

    later = Hall(Store(sqlite_hall.store.url), sqlite_hall.gate)
    report = transfer.run_import(later, "codex", "company", transfer.jsonl(lines(12)))

    assert (report.written, report.already) == (0, 12)
    assert indexes(later.store) == before
    later.store.dispose()


def test_a_small_import_into_a_large_domain_keeps_its_indexes(sqlite_hall: Hall) -> None:
    transfer.run_import(sqlite_hall, "codex", "company", transfer.jsonl(lines(30)), defer_from=10**6)
    kept = bulkload.deferring(sqlite_hall.store, tables_for("company"), at=10)

    with kept as ready:
        ready(20)  # 20 lines read of an import into a domain of more than 30 events
        assert not bulkload.missing(sqlite_hall.store, tables_for("company"))
        ready(40)
        assert bulkload.missing(sqlite_hall.store, tables_for("company"))

    assert not bulkload.missing(sqlite_hall.store, tables_for("company"))


def others(hall: Hall) -> list[tuple[object, ...]]:
    """The threads and exposure rows, ids and times left out."""
    t = tables_for("company")
    with hall.store.read() as conn:
        return [tuple(r) for r in conn.exec_driver_sql(
            f"SELECT thread, entries, position FROM {t.threads.name} ORDER BY thread")] + [
            tuple(r) for r in conn.exec_driver_sql(
                f"SELECT holder, via, position FROM {t.exposure.name} ORDER BY position, holder")]


texts = st.lists(st.tuples(
    st.sampled_from(["alpha", "beta", "Alpha", "gamma delta"]),
    st.sampled_from(["L1", "L2"]),
    st.sampled_from(["episode", "claim", "state"]),
    st.sampled_from([None, None, "k1", "k2"]),
), min_size=1, max_size=14)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts)
def test_an_import_that_sets_indexes_aside_stores_what_writing_its_lines_one_by_one_stores(
        spec: list[tuple[str, str, str, str | None]]) -> None:
    # a key names one content, so that the one-by-one path never refuses it
    rows = [json.dumps({"text": t, "layer": layer, "kind": kind, "tags": [t.split()[0].lower()],
                        **({"key": f"{key}-{t}-{layer}-{kind}"} if key else {})}).encode()
            for t, layer, kind, key in spec]
    with tempfile.TemporaryDirectory() as folder:
        bulk, single = fresh_hall(folder, "bulk.db"), fresh_hall(folder, "single.db")

        transfer.run_import(bulk, "codex", "company", transfer.jsonl(rows), batch=3, defer_from=2)
        for line in transfer.jsonl(rows):
            single.write("codex", "company", transfer.to_draft(line, "codex"))

        assert stored(bulk) == stored(single)
        assert others(bulk) == others(single)
        assert indexes(bulk.store) == indexes(single.store)
        bulk.store.dispose()
        single.store.dispose()


def test_an_import_leaves_the_write_connections_cache_checkpoints_and_syncing_as_they_were(sqlite_hall: Hall) -> None:
    names = ("cache_size", "wal_autocheckpoint", "synchronous")

    def settings_now() -> list[object]:
        with sqlite_hall.store.write() as conn:
            return [conn.exec_driver_sql(f"PRAGMA {name}").scalar() for name in names]

    before = settings_now()
    assert before[2] == 2  # FULL: every other write syncs at its commit
    with bulkload.tuned(sqlite_hall.store):
        assert settings_now() == [-bulkload.CACHE_KIB, bulkload.CHECKPOINT_PAGES, bulkload.SYNC_NORMAL]
    transfer.run_import(sqlite_hall, "codex", "company", transfer.jsonl(lines(12)))

    assert settings_now() == before
    with pytest.raises(RuntimeError), bulkload.tuned(sqlite_hall.store):
        raise RuntimeError("the import failed half way")
    assert settings_now() == before


def test_an_import_syncs_the_wal_when_it_ends_and_never_closes_a_handle_of_the_database_file(
        sqlite_hall: Hall, monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[str] = []
    opened: list[str] = []
    real_fsync, real_open = os.fsync, os.open

    def fsync(handle: int) -> None:
        synced.append(os.readlink(f"/proc/self/fd/{handle}"))
        real_fsync(handle)

    def open_(path: str, *args: Any, **kwargs: Any) -> int:
        opened.append(os.path.realpath(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "open", open_)
    transfer.run_import(sqlite_hall, "codex", "company", transfer.jsonl(lines(12)))

    database = str(sqlite_hall.store.write_engine.url.database)
    assert synced[-1] == os.path.realpath(database + "-wal")
    assert os.path.realpath(database) not in opened  # its close would drop SQLite's locks
