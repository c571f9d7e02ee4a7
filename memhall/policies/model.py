"""What the hall asks the policy, and what the policy answers.

The hall builds every `PolicyRequest` from facts read from the store (an
entry's layer, a promotion's reminder count, its nominator), never from what
the caller claims. What the caller claimed goes in `claimed_*` so that rules
can refuse a payload that impersonates another principal or domain.
"""

from __future__ import annotations

from enum import Enum

from pydantic import BaseModel, ConfigDict


class Action(str, Enum):
    WRITE_L1 = "write_l1"
    WRITE_L2 = "write_l2"
    PROMOTE = "promote"  # L1 -> L2 through the four questions
    NOMINATE = "nominate"  # L2 -> L3 (stale fact) or L3 -> L4 (canon)
    REMIND = "remind"
    DISSENT = "dissent"
    RATIFY = "ratify"
    REJECT = "reject"
    WITHDRAW = "withdraw"
    DEMOTE = "demote"
    RETIRE = "retire"
    SUPERSEDE = "supersede"  # on the target entry: a new write replaces it
    CLOSE_LOOP = "close_loop"
    MATERIALIZE = "materialize"
    REQUEST = "request"
    ANSWER = "answer"
    READ = "read"
    SEARCH = "search"
    HANDOFF = "handoff"
    WRAP_UP = "wrap_up"
    AUDIT_REVIEW = "audit_review"
    DOMAIN_CREATE = "domain_create"
    REBUILD = "rebuild"  # drop and replay a domain's read models


class ResourceType(str, Enum):
    ENTRY = "entry"
    PROMOTION = "promotion"
    DOMAIN = "domain"


class PolicyRequest(BaseModel):
    """One question to the policy: may `principal` do `action` to this resource?"""

    model_config = ConfigDict(frozen=True, extra="forbid")

    principal: str
    action: Action
    domain: str
    resource_type: ResourceType
    resource_id: str = ""
    # Entry facts (from the store).
    layer: str = ""  # current layer ("" for a domain or a new entry)
    target_layer: str = ""  # layer a write / promotion / demotion would reach
    kind: str = ""
    author: str = ""
    has_evidence: bool = False
    # Promotion facts (from the store).
    nominated_by: str = ""
    promotion_path: str = ""  # four-questions | stale-fact | canon
    reminder_sessions: int = 0  # distinct sessions that reminded
    dissent_recorded: bool = False
    # Materialization / requests.
    seat: str = ""
    # What the caller claimed in its payload; "" when it claimed nothing.
    claimed_principal: str = ""
    claimed_domain: str = ""
    claimed_layer: str = ""


class Decision(BaseModel):
    """The policy's answer. Anything but an explicit allow is a deny."""

    model_config = ConfigDict(frozen=True)

    allowed: bool
    #: @id of the rule that permitted (allow) or of the first rule that forbade
    #: (deny); "" when no rule permits.
    rule_id: str
    #: every rule id that determined the decision
    rule_ids: tuple[str, ...] = ()
    #: one human line: why, with facts filled in ("2 of 3 reminders")
    message: str
    request: PolicyRequest
