"""The hall's commands through the real CLI: output, --json, exit codes."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import Invoke, run_cli


def setup_company(memhall: Invoke) -> None:
    assert memhall("--as", "maki", "domain", "create", "company").exit_code == 0


def test_handoff_returns_a_wrap_up_written_by_the_previous_session(memhall: Invoke) -> None:
    setup_company(memhall)
    written = memhall("--as", "codex", "--domain", "company", "wrap-up", "--json",
                      input="Invoices shipped; next: reminders\n")
    entry_id = json.loads(written.stdout)["entry_id"]

    handoff = memhall("--as", "codex", "--domain", "company", "handoff")

    assert handoff.exit_code == 0
    assert f"[L2] wrap-up {entry_id} by codex" in handoff.stdout
    assert "Invoices shipped; next: reminders" in handoff.stdout


def test_json_output_holds_only_json_on_stdout(memhall: Invoke) -> None:
    setup_company(memhall)

    result = memhall("--json", "--as", "codex", "--domain", "company", "write", "a note", "--topic", "ops")

    data = json.loads(result.stdout)
    assert data["layer"] == "L1"
    assert json.loads(memhall("--as", "codex", "--domain", "company", "search", "note", "--json").stdout)[
        "results"][0]["topics"] == ["ops"]


def test_a_duplicate_is_reported_on_stderr_with_the_existing_id(memhall: Invoke) -> None:
    setup_company(memhall)
    first = json.loads(memhall("--as", "codex", "--domain", "company", "write", "Same thing", "--json").stdout)

    second = memhall("--as", "codex", "--domain", "company", "write", "same  THING", "--json")

    assert json.loads(second.stdout)["duplicate_of"] == first["entry_id"]
    assert "duplicate" in second.stderr


def test_a_payload_claiming_another_domain_is_refused(memhall: Invoke, tmp_path: Path) -> None:
    setup_company(memhall)
    payload = tmp_path / "entry.json"
    payload.write_text(json.dumps({"text": "we decided X", "domain": "family"}))

    result = memhall("--as", "codex", "--domain", "company", "write", "--payload", str(payload))

    assert result.exit_code == 3
    assert "claimed-domain-must-be-the-domain" in result.stderr


def test_the_real_cli_end_to_end(tmp_path: Path) -> None:
    """Subprocesses in a fresh project folder: the store is created in .memhall/."""
    agent = {"MEMHALL_AGENT": "codex", "MEMHALL_DOMAIN": "company"}
    assert run_cli(["--as", "maki", "domain", "create", "company"], cwd=tmp_path).returncode == 0
    assert (tmp_path / ".memhall" / "memhall.db").exists()
    nested = tmp_path / "src" / "deep"
    nested.mkdir(parents=True)

    empty = run_cli(["handoff", "--no-session"], cwd=nested, env=agent)
    lesson = run_cli(["write", "--layer", "L2", "--kind", "lesson", "billing: where we left off"],
                     cwd=nested, env=agent)
    wrapped = run_cli(["wrap-up", "-s", "billing v2 live", "--open", "reminders", "--json"], cwd=nested, env=agent)
    handoff = run_cli(["handoff"], cwd=nested, env=agent)
    search = run_cli(["search", "billing where we left off"], cwd=nested, env=agent)
    log = run_cli(["log", "--limit", "2"], cwd=nested, env=agent)

    assert "Nothing to hand over in company yet" in empty.stdout
    assert lesson.returncode == 0 and wrapped.returncode == 0
    summary = json.loads(wrapped.stdout)
    assert f"wrap-up {summary['entry_id']}" in handoff.stdout
    assert f"open-loop {summary['opened_loops'][0]}" in handoff.stdout
    assert "lesson" not in handoff.stdout
    assert "not current state" in search.stdout and "[L2]" in search.stdout
    assert log.stdout.count("\n") >= 2


def test_errors_are_one_line_with_distinct_exit_codes(tmp_path: Path) -> None:
    run_cli(["--as", "maki", "domain", "create", "company"], cwd=tmp_path)

    unknown = run_cli(["--as", "codex", "--domain", "nowhere", "write", "x"], cwd=tmp_path)
    invalid = run_cli(["--as", "codex", "--domain", "company", "write", "--confidence", "101", "x"], cwd=tmp_path)
    hearsay = run_cli(["--as", "codex", "--domain", "company", "write", "--source", "hearsay", "x"], cwd=tmp_path)
    refused = run_cli(["--as", "gemini", "--domain", "company", "write", "--layer", "L2", "x"], cwd=tmp_path)
    usage = run_cli(["--as", "codex", "frobnicate"], cwd=tmp_path)
    anonymous = run_cli(["--domain", "company", "write", "x"], cwd=tmp_path)

    assert (unknown.returncode, hearsay.returncode) == (1, 1)
    assert invalid.returncode == 2  # a bounded option: a usage error
    assert refused.returncode == 3
    assert usage.returncode == 2
    assert anonymous.returncode == 1 and "--as" in anonymous.stderr
    for done in (unknown, invalid, hearsay, refused, usage, anonymous):
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr
        assert "Traceback" not in done.stderr
    log = run_cli(["--as", "maki", "--domain", "company", "log", "--json"], cwd=tmp_path)
    events = json.loads(log.stdout)
    assert [e["topic"] for e in events].count("memhall.Refusal.Recorded") == 1
    assert all(e["data"].get("text") != "x" for e in events)


def test_policy_explain_reads_an_entrys_facts_from_the_store(memhall: Invoke) -> None:
    setup_company(memhall)
    entry = json.loads(memhall("--as", "gemini", "--domain", "company", "write", "a candidate",
                               "--json").stdout)["entry_id"]

    result = memhall("--as", "codex", "--domain", "company", "--json", "policy", "explain",
                     "--action", "promote", "--entry", entry, "--target-layer", "L2")

    explained = json.loads(result.stdout)
    assert explained["facts"]["layer"] == "L1"
    assert explained["facts"]["author"] == "gemini"
    assert explained["decision"]["allowed"] is False
    assert explained["decision"]["rule_id"] == "promotion-to-l2-needs-evidence"


def test_an_unusable_store_is_one_line_not_a_traceback(tmp_path: Path) -> None:
    not_a_db = tmp_path / "notes.txt"
    not_a_db.write_text("shopping list\n" * 100)

    done = run_cli(["--store", str(not_a_db), "--as", "maki", "domain", "list"], cwd=tmp_path)

    assert done.returncode == 1
    assert done.stderr.strip() == "error: the store cannot be used: file is not a database"
