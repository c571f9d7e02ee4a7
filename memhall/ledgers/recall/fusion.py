"""Fusion: relevance leads; the other channels only reorder among relevant candidates.

A candidate's relevance is what the *what* channels say: its lexical score as
a share of the pool's best (BM25 is unbounded and shifts with the corpus, so
only its ratio within one query means anything), the embedder's cosine where
one is installed, a share of an anchor's relevance for a neighbour in time,
and, for a query that names tags and nothing else, the share of them it
carries. The *when* and *who* channels (recent_event, entity_neighborhood,
active_intent, relationship_evidence, portrait_evidence) and the entry's own
confidence and salience then multiply it by bounded factors: together they can
reorder candidates of similar relevance, never lift an irrelevant one above a
relevant one, and never bring in a candidate with no relevance at all (those
rank last, ordered by the same factors, and recall leaves them out).

Measured on the multi-agent story and LoCoMo (benchmarks/recall_eval.py): an
earlier fusion that gave recency, authority and "entries by this speaker" the
same weight as full text lost more than half of what plain BM25 finds.

Ties are broken by when the memory happened (newer first), then by its log
position (later first) — never by id, so a re-run gives the same order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from memhall.ledgers.recall import (
    active_intent,
    embedding_match,
    entity_neighborhood,
    lexical_match,
    portrait_evidence,
    recent_event,
    relationship_evidence,
)
from memhall.ledgers.recall.pool import Candidate, Pool

#: channels that say what a candidate is about
RELEVANCE = (lexical_match.NAME, embedding_match.NAME)
#: bounded multipliers of relevance: 1 + weight · (the channel's score / its best in the pool)
REORDER = {
    entity_neighborhood.NAME: 0.5,
    active_intent.NAME: 0.10,
    relationship_evidence.NAME: 0.10,
    portrait_evidence.NAME: 0.10,
    recent_event.NAME: 0.05,
}
#: a memory sharing the entities in play is relevant up to this share (topics say *what* too)
ENTITY_SHARE = 0.5
#: a neighbour in time inherits this share of its anchor's relevance, halved per turn further
NEIGHBOUR_SHARE = 0.25
#: a query naming only tags: a candidate's relevance is this times the share of them it carries
TAGGED = 0.5
#: "did X say …": what X said or did weighs this much more
ATTRIBUTED = 0.3
SALIENCE = {
    "decision": 1.0, "lesson": 0.8, "claim": 0.6, "quote": 0.6, "state": 0.4,
    "handoff": 0.4, "wrap-up": 0.4, "open-loop": 0.3, "episode": 0.3,
}
SALIENCE_BOOST = 0.05
#: confidence 0..100 maps to 1 - CONFIDENCE_SPAN .. 1
CONFIDENCE_SPAN = 0.05


@dataclass(frozen=True)
class Scored:
    candidate: Candidate
    #: channel -> (rank from 1, the channel's raw score)
    channels: dict[str, tuple[int, float]]
    #: relevance, 0..1
    fused: float
    salience: float
    #: temporal proximity to an anchor: 1 for a candidate found for itself, 0 for none
    recency: float
    final: float
    #: each reordering factor (channel or attribute -> multiplier), for --explain
    factors: dict[str, float] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return self.candidate.id

    @property
    def relevant(self) -> bool:
        return self.fused > 0

    def found_by(self, *channels: str) -> bool:
        return any(c in self.channels for c in channels)


def fuse(pool: Pool, dynamics: Mapping[str, float] | None = None) -> list[Scored]:
    """Every candidate of the pool, best first. `dynamics` (id -> factor) multiplies in
    for relevant candidates only (SPEC §7: the dynamics reorder, they never recall)."""
    return reweighed(_fused(pool), dynamics or {})


def reweighed(ranked: Sequence[Scored], dynamics: Mapping[str, float]) -> list[Scored]:
    """`ranked` (as `fuse` scored it without dynamics) with the dynamics multiplied in, best
    first: the same as fusing again with them, without scoring every channel twice."""
    out = []
    for s in ranked:
        if s.relevant and s.id in dynamics:
            factors = {**s.factors, "dynamics": dynamics[s.id]}
            product = 1.0
            for value in factors.values():
                product *= value
            s = Scored(s.candidate, s.channels, s.fused, s.salience, s.recency, s.fused * product, factors)
        out.append(s)
    return sorted(out, key=order)


def _fused(pool: Pool) -> list[Scored]:
    ranks: dict[str, dict[str, tuple[int, float]]] = {i: {} for i in pool.candidates}
    best: dict[str, float] = {}
    for channel, ranked in sorted(pool.channels.items()):
        for index, (ident, raw) in enumerate(ranked):
            ranks[ident][channel] = (index + 1, raw)
        best[channel] = max((raw for _, raw in ranked), default=0.0)
    relevance = _relevance(pool, ranks, best)
    scored = []
    for c in pool.candidates.values():
        rel, proximity = relevance.get(c.id, (0.0, 0.0))
        factors = _factors(pool, c, ranks[c.id], best)
        product = 1.0
        for value in factors.values():
            product *= value
        # an irrelevant candidate keeps its order among the irrelevant, below every relevant one
        final = rel * product if rel > 0 else -1.0 / (1.0 + product)
        scored.append(Scored(c, dict(sorted(ranks[c.id].items())), rel, SALIENCE.get(c.kind, 0.3),
                             proximity, final, factors))
    return scored


def order(s: Scored) -> tuple[float, float, int]:
    return (-s.final, -s.candidate.occurred_at.timestamp(), -s.candidate.created_position)


def _relevance(pool: Pool, ranks: dict[str, dict[str, tuple[int, float]]],
               best: dict[str, float]) -> dict[str, tuple[float, float]]:
    out: dict[str, tuple[float, float]] = {}
    named = set(pool.query.tags.all())
    for ident, found in ranks.items():
        shares = [found[ch][1] / best[ch] for ch in RELEVANCE if ch in found and best[ch] > 0]
        rel = max(shares, default=0.0)
        if entity_neighborhood.NAME in found and best.get(entity_neighborhood.NAME, 0) > 0:
            rel = max(rel, ENTITY_SHARE * found[entity_neighborhood.NAME][1] / best[entity_neighborhood.NAME])
        if not pool.query.terms and named:
            carried = len(named & pool.candidates[ident].tags) / len(named)
            rel = max(rel, TAGGED * carried)
        out[ident] = (rel, 1.0 if rel > 0 else 0.0)
    for ident, (anchor, distance) in pool.anchors.items():
        proximity = 1.0 / (2 ** (distance - 1))
        inherited = NEIGHBOUR_SHARE * proximity * out.get(anchor, (0.0, 0.0))[0]
        if inherited > out[ident][0]:
            out[ident] = (inherited, proximity)
    return out


def _factors(pool: Pool, c: Candidate, found: dict[str, tuple[int, float]],
             best: dict[str, float]) -> dict[str, float]:
    factors: dict[str, float] = {}
    for channel, weight in REORDER.items():
        if channel in found and best.get(channel, 0) > 0:
            factors[channel] = 1 + weight * max(0.0, found[channel][1] / best[channel])
    person = pool.query.attributed_to
    if person is not None and c.by(person):
        factors["attributed"] = 1 + ATTRIBUTED
    factors["salience"] = 1 + SALIENCE_BOOST * SALIENCE.get(c.kind, 0.3)
    factors["confidence"] = 1 - CONFIDENCE_SPAN * (1 - c.confidence / 100)
    return factors
