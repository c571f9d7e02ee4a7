"""The memhall session id an agent's own session maps to (uuid5 of a key), stdlib only.

Shared by the hook's main path (`agent_sessions`) and its fast path
(`fast_handoff`), so both find and open the same session.
"""

from __future__ import annotations

from uuid import UUID, uuid5

from memhall.domains.errors import InvalidValueError
from memhall.domains.values import domain_name, principal_name

#: fixed forever: changing it would orphan every open keyed session
NAMESPACE = UUID("6d656d68-616c-6c2d-6167-656e74732d31")
#: how many times one agent session may be reopened after being closed
GENERATIONS = 32


def session_key(agent: str, agent_session: str, domain: str, principal: str) -> str:
    if not agent_session.strip():
        raise InvalidValueError("the hook input names no session_id")
    return "\x1f".join((agent, agent_session.strip(), domain_name(domain), principal_name(principal)))


def keyed_ids(key: str) -> list[UUID]:
    """The session ids a key may take, one per generation."""
    return [uuid5(NAMESPACE, key if g == 0 else f"{key}#{g}") for g in range(GENERATIONS)]
