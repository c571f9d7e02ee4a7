"""`memhall mcp` as a command: what it needs before it serves, and what it
never costs the other commands."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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
    assert "pass --as NAME or set MEMHALL_AGENT" in output


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
