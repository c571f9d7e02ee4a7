"""The store remembers where its checkpoints live; wrap-up checkpoints in a git work tree (issue 10 §2)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

from memhall.audit import checkpoints
from memhall.audit.checkpoints import Checkpoint
from tests.cli.conftest import ROOT, run_cli


def project(tmp_path: Path, *, git: bool) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    if git:
        (folder / ".git").mkdir()  # a work tree is all `init` looks for
    assert run_cli(["init"], cwd=folder).returncode == 0
    assert run_cli(["--as", "maki", "domain", "create", "company"], cwd=folder).returncode == 0
    return folder


def wrap_up(folder: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    opened = run_cli(["--as", "codex", "--domain", "company", "--json", "handoff"], cwd=folder)
    session = json.loads(opened.stdout)["session_id"]
    return run_cli(["--as", "codex", "--domain", "company", "wrap-up", "-s", "done for today", *extra],
                   cwd=folder, env={"MEMHALL_SESSION": session})


def test_in_a_git_work_tree_every_wrap_up_appends_a_checkpoint_unless_told_not_to(tmp_path: Path) -> None:
    folder = project(tmp_path, git=True)
    file = folder / "memhall-audit" / "checkpoints.jsonl"

    assert wrap_up(folder).returncode == 0
    assert wrap_up(folder, "--no-checkpoint").returncode == 0

    assert len(checkpoints.load(file)) == 2  # company and the system stream, once


def test_outside_git_a_wrap_up_checkpoints_only_when_asked(tmp_path: Path) -> None:
    folder = project(tmp_path, git=False)
    file = folder / "memhall-audit" / "checkpoints.jsonl"

    assert wrap_up(folder).returncode == 0
    assert not file.exists()
    assert wrap_up(folder, "--checkpoint").returncode == 0
    assert file.exists()


def test_verify_run_anywhere_holds_the_store_to_its_own_checkpoints_and_catches_a_rollback(
    tmp_path: Path
) -> None:
    folder = project(tmp_path, git=True)
    store = folder / ".memhall" / "memhall.db"
    older = tmp_path / "older.db"
    shutil.copy(store, older)
    assert wrap_up(folder).returncode == 0
    shutil.copy(older, store)
    for suffix in ("-wal", "-shm"):
        Path(f"{store}{suffix}").unlink(missing_ok=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    verified = run_cli(["--store", str(store), "audit", "verify"], cwd=elsewhere)

    assert verified.returncode == 4, verified.stdout + verified.stderr
    assert "truncated" in verified.stderr


def test_checkpoint_file_is_remembered_by_the_store(tmp_path: Path) -> None:
    folder = project(tmp_path, git=False)
    chosen = tmp_path / "audit" / "heads.jsonl"

    assert run_cli(["audit", "checkpoint", "--file", str(chosen)], cwd=folder).returncode == 0
    again = run_cli(["audit", "checkpoint"], cwd=folder)
    verified = run_cli(["audit", "verify"], cwd=tmp_path / "audit", env={"MEMHALL_STORE": str(
        folder / ".memhall" / "memhall.db")})

    assert again.returncode == 0 and len(checkpoints.load(chosen)) == 4
    assert "checkpoints match" in verified.stdout and "WARNING" not in verified.stderr


def test_verify_without_any_checkpoint_says_loudly_what_it_cannot_detect(tmp_path: Path) -> None:
    folder = project(tmp_path, git=False)

    verified = run_cli(["audit", "verify"], cwd=folder)

    assert verified.returncode == 0
    assert "WARNING: no checkpoint" in verified.stderr and "CANNOT be detected" in verified.stderr


APPENDER = """
import sys
from datetime import datetime, timezone
from pathlib import Path
from memhall.audit.checkpoints import Checkpoint, append
lines = [Checkpoint(domain=f"d{n}", position=n, head="a" * 64, at=datetime.now(timezone.utc), store="s" * 36)
         for n in range(3)]
for _ in range(25):
    append(Path(sys.argv[1]), lines)
"""


def test_concurrent_appends_leave_only_whole_lines(tmp_path: Path) -> None:
    file = tmp_path / "checkpoints.jsonl"

    writers = [subprocess.Popen([sys.executable, "-c", APPENDER, str(file)], cwd=ROOT) for _ in range(4)]
    assert [w.wait(timeout=120) for w in writers] == [0, 0, 0, 0]

    found = checkpoints.load(file)
    assert len(found) == 4 * 25 * 3
    assert all(isinstance(c, Checkpoint) and c.at <= datetime.now(timezone.utc) for c in found)


def test_a_checkpoint_taken_by_a_human_with_a_key_is_signed_and_a_forged_line_fails_verify(
    tmp_path: Path
) -> None:
    from memhall.policies.sshkeys import create_key_file

    folder = project(tmp_path, git=False)
    key = tmp_path / "maki_key"
    public = create_key_file(key, comment="memhall:maki")
    (folder / "memhall-policy" / "allowed_signers").write_text(f'maki namespaces="memhall" {public.openssh}\n')
    assert run_cli(["--as", "maki", "policy", "adopt"], cwd=folder).returncode == 0
    file = folder / "memhall-audit" / "checkpoints.jsonl"

    taken = run_cli(["--as", "maki", "audit", "checkpoint", "--key", str(key)], cwd=folder)
    assert taken.returncode == 0, taken.stderr
    lines = checkpoints.load(file)
    assert lines and all(c.by == "maki" and c.signature for c in lines)
    assert run_cli(["audit", "verify"], cwd=folder).returncode == 0

    forged = [c.model_copy(update={"at": c.at.replace(year=c.at.year - 1)}) for c in lines]
    file.write_text("".join(c.model_dump_json() + "\n" for c in forged))
    verified = run_cli(["audit", "verify"], cwd=folder)
    assert verified.returncode == 4 and "does not verify" in verified.stderr


def test_a_checkpoint_signed_with_a_key_only_the_policy_folder_knows_fails_verify(tmp_path: Path) -> None:
    """Whoever holds the files can add a key to allowed_signers on disk and sign forged lines
    with it; verify checks them against the allowed_signers the domain adopted."""
    from memhall.policies.sshkeys import create_key_file

    folder = project(tmp_path, git=False)
    key = tmp_path / "intruder_key"
    public = create_key_file(key, comment="memhall:maki")
    (folder / "memhall-policy" / "allowed_signers").write_text(f'maki namespaces="memhall" {public.openssh}\n')

    taken = run_cli(["--as", "maki", "audit", "checkpoint", "--key", str(key)], cwd=folder)
    assert taken.returncode == 0, taken.stderr
    assert all(c.signature for c in checkpoints.load(folder / "memhall-audit" / "checkpoints.jsonl"))

    verified = run_cli(["audit", "verify"], cwd=folder)
    assert verified.returncode == 4, verified.stdout
    assert "does not verify against the allowed_signers adopted then" in verified.stderr
