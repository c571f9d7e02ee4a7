"""Wandering as a use case: a seeded walk over the actor's tag graph, insights written as L1 candidates.

Nothing runs by itself: a person, a hook or a scheduler calls it when the
agent is idle. The walk reads the graph of what the actor holds, weighted by
retention as of the newest memory it was built from (not the wall clock, so
the same log walks the same way), and ignores the insights already recorded;
each new insight is written through the hall as an L1 candidate with
`source=wandering` (its idempotency key), weight 0.1 (confidence 10), the two
nodes it links, the walk that found it, and the memories behind both nodes.
The same seed over the same log therefore proposes the same insights, and a
second run writes nothing new.
"""

from __future__ import annotations

from datetime import datetime

from memhall.domains.dynamics.config import DynamicsConfig
from memhall.domains.dynamics.forgetting import retention_of
from memhall.domains.dynamics.graph import TagGraph
from memhall.domains.dynamics.mood import is_calm, mood
from memhall.domains.dynamics.record import MemoryRecord
from memhall.domains.dynamics.wandering import InsightProposal, insight_key, wander
from memhall.domains.entry import EntryDraft, draft
from memhall.domains.errors import InvalidValueError
from memhall.domains.values import Kind, Layer, principal_name
from memhall.governance import memory_records as records
from memhall.governance.hall import Hall
from memhall.governance.views import View
from memhall.policies.model import Action


class InsightWritten(View):
    entry_id: str
    nodes: list[str]
    text: str
    novelty: float
    step: int
    walk: list[str]
    source_ids: list[str]
    new: bool


class Wandering(View):
    domain: str
    actor: str
    seed: int
    steps: int
    as_of: datetime | None
    mood_valence: float
    mood_arousal: float
    calm: bool
    path: list[str] = []
    insights: list[InsightWritten] = []
    #: why nothing was walked, when nothing was
    skipped: str = ""


def insight_draft(insight: InsightProposal) -> EntryDraft:
    walk = " → ".join(insight.walk)
    return draft(
        layer=Layer.L1, kind=Kind.CLAIM, text=insight.text,
        interpretation=(f"A synthetic insight from wandering (seed {insight.seed}, step {insight.step}, "
                        f"novelty {insight.novelty:.2f}, weight {insight.weight}); walk: {walk}. "
                        "A proposal, not a fact."),
        tags={"people": insight.people, "places": insight.places, "topics": insight.topics},
        provenance={"evidence_refs": insight.source_ids},
        confidence=round(100 * insight.weight), idempotency_key=insight_key(insight.key),
    )


def lived_as_of(held: list[MemoryRecord]) -> datetime | None:
    """The moment the walk weighs retention at: the newest memory that is not a proposal."""
    return max((r.occurred_at for r in held if not r.proposed_by_a_dynamic), default=None)


def run(hall: Hall, actor: str, domain: str, config: DynamicsConfig, *, seed: int | None = None,
        steps: int | None = None, as_of: datetime | None = None, anyway: bool = False) -> Wandering:
    """Walk once; `seed` None seeds from the log's length (reproducible, yet new after writes);
    an aroused mood skips the walk unless `anyway`."""
    actor = principal_name(actor)
    if steps is not None and not 1 <= steps <= 10_000:
        raise InvalidValueError("steps must be between 1 and 10000")
    stream, _ = hall.ask(actor, Action.SEARCH, domain)
    scope = records.Scope.of(hall.gate, actor, stream.name)
    with records.collector_paused():
        return _walk(hall, actor, stream.name, scope, config, seed, steps, as_of, anyway)


def _walk(hall: Hall, actor: str, domain: str, scope: records.Scope, config: DynamicsConfig,
          seed: int | None, steps: int | None, as_of: datetime | None, anyway: bool) -> Wandering:
    stream = hall.streams.stream(domain)
    with hall.store.read() as conn:
        held = records.held_records(conn, stream, scope)
    walk_seed = seed if seed is not None else hall.streams.event_count(stream.name)
    moment = as_of or lived_as_of(held)
    lived = [r for r in held if not r.proposed_by_a_dynamic]
    feeling = mood(actor, lived, moment or hall.clock(), config.mood)
    calm = is_calm(feeling, config.mood)
    result = Wandering(domain=stream.name, actor=actor, seed=walk_seed, steps=steps or config.wandering.steps,
                       as_of=moment, mood_valence=round(feeling.valence, 6),
                       mood_arousal=round(feeling.arousal, 6), calm=calm)
    if not calm and not anyway:
        return result.model_copy(update={"skipped": (
            f"the mood is not calm (arousal {feeling.arousal:.2f} > {config.mood.calm_arousal}); "
            "wandering suits a calm mind (--anyway walks regardless)")})
    if moment is None:
        return result.model_copy(update={"skipped": "nothing to wander over: no memories held"})
    weights = {r.id: retention_of(r, moment, config.forgetting).weight for r in lived}
    graph = TagGraph.build(held, weights=weights, insight_weight=config.wandering.insight_weight)
    # recorded insights are in the graph as wandering links, which the walk never follows
    # and never proposes again
    walk = wander(graph, seed=walk_seed, config=config.wandering, steps=steps)
    drafts = [insight_draft(i) for i in walk.insights]
    written = hall.write_many(actor, stream.name, drafts) if drafts else []
    return result.model_copy(update={
        "path": [str(n) for n in walk.path],
        "insights": [InsightWritten(entry_id=w.entry_id, nodes=list(i.nodes), text=i.text,
                                    novelty=i.novelty, step=i.step, walk=list(i.walk),
                                    source_ids=list(i.source_ids), new=not w.duplicate and not w.replayed)
                     for i, w in zip(walk.insights, written)],
    })

