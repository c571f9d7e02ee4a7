"""`memhall hook EVENT --agent AGENT`: a coding agent's hook, which never blocks the agent.

Whatever goes wrong (no store, a refusal, bad JSON on stdin, a bad option) is
one line on stderr and exit 0: a non-zero exit would show up in the agent's
session, and exit 2 would block Claude's `Stop`. Only session-start prints on
stdout, and then exactly one JSON object.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from memhall.agents.payload import AGENTS, EVENTS, check_names, parse, read_stdin
from memhall.governance.keyed import session_key

if TYPE_CHECKING:
    from memhall.governance.hall import Hall

#: the hooks that wait briefly for a busy store (`lean_start.HOOK_LOCK_WAIT_S`)
BRIEF_WAITS = ("session-start", "stop", "pre-compact")

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
    from memhall.agents.lean_start import HOOK_LOCK_WAIT_S, fast_start, gave_up, where
    from memhall.domains.errors import StoreBusyError

    payload = parse(agent, event, read_stdin(sys.stdin))
    at = where(agent, actor, domain, _str(root.get("store")), _str(root.get("actor")), _str(root.get("domain")),
               _str(root.get("policy")), Path.cwd())
    key = session_key(agent, payload.session_id, at.domain, at.actor)
    wait = HOOK_LOCK_WAIT_S if event in BRIEF_WAITS else None
    busy = gave_up() if event == "session-start" else None  # by the click-free start (`console`)
    if event == "session-start" and busy is None:
        try:
            fast = fast_start(at.url, at.policy, at.actor, at.domain, key, lock_wait_s=wait)
        except StoreBusyError as error:
            fast, busy = None, error
        if fast is not None:
            return fast
    from memhall.agents import lifecycle

    hall = wiring.hall_at(at.url, at.policy, lock_wait_s=wait)
    try:
        wiring.require_agent(hall.gate, at.actor, f"{agent}'s hook acts for an agent", "give it the agent's own name (`hooks "
                             "install --as AGENT` bakes it in), or unset MEMHALL_AGENT in the agent's environment")
        job = lifecycle.HookRun(hall=hall, actor=at.actor, domain=at.domain, summary_file=summary_file)
        if busy is None:
            try:
                out = lifecycle.run(job, payload)
            except StoreBusyError as error:
                if event != "session-start":
                    raise
                busy = error
        if busy is not None:  # the handoff all the same, read only: the agent is not kept waiting
            click.echo(f"memhall hook {event} ({agent}): {busy}; the handoff was given without opening "
                       "a session", err=True)
            return lifecycle.unopened(job, str(busy))
        if event == "session-start":
            _remember(hall, at.actor, at.domain, at.policy)
        return out
    finally:
        hall.store.dispose()


def _remember(hall: Hall, actor: str, domain: str, policy: Path | None) -> None:
    """Cache the policy's allowed answers the fast path needs for the next start."""
    from memhall.domains.values import domain_name, principal_name
    from memhall.governance import fast_handoff

    fast_handoff.remember_allowed(hall, principal_name(actor), domain_name(domain), policy,
                                  (fast_handoff.HANDOFF, fast_handoff.READ), marks=(fast_handoff.AGENT,))


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

