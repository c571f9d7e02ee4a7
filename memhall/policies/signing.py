"""Signing a human's binding acts with an SSH key, and verifying them against allowed_signers.

The signatures are OpenSSH's sshsig, namespace `memhall`: `ssh-keygen -Y sign
-n memhall` makes the same ones, and `ssh-keygen -Y verify` accepts ours.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from datetime import datetime
from pathlib import Path

from memhall.domains.errors import InvalidValueError, SignatureError, SigningKeyError
from memhall.policies.acts import canonical_act
from memhall.policies.signers import AllowedSigners, SignerKey
from memhall.policies.sshkeys import PublicKey, load_private_key, sign_raw
from memhall.policies.sshsig import DEFAULT_HASH, SshSignature, signed_data

NAMESPACE = "memhall"
DEFAULT_KEY = Path("~/.ssh/id_ed25519")

__all__ = ["NAMESPACE", "canonical_act", "sign", "sign_with_ssh_keygen", "signer_of", "verify"]


def sign(message: bytes, key_path: Path, *, namespace: str = NAMESPACE,
         passphrase: bytes | None = None) -> str:
    """Sign in-process with an OpenSSH private key file; returns the armored signature.

    A key locked by a passphrase raises SigningKeyError with needs_passphrase
    set when none is given: ask for it and call again, or use ssh-keygen.
    """
    key = load_private_key(key_path, passphrase)
    return SshSignature(
        public_key=PublicKey.of(key), namespace=namespace, hash_algorithm=DEFAULT_HASH,
        signature=sign_raw(key, signed_data(message, namespace, DEFAULT_HASH)),
    ).armored()


def sign_with_ssh_keygen(message: bytes, key_path: Path, *, namespace: str = NAMESPACE) -> str:
    """Sign through `ssh-keygen -Y sign -n NAMESPACE -f KEY`, so ssh-agent or a security key serves.

    KEY may be a public key whose private half ssh-agent holds. ssh-keygen asks
    for a passphrase on the terminal itself; the message goes through a private
    temporary file, keeping stdin free for that.
    """
    program = shutil.which("ssh-keygen")
    if program is None:
        raise SigningKeyError("ssh-keygen is not installed: install OpenSSH's client, or sign with --key")
    with tempfile.TemporaryDirectory(prefix="memhall-sign-") as scratch:
        target = Path(scratch) / "act"
        target.write_bytes(message)
        done = subprocess.run(
            [program, "-Y", "sign", "-n", namespace, "-f", str(key_path), str(target)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, check=False,
        )
        signature_file = target.with_name("act.sig")
        if done.returncode != 0 or not signature_file.is_file():
            reason = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]
            raise SigningKeyError(f"ssh-keygen could not sign with {key_path}: {reason}")
        armored = signature_file.read_text(encoding="ascii")
    SshSignature.parse(armored)  # refuse garbage here, not at verification
    return armored


def signer_of(armored_signature: str) -> PublicKey:
    """The public key a signature claims to be made with (not yet verified)."""
    return SshSignature.parse(armored_signature).public_key


def verify(message: bytes, armored_signature: str, allowed: AllowedSigners, principal: str, *,
           namespace: str = NAMESPACE, at: datetime) -> SignerKey:
    """The allowed_signers entry under which `principal` signed `message` at time `at`.

    Raises SignatureError, one line, for a damaged or forged signature, another
    namespace, a key allowed_signers does not list for the principal, a key
    restricted to other namespaces, or a time outside valid-after/valid-before.
    """
    if at.tzinfo is None:
        raise InvalidValueError("a verification time needs a time zone")
    signature = SshSignature.parse(armored_signature)
    if signature.namespace != namespace:
        raise SignatureError(f"the signature is for namespace {signature.namespace!r}, not {namespace!r}")
    if not signature.signs(message):
        raise SignatureError(f"the signature by key {signature.public_key.fingerprint} does not match "
                             "the signed content")
    listed = allowed.keys_of(principal)
    if not listed:
        raise SignatureError(f"{principal} has no key in {allowed.path}")
    same = [key for key in listed if key.key == signature.public_key]
    if not same:
        raise SignatureError(f"the signature is by key {signature.public_key.fingerprint}, which "
                             f"{allowed.path} does not list for {principal}")
    reasons: list[str] = []
    for key in same:
        if not key.allows_namespace(namespace):
            reasons.append(f"{key.where}: key {key.fingerprint} is not allowed for namespace {namespace!r}")
        elif (why := key.not_valid_at(at)) is not None:
            reasons.append(why)
        else:
            return key
    raise SignatureError(reasons[0])
