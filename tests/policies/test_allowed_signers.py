"""allowed_signers is read as git and ssh-keygen read it, and a bad line names its file and line."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memhall.domains.errors import PolicyConfigError
from memhall.policies.files import read_policy_dir
from memhall.policies.signers import AllowedSigners, matches_pattern_list
from tests.policies.conftest import KeyPair, ssh_keygen

FILE = "memhall-policy/allowed_signers"


def parse(*lines: str) -> AllowedSigners:
    return AllowedSigners.parse("\n".join(lines) + "\n", FILE)


def parse_error(*lines: str) -> str:
    with pytest.raises(PolicyConfigError) as caught:
        parse(*lines)
    assert caught.value.exit_code == 3
    return str(caught.value)


def test_a_plain_line_names_a_principal_and_its_key(keys: dict[str, KeyPair]) -> None:
    key = keys["ed25519"]

    signers = parse(f"maki {key.public} maki@laptop")

    (signer,) = signers.keys
    assert (signer.principals, signer.key.openssh, signer.comment) == ("maki", key.public, "maki@laptop")
    assert signer.where == f"{FILE}:1"
    assert signers.has_key("maki") and not signers.has_key("codex")


def test_comments_and_blank_lines_are_skipped_and_lines_keep_their_numbers(keys: dict[str, KeyPair]) -> None:
    signers = parse("# owners", "", "   ", f"maki {keys['ed25519'].public}")

    assert [signer.where for signer in signers.keys] == [f"{FILE}:4"]


def test_options_are_read(keys: dict[str, KeyPair]) -> None:
    line = f'maki,ops namespaces="memhall,git",valid-after="20260101Z",valid-before="202701011230Z" {keys["rsa"].public}'

    (signer,) = parse(line).keys

    assert signer.namespaces == "memhall,git"
    assert signer.valid_after == datetime(2026, 1, 1, tzinfo=UTC)
    assert signer.valid_before == datetime(2027, 1, 1, 12, 30, tzinfo=UTC)


def test_a_quoted_principal_list_and_a_quoted_option_may_hold_blanks(keys: dict[str, KeyPair]) -> None:
    (signer,) = parse(f'"maki,ops" namespaces="memhall, git" {keys["ecdsa"].public}').keys

    assert signer.principals == "maki,ops"
    assert signer.namespaces == "memhall, git"


def test_keys_of_follows_openssh_patterns(keys: dict[str, KeyPair]) -> None:
    signers = parse(f"maki,ops-* {keys['ed25519'].public}", f"*,!codex {keys['rsa'].public}")

    assert len(signers.keys_of("maki")) == 2
    assert len(signers.keys_of("ops-night")) == 2
    assert len(signers.keys_of("gemini")) == 1
    assert signers.keys_of("codex") == ()


def test_pattern_lists_match_as_openssh_matches_them() -> None:
    assert matches_pattern_list("maki", "codex,ma?i")
    assert not matches_pattern_list("maki", "*,!maki")
    assert not matches_pattern_list("maki", "!codex")  # a negation alone allows no one
    assert not matches_pattern_list("Maki", "maki")
    assert matches_pattern_list("a.b", "a.*") and not matches_pattern_list("axb", "a.b")


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("maki", "invalid line"),
        ('maki namespaces="memhall"', "missing key"),
        ("maki ssh-ed25519 !!!notbase64", "invalid key"),
        ("maki ssh-ed25519 AAAAC3NzaC1lZDI1NTE5", "invalid key"),
        ("maki ssh-dss AAAAB3NzaC1kc3M=", "key type ssh-dss is not supported"),
        ("maki sk-ssh-ed25519@openssh.com AAAA", "is not supported"),
        ("maki cert-authority {ed25519}", "cert-authority is not supported"),
        ("maki no-touch-required {ed25519}", "unknown option 'no-touch-required'"),
        ("maki namespaces=memhall {ed25519}", "values must be quoted"),
        ('maki namespaces="a",namespaces="b" {ed25519}', "more than one namespaces"),
        ('maki valid-after="20260101" {ed25519}', 'has no time zone: add Z (UTC), as in "20260101Z"'),
        ('maki valid-after="2026-01-01Z" {ed25519}', "is not YYYYMMDD[HHMM[SS]]Z"),
        ('maki valid-after="20261301Z" {ed25519}', "is not a date"),
        ('maki valid-after="20270101Z",valid-before="20260101Z" {ed25519}', "valid-before is not after"),
        ('"maki {ed25519}', "unterminated quote"),
        ("maki ssh-rsa {ed25519_blob}", "not ssh-rsa"),
    ],
)
def test_a_bad_line_fails_closed_naming_its_file_and_line(keys: dict[str, KeyPair], line: str, reason: str) -> None:
    ed25519 = keys["ed25519"].public
    text = line.format(ed25519=ed25519, ed25519_blob=ed25519.split()[1])

    message = parse_error(f"codex {keys['rsa'].public}", text)

    assert message.startswith(f"{FILE}:2: ")
    assert reason in message
    assert "\n" not in message


def test_the_policy_folder_carries_its_allowed_signers(policy_dir: Path, keys: dict[str, KeyPair]) -> None:
    (policy_dir / "allowed_signers").write_text(f"maki {keys['ed25519'].public}\n")

    signers = AllowedSigners.of(read_policy_dir(policy_dir))

    assert signers.has_key("maki")
    assert signers.keys[0].where == f"{policy_dir}/allowed_signers:1"


def test_a_policy_folder_without_allowed_signers_lists_no_one(policy_dir: Path) -> None:
    assert AllowedSigners.of(read_policy_dir(policy_dir)).keys == ()
    assert AllowedSigners.of(read_policy_dir(None)).keys == ()


def test_ssh_keygen_reads_the_same_principals_from_the_file(keys: dict[str, KeyPair], tmp_path: Path) -> None:
    lines = ["# people", f'maki,ops-*,!ops-bot namespaces="memhall" {keys["ed25519"].public} laptop',
             f"codex {keys['rsa'].public}"]
    path = tmp_path / "allowed_signers"
    path.write_text("\n".join(lines) + "\n")
    signature = _signature(keys["ed25519"], tmp_path)

    def ssh_keygen_accepts(principal: str) -> bool:
        done = ssh_keygen("-Y", "verify", "-f", str(path), "-I", principal, "-n", "memhall",
                          "-s", str(signature), stdin=b"act")
        return done.returncode == 0

    found = ssh_keygen("-Y", "find-principals", "-f", str(path), "-s", str(signature))

    assert found.stdout.decode().split() == ["maki", "ops-*", "!ops-bot"]
    for principal in ("maki", "ops-night", "ops-bot", "codex"):
        ours = any(k.key.openssh == keys["ed25519"].public for k in parse(*lines).keys_of(principal))
        assert ours is ssh_keygen_accepts(principal), principal


def _signature(key: KeyPair, tmp_path: Path) -> Path:
    message = tmp_path / "act"
    message.write_bytes(b"act")
    assert ssh_keygen("-Y", "sign", "-n", "memhall", "-f", str(key.path), str(message)).returncode == 0
    return tmp_path / "act.sig"


@given(st.text(alphabet="abmk*?!-", min_size=1, max_size=6), st.text(alphabet="abmk-", min_size=1, max_size=5))
def test_a_name_matches_a_list_when_it_matches_one_of_its_patterns_and_no_negation(patterns: str, name: str) -> None:
    items = patterns.split(",")
    positive = [p for p in items if not p.startswith("!")]
    negative = [p[1:] for p in items if p.startswith("!")]

    expected = any(matches_pattern_list(name, p) for p in positive) and not any(
        matches_pattern_list(name, p) for p in negative
    )

    assert matches_pattern_list(name, patterns) is expected
