"""Errors a caller can cause; each says what went wrong in one line."""

from __future__ import annotations


class MemhallError(Exception):
    """Base of every error memhall reports to a user (exit code 1 unless stated)."""

    exit_code = 1
    #: the rule that refused, when a rule did ("" otherwise); `--json` errors carry it
    rule = ""
    #: which item of a batch it is about (its index), when one item refused the batch
    item: int | None = None


class InvalidValueError(MemhallError):
    """A value was refused at the edge, before anything was stored."""


class UnknownDomainError(MemhallError):
    def __init__(self, domain: str) -> None:
        super().__init__(
            f"unknown domain {domain!r}: create it with `memhall domain create {domain}`"
        )
        self.domain = domain

    #: the system stream records this refusal under this rule
    rule = "unknown-domain"


class DomainExistsError(MemhallError):
    def __init__(self, domain: str) -> None:
        super().__init__(f"domain {domain!r} already exists")


class NotFoundError(MemhallError):
    def __init__(self, what: str, ident: object, domain: str = "", *, hint: str = "") -> None:
        where = domain or "this domain"
        super().__init__(f"no {what} {ident} in {where}" + (f" ({hint})" if hint else ""))
        self.what, self.ident, self.domain = what, ident, domain


class AmbiguousIdError(MemhallError):
    """A shortened id that names more than one thing: a usage error (exit 2)."""

    exit_code = 2


class NoStoreError(MemhallError):
    """No store where one was looked for; only `init` and `domain create` make one."""


class StoreBusyError(MemhallError):
    """Another process held the store's write lock for longer than the caller would wait
    (a hook, which must not keep its agent waiting)."""

    def __init__(self, waited_s: float) -> None:
        super().__init__(f"the store is busy: another process held its write lock for {waited_s:g} s")


class DomainRebuildingError(MemhallError):
    """The domain's read models are being rebuilt: nothing is read from them or written until
    the rebuild ends (`governance.rebuilding`)."""

    def __init__(self, domain: str, since: str) -> None:
        super().__init__(
            f"domain {domain!r} is being rebuilt (since {since}): its read models hold only part of its "
            "log until the rebuild ends, so nothing is read from or written to it meanwhile; try again "
            "when it is done (if no rebuild is running, one failed: run `memhall rebuild` again)")
        self.domain = domain


class RebuildRunningError(MemhallError):
    """Another process is rebuilding this store's read models: a second rebuild would empty
    them under the first's writer."""

    def __init__(self) -> None:
        super().__init__("a rebuild of this store is under way in another process: wait for it to end "
                         "(the domains it rebuilds are closed until then)")


class InvalidTransitionError(MemhallError):
    """A command that the current state of an aggregate does not allow."""


class RefusedError(MemhallError):
    """Refused by a rule, of the policy or of the domain (exit code 3); the
    refusal is recorded as an event under `rule`."""

    exit_code = 3

    def __init__(self, message: str, *, rule: str = "", domain: str = "") -> None:
        super().__init__(message)
        self.rule = rule
        #: the domain the refused request named ("" when unknown)
        self.domain = domain


class PolicyDeniedError(RefusedError):
    """Refused by the policy (exit code 3); the refusal is recorded as an event."""


class PolicyConfigError(MemhallError):
    """The policy set is broken or missing: the hall fails closed."""

    exit_code = 3


class AuditFailureError(MemhallError):
    """The audit chain does not verify (exit code 4)."""

    exit_code = 4


class GuardrailError(MemhallError):
    """A value its provenance does not allow, e.g. hearsay written above what its source's
    trust permits (exit code 3, like any refusal)."""

    exit_code = 3


class SignatureError(MemhallError):
    """A signature that does not verify, or a signer the policy does not allow (exit code 3)."""

    exit_code = 3


class SigningKeyError(MemhallError):
    """The signer's own key cannot be used: missing, unsupported, or locked by a passphrase."""

    def __init__(self, message: str, *, needs_passphrase: bool = False) -> None:
        super().__init__(message)
        self.needs_passphrase = needs_passphrase
