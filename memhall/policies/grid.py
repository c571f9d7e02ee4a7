"""The finite grid of requests that `policy diff` and `policy check` evaluate.

For every principal, domain, action and resource type the schema lets the
action apply to, the grid varies the facts the rules can see:

- entries: the layer move the action makes — a write creates a new entry in
  L1..L4; promote and nominate move an entry one layer up; demote one layer
  down; supersede finds the entry where it stands and replaces it with one
  written at L1 or L2; every other action finds the entry where it stands (L1..L4) — times
  evidence yes/no, times every entry kind (and none) for write_l1/write_l2;
- promotions: L1->L2, L2->L3, L3->L4, times 0..3 reminder sessions, times
  dissent recorded yes/no, times nominated by the principal itself or another;
- domains: the seat a request or materialization is for: none, the principal
  itself, or another.

Payload claims (another principal, another domain, another layer than the
store's) are tried on every request that either policy set allows without a
claim: a claim can only take a permission away, and that is what changes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from memhall.domains.values import Kind
from memhall.policies.model import Action, PolicyRequest, ResourceType

NEW = tuple(("", layer) for layer in ("L1", "L2", "L3", "L4"))
STANDING = tuple((layer, "") for layer in ("L1", "L2", "L3", "L4"))
UP = (("L1", "L2"), ("L2", "L3"), ("L3", "L4"))
DOWN = (("L2", "L1"), ("L3", "L2"), ("L4", "L3"))
#: superseding: the target where it stands, replaced by a new entry written at L1 or L2
REPLACE = tuple((layer, new) for layer in ("L1", "L2", "L3", "L4") for new in ("L1", "L2"))
ENTRY_MOVES = {
    Action.WRITE_L1: NEW,
    Action.WRITE_L2: NEW,
    Action.PROMOTE: UP,
    Action.NOMINATE: UP,
    Action.DEMOTE: DOWN,
    Action.SUPERSEDE: REPLACE,
}
PATHS = {("L1", "L2"): "four-questions", ("L2", "L3"): "stale-fact", ("L3", "L4"): "canon"}
WRITES = (Action.WRITE_L1, Action.WRITE_L2)
KINDS = ("",) + tuple(kind.value for kind in Kind)
CLAIMS = ("principal", "domain", "layer")
#: stands for "a principal other than the actor" and "a domain other than this one"
OTHER = "another"

Variant = tuple[tuple[str, object], ...]


@dataclass(frozen=True)
class Point:
    """One cell of the grid: who does what to which resource, under which facts."""

    principal: str
    domain: str
    action: Action
    resource_type: ResourceType
    layer: str = ""
    target_layer: str = ""
    variant: Variant = ()
    claim: str = ""  # "", or which claim the payload makes falsely

    def request(self) -> PolicyRequest:
        fields: dict[str, object] = dict(self.variant)
        nominator = fields.pop("nominated_by", "")
        if nominator:
            fields["nominated_by"] = self.principal if nominator == "self" else OTHER
        seat = fields.pop("seat", "")
        if seat:
            fields["seat"] = self.principal if seat == "self" else OTHER
        if self.resource_type is ResourceType.PROMOTION:
            fields["promotion_path"] = PATHS.get((self.layer, self.target_layer), "")
        if self.claim == "principal":
            fields["claimed_principal"] = OTHER
        elif self.claim == "domain":
            fields["claimed_domain"] = OTHER
        elif self.claim == "layer":
            fields["claimed_layer"] = "L1" if self.layer == "L4" else "L4"
        fields.update(
            principal=self.principal,
            action=self.action,
            domain=self.domain,
            resource_type=self.resource_type,
            layer=self.layer,
            target_layer=self.target_layer,
        )
        return PolicyRequest.model_validate(fields)

    def with_claim(self, claim: str) -> Point:
        return Point(
            self.principal, self.domain, self.action, self.resource_type,
            self.layer, self.target_layer, self.variant, claim,
        )


def variants(action: Action, resource_type: ResourceType) -> list[Variant]:
    """The fact combinations tried for one action on one resource type."""
    if resource_type is ResourceType.PROMOTION:
        return [
            (("reminder_sessions", n), ("dissent_recorded", d), ("nominated_by", who))
            for n in range(4)
            for d in (False, True)
            for who in ("self", "other")
        ]
    if resource_type is ResourceType.ENTRY:
        kinds = KINDS if action in WRITES else ("",)
        return [(("has_evidence", e), ("kind", k)) for e in (False, True) for k in kinds]
    return [(("seat", seat),) for seat in ("", "self", "other")]


def moves(action: Action, resource_type: ResourceType) -> tuple[tuple[str, str], ...]:
    """(layer, target_layer) pairs tried: the moves this action can make."""
    if resource_type is ResourceType.PROMOTION:
        return UP
    if resource_type is ResourceType.ENTRY:
        return ENTRY_MOVES.get(action, STANDING)
    return (("", ""),)


def points(
    principals: Iterable[str], domains: Iterable[str], applies: Mapping[Action, Iterable[ResourceType]]
) -> list[Point]:
    grid: list[Point] = []
    for principal in principals:
        for domain in domains:
            for action, resource_types in applies.items():
                for rtype in resource_types:
                    for layer, target in moves(action, rtype):
                        for variant in variants(action, rtype):
                            grid.append(Point(principal, domain, action, rtype, layer, target, variant))
    return grid
