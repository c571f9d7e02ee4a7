"""The portrait_evidence channel: memories cited as evidence by the observer's own subjective
claims (its portraits) of the entities in play — never anyone else's. Both what supports a
judgement and what speaks against it are the memories behind it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from uuid import UUID

import orjson

from memhall.ledgers.recall.pool import Candidate, Reader
from memhall.ledgers.recall.relationship_evidence import scored

NAME = "portrait_evidence"
K = 20
#: subjective claims read per recall
CLAIMS = 50
_STATED = ("memhall.SubjectiveClaim.Stated", "memhall.SubjectiveClaim.Revised")


def find(reader: Reader, entities: Mapping[str, float], k: int = K) -> list[tuple[Candidate, float]]:
    if not entities:
        return []
    names = sorted(entities)
    marks = ", ".join("?" for _ in names)
    table = reader.stream.tables.opinions.name
    rows = reader.sql(
        f"SELECT id, entity, evidence FROM {table} WHERE observer = ? AND active = ? AND position <= ? "
        f"AND entity IN ({marks}) ORDER BY position DESC LIMIT ?",
        [reader.observer, True, reader.at, *names, CLAIMS])
    against = contradicting(reader, [str(r[0]) for r in rows])
    cited = [(entities.get(str(entity), 0.0), evidence) for _, entity, evidence in rows]
    cited += [(entities.get(str(entity), 0.0), against.get(str(ident), [])) for ident, entity, _ in rows]
    return scored(reader, cited, k)


def contradicting(reader: Reader, claims: Sequence[str]) -> dict[str, list[str]]:
    """Claim id -> the memories its newest version (as of the reader's position) cites
    against it. The read model keeps supporting evidence only, so this reads the claims'
    own events: a handful of rows, by originator."""
    if not claims:
        return {}
    by_key = {(UUID(c).bytes if reader.dialect == "sqlite" else UUID(c)): c for c in claims}
    marks = ", ".join("?" for _ in by_key)
    newest: dict[str, tuple[int, list[str]]] = {}
    for originator, version, state in reader.sql(
            f"SELECT originator_id, originator_version, state FROM {reader.stream.tables.events_name} "
            f"WHERE originator_id IN ({marks}) AND id <= ? AND topic IN (?, ?)",
            [*by_key, reader.at, *_STATED]):
        key = by_key.get(bytes(originator) if reader.dialect == "sqlite" else UUID(str(originator)))
        if key is None:
            continue
        if key not in newest or int(version) > newest[key][0]:
            loaded = orjson.loads(bytes(state))
            newest[key] = (int(version), [str(i) for i in loaded.get("contradicting") or ()])
    return {key: ids for key, (_, ids) in newest.items()}
