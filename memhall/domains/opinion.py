"""The SubjectiveClaim aggregate: what one observer holds about an entity, by category.

A subjective claim is an observer's own judgement of someone or something —
"codex is reliable on storage" (category `trust`), "gemini prefers short
answers" — kept apart from claims about the world: it belongs to its observer,
never to the hall. One aggregate per (domain, observer, entity, category,
topic), so its events are that judgement's history; the version is the
aggregate's. Source trust (SPEC §5, issue 11 §5) is the category `trust`:
`value` is Trust(observer ← entity, topic) in 0..1, its `confidence` the same
number in percent, and each event says what moved it (`cause`).
"""

from __future__ import annotations

import math
import uuid
from datetime import datetime
from enum import Enum

from eventsourcing.domain import event

from memhall.domains.aggregate import Aggregate
from memhall.domains.values import clean_text
from memhall.domains.errors import InvalidTransitionError, InvalidValueError

#: the category source trust is stored under (issue 12: trust is a subjective claim)
TRUST = "trust"

_NAMESPACE = uuid.UUID("6f1c5a52-7d1e-4b8e-9a51-3b3f0a6c11d7")


class Stance(str, Enum):
    POSITIVE = "positive"
    NEGATIVE = "negative"
    NEUTRAL = "neutral"
    MIXED = "mixed"


class Cause(str, Enum):
    """What made the observer state or revise the judgement."""

    STATED = "stated"  # the observer said so
    SET = "set"  # set by the ratify owner (trust)
    CORRECTED = "corrected"  # a claim of the entity's was corrected by firsthand evidence


def opinion_id(domain: str, observer: str, entity: str, category: str,
               topic: str | None = None) -> uuid.UUID:
    """The one aggregate of an observer's judgement of an entity in a category (and topic)."""
    key = "\x1f".join((domain, observer, entity, category, topic or ""))
    return uuid.uuid5(_NAMESPACE, key)


def _check(confidence: int, value: float | None) -> None:
    if not 0 <= confidence <= 100:
        raise InvalidValueError(f"confidence must be 0..100, not {confidence}")
    if value is not None and (math.isnan(value) or not 0.0 <= value <= 1.0):
        raise InvalidValueError(f"a value must be between 0 and 1, not {value}")


class SubjectiveClaim(Aggregate):
    TOPIC = "memhall.SubjectiveClaim"

    class Created(Aggregate.Created):
        TOPIC = "memhall.SubjectiveClaim.Created"

    class Stated(Created):
        TOPIC = "memhall.SubjectiveClaim.Stated"
        domain: str
        observer: str
        entity: str
        category: str
        topic: str | None
        statement: str
        stance: Stance
        confidence: int
        value: float | None
        evidence: tuple[str, ...]
        cause: Cause
        #: the reason given, or the corrected claim root
        detail: str
        occurred_at: datetime
        #: memories that speak against it (the observer keeps the judgement regardless)
        contradicting: tuple[str, ...] = ()

    class Revised(Aggregate.Event):
        TOPIC = "memhall.SubjectiveClaim.Revised"
        statement: str
        stance: Stance
        confidence: int
        value: float | None
        evidence: tuple[str, ...]
        cause: Cause
        detail: str
        occurred_at: datetime
        contradicting: tuple[str, ...] = ()

    class Withdrawn(Aggregate.Event):
        TOPIC = "memhall.SubjectiveClaim.Withdrawn"
        reason: str

    @staticmethod
    def create_id(domain: str, observer: str, entity: str, category: str,
                  topic: str | None) -> uuid.UUID:
        return opinion_id(domain, observer, entity, category, topic)

    @event(Stated)
    def __init__(self, *, domain: str, observer: str, entity: str, category: str,
                 topic: str | None, statement: str, stance: Stance, confidence: int,
                 value: float | None, evidence: tuple[str, ...], cause: Cause, detail: str,
                 occurred_at: datetime, actor: str, rule: str, contradicting: tuple[str, ...] = ()) -> None:
        self.domain = domain
        self.observer = observer
        self.entity = entity
        self.category = category
        self.topic = topic
        self.statement = statement
        self.stance = stance
        self.confidence = confidence
        self.value = value
        self.evidence = evidence
        self.contradicting = contradicting
        self.active = True

    @classmethod
    def state(cls, domain: str, observer: str, entity: str, category: str, *,
              statement: str, stance: Stance = Stance.NEUTRAL, confidence: int,
              value: float | None = None, evidence: tuple[str, ...] = (),
              contradicting: tuple[str, ...] = (), topic: str | None = None,
              cause: Cause = Cause.STATED, detail: str = "", occurred_at: datetime, actor: str,
              rule: str) -> SubjectiveClaim:
        _check(confidence, value)
        _check_evidence(evidence, contradicting)
        if not statement.strip():
            raise InvalidValueError("a subjective claim needs a statement")
        clean_text(statement, "statement")
        return cls(domain=domain,
                   observer=observer, entity=entity, category=category, topic=topic,
                   statement=statement, stance=stance, confidence=confidence, value=value,
                   evidence=evidence, cause=cause, detail=detail, occurred_at=occurred_at,
                   actor=actor, rule=rule, contradicting=contradicting)

    def revise(self, *, statement: str | None = None, stance: Stance | None = None,
               confidence: int, value: float | None = None, evidence: tuple[str, ...] = (),
               contradicting: tuple[str, ...] = (), cause: Cause = Cause.STATED, detail: str = "",
               occurred_at: datetime, actor: str, rule: str) -> None:
        _check(confidence, value)
        _check_evidence(evidence, contradicting)
        clean_text(statement or "", "statement")
        clean_text(detail, "detail")
        self._revised(statement=statement or self.statement, stance=stance or self.stance,
                      confidence=confidence, value=value, evidence=evidence, cause=cause,
                      detail=detail, occurred_at=occurred_at, actor=actor, rule=rule,
                      contradicting=contradicting)

    @event(Revised)
    def _revised(self, statement: str, stance: Stance, confidence: int, value: float | None,
                 evidence: tuple[str, ...], cause: Cause, detail: str, occurred_at: datetime,
                 actor: str, rule: str, contradicting: tuple[str, ...] = ()) -> None:
        self.statement = statement
        self.stance = stance
        self.confidence = confidence
        self.value = value
        self.evidence = evidence
        self.contradicting = contradicting
        self.active = True

    def withdraw(self, reason: str, *, actor: str, rule: str) -> None:
        if not self.active:
            raise InvalidTransitionError(f"subjective claim {self.id} is already withdrawn")
        if not reason.strip():
            raise InvalidValueError("withdrawing needs a reason")
        clean_text(reason, "reason")
        self._withdrawn(reason=reason, actor=actor, rule=rule)

    @event(Withdrawn)
    def _withdrawn(self, reason: str, actor: str, rule: str) -> None:
        self.active = False


def _check_evidence(supporting: tuple[str, ...], contradicting: tuple[str, ...]) -> None:
    both = sorted(set(supporting) & set(contradicting))
    if both:
        raise InvalidValueError(f"{both[0]} cannot both support and contradict the same judgement")


def trust_statement(entity: str, topic: str | None, value: float) -> str:
    """The fixed wording of a trust claim (a label, never prose)."""
    return f"trust in {entity} on {topic or '(general)'}: {value:.2f}"


def stance_of(value: float) -> Stance:
    if value > 0.5:
        return Stance.POSITIVE
    if value < 0.5:
        return Stance.NEGATIVE
    return Stance.NEUTRAL
