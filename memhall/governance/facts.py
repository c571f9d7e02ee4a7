"""The facts the hall gives the policy: read from the store (an entry, a
promotion) or from a validated draft, never from what the caller claims."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any
from uuid import UUID

from memhall.domains.entry import Entry, EntryDraft
from memhall.domains.errors import InvalidValueError
from memhall.domains.promotion import Promotion
from memhall.domains.values import Kind, Layer, domain_name
from memhall.governance.exposure import KnowsRoles
from memhall.policies.model import Action, PolicyRequest, ResourceType

if TYPE_CHECKING:
    from memhall.governance.hall import Hall


def write_action(entry: EntryDraft) -> Action:
    """The action a write is: L2 and above ask write_l2 (and the policy refuses
    L3/L4, reached only by promotion)."""
    return Action.WRITE_L1 if entry.layer is Layer.L1 else Action.WRITE_L2


def draft_facts(entry: EntryDraft, actor: str) -> dict[str, Any]:
    """A new entry's facts: where it would land, what it is, who writes it."""
    return {"resource_type": ResourceType.ENTRY, "target_layer": entry.layer.value,
            "kind": entry.kind.value, "author": actor,
            "has_evidence": bool(entry.provenance.evidence_refs)}


def draft_requests(actor: str, domain: str, entries: Sequence[EntryDraft]) -> list[PolicyRequest]:
    """One request per draft, in order; drafts with the same facts share one request
    (frozen: the same question, asked once per batch, not built once per line)."""
    made: dict[tuple[Layer, Kind, bool], PolicyRequest] = {}
    requests = []
    for entry in entries:
        key = (entry.layer, entry.kind, bool(entry.provenance.evidence_refs))
        request = made.get(key)
        if request is None:
            request = made[key] = PolicyRequest(principal=actor, action=write_action(entry), domain=domain,
                                                **draft_facts(entry, actor))
        requests.append(request)
    return requests


def entry_facts(entry: Entry) -> dict[str, Any]:
    """A stored entry's facts."""
    return {"resource_type": ResourceType.ENTRY, "resource_id": str(entry.id),
            "layer": entry.layer.value, "kind": entry.kind.value, "author": entry.author,
            "has_evidence": bool(entry.provenance.evidence_refs)}


def promotion_facts(promotion: Promotion, entry: Entry,
                    council: Sequence[str] | None = None) -> dict[str, Any]:
    """A stored promotion's facts, with those of the entry it would move. The
    dissent record counts as recorded once every council member has a position
    (the council recorded at nomination; `council` for nominations older than that)."""
    return {
        **entry_facts(entry), "resource_type": ResourceType.PROMOTION,
        "resource_id": str(promotion.id), "target_layer": promotion.to_layer.value,
        "nominated_by": promotion.nominated_by, "promotion_path": promotion.path.value,
        "reminder_sessions": len(promotion.reminder_sessions),
        "dissent_recorded": promotion.dissent_complete(council),
    }


COUNCIL_ROLES = frozenset({"system_chair", "session_chair", "seat"})


def council(hall: Hall, domain: str) -> list[str] | None:
    """The domain's council: every principal holding a chair or a seat there
    (the ratify owner decides; it does not sit on the council). None when the
    policy cannot say who holds roles."""
    gate = hall.gate
    if not isinstance(gate, KnowsRoles):
        return None
    return sorted(p for p in gate.principals if gate.roles_of(p, domain) & COUNCIL_ROLES)


def stored_facts(hall: Hall, domain: str, entry_id: UUID | None,
                 promotion_id: UUID | None) -> tuple[dict[str, Any], ResourceType]:
    """Facts read from the store for `policy explain --entry/--promotion`."""
    stream = hall.streams.stream(domain_name(domain))
    if promotion_id is not None:
        promotion: Promotion = stream.get(promotion_id, "promotion", kind=Promotion)
        facts = promotion_facts(promotion, stream.get(promotion.entry_id, kind=Entry),
                                council(hall, stream.name))
    elif entry_id is not None:
        facts = entry_facts(stream.get(entry_id, kind=Entry))
    else:
        raise InvalidValueError("give --entry or --promotion")
    return facts, facts.pop("resource_type")
