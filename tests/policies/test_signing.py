"""Signatures over binding acts: made and checked in-process, and agreeing with OpenSSH's ssh-keygen."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from memhall.domains.errors import InvalidValueError, SignatureError, SigningKeyError
from memhall.policies.signers import AllowedSigners
from memhall.policies.signing import sign, sign_with_ssh_keygen, signer_of, verify
from memhall.policies.sshkeys import create_key_file
from tests.policies.conftest import KeyPair, ssh_keygen

ACT = b'{"action":"ratify","memhall":"act-v1"}'
NOW = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
KEY_TYPES = ["ed25519", "ecdsa", "ecdsa384", "ecdsa521", "rsa"]


def allowed(*lines: str) -> AllowedSigners:
    return AllowedSigners.parse("\n".join(lines) + "\n", "memhall-policy/allowed_signers")


def signers_file(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "allowed_signers"
    path.write_text("\n".join(lines) + "\n")
    return path


def refusal(message: bytes, signature: str, signers: AllowedSigners, principal: str = "maki",
            at: datetime = NOW) -> str:
    with pytest.raises(SignatureError) as caught:
        verify(message, signature, signers, principal, at=at)
    assert caught.value.exit_code == 3
    return str(caught.value)


@pytest.mark.parametrize("kind", KEY_TYPES)
def test_a_signature_made_in_process_verifies_in_process(keys: dict[str, KeyPair], kind: str) -> None:
    key = keys[kind]

    signer = verify(ACT, sign(ACT, key.path), allowed(key.signer_line("maki")), "maki", at=NOW)

    assert signer.where == "memhall-policy/allowed_signers:1"
    assert signer.key.openssh == key.public


@pytest.mark.parametrize("kind", KEY_TYPES)
def test_ssh_keygen_verifies_a_signature_made_in_process(
    keys: dict[str, KeyPair], kind: str, tmp_path: Path
) -> None:
    key = keys[kind]
    signature = tmp_path / "act.sig"
    signature.write_text(sign(ACT, key.path))

    done = ssh_keygen("-Y", "verify", "-f", str(signers_file(tmp_path, key.signer_line("maki"))),
                      "-I", "maki", "-n", "memhall", "-s", str(signature), stdin=ACT)

    assert done.returncode == 0, done.stderr
    assert b'Good "memhall" signature for maki' in done.stdout


@pytest.mark.parametrize("kind", KEY_TYPES)
def test_a_signature_made_by_ssh_keygen_verifies_in_process(keys: dict[str, KeyPair], kind: str) -> None:
    key = keys[kind]

    signature = sign_with_ssh_keygen(ACT, key.path)

    assert verify(ACT, signature, allowed(key.signer_line("maki")), "maki", at=NOW).key.openssh == key.public


def test_an_ed25519_signature_is_byte_for_byte_what_ssh_keygen_makes(keys: dict[str, KeyPair]) -> None:
    key = keys["ed25519"].path

    assert sign(ACT, key) == sign_with_ssh_keygen(ACT, key)


def test_a_sha256_signature_from_ssh_keygen_verifies_too(keys: dict[str, KeyPair], tmp_path: Path) -> None:
    key = keys["ed25519"]
    message = tmp_path / "act"
    message.write_bytes(ACT)
    done = ssh_keygen("-Y", "sign", "-n", "memhall", "-O", "hashalg=sha256", "-f", str(key.path), str(message))
    assert done.returncode == 0, done.stderr

    signature = (tmp_path / "act.sig").read_text()

    assert verify(ACT, signature, allowed(key.signer_line("maki")), "maki", at=NOW).key.openssh == key.public


def test_ssh_keygen_check_novalidate_accepts_the_in_process_signature(
    keys: dict[str, KeyPair], tmp_path: Path
) -> None:
    signature = tmp_path / "act.sig"
    signature.write_text(sign(ACT, keys["rsa"].path))

    done = ssh_keygen("-Y", "check-novalidate", "-n", "memhall", "-s", str(signature), stdin=ACT)

    assert done.returncode == 0, done.stderr


def test_ssh_keygen_refuses_an_in_process_signature_over_other_content(
    keys: dict[str, KeyPair], tmp_path: Path
) -> None:
    signature = tmp_path / "act.sig"
    signature.write_text(sign(ACT, keys["ed25519"].path))

    done = ssh_keygen("-Y", "check-novalidate", "-n", "memhall", "-s", str(signature), stdin=ACT + b" ")

    assert done.returncode != 0


def test_a_signature_over_other_content_is_refused(keys: dict[str, KeyPair]) -> None:
    key = keys["ed25519"]
    signature = sign(ACT, key.path)

    reason = refusal(ACT.replace(b"ratify", b"reject"), signature, allowed(key.signer_line("maki")))

    assert "does not match the signed content" in reason


def test_a_damaged_signature_is_refused_in_one_line(keys: dict[str, KeyPair]) -> None:
    key = keys["ed25519"]
    lines = sign(ACT, key.path).splitlines()
    lines[2] = lines[2][:10] + ("A" if lines[2][10] != "A" else "B") + lines[2][11:]

    reason = refusal(ACT, "\n".join(lines), allowed(key.signer_line("maki")))

    assert "\n" not in reason


def test_text_that_is_not_a_signature_is_refused(keys: dict[str, KeyPair]) -> None:
    assert "not an SSH signature" in refusal(ACT, "approved, maki", allowed(keys["ed25519"].signer_line("maki")))


def test_a_signature_for_another_namespace_is_refused(keys: dict[str, KeyPair]) -> None:
    key = keys["ed25519"]

    reason = refusal(ACT, sign(ACT, key.path, namespace="git"), allowed(key.signer_line("maki")))

    assert reason == "the signature is for namespace 'git', not 'memhall'"


def test_a_key_listed_for_someone_else_does_not_sign_for_maki(keys: dict[str, KeyPair]) -> None:
    codex, maki = keys["other-ed25519"], keys["ed25519"]
    signers = allowed(maki.signer_line("maki"), codex.signer_line("codex"))

    reason = refusal(ACT, sign(ACT, codex.path), signers)

    assert "does not list for maki" in reason
    assert signer_of(sign(ACT, codex.path)).fingerprint in reason


def test_a_principal_without_any_key_is_refused(keys: dict[str, KeyPair]) -> None:
    key = keys["ed25519"]

    reason = refusal(ACT, sign(ACT, key.path), allowed(key.signer_line("maki")), principal="codex")

    assert reason == "codex has no key in memhall-policy/allowed_signers"


def test_a_key_restricted_to_other_namespaces_is_refused(keys: dict[str, KeyPair]) -> None:
    key = keys["ed25519"]

    reason = refusal(ACT, sign(ACT, key.path), allowed(key.signer_line("maki", 'namespaces="git,file"')))

    assert reason.startswith("memhall-policy/allowed_signers:1: ")
    assert "not allowed for namespace 'memhall'" in reason


def test_a_key_is_refused_before_valid_after_and_after_valid_before(keys: dict[str, KeyPair]) -> None:
    key = keys["ed25519"]
    signature = sign(ACT, key.path)
    window = allowed(key.signer_line("maki", 'valid-after="20260101Z",valid-before="20261231235959Z"'))

    early = refusal(ACT, signature, window, at=datetime(2025, 12, 31, 23, 59, tzinfo=UTC))
    late = refusal(ACT, signature, window, at=datetime(2027, 1, 1, tzinfo=UTC))

    assert "not valid before 2026-01-01 00:00:00Z" in early
    assert "expired at 2026-12-31 23:59:59Z" in late
    assert verify(ACT, signature, window, "maki", at=NOW).where.endswith(":1")


def test_a_later_line_for_the_same_key_can_still_allow_it(keys: dict[str, KeyPair]) -> None:
    key = keys["ed25519"]
    signers = allowed(key.signer_line("maki", 'valid-before="20200101Z"'), key.signer_line("maki"))

    assert verify(ACT, sign(ACT, key.path), signers, "maki", at=NOW).where.endswith(":2")


def test_a_passphrase_protected_key_asks_for_its_passphrase(tmp_path: Path) -> None:
    path = tmp_path / "id_ed25519"
    public = create_key_file(path, "maki", passphrase=b"correct horse")
    signers = allowed(f"maki {public.openssh}")

    with pytest.raises(SigningKeyError) as locked:
        sign(ACT, path)
    with pytest.raises(SigningKeyError):
        sign(ACT, path, passphrase=b"wrong")
    signature = sign(ACT, path, passphrase=b"correct horse")

    assert locked.value.needs_passphrase
    assert verify(ACT, signature, signers, "maki", at=NOW).key == public


def test_a_public_key_file_cannot_sign_in_process(keys: dict[str, KeyPair]) -> None:
    public = keys["ed25519"].path.with_name("ed25519.pub")

    with pytest.raises(SigningKeyError, match="not a usable private key"):
        sign(ACT, public)


def test_a_missing_key_file_is_one_clear_line(tmp_path: Path) -> None:
    with pytest.raises(SigningKeyError, match="cannot read the key file"):
        sign(ACT, tmp_path / "nowhere")
    with pytest.raises(SigningKeyError, match="ssh-keygen could not sign"):
        sign_with_ssh_keygen(ACT, tmp_path / "nowhere")


def test_a_verification_time_without_a_zone_is_refused(keys: dict[str, KeyPair]) -> None:
    key = keys["ed25519"]

    with pytest.raises(InvalidValueError, match="time zone"):
        verify(ACT, sign(ACT, key.path), allowed(key.signer_line("maki")), "maki", at=datetime(2026, 5, 1))
