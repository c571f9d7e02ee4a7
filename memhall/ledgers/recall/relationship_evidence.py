"""The relationship_evidence channel: memories cited as evidence by the relationships the
observer can see (objective, public, and its own private ones) that touch the entities in play.

A relationship's evidence is what makes it so; a query about an entity reaches
it through the entity's relationships. Scored by the weight of the entity in
play the relationship touches; only evidence the observer holds is read.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from memhall.ledgers.recall.pool import Candidate, Reader

NAME = "relationship_evidence"
K = 20
#: relationships read per recall
RELATIONSHIPS = 50


def find(reader: Reader, entities: Mapping[str, float], k: int = K) -> list[tuple[Candidate, float]]:
    if not entities:
        return []
    names = sorted(entities)
    marks = ", ".join("?" for _ in names)
    table = reader.stream.tables.relationships.name
    rows = reader.sql(
        f"SELECT source, target, evidence FROM {table} WHERE active = ? AND position <= ? "
        f"AND (visibility != 'private' OR perspective = ?) AND (source IN ({marks}) OR target IN ({marks})) "
        "ORDER BY position DESC LIMIT ?",
        [True, reader.at, reader.observer, *names, *names, RELATIONSHIPS])
    return scored(reader, [(max(entities.get(str(s), 0.0), entities.get(str(t), 0.0)), ev)
                           for s, t, ev in rows], k)


def scored(reader: Reader, cited: list[tuple[float, Any]], k: int) -> list[tuple[Candidate, float]]:
    """Each cited id once, with the best weight of what cites it; held ones only."""
    best: dict[str, float] = {}
    for weight, evidence in cited:
        ids = orjson.loads(evidence) if isinstance(evidence, (str, bytes)) else evidence
        for ident in ids or ():
            best[str(ident)] = max(best.get(str(ident), 0.0), weight)
    rows = reader.rows(list(best))
    ranked = sorted(rows.values(), key=lambda c: (-best[c.id], -c.occurred_at.timestamp(), -c.created_position))
    return [(c, best[c.id]) for c in ranked[:k]]
