"""Relationships: each one's current evidence and state, with its version history."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from memhall.governance.projection.ops import Insert, Merge, Op, State, audits, projects
from memhall.governance.projection.schema import iso

RECORDED = "memhall.Relationship.Recorded"
REVISED = "memhall.Relationship.Revised"
ENDED = "memhall.Relationship.Ended"


def _step(e: State, position: int, change: str) -> dict[str, Any]:
    return {"position": position, "change": change, "by": e["actor"], "recorded_at": iso(e["timestamp"]),
            "evidence": list(e.get("evidence") or ()), "note": e.get("note") or e.get("reason") or ""}


@projects(RECORDED)
def _recorded(e: State, position: int) -> Iterable[Op]:
    at = iso(e["timestamp"])
    yield Insert("relationships", {
        "id": e["originator_id"], "source": e["source"], "target": e["target"], "kind": e["kind"],
        "visibility": e["visibility"], "perspective": e["perspective"], "evidence": list(e["evidence"]),
        "note": e["note"], "version": e["originator_version"], "active": True,
        "history": [_step(e, position, "recorded")], "occurred_at": iso(e["occurred_at"]),
        "created_at": at, "updated_at": at, "position": position,
    })


@projects(REVISED)
def _revised(e: State, position: int) -> Iterable[Op]:
    def change(row: dict[str, Any]) -> dict[str, Any]:
        return {"evidence": list(e["evidence"]), "note": e["note"], "version": e["originator_version"],
                "active": True, "history": [*row["history"], _step(e, position, "revised")],
                "occurred_at": iso(e["occurred_at"]), "updated_at": iso(e["timestamp"]), "position": position}

    yield Merge("relationships", e["originator_id"], change)


@projects(ENDED)
def _ended(e: State, position: int) -> Iterable[Op]:
    def change(row: dict[str, Any]) -> dict[str, Any]:
        return {"active": False, "version": e["originator_version"],
                "history": [*row["history"], _step(e, position, "ended")],
                "updated_at": iso(e["timestamp"]), "position": position}

    yield Merge("relationships", e["originator_id"], change)


@audits(RECORDED, REVISED)
def _relate_action(e: State) -> tuple[str, str]:
    return ("relate", "L1" if e.get("visibility") == "private" else "")


@audits(ENDED)
def _end_action(e: State) -> tuple[str, str]:
    return ("relate", "")
