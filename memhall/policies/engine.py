"""The evaluator: a policy directory loaded once, and one decision per request."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import cedarpy
import orjson

from memhall.domains.values import PrincipalType
from memhall.policies.entities import (
    RESOURCE_TYPES,
    cedar_request,
    principal_entity,
    probe_applies,
    read_attributes,
    resource_entity,
)
from memhall.policies.questions import ask, entity_sets
from memhall.policies.files import PolicySource, init_policy_dir, read_policy_dir
from memhall.policies.model import Action, Decision, PolicyRequest, ResourceType
from memhall.policies.promotion_file import PromotionSettings, load_promotion_settings
from memhall.policies.roles import Role, Roles, load_roles
from memhall.policies.rules import Rule, compile_rules, load_schema

_BATCH = 500
#: from how many distinct questions a batch's entities are parsed in a second thread
_PIPELINED = 2 * _BATCH
_MEMO_SIZE = 4096
#: where a request's resource id sits among its fields (left out of memo keys when ids do not matter)
_RESOURCE_ID = list(PolicyRequest.model_fields).index("resource_id")


class PolicySet:
    """Schema, rules and role bindings, parsed and validated once.

    The hall fails closed: anything wrong with the files raises
    PolicyConfigError at load, and anything but a clean Allow is a deny.
    """

    def __init__(
        self, source: PolicySource, schema: cedarpy.Schema, cedar: cedarpy.PolicySet,
        rules: tuple[Rule, ...], roles: Roles, promotion: PromotionSettings | None = None,
    ) -> None:
        self.source = source
        #: promotion.yaml: settings of the promotion path (the reminders' minimum spacing)
        self.promotion = promotion or PromotionSettings()
        self.rules = rules
        self.roles = roles
        self._schema = schema
        self._cedar = cedar
        self._hierarchy = _has_action_groups(schema)
        #: per action, the rules whose scope can name it, by their Cedar policy id
        self._names = _names_by_action(rules, hierarchy=self._hierarchy)
        #: per action, those rules as a Cedar policy set, parsed when the action is first decided
        #: (most commands decide one or two of the twenty: parsing them all was a third of a load)
        self._policies: dict[Action, cedarpy.PolicySet] = {}
        #: per action, the resource attributes its rules can read (the others cannot change
        #: an answer, so a batch's resources that differ only in them share one entity)
        self._read = {action: read_attributes(rule.text for rule in names.values())
                      for action, names in self._names.items()}
        self._order = {rule.id: i for i, rule in enumerate(rules)}
        self._principals: dict[str, cedarpy.Entities] = {}
        self._applies = probe_applies(source, schema, cedar)
        # A decision depends only on the request's facts; unless some rule names
        # a resource by id, the id is not one of them, so answers can be reused.
        self._ids_matter = any(_names_a_resource(rule.text) for rule in rules)
        self._memo: dict[tuple[object, ...], Decision] = {}

    @classmethod
    def load(cls, directory: Path | None = None) -> PolicySet:
        """Load a policy directory; None loads the defaults shipped with memhall."""
        return cls.from_source(read_policy_dir(directory))

    @classmethod
    def from_source(cls, source: PolicySource) -> PolicySet:
        """Load a policy directory already read (from disk, or from an adoption in the log)."""
        schema = load_schema(source.schema)
        cedar, rules = compile_rules(schema, source.schema, source.rules)
        return cls(source, schema, cedar, rules, load_roles(source.roles),
                   load_promotion_settings(source))

    # -- what the bindings say -------------------------------------------------

    @property
    def principals(self) -> tuple[str, ...]:
        return tuple(self.roles.principals)

    @property
    def domains(self) -> tuple[str, ...]:
        return self.roles.domains

    def principal_type(self, principal: str) -> PrincipalType:
        """Declared type; a principal roles.yaml does not know is an agent with no role."""
        return self.roles.principals.get(principal, PrincipalType.AGENT)

    def roles_of(self, principal: str, domain: str) -> frozenset[str]:
        return frozenset(role.value for role in self.roles.of(principal, domain))

    @property
    def applies(self) -> Mapping[Action, tuple[ResourceType, ...]]:
        """Action -> the resource types the schema lets it apply to."""
        return self._applies

    def resource_types_for(self, action: Action) -> tuple[ResourceType, ...]:
        """The resource types the schema lets `action` apply to, entry first."""
        return self._applies[action]

    def rule(self, rule_id: str) -> Rule | None:
        index = self._order.get(rule_id)
        return None if index is None else self.rules[index]

    # -- deciding --------------------------------------------------------------

    def decide(self, request: PolicyRequest) -> Decision:
        key = self._memo_key(request)
        known = self._memo.get(key)
        if known is not None:
            return known if known.request is request or known.request == request else \
                known.model_copy(update={"request": request})
        decision = self._decide(request)
        if len(self._memo) >= _MEMO_SIZE:
            self._memo.clear()
        self._memo[key] = decision
        return decision

    def decide_batch(self, requests: Sequence[PolicyRequest]) -> list[Decision]:
        """`decide` for each request, in order (the same answers and the same memo),
        evaluating the distinct undecided ones in one batched call."""
        if self._ids_matter:
            return [self.decide(request) for request in requests]
        keys = [self._memo_key(request) for request in requests]
        known: dict[tuple[object, ...], Decision] = {}
        missing: dict[tuple[object, ...], PolicyRequest] = {}
        for key, request in zip(keys, requests):
            if key in known or key in missing:
                continue
            found = self._memo.get(key)
            if found is None:
                missing[key] = request
            else:
                known[key] = found
        if missing:
            known.update(zip(missing, self.decide_many(list(missing.values()))))
            if len(self._memo) + len(missing) > _MEMO_SIZE:
                self._memo.clear()
            for key in list(missing)[:_MEMO_SIZE]:
                self._memo[key] = known[key]
        decided = []
        for key, request in zip(keys, requests):
            decision = known[key]
            decided.append(decision if decision.request is request or decision.request == request
                           else decision.model_copy(update={"request": request}))
        return decided

    def _memo_key(self, request: PolicyRequest) -> tuple[object, ...]:
        if self._ids_matter:
            return tuple(request.__dict__.values())
        values = list(request.__dict__.values())
        values[_RESOURCE_ID] = ""
        return tuple(values)

    def _decide(self, request: PolicyRequest) -> Decision:
        entities = self._principals.get(request.principal)
        if entities is None:
            entities = self._principal_entities(request.principal)
            if request.principal in self.roles.principals:
                self._principals[request.principal] = entities
        ptype = self.principal_type(request.principal)
        return self._evaluate(request, ptype, entities)

    def decide_as(
        self, request: PolicyRequest, principal_type: PrincipalType, roles: Iterable[Role]
    ) -> Decision:
        """Decide for a hypothetical principal holding `roles` in the request's domain."""
        held = {role: frozenset({request.domain}) for role in roles}
        entity = principal_entity(request.principal, principal_type, held)
        return self._evaluate(request, principal_type, cedarpy.Entities.from_json_str(json.dumps([entity])))

    def decide_many(
        self, requests: Sequence[PolicyRequest], as_type: PrincipalType | None = None
    ) -> list[Decision]:
        """Decide a batch (used by diff and check); the same answers as `decide`.

        Resources get batch-local ids, so this is for requests whose rules do not
        name a resource by id. `as_type` overrides every principal's type.
        """
        results = self._authorize_many(requests, as_type)
        return [self._decision(r, result, names) for r, (result, names) in zip(requests, results)]

    def allows_many(self, requests: Sequence[PolicyRequest]) -> list[bool]:
        """Only the verdicts of `decide_many`: what diff needs, at less cost."""
        return [answer.allowed and not answer.errors for answer, _ in self._authorize_many(requests, None)]

    def _authorize_many(
        self, requests: Sequence[PolicyRequest], as_type: PrincipalType | None
    ) -> list[tuple[Answer, Mapping[str, Rule]]]:
        # One Cedar request per question it can tell apart, asked in chunks of one action each
        # (its policy partition); a large batch's entity sets are parsed beside Cedar's answers.
        asked = ask(requests, lambda principal: as_type or self.principal_type(principal),
                    self._principal_entity_for, self._read)
        by_action: dict[Action, list[int]] = {}
        for index, action in enumerate(asked.actions):
            by_action.setdefault(action, []).append(index)
        chunks = [indices[start : start + _BATCH] for indices in by_action.values()
                  for start in range(0, len(indices), _BATCH)]
        answers: list[tuple[Answer, Mapping[str, Rule]]] = [_NO_ANSWER] * len(asked.requests)
        for chunk, handle in zip(chunks, entity_sets(asked, chunks, len(asked.requests) >= _PIPELINED)):
            policies, names = self._partition(asked.actions[chunk[0]])
            results = _authorized([asked.requests[i] for i in chunk], policies, handle, self._schema)
            for index, result in zip(chunk, results):
                answers[index] = (result, names)
        return [answers[i] for i in asked.which]

    def _evaluate(
        self, request: PolicyRequest, ptype: PrincipalType, principal: cedarpy.Entities
    ) -> Decision:
        rid = request.resource_id or "-"
        entities = principal.with_added_json_str(json.dumps([resource_entity(request, rid)]))
        policies, names = self._partition(request.action)
        result = cedarpy.is_authorized(cedar_request(request, ptype, rid), policies, entities, self._schema)
        answer = Answer(result.allowed, result.diagnostics.reasons, result.diagnostics.errors)
        return self._decision(request, answer, names)

    def _partition(self, action: Action) -> tuple[cedarpy.PolicySet, dict[str, Rule]]:
        """Cedar evaluates every policy it is given: for each action, only those that can name it."""
        names = self._names[action]
        policies = self._policies.get(action)
        if policies is None:
            policies = self._policies[action] = self._cedar if self._hierarchy else \
                cedarpy.PolicySet.from_str("\n".join(rule.text for rule in names.values()))
        return policies, names

    def _decision(
        self, request: PolicyRequest, answer: Answer, names: Mapping[str, Rule]
    ) -> Decision:
        errors = answer.errors
        matched = [names[p] for p in answer.reasons if p in names]
        if len(matched) > 1:
            matched.sort(key=lambda rule: self._order[rule.id])
        facts: dict[str, object] = request.__dict__  # the fields as they are: `explain` prints enums by value
        ids = tuple(rule.id for rule in matched)
        if answer.allowed and not errors and matched:
            return Decision(
                allowed=True, rule_id=matched[0].id, rule_ids=ids,
                message=matched[0].explain(facts), request=request,
            )
        forbids = [rule for rule in matched if rule.effect == "forbid"]
        if forbids:
            message = "; ".join(rule.explain(facts) for rule in forbids)
            return Decision(
                allowed=False, rule_id=forbids[0].id, rule_ids=tuple(r.id for r in forbids),
                message=message, request=request,
            )
        if errors:
            return Decision(allowed=False, rule_id="", message=_error_message(request, errors[0]), request=request)
        message = f"no rule permits {request.action.value} for {request.principal} in {request.domain}"
        if not self.roles.bindings.get((request.principal, request.domain)):
            message += f" ({request.principal} holds no role there)"
        return Decision(allowed=False, rule_id="", message=message, request=request)

    def _principal_entity_for(self, principal: str, ptype: PrincipalType) -> dict[str, Any]:
        held = {role: self.roles.domains_where(principal, role) for role in Role}
        return principal_entity(principal, ptype, held)

    def _principal_entities(self, principal: str) -> cedarpy.Entities:
        entity = self._principal_entity_for(principal, self.principal_type(principal))
        return cedarpy.Entities.from_json_str(json.dumps([entity]))


class Answer(NamedTuple):
    """Cedar's answer to one request: allowed, the policies that decided, the errors."""

    allowed: bool
    reasons: list[str]
    errors: list[str]


_NO_ANSWER: tuple[Answer, Mapping[str, Rule]] = (Answer(False, [], ["not asked"]), {})


def _authorized(batch: list[dict[str, Any]], policies: cedarpy.PolicySet, entities: cedarpy.Entities,
                schema: cedarpy.Schema) -> list[Answer]:
    """`cedarpy.is_authorized_batch`, its JSON answers read with orjson, straight into
    `Answer`s: a tenth of a batch's time less (cedarpy decodes each answer with the json
    module and wraps it in objects). Falls back to the public call when the extension's
    entry point is not the one this was written against."""
    internal = getattr(getattr(cedarpy, "_internal", None), "is_authorized_batch", None)
    inner = getattr(entities, "_inner", None)
    if internal is None or inner is None:
        return [Answer(r.allowed, r.diagnostics.reasons, r.diagnostics.errors)
                for r in cedarpy.is_authorized_batch(batch, policies, entities, schema)]
    answers = []
    for text in internal(batch, policies, inner, schema, False):
        answer = orjson.loads(text)
        diagnostics = answer.get("diagnostics") or {}
        answers.append(Answer(answer.get("decision") == "Allow", diagnostics.get("reason") or [],
                              diagnostics.get("errors") or []))
    return answers


def _has_action_groups(schema: cedarpy.Schema) -> bool:
    return any(line.startswith("action ") and " in [" in line for line in str(schema).splitlines())


def _names_by_action(rules: tuple[Rule, ...], hierarchy: bool) -> dict[Action, dict[str, Rule]]:
    """For each action, the rules whose scope can name it, each by its id in the action's
    Cedar policy set. With action groups in the schema a scope may name an action through its
    group, so every action then gets the whole set (named as in it)."""
    whole = {f"policy{i}": rule for i, rule in enumerate(rules)}
    if hierarchy:
        return {action: whole for action in Action}
    partitions = {}
    for action in Action:
        subset = [r for r in rules if r.actions is None or action.value in r.actions]
        partitions[action] = {f"policy{i}": rule for i, rule in enumerate(subset)}
    return partitions


def _names_a_resource(text: str) -> bool:
    return any(f"{name}::" in text for name in RESOURCE_TYPES.values())


def _error_message(request: PolicyRequest, error: str) -> str:
    if "is not valid for" in error:
        return f"{request.action.value} does not apply to a {request.resource_type.value}"
    return f"refused: the policy could not evaluate this request ({error})"


__all__ = ["PolicySet", "init_policy_dir"]
