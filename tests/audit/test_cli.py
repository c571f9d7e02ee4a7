"""`memhall audit` through click, and once as a real process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from sqlalchemy import select

from memhall.audit import checkpoints
from memhall.cli.context import App
from memhall.cli.main import cli
from memhall.governance.store import Store
from memhall.governance.tables import tables_for
from tests.audit.conftest import LAST, raw, url

ROOT = Path(__file__).resolve().parents[2]
MAIN = "from memhall.cli.main import main; main()"


def run(*args: str) -> tuple[int, Result]:
    result = CliRunner().invoke(cli, list(args), obj=App())
    return result.exit_code, result


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_verify_prints_each_domain_ok_with_its_head(db: Path, in_tmp: Path) -> None:
    code, result = run("--store", str(db), "audit", "verify")

    assert code == 0, result.stdout
    lines = result.stdout.splitlines()
    assert [line.split()[:2] for line in lines] == [["company", "OK"], ["family", "OK"], ["0sys", "OK"]] * 3
    assert "every decision names the adopted digest" in lines[3]
    assert "read models" in lines[-1]
    assert f"to position {LAST}" in lines[0]


def test_verify_exits_4_naming_the_first_broken_position(db: Path, in_tmp: Path) -> None:
    with raw(db) as conn:
        conn.execute("DELETE FROM mh_company_events WHERE id = 4")

    code, result = run("--store", str(db), "audit", "verify")

    assert code == 4
    assert "company      BROKEN  at position 4 (event-missing)" in result.stdout
    assert result.stderr == "error: audit failed: company breaks at position 4 (event-missing)\n"


def test_verify_reports_json_for_programs(db: Path, in_tmp: Path) -> None:
    code, result = run("--store", str(db), "audit", "verify", "--json")

    report = json.loads(result.stdout)
    assert code == 0 and report["ok"] is True
    assert [d["domain"] for d in report["domains"]] == ["company", "family", "0sys"]


def test_verify_holds_the_store_to_the_default_checkpoint_file(db: Path, in_tmp: Path) -> None:
    code, _ = run("--store", str(db), "audit", "checkpoint")
    assert code == 0
    with raw(db) as conn:
        conn.execute("DELETE FROM mh_company_events WHERE id = ?", (LAST,))
        conn.execute("DELETE FROM mh_company_chain WHERE position = ?", (LAST,))

    code, result = run("--store", str(db), "audit", "verify")

    assert code == 4
    assert "(truncated)" in result.stdout
    assert len(checkpoints.load(in_tmp / "memhall-audit" / "checkpoints.jsonl")) == 3


def test_checkpoint_appends_to_the_file_it_is_given(db: Path, in_tmp: Path) -> None:
    run("--store", str(db), "audit", "checkpoint", "--file", "audit.jsonl")
    code, result = run("--store", str(db), "audit", "checkpoint", "--file", "audit.jsonl", "--json")

    assert code == 0
    assert [c["domain"] for c in json.loads(result.stdout)] == ["company", "family", "0sys"]
    assert len(checkpoints.load(in_tmp / "audit.jsonl")) == 6


def test_verify_refuses_a_store_that_does_not_exist(in_tmp: Path) -> None:
    code, result = run("--store", str(in_tmp / "nothing.db"), "audit", "verify")

    assert code == 1
    assert "no memhall store at" in result.stderr
    assert not (in_tmp / "nothing.db").exists()


def test_the_audit_log_is_read_by_those_allowed_to_review_it(db: Path, in_tmp: Path) -> None:
    code, result = run("--store", str(db), "--as", "maki", "--domain", "company", "audit", "log",
                       "--decision", "refused")

    assert code == 0, result.stdout
    assert result.stdout.splitlines() == [line for line in result.stdout.splitlines() if "REFUSED" in line]
    assert "by no-rule-permits" in result.stdout


def test_a_seat_reading_the_audit_log_is_refused_and_recorded(db: Path, in_tmp: Path) -> None:
    code, _ = run("--store", str(db), "--as", "gemini", "--domain", "company", "audit", "log")

    assert code == 3
    audit_rows = tables_for("company").audit
    store = Store(url(db))
    with store.read() as conn:
        last = conn.execute(select(audit_rows).order_by(audit_rows.c.position.desc()).limit(1)).one()
    store.dispose()
    assert (last.actor, last.action, last.decision) == ("gemini", "audit_review", "refused")


def test_all_domains_exports_csv_including_the_system_stream(db: Path, in_tmp: Path) -> None:
    code, result = run("--store", str(db), "--as", "maki", "audit", "log", "--all-domains", "--csv")

    assert code == 0, result.stdout
    domains = {line.split(",")[0] for line in result.stdout.splitlines()[1:]}
    assert domains == {"company", "family", "0sys"}


def test_a_sample_with_a_seed_is_the_same_twice(db: Path, in_tmp: Path) -> None:
    args = ("--store", str(db), "--as", "claude", "--domain", "company", "audit", "log", "--json",
            "--sample", "3", "--seed", "2025-06")

    first, second = run(*args)[1], run(*args)[1]

    assert len(json.loads(first.stdout)) == 3
    assert first.stdout == second.stdout


def test_csv_and_json_together_are_a_usage_error(db: Path, in_tmp: Path) -> None:
    code, _ = run("--store", str(db), "--as", "maki", "--domain", "company", "audit", "log", "--csv", "--json")

    assert code == 2


def test_the_real_cli_exits_4_with_one_line_on_a_tampered_store(db: Path, tmp_path: Path) -> None:
    with raw(db) as conn:
        conn.execute("UPDATE mh_company_events SET state = CAST('{}' AS BLOB) WHERE id = 3")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("MEMHALL_STORE", None)

    done = subprocess.run([sys.executable, "-c", MAIN, "--store", str(db), "audit", "verify"],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)

    assert done.returncode == 4
    assert done.stderr.splitlines() == ["error: audit failed: company breaks at position 3 (edited)"]
    assert "Traceback" not in done.stdout + done.stderr
    assert "company      BROKEN  at position 3" in done.stdout


def test_wrap_up_with_checkpoint_writes_the_default_checkpoint_file(db: Path, in_tmp: Path) -> None:
    run("--store", str(db), "--as", "codex", "--domain", "company", "handoff")

    code, result = run("--store", str(db), "--as", "codex", "--domain", "company", "wrap-up",
                       "--summary", "billing reviewed", "--checkpoint")

    assert code == 0, result.output
    written = checkpoints.load(in_tmp / "memhall-audit" / "checkpoints.jsonl")
    assert [c.domain for c in written] == ["company", "family", "0sys"]
    assert written[0].position > LAST


def test_audit_log_takes_the_decisions_the_review_knows() -> None:
    from memhall.audit import review
    from memhall.cli import audit as audit_cli

    assert audit_cli.DECISIONS == review.DECISIONS
