"""One agent's standing in the hall while its MCP server runs: identity, domain, session.

The server process is bound to one principal and one domain; every call goes
through `Agent.governed`, which runs the hall's use case one at a time and
turns a user's error into a tool error whose text is the CLI's one line.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar
from uuid import UUID

from eventsourcing.persistence import PersistenceError
from mcp.server.mcpserver.exceptions import ToolError
from sqlalchemy.exc import SQLAlchemyError

from memhall.domains.errors import InvalidValueError, MemhallError
from memhall.domains.values import domain_name, principal_name
from memhall.governance import sessions
from memhall.governance.hall import Hall
from memhall.governance.views import HandoffView, WrapUpResult

T = TypeVar("T")


@dataclass
class Agent:
    """The principal and domain a server acts as, and the session it opened."""

    hall: Hall
    actor: str
    domain: str
    #: the session this process opened with get_handoff, until wrap_up closes it
    session_id: str | None = None
    #: a wrap-up's idempotency key: per session, so a retried wrap_up replays
    #: the first one instead of writing a second
    wrap_key: str = field(default_factory=lambda: f"mcp-wrap-up:{uuid.uuid4()}")
    # The hall was written for one call at a time (the CLI); the SDK runs sync
    # tools on worker threads, so calls are serialized. They are short.
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:
        self.actor = principal_name(self.actor)
        self.domain = domain_name(self.domain)

    def governed(self, work: Callable[[], T]) -> T:
        """Run one use case; a refusal or a user's error becomes a tool error
        (isError) carrying the hall's one line, which names the rule."""
        with self._lock:
            try:
                return work()
            except MemhallError as error:
                raise ToolError(str(error)) from None
            except (SQLAlchemyError, PersistenceError) as error:
                raise ToolError(f"the store cannot be used: {_first_line(error)}") from None

    def session(self, given: str | None) -> str | None:
        return given or self.session_id

    def handoff(self, limit: int) -> HandoffView:
        """The handoff; the first call opens this agent's session, later calls
        report the same one (so get_handoff is idempotent per process)."""
        view = sessions.handoff(self.hall, self.actor, self.domain,
                                open_session=self.session_id is None, limit=limit)
        if view.session_id is not None:
            self.session_id = view.session_id
            self.wrap_key = f"mcp-wrap-up:{view.session_id}"
        return view.model_copy(update={"session_id": self.session_id})

    def wrap_up(self, summary: str, *, session_id: str | None, pointers: Sequence[str],
                closes: Sequence[UUID], opens: Sequence[str]) -> WrapUpResult:
        key = f"mcp-wrap-up:{session_id}" if session_id else self.wrap_key
        result = sessions.wrap_up(self.hall, self.actor, self.domain, summary,
                                  session_id=self.session(session_id), pointers=pointers,
                                  closes=closes, opens=opens, idempotency_key=key)
        if result.session_id == self.session_id:
            self.session_id = None  # closed: the next get_handoff opens a new one
        return result

    def reminder_session(self, given: str | None) -> str:
        session = self.session(given)
        if not session:
            raise InvalidValueError("a reminder counts inside a session: call get_handoff first")
        return session


def _first_line(error: BaseException) -> str:
    """The driver's own message, on one line (SQLAlchemy appends a help link)."""
    cause = getattr(error, "orig", None) or error.__cause__ or error
    text = str(cause).strip().splitlines()
    return text[0] if text else type(error).__name__
