"""The layers import one way (import-linter contracts in pyproject.toml)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_import_contracts_are_kept() -> None:
    linter = Path(sys.executable).parent / "lint-imports"

    done = subprocess.run([str(linter)], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={"PYTHONPATH": str(ROOT), "PATH": str(linter.parent)})

    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout
