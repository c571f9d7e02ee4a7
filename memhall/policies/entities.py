"""What the engine hands Cedar: principal and resource entities, requests, and schema probes."""

from __future__ import annotations

import json
import re
from functools import lru_cache
from collections.abc import Collection, Iterable, Mapping
from typing import Any

import cedarpy

from memhall.domains.errors import PolicyConfigError
from memhall.domains.values import PrincipalType
from memhall.policies.files import PolicySource
from memhall.policies.model import Action, PolicyRequest, ResourceType
from memhall.policies.roles import Role

PRINCIPAL_TYPES = {PrincipalType.AGENT: "Agent", PrincipalType.HUMAN: "Human"}
RESOURCE_TYPES = {
    ResourceType.ENTRY: "Entry",
    ResourceType.PROMOTION: "Promotion",
    ResourceType.DOMAIN: "Domain",
}
#: Roles of one principal: for each role, the domains where it holds it.
RoleDomains = Mapping[Role, frozenset[str]]


def principal_entity(name: str, ptype: PrincipalType, held: RoleDomains) -> dict[str, Any]:
    attrs: dict[str, Any] = {"name": name}
    for role in Role:
        attrs[role.attribute] = sorted(held.get(role, frozenset()))
    return {"uid": {"type": PRINCIPAL_TYPES[ptype], "id": name}, "attrs": attrs, "parents": []}


def resource_entity(request: PolicyRequest, rid: str,
                    read: Collection[str] | None = None) -> dict[str, Any]:
    """The resource as Cedar sees it; given `read`, only those of its attributes."""
    attrs = {
        "domain": request.domain,
        "layer": request.layer,
        "target_layer": request.target_layer,
        "kind": request.kind,
        "author": request.author,
        "has_evidence": request.has_evidence,
        "nominated_by": request.nominated_by,
        "promotion_path": request.promotion_path,
        "reminder_sessions": request.reminder_sessions,
        "dissent_recorded": request.dissent_recorded,
        "seat": request.seat,
    }
    if read is not None:
        attrs = {name: attrs[name] for name in read}
    return {"uid": {"type": RESOURCE_TYPES[request.resource_type], "id": rid}, "attrs": attrs, "parents": []}


#: the attributes `resource_entity` gives a resource
RESOURCE_ATTRIBUTES = ("domain", "layer", "target_layer", "kind", "author", "has_evidence", "nominated_by",
                       "promotion_path", "reminder_sessions", "dissent_recorded", "seat")


def read_attributes(texts: Iterable[str]) -> tuple[str, ...]:
    """The resource attributes some of these Cedar texts can read: those they name at
    all, as a word (`resource.kind`, `resource has kind`, `resource["kind"]`, or in a
    comment: naming one too many only costs a larger entity)."""
    joined = "\n".join(texts)
    return tuple(name for name in RESOURCE_ATTRIBUTES if re.search(rf"\b{name}\b", joined))


def cedar_request(request: PolicyRequest, ptype: PrincipalType, rid: str) -> dict[str, Any]:
    return {
        "principal": {"type": PRINCIPAL_TYPES[ptype], "id": request.principal},
        "action": {"type": "Action", "id": request.action.value},
        "resource": {"type": RESOURCE_TYPES[request.resource_type], "id": rid},
        "context": context_json(request.claimed_principal, request.claimed_domain, request.claimed_layer),
    }


@lru_cache(maxsize=256)
def context_json(principal: str, domain: str, layer: str) -> str:
    """The request's context as JSON text: cedarpy takes it so as it is, where it would
    copy the request and encode a dict for each one of a batch."""
    return json.dumps({"claimed_principal": principal, "claimed_domain": domain, "claimed_layer": layer})


def probe_applies(
    source: PolicySource, schema: cedarpy.Schema, cedar: cedarpy.PolicySet
) -> dict[Action, tuple[ResourceType, ...]]:
    """Which resource types each action applies to, and a check that the schema
    describes exactly the facts the engine sends (else every request would fail)."""
    probes = [
        PolicyRequest(principal="probe", action=action, domain="probe", resource_type=rtype)
        for action in Action
        for rtype in ResourceType
    ]
    entities = [principal_entity("probe", ptype, {}) for ptype in PrincipalType]
    entities += [resource_entity(p, p.resource_type.value) for p in probes[: len(ResourceType)]]
    try:
        handle = cedarpy.Entities.from_json_str(json.dumps(entities), schema)
    except ValueError as exc:
        raise PolicyConfigError(
            f"{source.schema.name}: the schema does not describe the facts memhall sends: {exc}"
        ) from None
    requests = [
        cedar_request(p, ptype, p.resource_type.value) for p in probes for ptype in PrincipalType
    ]
    results = cedarpy.is_authorized_batch(requests, cedar, handle, schema)
    applies: dict[Action, list[ResourceType]] = {action: [] for action in Action}
    for index, result in enumerate(results):
        probe = probes[index // len(PrincipalType)]
        built = not any("failed to build request" in e for e in result.diagnostics.errors)
        if built and probe.resource_type not in applies[probe.action]:
            applies[probe.action].append(probe.resource_type)
    missing = [action.value for action, types in applies.items() if not types]
    if missing:
        raise PolicyConfigError(
            f"{source.schema.name}: the schema declares no resource for action(s) {', '.join(missing)}"
        )
    return {action: tuple(types) for action, types in applies.items()}
