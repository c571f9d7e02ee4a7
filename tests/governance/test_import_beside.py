"""A large import's batches written by a process beside it (`piped`): the same store as
written here, each batch whole or not at all, and a writer that got in between is no harm."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memhall.domains.entry import draft
from memhall.domains.errors import RefusedError
from memhall.governance import pipelined, transfer
from memhall.governance.hall import Hall
from memhall.governance.recompute import verify_read_models
from memhall.governance.store import Store
from memhall.governance.tables import tables_for
from memhall.policies.engine import PolicySet


def corpus(n: int) -> list[dict[str, Any]]:
    """Lines that repeat each other's text, reuse keys, name their tellers and supersede."""
    rows: list[dict[str, Any]] = []
    for i in range(n):
        row: dict[str, Any] = {"text": f"note {i % (n // 2)} on topic{i % 3}", "tags": [f"topic{i % 3}"],
                               "kind": "state" if i % 4 == 0 else "episode", "layer": "L2",
                               "author": "gemini" if i % 2 else "codex"}
        if i % 5:
            row["key"] = f"n{i}"
        if i % 37 == 36 and (i - 1) % 5:
            row["supersedes"] = f"n{i - 1}"
        if i % 11 == 10 and i > 23:  # the text of a line of the batch before (still being written)
            row["text"] = rows[i - 23]["text"]
        if i % 13 == 12 and i > 21:  # a line of the batch before, again
            row = dict(rows[i - 21])
        rows.append(row)
    rows += rows[: n // 4]  # lines seen before: nothing new
    return rows


def encoded(rows: list[dict[str, Any]]) -> list[bytes]:
    return [json.dumps(r).encode() for r in rows]


def entries(hall: Hall, domain: str) -> list[tuple[object, ...]]:
    t = tables_for(domain)
    with hall.store.read() as conn:
        return [tuple(r) for r in conn.exec_driver_sql(
            f"SELECT e.text, e.kind, e.layer, e.status, e.thread, e.source_kind, e.source_agent_id, e.topics, "
            f"e.idempotency_key, e.created_position, e.position, x.holder, x.via FROM {t.entries.name} e "
            f"JOIN {t.exposure.name} x ON x.entry_id = e.id ORDER BY e.created_position")]


def audit(hall: Hall, domain: str) -> list[tuple[object, ...]]:
    t = tables_for(domain)
    with hall.store.read() as conn:
        return [tuple(r) for r in conn.exec_driver_sql(
            f"SELECT position, actor, action, decision, rule, layer, topic FROM {t.audit.name} ORDER BY position")]


def test_an_import_written_beside_stores_what_an_import_written_here_stores(sqlite_hall: Hall) -> None:
    rows = corpus(300)

    beside = transfer.run_import(sqlite_hall, "codex", "company", transfer.jsonl(encoded(rows)), batch=20,
                                 beside_from=0)
    here = transfer.run_import(sqlite_hall, "codex", "family", transfer.jsonl(encoded(rows)), batch=20,
                               beside_from=10**6)

    assert (beside.read, beside.written, beside.already, beside.duplicates) == (
        here.read, here.written, here.already, here.duplicates)
    assert entries(sqlite_hall, "company") == entries(sqlite_hall, "family")
    assert audit(sqlite_hall, "company") == audit(sqlite_hall, "family")
    assert all(r.ok for r in verify_read_models(sqlite_hall.streams, ["company", "family"]))


def test_importing_again_beside_writes_nothing(sqlite_hall: Hall) -> None:
    rows = encoded(corpus(120))
    transfer.run_import(sqlite_hall, "codex", "company", transfer.jsonl(rows), batch=20, beside_from=0)

    again = transfer.run_import(sqlite_hall, "codex", "company", transfer.jsonl(rows), batch=20, beside_from=0)

    assert (again.written, again.already + again.duplicates) == (0, again.read)


def test_a_refused_batch_beside_is_recorded_and_the_batches_before_it_are_written(sqlite_hall: Hall) -> None:
    rows = [{"text": f"note {i}", "key": f"n{i}"} for i in range(100)]
    rows[65]["layer"] = "L3"  # reached only by promotion: refused

    with pytest.raises(RefusedError) as refused:
        transfer.run_import(sqlite_hall, "codex", "company", transfer.jsonl(encoded(rows)), batch=20,
                            beside_from=0)

    texts = [row[0] for row in entries(sqlite_hall, "company")]
    assert texts == [f"note {i}" for i in range(60)]
    assert audit(sqlite_hall, "company")[-1][3:5] == ("refused", refused.value.rule)
    assert str(refused.value).startswith("line 66: refused: ")


def test_a_write_made_between_two_batches_by_another_process_is_kept_and_the_import_finishes(
        sqlite_hall: Hall, tmp_path: Path, policies: PolicySet) -> None:
    other = Hall(Store(f"sqlite:///{tmp_path / 'memhall.db'}"), policies)
    made: list[str] = []

    def meanwhile(_lines: int) -> None:
        if len(made) < 3:  # while a batch may still be in the writer's hands
            made.append(other.write("gemini", "company", draft(text=f"meanwhile {len(made)}")).entry_id)

    report = transfer.run_import(sqlite_hall, "codex", "company", transfer.jsonl(encoded(corpus(200))),
                                 batch=20, beside_from=0, progress=meanwhile)

    texts = [row[0] for row in entries(sqlite_hall, "company")]
    assert report.written + report.duplicates + report.already == report.read
    assert {f"meanwhile {i}" for i in range(3)} <= set(texts)
    assert all(r.ok for r in verify_read_models(sqlite_hall.streams, ["company"]))
    other.store.dispose()


def test_an_import_whose_writer_is_killed_midway_is_finished_here(sqlite_hall: Hall,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    writers: list[pipelined.Beside] = []
    start = pipelined.Beside.__init__

    def started(self: pipelined.Beside, *args: Any) -> None:
        start(self, *args)
        writers.append(self)

    def kill(_lines: int) -> None:
        if writers and writers[0]._process.poll() is None:
            writers[0]._process.kill()
            writers[0]._process.wait()

    monkeypatch.setattr(pipelined.Beside, "__init__", started)
    rows = corpus(200)

    report = transfer.run_import(sqlite_hall, "codex", "company", transfer.jsonl(encoded(rows)), batch=20,
                                 beside_from=40, progress=kill)
    here = transfer.run_import(sqlite_hall, "codex", "family", transfer.jsonl(encoded(rows)), batch=20,
                               beside_from=10**6)

    assert writers and (report.written, report.duplicates, report.already) == (
        here.written, here.duplicates, here.already)
    assert entries(sqlite_hall, "company") == entries(sqlite_hall, "family")
    assert all(r.ok for r in verify_read_models(sqlite_hall.streams, ["company"]))


def test_a_line_imported_by_another_process_after_its_batch_was_read_is_not_written_twice(
        sqlite_hall: Hall, tmp_path: Path, policies: PolicySet, monkeypatch: pytest.MonkeyPatch) -> None:
    """The batch's keys are read once (`write_batch(replays=)`): a key stored after that read,
    before the writer appends, meets the key's unique index there, and the batch is written here."""
    other = Hall(Store(f"sqlite:///{tmp_path / 'memhall.db'}"), policies)
    rows = [{"text": f"line {i}", "key": f"k{i}"} for i in range(60)]
    planned = transfer.write_batch
    raced: list[str] = []

    def racing(*args: Any, **kwargs: Any) -> Any:
        if kwargs.get("plan") is not None and not raced:  # after the import read this batch's keys
            last = args[3][-1]  # the batch's last draft, as another import of the same line would
            raced.append(other.write("codex", "company", draft(
                text=last.text, idempotency_key=last.idempotency_key)).entry_id)
        return planned(*args, **kwargs)

    monkeypatch.setattr(transfer, "write_batch", racing)
    report = transfer.run_import(sqlite_hall, "codex", "company", transfer.jsonl(encoded(rows)),
                                 batch=20, beside_from=0)

    keys = [row[8] for row in entries(sqlite_hall, "company")]
    assert len(keys) == len(set(keys)) == 60 and raced
    assert (report.written, report.already) == (59, 1)
    assert all(r.ok for r in verify_read_models(sqlite_hall.streams, ["company"]))
    other.store.dispose()
