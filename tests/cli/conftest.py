"""CLI fixtures: the real CLI, in-process (CliRunner) and as a subprocess."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from memhall.cli.context import App
from memhall.cli.main import cli
from tests.processes import run_memhall

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
            input: str | None = None, fresh: bool = False) -> subprocess.CompletedProcess[str]:
    """Run `python -m memhall ARGS` as a process of its own (a fork of this worker; a fresh
    interpreter with `fresh=True`: see tests/processes.py)."""
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    for key in ("MEMHALL_AGENT", "MEMHALL_DOMAIN", "MEMHALL_SESSION", "MEMHALL_POLICY"):
        if env is None or key not in env:
            full_env.pop(key, None)
    return run_memhall(args, cwd=cwd, env=full_env, input=input, fresh=fresh)
