"""Retrieval weights from the dynamics: what recall multiplies in, and the nudges it records.

For one observer, each candidate of a recall's pool gets a few bounded
factors — its retention (forgetting: 1, or the faded weight below the
threshold), its source (a wandering insight weighs `insight_weight`), the
mood's congruence (1 ± max_reweight), one-hop activation from the task's nodes
(up to 1 + spread_factor) and its reconsolidated salience (1 ± salience_weight)
— and their product. None of them is a fact, none is shown as text; `--explain`
may show them. The nudges are what the recall's one event carries for
reconsolidation. Everything here is a function of a `Snapshot` the hall read
and an as-of time, so it is the same after a rebuild.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import NamedTuple

from memhall.domains.dynamics.activation import Tier, boosts, spread
from memhall.domains.dynamics.config import DynamicsConfig, TierConfig
from memhall.domains.dynamics.forgetting import retention_of
from memhall.domains.dynamics.graph import Node, NodeKind, TagGraph
from memhall.domains.dynamics.mood import congruence, mood
from memhall.domains.dynamics.reconsolidation import Context, RetrievalMeta, reconsolidate
from memhall.domains.dynamics.record import WANDERING, MemoryRecord


@dataclass(frozen=True)
class Snapshot:
    """What the hall read of one observer's memory for one recall."""

    observer: str
    #: the candidates (any other memory the caller wants weighed may be here too)
    records: Mapping[str, MemoryRecord]
    #: the observer's newest memories, for the mood
    recent: Sequence[MemoryRecord] = ()
    #: recorded wandering insights: their weak links spread activation too
    insights: Sequence[MemoryRecord] = ()
    #: summed reconsolidation deltas per memory id (field -> delta)
    nudges: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    config: DynamicsConfig = DynamicsConfig()


class Weights(NamedTuple):
    """The dynamics' factors of one candidate; `factor` is what fusion multiplies in.
    (A named tuple: a recall makes one per candidate, and it must cost next to nothing.)"""

    strength: float
    reviews: int
    stability_days: float
    faded: bool
    retention: float
    source: float
    mood: float
    activation: float
    salience: float
    #: the reconsolidated retrieval metadata recall weighs by (see `meta_of`)
    salience_meta: float
    valence_meta: float

    @property
    def factor(self) -> float:
        return self.retention * self.source * self.mood * self.activation * self.salience


_LOW = {"salience": 0.0, "stance": -1.0, "valence": -1.0, "arousal": 0.0}


def meta_of(record: MemoryRecord, deltas: Mapping[str, float] | None) -> RetrievalMeta:
    """A memory's retrieval metadata: its encoded emotional colour, a neutral salience
    and stance, moved by the nudges recalls recorded (clamped to each field's scale)."""
    base = {"salience": 0.5, "stance": 0.0, "valence": record.emotion.valence,
            "arousal": record.emotion.arousal}
    for name, delta in (deltas or {}).items():
        if name in base:
            base[name] += delta
    # clamped to each field's scale here, so the model needs no second validation
    clamped = {k: min(1.0, max(_LOW[k], v)) for k, v in base.items()}
    return RetrievalMeta.model_construct(None, **clamped)


def active_nodes(records: Iterable[MemoryRecord], names: Iterable[str]) -> set[Node]:
    """The entity nodes the task names (by tag name, whatever their kind)."""
    wanted = {n.strip().lower() for n in names if n.strip()}
    return {Node(kind, name) for record in records for kind, names_ in (
        (NodeKind.PERSON, record.people), (NodeKind.PLACE, record.places), (NodeKind.TOPIC, record.topics))
        for name in names_ if name in wanted}


def weigh(candidates: Iterable[str], as_of: datetime, snapshot: Snapshot, *,
          active: Iterable[str] = ()) -> dict[str, Weights]:
    """Weights of the candidates the snapshot holds a record of; any other candidate
    is left out (its factor is 1). `active` are the task's tag names."""
    config = snapshot.config
    wanted = [i for i in dict.fromkeys(candidates) if i in snapshot.records]
    pool = [snapshot.records[i] for i in wanted]
    current = mood(snapshot.observer, snapshot.recent, as_of, config.mood)
    lifted = _activation(pool, snapshot.insights, active, config)
    out: dict[str, Weights] = {}
    span = config.reconsolidation.salience_weight * 2
    insight = config.wandering.insight_weight
    for record in pool:
        held = retention_of(record, as_of, config.forgetting)
        deltas = snapshot.nudges.get(record.id) or {}
        salience = min(1.0, max(0.0, 0.5 + deltas.get("salience", 0.0)))
        valence = min(1.0, max(-1.0, record.emotion.valence + deltas.get("valence", 0.0)))
        out[record.id] = Weights(
            strength=held.strength, reviews=held.reviews, stability_days=held.stability_days,
            faded=held.faded, retention=held.weight,
            source=insight if record.source == WANDERING else 1.0,
            mood=congruence(current, valence, config.mood), activation=lifted.get(record.id, 1.0),
            salience=1 + span * (salience - 0.5), salience_meta=salience, valence_meta=valence,
        )
    return out


def _activation(pool: Sequence[MemoryRecord], insights: Sequence[MemoryRecord], active: Iterable[str],
                config: DynamicsConfig) -> dict[str, float]:
    """One hop from the task's nodes. Only the memories carrying an active node make links
    that touch one, so the graph is built from those alone: the same spread, a fraction
    of the work."""
    wanted = {n.strip().lower() for n in active if n.strip()}
    if not wanted:
        return {}
    carriers = [r for r in (*pool, *insights)
                if not wanted.isdisjoint(r.people) or not wanted.isdisjoint(r.places)
                or not wanted.isdisjoint(r.topics)]
    lit = active_nodes(carriers, wanted)
    if not lit:
        return {}
    # one hop reads only the links of the lit nodes: the rest of the graph is never built
    graph = TagGraph.build(carriers, insight_weight=config.wandering.insight_weight, touching=lit)
    return boosts(pool, spread(graph, lit, config.activation))


def nudges(handed: Sequence[str], as_of: datetime, snapshot: Snapshot) -> dict[str, dict[str, float]]:
    """Reconsolidation for a recall: each handed memory's salience moves toward 1 (it
    was used) and its emotional colour toward the observer's mood, by at most
    update_strength each. The deltas, rounded to 6 places, go in the recall's event."""
    config = snapshot.config
    current = mood(snapshot.observer, snapshot.recent, as_of, config.mood)
    toward = (Context(salience=1.0, valence=current.valence, arousal=current.arousal)
              if current.count else Context(salience=1.0))
    bound = config.reconsolidation.update_strength
    out: dict[str, dict[str, float]] = {}
    for ident in dict.fromkeys(handed):
        record = snapshot.records.get(ident)
        if record is None:
            continue
        moved = reconsolidate(meta_of(record, snapshot.nudges.get(ident)), toward, config.reconsolidation)
        changes = {k: max(-bound, min(bound, round(v, 6))) for k, v in moved.changes.items()}
        changes = {k: v for k, v in changes.items() if v != 0}
        if changes:
            out[ident] = dict(sorted(changes.items()))
    return out


def tiers(ranked: Sequence[str], handed: int, config: TierConfig) -> dict[str, Tier]:
    """The seed's tiers named by what recall did: what it handed out is working memory,
    the rest of its candidate pool (up to preconscious_max) preconscious, the rest
    subconscious."""
    out: dict[str, Tier] = {}
    for index, ident in enumerate(ranked):
        if index < handed:
            out[ident] = Tier.WORKING
        elif index < max(handed, config.preconscious_max):
            out[ident] = Tier.PRECONSCIOUS
        else:
            out[ident] = Tier.SUBCONSCIOUS
    return out
