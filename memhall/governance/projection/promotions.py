"""Promotions in the read models: nominations, reminders, dissent and decisions."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from memhall.governance.projection.ops import Insert, Merge, Op, State, Update, fixed, projects
from memhall.governance.projection.schema import iso


@projects("memhall.Promotion.Nominated")
def _nominated(e: State, position: int) -> Iterable[Op]:
    at = iso(e["timestamp"])
    yield Insert("promotions", {
        "id": e["originator_id"], "entry_id": e["entry_id"], "from_layer": e["from_layer"],
        "to_layer": e["to_layer"], "path": e["path"], "nominated_by": e["actor"],
        "reason": e["reason"], "status": "open", "reminder_sessions": [], "reminders": 0,
        "dissent": [], "council": list(e.get("council") or ()), "decided_by": None, "created_at": at, "updated_at": at, "position": position,
    })


def _set(e: State, position: int, **values: Any) -> Update:
    return Update("promotions", e["originator_id"],
                  {"updated_at": iso(e["timestamp"]), "position": position, **values})


@projects("memhall.Promotion.ReminderRecorded")
def _reminded(e: State, position: int) -> Iterable[Op]:
    def change(row: dict[str, Any]) -> dict[str, Any]:
        counted = list(row["reminder_sessions"]) + ([e["session_id"]] if e["counted"] else [])
        return {"reminder_sessions": counted, "reminders": row["reminders"] + 1,
                "updated_at": iso(e["timestamp"]), "position": position}

    yield Merge("promotions", e["originator_id"], change)


@projects("memhall.Promotion.DissentRecorded")
def _dissented(e: State, position: int) -> Iterable[Op]:
    def change(row: dict[str, Any]) -> dict[str, Any]:
        recorded = {d["member"]: d for d in row["dissent"]}
        recorded.update({p["member"]: p for p in e["positions"]})
        return {"dissent": [recorded[m] for m in sorted(recorded)],
                "updated_at": iso(e["timestamp"]), "position": position}

    yield Merge("promotions", e["originator_id"], change)


@projects("memhall.Promotion.PositionRecorded")
def _position(e: State, position: int) -> Iterable[Op]:
    def change(row: dict[str, Any]) -> dict[str, Any]:
        recorded = {d["member"]: d for d in row["dissent"]}
        recorded[e["actor"]] = {"member": e["actor"], "position": e["position"], "reason": e["reason"]}
        return {"dissent": [recorded[m] for m in sorted(recorded)],
                "updated_at": iso(e["timestamp"]), "position": position}

    yield Merge("promotions", e["originator_id"], change)


@projects("memhall.Promotion.Ratified")
def _ratified(e: State, position: int) -> Iterable[Op]:
    yield _set(e, position, status="ratified", decided_by=e["actor"])


@projects("memhall.Promotion.Rejected")
def _rejected(e: State, position: int) -> Iterable[Op]:
    yield _set(e, position, status="rejected", decided_by=e["actor"])


@projects("memhall.Promotion.Withdrawn")
def _withdrawn(e: State, position: int) -> Iterable[Op]:
    yield _set(e, position, status="withdrawn", decided_by=e["actor"])


for _topic, _action in (("Nominated", "nominate"), ("ReminderRecorded", "remind"),
                        ("DissentRecorded", "dissent"), ("PositionRecorded", "dissent"),
                        ("Ratified", "ratify"),
                        ("Rejected", "reject"), ("Withdrawn", "withdraw")):
    fixed(_action, f"memhall.Promotion.{_topic}")
