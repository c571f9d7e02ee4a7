"""`memhall mcp`: serve the hall to one agent over MCP on stdio.

Only click is imported here: `memhall --help` loads every command's module to
print its help line, and the MCP SDK costs most of a second to import, so it
is imported when the server starts, never on another command's path.
"""

from __future__ import annotations

import click

from memhall.domains.errors import InvalidValueError, UnknownDomainError


@click.command("mcp")
@click.option("--as", "actor", metavar="PRINCIPAL",
              help="The principal every tool acts as (one server process per agent identity).")
@click.option("--domain", metavar="NAME", help="The domain to act in (default: the only one there is).")
@click.option("--store", metavar="URL|PATH", help="SQLAlchemy URL or SQLite file path.")
@click.option("--policy", metavar="DIR", help="Policy directory.")
@click.pass_context
def mcp(ctx: click.Context, actor: str | None, domain: str | None, store: str | None,
        policy: str | None) -> None:
    """Serve the hall to one agent over MCP (stdio).

    Its tools act as --as in --domain, and the policy decides exactly as it
    does for the same CLI command. Options left out fall back to memhall's
    own (--as, --domain, --store, --policy) and their MEMHALL_* variables.
    Nothing but the protocol is written to stdout; logs go to stderr.
    """
    from memhall.agents.agent import Agent
    from memhall.agents.mcp_server import serve
    from memhall.governance.hall import Hall
    from memhall.governance.location import locate
    from memhall.governance.store import Store
    from memhall.policies.engine import PolicySet
    from memhall.policies.folder import policy_directory

    from memhall.agents.wiring import require_agent
    from memhall.governance.project import load_defaults

    root = ctx.find_root().params
    defaults = load_defaults()  # the project's, as for the CLI: flags and environment win
    actor = actor or root.get("actor") or defaults.actor
    if not actor:
        raise InvalidValueError("no acting principal: pass --as NAME, set MEMHALL_AGENT, or set `as` in "
                                ".memhall/config.toml")
    hall = Hall(Store(locate(store or root.get("store"))),
                PolicySet.load(policy_directory(policy or root.get("policy"))))
    require_agent(hall.gate, actor, "memhall mcp acts for an agent", "pass --as AGENT, the agent's own name")
    chosen = _domain(hall.domain_names(), domain or root.get("domain") or defaults.domain)
    serve(Agent(hall, actor, chosen), verbose=bool(root.get("verbose")))


def _domain(existing: list[str], given: str | None) -> str:
    """The domain asked for, which must exist (a server that cannot act fails at
    start, where the operator sees it); without one, the only domain there is."""
    if given:
        if given not in existing:
            raise UnknownDomainError(given)
        return given
    if len(existing) == 1:
        return existing[0]
    if not existing:
        raise InvalidValueError("no domain in this store yet: create one with `memhall domain create NAME`")
    raise InvalidValueError(f"no domain: pass --domain NAME (this store has {', '.join(existing)})")
