"""The Evidence aggregate: one piece of evidence recorded on a claim root (SPEC §5).

Evidence is an event on a belief, never a second belief: `memhall evidence`,
a later write with the same claim root, and a duplicate written by another
principal (a corroboration) each record one. The event also records what the
hall's belief became (R(B, e) applied in the same transaction), and which of the
source's other hearsay a correction re-scored, so the read models follow from
the log alone.
"""

from __future__ import annotations

from datetime import datetime
from enum import Enum

from eventsourcing.domain import event
from pydantic import BaseModel, ConfigDict

from memhall.domains.aggregate import Aggregate
from memhall.domains.belief import EvidenceKind
from memhall.domains.values import SourceKind


class Via(str, Enum):
    """How the evidence reached the log."""

    EVIDENCE = "evidence"  # `memhall evidence`
    WRITE = "write"  # a later write with the same claim root
    CORROBORATION = "corroboration"  # the same memory written by another principal


class Rescored(BaseModel):
    """A claim whose hall confidence moved because its teller's trust did."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    entry_id: str
    claim_root: str
    before: int
    after: int


class Outcome(BaseModel):
    """The hall's belief in the claim right after the evidence (ages not applied)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    revision: str
    state: str
    confidence: int
    subject: str
    interpretation: str | None = None
    #: set when the evidence contested a ratified (L3/L4) claim: its text stays
    contested: bool = False


class Evidence(Aggregate):
    TOPIC = "memhall.Evidence"

    class Created(Aggregate.Created):
        TOPIC = "memhall.Evidence.Created"

    class Recorded(Created):
        TOPIC = "memhall.Evidence.Recorded"
        domain: str
        claim_root: str
        #: the entry that started the belief
        claim_entry: str
        kind: EvidenceKind
        source_kind: SourceKind
        from_agent: str | None
        ref: str | None
        text: str | None
        occurred_at: datetime
        via: Via
        #: the entry that carried it (a write or a corroborating duplicate), if any
        entry_id: str | None
        outcome: Outcome
        rescored: tuple[Rescored, ...] = ()

    @event(Recorded)
    def __init__(self, *, domain: str, claim_root: str, claim_entry: str, kind: EvidenceKind,
                 source_kind: SourceKind, from_agent: str | None, ref: str | None,
                 text: str | None, occurred_at: datetime, via: Via, entry_id: str | None,
                 outcome: Outcome, rescored: tuple[Rescored, ...], actor: str,
                 rule: str) -> None:
        self.domain = domain
        self.claim_root = claim_root
        self.claim_entry = claim_entry
        self.kind = kind
        self.source_kind = source_kind
        self.occurred_at = occurred_at
        self.outcome = outcome
