"""CLI fixtures: the real CLI, in-process (CliRunner) and as a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from memhall.cli.context import App
from memhall.cli.main import cli

ROOT = Path(__file__).resolve().parents[2]

Invoke = Callable[..., Result]


@pytest.fixture
def memhall(store_url: str) -> Invoke:
    """Run `memhall ARGS` in-process against the test store."""
    runner = CliRunner()

    def invoke(*args: str, input: str | None = None) -> Result:
        return runner.invoke(cli, ["--store", store_url, *args], obj=App(), input=input,
                             catch_exceptions=False)

    return invoke


def run_cli(args: list[str], *, cwd: Path, env: dict[str, str] | None = None,
            input: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run the installed entry point as a real process."""
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    for key in ("MEMHALL_AGENT", "MEMHALL_DOMAIN", "MEMHALL_SESSION", "MEMHALL_POLICY"):
        if env is None or key not in env:
            full_env.pop(key, None)
    return subprocess.run([sys.executable, "-m", "memhall", *args], cwd=cwd, env=full_env,
                          capture_output=True, text=True, input=input, timeout=120)
