"""Sessions and the domain's own events in the read models."""

from __future__ import annotations

from collections.abc import Iterable

from memhall.governance.projection.ops import REFUSAL, Insert, Op, State, Update, audits, fixed, projects
from memhall.governance.projection.schema import iso

OPENED = "memhall.Session.Opened"


@projects(OPENED)
def _opened(e: State, position: int) -> Iterable[Op]:
    yield Insert("sessions", {"id": e["originator_id"], "principal": e["principal"],
                              "opened_at": iso(e["timestamp"]), "closed": False,
                              "summary_entry": None, "position": position})


@projects("memhall.Session.WrappedUp")
def _wrapped_up(e: State, position: int) -> Iterable[Op]:
    yield Update("sessions", e["originator_id"], {"summary_entry": e["summary_entry"], "position": position})


@projects("memhall.Session.Closed")
def _closed(e: State, position: int) -> Iterable[Op]:
    yield Update("sessions", e["originator_id"], {"closed": True, "position": position})


@audits(REFUSAL)
def _refusal_action(e: State) -> tuple[str, str]:
    return (e["action"], e["layer"])


fixed("handoff", OPENED)
fixed("wrap_up", "memhall.Session.WrappedUp")
fixed("session_close", "memhall.Session.Closed")
fixed("domain_create", "memhall.Domain.Opened")
fixed("rebuild", "memhall.Rebuild.Recorded")
