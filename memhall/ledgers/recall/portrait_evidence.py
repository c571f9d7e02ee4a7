"""The portrait_evidence channel: memories cited as evidence by the observer's own
subjective claims about the entities in play (SPEC §6; subjective claims are §3 of issue 12)."""

from __future__ import annotations

from collections.abc import Mapping

from memhall.ledgers.recall.pool import Candidate, Reader

NAME = "portrait_evidence"
K = 20


def find(reader: Reader, entities: Mapping[str, float], k: int = K) -> list[tuple[Candidate, float]]:
    """Until subjective claims are recorded in the domain, there is no evidence to find."""
    return []
