"""How a refusal is recorded: in the domain's stream, or in the system stream
for a principal with no role there and for a domain that does not exist."""

from __future__ import annotations

from typing import NoReturn

from sqlalchemy import Connection

from memhall.domains.errors import MemhallError, NotFoundError, RefusedError
from memhall.domains.records import Refusal
from memhall.governance.exposure import KnowsRoles
from memhall.governance.gate import NO_RULE, Gate, Refused
from memhall.governance.store import Store
from memhall.governance.streams import DomainStream, Streams
from memhall.policies.model import Action, PolicyRequest, ResourceType


class Refusals:
    """The hall's refusal record: every refused action stays in the log."""

    def __init__(self, store: Store, streams: Streams, gate: Gate) -> None:
        self.store = store
        self.streams = streams
        self.gate = gate

    def refuse(
        self,
        session: Connection,
        stream: DomainStream,
        request: PolicyRequest,
        error: MemhallError,
        *,
        rule: str,
    ) -> NoReturn:
        """Record a refusal in the domain's stream, then abort the use case.
        Whatever refused it — the policy or a rule of the domain (a "no" to one
        of the four questions, a stranger's dissent) — the caller gets a
        refusal: exit 3, naming the rule it is recorded under."""
        if isinstance(error, NotFoundError):
            raise error  # a wrong id is a mistake, not a refusal: nothing is recorded
        rule = rule or NO_RULE
        reason = str(error)
        stranger = self.stranger(request.principal, stream.name)
        if stranger and stream.name not in reason:
            reason = f"{reason} (in {stream.name})"
        refusal = Refusal(
            action=request.action.value,
            resource_type=request.resource_type.value,
            resource_id=request.resource_id,
            layer=request.target_layer or request.layer,
            reason=reason,
            actor=request.principal,
            rule=rule,
        )
        # A principal with no role in the domain cannot grow its log: the
        # refusal is kept in the system stream instead.
        (self.streams.system() if stranger else stream).save(session, refusal)
        if not isinstance(error, RefusedError):
            error = RefusedError(str(error), rule=rule, domain=stream.name)
        raise Refused(error)

    def stranger(self, actor: str, domain: str) -> bool:
        """A principal the policy gives no role in the domain (when it can say)."""
        gate = self.gate
        return isinstance(gate, KnowsRoles) and not gate.roles_of(actor, domain)

    def record_system(self, actor: str, action: Action, domain: str, reason: str, *,
                      rule: str = "unknown-domain") -> None:
        """A refusal about a domain as a whole (unknown, or not to be created),
        committed in the system stream in a transaction of its own."""
        system = self.streams.system()
        refusal = Refusal(
            action=action.value,
            resource_type=ResourceType.DOMAIN.value,
            resource_id=domain,
            layer="",
            reason=reason,
            actor=actor,
            rule=rule,
        )
        with self.store.write() as session:
            system.save(session, refusal)
