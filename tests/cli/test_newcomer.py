"""What a newcomer trips on: short ids, a stale MEMHALL_SESSION, a missing
--domain, a domain roles.yaml does not know, and per-project defaults."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from uuid import uuid4

import pytest
from click.testing import CliRunner, Result
from sqlalchemy import create_engine, insert

from memhall.cli.context import App
from memhall.cli.main import cli
from memhall.governance.tables import tables_for
from memhall.policies.engine import PolicySet
from memhall.policies.files import init_policy_dir
from tests.cli.world import CLEAN_ENV, World, build_world, count_events, invoke


@pytest.fixture
def world(store_url: str, policies: PolicySet) -> World:
    return build_world(store_url, policies)


def as_(world: World, policies: PolicySet, actor: str, *args: str,
        env: dict[str, str | None] | None = None) -> Result:
    return invoke(policies, ["--store", world.url, "--as", actor, "--domain", "company", *args], env=env)


def test_an_id_may_be_shortened_to_its_first_six_characters(world: World, policies: PolicySet) -> None:
    shown = as_(world, policies, "maki", "--json", "show", world.claim[:6])
    ratified = as_(world, policies, "maki", "--json", "ratify", world.promotion[:8].upper())

    assert json.loads(shown.stdout)["entry"]["id"] == world.claim
    assert ratified.exit_code == 0, ratified.output
    assert json.loads(ratified.stdout) == {"promotion_id": world.promotion, "entry_id": world.claim,
                                           "layer": "L3"}


def test_a_prefix_shorter_than_six_characters_is_a_usage_error(world: World, policies: PolicySet) -> None:
    done = as_(world, policies, "maki", "show", world.claim[:5])

    assert done.exit_code == 2
    assert "first 6 characters" in done.stderr


def test_an_ambiguous_prefix_lists_the_candidates(world: World, policies: PolicySet) -> None:
    twins = ["abcdef01-0000-4000-8000-000000000001", "abcdef02-0000-4000-8000-000000000002"]
    engine = create_engine(world.url)
    with engine.begin() as conn:  # two sessions whose ids share a prefix, as the projection stores them
        conn.execute(insert(tables_for("company").sessions), [
            {"id": i, "principal": "codex", "opened_at": datetime.now(timezone.utc), "closed": False,
             "position": 1}
            for i in twins])
    engine.dispose()
    before = count_events(world.url)

    done = as_(world, policies, "codex", "remind", world.promotion, "--session", "abcdef")

    assert done.exit_code == 2
    assert done.stderr.strip() == (f"error: session id abcdef is ambiguous in company: it begins "
                                   f"{twins[0]}, {twins[1]}; give more characters")
    assert count_events(world.url) == before


def test_a_stale_memhall_session_says_to_run_handoff_or_unset_it(world: World, policies: PolicySet) -> None:
    unknown = as_(world, policies, "codex", "write", "a note", env={"MEMHALL_SESSION": str(uuid4())})
    closed = as_(world, policies, "codex", "wrap-up", "-s", "done", env={"MEMHALL_SESSION": world.session})
    again = as_(world, policies, "codex", "wrap-up", "-s", "done again", env={"MEMHALL_SESSION": world.session})

    assert unknown.exit_code == 1
    assert "MEMHALL_SESSION is stale" in unknown.stderr
    assert "run `memhall handoff` to open a new session, or `unset MEMHALL_SESSION`" in unknown.stderr
    assert closed.exit_code == 0, closed.output
    assert again.exit_code == 1
    assert f"MEMHALL_SESSION is stale (session {world.session} is already wrapped up)" in again.stderr


def test_a_missing_domain_lists_the_domains_that_exist(world: World, policies: PolicySet) -> None:
    done = invoke(policies, ["--store", world.url, "--as", "codex", "log"])

    assert done.exit_code == 1
    assert done.stderr.strip().endswith("(domains here: company, family)")


def test_a_refusal_in_a_domain_missing_from_roles_yaml_says_where_to_add_it(
        world: World, tmp_path: Path) -> None:
    policy = tmp_path / "memhall-policy"
    init_policy_dir(policy)

    done = CliRunner().invoke(cli, ["--store", world.url, "--policy", str(policy), "--as", "maki",
                                    "domain", "create", "sales"], obj=App(), env=CLEAN_ENV)

    assert done.exit_code == 3
    assert (f"domain 'sales' is not in {policy}/roles.yaml: add it under `domains:` and give it roles "
            "under `roles:`") in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_project_defaults_come_from_config_toml_and_flags_and_environment_win(
        policies: PolicySet, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    invoke(policies, ["init"])
    (tmp_path / ".memhall" / "config.toml").write_text('as = "codex"\ndomain = "company"\n')
    invoke(policies, ["--as", "maki", "domain", "create", "company"])

    by_default = invoke(policies, ["--json", "write", "from the defaults"])
    by_env = invoke(policies, ["--json", "write", "from the environment"], env={"MEMHALL_AGENT": "gemini"})
    by_flag = invoke(policies, ["--json", "--domain", "family", "write", "elsewhere"])

    authors = [json.loads(invoke(policies, ["--json", "show", json.loads(d.stdout)["entry_id"]]).stdout)
               ["entry"]["author"] for d in (by_default, by_env)]
    assert authors == ["codex", "gemini"]
    assert by_flag.exit_code == 1 and "unknown domain 'family'" in by_flag.stderr


def test_an_unknown_key_in_config_toml_is_named(
        policies: PolicySet, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    invoke(policies, ["init"])
    (tmp_path / ".memhall" / "config.toml").write_text('agent = "codex"\n')

    done = invoke(policies, ["write", "x"])

    assert done.exit_code == 1
    assert "unknown key 'agent' (known: as, domain, wrap_up_chars)" in done.stderr
