"""OpenSSH keys: public keys as their wire blob, private key files, and raw SSH signatures."""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature, encode_dss_signature

from memhall.domains.errors import InvalidValueError, SigningKeyError
from memhall.policies.sshwire import WireFormatError, WireReader, mpint, string

SigningKey = ed25519.Ed25519PrivateKey | ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey
VerifyingKey = ed25519.Ed25519PublicKey | ec.EllipticCurvePublicKey | rsa.RSAPublicKey

#: ECDSA key type -> the hash its signatures use (RFC 5656 §6.2.1)
_ECDSA_HASHES: dict[str, type[hashes.HashAlgorithm]] = {
    "ecdsa-sha2-nistp256": hashes.SHA256,
    "ecdsa-sha2-nistp384": hashes.SHA384,
    "ecdsa-sha2-nistp521": hashes.SHA512,
}
#: RSA signature algorithms sshsig accepts; SHA-1 `ssh-rsa` signatures are refused, as by OpenSSH
_RSA_HASHES: dict[str, type[hashes.HashAlgorithm]] = {
    "rsa-sha2-512": hashes.SHA512,
    "rsa-sha2-256": hashes.SHA256,
}
KEY_TYPES = ("ssh-ed25519", *_ECDSA_HASHES, "ssh-rsa")


@dataclass(frozen=True)
class PublicKey:
    """A public key of a supported type, compared and stored as its OpenSSH wire blob."""

    key_type: str
    blob: bytes

    @classmethod
    def from_blob(cls, blob: bytes) -> PublicKey:
        """Raises ValueError for a blob that is damaged or of an unsupported type."""
        try:
            key_type = WireReader(blob).text()
        except WireFormatError as error:
            raise ValueError(f"not an SSH public key ({error})") from None
        if key_type not in KEY_TYPES:
            raise ValueError(f"key type {key_type} is not supported (use one of {', '.join(KEY_TYPES)})")
        key = cls(key_type=key_type, blob=blob)
        key.loaded()  # parse it now, so a damaged key fails where it is read
        return key

    @classmethod
    def from_openssh(cls, key_type: str, encoded: str) -> PublicKey:
        """From the `TYPE BASE64` pair of a .pub file or an allowed-signers line."""
        try:
            blob = base64.b64decode(encoded, validate=True)
        except binascii.Error:
            raise ValueError("the key is not valid base64") from None
        key = cls.from_blob(blob)
        if key.key_type != key_type:
            raise ValueError(f"the key is a {key.key_type} key, not {key_type}")
        return key

    @classmethod
    def of(cls, private: SigningKey) -> PublicKey:
        line = private.public_key().public_bytes(serialization.Encoding.OpenSSH,
                                                 serialization.PublicFormat.OpenSSH)
        key_type, encoded = line.decode("ascii").split()[:2]
        return cls.from_openssh(key_type, encoded)

    @property
    def base64(self) -> str:
        return base64.b64encode(self.blob).decode("ascii")

    @property
    def openssh(self) -> str:
        return f"{self.key_type} {self.base64}"

    @property
    def fingerprint(self) -> str:
        """As `ssh-keygen -l` prints it: SHA256 of the blob, base64 without padding."""
        digest = base64.b64encode(hashlib.sha256(self.blob).digest()).decode("ascii")
        return "SHA256:" + digest.rstrip("=")

    def loaded(self) -> VerifyingKey:
        try:
            key = serialization.load_ssh_public_key(self.openssh.encode("ascii"))
        except (ValueError, UnsupportedAlgorithm) as error:
            raise ValueError(f"damaged {self.key_type} key ({error})") from None
        if not isinstance(key, (ed25519.Ed25519PublicKey, ec.EllipticCurvePublicKey, rsa.RSAPublicKey)):
            raise ValueError(f"key type {self.key_type} is not supported")
        return key

    def verifies(self, signature: bytes, data: bytes) -> bool:
        """Whether `signature`, an SSH signature blob (algorithm, bytes), signs `data`."""
        try:
            reader = WireReader(signature)
            algorithm, raw = reader.text(), reader.string()
            reader.end()
            _check(self.loaded(), self.key_type, algorithm, raw, data)
        except (WireFormatError, InvalidSignature, ValueError):
            return False
        return True


def _check(key: VerifyingKey, key_type: str, algorithm: str, raw: bytes, data: bytes) -> None:
    if isinstance(key, ed25519.Ed25519PublicKey) and algorithm == key_type:
        key.verify(raw, data)
    elif isinstance(key, ec.EllipticCurvePublicKey) and algorithm == key_type:
        reader = WireReader(raw)
        r, s = reader.mpint(), reader.mpint()
        reader.end()
        key.verify(encode_dss_signature(r, s), data, ec.ECDSA(_ECDSA_HASHES[key_type]()))
    elif isinstance(key, rsa.RSAPublicKey) and algorithm in _RSA_HASHES:
        size = (key.key_size + 7) // 8
        # OpenSSH accepts a signature whose leading zero bytes were dropped
        key.verify(raw.rjust(size, b"\0"), data, padding.PKCS1v15(), _RSA_HASHES[algorithm]())
    else:
        raise InvalidSignature


def sign_raw(key: SigningKey, data: bytes) -> bytes:
    """The SSH signature blob (algorithm, bytes) of `data`; RSA signs with rsa-sha2-512 as OpenSSH does."""
    if isinstance(key, ed25519.Ed25519PrivateKey):
        return string(b"ssh-ed25519") + string(key.sign(data))
    if isinstance(key, ec.EllipticCurvePrivateKey):
        key_type = PublicKey.of(key).key_type
        r, s = decode_dss_signature(key.sign(data, ec.ECDSA(_ECDSA_HASHES[key_type]())))
        return string(key_type.encode("ascii")) + string(mpint(r) + mpint(s))
    return string(b"rsa-sha2-512") + string(key.sign(data, padding.PKCS1v15(), hashes.SHA512()))


def load_private_key(path: Path, passphrase: bytes | None = None) -> SigningKey:
    """An OpenSSH (or PEM) private key file; SigningKeyError says what to do when it cannot serve."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise SigningKeyError(f"cannot read the key file {path}: {error.strerror}") from None
    loader = (serialization.load_ssh_private_key if b"-----BEGIN OPENSSH PRIVATE KEY-----" in data
              else serialization.load_pem_private_key)
    try:
        key = loader(data, passphrase)
    except TypeError:
        if passphrase is None:
            raise SigningKeyError(f"{path} is protected by a passphrase: give it, or sign through "
                                  "ssh-keygen (which asks for it or uses ssh-agent)",
                                  needs_passphrase=True) from None
        key = loader(data, None)  # a passphrase was given, but the key has none
    except (ValueError, UnsupportedAlgorithm) as error:
        hint = "wrong passphrase, or " if passphrase is not None else ""
        raise SigningKeyError(f"{path} is not a usable private key ({hint}{error}); a key held by "
                              "ssh-agent or a security key signs through ssh-keygen") from None
    if not isinstance(key, (ed25519.Ed25519PrivateKey, ec.EllipticCurvePrivateKey, rsa.RSAPrivateKey)):
        raise SigningKeyError(f"{path}: {type(key).__name__} keys are not supported "
                              f"(use one of {', '.join(KEY_TYPES)})")
    try:
        PublicKey.of(key)
    except ValueError as error:
        raise SigningKeyError(f"{path}: {error}") from None
    return key


def create_key_file(path: Path, comment: str, passphrase: bytes | None = None) -> PublicKey:
    """Write a new Ed25519 key to `path` (OpenSSH format, 0600) and `path`.pub; never overwrites."""
    public_path = path.with_name(path.name + ".pub")
    for existing in (path, public_path):
        if existing.exists():
            raise InvalidValueError(f"{existing} already exists; memhall never overwrites a key")
    key = ed25519.Ed25519PrivateKey.generate()
    encryption: serialization.KeySerializationEncryption = (
        serialization.BestAvailableEncryption(passphrase) if passphrase else serialization.NoEncryption()
    )
    private = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.OpenSSH, encryption)
    public = PublicKey.of(key)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    _write_new(path, private, 0o600)
    _write_new(public_path, f"{public.openssh} {comment}\n".encode(), 0o644)
    return public


def _write_new(path: Path, data: bytes, mode: int) -> None:
    """Create-exclusive, with the mode set at creation: the key is never readable by others."""
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    except FileExistsError:
        raise InvalidValueError(f"{path} already exists; memhall never overwrites a key") from None
    with os.fdopen(descriptor, "wb") as file:
        file.write(data)
