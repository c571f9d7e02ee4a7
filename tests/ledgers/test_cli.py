"""The Council commands through the CLI: Markdown and --json, exit codes, determinism."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from click.testing import CliRunner, Result

from memhall.cli import main
from memhall.cli.context import App

Invoke = Callable[..., Result]
LEDGER_COMMANDS = ("materialize", "materializations", "request", "pending", "answer")


@pytest.fixture
def memhall(store_url: str, monkeypatch: pytest.MonkeyPatch) -> Invoke:
    """`memhall ARGS` in-process; the ledger commands registered test-locally
    (a no-op once memhall.cli.main lists them)."""
    for name in LEDGER_COMMANDS:
        monkeypatch.setitem(main.COMMANDS, name, f"memhall.cli.ledgers:{name}")
    runner = CliRunner()

    def invoke(*args: str) -> Result:
        return runner.invoke(main.cli, ["--store", store_url, *args], obj=App())

    invoke("--as", "maki", "domain", "create", "company")
    invoke("--as", "maki", "domain", "create", "family")
    return invoke


def as_(actor: str, memhall: Invoke) -> Invoke:
    return lambda *args: memhall("--as", actor, "--domain", "company", *args)


def test_materialize_prints_the_three_ledgers_as_markdown(memhall: Invoke) -> None:
    codex, claude = as_("codex", memhall), as_("claude", memhall)
    codex("write", "billing runs nightly", "--layer", "L2", "--kind", "claim", "--topic", "billing")
    as_("maki", memhall)("write", "Billing must never double-charge.", "--layer", "L2", "--kind", "quote")

    done = claude("materialize", "--seat", "gemini", "--task", "review billing")

    assert done.exit_code == 0, done.output
    for heading in ("## A.", "## B.", "## C.", "As of log position"):
        assert heading in done.stdout
    assert "  > Billing must never double-charge." in done.stdout
    assert "[L2] claim" in done.stdout
    assert "recorded as materialization" in done.stderr


def test_materialize_json_is_byte_identical_when_rerun(memhall: Invoke) -> None:
    codex, claude = as_("codex", memhall), as_("claude", memhall)
    for n in range(5):
        codex("write", f"billing fact {n}", "--layer", "L2", "--topic", "billing")
    args = ("--json", "materialize", "--seat", "gemini", "--task", "billing", "--max-items", "3",
            "--max-tokens", "120", "--explain")

    first, second = claude(*args), claude(*args)

    assert first.exit_code == 0, first.output
    assert first.stdout == second.stdout
    data = json.loads(first.stdout)
    assert len(data["b"]) <= 3 and data["budget"]["used_tokens"] <= 120
    assert {e["ledger"] for e in data["explain"]} <= {"A", "B", "C"}


def test_a_seat_materializing_is_refused_with_exit_code_3(memhall: Invoke) -> None:
    done = as_("gemini", memhall)("materialize", "--seat", "gemini", "--task", "billing")

    assert done.exit_code == 3
    assert "refused" in done.stderr


def test_materialize_outside_the_policy_budget_is_a_usage_error(memhall: Invoke) -> None:
    done = as_("claude", memhall)("materialize", "--seat", "gemini", "--task", "x", "--max-items", "20")

    assert done.exit_code == 2
    assert "--max-items" in done.stderr


def test_materializations_answers_what_a_seat_saw(memhall: Invoke) -> None:
    codex, claude = as_("codex", memhall), as_("claude", memhall)
    fact = json.loads(codex("--json", "write", "billing runs nightly", "--layer", "L2").stdout)["entry_id"]
    claude("materialize", "--seat", "gemini", "--task", "billing")

    listed = json.loads(claude("--json", "materializations", "--seat", "gemini").stdout)

    assert [r["ledger_b"] for r in listed] == [[fact]]
    assert json.loads(claude("--json", "materializations", "--seat", "codex").stdout) == []


def test_a_request_is_pending_until_answered(memhall: Invoke) -> None:
    gemini, claude, codex = as_("gemini", memhall), as_("claude", memhall), as_("codex", memhall)
    made = json.loads(gemini("--json", "request", "--seat", "gemini", "--need", "who owns billing?").stdout)
    fact = json.loads(codex("--json", "write", "finance owns billing", "--layer", "L2").stdout)["entry_id"]

    waiting = gemini("pending")
    answered = claude("answer", made["id"], "--entry", fact)

    assert made["id"] in waiting.stdout and "who owns billing?" in waiting.stdout
    assert answered.exit_code == 0, answered.output
    assert json.loads(gemini("--json", "pending").stdout) == []


def test_answering_with_an_unknown_entry_fails_cleanly(memhall: Invoke) -> None:
    gemini, claude = as_("gemini", memhall), as_("claude", memhall)
    made = json.loads(gemini("--json", "request", "--seat", "gemini", "--need", "x").stdout)

    done = claude("answer", made["id"], "--entry", "00000000-0000-0000-0000-000000000000")

    assert done.exit_code == 3
    assert "no entry" in done.stderr


def test_an_opinion_takes_memories_against_it_and_about_shows_them_as_such(memhall: Invoke) -> None:
    gemini = as_("gemini", memhall)
    kept = json.loads(gemini("--json", "write", "ren kept the backups going", "--layer", "L1").stdout)["entry_id"]
    missed = json.loads(gemini("--json", "write", "ren missed the march backup", "--layer", "L1").stdout)["entry_id"]

    stated = gemini("opinion", "ren", "--category", "reliability", "--statement", "dependable",
                    "--stance", "positive", "--evidence", kept[:8], "--against", missed[:8])
    about = gemini("about", "ren")

    assert stated.exit_code == 0, stated.output
    assert "1 for, 1 against" in stated.stdout
    assert f"    evidence [L1] {kept} by gemini: ren kept the backups going" in about.stdout
    assert f"    against [L1] {missed} by gemini: ren missed the march backup" in about.stdout
