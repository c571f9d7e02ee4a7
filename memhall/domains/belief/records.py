"""What the log says about a claim: the claim itself, evidence on it, its layer moves."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import Enum

from memhall.domains.errors import InvalidValueError
from memhall.domains.values import Layer, SourceKind


class EvidenceKind(str, Enum):
    SUPPORTS = "supports"
    CONTRADICTS = "contradicts"
    #: a strong or abnormal conflict, e.g. under intervention (S0 §11)
    ANOMALY = "anomaly"


def _aware(name: str, value: datetime) -> None:
    # Naive and aware datetimes cannot be compared; every time here is absolute.
    if value.tzinfo is None or value.utcoffset() is None:
        raise InvalidValueError(f"{name} must carry a timezone: {value.isoformat()}")


def check_times(occurred_at: datetime, recorded_at: datetime) -> None:
    _aware("occurred_at", occurred_at)
    _aware("recorded_at", recorded_at)
    if occurred_at > recorded_at:
        raise InvalidValueError(
            f"occurred_at {occurred_at.isoformat()} is later than the time recorded "
            f"{recorded_at.isoformat()}"
        )


def _position(position: int) -> None:
    if position < 0:
        raise InvalidValueError(f"an event position cannot be negative: {position}")


def _provenance(source_kind: SourceKind, teller: str | None) -> None:
    if source_kind is SourceKind.HEARSAY and not teller:
        raise InvalidValueError("hearsay needs the agent it was heard from")
    if source_kind is not SourceKind.HEARSAY and teller:
        raise InvalidValueError(
            f"a source agent is only allowed for hearsay, not {source_kind.value}"
        )


@dataclass(frozen=True, slots=True)
class Claim:
    """The first entry with a claim root: the belief starts here."""

    claim_root: str
    subject: str
    source_kind: SourceKind
    author: str
    occurred_at: datetime
    recorded_at: datetime
    position: int
    interpretation: str | None = None
    source_agent: str | None = None
    topics: tuple[str, ...] = ()
    #: an explicit confidence given at write time; None means "what provenance gives"
    confidence: int | None = None
    layer: Layer = Layer.L2
    #: evidence refs written with the claim (documents, commits, other entries)
    refs: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        check_times(self.occurred_at, self.recorded_at)
        _position(self.position)
        _provenance(self.source_kind, self.source_agent)
        if self.confidence is not None and not 0 <= self.confidence <= 100:
            raise InvalidValueError(f"confidence must be 0..100, not {self.confidence}")
        if not self.subject.strip():
            raise InvalidValueError("a claim's subject must not be empty")

    @property
    def principal(self) -> str:
        """Whose word the claim rests on: the teller of hearsay, else its author."""
        return self.source_agent or self.author


@dataclass(frozen=True, slots=True)
class Evidence:
    """One piece of evidence recorded on a claim root."""

    claim_root: str
    kind: EvidenceKind
    source_kind: SourceKind
    #: who recorded it (the acting principal)
    actor: str
    occurred_at: datetime
    recorded_at: datetime
    position: int
    #: the teller, for hearsay
    from_agent: str | None = None
    ref: str | None = None
    text: str | None = None

    def __post_init__(self) -> None:
        if self.source_kind is SourceKind.IMPLANTED:
            raise InvalidValueError("evidence is firsthand or hearsay, never implanted")
        check_times(self.occurred_at, self.recorded_at)
        _position(self.position)
        _provenance(self.source_kind, self.from_agent)

    @property
    def firsthand(self) -> bool:
        return self.source_kind is SourceKind.FIRSTHAND

    @property
    def principal(self) -> str:
        """Who vouches for it: the teller of hearsay, the recorder of firsthand evidence."""
        return self.from_agent or self.actor


@dataclass(frozen=True, slots=True)
class LayerMove:
    """A promotion or demotion of the claim: evidence behaves differently at L3/L4."""

    claim_root: str
    layer: Layer
    position: int
    recorded_at: datetime

    def __post_init__(self) -> None:
        _aware("recorded_at", self.recorded_at)
        _position(self.position)

    @property
    def occurred_at(self) -> datetime:
        return self.recorded_at


#: Events a belief is folded from, besides its claim.
BeliefEvent = Evidence | LayerMove


@dataclass(frozen=True, slots=True)
class AsOf:
    """The cut of an "as of" question (SPEC §10): *which* events count is decided on
    recorded time, or for `@N` on log position alone; *ages* are measured to `at`.

    For `@N`, `at` is when position N was recorded, and an event at or before N was
    recorded before it in the log's order; a time a record carries of its own (evidence's
    `recorded_at`, set as its transaction ran) can be microseconds past the time of a later
    event of the same transaction, so time must not decide there."""

    at: datetime
    position: int | None = None

    def __post_init__(self) -> None:
        _aware("as-of time", self.at)

    def counts(self, recorded_at: datetime, position: int) -> bool:
        if self.position is not None:
            return position <= self.position
        return recorded_at <= self.at
