"""`audit verify` recomputes every read model from the log: each edit someone holding the
store could make to what readers are served is found, named by table, key and column
(SQLite and PostgreSQL; the full-text rows are SQLite's own)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from uuid import UUID

import pytest
from click.testing import CliRunner
from sqlalchemy import delete, insert, select, update

from memhall.cli import audit as audit_cli
from memhall.cli import models_beside
from memhall.cli.context import App
from memhall.cli.main import cli
from memhall.domains.entry import draft
from memhall.domains.errors import PolicyDeniedError
from memhall.domains.values import Layer
from memhall.governance import promotions, streamed
from memhall.governance.hall import Hall
from memhall.governance.recompute import ModelReport, verify_read_models
from memhall.governance.tables import domains_table, tables_for
from memhall.ledgers.materialize import materialize

T = tables_for("company")


@dataclass(frozen=True)
class History:
    entry: UUID  # an L2 entry
    nominated: UUID  # its open nomination
    refusal: int  # the position of a refusal
    materialized: str  # a materialization handed to a seat


@pytest.fixture
def history(hall: Hall) -> History:
    return make_history(hall)


def make_history(hall: Hall) -> History:
    entry = UUID(hall.write("codex", "company", draft(text="the build cache lives on the NAS", layer="L2")).entry_id)
    hall.write("codex", "company", draft(text="deploys are on tuesdays", layer="L2"))
    with pytest.raises(PolicyDeniedError):
        hall.write("gemini", "company", draft(text="a seat may not write L2", layer="L2"))
    with hall.store.read() as conn:
        refusal = int(conn.execute(select(T.audit.c.position).where(T.audit.c.decision == "refused")).scalar_one())
    nomination = promotions.nominate(hall, "claude", "company", entry, Layer.L3, "unchanged for months")
    handed = materialize(hall, "claude", "company", seat="gemini", task="where is the build cache")
    return History(entry, UUID(str(nomination.id)), refusal, handed.record_id)


def edit(hall: Hall, statement: Any) -> None:
    with hall.store.write() as conn:
        conn.execute(statement)


def company(hall: Hall) -> ModelReport:
    [report] = verify_read_models(hall.streams, ["company"])
    return report


@dataclass(frozen=True)
class Tampering:
    name: str
    edit: Callable[[Hall, History], None]
    table: str
    key: Callable[[History], str]
    column: str


def forge_an_entry(hall: Hall, h: History) -> None:
    with hall.store.write() as conn:
        row = dict(conn.execute(select(T.entries).where(T.entries.c.id == str(h.entry))).mappings().one())
        conn.execute(insert(T.entries).values({**row, "id": "00000000-0000-4000-8000-000000000001",
                                               "idempotency_key": None, "text": "the owner approved everything"}))


TAMPERINGS = [
    Tampering("an entry's text changed", lambda hall, h: edit(hall, update(T.entries).where(
        T.entries.c.id == str(h.entry)).values(text="the build cache is public")),
        "mh_company_entries", lambda h: str(h.entry), "text"),
    Tampering("an L2 entry's row set to L4", lambda hall, h: edit(hall, update(T.entries).where(
        T.entries.c.id == str(h.entry)).values(layer="L4")),
        "mh_company_entries", lambda h: str(h.entry), "layer"),
    Tampering("an entry inserted outside the hall", forge_an_entry,
              "mh_company_entries", lambda h: "00000000-0000-4000-8000-000000000001", "id"),
    Tampering("a refusal rewritten as allowed", lambda hall, h: edit(hall, update(T.audit).where(
        T.audit.c.position == h.refusal).values(decision="allowed")),
        "mh_company_audit", lambda h: str(h.refusal), "decision"),
    Tampering("a refusal's audit row deleted", lambda hall, h: edit(hall, delete(T.audit).where(
        T.audit.c.position == h.refusal)),
        "mh_company_audit", lambda h: str(h.refusal), "position"),
    Tampering("reminders forged on a nomination", lambda hall, h: edit(hall, update(T.promotions).where(
        T.promotions.c.id == str(h.nominated)).values(reminders=3)),
        "mh_company_promotions", lambda h: str(h.nominated), "reminders"),
    Tampering("a materialization's task rewritten", lambda hall, h: edit(hall, update(T.materializations).where(
        T.materializations.c.id == h.materialized).values(task="hand over every secret")),
        "mh_company_materializations", lambda h: h.materialized, "task"),
    Tampering("an entry's recorded encoding rewritten", lambda hall, h: edit(hall, update(T.encodings).where(
        T.encodings.c.entry_id == str(h.entry)).values(entities='["maki"]')),
        "mh_company_encodings", lambda h: str(h.entry), "entities"),
    Tampering("a thread's count of entries forged", lambda hall, h: edit(hall, update(T.threads).values(
        entries=T.threads.c.entries + 1)),
        "mh_company_threads", lambda h: "", "entries"),
    Tampering("who holds an entry rewritten", lambda hall, h: edit(hall, update(T.exposure).where(
        T.exposure.c.entry_id == str(h.entry)).values(holder="gemini")),
        "mh_company_exposure", lambda h: "", "holder"),
    Tampering("an allowed act inserted into the audit rows", lambda hall, h: copy_last(
        hall, T.audit, lambda row: {"position": row["position"] + 1000}),
        "mh_company_audit", lambda h: "", "position"),
    Tampering("an exposure row inserted", lambda hall, h: copy_last(hall, T.exposure, lambda row: {
        "position": row["position"] + 1000, "id": f"{row['position'] + 1000}:{row['holder']}:{row['entry_id']}"}),
        "mh_company_exposure", lambda h: "", "id"),
]


def copy_last(hall: Hall, table: Any, moved: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
    """A row made up after the log's last one: a copy of the table's last row, moved past it."""
    with hall.store.write() as conn:
        row = dict(conn.execute(select(table).order_by(table.c.position.desc()).limit(1)).mappings().one())
        conn.execute(insert(table).values({**row, **moved(row)}))


@pytest.mark.parametrize("tampering", TAMPERINGS, ids=[t.name for t in TAMPERINGS])
def test_each_edit_of_a_read_model_is_named_by_table_key_and_column(
        hall: Hall, history: History, tampering: Tampering) -> None:
    assert company(hall).ok

    tampering.edit(hall, history)

    report = company(hall)
    assert not report.ok and report.broken is not None
    assert (report.broken.table, report.broken.column) == (tampering.table, tampering.column), report.broken
    assert tampering.key(history) in report.broken.key


def test_a_deleted_registry_row_is_found(hall: Hall, history: History) -> None:
    edit(hall, delete(domains_table).where(domains_table.c.name == "family"))

    broken = {r.domain: r.broken for r in verify_read_models(hall.streams, ["company", "family"])}

    assert broken["company"] is None
    assert broken["family"] is not None and (broken["family"].table, broken["family"].key) == ("mh_domains", "family")


def test_a_full_text_row_edited_behind_the_entry_is_found(sqlite_hall: Hall) -> None:
    """SQLite keeps full-text rows beside the entries (PostgreSQL indexes the entries table itself)."""
    history = make_history(sqlite_hall)
    with sqlite_hall.store.write() as conn:
        conn.exec_driver_sql("UPDATE mh_company_search SET body = 'the owner approved everything' "
                             f"WHERE entry_id = '{history.entry}'")

    report = company(sqlite_hall)

    assert report.broken is not None
    assert (report.broken.table, report.broken.key, report.broken.column) == (
        "mh_company_search", str(history.entry), "body")


@pytest.mark.parametrize("beside", [False, True], ids=["in this process", "in a process beside"])
def test_the_cli_gives_the_same_verdict_whether_or_not_the_read_models_are_checked_beside_the_chains(
        hall: Hall, history: History, beside: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(models_beside, "BESIDE_MIN", 0 if beside else 10**12)
    args = ["--store", hall.store.url, "--as", "maki", "audit", "verify"]

    intact = CliRunner().invoke(cli, args, obj=App())
    edit(hall, update(T.entries).where(T.entries.c.id == str(history.entry)).values(text="forged"))
    forged = CliRunner().invoke(cli, args, obj=App())

    assert intact.exit_code == 0, intact.output
    assert "company      OK      read models:" in intact.stdout
    assert forged.exit_code == 4
    assert f"mh_company_entries row {history.entry}, column text" in forged.stderr


def test_with_a_process_beside_the_untouched_history_verifies(
        hall: Hall, history: History, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(models_beside, "BESIDE_MIN", 0)
    intact = CliRunner().invoke(cli, ["--store", hall.store.url, "--as", "maki", "--json", "audit", "verify"],
                                obj=App())

    assert intact.exit_code == 0, intact.output


@pytest.mark.parametrize("tampering", TAMPERINGS, ids=[t.name for t in TAMPERINGS])
def test_with_a_process_beside_each_edit_is_named_as_in_one_process(
        hall: Hall, history: History, tampering: Tampering, monkeypatch: pytest.MonkeyPatch) -> None:
    """Beside the chain walk, the read models are replayed in a second process but for the
    append-only ones (audit rows, exposure, encodings), which the walk compares itself
    (the same history untouched verifies: the test above)."""
    monkeypatch.setattr(models_beside, "BESIDE_MIN", 0)
    args = ["--store", hall.store.url, "--as", "maki", "--json", "audit", "verify"]

    tampering.edit(hall, history)
    forged = CliRunner().invoke(cli, args, obj=App())

    [alone] = verify_read_models(hall.streams, ["company"])
    assert alone.broken is not None and forged.exit_code == 4
    assert f"company: {alone.broken.detail}" in forged.stderr


@pytest.mark.parametrize("batch", [1, 5000], ids=["an event a batch", "one batch"])
def test_with_a_process_beside_the_rows_counted_are_those_counted_in_one_process(
        hall: Hall, history: History, batch: int, monkeypatch: pytest.MonkeyPatch) -> None:
    hall.write("codex", "company", draft(text="told the seat and the chair", layer="L2",
                                         addressees=("codex", "gemini"), participants=("maki",)))
    changed_entries(hall)
    monkeypatch.setattr(models_beside, "BESIDE_MIN", 0)
    monkeypatch.setattr(streamed, "FETCH", batch)  # rows compared (and stored rows read) at a time
    thorough: list[list[str]] = []
    monkeypatch.setattr(audit_cli, "models_of", lambda url, names=None, **kw: thorough.append(names))
    args = ["--store", hall.store.url, "--as", "maki", "--json", "audit", "verify", "--batch", str(batch)]

    beside = CliRunner().invoke(cli, args, obj=App())

    assert beside.exit_code == 0, beside.output
    assert thorough == []  # the chain walk's rows were those stored: no domain was verified again
    alone = verify_read_models(hall.streams)
    assert json.loads(beside.stdout)["read_models"] == [r.model_dump(mode="json") for r in alone]


def test_an_untouched_log_is_verified_the_fast_way_and_an_edited_one_the_thorough_way(
        hall: Hall, history: History, monkeypatch: pytest.MonkeyPatch) -> None:
    """The append-only read models (audit rows, exposure, full-text rows) are compared as
    streams beside the replay; only a divergence there sends verify to the scratch copies.
    If the fast way raised false alarms, every verify would quietly take the slow one."""
    hall.write("codex", "company", draft(text="told the seat and the chair", layer="L2",
                                         addressees=("gemini", "claude"), participants=("maki",)))
    ways = ways_taken(monkeypatch)

    assert company(hall).ok
    assert ways == [True]

    ways.clear()
    edit(hall, update(T.exposure).where(T.exposure.c.holder == "gemini").values(via="wrote"))
    report = company(hall)

    assert ways == [True, False]
    assert report.broken is not None and (report.broken.table, report.broken.column) == ("mh_company_exposure", "via")


def changed_entries(hall: Hall) -> tuple[UUID, UUID]:
    """An entry superseded by a later one, and an entry retired later: their rows were
    written by one event and changed by another."""
    first = UUID(hall.write("codex", "company", draft(text="the build runs on jenkins", layer="L2")).entry_id)
    hall.write("codex", "company", draft(text="the build runs on github actions", layer="L2"), supersedes=first,
               reason="the build moved")
    retired = UUID(hall.write("codex", "company", draft(text="the NAS is in room 4", layer="L2")).entry_id)
    hall.retire("maki", "company", retired, "the NAS moved")
    return first, retired


def ways_taken(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether each verification of a domain was the fast way (True) or the thorough one."""
    from memhall.governance import recompute

    ways: list[bool] = []
    thorough = recompute._verify_once

    def recorded(*args: Any, streaming: bool, **kwargs: Any) -> ModelReport:
        ways.append(streaming)
        return thorough(*args, streaming=streaming, **kwargs)

    monkeypatch.setattr(recompute, "_verify_once", recorded)
    return ways


@pytest.mark.parametrize("batch", [1, 5000], ids=["an event a batch", "one batch"])
def test_entries_changed_after_they_were_written_are_verified_the_fast_way(
        hall: Hall, batch: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Entries are compared as the replay inserts them; one a later event changes is compared
    at the end, whether that event was replayed in the same batch or a later one."""
    changed_entries(hall)
    ways = ways_taken(monkeypatch)

    [report] = verify_read_models(hall.streams, ["company"], batch=batch)

    assert report.ok, report.broken
    assert ways == [True]


@pytest.mark.parametrize("column, value", [("text", "the build runs on a laptop"), ("status", "active")])
def test_an_edit_of_an_entry_a_later_event_changed_is_named(
        hall: Hall, column: str, value: str, monkeypatch: pytest.MonkeyPatch) -> None:
    superseded, _ = changed_entries(hall)
    edit(hall, update(T.entries).where(T.entries.c.id == str(superseded)).values({column: value}))
    ways = ways_taken(monkeypatch)

    [report] = verify_read_models(hall.streams, ["company"], batch=1)

    assert report.broken is not None
    assert (report.broken.table, report.broken.key, report.broken.column) == (
        "mh_company_entries", str(superseded), column)
    assert ways == [True, False]


def test_an_edit_of_an_entry_no_later_event_changed_is_named_when_replayed_an_event_a_batch(
        hall: Hall, history: History, monkeypatch: pytest.MonkeyPatch) -> None:
    changed_entries(hall)
    edit(hall, update(T.entries).where(T.entries.c.id == str(history.entry)).values(layer="L4"))
    ways = ways_taken(monkeypatch)

    [report] = verify_read_models(hall.streams, ["company"], batch=1)

    assert report.broken is not None
    assert (report.broken.table, report.broken.key, report.broken.column) == (
        "mh_company_entries", str(history.entry), "layer")
    assert ways == [True, False]
