"""`memhall tour`, `memhall init` and `memhall rebuild` through the CLI."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from click.testing import CliRunner

from memhall.cli.context import App
from memhall.cli.main import cli
from tests.cli.conftest import Invoke, run_cli


def test_the_tour_shows_handoff_by_time_history_search_and_refusals(tmp_path: Path) -> None:
    done = run_cli(["tour"], cwd=tmp_path, fresh=True)  # the main job, from a fresh interpreter

    assert done.returncode == 0, done.stderr
    assert "the old, more similar lesson is NOT in the handoff" in done.stdout
    assert "search results are history, not current state" in done.stdout
    assert "unknown domain 'compnay'" in done.stdout
    assert "no rule permits write_l2 for gemini" in done.stdout
    assert "chairs-never-ratify" in done.stdout or "only-ratify-owners-decide" in done.stdout
    assert "L4 unavailable: nothing ratified in company" in done.stdout
    assert "## A. The human's own words" in done.stdout
    assert "no-self-materialization" in done.stdout


def test_the_tour_in_json_keeps_stdout_to_json(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["tour", "--json", "--dir", str(tmp_path / "t")], obj=App())

    summary = json.loads(result.stdout)
    assert result.exit_code == 0
    assert len(summary["refusals"]) == 4


def test_the_tours_ratification_is_signed_by_the_owners_key_in_its_scratch_folder(tmp_path: Path) -> None:
    CliRunner().invoke(cli, ["tour", "--json", "--dir", str(tmp_path / "t")], obj=App())

    verified = run_cli(["--store", str(tmp_path / "t" / "memhall.db"), "audit", "verify"], cwd=tmp_path)

    assert verified.returncode == 0, verified.stderr
    assert "company      OK      policy: 1 adoption(s)" in verified.stdout
    assert "1 signature(s) verified" in verified.stdout


def test_init_creates_a_store_folder_and_a_policy_that_checks(tmp_path: Path) -> None:
    init = run_cli(["init"], cwd=tmp_path)
    check = run_cli(["policy", "check"], cwd=tmp_path)
    again = run_cli(["init"], cwd=tmp_path)

    assert init.returncode == 0 and "roles.yaml" in init.stdout
    assert (tmp_path / ".memhall").is_dir()
    assert (tmp_path / "memhall-policy" / "roles.yaml").is_file()
    assert check.returncode == 0, check.stdout + check.stderr
    assert again.returncode == 1 and len(again.stderr.strip().splitlines()) == 1


def test_a_broken_policy_stops_the_hall(tmp_path: Path) -> None:
    run_cli(["init"], cwd=tmp_path)
    rules = tmp_path / "memhall-policy" / "seat.cedar"
    rules.write_text(rules.read_text().replace("principal.seat_in", "principal.seats_in"))

    done = run_cli(["--as", "maki", "domain", "create", "company"], cwd=tmp_path)

    assert done.returncode == 3
    assert "seat.cedar:" in done.stderr
    store = sqlite3.connect(tmp_path / ".memhall" / "memhall.db")  # made by init, still empty
    assert store.execute("SELECT count(*) FROM mh_domains").fetchone() == (0,)
    store.close()


def test_rebuild_replays_every_domain(memhall: Invoke) -> None:
    memhall("--as", "maki", "domain", "create", "company")
    memhall("--as", "codex", "--domain", "company", "write", "one")

    result = memhall("--as", "maki", "--json", "rebuild")

    assert json.loads(result.stdout)["company"] == 3  # the domain opened, its charter, one entry written


def test_rebuild_brings_read_models_of_an_older_version_up_to_date(tmp_path: Path) -> None:
    run_cli(["--as", "maki", "domain", "create", "company"], cwd=tmp_path)
    run_cli(["--as", "codex", "--domain", "company", "write", "--layer", "L2", "kept"], cwd=tmp_path)
    db = sqlite3.connect(tmp_path / ".memhall" / "memhall.db")
    db.execute("DROP INDEX mh_company_entries_idempotency")
    db.execute("ALTER TABLE mh_company_entries DROP COLUMN idempotency_key")  # as an older version made it
    db.commit()
    db.close()
    agent = {"MEMHALL_AGENT": "codex", "MEMHALL_DOMAIN": "company"}

    stale = run_cli(["search", "kept"], cwd=tmp_path, env=agent)
    rebuilt = run_cli(["--as", "maki", "rebuild"], cwd=tmp_path)
    fresh = run_cli(["search", "kept"], cwd=tmp_path, env=agent)

    assert stale.returncode == 1 and "run `memhall rebuild`" in stale.stderr
    assert rebuilt.returncode == 0
    assert fresh.returncode == 0 and "[L2]" in fresh.stdout
