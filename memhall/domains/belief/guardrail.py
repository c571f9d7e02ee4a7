"""What a claim's provenance allows: its ceiling, its initial confidence, and the check."""

from __future__ import annotations

from memhall.domains.belief.hearsay import NEUTRAL_TRUST, hearsay_confidence
from memhall.domains.belief.records import Claim
from memhall.domains.errors import GuardrailError, InvalidValueError
from memhall.domains.values import (
    DEFAULT_IMPLANTED_CONFIDENCE,
    INITIAL_CONFIDENCE,
    SourceKind,
)

#: A witness may be certain: the guardrail exists so that hearsay cannot be laundered into
#: certainty by a flag, not to stop someone stating what they saw with full conviction.
FIRSTHAND_CEILING = 100


def max_confidence(
    source_kind: SourceKind,
    trust: float = NEUTRAL_TRUST,
    implanted: int = DEFAULT_IMPLANTED_CONFIDENCE,
) -> int:
    """The highest confidence a claim of this provenance may be written with: firsthand
    100, hearsay what the observer's trust in its teller gives, implanted the policy's value."""
    if source_kind is SourceKind.FIRSTHAND:
        return FIRSTHAND_CEILING
    if source_kind is SourceKind.HEARSAY:
        return hearsay_confidence(trust)
    if not 0 <= implanted <= 100:
        raise InvalidValueError(f"implanted confidence must be 0..100, not {implanted}")
    return implanted


def initial_confidence(
    claim: Claim, trust: float = NEUTRAL_TRUST, implanted: int = DEFAULT_IMPLANTED_CONFIDENCE
) -> int:
    """Where a belief in the claim starts for an observer trusting its teller at `trust`.

    Without an explicit value: firsthand 78, hearsay by trust, implanted by policy. An
    explicit value is the writer's own judgement and is kept, but never above what this
    observer's provenance ceiling allows (so one writer's confidence cannot lift another
    observer above its own trust)."""
    ceiling = max_confidence(claim.source_kind, trust, implanted)
    if claim.confidence is not None:
        return min(claim.confidence, ceiling)
    if claim.source_kind is SourceKind.FIRSTHAND:
        return INITIAL_CONFIDENCE[SourceKind.FIRSTHAND]
    return ceiling


def check_confidence(
    requested: int,
    source_kind: SourceKind,
    trust: float = NEUTRAL_TRUST,
    implanted: int = DEFAULT_IMPLANTED_CONFIDENCE,
    *,
    source_agent: str | None = None,
) -> int:
    """Refuse an explicit confidence above what the provenance allows (exit 3); a value at
    or below it is the writer's to choose."""
    if not 0 <= requested <= 100:
        raise InvalidValueError(f"confidence must be 0..100, not {requested}")
    ceiling = max_confidence(source_kind, trust, implanted)
    if requested > ceiling:
        what = source_kind.value
        if source_kind is SourceKind.HEARSAY:
            what = f"hearsay from {source_agent or 'its source'} (trust {trust:.2f})"
        raise GuardrailError(
            f"refused: {what} may be written with confidence at most {ceiling}, not {requested}"
        )
    return requested
