"""Events to stored bytes and back: pydantic validates, orjson encodes (aggregate8)."""

from __future__ import annotations

from typing import Any, cast
from uuid import UUID

import orjson
from eventsourcing.domain import DomainEventProtocol
from eventsourcing.persistence import (
    Mapper,
    ProgrammingError,
    StoredEvent,
    Transcoder,
    Transcoding,
)
from eventsourcing.utils import get_topic, resolve_topic
from pydantic import BaseModel

from memhall.domains import (  # noqa: F401 (registers every event topic)
    charter,
    entry,
    evidence,
    materialization,
    opinion,
    promotion,
    recall,
    relationship,
    records,
    request,
    session,
)


class OrjsonTranscoder(Transcoder):
    def encode(self, obj: Any) -> bytes:
        return orjson.dumps(obj)

    def decode(self, data: bytes) -> Any:
        return orjson.loads(data)

    def register(self, transcoding: Transcoding) -> None:  # pragma: no cover
        raise ProgrammingError("events are pydantic models: no transcodings needed")


class PydanticMapper(Mapper[UUID]):
    """JSON mode: datetimes become ISO strings, so a frozen test clock
    (freezegun's FakeDatetime) encodes like a real one."""

    def encode(self, domain_event: DomainEventProtocol[UUID]) -> tuple[str, dict[str, Any], bytes]:
        """The event's topic, its state as the log keeps it, and those bytes."""
        topic, state = self.state(domain_event)
        return topic, state, self.transcoder.encode(state)

    def state(self, domain_event: DomainEventProtocol[UUID]) -> tuple[str, dict[str, Any]]:
        """The event's topic and its state as the log keeps it."""
        return get_topic(type(domain_event)), cast(BaseModel, domain_event).model_dump(mode="json")

    def to_stored_event(self, domain_event: DomainEventProtocol[UUID]) -> StoredEvent:
        topic, _, data = self.encode(domain_event)
        return StoredEvent(
            originator_id=domain_event.originator_id,
            originator_version=domain_event.originator_version,
            topic=topic,
            state=data,
        )

    def to_domain_event(self, stored_event: StoredEvent) -> DomainEventProtocol[UUID]:
        state = self.transcoder.decode(stored_event.state)
        event_class = resolve_topic(stored_event.topic)
        return cast(DomainEventProtocol[UUID], event_class(**state))


def new_mapper() -> PydanticMapper:
    return PydanticMapper(transcoder=OrjsonTranscoder())
