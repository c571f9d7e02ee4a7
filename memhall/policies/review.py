"""Reviewing a policy directory: `check` (files, cases, coverage) and `explain` (one decision)."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from memhall.domains.errors import PolicyConfigError
from memhall.domains.values import PrincipalType
from memhall.policies import grid
from memhall.policies.cases import Case, load_cases
from memhall.policies.digest import digest_summary, policy_digest
from memhall.policies.engine import PolicySet
from memhall.policies.model import Decision, PolicyRequest
from memhall.policies.signers import AllowedSigners


class CaseFailure(BaseModel):
    where: str
    name: str
    expected: str
    got: str
    message: str


class CheckReport(BaseModel):
    directory: str
    errors: list[str] = []
    failures: list[CaseFailure] = []
    #: rules a principal with no role in a domain would be granted through
    leaks: list[str] = []
    cases_run: int = 0
    #: the policy digest a domain's owner would adopt (empty when the files do not load)
    digest: str = ""
    rules: list[str] = []
    #: rule ids no case names as its expected rule
    uncovered: list[str] = []

    @property
    def ok(self) -> bool:
        return not (self.errors or self.failures or self.leaks)

    def text(self) -> str:
        lines = [f"error: {error}" for error in self.errors]
        lines += [
            f"FAIL {f.where}: {f.name}: expected {f.expected}, got {f.got} ({f.message})"
            for f in self.failures
        ]
        lines += [f"LEAK {leak}" for leak in self.leaks]
        lines += [f"warning: no case covers rule {rule}" for rule in self.uncovered]
        verdict = "ok" if self.ok else "FAILED"
        lines.append(
            f"{verdict}: {self.directory}: {len(self.rules)} rules, {self.cases_run} cases, "
            f"{len(self.failures)} failed, {len(self.errors)} errors"
            + (f", digest {digest_summary(self.digest)}" if self.digest else "")
        )
        return "\n".join(lines)


def check(directory: Path | None) -> CheckReport:
    """Validate schema, rules and roles; run every test case; look for leaks."""
    report = CheckReport(directory=str(directory) if directory else "(packaged defaults)")
    try:
        policy_set = PolicySet.load(directory)
    except PolicyConfigError as exc:
        report.errors.append(str(exc))
        return report
    report.rules = [rule.id for rule in policy_set.rules]
    report.digest = policy_digest(policy_set.source)
    try:
        AllowedSigners.of(policy_set.source)
    except PolicyConfigError as exc:
        report.errors.append(str(exc))
    cases: list[Case] = []
    for file in policy_set.source.tests:
        try:
            cases += load_cases(file, policy_set)
        except PolicyConfigError as exc:
            report.errors.append(str(exc))
    for case in cases:
        decision = case.run(policy_set)
        if not case.passes(decision):
            report.failures.append(_failure(case, decision))
    report.cases_run = len(cases)
    named = {case.expect_rule for case in cases}
    report.uncovered = [rule for rule in report.rules if rule not in named]
    report.leaks = no_role_leaks(policy_set)
    return report


def _failure(case: Case, decision: Decision) -> CaseFailure:
    def outcome(allowed: bool, rule: str | None) -> str:
        verdict = "allow" if allowed else "deny"
        return verdict if rule is None else f"{verdict} by {rule or '(no rule)'}"

    return CaseFailure(
        where=f"{case.file}:{case.line}",
        name=case.name,
        expected=outcome(case.expect_allowed, case.expect_rule),
        got=outcome(decision.allowed, decision.rule_id if case.expect_rule is not None else None),
        message=decision.message,
    )


def no_role_leaks(policy_set: PolicySet) -> list[str]:
    """A principal with no role in a domain must be able to do nothing there."""
    nobody = "nobody"
    while nobody in policy_set.roles.principals:
        nobody += "_"
    points = grid.points([nobody], policy_set.domains or ("default",), policy_set.applies)
    leaks: dict[str, str] = {}
    for ptype in PrincipalType:
        requests = [p.request() for p in points]
        for decision in policy_set.decide_many(requests, as_type=ptype):
            if decision.allowed and decision.rule_id not in leaks:
                r = decision.request
                leaks[decision.rule_id] = (
                    f"rule {decision.rule_id} lets a{'n' if ptype is PrincipalType.AGENT else ''} "
                    f"{ptype.value} with no role do {r.action.value} in {r.domain}"
                )
    return list(leaks.values())


class RuleView(BaseModel):
    id: str
    effect: str
    where: str
    message: str
    text: str


class Explanation(BaseModel):
    decision: Decision
    rules: list[RuleView]
    principal_type: str
    roles: list[str]
    facts: dict[str, object]

    def text(self) -> str:
        verdict = "ALLOW" if self.decision.allowed else "DENY"
        request = self.decision.request
        lines = [
            f"{verdict} {request.principal} {request.action.value} "
            f"{request.resource_type.value} in {request.domain}",
            f"  because: {self.decision.message}",
            f"  {request.principal} is a{'n' if self.principal_type == 'agent' else ''} "
            f"{self.principal_type} with roles in {request.domain}: {', '.join(self.roles) or 'none'}",
            "  facts: " + ", ".join(f"{k}={v}" for k, v in self.facts.items()),
        ]
        for rule in self.rules:
            lines.append(f"  rule {rule.id} ({rule.effect}, {rule.where}):")
            lines += [f"    {line}" for line in rule.text.splitlines()]
        return "\n".join(lines)


def explain(policy_set: PolicySet, request: PolicyRequest) -> Explanation:
    """The decision, the rule(s) that made it, and the facts it was made on."""
    decision = policy_set.decide(request)
    rules = [policy_set.rule(rule_id) for rule_id in decision.rule_ids]
    defaults = PolicyRequest(
        principal=request.principal, action=request.action,
        domain=request.domain, resource_type=request.resource_type,
    )
    facts = {
        name: value
        for name, value in request.model_dump(mode="json").items()
        if name in {"principal", "action", "domain", "resource_type"} or value != getattr(defaults, name)
    }
    return Explanation(
        decision=decision,
        rules=[
            RuleView(id=r.id, effect=r.effect, where=r.where, message=r.message, text=r.text)
            for r in rules
            if r is not None
        ],
        principal_type=policy_set.principal_type(request.principal).value,
        roles=sorted(policy_set.roles_of(request.principal, request.domain)),
        facts=facts,
    )
