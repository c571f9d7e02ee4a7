"""The pydantic base for aggregates and events (after eventsourcing's aggregate8).

Events are frozen pydantic models with `extra="forbid"`: validated when they
are created and again when they are read back. Every event names the acting
principal and the policy rule that allowed it, so the log is its own audit
trail.
"""

from __future__ import annotations

from datetime import datetime
from typing import ClassVar
from uuid import UUID

from eventsourcing.domain import Aggregate as BaseAggregate
from eventsourcing.domain import CanInitAggregate, CanMutateAggregate
from pydantic import BaseModel, ConfigDict


class DomainEvent(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    TOPIC: ClassVar[str]
    originator_id: UUID
    originator_version: int
    timestamp: datetime
    actor: str
    rule: str
    #: the digest of the adopted policy the event was decided under ("" before adoption existed)
    policy: str = ""
    #: a human's SSH signature (sshsig, namespace memhall) over the event, when the act needs one
    signature: str = ""


class Aggregate(BaseAggregate):
    """Base of memhall's aggregates.

    Each subclass sets an explicit TOPIC, and so does each of its events
    (including its own `Created`), so that moving a module never breaks replay.
    """

    class Event(DomainEvent, CanMutateAggregate[UUID]):
        pass

    class Created(Event, CanInitAggregate[UUID]):
        originator_topic: str
