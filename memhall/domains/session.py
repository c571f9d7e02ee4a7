"""The Session aggregate: one agent's working session in one domain."""

from __future__ import annotations

from uuid import UUID

from eventsourcing.domain import event

from memhall.domains.aggregate import Aggregate
from memhall.domains.errors import InvalidTransitionError


class Session(Aggregate):
    TOPIC = "memhall.Session"

    class Created(Aggregate.Created):
        TOPIC = "memhall.Session.Created"

    class Opened(Created):
        TOPIC = "memhall.Session.Opened"
        domain: str
        principal: str
        #: the entries the handoff that opened it handed over (the principal now holds them)
        handed: tuple[str, ...] = ()

    class WrappedUp(Aggregate.Event):
        TOPIC = "memhall.Session.WrappedUp"
        summary_entry: UUID

    class Closed(Aggregate.Event):
        TOPIC = "memhall.Session.Closed"

    @classmethod
    def open(cls, domain: str, principal: str, *, actor: str, rule: str,
             handed: tuple[str, ...] = ()) -> Session:
        return cls(domain=domain, principal=principal, actor=actor, rule=rule, handed=handed)

    @event(Opened)
    def __init__(self, *, domain: str, principal: str, actor: str, rule: str,
                 handed: tuple[str, ...]) -> None:
        self.domain = domain
        self.principal = principal
        self.summary_entry: UUID | None = None
        self.closed = False

    def wrap_up(self, summary_entry: UUID, *, actor: str, rule: str) -> None:
        self._may_end(actor)
        self._wrapped_up(summary_entry=summary_entry, actor=actor, rule=rule)
        self._closed(actor=actor, rule=rule)

    def close(self, *, actor: str, rule: str) -> None:
        """End a session that hands nothing over: closed, with no wrap-up, so its thread's
        latest state stays what the last wrap-up said."""
        self._may_end(actor)
        self._closed(actor=actor, rule=rule)

    def _may_end(self, actor: str) -> None:
        if self.closed:
            raise InvalidTransitionError(f"session {self.id} is already closed")
        if actor != self.principal:
            raise InvalidTransitionError(
                f"session {self.id} belongs to {self.principal}, not {actor}"
            )

    @event(WrappedUp)
    def _wrapped_up(self, summary_entry: UUID, actor: str, rule: str) -> None:
        self.summary_entry = summary_entry

    @event(Closed)
    def _closed(self, actor: str, rule: str) -> None:
        self.closed = True
