"""The policy digest: one SHA-256 over every file of a policy directory."""

from __future__ import annotations

import hashlib
import unicodedata

from memhall.policies.files import PolicySource

#: names the scheme, so a future change of it cannot collide with this one
DIGEST_TAG = b"memhall policy digest v1\n"
SUMMARY_LENGTH = 12


def policy_digest(source: PolicySource) -> str:
    """SHA-256 (64 lowercase hex digits) of the whole policy directory.

    Over DIGEST_TAG, then for each file in the order of its path's UTF-8 bytes:
    u64be(len(path)) path u64be(len(data)) data, where path is the file's
    `/`-separated path inside the directory (Unicode NFC) and data its bytes
    with CRLF turned into LF, so a Windows checkout hashes like a Unix one.
    The length prefixes make every (path, data) sequence hash differently; the
    directory's own location is not hashed, so moving it changes nothing.
    """
    records = sorted(
        (unicodedata.normalize("NFC", file.path).encode("utf-8"), file.data.replace(b"\r\n", b"\n"))
        for file in source.files
    )
    digest = hashlib.sha256(DIGEST_TAG)
    for path, data in records:
        digest.update(len(path).to_bytes(8, "big"))
        digest.update(path)
        digest.update(len(data).to_bytes(8, "big"))
        digest.update(data)
    return digest.hexdigest()


def digest_summary(digest: str) -> str:
    """The first 12 hex digits: enough for a human to tell two policies apart."""
    return digest[:SUMMARY_LENGTH]
