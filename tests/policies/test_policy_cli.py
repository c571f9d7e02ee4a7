"""`memhall policy check | diff | explain` through click's CliRunner."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from memhall.cli.policy import policy
from memhall.policies.digest import policy_digest
from memhall.policies.engine import init_policy_dir
from memhall.policies.files import read_policy_dir


@pytest.fixture
def runner(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> CliRunner:
    monkeypatch.delenv("MEMHALL_POLICY", raising=False)
    monkeypatch.chdir(tmp_path)  # no ./memhall-policy unless a test makes one
    return CliRunner()


def test_check_passes_on_the_defaults(runner: CliRunner) -> None:
    result = runner.invoke(policy, ["check"])

    assert result.exit_code == 0, result.output
    assert "ok: (packaged defaults)" in result.output


def test_check_exits_1_when_a_case_fails(runner: CliRunner, policy_dir: Path) -> None:
    (policy_dir / "tests" / "bad.yaml").write_text(
        "- name: wrong\n  principal: gemini\n  action: write_l2\n"
        "  resource: {domain: company, target_layer: L2}\n  expect: allow\n"
    )

    result = runner.invoke(policy, ["check", str(policy_dir)])

    assert result.exit_code == 1
    assert "FAIL" in result.stdout
    assert result.stderr.strip().splitlines() == ["error: policy check failed (1 problem(s))"]


def test_check_exits_1_on_a_broken_rule_file(runner: CliRunner, policy_dir: Path) -> None:
    (policy_dir / "seat.cedar").write_text("permit (principal, action, resource")

    result = runner.invoke(policy, ["check", str(policy_dir), "--json"])

    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert data["ok"] is False
    assert data["errors"][0].startswith(str(policy_dir / "seat.cedar"))


def test_check_uses_memhall_policy_from_the_environment(
    runner: CliRunner, policy_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMHALL_POLICY", str(policy_dir))

    result = runner.invoke(policy, ["check"])

    assert result.exit_code == 0
    assert f"ok: {policy_dir}" in result.output


def test_check_finds_a_local_memhall_policy_directory(runner: CliRunner, tmp_path: Path) -> None:
    init_policy_dir(tmp_path / "memhall-policy")

    result = runner.invoke(policy, ["check"])

    assert result.exit_code == 0
    assert "ok: memhall-policy" in result.output


def test_explain_shows_the_deciding_rule(runner: CliRunner) -> None:
    result = runner.invoke(policy, [
        "explain", "--as", "maki", "--action", "ratify", "--domain", "company",
        "--layer", "L3", "--target-layer", "L4", "--nominated-by", "claude", "--reminder-sessions", "2",
        "--dissent-recorded",
    ])

    assert result.exit_code == 0, result.output
    assert result.output.startswith("DENY maki ratify promotion in company")
    assert "2 of 3 reminders" in result.output
    assert "rule canon-needs-three-reminder-sessions (forbid" in result.output


def test_explain_as_json(runner: CliRunner) -> None:
    result = runner.invoke(policy, [
        "explain", "--as", "codex", "--action", "write_l2", "--domain", "company",
        "--target-layer", "L2", "--json",
    ])

    data = json.loads(result.output)
    assert data["decision"]["allowed"] is True
    assert data["decision"]["rule_id"] == "session-chair-writes-l2"
    assert data["roles"] == ["session_chair"]


def test_explain_with_a_broken_policy_is_one_line_on_stderr(runner: CliRunner, policy_dir: Path) -> None:
    (policy_dir / "roles.yaml").write_text("domains: [company]\nprincipals: {maki: human}\nowners: []\n")

    result = runner.invoke(policy, [
        "--policy", str(policy_dir), "explain", "--as", "maki", "--action", "read", "--domain", "company",
    ])

    assert result.exit_code == 3
    assert result.stderr == f"error: {policy_dir / 'roles.yaml'}:3: unknown key 'owners' in top level" \
        " (expected one of domains, principals, roles)\n"


def test_an_unknown_action_is_a_usage_error(runner: CliRunner) -> None:
    result = runner.invoke(policy, ["explain", "--as", "maki", "--action", "fly", "--domain", "company"])

    assert result.exit_code == 2


def test_diff_prints_markdown_for_the_pull_request(runner: CliRunner, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q"], cwd=repo, check=True)
    init_policy_dir(repo / "memhall-policy")
    subprocess.run([*git, "add", "."], cwd=repo, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "p"], cwd=repo, check=True)

    unchanged = runner.invoke(policy, ["diff", "--base", "HEAD", str(repo / "memhall-policy")])
    seat = repo / "memhall-policy" / "seat.cedar"
    seat.write_text(seat.read_text().replace('action == Action::"write_l1"', 'action in [Action::"write_l1", Action::"write_l2"]'))
    changed = runner.invoke(policy, ["diff", "--base", "HEAD", str(repo / "memhall-policy"), "--json"])

    assert unchanged.exit_code == 0, unchanged.output
    assert "No effective change in permissions." in unchanged.output
    assert changed.exit_code == 0, changed.output
    assert json.loads(changed.output)["changes"][0]["principal"] == "gemini"


def test_diff_against_an_unknown_revision_is_one_line_on_stderr(runner: CliRunner, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    init_policy_dir(repo / "memhall-policy")

    result = runner.invoke(policy, ["diff", "--base", "nope", str(repo / "memhall-policy")])

    assert result.exit_code == 1
    assert result.stderr == "error: unknown git revision 'nope'\n"


def test_diff_needs_a_base_revision(runner: CliRunner) -> None:
    result = runner.invoke(policy, ["diff"])

    assert result.exit_code == 2


def test_check_names_the_digest_it_would_adopt(runner: CliRunner, policy_dir: Path) -> None:
    result = runner.invoke(policy, ["check", str(policy_dir), "--json"])

    assert json.loads(result.stdout)["digest"] == policy_digest(read_policy_dir(policy_dir))


def test_check_reports_a_broken_allowed_signers_line(runner: CliRunner, policy_dir: Path) -> None:
    (policy_dir / "allowed_signers").write_text("# owners\nmaki ssh-ed25519\n")

    result = runner.invoke(policy, ["check", str(policy_dir)])

    assert result.exit_code == 1
    assert f"error: {policy_dir}/allowed_signers:2: missing key" in result.stdout
