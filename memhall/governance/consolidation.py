"""Consolidation ("sleep") as a use case: recent episodes become cited L1 note candidates.

The pure rule (memhall.domains.dynamics.consolidation) proposes; this module
reads what the acting principal holds, and writes each proposal through the
hall's batched write path like any other L1 write — the policy decides each
one, and the note reaches L2 only through the four questions. Each note's
idempotency key is a digest of its sorted source ids, so re-running writes
nothing new for the same sources, and a crash-retried run writes nothing twice.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from memhall.domains.dynamics.config import DynamicsConfig
from memhall.domains.dynamics.consolidation import NoteProposal, consolidate
from memhall.domains.dynamics.record import CONSOLIDATION
from memhall.domains.entry import EntryDraft, draft
from memhall.domains.values import Kind, Layer, principal_name
from memhall.governance import memory_records as records
from memhall.governance.hall import Hall
from memhall.governance.views import View
from memhall.policies.model import Action


class NoteWritten(View):
    entry_id: str
    key: str
    text: str
    source_ids: list[str]
    confidence: int
    priority: float
    #: False when the same sources were already consolidated (nothing new written)
    new: bool


class Consolidation(View):
    domain: str
    actor: str
    since: datetime
    as_of: datetime
    episodes: int
    notes: list[NoteWritten] = []


def note_draft(note: NoteProposal, actor: str) -> EntryDraft:
    """An L1 candidate citing every source (evidence refs), at its sources' lowest confidence."""
    return draft(
        layer=Layer.L1, kind=Kind.CLAIM, text=note.text,
        interpretation=(f"Consolidated by {actor} from {len(note.source_ids)} episodes "
                        f"({note.first_at.date().isoformat()} to {note.last_at.date().isoformat()}): "
                        "an inference, not a fact; it reaches L2 only through the four questions."),
        tags={"people": note.people, "places": note.places, "topics": note.topics},
        provenance={"evidence_refs": note.source_ids}, confidence=note.confidence,
        idempotency_key=note.key,
    )


def run(hall: Hall, actor: str, domain: str, config: DynamicsConfig, *,
        since: datetime | None = None, as_of: datetime | None = None) -> Consolidation:
    """Consolidate the actor's recent episodes of `domain` (the window ends at `as_of`, now by
    default, and starts at `since`, else window_days before it); best notes first."""
    actor = principal_name(actor)
    stream, _ = hall.ask(actor, Action.SEARCH, domain)
    end = as_of or hall.clock()
    start = since if since is not None else end - timedelta(days=config.consolidation.window_days)
    scope = records.Scope.of(hall.gate, actor, stream.name)
    with hall.store.read() as conn:
        episodes = records.episodes_since(conn, stream, scope, start)
        made = records.proposal_keys(conn, stream, CONSOLIDATION)
    notes = consolidate(episodes, end, config.consolidation, since=start, existing=made)
    written = hall.write_many(actor, stream.name, [note_draft(n, actor) for n in notes]) if notes else []
    return Consolidation(
        domain=stream.name, actor=actor, since=start, as_of=end,
        episodes=sum(1 for e in episodes if start <= e.occurred_at <= end),
        notes=[NoteWritten(entry_id=w.entry_id, key=n.key, text=n.text, source_ids=list(n.source_ids),
                           confidence=n.confidence, priority=round(n.priority, 6),
                           new=not w.duplicate and not w.replayed)
               for n, w in zip(notes, written)],
    )
