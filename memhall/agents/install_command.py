"""`memhall hooks install AGENT`: merge memhall's session hooks into an agent's settings."""

from __future__ import annotations

from pathlib import Path

import click

from memhall.agents import settings_files
from memhall.agents.payload import AGENTS

NOTES = {
    "claude": "Claude Code caps all SessionEnd hooks together at 1.5 s unless "
              "CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS says more; the per-turn draft covers a cut-off end.",
    "codex": "Codex runs a new or changed hook only once you trust it (/hooks); it has no session-end "
             "event, so a Codex session is closed by its own wrap-up (MCP wrap_up, or `memhall wrap-up`).",
    "gemini": "Gemini CLI does not wait for SessionEnd hooks; the per-turn draft covers a cut-off end.",
}


@click.group()
def hooks() -> None:
    """Coding agents' session hooks: install memhall into Claude Code, Codex or Gemini CLI."""


@hooks.command()
@click.argument("agent", type=click.Choice(AGENTS))
@click.option("--project", "scope", flag_value="project", default=True,
              help="Into this project's settings (./.claude, ./.codex, ./.gemini) [default].")
@click.option("--user", "scope", flag_value="user", help="Into your user settings (~/.claude, …).")
@click.option("--dry-run", is_flag=True, help="Print the diff; write nothing.")
@click.option("--command", "program", default="memhall", show_default=True,
              help="How the agent runs memhall (e.g. an absolute path to it).")
@click.option("--domain", "hook_domain", metavar="NAME",
              help="Put --domain NAME into the hooks (else the agent's MEMHALL_DOMAIN decides).")
@click.option("--as", "hook_actor", metavar="PRINCIPAL",
              help="Put --as PRINCIPAL into the hooks (else MEMHALL_AGENT, else the agent's name).")
@click.pass_context
def install(ctx: click.Context, agent: str, scope: str, dry_run: bool, program: str, hook_domain: str | None,
            hook_actor: str | None) -> None:
    """Merge memhall's hooks into AGENT's settings and print the diff.

    Installing twice changes nothing; other hooks in the file are kept.
    """
    if hook_actor is not None:
        _agent_only(hook_actor, ctx.find_root().params.get("policy"))
    root = Path.home() if scope == "user" else Path.cwd()
    change = settings_files.plan(root, settings_files.Install(agent, program, hook_domain, hook_actor))
    label = str(settings_files.SETTINGS_PATHS[agent]) if scope == "project" else f"~/{settings_files.SETTINGS_PATHS[agent]}"
    if not change.changed:
        click.echo(f"{change.path}: memhall's {agent} hooks are already in place; nothing to change", err=True)
        return
    click.echo(change.diff(label), nl=False)
    if dry_run:
        click.echo(f"dry run: {change.path} not written", err=True)
        return
    settings_files.write(change)
    click.echo(f"wrote {change.path}. {NOTES[agent]}", err=True)


def _agent_only(actor: str, policy: str | None) -> None:
    """Hooks act for an agent: baking a human of roles.yaml into them is refused here, at once
    (the hook would refuse it at every session start)."""
    from memhall.agents.wiring import require_agent
    from memhall.policies.engine import PolicySet
    from memhall.policies.folder import policy_directory

    require_agent(PolicySet.load(policy_directory(policy)), actor, "hooks act for an agent",
                  "give --as the agent's own name")
