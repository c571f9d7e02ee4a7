"""Checkpoints: written after a check, appended as JSON lines, and held to later."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from memhall.audit import checkpoints
from memhall.audit.checkpoints import Checkpoint
from memhall.audit.verify import Problem
from memhall.domains.errors import AuditFailureError
from memhall.governance.hall import Hall
from memhall.governance.tables import SYSTEM
from memhall.policies.engine import PolicySet
from tests.audit.conftest import LAST, raw, take_checkpoint, verify, write_more


def test_a_checkpoint_survives_the_round_trip_through_its_file(tmp_path: Path) -> None:
    written = Checkpoint(domain="company", position=9, head="ab" * 32, at=datetime.now(timezone.utc))

    checkpoints.append(tmp_path / "audit" / "checkpoints.jsonl", [written, written])

    assert checkpoints.load(tmp_path / "audit" / "checkpoints.jsonl") == [written, written]


def test_a_line_that_is_not_a_checkpoint_fails_the_audit(tmp_path: Path) -> None:
    file = tmp_path / "checkpoints.jsonl"
    file.write_text('{"domain": "company", "position": 3, "head": "not a head", "at": "2025-01-01T00:00:00Z"}\n')

    with pytest.raises(AuditFailureError, match="checkpoints.jsonl:1"):
        checkpoints.load(file)


def test_a_checkpoint_records_every_domain_and_the_system_stream(db: Path, tmp_path: Path) -> None:
    written = take_checkpoint(db, tmp_path / "checkpoints.jsonl")

    assert [(c.domain, c.position) for c in written] == [("company", LAST), ("family", 3), (SYSTEM, 2)]
    assert checkpoints.load(tmp_path / "checkpoints.jsonl") == written


def test_a_later_checkpoint_extends_the_earlier_ones(db: Path, tmp_path: Path, policies: PolicySet) -> None:
    file = tmp_path / "checkpoints.jsonl"
    take_checkpoint(db, file)
    write_more(db, policies, 2)
    take_checkpoint(db, file)
    write_more(db, policies, 1)

    report = verify(db, checkpoints.load(file))["company"]

    assert report.ok
    assert (report.checkpoints, report.position) == (2, LAST + 3)


def test_no_checkpoint_is_written_for_a_chain_that_does_not_verify(
    db: Path, tmp_path: Path, policies: PolicySet
) -> None:
    file = tmp_path / "checkpoints.jsonl"
    take_checkpoint(db, file)
    write_more(db, policies, 2)
    with raw(db) as conn:
        conn.execute("UPDATE mh_company_events SET state = CAST('{}' AS BLOB) WHERE id = ?", (LAST + 2,))
    before = file.read_text()

    with pytest.raises(AuditFailureError, match=f"company breaks at position {LAST + 2}"):
        take_checkpoint(db, file)

    assert file.read_text() == before


def test_checking_from_the_last_checkpoint_still_catches_a_cut_tail(db: Path, tmp_path: Path) -> None:
    file = tmp_path / "checkpoints.jsonl"
    take_checkpoint(db, file)
    with raw(db) as conn:
        conn.execute("DELETE FROM mh_company_events WHERE id = ?", (LAST,))
        conn.execute("DELETE FROM mh_company_chain WHERE position = ?", (LAST,))

    broken = verify(db, checkpoints.load(file), incremental=True)["company"].broken

    assert broken is not None
    assert (broken.position, broken.problem) == (LAST, Problem.TRUNCATED)


def test_checking_from_the_last_checkpoint_skips_what_it_already_vouched_for(
    db: Path, tmp_path: Path, policies: PolicySet
) -> None:
    file = tmp_path / "checkpoints.jsonl"
    take_checkpoint(db, file)
    write_more(db, policies, 2)

    report = verify(db, checkpoints.load(file), incremental=True)["company"]

    assert report.ok
    assert (report.events, report.position, report.checkpoints) == (2, LAST + 2, 1)


def test_an_empty_stream_can_be_checkpointed_again_and_again(hall: Hall, store_url: str, tmp_path: Path) -> None:
    file = tmp_path / "checkpoints.jsonl"
    take_checkpoint(store_url, file)

    again = take_checkpoint(store_url, file)

    assert [(c.domain, c.position) for c in again] == [("company", 2), ("family", 2), (SYSTEM, 1)]
    assert all(r.ok for r in verify(store_url, checkpoints.load(file)).values())


def test_a_checkpoint_file_of_another_store_is_refused_with_a_clear_line(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from memhall.cli.context import App
    from memhall.cli.main import cli
    from memhall.domains.entry import draft
    from memhall.governance.hall import Hall
    from memhall.governance.store import Store
    from memhall.policies.engine import PolicySet

    files = {}
    for name in ("one", "two"):
        hall = Hall(Store(f"sqlite:///{tmp_path / name}.db"), PolicySet.load(None))
        hall.create_domain("maki", "company")
        hall.write("codex", "company", draft(text=f"{name} note"))
        hall.store.dispose()
        files[name] = tmp_path / f"{name}.jsonl"
        taken = CliRunner().invoke(cli, ["--store", str(tmp_path / f"{name}.db"), "audit", "checkpoint",
                                         "--file", str(files[name])], obj=App())
        assert taken.exit_code == 0, taken.output

    crossed = CliRunner().invoke(cli, ["--store", str(tmp_path / "one.db"), "audit", "verify",
                                       "--checkpoints", str(files["two"])], obj=App())
    own = CliRunner().invoke(cli, ["--store", str(tmp_path / "one.db"), "audit", "verify",
                                   "--checkpoints", str(files["one"])], obj=App())

    assert crossed.exit_code == 4
    assert "not of this store" in crossed.stderr
    assert own.exit_code == 0
