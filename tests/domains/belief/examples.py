"""Example claims, evidence and beliefs for the belief tests: a start time and sane defaults."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

from memhall.domains.belief import Belief, Claim, Evidence, EvidenceKind, believe
from memhall.domains.values import BeliefState, Layer, SourceKind

T0 = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)
ROOT = "nas-down"


def day(n: float) -> datetime:
    return T0 + timedelta(days=n)


def claim(**fields: Any) -> Claim:
    values: dict[str, Any] = {
        "claim_root": ROOT,
        "subject": "the NAS is down",
        "source_kind": SourceKind.HEARSAY,
        "source_agent": "codex",
        "author": "gemini",
        "occurred_at": T0,
        "recorded_at": T0,
        "position": 1,
        "topics": ("nas",),
    }
    values.update(fields)
    if values["source_kind"] is not SourceKind.HEARSAY and "source_agent" not in fields:
        values["source_agent"] = None
    return Claim(**values)


def evidence(
    kind: EvidenceKind = EvidenceKind.SUPPORTS,
    source: SourceKind = SourceKind.FIRSTHAND,
    *,
    at: datetime = T0,
    position: int = 2,
    **fields: Any,
) -> Evidence:
    values: dict[str, Any] = {
        "claim_root": ROOT,
        "kind": kind,
        "source_kind": source,
        "actor": "maki",
        "occurred_at": at,
        "recorded_at": at,
        "position": position,
        "from_agent": "grok" if source is SourceKind.HEARSAY else None,
    }
    if kind is EvidenceKind.CONTRADICTS:
        values["text"] = "the NAS is up"
    values.update(fields)
    return Evidence(**values)


def belief(
    state: BeliefState = BeliefState.INFLUENCING,
    confidence: int = 58,
    *,
    layer: Layer = Layer.L2,
    **claim_fields: Any,
) -> Belief:
    """A belief in the example claim, placed in the given state and confidence."""
    start = believe(claim(**claim_fields))
    return replace(start, state=state, confidence=confidence, layer=layer)
