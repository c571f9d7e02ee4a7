"""The sshsig format of OpenSSH's PROTOCOL.sshsig: what is signed, the signature blob, its armor."""

from __future__ import annotations

import base64
import binascii
import hashlib
from dataclasses import dataclass

from memhall.domains.errors import SignatureError
from memhall.policies.sshkeys import PublicKey
from memhall.policies.sshwire import WireFormatError, WireReader, string

MAGIC = b"SSHSIG"
VERSION = 1
DEFAULT_HASH = "sha512"
#: the hashes `ssh-keygen -Y verify` accepts (its -O hashalg= choices)
HASHES = {"sha256": hashlib.sha256, "sha512": hashlib.sha512}
BEGIN = "-----BEGIN SSH SIGNATURE-----"
END = "-----END SSH SIGNATURE-----"
_LINE = 70  # OpenSSH wraps the armored base64 at 70 columns


def signed_data(message: bytes, namespace: str, hash_algorithm: str = DEFAULT_HASH) -> bytes:
    """The bytes the key actually signs: the magic, namespace, reserved, hash name and H(message)."""
    digest = HASHES[hash_algorithm](message).digest()
    return (MAGIC + string(namespace.encode("utf-8")) + string(b"")
            + string(hash_algorithm.encode("ascii")) + string(digest))


@dataclass(frozen=True)
class SshSignature:
    """One sshsig signature: the signer's public key, namespace, hash and raw SSH signature."""

    public_key: PublicKey
    namespace: str
    hash_algorithm: str
    signature: bytes

    def blob(self) -> bytes:
        return (MAGIC + VERSION.to_bytes(4, "big") + string(self.public_key.blob)
                + string(self.namespace.encode("utf-8")) + string(b"")
                + string(self.hash_algorithm.encode("ascii")) + string(self.signature))

    def armored(self) -> str:
        """As `ssh-keygen -Y sign` writes it, byte for byte."""
        encoded = base64.b64encode(self.blob()).decode("ascii")
        return "\n".join([BEGIN, *(encoded[i:i + _LINE] for i in range(0, len(encoded), _LINE)), END]) + "\n"

    def signs(self, message: bytes) -> bool:
        return self.public_key.verifies(
            self.signature, signed_data(message, self.namespace, self.hash_algorithm)
        )

    @classmethod
    def parse(cls, armored: str) -> SshSignature:
        """Read an armored signature; SignatureError says in one line what is wrong with it."""
        text = armored.strip().replace("\r\n", "\n")
        if not text.startswith(BEGIN + "\n") or not text.endswith("\n" + END):
            raise SignatureError(f"not an SSH signature: expected {BEGIN} ... {END}")
        body = text[len(BEGIN):-len(END)]
        try:
            blob = base64.b64decode("".join(body.split()), validate=True)
        except binascii.Error:
            raise SignatureError("not an SSH signature: its body is not base64") from None
        try:
            return cls._from_blob(blob)
        except WireFormatError as error:
            raise SignatureError(f"not an SSH signature: damaged ({error})") from None

    @classmethod
    def _from_blob(cls, blob: bytes) -> SshSignature:
        reader = WireReader(blob)
        if reader.raw(len(MAGIC)) != MAGIC:
            raise SignatureError("not an SSH signature: no SSHSIG magic")
        version = reader.uint32()
        if version != VERSION:
            raise SignatureError(f"SSH signature version {version} is not supported (only {VERSION})")
        key_blob = reader.string()
        namespace = reader.text()
        reader.string()  # reserved: ignored, as OpenSSH does
        hash_algorithm = reader.text()
        signature = reader.string()
        reader.end()
        if hash_algorithm not in HASHES:
            raise SignatureError(f"SSH signature hash {hash_algorithm!r} is not supported "
                                 f"(only {', '.join(HASHES)})")
        try:
            public_key = PublicKey.from_blob(key_blob)
        except ValueError as error:
            raise SignatureError(f"SSH signature made with an unusable key: {error}") from None
        return cls(public_key=public_key, namespace=namespace, hash_algorithm=hash_algorithm,
                   signature=signature)
