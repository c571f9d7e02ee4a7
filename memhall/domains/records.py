"""Aggregates that record facts about a domain itself: its opening, and refusals."""

from __future__ import annotations

from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.domain import event

from memhall.domains.aggregate import Aggregate


class DomainStream(Aggregate):
    """The first stream of every domain: who created it, and when."""

    TOPIC = "memhall.Domain"

    class Created(Aggregate.Created):
        TOPIC = "memhall.Domain.Created"

    class Opened(Created):
        TOPIC = "memhall.Domain.Opened"
        name: str

    @staticmethod
    def create_id(name: str) -> UUID:
        return uuid5(NAMESPACE_URL, f"memhall:domain:{name}")

    @event(Opened)
    def __init__(self, *, name: str, actor: str, rule: str) -> None:
        self.name = name


class Refusal(Aggregate):
    """A refused action. Refusals are events like any other (SPEC §3, §8):
    the caller gets a clear error and the log keeps who tried what, and why not."""

    TOPIC = "memhall.Refusal"

    class Created(Aggregate.Created):
        TOPIC = "memhall.Refusal.Created"

    class Recorded(Created):
        TOPIC = "memhall.Refusal.Recorded"
        action: str
        resource_type: str
        resource_id: str
        layer: str
        reason: str

    @event(Recorded)
    def __init__(
        self,
        *,
        action: str,
        resource_type: str,
        resource_id: str,
        layer: str,
        reason: str,
        actor: str,
        rule: str,
    ) -> None:
        self.action = action
        self.reason = reason


class Rebuild(Aggregate):
    """A rebuild of a domain's read models: who ran it, under which rule, over how many events."""

    TOPIC = "memhall.Rebuild"

    class Created(Aggregate.Created):
        TOPIC = "memhall.Rebuild.Created"

    class Recorded(Created):
        TOPIC = "memhall.Rebuild.Recorded"
        events: int

    @event(Recorded)
    def __init__(self, *, events: int, actor: str, rule: str) -> None:
        self.events = events
