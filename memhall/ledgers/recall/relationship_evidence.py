"""The relationship_evidence channel: memories cited as evidence by the relationships the
observer can see between the entities in play (SPEC §6; relationships are §3 of issue 12)."""

from __future__ import annotations

from collections.abc import Mapping

from memhall.ledgers.recall.pool import Candidate, Reader

NAME = "relationship_evidence"
K = 20


def find(reader: Reader, entities: Mapping[str, float], k: int = K) -> list[tuple[Candidate, float]]:
    """Until relationships are recorded in the domain, there is no evidence to find."""
    return []
