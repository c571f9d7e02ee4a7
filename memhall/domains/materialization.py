"""The Materialization aggregate: what one seat was shown for one task, and when in the log."""

from __future__ import annotations

from datetime import datetime

from eventsourcing.domain import event
from pydantic import BaseModel, ConfigDict

from memhall.domains.aggregate import Aggregate
from memhall.domains.errors import InvalidValueError


class Excluded(BaseModel):
    """One line of ledger C: an id that was found and not materialized, and why."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    reason: str


class Materialization(Aggregate):
    """A record of a Council materialization, so that "what did seat X see on
    that task" is answered from the log, not from memory."""

    TOPIC = "memhall.Materialization"

    class Created(Aggregate.Created):
        TOPIC = "memhall.Materialization.Created"

    class Recorded(Created):
        TOPIC = "memhall.Materialization.Recorded"
        domain: str
        seat: str
        task: str
        log_position: int
        ledger_a: tuple[str, ...]
        ledger_b: tuple[str, ...]
        ledger_c: tuple[Excluded, ...]
        digest: str
        materialized_at: datetime

    @event(Recorded)
    def __init__(
        self,
        *,
        domain: str,
        seat: str,
        task: str,
        log_position: int,
        ledger_a: tuple[str, ...],
        ledger_b: tuple[str, ...],
        ledger_c: tuple[Excluded, ...],
        digest: str,
        materialized_at: datetime,
        actor: str,
        rule: str,
    ) -> None:
        self.domain = domain
        self.seat = seat
        self.task = task
        self.log_position = log_position
        self.ledger_a = ledger_a
        self.ledger_b = ledger_b
        self.ledger_c = ledger_c
        self.digest = digest
        self.materialized_at = materialized_at

    @classmethod
    def record(
        cls, domain: str, seat: str, task: str, *, log_position: int, ledger_a: tuple[str, ...],
        ledger_b: tuple[str, ...], ledger_c: tuple[Excluded, ...], digest: str,
        now: datetime, actor: str, rule: str,
    ) -> Materialization:
        if len(ledger_b) > 10:
            raise InvalidValueError("ledger B holds at most 10 facts")
        if set(ledger_a) & set(ledger_b):
            raise InvalidValueError("an id is materialized in ledger A or B, never both")
        return cls(domain=domain, seat=seat, task=task, log_position=log_position,
                   ledger_a=ledger_a, ledger_b=ledger_b, ledger_c=ledger_c, digest=digest,
                   materialized_at=now, actor=actor, rule=rule)
