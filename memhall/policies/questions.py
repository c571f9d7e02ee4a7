"""A batch of policy requests as the distinct questions Cedar is asked, and the
entities they share, built with as little Python per request as it takes."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

import orjson

from memhall.domains.values import PrincipalType
from memhall.policies.entities import PRINCIPAL_TYPES, RESOURCE_TYPES, context_json
from memhall.policies.model import Action, PolicyRequest


class Asked(NamedTuple):
    """What Cedar is asked for a batch."""

    #: the batch's entities as Cedar JSON: each principal once, each distinct resource once
    entities: str
    #: one Cedar request per distinct question
    requests: list[dict[str, Any]]
    #: the action of each Cedar request
    actions: list[Action]
    #: for each policy request, the index of its question in `requests`
    which: list[int]


class _Shape(NamedTuple):
    """What requests of one principal, action, resource type and claims share."""

    number: int
    principal: dict[str, str]
    action: dict[str, str]
    context: str
    resource_type: str
    #: the resource attributes the action's rules read, and which set of them this is
    read: tuple[str, ...]
    kind: int


def ask(
    requests: Sequence[PolicyRequest],
    principal_type: Callable[[str], PrincipalType],
    principal_entity: Callable[[str, PrincipalType], dict[str, Any]],
    read: Mapping[Action, tuple[str, ...]],
) -> Asked:
    """Requests Cedar cannot tell apart (the same principal, action, claims and resource
    as Cedar sees it: only the attributes the action's rules read) are asked once, and
    resources with the same such facts are one entity: parsing an entity costs about
    as much as deciding, and each attribute most of it."""
    entities: list[dict[str, Any]] = []
    shapes: dict[tuple[object, ...], _Shape] = {}
    kinds: dict[tuple[str, tuple[str, ...]], int] = {}
    principals: set[str] = set()
    resources: dict[tuple[object, ...], dict[str, str]] = {}
    asked: dict[tuple[int, str], int] = {}
    cedar_requests: list[dict[str, Any]] = []
    actions: list[Action] = []
    which: list[int] = []
    for request in requests:
        facts = request.__dict__
        action = facts["action"]
        key = (facts["principal"], action, facts["resource_type"],
               facts["claimed_principal"], facts["claimed_domain"], facts["claimed_layer"])
        shape = shapes.get(key)
        if shape is None:
            shape = shapes[key] = _shape(request, len(shapes), principal_type, principal_entity,
                                         read[action], kinds, principals, entities)
        facts_key = (shape.kind, *[facts[name] for name in shape.read])
        uid = resources.get(facts_key)
        if uid is None:
            uid = resources[facts_key] = {"type": shape.resource_type, "id": f"#{len(resources)}"}
            attrs = {name: facts[name] for name in shape.read}
            entities.append({"uid": uid, "attrs": attrs, "parents": []})
        question = (shape.number, uid["id"])
        index = asked.get(question)
        if index is None:
            index = asked[question] = len(cedar_requests)
            cedar_requests.append({"principal": shape.principal, "action": shape.action,
                                   "resource": uid, "context": shape.context})
            actions.append(action)
        which.append(index)
    return Asked(_dumps(entities), cedar_requests, actions, which)


def _shape(
    request: PolicyRequest, number: int,
    principal_type: Callable[[str], PrincipalType],
    principal_entity: Callable[[str, PrincipalType], dict[str, Any]],
    read: tuple[str, ...], kinds: dict[tuple[str, tuple[str, ...]], int],
    principals: set[str], entities: list[dict[str, Any]],
) -> _Shape:
    ptype = principal_type(request.principal)
    principal = {"type": PRINCIPAL_TYPES[ptype], "id": request.principal}
    if request.principal not in principals:  # its type is the same throughout a batch
        principals.add(request.principal)
        entities.append(principal_entity(request.principal, ptype))
    resource_type = RESOURCE_TYPES[request.resource_type]
    kind = kinds.setdefault((resource_type, read), len(kinds))
    return _Shape(number, principal, {"type": "Action", "id": request.action.value},
                  context_json(request.claimed_principal, request.claimed_domain, request.claimed_layer),
                  resource_type, read, kind)


def _dumps(entities: list[dict[str, Any]]) -> str:
    """orjson, a tenth of the json module's time; the json module where orjson refuses
    (an integer beyond 64 bits, a lone surrogate), so Cedar, not the encoder, answers."""
    try:
        return orjson.dumps(entities).decode()
    except orjson.JSONEncodeError:
        return json.dumps(entities)
