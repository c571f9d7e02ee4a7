"""Gathering a pool: every channel, in the order each needs the others.

Lexical first (its strongest candidates are the anchors), then the entities
in play and their neighbourhood, the anchors' neighbours in time and the
observer's newest memories, its intents, the evidence behind relationships and
its own portraits of the entities in play, and last the embedder (which scores
what the others gathered). For a materialization, the L3/L4 entries on the
same claims are read too, since they decide conflicts.
"""

from __future__ import annotations

from memhall.ledgers.recall import (
    active_intent,
    embedding_match,
    entity_neighborhood,
    lexical_match,
    portrait_evidence,
    recent_event,
    relationship_evidence,
)
from memhall.ledgers.recall.embedding_match import Embedder
from memhall.ledgers.recall.pool import Candidate, Pool, Reader, claim_neighbours
from memhall.ledgers.recall.query import Query

CLAIM = "claim"
#: a neighbour at distance d scores 1/2^d; the observer's newest memories score below that
NEWEST_SCORE = 0.1


def gather(reader: Reader, query: Query, *, embedder: Embedder | None = None,
           conflicts: bool = False) -> Pool:
    pool = Pool(position=reader.at, query=query)
    if reader.at == 0:
        return pool
    lexical = lexical_match.find(reader, query)
    pool.add(lexical_match.NAME, lexical)
    anchors = [c for c, _ in lexical[:recent_event.ANCHORS]]
    entities = entity_neighborhood.in_play(reader, query, anchors)
    pool.entities = tuple(sorted(entities))
    pool.add(entity_neighborhood.NAME, entity_neighborhood.find(reader, entities))
    recent: list[tuple[Candidate, float]] = []
    for neighbour, anchor, distance in recent_event.neighbours(reader, anchors):
        if neighbour.id not in {a.id for a in anchors}:
            pool.anchors[neighbour.id] = (anchor.id, distance)
        recent.append((neighbour, 1.0 / 2 ** distance))
    listed = {c.id for c, _ in recent}
    recent += [(c, NEWEST_SCORE / (1 + index)) for index, (c, _) in enumerate(recent_event.newest(reader))
               if c.id not in listed]
    pool.add(recent_event.NAME, recent)
    pool.add(active_intent.NAME, active_intent.find(reader, query))
    # a relationship or an opinion may name an entity no memory is tagged with yet
    named = {**{t: 1.0 for t in query.terms}, **entities}
    pool.add(relationship_evidence.NAME, relationship_evidence.find(reader, named))
    pool.add(portrait_evidence.NAME, portrait_evidence.find(reader, named))
    if embedder is not None:
        pool.add(embedding_match.NAME, embedding_match.find(embedder, query.text, list(pool.candidates.values())))
    if conflicts:
        claim = [c for c in claim_neighbours(reader, pool.candidates) if c.id not in pool.candidates]
        pool.add(CLAIM, [(c, 1.0) for c in claim])
    return pool
