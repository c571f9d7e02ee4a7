"""The allowed-signers file (git's and `ssh-keygen -Y verify`'s format): who signs with which key.

One line per key: `principals [options] keytype base64 [comment]`, where
principals is a comma-separated OpenSSH pattern list (`*`, `?`, `!negation`)
and options are `namespaces="…"`, `valid-after="…"`, `valid-before="…"`.
Two deliberate refusals, each an error naming file:line:
- `cert-authority` lines: memhall verifies people's own keys, not certificates;
  honouring a CA would let whoever holds it mint signers outside the reviewed file.
- times without a `Z`: ssh-keygen reads them in the verifier's local time zone,
  which would make the audit's answer depend on the machine; memhall wants UTC.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from pathlib import Path

from memhall.domains.errors import PolicyConfigError
from memhall.policies.files import PolicySource
from memhall.policies.sshkeys import KEY_TYPES, PublicKey

_OPTIONS = ("namespaces", "valid-after", "valid-before")
_KNOWN = ", ".join(f'{name}="…"' for name in _OPTIONS)
_OPTION = re.compile(r'([A-Za-z-]+)(?:="((?:[^"\\]|\\.)*)")?(,|$)')
_TIME_FORMATS = {8: "%Y%m%d", 12: "%Y%m%d%H%M", 14: "%Y%m%d%H%M%S"}


@cache
def _pattern(glob: str) -> re.Pattern[str]:
    return re.compile("".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in glob),
                      re.DOTALL)


def matches_pattern_list(name: str, patterns: str) -> bool:
    """OpenSSH's match_pattern_list: a matching `!pattern` denies outright, else any match allows."""
    allowed = False
    for item in patterns.split(","):
        negated = item.startswith("!")
        if _pattern(item[1:] if negated else item).fullmatch(name):
            if negated:
                return False
            allowed = True
    return allowed


@dataclass(frozen=True)
class SignerKey:
    """One line of allowed_signers: a key, whom it speaks for, and for what and when."""

    principals: str
    key: PublicKey
    where: str
    comment: str = ""
    namespaces: str | None = None
    valid_after: datetime | None = None
    valid_before: datetime | None = None

    @property
    def fingerprint(self) -> str:
        return self.key.fingerprint

    def speaks_for(self, principal: str) -> bool:
        return matches_pattern_list(principal, self.principals)

    def allows_namespace(self, namespace: str) -> bool:
        return self.namespaces is None or matches_pattern_list(namespace, self.namespaces)

    def not_valid_at(self, at: datetime) -> str | None:
        """Why this key cannot sign at `at`, or None when it can (bounds inclusive, as in OpenSSH)."""
        if self.valid_after is not None and at < self.valid_after:
            return f"{self.where}: key {self.fingerprint} is not valid before {self.valid_after:%Y-%m-%d %H:%M:%S}Z"
        if self.valid_before is not None and at > self.valid_before:
            return f"{self.where}: key {self.fingerprint} expired at {self.valid_before:%Y-%m-%d %H:%M:%S}Z"
        return None


@dataclass(frozen=True)
class AllowedSigners:
    """Every key an allowed_signers file lists, in file order."""

    path: str
    keys: tuple[SignerKey, ...] = ()

    @classmethod
    def parse(cls, text: str, path: str | Path) -> AllowedSigners:
        """Parse the whole file; the first bad line raises PolicyConfigError naming file:line."""
        name = str(path)
        keys = tuple(
            key for number, line in enumerate(text.split("\n"), start=1)
            if (key := _parse_line(line, f"{name}:{number}")) is not None
        )
        return cls(path=name, keys=keys)

    @classmethod
    def of(cls, source: PolicySource) -> AllowedSigners:
        """The policy folder's allowed_signers; none listed when the folder has no such file."""
        file = source.allowed_signers
        if file is None:
            return cls(path=f"{source.root}/allowed_signers")
        return cls.parse(file.text, file.name)

    def keys_of(self, principal: str) -> tuple[SignerKey, ...]:
        return tuple(key for key in self.keys if key.speaks_for(principal))

    def has_key(self, principal: str) -> bool:
        return any(key.speaks_for(principal) for key in self.keys)


def _parse_line(line: str, where: str) -> SignerKey | None:
    rest = line.strip(" \t\r")
    if not rest or rest.startswith("#"):
        return None
    principals, rest = _principals(rest, where)
    first = _first_word(rest)
    options: dict[str, str] = {}
    if first not in KEY_TYPES:
        if first.startswith(("ssh-", "sk-", "ecdsa-")) or first.endswith("@openssh.com"):
            raise PolicyConfigError(f"{where}: key type {first} is not supported "
                                    f"(use one of {', '.join(KEY_TYPES)})")
        options = _options(first, where)
        rest = rest[len(first):].lstrip(" \t")
    fields = rest.split(None, 2)
    if len(fields) < 2:
        raise PolicyConfigError(f"{where}: missing key (expected: principals [options] keytype base64)")
    key_type, encoded = fields[0], fields[1]
    try:
        key = PublicKey.from_openssh(key_type, encoded)
    except ValueError as error:
        raise PolicyConfigError(f"{where}: invalid key: {error}") from None
    signer = SignerKey(
        principals=principals, key=key, where=where, comment=fields[2].strip() if len(fields) > 2 else "",
        namespaces=options.get("namespaces"),
        valid_after=_time(options, "valid-after", where), valid_before=_time(options, "valid-before", where),
    )
    if signer.valid_after and signer.valid_before and signer.valid_before <= signer.valid_after:
        raise PolicyConfigError(f"{where}: valid-before is not after valid-after")
    return signer


def _first_word(text: str) -> str:
    """Up to the first blank outside double quotes (option values may hold blanks)."""
    quoted = False
    for at, char in enumerate(text):
        if char == '"' and text[at - 1:at] != "\\":
            quoted = not quoted
        elif char in " \t" and not quoted:
            return text[:at]
    return text


def _principals(rest: str, where: str) -> tuple[str, str]:
    if rest.startswith('"'):
        end = rest.find('"', 1)
        if end < 0:
            raise PolicyConfigError(f"{where}: unterminated quote in principals")
        principals, rest = rest[1:end], rest[end + 1:]
    else:
        parts = rest.split(None, 1)
        principals, rest = parts[0], parts[1] if len(parts) > 1 else ""
    rest = rest.lstrip(" \t")
    if not principals or not rest:
        raise PolicyConfigError(f"{where}: invalid line (expected: principals [options] keytype base64)")
    return principals, rest


def _options(text: str, where: str) -> dict[str, str]:
    options: dict[str, str] = {}
    for name, value in _option_items(text, where):
        if name == "cert-authority":
            raise PolicyConfigError(f"{where}: cert-authority is not supported: list each signer's own key")
        if name not in _OPTIONS or value is None:
            raise PolicyConfigError(f"{where}: unknown option {name!r} (known: {_KNOWN})")
        if name in options:
            raise PolicyConfigError(f"{where}: more than one {name} option")
        options[name] = value
    return options


def _option_items(text: str, where: str) -> Iterator[tuple[str, str | None]]:
    """`name` or `name="value"` items separated by commas; a comma inside quotes is the value's."""
    at = 0
    while at < len(text):
        match = _OPTION.match(text, at)
        if match is None:
            raise PolicyConfigError(f"{where}: invalid options {text!r} (values must be quoted: name=\"…\")")
        value = match.group(2)
        yield match.group(1).lower(), None if value is None else value.replace('\\"', '"')
        at = match.end()
        if match.group(3) == "," and at == len(text):
            raise PolicyConfigError(f"{where}: options end with a comma")


def _time(options: dict[str, str], name: str, where: str) -> datetime | None:
    value = options.get(name)
    if value is None:
        return None
    digits = value[:-1] if value[-1:] in ("Z", "z") else value
    layout = _TIME_FORMATS.get(len(digits))
    if layout is None or not digits.isdigit():
        raise PolicyConfigError(f"{where}: {name}={value!r} is not YYYYMMDD[HHMM[SS]]Z")
    if digits == value:
        raise PolicyConfigError(f"{where}: {name}={value!r} has no time zone: add Z (UTC), as in \"{value}Z\"")
    try:
        return datetime.strptime(digits, layout).replace(tzinfo=UTC)
    except ValueError:
        raise PolicyConfigError(f"{where}: {name}={value!r} is not a date") from None
