"""`memhall handoff`: session start, on the fast path whenever it can answer.

The fast path (`memhall.governance.fast_handoff`, served by `cli.lean_handoff`) reads the read models with
stdlib sqlite3 and imports no SQLAlchemy, pydantic or Cedar; when it cannot
show its answer is the main path's it declines, and the main path
(`sessions.handoff`) answers and caches the policy's decision for next time.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import click

from memhall.cli import lean_handoff
from memhall.cli.context import App, emit, json_option
from memhall.cli.options import as_of_option, limit_option
from memhall.governance import threads

pass_app = click.make_pass_decorator(App, ensure=True)


@click.command()
@limit_option(threads.HANDOFF_LATEST, 100, "How many threads to show (their latest state each).")
@click.option("--no-session", is_flag=True, help="Only read; do not open a session.")
@click.option("--session", "session_id", envvar="MEMHALL_SESSION", hidden=True)
@as_of_option("What a session would have been handed then (a TIME or @N); opens nothing.")
@json_option
@pass_app
def handoff(app: App, limit: int, no_session: bool, session_id: str | None,
            as_of: datetime | int | None) -> None:
    """Session start: the latest state of each open thread, newest first, then
    L1 candidates and open loops. Opens a session, or continues yours if you
    opened one in the last 30 minutes (or MEMHALL_SESSION names it)."""
    from memhall.cli import render

    if as_of is not None:
        from memhall.governance.timetravel import handoff_as_of

        past = handoff_as_of(app.hall, app.actor, app.domain, as_of, limit)
        emit(app, past, lambda: render.handoff(past))
        return

    fast = _fast(app, limit, not no_session, session_id)
    if fast is not None:
        click.echo(lean_handoff.text(fast, app.json))
        return
    from memhall.governance import sessions

    view = sessions.handoff(app.hall, app.actor, app.domain, open_session=not no_session, limit=limit,
                            session_id=session_id)
    _remember(app)
    emit(app, view, lambda: render.handoff(view))


def _fast(app: App, limit: int, open_session: bool, session_id: str | None) -> dict[str, Any] | None:
    if app.gate_factory is not None:
        return None  # a gate given in-process (tests): the main path asks it
    store = lean_handoff.fast_store(app.store_arg)
    if store is None:
        return None
    return lean_handoff.fast_answer(store, app.policy_dir(), app.actor, app.domain, limit, open_session, session_id)


def _remember(app: App) -> None:
    """Cache the policy's allowed answer for the fast path of the next handoff."""
    from memhall.domains.values import domain_name, principal_name
    from memhall.governance import fast_handoff

    if app.gate_factory is None:
        fast_handoff.remember_allowed(app.hall, principal_name(app.actor), domain_name(app.domain),
                                      app.policy_dir())
