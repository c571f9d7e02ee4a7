"""The hall's question to the policy layer, and how a refusal is recorded."""

from __future__ import annotations

from typing import Protocol

from memhall.domains.errors import PolicyDeniedError
from memhall.policies.model import Decision, PolicyRequest


class Gate(Protocol):
    """Anything that answers policy requests (the Cedar `PolicySet`)."""

    def decide(self, request: PolicyRequest) -> Decision: ...


class Refused(Exception):
    """Raised inside a write transaction after the refusal event was saved:
    the transaction commits the refusal, then the caller gets the error."""

    def __init__(self, error: Exception) -> None:
        super().__init__(str(error))
        self.error = error


def denial(decision: Decision) -> PolicyDeniedError:
    rule = decision.rule_id or "no rule permits"
    message = decision.message or f"refused by {rule}"
    if decision.rule_id and decision.rule_id not in message:
        message = f"{message} [{decision.rule_id}]"
    return PolicyDeniedError(f"refused: {message}")
