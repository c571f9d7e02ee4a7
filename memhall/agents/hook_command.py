"""`memhall hook EVENT --agent AGENT`: a coding agent's hook, which never blocks the agent.

Whatever goes wrong (no store, a refusal, bad JSON on stdin, a bad option) is
one line on stderr and exit 0: a non-zero exit would show up in the agent's
session, and exit 2 would block Claude's `Stop`. Only session-start prints on
stdout, and then exactly one JSON object.
"""

from __future__ import annotations

import os
import re
import sqlite3
import sys
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

import click

from memhall.agents.payload import AGENTS, EVENTS, check_names, parse, read_stdin
from memhall.governance.keyed import session_key

if TYPE_CHECKING:
    from memhall.governance.hall import Hall

#: hooks run quietly: no option may turn a usage slip into a blocking exit code
SETTINGS = {"ignore_unknown_options": True, "allow_extra_args": True,
            "help_option_names": ["-h", "--help"]}


@click.command(context_settings=SETTINGS)
@click.argument("event", required=False, default="", metavar="|".join(EVENTS))
@click.option("--agent", default="", metavar="|".join(AGENTS), help="The agent whose hook this is.")
@click.option("--as", "actor", metavar="PRINCIPAL",
              help="Who acts (default: the root --as / MEMHALL_AGENT, else the agent's name).")
@click.option("--domain", metavar="NAME", help="The domain (default: the root --domain / MEMHALL_DOMAIN).")
@click.option("--summary-file", type=click.Path(path_type=Path),
              help="The wrap-up file the agent writes (default: .memhall/wrap-up.AGENT.md, "
                   "then .memhall/wrap-up.md).")
@click.pass_context
def hook(ctx: click.Context, event: str, agent: str, actor: str | None, domain: str | None,
         summary_file: Path | None) -> None:
    """Run as a coding agent's EVENT hook, reading its hook JSON on stdin.

    session-start opens a memhall session and prints the handoff as one JSON
    object; stop (a turn ended) and pre-compact update one draft wrap-up;
    session-end records the wrap-up and closes the session.
    """
    root = ctx.find_root().params
    try:
        if ctx.args:
            raise click.UsageError(f"unexpected arguments: {' '.join(ctx.args)}")
        check_names(agent, event)
        out = _run(root, event, agent, actor, domain, summary_file)
        if out is not None:
            sys.stdout.buffer.write(out.encode("utf-8") + b"\n")
            sys.stdout.flush()
    except Exception as error:  # the agent must never be blocked by memhall
        if root.get("verbose"):
            import traceback

            traceback.print_exc(file=sys.stderr)
        click.echo(f"memhall hook {event or '?'} ({agent or '?'}): {_one_line(error)}", err=True)


def _run(root: dict[str, object], event: str, agent: str, actor: str | None, domain: str | None,
         summary_file: Path | None) -> str | None:
    from memhall.agents import wiring
    from memhall.policies.files import policy_directory

    payload = parse(agent, event, read_stdin(sys.stdin))
    domain = domain or _str(root.get("domain"))
    if not domain:
        raise click.UsageError("no domain: pass --domain NAME or set MEMHALL_DOMAIN")
    actor = actor or _str(root.get("actor")) or agent
    url = wiring.existing_store_url(_str(root.get("store")), Path.cwd())
    policy = policy_directory(_str(root.get("policy")), Path.cwd())
    key = session_key(agent, payload.session_id, domain, actor)
    if event == "session-start":
        fast = fast_start(url, policy, actor, domain, key)
        if fast is not None:
            return fast
    from memhall.agents import lifecycle

    hall = wiring.hall_at(url, policy)
    try:
        out = lifecycle.run(lifecycle.HookRun(hall=hall, actor=actor, domain=domain, summary_file=summary_file),
                            payload)
        if event == "session-start":
            _remember(hall, actor, domain, policy)
        return out
    finally:
        hall.store.dispose()


def fast_start(url: str, policy: Path | None, actor: str, domain: str, key: str,
               now: datetime | None = None) -> str | None:
    """session-start on the fast path (`governance.fast_start`): the same session and the
    same JSON line as `lifecycle.start`, or None for the caller to take that path."""
    from memhall.agents import briefing
    from memhall.domains.errors import MemhallError
    from memhall.domains.values import domain_name, principal_name
    from memhall.governance import fast_handoff
    from memhall.governance.fast_start import Start, session_start

    store = fast_handoff.sqlite_path(url)
    if store is None or os.environ.get("MEMHALL_FAST_HANDOFF") == "0":
        return None
    try:
        start = Start(store=store, policy_dir=policy, actor=principal_name(actor), domain=domain_name(domain),
                      key=key)
        started = session_start(start, now)
    except (MemhallError, sqlite3.Error):
        return None  # a bad name or a store the fast path does not understand: the main path says why
    if started is None:
        return None
    return briefing.budgeted(fast_handoff.readable(started.view),
                             [fast_handoff.readable_entry(e) for e in started.canon],
                             [fast_handoff.readable_entry(e) for e in started.knowledge],
                             actor=actor, session_id=started.session_id)


def _remember(hall: Hall, actor: str, domain: str, policy: Path | None) -> None:
    """Cache the policy's allowed answers the fast path needs for the next start."""
    from memhall.domains.values import domain_name, principal_name
    from memhall.governance import fast_handoff

    fast_handoff.remember_allowed(hall, principal_name(actor), domain_name(domain), policy,
                                  (fast_handoff.HANDOFF, fast_handoff.READ))


def _str(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _one_line(error: BaseException) -> str:
    if isinstance(error, click.ClickException):
        text = error.format_message()
    else:
        cause = getattr(error, "orig", None) or error
        text = str(cause) or type(error).__name__
    text = re.sub(r"\s+", " ", text).strip()
    return text[:400] + ("…" if len(text) > 400 else "")

