"""The portrait_evidence channel: memories cited as evidence by the observer's own subjective
claims (its portraits) of the entities in play — never anyone else's."""

from __future__ import annotations

from collections.abc import Mapping

from memhall.ledgers.recall.pool import Candidate, Reader
from memhall.ledgers.recall.relationship_evidence import scored

NAME = "portrait_evidence"
K = 20
#: subjective claims read per recall
CLAIMS = 50


def find(reader: Reader, entities: Mapping[str, float], k: int = K) -> list[tuple[Candidate, float]]:
    if not entities:
        return []
    names = sorted(entities)
    marks = ", ".join("?" for _ in names)
    table = reader.stream.tables.opinions.name
    rows = reader.sql(
        f"SELECT entity, evidence FROM {table} WHERE observer = ? AND active = ? AND position <= ? "
        f"AND entity IN ({marks}) ORDER BY position DESC LIMIT ?",
        [reader.observer, True, reader.at, *names, CLAIMS])
    return scored(reader, [(entities.get(str(entity), 0.0), evidence) for entity, evidence in rows], k)
