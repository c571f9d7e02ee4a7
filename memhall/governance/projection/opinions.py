"""Subjective claims: each observer's current judgement of an entity, with its history.

One row per (observer, entity, category, topic); `history` lists every event
that stated or revised it (position, times, cause, value, who), so "the
evidence behind each number" and trust as of an earlier cut are read from the
row, never recomputed from the log by a reader.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from memhall.governance.projection.ops import Insert, Merge, Op, State, audits, fixed, projects
from memhall.governance.projection.schema import iso

STATED = "memhall.SubjectiveClaim.Stated"
REVISED = "memhall.SubjectiveClaim.Revised"
WITHDRAWN = "memhall.SubjectiveClaim.Withdrawn"


def _step(e: State, position: int) -> dict[str, Any]:
    return {"position": position, "occurred_at": iso(e["occurred_at"]),
            "recorded_at": iso(e["timestamp"]), "cause": e["cause"], "value": e["value"],
            "confidence": e["confidence"], "by": e["actor"], "detail": e["detail"]}


@projects(STATED)
def _stated(e: State, position: int) -> Iterable[Op]:
    at = iso(e["timestamp"])
    yield Insert("opinions", {
        "id": e["originator_id"], "observer": e["observer"], "entity": e["entity"],
        "category": e["category"], "topic": e["topic"], "statement": e["statement"],
        "stance": e["stance"], "confidence": e["confidence"], "value": e["value"],
        "evidence": list(e["evidence"]), "version": e["originator_version"], "active": True,
        "history": [_step(e, position)], "created_at": at, "updated_at": at,
        "position": position,
    })


@projects(REVISED)
def _revised(e: State, position: int) -> Iterable[Op]:
    step = _step(e, position)

    def change(row: dict[str, Any]) -> dict[str, Any]:
        return {"statement": e["statement"], "stance": e["stance"],
                "confidence": e["confidence"], "value": e["value"],
                "evidence": list(e["evidence"]), "version": e["originator_version"],
                "active": True, "history": [*row["history"], step],
                "updated_at": iso(e["timestamp"]), "position": position}

    yield Merge("opinions", e["originator_id"], change)


@projects(WITHDRAWN)
def _withdrawn(e: State, position: int) -> Iterable[Op]:
    def change(row: dict[str, Any]) -> dict[str, Any]:
        return {"active": False, "version": e["originator_version"],
                "updated_at": iso(e["timestamp"]), "position": position}

    yield Merge("opinions", e["originator_id"], change)


@audits(STATED, REVISED)
def _opinion_action(e: State) -> tuple[str, str]:
    return ("trust" if e.get("cause") in ("set", "corrected") else "opinion", "")


fixed("withdraw_opinion", WITHDRAWN)
