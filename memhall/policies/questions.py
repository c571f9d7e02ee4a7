"""A batch of policy requests as the distinct questions Cedar is asked, and the
entities they share, built with as little Python per request as it takes."""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, NamedTuple

import cedarpy
import orjson

from memhall.domains.values import PrincipalType
from memhall.policies.entities import PRINCIPAL_TYPES, RESOURCE_TYPES, context_json
from memhall.policies.model import Action, PolicyRequest


#: whether this cedarpy can parse entities with the GIL released (4.12 and later)
_RELEASES_GIL = "release_gil" in inspect.signature(cedarpy.Entities.from_json_str).parameters


class Asked(NamedTuple):
    """What Cedar is asked for a batch."""

    #: the batch's entities: each principal once, each distinct resource once
    entities: list[dict[str, Any]]
    #: one Cedar request per distinct question
    requests: list[dict[str, Any]]
    #: the action of each Cedar request
    actions: list[Action]
    #: for each Cedar request, the entities it needs: its principal's index and its resource's
    needs: list[tuple[int, int]]
    #: for each policy request, the index of its question in `requests`
    which: list[int]

    def entities_json(self, questions: Sequence[int] | None = None) -> str:
        """Cedar JSON of the entities these questions need (None: of all of them)."""
        if questions is None:
            return _dumps(self.entities)
        wanted = sorted({entity for question in questions for entity in self.needs[question]})
        return _dumps([self.entities[i] for i in wanted])


def entity_sets(asked: Asked, chunks: Sequence[Sequence[int]], pipelined: bool) -> Iterator[cedarpy.Entities]:
    """For each chunk of questions, an entity set holding what it needs.

    cedarpy holds the GIL while it authorizes but can parse entities without it, and
    parsing is a quarter of a batch's work: `pipelined`, each chunk gets its own set, the
    next one parsed in a second thread while Cedar answers the current one (on a second
    core, a quarter less time). Otherwise every chunk shares one set of the whole batch."""
    if not (pipelined and _RELEASES_GIL and len(chunks) > 1):
        whole = cedarpy.Entities.from_json_str(asked.entities_json())
        for _ in chunks:
            yield whole
        return
    with ThreadPoolExecutor(1, thread_name_prefix="memhall-policy-entities") as pool:
        pending = pool.submit(_parse, asked.entities_json(chunks[1]))
        yield _parse(asked.entities_json(chunks[0]))  # the first two are parsed side by side
        for following in [*chunks[2:], None]:
            handle = pending.result()
            if following is not None:
                pending = pool.submit(_parse, asked.entities_json(following))
            yield handle


def _parse(text: str) -> cedarpy.Entities:
    return cedarpy.Entities.from_json_str(text, release_gil=True)


class _Shape(NamedTuple):
    """What requests of one principal, action, resource type and claims share."""

    number: int
    principal: dict[str, str]
    #: the index of the principal's entity
    entity: int
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
    principals: dict[str, int] = {}
    resources: dict[tuple[object, ...], int] = {}
    asked: dict[tuple[int, int], int] = {}
    cedar_requests: list[dict[str, Any]] = []
    actions: list[Action] = []
    needs: list[tuple[int, int]] = []
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
        resource = resources.get(facts_key)
        if resource is None:
            resource = resources[facts_key] = len(entities)
            uid = {"type": shape.resource_type, "id": f"#{len(resources)}"}
            entities.append({"uid": uid, "attrs": {name: facts[name] for name in shape.read}, "parents": []})
        question = (shape.number, resource)
        index = asked.get(question)
        if index is None:
            index = asked[question] = len(cedar_requests)
            cedar_requests.append({"principal": shape.principal, "action": shape.action,
                                   "resource": entities[resource]["uid"], "context": shape.context})
            actions.append(action)
            needs.append((shape.entity, resource))
        which.append(index)
    return Asked(entities, cedar_requests, actions, needs, which)


def _shape(
    request: PolicyRequest, number: int,
    principal_type: Callable[[str], PrincipalType],
    principal_entity: Callable[[str, PrincipalType], dict[str, Any]],
    read: tuple[str, ...], kinds: dict[tuple[str, tuple[str, ...]], int],
    principals: dict[str, int], entities: list[dict[str, Any]],
) -> _Shape:
    ptype = principal_type(request.principal)
    principal = {"type": PRINCIPAL_TYPES[ptype], "id": request.principal}
    entity = principals.get(request.principal)
    if entity is None:  # its type is the same throughout a batch
        entity = principals[request.principal] = len(entities)
        entities.append(principal_entity(request.principal, ptype))
    resource_type = RESOURCE_TYPES[request.resource_type]
    kind = kinds.setdefault((resource_type, read), len(kinds))
    return _Shape(number, principal, entity, {"type": "Action", "id": request.action.value},
                  context_json(request.claimed_principal, request.claimed_domain, request.claimed_layer),
                  resource_type, read, kind)


def _dumps(entities: list[dict[str, Any]]) -> str:
    """orjson, a tenth of the json module's time; the json module where orjson refuses
    (an integer beyond 64 bits, a lone surrogate), so Cedar, not the encoder, answers."""
    try:
        return orjson.dumps(entities).decode()
    except orjson.JSONEncodeError:
        return json.dumps(entities)
