"""Policy test cases (tests/*.yaml): a request, the decision expected, and running them.

A case file is a list of cases:

    - name: a seat cannot write the hall
      principal: gemini            # from roles.yaml, or {name, type, roles}
      action: write_l2
      resource: {type: entry, domain: company, target_layer: L2}
      claims: {layer: L4}          # optional: what the payload claimed
      expect: deny
      rule: ""                     # optional: the rule id expected to decide
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, RootModel

from memhall.domains.values import PrincipalType
from memhall.policies.engine import PolicySet
from memhall.policies.files import SourceFile
from memhall.policies.model import Action, Decision, PolicyRequest, ResourceType
from memhall.policies.roles import Role
from memhall.policies.yamlfile import Lines, config_error, load_yaml, validated


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _Principal(_Strict):
    """A hypothetical principal, holding `roles` in the case's domain."""

    name: str
    type: PrincipalType = PrincipalType.AGENT
    roles: list[Role] = []


class _Resource(_Strict):
    type: ResourceType | None = None  # default: the first the action applies to
    id: str = ""
    domain: str
    layer: str = ""
    target_layer: str = ""
    kind: str = ""
    author: str = ""
    has_evidence: bool = False
    nominated_by: str = ""
    promotion_path: str = ""
    reminder_sessions: int = 0
    dissent_recorded: bool = False
    seat: str = ""


class _Claims(_Strict):
    principal: str = ""
    domain: str = ""
    layer: str = ""


class _Case(_Strict):
    name: str
    principal: str | _Principal
    action: Action
    resource: _Resource
    claims: _Claims = _Claims()
    expect: Literal["allow", "deny"]
    rule: str | None = None


class _CaseFile(RootModel[list[_Case]]):
    pass


@dataclass(frozen=True)
class Case:
    name: str
    file: str
    line: int
    expect_allowed: bool
    expect_rule: str | None
    request: PolicyRequest
    hypothetical: _Principal | None = None

    def run(self, policy_set: PolicySet) -> Decision:
        if self.hypothetical is None:
            return policy_set.decide(self.request)
        return policy_set.decide_as(self.request, self.hypothetical.type, self.hypothetical.roles)

    def passes(self, decision: Decision) -> bool:
        if decision.allowed != self.expect_allowed:
            return False
        return self.expect_rule is None or decision.rule_id == self.expect_rule


def load_cases(file: SourceFile, policy_set: PolicySet) -> list[Case]:
    data, lines = load_yaml(file)
    if data is None:
        return []
    model = validated(_CaseFile, file, data, lines)
    return [_case(file, lines, index, case, policy_set) for index, case in enumerate(model.root)]


def _case(file: SourceFile, lines: Lines, index: int, case: _Case, policy_set: PolicySet) -> Case:
    resource = case.resource
    applies = policy_set.resource_types_for(case.action)
    rtype = resource.type or applies[0]
    if case.rule is not None and case.rule and policy_set.rule(case.rule) is None:
        raise config_error(file, lines, (index, "rule"), f"no rule has the id {case.rule!r}")
    hypothetical = case.principal if isinstance(case.principal, _Principal) else None
    name = hypothetical.name if hypothetical else str(case.principal)
    request = PolicyRequest(
        principal=name,
        action=case.action,
        domain=resource.domain,
        resource_type=rtype,
        resource_id=resource.id,
        layer=resource.layer,
        target_layer=resource.target_layer,
        kind=resource.kind,
        author=resource.author,
        has_evidence=resource.has_evidence,
        nominated_by=resource.nominated_by,
        promotion_path=resource.promotion_path,
        reminder_sessions=resource.reminder_sessions,
        dissent_recorded=resource.dissent_recorded,
        seat=resource.seat,
        claimed_principal=case.claims.principal,
        claimed_domain=case.claims.domain,
        claimed_layer=case.claims.layer,
    )
    return Case(
        name=case.name,
        file=file.name,
        line=lines.get((index,), 1),
        expect_allowed=case.expect == "allow",
        expect_rule=case.rule,
        request=request,
        hypothetical=hypothetical,
    )
