"""The facts the hall gives the policy about a stored entry or promotion."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from memhall.domains.entry import Entry
from memhall.domains.errors import InvalidValueError
from memhall.domains.promotion import Promotion
from memhall.domains.values import domain_name
from memhall.governance.hall import Hall
from memhall.policies.model import ResourceType


def stored_facts(hall: Hall, domain: str, entry_id: UUID | None,
                 promotion_id: UUID | None) -> tuple[dict[str, Any], ResourceType]:
    """Facts read from the store, never from the caller (for `policy explain`)."""
    stream = hall.streams.stream(domain_name(domain))
    if promotion_id is not None:
        promotion: Promotion = stream.get(promotion_id, "promotion")
        entry: Entry = stream.get(promotion.entry_id)
        return {
            **_entry_facts(entry), "resource_id": str(promotion.id),
            "target_layer": promotion.to_layer.value, "nominated_by": promotion.nominated_by,
            "promotion_path": promotion.path.value,
            "reminder_sessions": len(promotion.reminder_sessions),
            "dissent_recorded": promotion.dissent_recorded,
        }, ResourceType.PROMOTION
    if entry_id is None:
        raise InvalidValueError("give --entry or --promotion")
    return _entry_facts(stream.get(entry_id)), ResourceType.ENTRY


def _entry_facts(entry: Entry) -> dict[str, Any]:
    return {"resource_id": str(entry.id), "layer": entry.layer.value, "kind": entry.kind.value,
            "author": entry.author, "has_evidence": bool(entry.provenance.evidence_refs)}
