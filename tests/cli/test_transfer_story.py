"""Import and export as real processes: quiet on a pipe, idempotent by line, the same JSONL back."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import run_cli

ROWS = [{"text": f"deploy step {i}", "kind": "state", "layer": "L2", "tags": ["deploy"], "key": f"s{i}",
         **({"supersedes": f"s{i - 1}"} if i else {})} for i in range(3)]


def test_import_then_export_gives_the_same_lines_back(tmp_path: Path, store_url: str) -> None:
    env = {"MEMHALL_AGENT": "codex", "MEMHALL_DOMAIN": "company"}
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    assert run_cli(["--store", store_url, "--as", "maki", "domain", "create", "company"], cwd=tmp_path,
                   env=env).returncode == 0

    piped = run_cli(["--store", store_url, "import", "-"], cwd=tmp_path, env=env, input=source.read_text())
    again = run_cli(["--store", store_url, "--json", "import", str(source)], cwd=tmp_path, env=env)
    exported = run_cli(["--store", store_url, "export"], cwd=tmp_path, env=env)
    bad = run_cli(["--store", store_url, "import", "-"], cwd=tmp_path, env=env, input='{"txt": "typo"}\n')

    assert piped.returncode == 0 and piped.stderr == "" and "imported 3 of 3 lines" in piped.stdout
    assert json.loads(again.stdout) == {"read": 3, "written": 0, "already_imported": 3, "duplicates": 0}
    back = [json.loads(line) for line in exported.stdout.splitlines()]
    assert [(b["key"], b["text"], b.get("supersedes")) for b in back] == [
        (r["key"], r["text"], r.get("supersedes")) for r in ROWS]
    assert bad.returncode == 1 and "line 1: unknown field 'txt'" in bad.stderr
