"""`memhall mcp` as a command: what it needs before it serves, and what it
never costs the other commands."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from memhall.cli.context import App
from memhall.cli.main import cli
from memhall.governance.hall import Hall

ROOT = Path(__file__).resolve().parents[2]


def mcp(store_url: str, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["--store", store_url, "mcp", *args], obj=App())
    return result.exit_code, result.output


def test_without_a_domain_it_names_the_domains_of_the_store(hall: Hall, store_url: str) -> None:
    code, output = mcp(store_url, "--as", "codex")

    assert code == 1
    assert "no domain: pass --domain NAME (this store has company, family)" in output


def test_an_unknown_domain_fails_at_start(hall: Hall, store_url: str) -> None:
    code, output = mcp(store_url, "--as", "codex", "--domain", "sales")

    assert code == 1
    assert "unknown domain 'sales'" in output


def test_without_an_identity_it_says_how_to_give_one(hall: Hall, store_url: str) -> None:
    code, output = mcp(store_url, "--domain", "company")

    assert code == 1
    assert "pass --as NAME, set MEMHALL_AGENT, or set `as` in .memhall/config.toml" in output


def test_a_human_of_roles_yaml_is_never_served(hall: Hall, store_url: str) -> None:
    code, output = mcp(store_url, "--as", "maki", "--domain", "company")

    assert code == 1
    assert "maki is a human in roles.yaml, and memhall mcp acts for an agent: pass --as AGENT" in output


def test_the_projects_config_gives_its_identity_and_domain(
        hall: Hall, store_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".memhall").mkdir()
    (tmp_path / ".memhall" / "config.toml").write_text('as = "maki"\ndomain = "sales"\n')
    monkeypatch.chdir(tmp_path)

    refused = mcp(store_url)
    unknown = mcp(store_url, "--as", "codex")

    assert refused[0] == 1 and "maki is a human in roles.yaml" in refused[1]
    assert unknown[0] == 1 and "unknown domain 'sales'" in unknown[1]


def test_other_commands_never_import_the_mcp_sdk(hall: Hall, store_url: str, tmp_path: Path) -> None:
    script = (
        "import sys\n"
        "from memhall.cli.main import main\n"
        f"for argv in (['--help'], ['--store', {store_url!r}, '--as', 'codex', '--domain', 'company',"
        " 'handoff']):\n"
        "    try:\n        main(argv)\n    except SystemExit:\n        pass\n"
        "print('mcp loaded:', 'mcp' in sys.modules, file=sys.stderr)\n"
    )

    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120, env={"PYTHONPATH": str(ROOT), "PATH": ""})

    assert "mcp " in done.stdout  # listed in the help
    assert "mcp loaded: False" in done.stderr
