"""A belief in one claim root as it stands at a time, with the history of how it moved."""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import datetime
from enum import Enum
from typing import Any

from memhall.domains.belief.records import Evidence, EvidenceKind
from memhall.domains.errors import InvalidValueError
from memhall.domains.values import BeliefState, Layer, SourceKind

RATIFIED = (Layer.L3, Layer.L4)


class Revision(str, Enum):
    """What a piece of evidence (or time) did to a belief."""

    KEEP = "keep"  # nothing changed: unrelated, unheard, or corroborating ratified canon
    REINFORCE = "reinforce"  # +8, cap 100
    CONFIRM = "confirm"  # firsthand support settled a doubt: influencing, ≥ 72
    DOUBT = "doubt"  # −20, floor 10
    ANOMALY = "anomaly"  # −30, floor 10
    CORRECT = "correct"  # firsthand contrary evidence replaced a doubtful understanding
    FADE = "fade"  # hearsay aging: −8 per period, `past` at 34


@dataclass(frozen=True, slots=True)
class Cause:
    """Why a belief changed: the revision, and the event and principal behind it (aging
    has neither)."""

    revision: Revision
    position: int | None = None
    principal: str | None = None


@dataclass(frozen=True, slots=True)
class Understanding:
    """A prior understanding, held until `at`, when `cause` changed it: "I used to think X"."""

    state: BeliefState
    confidence: int
    subject: str
    interpretation: str | None
    at: datetime
    cause: Cause


@dataclass(frozen=True, slots=True)
class Corroboration:
    """A principal other than the origin who first supported the belief at `position`."""

    principal: str
    position: int
    at: datetime


@dataclass(frozen=True, slots=True)
class Belief:
    """A holder's belief in a claim root, as of `as_of` (ages are applied up to it)."""

    claim_root: str
    subject: str
    interpretation: str | None
    source_kind: SourceKind
    source_agent: str | None
    topics: tuple[str, ...]
    layer: Layer
    confidence: int
    state: BeliefState
    #: occurred_at of the newest evidence (or of the claim): aging counts from here
    last_evidence_at: datetime
    #: the time this value describes; aging has been applied up to here
    as_of: datetime
    #: whose word the current understanding rests on (the teller of hearsay, the author,
    #: or after a correction the witness who corrected it); never counted as a corroborator
    origin: str
    corroborators: tuple[Corroboration, ...] = ()
    #: principals who supported (or corrected) it firsthand: a witnessed belief does not fade
    witnessed_by: tuple[str, ...] = ()
    #: positions of evidence that contested a ratified (L3/L4) version of the claim
    contested_by: tuple[int, ...] = ()
    history: tuple[Understanding, ...] = ()

    def __post_init__(self) -> None:
        if not 0 <= self.confidence <= 100:
            raise InvalidValueError(f"confidence must be 0..100, not {self.confidence}")

    @property
    def ratified(self) -> bool:
        return self.layer in RATIFIED

    @property
    def fades(self) -> bool:
        """Only influencing hearsay that nobody has witnessed fades; ratified knowledge
        and canon change only by demotion, never by the passing of time."""
        return (
            self.state is BeliefState.INFLUENCING
            and self.source_kind is SourceKind.HEARSAY
            and not self.witnessed_by
            and not self.ratified
        )

    @property
    def used_to_think(self) -> tuple[Understanding, ...]:
        """Earlier understandings whose subject differs from today's, oldest first."""
        return tuple(u for u in self.history if u.subject != self.subject)

    def moved(
        self,
        *,
        confidence: int,
        state: BeliefState,
        at: datetime,
        cause: Cause,
        subject: str | None = None,
        interpretation: str | None = None,
    ) -> Belief:
        """A new value, with the current one pushed onto the history."""
        prior = Understanding(
            self.state, self.confidence, self.subject, self.interpretation, at, cause
        )
        return self.evolve(
            confidence=confidence,
            state=state,
            subject=self.subject if subject is None else subject,
            interpretation=self.interpretation if subject is None else interpretation,
            history=(*self.history, prior),
        )

    def noted(self, evidence: Evidence) -> Belief:
        """Evidence that counts restarts the aging clock; support names its corroborator
        and, if firsthand, its witness."""
        corroborators, witnessed_by = self.corroborators, self.witnessed_by
        if evidence.kind is EvidenceKind.SUPPORTS:
            who = evidence.principal
            if who != self.origin and all(c.principal != who for c in corroborators):
                corroboration = Corroboration(who, evidence.position, evidence.occurred_at)
                corroborators = (*corroborators, corroboration)
            if evidence.firsthand and evidence.actor not in witnessed_by:
                witnessed_by = (*witnessed_by, evidence.actor)
        return self.evolve(
            last_evidence_at=max(self.last_evidence_at, evidence.occurred_at),
            as_of=max(self.as_of, evidence.occurred_at),
            corroborators=corroborators,
            witnessed_by=witnessed_by,
        )

    def evolve(self, **changes: Any) -> Belief:
        """`dataclasses.replace` without its per-call introspection: a fold calls this a
        few times per event, and at 100k entries that is the cost that shows."""
        values = {name: getattr(self, name) for name in _FIELDS}
        values.update(changes)
        return Belief(**values)


_FIELDS = tuple(f.name for f in fields(Belief))
