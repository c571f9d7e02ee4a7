"""A domain's charter: the policy its owner adopted, and who holds the system chair by handover.

One charter per domain (and one for the system stream), with a fixed id, so
that every write loads the facts it is decided under from the log in one read.
"""

from __future__ import annotations

from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.domain import event

from memhall.domains.aggregate import Aggregate
from memhall.domains.errors import InvalidTransitionError, InvalidValueError

#: the rule a first adoption is recorded under: nothing was adopted before it to decide it
TRUST_ON_FIRST_USE = "trust-on-first-use"


class Charter(Aggregate):
    TOPIC = "memhall.Charter"

    class Created(Aggregate.Created):
        TOPIC = "memhall.Charter.Created"

    class Opened(Created):
        """The domain's first adoption: trust on first use, nothing adopted before it to decide it."""

        TOPIC = "memhall.Charter.Opened"
        domain: str
        digest: str
        source: str
        summary: str
        files: dict[str, str]

    class Adopted(Aggregate.Event):
        """The policy directory whose digest binds the domain from here on.

        The files themselves are kept (base64), so that the policy adopted is
        known from the log alone: who may adopt next is decided under it, the
        council of a nomination is read from it, and `audit verify` checks
        signatures against its allowed_signers even after the folder changed."""

        TOPIC = "memhall.Policy.Adopted"
        digest: str
        source: str
        summary: str
        files: dict[str, str]

    class HandedOver(Aggregate.Event):
        TOPIC = "memhall.Chair.HandedOver"
        to: str

    class HandedBack(Aggregate.Event):
        TOPIC = "memhall.Chair.HandedBack"

    @staticmethod
    def create_id(domain: str) -> UUID:
        return charter_id(domain)

    @event(Opened)
    def __init__(self, *, domain: str, digest: str, source: str, summary: str, files: dict[str, str],
                 actor: str, rule: str) -> None:
        self.domain = domain
        self.digest = digest
        self.source = source
        #: every policy ever adopted here, by digest: its files (path -> base64)
        self.policies: dict[str, dict[str, str]] = {digest: files}
        self.chair_to: str | None = None

    def adopt(self, digest: str, source: str, summary: str, files: dict[str, str], *,
              actor: str, rule: str) -> None:
        if len(digest) != 64:
            raise InvalidValueError(f"not a policy digest: {digest!r}")
        if digest == self.digest:
            raise InvalidTransitionError(f"policy {digest[:12]} is already the adopted policy of {self.domain}")
        self._adopted(digest=digest, source=source, summary=summary, files=files, actor=actor, rule=rule)

    @event(Adopted)
    def _adopted(self, digest: str, source: str, summary: str, files: dict[str, str], actor: str,
                 rule: str) -> None:
        self.digest = digest
        self.source = source
        self.policies[digest] = files

    def hand_over(self, to: str, *, actor: str, rule: str) -> None:
        if self.chair_to == to:
            raise InvalidTransitionError(f"the system chair of {self.domain} is already handed to {to}")
        self._handed_over(to=to, actor=actor, rule=rule)

    @event(HandedOver)
    def _handed_over(self, to: str, actor: str, rule: str) -> None:
        self.chair_to = to

    def hand_back(self, *, actor: str, rule: str) -> None:
        if self.chair_to is None:
            raise InvalidTransitionError(f"the system chair of {self.domain} is not handed over")
        self._handed_back(actor=actor, rule=rule)

    @event(HandedBack)
    def _handed_back(self, actor: str, rule: str) -> None:
        self.chair_to = None


def charter_id(domain: str) -> UUID:
    return uuid5(NAMESPACE_URL, f"memhall:charter:{domain}")
