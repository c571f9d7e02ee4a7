"""`memhall keys init | list`, with HOME inside tmp_path: the real home directory is never touched."""

from __future__ import annotations

import json
import stat
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from memhall.cli.context import App
from memhall.cli.main import cli
from memhall.domains.errors import SigningKeyError
from memhall.policies.engine import init_policy_dir
from memhall.policies.signers import AllowedSigners
from memhall.policies.signing import sign, verify
from tests.cli.conftest import run_cli
from tests.policies.conftest import ssh_keygen

ACT = b'{"action":"ratify","memhall":"act-v1"}'


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("MEMHALL_POLICY", raising=False)
    monkeypatch.delenv("MEMHALL_AGENT", raising=False)
    monkeypatch.chdir(tmp_path)
    return home


def memhall(*args: str, input: str | None = None) -> Result:
    return CliRunner().invoke(cli, list(args), obj=App(), input=input)


def test_init_creates_the_default_key_and_prints_a_line_that_verifies_its_signatures(
    home: Path, tmp_path: Path
) -> None:
    result = memhall("keys", "init", "--principal", "maki", "--no-passphrase")

    key = home / ".ssh" / "id_ed25519"
    assert result.exit_code == 0, result.output
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert stat.S_IMODE(key.parent.stat().st_mode) == 0o700
    line = result.stdout.strip()
    assert line.startswith('maki namespaces="memhall" ssh-ed25519 ')
    assert "add this line to memhall-policy/allowed_signers" in result.stderr
    signers = AllowedSigners.parse(line, "allowed_signers")
    assert verify(ACT, sign(ACT, key), signers, "maki", at=datetime.now(UTC)).where == "allowed_signers:1"


def test_ssh_keygen_accepts_the_printed_line_and_the_new_key(home: Path, tmp_path: Path) -> None:
    line = memhall("keys", "init", "--principal", "maki", "--no-passphrase").stdout
    (tmp_path / "allowed_signers").write_text(line)
    (tmp_path / "act").write_bytes(ACT)

    signed = ssh_keygen("-Y", "sign", "-n", "memhall", "-f", str(home / ".ssh" / "id_ed25519"), str(tmp_path / "act"))
    checked = ssh_keygen("-Y", "verify", "-f", str(tmp_path / "allowed_signers"), "-I", "maki", "-n", "memhall",
                         "-s", str(tmp_path / "act.sig"), stdin=ACT)

    assert signed.returncode == 0, signed.stderr
    assert checked.returncode == 0, checked.stderr


def test_init_never_overwrites_an_existing_default_key(home: Path) -> None:
    existing = home / ".ssh" / "id_ed25519"
    existing.parent.mkdir()
    existing.write_text("the user's own key")

    result = memhall("keys", "init", "--principal", "maki", "--no-passphrase")

    assert result.exit_code == 1
    assert "already exists" in result.stderr and "pass --file PATH" in result.stderr
    assert existing.read_text() == "the user's own key"
    assert not existing.with_name("id_ed25519.pub").exists()


def test_init_writes_where_file_says_and_never_over_an_existing_file(home: Path, tmp_path: Path) -> None:
    target = tmp_path / "keys" / "maki"

    first = memhall("keys", "init", "--principal", "maki", "--file", str(target), "--no-passphrase")
    written = target.read_bytes()
    second = memhall("keys", "init", "--principal", "maki", "--file", str(target), "--no-passphrase")

    assert first.exit_code == 0, first.output
    assert second.exit_code == 1
    assert target.read_bytes() == written
    assert not (home / ".ssh").exists()


def test_init_asks_for_a_passphrase_and_locks_the_key_with_it(home: Path) -> None:
    result = memhall("keys", "init", "--principal", "maki", input="open sesame\nopen sesame\n")

    key = home / ".ssh" / "id_ed25519"
    assert result.exit_code == 0, result.output
    with pytest.raises(SigningKeyError) as locked:
        sign(ACT, key)
    assert locked.value.needs_passphrase
    assert ssh_keygen("-y", "-P", "open sesame", "-f", str(key)).returncode == 0
    assert sign(ACT, key, passphrase=b"open sesame").startswith("-----BEGIN SSH SIGNATURE-----")


def test_init_signs_for_the_acting_principal_by_default_and_needs_one(home: Path) -> None:
    named = memhall("--as", "maki", "keys", "init", "--no-passphrase", "--json")
    nameless = memhall("keys", "init", "--file", "other", "--no-passphrase")
    odd = memhall("keys", "init", "--principal", "maki,codex", "--file", "odd", "--no-passphrase")

    assert json.loads(named.stdout)["principal"] == "maki"
    assert nameless.exit_code == 2
    assert odd.exit_code == 1 and "cannot be named in allowed_signers" in odd.stderr


def test_list_shows_the_allowed_signers_of_the_policy_folder(home: Path, tmp_path: Path) -> None:
    init_policy_dir(tmp_path / "memhall-policy")
    line = memhall("keys", "init", "--principal", "maki", "--no-passphrase").stdout.strip()
    (tmp_path / "memhall-policy" / "allowed_signers").write_text(f"# owners\n{line} maki@laptop\n")

    text = memhall("keys", "list")
    listed = json.loads(memhall("keys", "list", "--json").stdout)

    assert text.exit_code == 0, text.output
    assert text.stdout.startswith("maki  ssh-ed25519 SHA256:")
    assert "(namespaces memhall) maki@laptop" in text.stdout
    assert listed[0]["where"].endswith("memhall-policy/allowed_signers:2")
    assert listed[0]["principals"] == "maki" and listed[0]["fingerprint"].startswith("SHA256:")


def test_list_without_allowed_signers_says_no_one_signs_yet(home: Path) -> None:
    result = memhall("keys", "list")

    assert result.exit_code == 0
    assert result.stdout == ""
    assert "no allowed signers in the built-in default policy" in result.stderr


def test_list_refuses_a_broken_allowed_signers_naming_its_line(home: Path, tmp_path: Path) -> None:
    policy = tmp_path / "policy"
    init_policy_dir(policy)
    (policy / "allowed_signers").write_text("maki cert-authority ssh-ed25519 AAAA\n")

    result = memhall("--policy", str(policy), "keys", "list")

    assert result.exit_code == 3
    assert f"{policy}/allowed_signers:1: cert-authority is not supported" in result.stderr


def test_the_installed_command_creates_a_key_under_home(tmp_path: Path) -> None:
    home = tmp_path / "home"

    done = run_cli(["keys", "init", "--principal", "maki", "--no-passphrase"], cwd=tmp_path,
                   env={"HOME": str(home)})

    assert done.returncode == 0, done.stderr
    assert (home / ".ssh" / "id_ed25519").is_file()
    assert done.stdout.startswith('maki namespaces="memhall" ssh-ed25519 ')
