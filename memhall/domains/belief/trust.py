"""Trust(observer ← source, topic): a table folded from trust events, each number with its causes."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum

from memhall.domains.belief.belief import Belief, Revision
from memhall.domains.belief.guardrail import initial_confidence
from memhall.domains.belief.hearsay import NEUTRAL_TRUST, check_trust
from memhall.domains.belief.records import AsOf, Claim, Evidence, check_times
from memhall.domains.belief.revision import rule
from memhall.domains.errors import InvalidValueError
from memhall.domains.values import DEFAULT_IMPLANTED_CONFIDENCE, SourceKind

#: What a source loses on a topic each time its claim there is corrected by firsthand
#: evidence. 0.15 from neutral: 0.50 → 0.35 → 0.20 → 0.05, i.e. hearsay believed at
#: 58 → 47 → 35 → 16; the third correction takes the source below `heard`.
CORRECTION_PENALTY = 0.15


class TrustChange(str, Enum):
    SET = "set"  # set by the ratify owner
    CORRECTED = "corrected"  # a claim of the source's was corrected by firsthand evidence


@dataclass(frozen=True, slots=True)
class TrustSet:
    """The ratify owner sets a trust value (topic None: the source's general trust)."""

    observer: str
    source: str
    topic: str | None
    value: float
    by: str
    reason: str
    position: int
    occurred_at: datetime
    recorded_at: datetime

    def __post_init__(self) -> None:
        check_trust(self.value)
        check_times(self.occurred_at, self.recorded_at)


@dataclass(frozen=True, slots=True)
class SourceCorrected:
    """The source's hearsay on `claim_root` was corrected by `by`'s firsthand evidence;
    it loses trust on each of the claim's topics (none: its general trust)."""

    observer: str
    source: str
    topics: tuple[str, ...]
    claim_root: str
    by: str
    position: int
    occurred_at: datetime
    recorded_at: datetime

    def __post_init__(self) -> None:
        check_times(self.occurred_at, self.recorded_at)


TrustEvent = TrustSet | SourceCorrected


@dataclass(frozen=True, slots=True)
class TrustCause:
    """One step in a trust number's story, with the value it left."""

    change: TrustChange
    position: int
    at: datetime
    by: str
    value: float
    #: the corrected claim root, or the reason the owner gave
    detail: str


@dataclass(frozen=True, slots=True)
class TrustScore:
    value: float = NEUTRAL_TRUST
    causes: tuple[TrustCause, ...] = ()


@dataclass(frozen=True, slots=True)
class TrustRow:
    observer: str
    source: str
    topic: str | None
    value: float
    causes: tuple[TrustCause, ...]


Key = tuple[str, str, str | None]


@dataclass(frozen=True)
class TrustTable:
    """Trust by (observer, source, topic); topic None is the source's general trust."""

    scores: Mapping[Key, TrustScore] = field(default_factory=dict)

    @classmethod
    def fold(cls, events: Iterable[TrustEvent], as_of: AsOf | None = None) -> TrustTable:
        """The table as of `as_of` (all events when None), applied in log order."""
        # One correction may catch a source out for several observers at once (everyone
        # whose belief it corrected), so an event is (position, kind, observer, source).
        chosen: dict[tuple[int, str, str, str], TrustEvent] = {}
        for event in events:
            if as_of is None or as_of.counts(event.recorded_at, event.position):
                key = (event.position, type(event).__name__, event.observer, event.source)
                if chosen.setdefault(key, event) != event:
                    raise InvalidValueError(f"two different trust events at @{event.position}")
        table = cls()
        for key in sorted(chosen):
            table = table.applied(chosen[key])
        return table

    def applied(self, event: TrustEvent) -> TrustTable:
        scores = dict(self.scores)
        if isinstance(event, TrustSet):
            key = (event.observer, event.source, event.topic)
            cause = TrustCause(TrustChange.SET, event.position, event.occurred_at, event.by,
                               event.value, event.reason)
            causes = scores[key].causes if key in scores else ()
            scores[key] = TrustScore(event.value, (*causes, cause))
        else:
            for topic in event.topics or (None,):
                base = self.score(event.observer, event.source, topic)
                value = round(max(0.0, base.value - CORRECTION_PENALTY), 2)
                cause = TrustCause(TrustChange.CORRECTED, event.position, event.occurred_at,
                                   event.by, value, event.claim_root)
                scores[(event.observer, event.source, topic)] = TrustScore(
                    value, (*base.causes, cause)
                )
        return TrustTable(scores)

    def score(self, observer: str, source: str, topic: str | None) -> TrustScore:
        """A topic nobody has scored falls back to the general trust, then to neutral."""
        for key in ((observer, source, topic), (observer, source, None)):
            if key in self.scores:
                return self.scores[key]
        return TrustScore()

    def trust(self, observer: str, source: str, topics: Iterable[str] = ()) -> TrustRow:
        """The trust that governs a claim: the lowest over its topics (ties: the first
        topic by name), the general trust when it has none."""
        candidates: list[str | None] = [*sorted(set(topics))] or [None]
        rows = [self._row(observer, source, topic) for topic in candidates]
        return min(rows, key=lambda row: row.value)

    def _row(self, observer: str, source: str, topic: str | None) -> TrustRow:
        score = self.score(observer, source, topic)
        return TrustRow(observer, source, topic, score.value, score.causes)

    def rows(
        self, observer: str | None = None, source: str | None = None, topic: str | None = None
    ) -> tuple[TrustRow, ...]:
        """The recorded numbers, filtered, in a stable order (what `memhall trust` lists)."""
        found = [
            TrustRow(o, s, t, score.value, score.causes)
            for (o, s, t), score in self.scores.items()
            if (observer is None or o == observer)
            and (source is None or s == source)
            and (topic is None or t == topic)
        ]
        return tuple(sorted(found, key=lambda r: (r.observer, r.source, r.topic or "")))

    def seen_by(self, observer: str) -> ObserverTrust:
        return ObserverTrust(self, observer)


@dataclass(frozen=True)
class ObserverTrust:
    """One observer's view of the table: what a fold on its behalf consults."""

    table: TrustTable
    observer: str

    def of(self, source: str, topics: Iterable[str] = ()) -> float:
        return self.table.trust(self.observer, source, topics).value


def source_corrected(
    belief: Belief, evidence: Evidence, observer: str, trust: float = NEUTRAL_TRUST
) -> SourceCorrected | None:
    """The trust event a revision implies: when `evidence` corrects this observer's belief
    in a hearsay claim, the claim's teller is caught out on the claim's topics. Derived at
    the evidence's own position so that recording it, or deriving it on replay, agree."""
    revision, _ = rule(belief, evidence, trust)
    if revision is not Revision.CORRECT or belief.ratified:
        return None
    if belief.source_kind is not SourceKind.HEARSAY or belief.source_agent is None:
        return None
    if belief.origin != belief.source_agent:
        return None  # the understanding corrected here was the corrector's, not the teller's
    return SourceCorrected(
        observer=observer,
        source=belief.source_agent,
        topics=belief.topics,
        claim_root=belief.claim_root,
        by=evidence.actor,
        position=evidence.position,
        occurred_at=evidence.occurred_at,
        recorded_at=evidence.recorded_at,
    )


@dataclass(frozen=True, slots=True)
class Rescore:
    """A hearsay claim whose initial confidence moved because its teller's trust did."""

    claim_root: str
    source: str
    topic: str | None
    before: int
    after: int


def rescored(
    claims: Iterable[Claim],
    before: ObserverTrust,
    after: ObserverTrust,
    *,
    source: str | None = None,
    implanted: int = DEFAULT_IMPLANTED_CONFIDENCE,
) -> tuple[Rescore, ...]:
    """The hearsay (of `source`, or of anyone) whose initial confidence differs between two
    views of trust, in log order: what to record when a source is caught out. A fold with
    the later view gives the same numbers; recording them makes the drop visible."""
    changed = []
    for claim in sorted(claims, key=lambda c: c.position):
        teller = claim.source_agent
        if claim.source_kind is not SourceKind.HEARSAY or teller is None:
            continue
        if source is not None and teller != source:
            continue
        old = initial_confidence(claim, before.of(teller, claim.topics), implanted)
        new = initial_confidence(claim, after.of(teller, claim.topics), implanted)
        if old != new:
            topic = after.table.trust(after.observer, teller, claim.topics).topic
            changed.append(Rescore(claim.claim_root, teller, topic, old, new))
    return tuple(changed)
