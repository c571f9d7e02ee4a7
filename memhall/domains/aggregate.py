"""The pydantic base for aggregates and events (after eventsourcing's aggregate8).

Events are frozen pydantic models with `extra="forbid"`: validated when they
are created and again when they are read back. Every event names the acting
principal and the policy rule that allowed it, so the log is its own audit
trail.
"""

from __future__ import annotations

import inspect
import os
from datetime import datetime
from typing import Any, ClassVar, NamedTuple, TypeVar
from uuid import UUID, SafeUUID

from eventsourcing.domain import Aggregate as BaseAggregate
from eventsourcing.domain import CanInitAggregate, CanMutateAggregate
from eventsourcing.utils import get_topic
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


#: random bits for new ids, read from the OS 256 ids at a time (`new_id`)
_RANDOM: list[int] = []
_ID_BITS = (1 << 128) - 1 ^ (0xC000 << 48) ^ (0xF000 << 64)  # less the variant and version bits
_VERSION_4 = (0x8000 << 48) | (4 << 76)  # RFC 4122 variant, version 4
_new, _set = object.__new__, object.__setattr__
os.register_at_fork(after_in_child=_RANDOM.clear)  # a forked child must not repeat its parent's ids


def new_id() -> UUID:
    """A random (version 4) UUID, as `uuid.uuid4()` makes from `os.urandom`, with the OS asked
    once per 256 ids and the UUID built without its constructor's checks: a bulk import
    makes one per line, and uuid4 was a tenth of creating an entry."""
    if not _RANDOM:
        pool = os.urandom(16 * 256)
        _RANDOM.extend(int.from_bytes(pool[at:at + 16], "big") for at in range(0, len(pool), 16))
    made = _new(UUID)
    _set(made, "int", (_RANDOM.pop() & _ID_BITS) | _VERSION_4)
    _set(made, "is_safe", SafeUUID.unknown)
    return made


class Aggregate(BaseAggregate):
    """Base of memhall's aggregates.

    Each subclass sets an explicit TOPIC, and so does each of its events
    (including its own `Created`), so that moving a module never breaks replay.
    """

    @staticmethod
    def create_id(*_: Any, **__: Any) -> UUID:
        return new_id()

    class Event(DomainEvent, CanMutateAggregate[UUID]):
        pass

    class Created(Event, CanInitAggregate[UUID]):
        originator_topic: str


A = TypeVar("A", bound=Aggregate)


class _Shape(NamedTuple):
    """A created event class's fields (in order, each with its default, or None where it has
    none; as a set; the required ones) and, in the same order, the parameters of its
    aggregate's __init__ among them."""

    fields: tuple[tuple[str, Any], ...]
    names: frozenset[str]
    required: frozenset[str]
    init: tuple[str, ...]


_SHAPES: dict[tuple[type[Aggregate], type[BaseModel]], _Shape] = {}


def _shape(aggregate: type[Aggregate], event_class: type[Aggregate.Created]) -> _Shape:
    shape = _SHAPES.get((aggregate, event_class))
    if shape is None:
        fields = event_class.model_fields
        init = frozenset(inspect.signature(aggregate.__init__).parameters)
        if "id" in init:
            raise TypeError(f"{aggregate.__qualname__}.__init__ takes its id: create it with {aggregate.__name__}()")
        shape = _SHAPES[(aggregate, event_class)] = _Shape(
            tuple((n, None if f.is_required() else f.default) for n, f in fields.items()), frozenset(fields),
            frozenset(n for n, f in fields.items() if f.is_required()), tuple(n for n in fields if n in init))
    return shape


def created(aggregate: type[A], event_class: type[Aggregate.Created], **values: Any) -> A:
    """What `aggregate(**values)` makes (a new id, version 1, now), less pydantic's second
    pass over values that already have their declared types and eventsourcing's generic
    dispatch: the same event, the same state, the same bytes (what its `mutate` does, done
    directly). For callers whose values all come from validated models (a draft, an
    encoding) or typed arguments; a bulk import creates one aggregate per line."""
    shape = _shape(aggregate, event_class)
    values["originator_id"] = ident = aggregate.create_id()
    values["originator_version"] = version = aggregate.INITIAL_VERSION
    values["timestamp"] = timestamp = event_class.create_timestamp()
    values["originator_topic"] = get_topic(aggregate)
    if not (shape.required <= values.keys() <= shape.names):
        raise TypeError(f"{event_class.__qualname__}: fields missing {sorted(shape.required - values.keys())} "
                        f"or unknown {sorted(values.keys() - shape.names)}")
    given = values.get
    state = {name: given(name, default) for name, default in shape.fields}  # the required are given
    event = event_class.__new__(event_class)
    object.__setattr__(event, "__dict__", state)
    object.__setattr__(event, "__pydantic_fields_set__", set(values))
    object.__setattr__(event, "__pydantic_extra__", None)
    object.__setattr__(event, "__pydantic_private__", None)
    made = aggregate.__new__(aggregate)
    made.__base_init__(ident, version, timestamp)
    made.__init__(**{name: state[name] for name in shape.init})  # type: ignore[misc]
    event.apply(made)
    made.pending_events.append(event)
    return made
