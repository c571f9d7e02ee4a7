"""Evidence on claim roots: one row per piece, and what it did to the hall's belief.

The claim's entry row carries the hall's belief state and confidence as the
evidence left it; its text stays the entry's own (what was written: served
items are checked against their events), and a correction's new subject is
read from the belief (`show`, `beliefs`, `why`). A correction's re-scored
hearsay moves those claims' confidence. Aging is applied at read time.
"""

from __future__ import annotations

from collections.abc import Iterable

from memhall.governance.projection.exposure import held
from memhall.governance.projection.ops import Insert, Op, State, Update, audits, projects
from memhall.governance.projection.schema import iso

RECORDED = "memhall.Evidence.Recorded"


@projects(RECORDED)
def _recorded(e: State, position: int) -> Iterable[Op]:
    at = iso(e["timestamp"])
    outcome = e["outcome"]
    yield Insert("evidence", {
        "id": e["originator_id"], "claim_root": e["claim_root"], "claim_entry": e["claim_entry"],
        "kind": e["kind"], "source_kind": e["source_kind"], "actor": e["actor"],
        "from_agent": e["from_agent"], "ref": e["ref"], "text": e["text"], "via": e["via"],
        "entry_id": e["entry_id"], "revision": outcome["revision"],
        "occurred_at": iso(e["occurred_at"]), "recorded_at": at, "position": position,
    })
    values: dict[str, object] = {"state": outcome["state"], "confidence": outcome["confidence"],
                                 "updated_at": at, "position": position}
    yield Update("entries", e["claim_entry"], values)
    for moved in e.get("rescored") or ():
        yield Update("entries", moved["entry_id"], {"confidence": moved["after"]})


@projects(RECORDED, logged=True)
def _holds(e: State, position: int) -> Iterable[Op]:
    """Whoever records evidence on a claim holds the claim."""
    yield from held(e, position, "evidence", [(e["actor"], e["claim_entry"])])


@audits(RECORDED)
def _action(e: State) -> tuple[str, str]:
    return (f"evidence_{e['kind']}", "")
