"""Stores appear only when asked for: reads never create one, `init` and
`domain create` may, and a database that is not a memhall store is left alone."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from memhall.policies.engine import PolicySet
from tests.cli.world import invoke

READS = [["log"], ["handoff"], ["search", "billing"], ["domain", "list"], ["audit", "verify"],
         ["promotions"], ["pending"], ["canon"]]


@pytest.mark.parametrize("command", READS)
def test_a_read_where_there_is_no_store_says_so_and_creates_nothing(
        policies: PolicySet, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str]) -> None:
    monkeypatch.chdir(tmp_path)

    done = invoke(policies, ["--as", "maki", "--domain", "company", *command])

    assert done.exit_code == 1
    assert done.stderr.strip() == "error: no memhall store here or above: run `memhall init`"
    assert list(tmp_path.iterdir()) == []


def test_a_read_of_a_store_path_that_does_not_exist_creates_nothing(policies: PolicySet, tmp_path: Path) -> None:
    missing = tmp_path / "elsewhere" / "memhall.db"

    done = invoke(policies, ["--store", str(missing), "--as", "maki", "--domain", "company", "log"])

    assert done.exit_code == 1
    assert done.stderr.strip() == f"error: no memhall store at {missing}: run `memhall init`"
    assert not missing.parent.exists()


def test_a_read_of_an_empty_database_says_there_is_no_store_yet(store_url: str, policies: PolicySet) -> None:
    done = invoke(policies, ["--store", store_url, "--as", "maki", "domain", "list"])

    assert done.exit_code == 1
    assert "no memhall store at" in done.stderr


def test_creating_a_domain_creates_the_store_where_none_exists(
        policies: PolicySet, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)

    created = invoke(policies, ["--as", "maki", "domain", "create", "company"])
    listed = invoke(policies, ["domain", "list"])

    assert created.exit_code == 0, created.output
    assert (tmp_path / ".memhall" / "memhall.db").is_file()
    assert listed.stdout.strip() == "company"


@pytest.mark.parametrize("command", [["--as", "maki", "domain", "create", "company"],
                                     ["--as", "maki", "--domain", "company", "log"],
                                     ["audit", "verify"]])
def test_a_sqlite_file_of_someone_elses_is_refused_untouched(
        policies: PolicySet, tmp_path: Path, command: list[str]) -> None:
    foreign = tmp_path / "notes.db"
    with sqlite3.connect(foreign) as db:
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("CREATE TABLE notes (body TEXT)")
        db.execute("INSERT INTO notes VALUES ('milk')")
    db.close()
    digest = hashlib.sha256(foreign.read_bytes()).hexdigest()
    beside = sorted(p.name for p in tmp_path.iterdir())

    done = invoke(policies, ["--store", str(foreign), *command])

    assert done.exit_code == 1
    assert done.stderr.strip() == f"error: {foreign} is not a memhall store (it holds other tables): refusing to use it"
    assert hashlib.sha256(foreign.read_bytes()).hexdigest() == digest
    assert sorted(p.name for p in tmp_path.iterdir()) == beside  # not even a WAL index beside it


def test_init_makes_the_store_a_gitignore_and_names_three_next_steps(
        policies: PolicySet, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)

    done = invoke(policies, ["init"])
    listed = invoke(policies, ["domain", "list"])

    assert done.exit_code == 0, done.output
    ignore = (tmp_path / ".memhall" / ".gitignore").read_text()
    assert ignore.splitlines()[-1] == "*"
    assert "memhall-policy/" in ignore and "memhall-audit/" in ignore
    steps = done.stdout.split("next:\n", 1)[1].splitlines()
    assert [s.strip()[:2] for s in steps] == ["1.", "2.", "3."]
    assert "roles.yaml" in steps[0] and "`domains:`" in steps[0] and "`roles:`" in steps[0]
    assert listed.exit_code == 0 and "no domains yet" in listed.stdout


def test_init_twice_is_one_line_and_changes_nothing(
        policies: PolicySet, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    invoke(policies, ["init"])
    roles = (tmp_path / "memhall-policy" / "roles.yaml").read_text()

    again = invoke(policies, ["init"])

    assert again.exit_code == 1
    assert again.stderr.strip().startswith("error: already set up:")
    assert (tmp_path / "memhall-policy" / "roles.yaml").read_text() == roles
