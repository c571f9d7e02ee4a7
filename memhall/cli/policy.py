"""`memhall policy`: check, diff and explain the role policies kept as code."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from memhall.cli.context import ID, App, note
from memhall.cli.options import KINDS, LAYERS
from memhall.cli.signing import signing_options, use_signer
from memhall.domains.errors import InvalidValueError, MemhallError
from memhall.policies.diff import PolicyDiff, diff_against_git
from memhall.governance.tables import SYSTEM
from memhall.policies.engine import PolicySet
from memhall.policies.model import Action, PolicyRequest, ResourceType
from memhall.policies.review import check as check_policy
from memhall.policies.review import explain as explain_policy

LOCAL_POLICY_DIR = Path("memhall-policy")
PROMOTION_PATHS = ["four-questions", "stale-fact", "canon"]
F = TypeVar("F", bound=Callable[..., Any])


def policy_dir(explicit: Path | None, option: Path | None) -> Path | None:
    """DIR argument, else --policy, else MEMHALL_POLICY, else ./memhall-policy/
    if present; None means the defaults shipped with memhall."""
    for candidate in (explicit, option):
        if candidate is not None:
            return candidate
    from_env = os.environ.get("MEMHALL_POLICY")
    if from_env:
        return Path(from_env)
    return LOCAL_POLICY_DIR if LOCAL_POLICY_DIR.is_dir() else None


def _fail(error: MemhallError) -> None:
    """Under the root command, its error handling (JSON errors included) takes
    over; the `policy` group run on its own ends with one line itself."""
    if click.get_current_context().find_object(App) is not None:
        raise error
    click.echo(f"error: {error}", err=True)
    sys.exit(error.exit_code)


def _json_flag(command: F) -> F:
    return click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")(command)


@click.group(name="policy")
@click.option(
    "--policy", "policy_option", type=click.Path(path_type=Path, file_okay=False), default=None,
    help="Policy directory (default: $MEMHALL_POLICY, ./memhall-policy/, or the built-in defaults).",
)
@click.pass_context
def policy(ctx: click.Context, policy_option: Path | None) -> None:
    """Check, diff and explain the role policies (Cedar rules and roles.yaml)."""
    ctx.ensure_object(dict)
    ctx.obj["policy_option"] = policy_option


def _option(ctx: click.Context) -> Path | None:
    obj = ctx.obj if isinstance(ctx.obj, dict) else {}
    value = obj.get("policy_option")
    if isinstance(value, Path):
        return value
    app = ctx.find_object(App)  # the root's --policy
    return Path(app.policy_arg) if app and app.policy_arg else None


def _wants_json(ctx: click.Context, as_json: bool) -> bool:
    app = ctx.find_object(App)
    return as_json or bool(app and app.json)


@policy.command()
@click.argument("directory", required=False, type=click.Path(path_type=Path, file_okay=False))
@click.option("--require-coverage", is_flag=True, help="Fail when a rule has no test case.")
@_json_flag
@click.pass_context
def check(ctx: click.Context, directory: Path | None, require_coverage: bool, as_json: bool) -> None:
    """Validate DIR's schema, rules and roles, and run its tests/*.yaml cases."""
    report = check_policy(policy_dir(directory, _option(ctx)))
    ok = report.ok and not (require_coverage and report.uncovered)
    if _wants_json(ctx, as_json):
        data = report.model_dump()
        data["ok"] = ok
        click.echo(json.dumps(data, indent=2))
    else:
        click.echo(report.text())
    if not ok:
        problems = len(report.errors) + len(report.failures) + len(report.leaks)
        if not problems:
            problems = len(report.uncovered)
        click.echo(f"error: policy check failed ({problems} problem(s))", err=True)
        sys.exit(1)


@policy.command()
@click.option("--base", "base", metavar="REV", help="Git revision to compare against.")
@click.option("--adopted", is_flag=True,
              help="Compare with the policy adopted in the domain (--domain), else in the store.")
@click.argument("directory", required=False, type=click.Path(path_type=Path, file_okay=False))
@_json_flag
@click.pass_context
def diff(ctx: click.Context, base: str | None, adopted: bool, directory: Path | None, as_json: bool) -> None:
    """Show which principals gained or lost which permissions since REV, or since the adopted policy."""
    if bool(base) == adopted:
        raise click.UsageError("give exactly one of --base REV or --adopted")
    chosen = policy_dir(directory, _option(ctx))
    try:
        if adopted:
            result = _diff_adopted(ctx, chosen)
        else:
            if chosen is None:
                raise click.UsageError("give the policy directory to diff (DIR, --policy or MEMHALL_POLICY)")
            result = diff_against_git(str(base), chosen)
    except MemhallError as error:
        _fail(error)
        return
    click.echo(result.to_json() if _wants_json(ctx, as_json) else result.markdown(), nl=False)


def _diff_adopted(ctx: click.Context, chosen: Path | None) -> PolicyDiff:
    from memhall.governance import charters
    from memhall.policies.digest import digest_summary, policy_digest
    from memhall.policies.diff import diff_sets

    app = _app(ctx, chosen)
    hall = app.hall
    domain = app.domain_arg or app.defaults.domain
    stream = hall.streams.system() if not domain else hall.stream(domain, actor=app.actor, action=Action.READ)
    current = PolicySet.load(chosen)
    charter = hall.seal.charter(stream) if hall.seal is not None else None
    if charter is None:
        raise InvalidValueError(f"nothing is adopted in {stream.name} yet: its first write adopts the policy "
                                "in force (trust on first use)")
    note(f"adopted in {'the store' if stream.name == SYSTEM else stream.name}: {digest_summary(charter.digest)} (from {charter.source}); "
         f"on disk: {digest_summary(policy_digest(current.source))}")
    return diff_sets(charters.adopted_policy(charter), current)


def _app(ctx: click.Context, chosen: Path | None) -> App:
    """The root's App, its policy folder set to the one this command reviews."""
    app = ctx.find_object(App)
    if app is None:
        raise click.UsageError("run this as `memhall policy ...`")
    if chosen is not None:
        app.policy_arg = str(chosen)
    return app


@policy.command()
@click.option("--domain", "domain", default=None, metavar="NAME",
              help="Adopt in this domain only (default: the store and every domain you own).")
@signing_options
@_json_flag
@click.pass_context
def adopt(ctx: click.Context, domain: str | None, key: Path | None, ssh_keygen: bool, as_json: bool) -> None:
    """Bind domains to the policy on disk (owners only, decided under the policy adopted before).

    Records Policy.Adopted in each domain: the policy's digest, its folder and
    the `policy diff` against the previous adopted policy. Until a domain's
    owner adopts a changed policy folder, every write in that domain is refused."""
    from memhall.governance import charters

    app = _app(ctx, policy_dir(None, _option(ctx)))
    hall = app.hall
    use_signer(app, key, ssh_keygen)
    name = domain or app.domain_arg
    if name:
        done = [charters.adopt(hall, app.actor, name)]
    else:
        done = [charters.adopt(hall, app.actor, None)]
        done += [charters.adopt(hall, app.actor, owned) for owned in charters.owned_domains(hall, app.actor)]
    if _wants_json(ctx, as_json):
        click.echo(json.dumps([vars(a) for a in done], indent=2))
        return
    for a in done:
        if not a.changed:
            click.echo(a.summary)
        else:
            where = "the store" if a.domain == SYSTEM else a.domain
            click.echo(f"adopted policy {a.digest[:12]} in {where}"
                       + (f" (was {a.previous[:12]})" if a.previous else "") + f": {a.summary}")


@policy.command()
@click.option("--as", "principal", default=None, envvar="MEMHALL_AGENT",
              help="Acting principal (default: the root's --as).")
@click.option("--action", required=True, type=click.Choice([a.value for a in Action]))
@click.option("--domain", default=None, envvar="MEMHALL_DOMAIN", help="Default: the root's --domain.")
@click.option("--entry", "entry_id", type=ID, default=None,
              help="Take the entry's facts (layer, kind, author, evidence) from the store.")
@click.option("--promotion", "promotion_id", type=ID, default=None,
              help="Take the promotion's facts (nominator, reminders, dissent) from the store.")
@click.option("--resource-type", type=click.Choice([r.value for r in ResourceType]), default=None,
              help="Default: the first resource type the action applies to.")
@click.option("--layer", type=LAYERS, help="The entry's current layer.")
@click.option("--target-layer", type=LAYERS, help="The layer a write, promotion or demotion reaches.")
@click.option("--kind", type=KINDS)
@click.option("--author", default="")
@click.option("--has-evidence", is_flag=True)
@click.option("--nominated-by", default="")
@click.option("--promotion-path", type=click.Choice(PROMOTION_PATHS))
@click.option("--reminder-sessions", type=click.IntRange(0, 1_000_000), default=0)
@click.option("--dissent-recorded", is_flag=True)
@click.option("--seat", default="")
@click.option("--claimed-principal", default="")
@click.option("--claimed-domain", default="")
@click.option("--claimed-layer", default="")
@_json_flag
@click.pass_context
def explain(ctx: click.Context, /, as_json: bool, resource_type: str | None, entry_id: str | None,
            promotion_id: str | None, **facts: Any) -> None:
    """Decide one request and show the rule and the facts behind the decision.

    With --entry or --promotion the facts come from the store, as the hall
    would read them; otherwise from the options.
    """
    try:
        policy_set, request = _explained(ctx, resource_type, entry_id, promotion_id, facts)
    except MemhallError as error:
        _fail(error)
        return
    show_explanation(policy_set, request, _wants_json(ctx, as_json))


def _explained(ctx: click.Context, resource_type: str | None, entry_id: str | None,
               promotion_id: str | None, facts: dict[str, Any]) -> tuple[PolicySet, PolicyRequest]:
    app = ctx.find_object(App) or App()
    facts = {key: "" if value is None else value for key, value in facts.items()}
    facts["principal"] = facts["principal"] or app.actor
    facts["domain"] = facts["domain"] or app.domain_arg or app.defaults.domain
    if not facts["principal"] or not facts["domain"]:
        raise InvalidValueError("explain needs --as PRINCIPAL and --domain NAME")
    policy_set = PolicySet.load(policy_dir(None, _option(ctx)))
    action = Action(facts.pop("action"))
    rtype = ResourceType(resource_type) if resource_type else policy_set.resource_types_for(action)[0]
    if entry_id or promotion_id:
        from memhall.governance.facts import stored_facts
        from memhall.governance.ids import IdKind, resolve

        entry = resolve(app.hall, facts["domain"], IdKind.ENTRY, entry_id) if entry_id else None
        promotion = (resolve(app.hall, facts["domain"], IdKind.PROMOTION, promotion_id)
                     if promotion_id else None)
        stored, rtype = stored_facts(app.hall, facts["domain"], entry, promotion)
        facts.update(stored)
    return policy_set, PolicyRequest(action=action, resource_type=rtype, **facts)


def show_explanation(policy_set: PolicySet, request: PolicyRequest, as_json: bool) -> None:
    """Print why `request` is allowed or denied.

    The extension point for `explain --entry ID`: build the request from the
    store's facts, then call this.
    """
    explanation = explain_policy(policy_set, request)
    click.echo(explanation.model_dump_json(indent=2) if as_json else explanation.text())
