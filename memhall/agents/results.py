"""What the MCP tools hand back where the hall's own views are lists or aggregates.

A tool's result is one pydantic model, so clients get structured content with
a published output schema; the hall's views (HandoffView, WriteResult, …) are
used as they are wherever one exists.
"""

from __future__ import annotations

from typing import Any

from memhall.domains.promotion import Promotion
from memhall.governance.promotion_records import PromotionView
from memhall.governance.requests import RequestView
from memhall.governance.views import View


class PendingRequests(View):
    """Open MEMORY REQUESTs, oldest first (an expired request is not open)."""

    domain: str
    requests: list[RequestView] = []


class PromotionStanding(PromotionView):
    """A nomination and, in words, what it has gathered so far."""

    standing: str

    @classmethod
    def of(cls, view: PromotionView) -> PromotionStanding:
        return cls(**view.model_dump(), standing=view.progress)


class Promotions(View):
    domain: str
    promotions: list[PromotionStanding] = []
    notice: str = "ratification is a human act: the ratify owner ratifies with `memhall ratify`, never an agent"


class PromotionStep(View):
    """Where a promotion stands after a reminder or a dissent record."""

    promotion_id: str
    entry_id: str
    from_layer: str
    to_layer: str
    path: str
    status: str
    reminder_sessions: int
    dissent_recorded: bool
    standing: str

    @classmethod
    def of(cls, promotion: Promotion) -> PromotionStep:
        return cls(
            promotion_id=str(promotion.id), entry_id=str(promotion.entry_id),
            from_layer=promotion.from_layer.value, to_layer=promotion.to_layer.value,
            path=promotion.path.value, status=promotion.status.value,
            reminder_sessions=len(promotion.reminder_sessions),
            dissent_recorded=promotion.dissent_recorded, standing=promotion.progress(),
        )


class WhyGraph(View):
    """The evidence graph behind a belief: nodes, edges (each with its event, principal and
    time) and the belief with its history of states and confidences. Never prose."""

    claim_root: str
    as_of: dict[str, Any]
    belief: dict[str, Any]
    nodes: list[dict[str, Any]]
    edges: list[dict[str, Any]]
