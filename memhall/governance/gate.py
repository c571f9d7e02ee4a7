"""The hall's question to the policy layer, and how a refusal is recorded."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from memhall.domains.errors import PolicyDeniedError
from memhall.policies.model import Decision, PolicyRequest


class Gate(Protocol):
    """Anything that answers policy requests (the Cedar `PolicySet`)."""

    def decide(self, request: PolicyRequest) -> Decision: ...


def decide_all(gate: Gate, requests: Sequence[PolicyRequest]) -> list[Decision]:
    """Decisions for a batch of requests, in order: in one batched evaluation when
    the gate can (the Cedar `PolicySet`), else one by one. Same answers either way."""
    batch = getattr(gate, "decide_batch", None)
    if batch is not None:
        return list(batch(requests))
    return [gate.decide(request) for request in requests]


class Refused(Exception):
    """Raised inside a write transaction after the refusal event was saved:
    the transaction commits the refusal, then the caller gets the error."""

    def __init__(self, error: Exception) -> None:
        super().__init__(str(error))
        self.error = error


#: the rule a refusal is recorded under when no rule permits the request
NO_RULE = "no-rule-permits"


def denial(decision: Decision) -> PolicyDeniedError:
    rule = decision.rule_id or "no rule permits"
    message = decision.message or f"refused by {rule}"
    if decision.rule_id and decision.rule_id not in message:
        message = f"{message} [{decision.rule_id}]"
    return PolicyDeniedError(f"refused: {message}", rule=decision.rule_id or NO_RULE,
                             domain=decision.request.domain)


def roles_hint(gate: Gate, domain: str, policy_dir: str | None) -> str:
    """What to do when a refusal names a domain roles.yaml does not declare
    ("" when it does, or when the gate cannot say: only the Cedar `PolicySet`
    reads roles.yaml)."""
    declared = getattr(gate, "domains", None)
    if not domain or not isinstance(declared, tuple) or domain in declared:
        return ""
    if policy_dir is None:
        return (f"domain {domain!r} is not in the built-in roles.yaml: run `memhall init` for a "
                f"memhall-policy/roles.yaml of your own, add {domain} there, then `memhall policy check`")
    return (f"domain {domain!r} is not in {policy_dir}/roles.yaml: add it under `domains:` and give "
            f"it roles under `roles:`, then `memhall policy check`")
