"""The Relationship aggregate: a first-class record between two entities (SPEC §6, seed 003).

Objective (how things are), public (what everyone is told), or private to one
perspective (what one observer takes it to be); with the ids of the memories
that evidence it and its version history — each revision is an event of the
same aggregate. One aggregate per (domain, source, target, kind, perspective):
two observers' private readings of the same pair are two relationships.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from enum import Enum

from eventsourcing.domain import event

from memhall.domains.aggregate import Aggregate
from memhall.domains.drafts import TAG_CHARS
from memhall.domains.values import clean_text
from memhall.domains.errors import InvalidTransitionError, InvalidValueError

_NAMESPACE = uuid.UUID("9b4d3f0e-58a1-4c2d-8e7f-2a6c1d9e0b31")


class Visibility(str, Enum):
    OBJECTIVE = "objective"
    PUBLIC = "public"
    PRIVATE = "private"

    @property
    def layer(self) -> str:
        """The layer whose write governs it: a private reading is the observer's own working
        memory (L1); an objective or public one is a fact of the domain (L2)."""
        return "L1" if self is Visibility.PRIVATE else "L2"


def relationship_id(domain: str, source: str, target: str, kind: str, perspective: str | None) -> uuid.UUID:
    return uuid.uuid5(_NAMESPACE, "\x1f".join((domain, source, target, kind, perspective or "")))


def normalized(name: str, what: str) -> str:
    cleaned = " ".join(name.split()).lower()
    if not cleaned:
        raise InvalidValueError(f"a relationship needs a {what}")
    clean_text(cleaned, what)
    if len(cleaned) > TAG_CHARS:  # a key, as a tag is: entities are what tags name
        raise InvalidValueError(f"a {what} holds at most {TAG_CHARS} characters, not {len(cleaned)}")
    return cleaned


class Relationship(Aggregate):
    TOPIC = "memhall.Relationship"

    class Created(Aggregate.Created):
        TOPIC = "memhall.Relationship.Created"

    class Recorded(Created):
        TOPIC = "memhall.Relationship.Recorded"
        domain: str
        source: str
        target: str
        kind: str
        visibility: Visibility
        #: whose private reading it is (None unless private)
        perspective: str | None
        evidence: tuple[str, ...]
        note: str
        occurred_at: datetime

    class Revised(Aggregate.Event):
        TOPIC = "memhall.Relationship.Revised"
        evidence: tuple[str, ...]
        note: str
        occurred_at: datetime

    class Ended(Aggregate.Event):
        TOPIC = "memhall.Relationship.Ended"
        reason: str

    @event(Recorded)
    def __init__(self, *, domain: str, source: str, target: str, kind: str, visibility: Visibility,
                 perspective: str | None, evidence: tuple[str, ...], note: str, occurred_at: datetime,
                 actor: str, rule: str) -> None:
        self.domain = domain
        self.source = source
        self.target = target
        self.kind = kind
        self.visibility = visibility
        self.perspective = perspective
        self.evidence = evidence
        self.active = True

    @classmethod
    def record(cls, domain: str, source: str, target: str, kind: str, visibility: Visibility, *,
               perspective: str | None, evidence: tuple[str, ...], note: str, occurred_at: datetime,
               actor: str, rule: str) -> Relationship:
        source, target = normalized(source, "first entity"), normalized(target, "second entity")
        kind = normalized(kind, "kind (--kind)")
        if source == target:
            raise InvalidValueError("a relationship joins two different entities")
        if (visibility is Visibility.PRIVATE) != (perspective is not None):
            raise InvalidValueError("a private relationship belongs to one perspective, and only it")
        clean_text(note, "note")
        return cls(domain=domain, source=source, target=target, kind=kind, visibility=visibility,
                   perspective=perspective, evidence=tuple(dict.fromkeys(evidence)), note=note,
                   occurred_at=occurred_at, actor=actor, rule=rule)

    @staticmethod
    def create_id(domain: str, source: str, target: str, kind: str, perspective: str | None) -> uuid.UUID:
        return relationship_id(domain, source, target, kind, perspective)

    def revise(self, *, evidence: tuple[str, ...], note: str, occurred_at: datetime, actor: str,
               rule: str) -> None:
        """A new version: the evidence it now rests on (added to what it had), and a note."""
        clean_text(note, "note")
        self._revised(evidence=tuple(dict.fromkeys((*self.evidence, *evidence))), note=note,
                      occurred_at=occurred_at, actor=actor, rule=rule)

    @event(Revised)
    def _revised(self, evidence: tuple[str, ...], note: str, occurred_at: datetime, actor: str,
                 rule: str) -> None:
        self.evidence = evidence
        self.active = True

    def end(self, reason: str, *, actor: str, rule: str) -> None:
        if not self.active:
            raise InvalidTransitionError(f"relationship {self.id} has already ended")
        if not reason.strip():
            raise InvalidValueError("ending a relationship needs a reason")
        clean_text(reason, "reason")
        self._ended(reason=reason, actor=actor, rule=rule)

    @event(Ended)
    def _ended(self, reason: str, actor: str, rule: str) -> None:
        self.active = False
