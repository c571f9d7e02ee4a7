"""The MemoryRequest aggregate: a seat's MEMORY REQUEST, answered or expired."""

from __future__ import annotations

from datetime import datetime, timedelta
from enum import Enum
from uuid import UUID

from eventsourcing.domain import event

from memhall.domains.aggregate import Aggregate
from memhall.domains.values import clean_text
from memhall.domains.errors import InvalidTransitionError, InvalidValueError

#: how long a request stays open unless the caller says otherwise
DEFAULT_EXPIRY = timedelta(hours=72)


class RequestStatus(str, Enum):
    OPEN = "open"
    ANSWERED = "answered"
    EXPIRED = "expired"


class MemoryRequest(Aggregate):
    """A seat's need for memory it does not hold. Nothing fills the gap with
    inference: the request is answered with an existing entry, or it expires."""

    TOPIC = "memhall.MemoryRequest"

    class Created(Aggregate.Created):
        TOPIC = "memhall.MemoryRequest.Created"

    class Requested(Created):
        TOPIC = "memhall.MemoryRequest.Requested"
        domain: str
        seat: str
        need: str
        requested_at: datetime
        expires_at: datetime

    class Answered(Aggregate.Event):
        TOPIC = "memhall.MemoryRequest.Answered"
        entry_id: UUID
        answered_at: datetime
        #: the seat the answer is for: it now holds the entry (exposure)
        seat: str = ""

    class Expired(Aggregate.Event):
        TOPIC = "memhall.MemoryRequest.Expired"
        noticed_at: datetime

    @event(Requested)
    def __init__(
        self,
        *,
        domain: str,
        seat: str,
        need: str,
        requested_at: datetime,
        expires_at: datetime,
        actor: str,
        rule: str,
    ) -> None:
        self.domain = domain
        self.seat = seat
        self.need = need
        self.requested_at = requested_at
        self.expires_at = expires_at
        self.requested_by = actor
        self.status = RequestStatus.OPEN
        self.answer_entry: UUID | None = None
        self.answered_by: str | None = None

    @classmethod
    def issue(
        cls, domain: str, seat: str, need: str, *, now: datetime, expires_in: timedelta,
        actor: str, rule: str,
    ) -> MemoryRequest:
        if not need.strip():
            raise InvalidValueError("a memory request needs a need (--need)")
        clean_text(need, "need")
        clean_text(seat, "seat")
        if not seat.strip():
            raise InvalidValueError("a memory request names the seat it is for (--seat)")
        if expires_in <= timedelta(0):
            raise InvalidValueError("--expires-in must be positive")
        return cls(domain=domain, seat=seat.strip(), need=need.strip(), requested_at=now,
                   expires_at=now + expires_in, actor=actor, rule=rule)

    def status_at(self, now: datetime) -> RequestStatus:
        """The status the clock gives it, whether or not the expiry is recorded yet."""
        return effective_status(self.status, self.expires_at, now)

    def answer(self, entry_id: UUID, *, now: datetime, actor: str, rule: str) -> None:
        status = self.status_at(now)
        if status is not RequestStatus.OPEN:
            raise InvalidTransitionError(f"memory request {self.id} is {status.value}, not open")
        self._answered(entry_id=entry_id, answered_at=now, seat=self.seat, actor=actor, rule=rule)

    @event(Answered)
    def _answered(self, entry_id: UUID, answered_at: datetime, seat: str, actor: str, rule: str) -> None:
        self.status = RequestStatus.ANSWERED
        self.answer_entry = entry_id
        self.answered_by = actor

    def expire_if_due(self, *, now: datetime, actor: str, rule: str) -> bool:
        """Record the expiry the clock already implies; False when nothing is due."""
        if self.status is not RequestStatus.OPEN or now < self.expires_at:
            return False
        self._expired(noticed_at=now, actor=actor, rule=rule)
        return True

    @event(Expired)
    def _expired(self, noticed_at: datetime, actor: str, rule: str) -> None:
        self.status = RequestStatus.EXPIRED


def effective_status(recorded: RequestStatus, expires_at: datetime, now: datetime) -> RequestStatus:
    """An open request past its expiry reads as expired before the event is recorded."""
    if recorded is RequestStatus.OPEN and now >= expires_at:
        return RequestStatus.EXPIRED
    return recorded
