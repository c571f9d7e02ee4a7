"""`memhall hooks install`: merged into each agent's settings, idempotent, others' hooks kept."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from memhall.cli.context import App
from memhall.cli.main import cli

SOMEONE_ELSES = {"type": "command", "command": "notify-send done", "timeout": 5}


def install(*args: str) -> Result:
    return CliRunner().invoke(cli, ["hooks", "install", *args], obj=App(), catch_exceptions=False)


def commands(settings: dict[str, Any], event: str) -> list[str]:
    return [h["command"] for group in settings["hooks"][event] for h in group["hooks"]]


@pytest.fixture
def scratch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_claude_gets_its_four_events_beside_the_hooks_already_there(scratch: Path) -> None:
    settings_file = scratch / ".claude" / "settings.json"
    settings_file.parent.mkdir()
    settings_file.write_text(json.dumps({"model": "opus", "hooks": {"Stop": [{"hooks": [SOMEONE_ELSES]}]}}))

    result = install("claude", "--domain", "company")

    assert result.exit_code == 0
    settings = json.loads(settings_file.read_text())
    assert settings["model"] == "opus"
    assert commands(settings, "Stop") == ["notify-send done", "memhall hook stop --agent claude --domain company"]
    for event, verb in [("SessionStart", "session-start"), ("SessionEnd", "session-end"),
                        ("PreCompact", "pre-compact")]:
        assert commands(settings, event) == [f"memhall hook {verb} --agent claude --domain company"]
    assert settings["hooks"]["Stop"][1]["hooks"][0]["timeout"] == 30
    assert "+++ b/.claude/settings.json" in result.stdout


def test_codex_gets_hooks_json_with_session_start_stop_and_pre_compact(scratch: Path) -> None:
    result = install("codex")

    assert result.exit_code == 0
    settings = json.loads((scratch / ".codex" / "hooks.json").read_text())
    assert sorted(settings["hooks"]) == ["PreCompact", "SessionStart", "Stop"]
    handler = settings["hooks"]["SessionStart"][0]["hooks"][0]
    assert handler == {"type": "command", "command": "memhall hook session-start --agent codex",
                       "timeout": 30, "statusMessage": "memhall: reading the handoff"}
    assert "trust" in result.stderr


def test_gemini_gets_its_own_event_names_and_timeouts_in_milliseconds(scratch: Path) -> None:
    settings_file = scratch / ".gemini" / "settings.json"
    settings_file.parent.mkdir()
    settings_file.write_text(json.dumps({"hooks": {"AfterAgent": [{"matcher": "*", "hooks": [SOMEONE_ELSES]}]}}))

    assert install("gemini", "--command", "/opt/memhall/bin/memhall").exit_code == 0

    settings = json.loads(settings_file.read_text())
    assert sorted(settings["hooks"]) == ["AfterAgent", "PreCompress", "SessionEnd", "SessionStart"]
    assert settings["hooks"]["AfterAgent"][0] == {"matcher": "*", "hooks": [SOMEONE_ELSES]}
    handler = settings["hooks"]["AfterAgent"][1]["hooks"][0]
    assert handler["command"] == "/opt/memhall/bin/memhall hook stop --agent gemini"
    assert handler["timeout"] == 30_000 and handler["name"] == "memhall-stop"


@pytest.mark.parametrize("agent, path", [("claude", ".claude/settings.json"), ("codex", ".codex/hooks.json"),
                                         ("gemini", ".gemini/settings.json")])
def test_installing_twice_changes_nothing(scratch: Path, agent: str, path: str) -> None:
    install(agent)
    before = (scratch / path).read_bytes()

    again = install(agent)

    assert (again.exit_code, again.stdout) == (0, "")
    assert "nothing to change" in again.stderr
    assert (scratch / path).read_bytes() == before


def test_reinstalling_with_other_options_updates_memhalls_entry_in_place(scratch: Path) -> None:
    install("claude")

    install("claude", "--domain", "family")

    settings = json.loads((scratch / ".claude" / "settings.json").read_text())
    assert commands(settings, "SessionStart") == ["memhall hook session-start --agent claude --domain family"]


def test_a_dry_run_prints_the_diff_and_writes_nothing(scratch: Path) -> None:
    result = install("gemini", "--dry-run")

    assert result.exit_code == 0
    assert "+++ b/.gemini/settings.json" in result.stdout and '+    "SessionStart": [' in result.stdout
    assert not (scratch / ".gemini").exists()


def test_user_scope_writes_under_the_home_directory(scratch: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = scratch / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))

    assert install("claude", "--user").exit_code == 0

    assert (home / ".claude" / "settings.json").is_file()
    assert not (scratch / ".claude").exists()


def test_settings_that_are_not_plain_json_are_left_alone(scratch: Path) -> None:
    settings_file = scratch / ".gemini" / "settings.json"
    settings_file.parent.mkdir()
    settings_file.write_text('{\n  // my comment\n  "theme": "dark"\n}\n')

    result = CliRunner().invoke(cli, ["hooks", "install", "gemini"], obj=App())

    assert result.exit_code == 1
    assert "not plain JSON" in result.stderr
    assert "my comment" in settings_file.read_text()


def test_a_human_of_roles_yaml_is_never_baked_into_the_hooks(scratch: Path) -> None:
    result = CliRunner().invoke(cli, ["hooks", "install", "claude", "--as", "maki"], obj=App())
    agent = install("claude", "--as", "claude", "--dry-run")

    assert result.exit_code == 1
    assert result.stderr.strip() == ("error: maki is a human in roles.yaml, and hooks act for an agent: "
                                     "give --as the agent's own name")
    assert not (scratch / ".claude").exists()
    assert agent.exit_code == 0 and "--as claude" in agent.stdout
