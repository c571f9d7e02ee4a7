"""Consolidation ("sleep"): recent episodes of one entity condensed into a semantic note proposal.

The note is extractive (each episode's first sentence, in time order), cites
every source, inherits the lowest trust and confidence among them, and is an L1
candidate: it reaches L2 only through the four questions, like any write. Its
idempotency key is its sorted source ids, so the same sources never make a
second note, and the same records always make the same notes in the same order.
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from collections.abc import Collection, Iterable, Sequence
from datetime import datetime, timedelta
from typing import Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from memhall.domains.dynamics.config import ConsolidationConfig
from memhall.domains.dynamics.graph import Node, NodeKind, entity_nodes
from memhall.domains.dynamics.record import CONSOLIDATION, MemoryRecord
from memhall.domains.values import Kind, Layer, Status

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])")


class NoteProposal(BaseModel):
    """A semantic note the hall may write as an L1 candidate; never a fact."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    layer: Literal[Layer.L1] = Layer.L1
    source: Literal["consolidation"] = "consolidation"
    key: str
    text: str
    people: tuple[str, ...] = ()
    places: tuple[str, ...] = ()
    topics: tuple[str, ...] = ()
    source_ids: tuple[str, ...]
    trust: float = Field(ge=0, le=1)
    confidence: int = Field(ge=0, le=100)
    priority: float = Field(ge=0, le=1)
    first_at: AwareDatetime
    last_at: AwareDatetime


def note_key(source_ids: Iterable[str]) -> str:
    """The idempotency key: a digest of the sorted source ids."""
    joined = "\n".join(sorted(source_ids)).encode("utf-8")
    return f"{CONSOLIDATION}:{hashlib.sha256(joined).hexdigest()[:32]}"


def consolidate(records: Iterable[MemoryRecord], as_of: datetime, config: ConsolidationConfig,
                *, since: datetime | None = None, existing: Collection[str] = ()) -> list[NoteProposal]:
    """Notes for every entity with at least `min_cluster` episodes in the window, best first.

    The window is `since` (or `as_of` − window_days) up to `as_of`. Notes already
    made are skipped: those among `records` (a note's causes are its sources)
    and those whose keys are in `existing`.
    """
    records = list(records)
    start = since if since is not None else as_of - timedelta(days=config.window_days)
    made = set(existing) | {note_key(r.causes) for r in records if r.source == CONSOLIDATION}
    episodes = {r.id: r for r in records if _eligible(r, start, as_of)}
    clusters = _clusters(episodes.values(), config.min_cluster)
    notes = [_note(subjects, part, config) for ids, subjects in clusters.items()
             for part in _parts([episodes[i] for i in ids], config)]
    fresh = [n for n in notes if n.key not in made]
    return sorted(fresh, key=lambda n: (-n.priority, n.key))


def _eligible(record: MemoryRecord, start: datetime, as_of: datetime) -> bool:
    return (record.kind is Kind.EPISODE and record.status is Status.ACTIVE
            and not record.proposed_by_a_dynamic and start <= record.occurred_at <= as_of)


def _clusters(episodes: Iterable[MemoryRecord], minimum: int) -> dict[frozenset[str], list[Node]]:
    """Episode sets by entity; entities with the same set share a note, and a set
    inside a larger one is left to the larger note."""
    by_entity: dict[Node, set[str]] = defaultdict(set)
    for episode in episodes:
        for node in entity_nodes(episode):
            by_entity[node].add(episode.id)
    sets: dict[frozenset[str], list[Node]] = defaultdict(list)
    for node, ids in sorted(by_entity.items()):
        if len(ids) >= minimum:
            sets[frozenset(ids)].append(node)
    return {ids: nodes for ids, nodes in sets.items() if not any(ids < other for other in sets)}


def _parts(sources: list[MemoryRecord], config: ConsolidationConfig) -> list[list[MemoryRecord]]:
    """The cluster in time order, cut into runs of at most max_sources; a short last run
    joins the one before it rather than fall under min_cluster."""
    ordered = sorted(sources, key=lambda r: (r.occurred_at, r.id))
    size = config.max_sources
    parts = [ordered[i:i + size] for i in range(0, len(ordered), size)]
    if len(parts) > 1 and len(parts[-1]) < config.min_cluster:
        parts[-2:] = [parts[-2] + parts[-1]]
    return parts


def _note(subjects: Sequence[Node], sources: list[MemoryRecord], config: ConsolidationConfig) -> NoteProposal:
    sources = sorted(sources, key=lambda r: (r.occurred_at, r.id))
    first, last = sources[0].occurred_at, sources[-1].occurred_at
    about = ", ".join(n.name for n in subjects)
    head = f"About {about} ({len(sources)} episodes, {first.date().isoformat()} to {last.date().isoformat()}): "
    ids = tuple(sorted(r.id for r in sources))
    return NoteProposal(
        key=note_key(ids),
        text=head + " / ".join(_snippet(r.text, config.snippet_chars) for r in sources),
        people=_names(subjects, NodeKind.PERSON), places=_names(subjects, NodeKind.PLACE),
        topics=_names(subjects, NodeKind.TOPIC), source_ids=ids,
        trust=min(r.trust for r in sources), confidence=min(r.confidence for r in sources),
        priority=max(r.emotion.priority for r in sources), first_at=first, last_at=last,
    )


def _snippet(text: str, limit: int) -> str:
    sentence = _SENTENCE_END.split(" ".join(text.split()), maxsplit=1)[0]
    return sentence if len(sentence) <= limit else sentence[: limit - 1].rstrip() + "…"


def _names(nodes: Sequence[Node], kind: NodeKind) -> tuple[str, ...]:
    return tuple(n.name for n in nodes if n.kind is kind)
