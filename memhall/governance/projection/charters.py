"""A domain's charter in the audit log: adoptions of a policy, and handovers of the system chair."""

from __future__ import annotations

from memhall.governance.projection.ops import State, details, fixed

OPENED, ADOPTED = "memhall.Charter.Opened", "memhall.Policy.Adopted"
HANDED_OVER, HANDED_BACK = "memhall.Chair.HandedOver", "memhall.Chair.HandedBack"

fixed("policy_adopt", OPENED, ADOPTED)
fixed("chair_handover", HANDED_OVER, HANDED_BACK)


@details(OPENED, ADOPTED)
def _adopted(e: State) -> str:
    signed = ", signed" if e.get("signature") else ""
    return f"adopted policy {e['digest'][:12]} from {e['source']}{signed}: {e['summary']}"


@details(HANDED_OVER)
def _handed_over(e: State) -> str:
    return f"system chair handed over to {e['to']}" + (", signed" if e.get("signature") else "")


@details(HANDED_BACK)
def _handed_back(e: State) -> str:
    return "system chair handed back" + (", signed" if e.get("signature") else "")
